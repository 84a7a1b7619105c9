"""dpcore — differentially private statistics for clinical and biomedical data.

Every computation of the dashboard lives here, importable without Streamlit:
``mechanisms`` (calibrated noise, preview and OpenDP release paths),
``ledger`` (the privacy ledger: its key rule, caps, durable SQLite / PostgreSQL stores and history reports;
its ``__init__`` names the file that states the key rule), ``audit`` (black-box ε lower bounds),
``validation`` (uploaded CSV → arrays or a clear error), ``datasets``
(bundled data and public metadata), ``release`` (export bundles), ``report`` and
``release_figures`` (reports and the figures that go with a release), and one package per method
(``survival``, ``regression``, ``sparse``, ``fdr``) whose ``__init__`` names the file that proves its
sensitivity. Layers and rules: ``docs/architecture.md``.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]

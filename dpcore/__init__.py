"""dpcore — differentially private statistics for clinical and biomedical data.

Every computation of the dashboard lives here, importable without Streamlit:
``mechanisms`` (calibrated noise, preview and OpenDP release paths),
``accounting`` (the privacy ledger), ``ledger_store`` (its durable SQLite / PostgreSQL store and the
server configuration), ``audit`` (black-box ε lower bounds),
``validation`` (uploaded CSV → arrays or a clear error), ``datasets``
(bundled data and public metadata), ``release`` (export bundles and reports),
and one module per method.
"""

__version__ = "0.1.0"

"""dpcore — differentially private statistics for clinical and biomedical data.

Every computation of the dashboard lives here, importable without Streamlit, in three layers around the methods:

* ``core`` — the kernel every other package imports: calibrated noise (``mechanisms``), input checks
  (``validation``), persons, bundled data (``datasets``), the black-box audit, Monte-Carlo summaries;
* the privacy layer — ``ledger`` (per-person budgets, caps, durable stores), ``accounting`` (tight composition of
  the events each method declares), ``access`` (roles), ``registry`` (the methods by key), ``provenance`` (how a
  release's settings were chosen); it imports no method;
* ``reporting`` — release bundles, reports, the figures that go with a release, the attacker's view.

One package per method (``survival``, ``regression``, ``sparse``, ``fdr``) whose ``__init__`` names the file that
proves its sensitivity; ``private_choice`` (charged private choices of ε, ranges and the grid), ``plan`` (settings
fixed on a public proxy before the file is read) and ``notebooks`` sit beside them. Layers and rules:
``docs/architecture.md``.
"""

import importlib
import warnings

__version__ = "0.1.0"

#: modules that sat at the root before the layers (``from dpcore import datasets`` keeps working for a release)
_MOVED = {**{m: "core" for m in ("mechanisms", "validation", "persons", "datasets", "audit", "utility", "distributed",
                                 "threads", "columns")},
          **{m: "reporting" for m in ("release", "report", "release_figures", "figure_export", "figure_styles",
                                      "figures", "alt_text", "attack", "attack_figures")},
          **{m: "private_choice" for m in ("selection", "private_bounds", "grid_selection")}}


def __getattr__(name: str):
    """``from dpcore import datasets`` still finds ``dpcore.core.datasets`` (with a DeprecationWarning)."""
    if name in _MOVED:
        warnings.warn(f"dpcore.{name} moved to dpcore.{_MOVED[name]}.{name}", DeprecationWarning, stacklevel=2)
        return importlib.import_module(f"dpcore.{_MOVED[name]}.{name}")
    raise AttributeError(f"module 'dpcore' has no attribute {name!r}")

__all__ = ["__version__"]

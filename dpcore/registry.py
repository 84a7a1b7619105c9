"""The methods the dashboard offers, for pages and the accountant that iterate over all of them.

The audit page and the session report look methods up here; a new method
module plugs in by adding one line, with no change to those pages. Each
module must expose ``audit_scenarios(epsilon) -> list[AuditScenario]``.

The accountant finds a release's privacy events here too (:func:`events_module`): each method's events module
declares the names its releases are charged under (``CHARGED``) and rebuilds their events
(``release_events``), so the privacy layer imports no method package; modules are imported by name, when first
asked for.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

from dpcore.core.audit import AuditScenario

#: key → (module, title shown to users)
METHODS: dict[str, tuple[str, str]] = {
    "survival": ("dpcore.survival", "Survival curves (Kaplan–Meier and friends)"),
    "cox": ("dpcore.survival.cox_audit", "Hazard ratios (grouped Cox model)"),
    "regression": ("dpcore.regression", "Drug sensitivity (AdaSSP, robust private LR)"),
    "sparse": ("dpcore.sparse", "Sparse learning (peeling, knowledge transfer)"),
    "fdr": ("dpcore.fdr", "Online FDR (PAPRIKA)"),
    "selection": ("dpcore.private_choice.selection", "Private choice of ε (the smallest ε meeting a target)"),
    "private_bounds": ("dpcore.private_choice.private_bounds", "Private choice of clipping ranges (DP quantiles)"),
    "grid_selection": ("dpcore.private_choice.grid_selection", "Private choice of the survival grid (the bin width)"),
}


#: key → the module declaring the privacy events of that method's releases (``CHARGED``, ``release_events``)
EVENTS: dict[str, str] = {
    "survival": "dpcore.survival.events",
    "regression": "dpcore.regression.events",
    "sparse": "dpcore.sparse.events",
}


@lru_cache(maxsize=None)
def _charged_by() -> dict[str, str]:
    """Charged method name → the events module that declares it (each name declared once)."""
    found: dict[str, str] = {}
    for module in EVENTS.values():
        for name in importlib.import_module(module).CHARGED:
            if name in found:
                raise ValueError(f"{name!r} is declared by both {found[name]} and {module}")
            found[name] = module
    return found


def events_module(method: str) -> ModuleType | None:
    """The events module of the method whose releases are charged as ``method`` (None: no method declares it)."""
    module = _charged_by().get(method)
    return None if module is None else importlib.import_module(module)


def method_module(key: str) -> ModuleType:
    return importlib.import_module(METHODS[key][0])


def method_title(key: str) -> str:
    return METHODS[key][1]


def audit_scenarios(key: str, epsilon: float) -> list[AuditScenario]:
    """Worst-case neighbouring pairs of method ``key`` at budget ``epsilon``."""
    return list(method_module(key).audit_scenarios(epsilon))


def known_violations(key: str, epsilon: float) -> list[AuditScenario]:
    """Documented pairs on which a method *as published* fails its claim (optional per module).

    Shown on the audit page as a teaching case: the audit refutes the claim
    even though the implementation follows the paper. The method's own page
    must not release that variant.
    """
    finder = getattr(method_module(key), "known_violation_scenarios", None)
    return list(finder(epsilon)) if finder is not None else []

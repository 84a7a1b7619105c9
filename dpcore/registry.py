"""The methods the dashboard offers, for pages that iterate over all of them.

The audit page and the session report look methods up here; a new method
module plugs in by adding one line, with no change to those pages. Each
module must expose ``audit_scenarios(epsilon) -> list[AuditScenario]``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from dpcore.audit import AuditScenario

#: key → (module, title shown to users)
METHODS: dict[str, tuple[str, str]] = {
    "survival": ("dpcore.survival", "Survival curves (Kaplan–Meier and friends)"),
    "cox": ("dpcore.survival.cox_audit", "Hazard ratios (grouped Cox model)"),
    "regression": ("dpcore.regression", "Drug sensitivity (AdaSSP, robust private LR)"),
    "sparse": ("dpcore.sparse", "Sparse learning (peeling, knowledge transfer)"),
    "fdr": ("dpcore.fdr", "Online FDR (PAPRIKA)"),
    "selection": ("dpcore.selection", "Private choice of ε (the smallest ε meeting a target)"),
}


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

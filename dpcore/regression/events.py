"""The privacy events of the regression releases, as the ledger composes them (:mod:`dpcore.accounting`).

Rebuilt from what a release is charged with (its method, ``(ε, δ)`` and ``parts``), never from the data. An additive
mechanism's loss depends only on ``scale/sensitivity``, so a part's ε (and δ) fixes it:

* :data:`~dpcore.regression.adassp.ADASSP` — parts ``λ_min``, ``XᵀX``, ``Xᵀy`` (with or without the bundle's
  ``(10%)`` suffix): three analytic Gaussians at ``(ε_i, δ·ε_i/Σε)`` (the split shares ε and δ alike,
  :data:`~dpcore.regression.adassp.ADASSP_SPLIT`); any other part (``response centre``, ``response scale``) a
  Laplace at its ε;
* :data:`~dpcore.regression.linalg.METHOD` (robust private LR, the paper's) — every part (``nxx``, ``nxy``,
  ``nyy``, DP centre / scale) a Laplace.

The events' basic composition is the charged ``(ε, δ)`` (``tests/accounting/test_accounting_releases.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcore.accounting.events import Gaussian, Laplace
from dpcore.regression.adassp import ADASSP, ADASSP_SPLIT
from dpcore.regression.linalg import METHOD as ROBUST_LR

CHARGED = (ADASSP, ROBUST_LR)
ADASSP_PARTS = ("λ_min", "XᵀX", "Xᵀy")


def _part_name(key: str) -> str:
    """``"XᵀX (45%)"`` (the bundle's key) → ``"XᵀX"`` (the page's)."""
    return key.split(" (")[0]


def release_events(method: str, epsilon: float, delta: float, parts: Mapping[str, float],
                   params: Mapping[str, Any]) -> list:
    """The events of one release charged as ``method`` (one of :data:`CHARGED`); without parts, one Laplace."""
    parts = parts or {"statistics": epsilon}
    gaussian = {k: v for k, v in parts.items() if method == ADASSP and _part_name(k) in ADASSP_PARTS}
    if method == ADASSP and len(gaussian) != len(ADASSP_SPLIT):
        raise ValueError(f"AdaSSP is charged with the parts {ADASSP_PARTS}, got {list(parts)}")
    eps_gauss = sum(gaussian.values())
    return [Gaussian.analytic(eps, delta * eps / eps_gauss) if k in gaussian else Laplace(1.0 / eps, 1.0)
            for k, eps in parts.items()]

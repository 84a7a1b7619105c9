"""Stage 1 — the statistic: clipped sufficient statistics ``nxx, nxy, nyy`` and their sensitivities (proof).

Replace-one, ``n`` public, with ``|x_ij| ≤ Bx`` and ``|y_i| ≤ By`` after clipping — proofs in
:func:`sensitivities`:

* ``nxx`` (upper triangle incl. diagonal, ``d(d+1)/2`` values): ``Δ1 = d(d+1) Bx²``
* ``nxy`` (``d`` values): ``Δ1 = 2 d Bx By``
* ``nyy``: ``Δ1 = By²``
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Stats:
    """Sufficient statistics ``nxx`` (..., d, d), ``nxy`` (..., d), ``nyy`` (...) of ``n`` records."""

    nxx: np.ndarray
    nxy: np.ndarray
    nyy: np.ndarray
    n: int

    def __add__(self, other: "Stats") -> "Stats":
        return Stats(self.nxx + other.nxx, self.nxy + other.nxy, self.nyy + other.nyy, self.n + other.n)


def clip(X: np.ndarray, y: np.ndarray, bx: float, by: float) -> tuple[np.ndarray, np.ndarray]:
    """The projection step: ``x_ij ← clip(x_ij, −Bx, Bx)``, ``y_i ← clip(y_i, −By, By)`` (∞ = no clipping)."""
    return np.clip(X, -bx, bx), np.clip(y, -by, by)


def clip_features(X: np.ndarray, bx: float) -> np.ndarray:
    """Prepared records with their features clipped at ±Bx — for *predicting* with a fit made on clipped records.

    The coefficients of a fit on clipped features live on the clipped scale: with the thresholds the
    search chooses at ε ≤ 10 (ωx = 0.1, so Bx = 0.1/√d), a typical feature of a unit-norm row is ten
    times Bx, and predicting with the unclipped record blew the predictions up tenfold (held-out R²
    −20 on diabetes at ε = 10, −1.1 on GDSC; Spearman's ρ, invariant to scale, did not show it).
    Bx is public, so clipping new records is free post-processing. ``bx = ∞`` leaves them unchanged.
    """
    X = np.asarray(X, dtype=float)
    return X if np.all(np.isinf(bx)) else np.clip(X, -bx, bx)


def prediction_features(X: np.ndarray, bx, *, priors: bool = True) -> np.ndarray:
    """Prepared records as robust private LR predicts on them: clipped at ±Bx with the Gamma priors (the default),
    unclipped in the paper's mode (fixed precisions λ = λ0 = 1, ``priors=False``).

    The paper's mode follows the authors' code: ``processData`` in their ``diffpri.py`` clips the private and the
    non-private training rows only, and ``predictL`` / ``predictMCMC`` take the test rows normalised but unclipped;
    their threshold search and ours (:mod:`dpcore.regression.tuning`) score ``x μ*`` on unclipped rows too, so the
    chosen thresholds are the best for that prediction. On the spec's synthetic design (n = 800 + 200 test, d = 10,
    ε = 2, (ωx, ωy) = (0.1, 0.6), 120 repeats) test Spearman ρ is 0.62 unclipped against 0.52 clipped (an
    independent implementation of the spec: 0.62); ρ ranks, and clipping at ωx = 0.1 turns most features into their
    signs. The default keeps :func:`clip_features`: there the predictions stay on the response's scale (same design:
    median held-out R² 0.12 clipped, −1.0 unclipped; ``docs/regression.md``), which the page reports beside ρ.
    ``bx`` may be an array broadcasting against ``X``.
    """
    return clip_features(X, bx) if priors else np.asarray(X, dtype=float)


def sufficient_stats(X: np.ndarray, y: np.ndarray, bx: float = math.inf, by: float = math.inf) -> Stats:
    """Clipped ``nxx = Σ x xᵀ``, ``nxy = Σ x y``, ``nyy = Σ y²`` (batched over leading axes)."""
    Xc, yc = clip(np.asarray(X, dtype=float), np.asarray(y, dtype=float), bx, by)
    nxx = np.swapaxes(Xc, -1, -2) @ Xc
    nxy = np.einsum("...ni,...n->...i", Xc, yc)
    return Stats(nxx, nxy, np.einsum("...n,...n->...", yc, yc), Xc.shape[-2])


def sensitivities(d: int, bx: float, by: float) -> tuple[float, float, float]:
    """L1 sensitivities of the released ``(nxx upper triangle, nxy, nyy)`` under replace-one.

    * ``nxx``: each released entry is ``Σ_i x_ij x_ik`` with ``|x_ij x_ik| ≤ Bx²``;
      replacing one record changes each of the ``d(d+1)/2`` entries by ``≤ 2Bx²``,
      so the L1 change is ``≤ d(d+1) Bx²`` (the diagonal could use ``Bx²``; we
      keep the paper's bound).
    * ``nxy``: each of the ``d`` entries ``Σ_i x_ij y_i`` has terms in
      ``[−BxBy, BxBy]``; one replacement moves it by ``≤ 2BxBy``: ``Δ1 = 2dBxBy``
      (attained by flipping the sign of ``y`` on a corner row).
    * ``nyy``: terms ``y_i² ∈ [0, By²]``, so one replacement moves it by ``≤ By²``.
    """
    return d * (d + 1) * bx * bx, 2.0 * d * bx * by, by * by

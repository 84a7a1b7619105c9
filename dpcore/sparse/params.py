"""Public parameters (bounds, λ rules, synthetic-data seed), input set-up, and the result type :class:`SparseFit`.

Every parameter here is fixed without looking at the data; :data:`KT_ASSUMPTIONS` are the privacy
assumptions the paper's knowledge-transfer release rests on (stated in every report).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from dpcore.core.mechanisms import Noise, analytic_gaussian_sigma, check_budget
from dpcore.sparse.solver import _sigmoid, clip_features, clip_responses

LOSSES = ("linear", "logistic")
METHODS = ("peel", "kt", "nonprivate", "dp_ight", "frank_wolfe", "two_stage", "kt_ps")
METHOD_LABELS = {
    "peel": "peeling + private fit",
    "kt": "knowledge transfer (student)",
    "nonprivate": "non-private IGHT (teacher)",
    "dp_ight": "DP-IGHT",
    "frank_wolfe": "DP Frank–Wolfe",
    "two_stage": "two-stage",
    "kt_ps": "KT with private support",
}
PRIVATE_METHODS = ("peel", "kt", "dp_ight", "frank_wolfe", "two_stage", "kt_ps")

#: The teacher's ridge rules (:meth:`SparseParams.ridge`), with the labels the page shows.
LAMBDA_RULES = {
    "balanced": "balanced: λ = c_λ·K·√(2√s·γ·u(ε, δ)/(nB)) — bias and noise both vanish as ε grows (default)",
    "paper": "paper: λ = c1·√(s log d log(1/δ))/(nε) — the KT noise does not shrink as ε grows",
}

#: Public seed of the synthetic features X̃ when the caller gives none.
DEFAULT_SYNTHETIC_SEED = 20200207

KT_ASSUMPTIONS = (
    "Teacher sensitivity ‖θ̂(S) − θ̂(S')‖2 ≤ 2√s·γ/(nλ) assumes the teacher is the exact minimiser of a λ-strongly "
    "convex objective on a support that does not depend on the changed record. IGHT's hard thresholding is not "
    "convex: a single record can switch the selected support, and then the bound fails (our audit's 'support flip' "
    "scenario finds a violation). Treat the guarantee as conditional on a stable support.",
    "The bound ‖X̃v‖2 ≤ √(mβ)‖v‖2 (β = K²/3) for the s-sparse teacher difference v is assumed to hold for the public "
    "synthetic features (the paper's probability-(1 − δ/2) event; δ is split in two halves for it).",
    "σ² = 8mβsγ²·log(2.5/δ)/(n²ε²λ²) is the textbook Gaussian mechanism at δ/2, valid only for ε ≤ 1; by default "
    "σ is the larger of it and the analytic Gaussian σ at (ε, δ/2) for the same sensitivity.",
)


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SparseParams:
    """Every public constant of the methods, with the documented defaults.

    ``K`` feature bound (ℓ∞), ``r`` response bound (linear), ``B`` ℓ1 radius
    of the iterates (default ``r/K``: a θ with ``‖θ‖1 ≤ r/K`` has
    ``|xᵀθ| ≤ r``), ``lam`` the teacher's ridge λ (default: the rule named
    by ``lam_rule``, see :meth:`ridge`; ``c_lam`` and ``c1`` are its public
    constants),
    ``m`` synthetic points (default ``n``), ``T1/T2`` teacher/student steps,
    ``dp_T`` and ``dp_step`` for DP-IGHT, ``fw_T`` Frank–Wolfe steps (default
    ``s``-proportional as in the paper), ``lasso_alpha`` the two-stage
    per-block LASSO penalty; for peeling + private fit, ``intercept`` (an unpenalised intercept in the fit,
    never competing for the s slots), ``fit_T`` noisy gradient steps (logistic) and ``fit_step`` their step
    (default ``2/K²``).
    """

    K: float = 1.0
    r: float = 5.0
    B: float | None = None
    lam: float | None = None
    c1: float = 100.0
    lam_rule: str = "balanced"
    c_lam: float = 10.0
    m: int | None = None
    T1: int = 100
    T2: int = 60
    dp_T: int = 30
    dp_step: float | None = None
    fw_T: int | None = None
    lasso_alpha: float = 0.1
    calibration: str = "max"
    intercept: bool = True
    fit_T: int = 30
    fit_step: float | None = None
    synthetic_seed: int = DEFAULT_SYNTHETIC_SEED

    def radius(self) -> float:
        return float(self.B) if self.B is not None else self.r / self.K

    def gamma(self, loss: str) -> float:
        """ℓ∞ bound of one example's gradient: ``K(KB + r)`` (linear), ``K`` (logistic).

        Proof: linear ``∇ℓ = x(xᵀθ − y)`` with ``|x_j| ≤ K``, ``|xᵀθ| ≤ K‖θ‖1 ≤ KB``,
        ``|y| ≤ r``; logistic ``∇ℓ = −y x σ(−y xᵀθ)`` with ``|σ| ≤ 1``.
        """
        return self.K * (self.K * self.radius() + self.r) if loss == "linear" else self.K

    def ridge(self, n: int, d: int, s: int, epsilon: float, delta: float, loss: str) -> float:
        """The teacher's ridge λ for the Gaussian mechanism at ``(ε, δ)``: public by construction.

        It is a function of ``n, d, s, ε, δ`` and the public bounds ``K, B, r`` only (never of the data), so
        every sensitivity computed from it is public too.

        * ``lam_rule="balanced"`` (default): ``λ = c_lam·K·sqrt(2√s·γ·u/(nB))`` with ``u = u(ε, δ)`` the
          analytic Gaussian σ per unit of ℓ2 sensitivity. The ridge shrinks the teacher by about ``λB/K²``
          (curvature of features in ``[−K, K]``, ``‖θ‖ ≤ B``) and leaves noise of about ``u·2√sγ/(nλ)`` on the
          student (sensitivity of θ̂ times u); this λ makes the two equal. Then the noise on the student is
          ``∝ sqrt(u/n)`` and the teacher's bias ``∝ sqrt(u/n)``: since ``u(ε, δ) → 0`` as ``ε → ∞`` (like
          ``1/sqrt(2ε)``), both vanish and the student approaches the non-private IGHT fit (λ = 0).
        * ``lam_rule="paper"``: Wang & Gu's ``λ = c1·sqrt(s log d log(1/δ))/(nε)``. Then ``σ ∝ 1/(nελ)`` does
          not depend on ε (paper's textbook σ) or even grows like ``sqrt(ε)`` (analytic σ ≈ Δ/sqrt(2ε) for
          large ε, with ``Δ ∝ 1/λ ∝ ε``): more budget does not bring the student to the teacher.
        """
        if self.lam is not None:
            return float(self.lam)
        if self.lam_rule == "paper":
            return self.c1 * math.sqrt(s * math.log(d) * math.log(1.0 / delta)) / (n * epsilon)
        if self.lam_rule != "balanced":
            raise ValueError(f"lam_rule must be one of {tuple(LAMBDA_RULES)}, got {self.lam_rule!r}")
        u = analytic_gaussian_sigma(1.0, epsilon, delta)
        return self.c_lam * self.K * math.sqrt(2.0 * math.sqrt(s) * self.gamma(loss) * u / (n * self.radius()))

    def n_synthetic(self, n: int) -> int:
        return int(self.m) if self.m is not None else int(n)


def _params(**params) -> SparseParams:
    unknown = set(params) - set(SparseParams.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown parameter(s): {', '.join(sorted(unknown))}")
    return SparseParams(**{k: v for k, v in params.items() if v is not None})


def prepare(X, y, loss: str, p: SparseParams) -> tuple[np.ndarray, np.ndarray]:
    """Validate shapes and clip to the public bounds (features to K, responses to r or ±1 labels)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if X.ndim != 2 or X.shape[0] != y.size:
        raise ValueError(f"X must be (n, d) with n = len(y); got X {X.shape}, y {y.shape}")
    if X.shape[0] < 2:
        raise ValueError("need at least two records")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("X and y must be finite numbers (no missing values)")
    X = clip_features(X, p.K)
    if loss == "linear":
        y = clip_responses(y, p.r)
    else:
        labels = set(np.unique(y).tolist())
        if not labels <= {-1.0, 1.0, 0.0}:
            raise ValueError(f"logistic labels must be ±1 (or 0/1), got values {sorted(labels)[:5]}")
        y = np.where(y > 0, 1.0, -1.0)
    return X, y


def _check_sparsity(sparsity: int, d: int) -> int:
    s = int(sparsity)
    if not 1 <= s <= d:
        raise ValueError(f"sparsity must be between 1 and d = {d}, got {sparsity}")
    return s


def _check_budget(epsilons, delta) -> np.ndarray:
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    check_budget(eps, delta, delta_needed=True, what="a sparse release")
    return eps


def _setup(X, y, sparsity, epsilons, delta, loss, rng, params):
    """Common start of every batched private method: parameters, generator, clipped data, checks."""
    p = _params(**params)
    rng = rng if rng is not None else np.random.default_rng()
    X, y = prepare(X, y, loss, p)
    return p, rng, X, y, _check_sparsity(sparsity, X.shape[1]), _check_budget(epsilons, delta)


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SparseFit:
    """One method's estimate: ``coef`` is ``(d,)`` for one call, ``(n_eps, R, d)`` for a batch."""

    method: str
    coef: np.ndarray
    epsilon: float | np.ndarray | None
    delta: float | None
    loss: str
    params: Mapping
    noise: tuple[Noise, ...] = ()
    details: Mapping = field(default_factory=dict)

    @property
    def support(self) -> np.ndarray:
        return np.flatnonzero(self.coef) if self.coef.ndim == 1 else self.coef != 0

    def predict(self, X) -> np.ndarray:
        z = np.asarray(X, dtype=float) @ self.coef + self.details.get("intercept", 0.0)
        return z if self.loss == "linear" else _sigmoid(z)

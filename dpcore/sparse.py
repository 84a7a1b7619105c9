"""DP sparse linear / logistic regression by knowledge transfer (Wang & Gu, AAAI 2020).

Specification: ``shared/docs/sparse.md``. Three stages, as in ``design.md``:

1. **Teacher** (not private): IGHT on ``L_S(θ) + (λ/2)‖θ‖²`` s.t. ``‖θ‖0 ≤ s``.
2. **Knowledge transfer** (the only mechanism): public synthetic features
   ``X̃ ~ Uniform[−K, K]^{m×d}`` (drawn from a *public* seed, data-independent)
   and Gaussian-mechanism responses ``y^p = X̃ θ̂ + ξ``.
3. **Student** (post-processing): IGHT on ``(1/2m)‖y^p − X̃θ‖²``.

Baselines with the same one-call signature: :func:`nonprivate_ight`,
:func:`dp_ight`, :func:`dp_frank_wolfe`, :func:`two_stage`.

Every private method is vectorised over an ε grid *and* R draws: the
``*_batch`` functions return coefficients of shape ``(n_eps, R, d)`` from one
batched iteration (no Python loop over draws or ε).

Privacy assumptions of the knowledge-transfer release (stated in every
privacy report, see :data:`KT_ASSUMPTIONS`):

* the ℓ2 sensitivity ``‖θ̂(S) − θ̂(S')‖2 ≤ 2√s γ /(nλ)`` is the one of the
  exact minimiser of a λ-strongly convex objective whose per-example
  gradient is ``γ``-bounded in ℓ∞ on ``s`` coordinates. The IGHT teacher is
  the (approximate) minimiser of a *non-convex* ℓ0-constrained problem: when
  one record changes which ``s`` coordinates are kept, the teacher can move
  by O(1), not O(1/n). The audit scenario ``support flip`` exhibits this
  (see :func:`known_violation_scenarios` and ``docs/sparse.md``);
* ``‖X̃ v‖2 ≤ √(mβ) ‖v‖2`` for the sparse difference ``v`` (``β = K²/3``), the
  paper's "with probability ≥ 1 − δ/2" event, which is why δ is split;
* ``σ`` is the paper's textbook-Gaussian formula at ``δ/2``; that formula is
  only valid for ε ≤ 1 (privacy.md), so by default we take the larger of it
  and the analytic Gaussian σ for the same sensitivity at ``(ε, δ/2)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from scipy import optimize

from dpcore.audit import AuditScenario, max_detectable_epsilon
from dpcore.mechanisms import (
    Noise,
    analytic_gaussian_sigma,
    approx_dp_to_zcdp,
    gaussian_privacy_loss_delta,
    gaussian_zcdp_sigma,
)

LOSSES = ("linear", "logistic")
METHODS = ("kt", "nonprivate", "dp_ight", "frank_wolfe", "two_stage", "kt_ps")
METHOD_LABELS = {
    "kt": "knowledge transfer (student)",
    "nonprivate": "non-private IGHT (teacher)",
    "dp_ight": "DP-IGHT",
    "frank_wolfe": "DP Frank–Wolfe",
    "two_stage": "two-stage",
    "kt_ps": "KT with private support",
}
PRIVATE_METHODS = ("kt", "dp_ight", "frank_wolfe", "two_stage", "kt_ps")

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
# Public bounds, thresholding, IGHT
# --------------------------------------------------------------------------


def clip_features(X, K: float) -> np.ndarray:
    """Clip every feature to the public box ``[−K, K]`` (so ``‖x_i‖∞ ≤ K``)."""
    if not K > 0:
        raise ValueError("the feature bound K must be positive")
    return np.clip(np.asarray(X, dtype=float), -K, K)


def clip_responses(y, r: float) -> np.ndarray:
    """Clip responses to the public interval ``[−r, r]`` (linear loss)."""
    if not r > 0:
        raise ValueError("the response bound r must be positive")
    return np.clip(np.asarray(y, dtype=float), -r, r)


def hard_threshold(theta, s: int) -> np.ndarray:
    """``H_s``: keep the ``s`` largest-magnitude entries on the last axis, zero the rest (batched)."""
    theta = np.asarray(theta, dtype=float)
    d = theta.shape[-1]
    if s >= d:
        return theta.copy()
    idx = np.argpartition(-np.abs(theta), s - 1, axis=-1)[..., :s]
    out = np.zeros_like(theta)
    np.put_along_axis(out, idx, np.take_along_axis(theta, idx, axis=-1), axis=-1)
    return out


def l1_rescale(theta, radius: float | None) -> np.ndarray:
    """Rescale each row onto the ℓ1 ball ``‖θ‖1 ≤ B`` (``θ·min(1, B/‖θ‖1)``); no-op when ``radius`` is None."""
    if radius is None:
        return theta
    norm = np.abs(theta).sum(axis=-1, keepdims=True)
    return theta * np.minimum(1.0, radius / np.maximum(norm, 1e-300))


def project_l1_ball(theta, radius: float) -> np.ndarray:
    """Euclidean projection of each row onto ``{‖θ‖1 ≤ B}`` (Duchi et al. 2008, sort-based, batched)."""
    theta = np.asarray(theta, dtype=float)
    a = np.abs(theta)
    inside = a.sum(axis=-1, keepdims=True) <= radius
    u = -np.sort(-a, axis=-1)
    css = np.cumsum(u, axis=-1) - radius
    k = np.arange(1, theta.shape[-1] + 1)
    cond = u - css / k > 0
    rho = theta.shape[-1] - 1 - np.argmax(cond[..., ::-1], axis=-1)
    tau = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1)
    proj = np.sign(theta) * np.maximum(a - np.maximum(tau, 0.0), 0.0)
    return np.where(inside, theta, proj)


def ight(
    grad: Callable[[np.ndarray], np.ndarray],
    theta0: np.ndarray,
    *,
    sparsity: int,
    step: float,
    n_iter: int,
    radius: float | None = None,
    perturb: Callable[[int, np.ndarray], np.ndarray] | None = None,
    keep_path: bool = False,
    tol: float = 1e-7,
):
    """Iterative gradient hard thresholding, batched over leading axes of ``theta0``.

    ``θ_{t+1} = R_B(H_s(θ_t − η (∇F(θ_t) + b_t)))`` where ``b_t = perturb(t, g)``
    (DP-IGHT adds Gaussian noise there; ``None`` for the plain algorithm) and
    ``R_B`` is :func:`l1_rescale`. Returns ``θ_T`` and, with ``keep_path``,
    the list of iterates ``θ_0 … θ_T``. Without ``perturb`` the loop stops
    early once every row has converged (``‖θ_{t+1} − θ_t‖ ≤ tol·‖θ_t‖``), so
    ``n_iter`` is a maximum; noisy runs always take all ``n_iter`` steps (the
    privacy accounting counts them).
    """
    theta = np.array(theta0, dtype=float)
    path = [theta.copy()] if keep_path else None
    for t in range(int(n_iter)):
        g = grad(theta)
        if perturb is not None:
            g = g + perturb(t, g)
        new = l1_rescale(hard_threshold(theta - step * g, sparsity), radius)
        done = perturb is None and np.all(
            np.linalg.norm(new - theta, axis=-1) <= tol * np.maximum(np.linalg.norm(theta, axis=-1), 1e-300))
        theta = new
        if keep_path:
            path.append(theta.copy())
        if done:
            break
    return (theta, path) if keep_path else theta


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def loss_gradient(X: np.ndarray, y: np.ndarray, loss: str, lam: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    """Gradient of ``L_S(θ) + (λ/2)‖θ‖²`` for a batch ``Θ`` of shape ``(..., d)``.

    ``y`` may be ``(n,)`` (shared) or ``(..., n)`` (one response vector per
    batch row, as for the student's R synthetic response draws). Two
    mat-vecs per call; the first exploits the sparsity of the iterates.
    """
    n = X.shape[0]

    def grad(theta: np.ndarray) -> np.ndarray:
        z = _sparse_matvec(X, theta)
        if loss == "linear":
            w = z - y
        else:
            w = -y * _sigmoid(-y * z)
        # float32 features (the public synthetic ones) are multiplied in float32: half the memory traffic
        return np.asarray(w.astype(X.dtype, copy=False) @ X, dtype=float) / n + lam * theta

    return grad


def _sparse_matvec(X: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``θ Xᵀ`` for a batch of (mostly sparse) rows, touching only used columns."""
    used = np.flatnonzero(np.any(theta != 0, axis=tuple(range(theta.ndim - 1))))
    if used.size == 0:
        return np.zeros(theta.shape[:-1] + (X.shape[0],))
    return theta[..., used] @ X[:, used].T


def loss_value(X, y, theta, loss: str, lam: float = 0.0) -> np.ndarray:
    z = _sparse_matvec(X, np.asarray(theta, dtype=float))
    if loss == "linear":
        value = 0.5 * np.mean((y - z) ** 2, axis=-1)
    else:
        value = np.mean(np.logaddexp(0.0, -y * z), axis=-1)
    return value + 0.5 * lam * np.sum(np.asarray(theta) ** 2, axis=-1)


def restricted_smoothness(X: np.ndarray, sparsity: int, n_iter: int = 10) -> float:
    """Estimate of the largest 2s-sparse eigenvalue of ``XᵀX/n`` (truncated power method).

    Used only to pick a step size for non-private or public-data IGHT runs
    (the teacher and the student); callers apply a 1.5 safety factor. Starts
    from the 2s columns of largest norm, so it never falls below the largest
    diagonal entry of ``XᵀX/n``.
    """
    n, d = X.shape
    k = min(2 * sparsity, d)
    col_sq = np.einsum("ij,ij->j", X, X) / n
    value = float(col_sq.max())
    v = hard_threshold(np.sqrt(col_sq), k)
    norm = np.linalg.norm(v)
    if norm == 0:
        return 1e-12
    v = v / norm
    for _ in range(n_iter):
        w = X.T @ (_sparse_matvec(X, v) / n)
        value = max(value, float(v @ w))
        w = hard_threshold(w, k)
        norm = np.linalg.norm(w)
        if norm == 0:
            break
        v = w / norm
    return max(value, 1e-12)


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
    per-block LASSO penalty.
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
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be positive")
    if not 0 < delta < 1:
        raise ValueError("delta must lie in (0, 1)")
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
        z = np.asarray(X, dtype=float) @ self.coef
        return z if self.loss == "linear" else _sigmoid(z)


# --------------------------------------------------------------------------
# Teacher (= non-private IGHT)
# --------------------------------------------------------------------------


def teacher_fit(X, y, *, sparsity: int, lam: float, loss: str, p: SparseParams, keep_path: bool = False):
    """Non-private IGHT on ``L_S + (λ/2)‖θ‖²`` (inputs already clipped)."""
    n, d = X.shape
    L = restricted_smoothness(X, sparsity) * (1.0 if loss == "linear" else 0.25)
    step = 1.0 / (1.5 * L + lam)
    return ight(loss_gradient(X, y, loss, lam), np.zeros(d), sparsity=sparsity, step=step, n_iter=p.T1,
                radius=p.radius(), keep_path=keep_path)


def nonprivate_ight(X, y, *, sparsity, epsilon=None, delta=None, loss="linear", rng=None, lam=0.0, **params) -> SparseFit:
    """Non-private IGHT (the teacher without ridge unless ``lam`` is given); ε, δ and rng are ignored."""
    p = _params(**params)
    X, y = prepare(X, y, loss, p)
    s = _check_sparsity(sparsity, X.shape[1])
    coef = teacher_fit(X, y, sparsity=s, lam=float(lam), loss=loss, p=p)
    return SparseFit("nonprivate", coef, None, None, loss, {"lam": float(lam), **p.__dict__})


# --------------------------------------------------------------------------
# Knowledge transfer
# --------------------------------------------------------------------------


def synthetic_features(m: int, d: int, K: float, seed: int = DEFAULT_SYNTHETIC_SEED) -> np.ndarray:
    """Public synthetic features ``X̃ ~ Uniform[−K, K]^{m×d}`` from a public seed (data-independent).

    Recipe (so anyone can regenerate them): ``2K·default_rng(seed).random((m, d), dtype=float32) − K``;
    float32 halves the memory and time of the student's mat-vecs at d = 10⁴.
    """
    X = np.random.default_rng(seed).random((int(m), int(d)), dtype=np.float32)
    X *= np.float32(2.0 * K)
    X -= np.float32(K)
    return X


def kt_sensitivity(n: int, m: int, s: int, gamma: float, K: float, lam: float) -> float:
    """ℓ2 sensitivity of ``X̃θ̂`` claimed by the framework: ``2√s γ √(mβ)/(nλ)``, ``β = K²/3``.

    Proof sketch (paper, under :data:`KT_ASSUMPTIONS`): the minimisers of two
    λ-strongly convex objectives differing in one of n examples satisfy
    ``λ‖θ̂ − θ̂'‖² ≤ ⟨∇F_S(θ̂') − ∇F_S'(θ̂'), θ̂' − θ̂⟩ ≤ (2√s γ/n)‖θ̂ − θ̂'‖``
    (two per-example gradients, γ-bounded on s coordinates); then
    ``‖X̃v‖ ≤ √(mβ)‖v‖`` for the sparse difference v (probability ≥ 1 − δ/2).
    """
    beta = K * K / 3.0
    return 2.0 * math.sqrt(s) * gamma * math.sqrt(m * beta) / (n * lam)


def kt_sigma_paper(n: int, m: int, s: int, gamma: float, K: float, lam: float, epsilon: float, delta: float) -> float:
    """The paper's ``σ = sqrt(8 m β s γ² log(2.5/δ)) / (nελ)`` with ``β = K²/3``."""
    beta = K * K / 3.0
    return math.sqrt(8.0 * m * beta * s * gamma**2 * math.log(2.5 / delta)) / (n * epsilon * lam)


def kt_noise(n: int, m: int, s: int, gamma: float, K: float, lam: float, epsilon: float, delta: float,
             calibration: str = "max") -> Noise:
    """The Gaussian mechanism on ``X̃θ̂``, constructed directly as a :class:`Noise`.

    σ comes from the paper's formula (``calibration="paper"``), the analytic
    Gaussian σ for the same sensitivity at ``(ε, δ/2)`` (``"analytic"``), or
    the larger of the two (``"max"``, default: the paper's textbook formula
    is not valid for ε > 1, privacy.md). The other δ/2 pays for the
    ``‖X̃v‖`` event. ``Noise`` records the full ``(ε, δ)``.
    """
    delta2 = delta / 2.0
    sens = kt_sensitivity(n, m, s, gamma, K, lam)
    paper = kt_sigma_paper(n, m, s, gamma, K, lam, epsilon, delta)
    if calibration == "paper":
        sigma = paper
    elif calibration == "analytic":
        sigma = analytic_gaussian_sigma(sens, epsilon, delta2)
    elif calibration == "max":
        sigma = max(paper, analytic_gaussian_sigma(sens, epsilon, delta2))
    else:
        raise ValueError("calibration must be 'paper', 'analytic' or 'max'")
    return Noise("gaussian", float(sigma), float(sens), float(epsilon), float(delta))


def student_fit(X_syn: np.ndarray, y_syn: np.ndarray, *, sparsity: int, p: SparseParams, keep_path: bool = False):
    """Student IGHT on ``(1/2m)‖y^p − X̃θ‖²``, batched over the leading axes of ``y_syn`` (post-processing)."""
    m, d = X_syn.shape
    beta = p.K**2 / 3.0
    # restricted smoothness of X̃ᵀX̃/m for uniform features: β(1 + O(sqrt(s log d / m)))²
    L = beta * (1.0 + math.sqrt(2.0 * sparsity * math.log(max(d, 2)) / m)) ** 2
    theta0 = np.zeros(y_syn.shape[:-1] + (d,))
    return ight(loss_gradient(X_syn, y_syn, "linear"), theta0, sparsity=sparsity, step=1.0 / L, n_iter=p.T2,
                radius=p.radius(), keep_path=keep_path)


@dataclass(frozen=True)
class KTPlan:
    """Everything of a KT run except the noise: teacher, public X̃, the exact ``X̃θ̂`` and the calibrations."""

    teacher: np.ndarray
    X_syn: np.ndarray
    clean: np.ndarray
    lam: np.ndarray
    noises: tuple[Noise, ...]
    params: SparseParams
    n: int
    sparsity: int


def kt_plan(X, y, *, sparsity, epsilons, delta, loss, p: SparseParams, teacher=None) -> KTPlan:
    """Fit the teacher(s) and calibrate the mechanism for each ε (λ depends on ε through :meth:`SparseParams.ridge`)."""
    X, y = prepare(X, y, loss, p)
    n, d = X.shape
    s = _check_sparsity(sparsity, d)
    eps = _check_budget(epsilons, delta)
    lams = np.array([p.ridge(n, d, s, e, delta, loss) for e in eps])
    m = p.n_synthetic(n)
    X_syn = synthetic_features(m, d, p.K, p.synthetic_seed)
    teachers = {}
    for lam in np.unique(lams):
        teachers[lam] = teacher if teacher is not None else teacher_fit(X, y, sparsity=s, lam=float(lam), loss=loss, p=p)
    T = np.stack([teachers[lam] for lam in lams])
    clean = _sparse_matvec(X_syn, T)
    noises = tuple(kt_noise(n, m, s, p.gamma(loss), p.K, float(lam), float(e), delta, p.calibration)
                   for e, lam in zip(eps, lams))
    return KTPlan(T, X_syn, clean, lams, noises, p, n, s)


def knowledge_transfer_batch(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1,
                             **params) -> SparseFit:
    """Preview of the KT student for each ε and ``draws`` noise draws: ``coef`` is ``(n_eps, R, d)``.

    The teacher is fitted once per distinct λ; the ``n_eps·R`` students run
    as one batched IGHT.
    """
    p = _params(**params)
    rng = rng if rng is not None else np.random.default_rng()
    plan = kt_plan(X, y, sparsity=sparsity, epsilons=epsilons, delta=delta, loss=loss, p=p)
    y_syn = np.stack([nz.sample(c, rng=rng, draws=draws) for nz, c in zip(plan.noises, plan.clean)])
    coef = student_fit(plan.X_syn, y_syn, sparsity=plan.sparsity, p=p)
    return SparseFit("kt", coef, np.atleast_1d(epsilons), delta, loss, {**p.__dict__}, plan.noises,
                     {"teacher": plan.teacher, "lam": plan.lam})


def knowledge_transfer(X, y, *, sparsity, epsilon, delta, loss="linear", rng=None, **params) -> SparseFit:
    """One call: teacher → Gaussian-mechanism synthetic responses → student (preview noise, seeded by ``rng``).

    Returns a :class:`SparseFit` with ``.coef`` (the student), ``details``
    holding the ``teacher``, the synthetic responses ``y_synthetic`` and
    ``lam``. For an exported release use :func:`release_sparse` (OpenDP noise).
    """
    p = _params(**params)
    rng = rng if rng is not None else np.random.default_rng()
    plan = kt_plan(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=loss, p=p)
    y_syn = plan.noises[0].sample(plan.clean[0], rng=rng)
    coef = student_fit(plan.X_syn, y_syn, sparsity=plan.sparsity, p=p)
    return SparseFit("kt", coef, float(epsilon), float(delta), loss, {**p.__dict__, "lam": float(plan.lam[0])},
                     plan.noises, {"teacher": plan.teacher[0], "y_synthetic": y_syn, "lam": float(plan.lam[0])})


# --------------------------------------------------------------------------
# DP-IGHT (Wang & Gu 2019), zCDP accounting
# --------------------------------------------------------------------------


def dp_ight_gradient_bound(d: int, loss: str, p: SparseParams) -> float:
    """ℓ2 bound G of one example's gradient: ``K√d (KB + r)`` (linear), ``K√d`` (logistic).

    Proof: ``‖x‖2 ≤ K√d`` and the scalar factor is bounded by ``KB + r``
    (``|xᵀθ| ≤ K‖θ‖1``, iterates kept in the ℓ1 ball) or by 1 (logistic).
    """
    return p.K * math.sqrt(d) * ((p.K * p.radius() + p.r) if loss == "linear" else 1.0)


def dp_ight_noise(n: int, d: int, T: int, epsilon: float, delta: float, loss: str, p: SparseParams) -> Noise:
    """Per-step Gaussian noise on the mean gradient, T steps composed in zCDP.

    Replace-one changes one of n per-example gradients, each of ℓ2 norm ≤ G,
    so the mean gradient moves by ≤ ``Δ = 2G/n``. Total ``ρ`` from
    ``approx_dp_to_zcdp(ε, δ)``; each step gets ``ρ/T`` → ``σ = Δ/sqrt(2ρ/T)``.
    """
    G = dp_ight_gradient_bound(d, loss, p)
    sens = 2.0 * G / n
    rho = approx_dp_to_zcdp(epsilon, delta)
    sigma = gaussian_zcdp_sigma(sens, rho / T)
    return Noise("gaussian", sigma, sens, float(epsilon), float(delta))


def dp_ight_batch(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1, **params) -> SparseFit:
    """DP-IGHT for each ε and draw, batched: ``(n_eps, R, d)``."""
    p, rng, X, y, s, eps = _setup(X, y, sparsity, epsilons, delta, loss, rng, params)
    n, d = X.shape
    noises = tuple(dp_ight_noise(n, d, p.dp_T, float(e), delta, loss, p) for e in eps)
    sig = np.array([nz.scale for nz in noises])[:, None, None]
    step = p.dp_step if p.dp_step is not None else 0.5 / p.K**2 / (1.0 if loss == "linear" else 0.25)
    shape = (eps.size, int(draws), d)
    coef = ight(loss_gradient(X, y, loss), np.zeros(shape), sparsity=s, step=step, n_iter=p.dp_T,
                radius=p.radius(), perturb=lambda t, g: sig * rng.standard_normal(shape))
    return SparseFit("dp_ight", coef, eps, delta, loss, {**p.__dict__, "step": step}, noises)


def dp_ight(X, y, *, sparsity, epsilon, delta, loss="linear", rng=None, **params) -> SparseFit:
    """DP-IGHT (preview noise): Gaussian noise on each of T gradients, zCDP composition."""
    fit = dp_ight_batch(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=loss, rng=rng, **params)
    return SparseFit("dp_ight", fit.coef[0, 0], float(epsilon), float(delta), loss, fit.params, fit.noise)


# --------------------------------------------------------------------------
# DP Frank–Wolfe (Talwar, Thakurta & Zhang 2015) — exponential mechanism (Gumbel report-noisy-min), zCDP
# --------------------------------------------------------------------------


def frank_wolfe_scale(n: int, T: int, epsilon: float, delta: float, loss: str, p: SparseParams) -> float:
    """Gumbel scale of the per-step report-noisy-min over the 2d vertices ``±B e_j``.

    Score of vertex v is ``⟨v, ∇L(θ_t)⟩``; replace-one moves the mean gradient
    by ≤ ``2γ/n`` in ℓ∞ (γ = :meth:`SparseParams.gamma`), so each score moves
    by ≤ ``Δ = 2γB/n``. Gumbel noise of scale ``2Δ/ε0`` on the scores and the
    arg-min is the exponential mechanism: ε0-DP and ε0-bounded-range, hence
    ``ε0²/8``-zCDP (Cesar & Rogers 2021). T steps: ``ρ = Tε0²/8`` with ρ from
    ``approx_dp_to_zcdp(ε, δ)``.
    """
    rho = approx_dp_to_zcdp(epsilon, delta)
    eps0 = math.sqrt(8.0 * rho / T)
    sens = 2.0 * p.gamma(loss) * p.radius() / n
    return 2.0 * sens / eps0


def frank_wolfe_scale_spec(n: int, T: int, epsilon: float, delta: float, loss: str, p: SparseParams) -> float:
    """The spec's Laplace scale ``L1 B sqrt(8T log(1/δ))/(nε)`` (for comparison only; not used — see docs)."""
    return p.gamma(loss) * p.radius() * math.sqrt(8.0 * T * math.log(1.0 / delta)) / (n * epsilon)


def frank_wolfe_batch(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1, **params) -> SparseFit:
    """DP Frank–Wolfe over the ℓ1 ball for each ε and draw: ``(n_eps, R, d)``. ``sparsity`` is unused
    (the iterate has at most T non-zeros; T defaults to ``s``-proportional ``max(s, 10)``)."""
    p, rng, X, y, s, eps = _setup(X, y, sparsity, epsilons, delta, loss, rng, params)
    n, d = X.shape
    T = int(p.fw_T) if p.fw_T is not None else max(s, 10)
    B = p.radius()
    scales = np.array([frank_wolfe_scale(n, T, float(e), delta, loss, p) for e in eps])[:, None, None]
    grad = loss_gradient(X, y, loss)
    theta = np.zeros((eps.size, int(draws), d))
    rows = np.arange(theta.size // d)
    for t in range(T):
        g = grad(theta)
        scores = np.concatenate([B * g, -B * g], axis=-1)  # vertices +B e_j, then −B e_j
        noisy = scores - rng.gumbel(0.0, 1.0, size=scores.shape) * scales  # arg-min of score + (−Gumbel)
        pick = np.argmin(noisy, axis=-1).reshape(-1)
        vertex = np.zeros((rows.size, d))
        vertex[rows, pick % d] = np.where(pick < d, B, -B)
        mu = 2.0 / (t + 2.0)
        theta = (1 - mu) * theta + mu * vertex.reshape(theta.shape)
    noises = tuple(Noise("laplace", float(sc), float(2 * p.gamma(loss) * B / n), float(e), delta)
                   for sc, e in zip(scales.ravel(), eps))  # record the scale (Gumbel; see frank_wolfe_scale)
    return SparseFit("frank_wolfe", theta, eps, delta, loss, {**p.__dict__, "fw_T": T}, noises)


def dp_frank_wolfe(X, y, *, sparsity, epsilon, delta, loss="linear", rng=None, **params) -> SparseFit:
    """DP Frank–Wolfe over the ℓ1 ball of radius B (preview noise)."""
    fit = frank_wolfe_batch(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=loss, rng=rng, **params)
    return SparseFit("frank_wolfe", fit.coef[0, 0], float(epsilon), float(delta), loss, fit.params, fit.noise)


# --------------------------------------------------------------------------
# Two-stage (Kifer, Smith & Thakurta 2012)
# --------------------------------------------------------------------------


def block_lasso(Xb: np.ndarray, yb: np.ndarray, alpha: float, loss: str, n_iter: int = 150) -> np.ndarray:
    """ℓ1-penalised fit per block by ISTA, all blocks at once: ``Xb`` (k, b, d), ``yb`` (k, b) → (k, d)."""
    k, b, d = Xb.shape
    L = np.linalg.norm(Xb, ord=2, axis=(1, 2)) ** 2 / b * (1.0 if loss == "linear" else 0.25)
    step = (1.0 / np.maximum(L, 1e-12))[:, None]
    theta = np.zeros((k, d))
    for _ in range(n_iter):
        z = np.matmul(Xb, theta[:, :, None])[:, :, 0]
        w = (z - yb) if loss == "linear" else -yb * _sigmoid(-yb * z)
        g = np.matmul(w[:, None, :], Xb)[:, 0, :] / b
        u = theta - step * g
        theta = np.sign(u) * np.maximum(np.abs(u) - step * alpha, 0.0)
    return theta


def block_votes(X: np.ndarray, y: np.ndarray, s: int, loss: str, p: SparseParams) -> tuple[np.ndarray, int]:
    """Sample-and-aggregate votes: the share of ``k = ⌊√n⌋`` blocks (record order, a public partition) whose
    per-block LASSO puts each coordinate in its top s. Returns ``(votes (d,), k)``."""
    n, d = X.shape
    k = max(int(math.sqrt(n)), 1)
    b = n // k
    beta = block_lasso(X[: k * b].reshape(k, b, d), y[: k * b].reshape(k, b), p.lasso_alpha, loss)
    return (hard_threshold(np.abs(beta) + 1e-12 * (beta != 0), s) != 0).sum(axis=0) / k, k


def noisy_top_s(votes: np.ndarray, scales: np.ndarray, s: int, rng: np.random.Generator, draws: int) -> np.ndarray:
    """Top-s coordinates of ``votes + Laplace(scale)`` for each scale (ε) and draw: ``(n_eps, R, s)``."""
    noisy = votes + rng.laplace(size=(scales.size, int(draws), votes.size)) * scales[:, None, None]
    return np.argsort(-noisy, axis=-1)[..., :s]


def two_stage_vote_scale(k: int, s: int, epsilon: float) -> float:
    """Laplace scale on normalised votes ``counts/k``: ``2s/(k·ε/2)``.

    Proof: replace-one changes one block, whose top-s set changes in at most
    2s coordinates by one vote each: ℓ1 sensitivity ``2s/k`` of the
    normalised vote vector; half of ε is spent here.
    """
    return 2.0 * s / (k * epsilon / 2.0)


def objective_perturbation_params(n: int, s: int, epsilon: float, delta: float, loss: str, p: SparseParams):
    """Kifer–Smith–Thakurta (2012, Thm 2) objective perturbation on the s selected coordinates at ``(ε/2, δ)``.

    Loss gradient bound ``ζ = K√s (KB + r)`` (linear) / ``K√s`` (logistic),
    Hessian rank one with eigenvalue ``≤ Λ = K²s`` (linear) / ``K²s/4``.
    Minimise ``(1/n)Σℓ + (Δ/2n)‖θ‖² + bᵀθ/n`` over the ℓ1 ball with
    ``Δ = 2Λ/ε'`` and ``b ~ N(0, ζ²(8 log(2/δ) + 4ε')/ε'² I)``, ``ε' = ε/2``.
    Returns ``(Δ, σ_b)``.
    """
    e2 = epsilon / 2.0
    zeta = p.K * math.sqrt(s) * ((p.K * p.radius() + p.r) if loss == "linear" else 1.0)
    hess = p.K**2 * s * (1.0 if loss == "linear" else 0.25)
    return 2.0 * hess / e2, zeta * math.sqrt(8.0 * math.log(2.0 / delta) + 4.0 * e2) / e2


def two_stage_batch(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1, **params) -> SparseFit:
    """Two-stage for each ε and draw: noisy-vote support selection (ε/2), objective perturbation (ε/2, δ)."""
    p, rng, X, y, s, eps = _setup(X, y, sparsity, epsilons, delta, loss, rng, params)
    n, d = X.shape
    R = int(draws)
    votes, k = block_votes(X, y, s, loss, p)
    scales = np.array([two_stage_vote_scale(k, s, float(e)) for e in eps])
    supp = noisy_top_s(votes, scales, s, rng, R)  # (E, R, s)
    Xs = X[:, supp]  # (n, E, R, s)
    Xs = np.moveaxis(Xs, 0, -2)  # (E, R, n, s)
    op = [objective_perturbation_params(n, s, float(e), delta, loss, p) for e in eps]
    reg = np.array([o[0] for o in op])[:, None, None]
    bvec = np.array([o[1] for o in op])[:, None, None] * rng.standard_normal((eps.size, R, s))
    # minimise (1/n)Σℓ + (Δ/2n)‖θ‖² + bᵀθ/n over the ℓ1 ball: exact for the linear loss when inside the ball
    theta, _ = fixed_support_teacher(Xs, y, (reg / n)[..., 0], loss, p, linear_term=bvec / n)
    coef = np.zeros((eps.size, R, d))
    np.put_along_axis(coef, supp, theta, axis=-1)
    noises = tuple(Noise("laplace", float(sc), 2.0 * s / k, float(e) / 2) for sc, e in zip(scales, eps))
    noises += tuple(Noise("gaussian", float(o[1]), float(o[0]), float(e) / 2, delta) for o, e in zip(op, eps))
    return SparseFit("two_stage", coef, eps, delta, loss, {**p.__dict__, "blocks": k}, noises)


def two_stage(X, y, *, sparsity, epsilon, delta, loss="linear", rng=None, **params) -> SparseFit:
    """Two-stage private sparse regression (preview noise)."""
    fit = two_stage_batch(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=loss, rng=rng, **params)
    return SparseFit("two_stage", fit.coef[0, 0], float(epsilon), float(delta), loss, fit.params, fit.noise)


# --------------------------------------------------------------------------
# Knowledge transfer with a private support (our remedy for the support-flip violation)
# --------------------------------------------------------------------------


def fixed_support_teacher(Xs: np.ndarray, y: np.ndarray, lam, loss: str, p: SparseParams,
                          n_iter: int = 1000, linear_term: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Convex teacher on given supports: ``argmin L_S(θ) + (λ/2)‖θ‖² (+ cᵀθ)`` over ``‖θ‖1 ≤ B``, batched.

    (The optional linear term ``c`` is the objective perturbation of two-stage.)

    ``Xs`` is ``(..., n, s)`` (the data restricted to each support), ``lam``
    broadcasts against the batch. Returns ``(θ, opt_error)`` where
    ``opt_error`` (per batch row) bounds ``‖θ − θ̂‖2`` to the exact minimiser:

    * linear loss: the ridge solution in closed form; when it lies in the ℓ1
      ball it *is* the constrained minimiser (error: floating point only);
    * otherwise (logistic, or ridge outside the ball): projected gradient
      descent from the closed form / 0 with step ``1/(λ + Λ)``, ``Λ = K²s``
      (linear) / ``K²s/4`` (logistic), which contracts by
      ``q = 1 − λ/(λ + Λ)`` per step: error ≤ ``q^T·2B``.

    The returned bound is ``max(1e-9, q^T·2B)`` for *every* row, whichever
    case ran: it feeds the noise scale, which is exported, so it must not
    depend on the data (which case runs does).
    """
    s = Xs.shape[-1]
    n = Xs.shape[-2]
    lam_b = np.broadcast_to(np.asarray(lam, dtype=float), Xs.shape[:-2])
    hess = p.K**2 * s * (1.0 if loss == "linear" else 0.25)
    B = p.radius()
    eye = np.eye(s)
    if loss == "linear":
        gram = np.matmul(np.swapaxes(Xs, -1, -2), Xs) / n + lam_b[..., None, None] * eye
        rhs = np.matmul(np.swapaxes(Xs, -1, -2), y[..., None])[..., 0] / n
        if linear_term is not None:
            rhs = rhs - linear_term
        theta = np.linalg.solve(gram, rhs[..., None])[..., 0]
        inside = np.abs(theta).sum(axis=-1) <= B
        theta = project_l1_ball(theta, B)
    else:
        theta = np.zeros(Xs.shape[:-2] + (s,))
        inside = np.zeros(Xs.shape[:-2], dtype=bool)
    step = 1.0 / (lam_b + hess)
    bound = np.broadcast_to(np.maximum(1e-9, (1.0 - lam_b * step) ** int(n_iter) * 2.0 * B), inside.shape)
    if inside.all():
        return theta, bound
    for _ in range(int(n_iter)):
        z = np.matmul(Xs, theta[..., None])[..., 0]
        w = (z - y) if loss == "linear" else -y * _sigmoid(-y * z)
        g = np.matmul(w[..., None, :], Xs)[..., 0, :] / n + lam_b[..., None] * theta
        if linear_term is not None:
            g = g + linear_term
        theta = np.where(inside[..., None], theta, project_l1_ball(theta - step[..., None] * g, B))
    return theta, bound


def kt_ps_sensitivity(n: int, s: int, gamma: float, lam: float, opt_error: float, op_norm) -> np.ndarray:
    """ℓ2 sensitivity of ``X̃_S θ̂_S`` for a *public* support S: ``‖X̃_S‖op·(2√s γ/(nλ) + 2·opt_error)``.

    Proof: on a fixed support the objective is λ-strongly convex over a
    convex set; replace-one changes the mean gradient by ≤ ``2√sγ/n`` in ℓ2
    (two per-example gradients, each with s coordinates bounded by γ), so the
    exact minimisers differ by ≤ ``2√sγ/(nλ)``; each computed iterate is
    within ``opt_error`` of its minimiser; ``‖X̃_S v‖ ≤ ‖X̃_S‖op‖v‖`` exactly
    (no probabilistic event: the operator norm is computed). Both neighbours
    use the same λ, which must be public (:meth:`SparseParams.ridge` depends on
    ``n, d, s, ε, δ`` and the public bounds only), as must ``opt_error``.
    """
    return np.asarray(op_norm) * (2.0 * math.sqrt(s) * gamma / (n * lam) + 2.0 * opt_error)


def kt_private_support_batch(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1,
                             select_share: float = 0.5, **params) -> SparseFit:
    """Knowledge transfer made rigorous: private support (``select_share·ε``), convex teacher on it, Gaussian
    mechanism with a computed sensitivity (``(1 − select_share)·ε``, δ), least-squares student on the support.

    1. support: noisy block votes as in two-stage (Laplace, pure DP);
    2. teacher: :func:`fixed_support_teacher` on that (now public) support;
    3. release ``X̃_S θ̂_S + N(0, σ²I)`` with σ the analytic Gaussian σ for
       :func:`kt_ps_sensitivity` at ``(ε2, δ)`` — no δ/2 event, no strong-
       convexity-through-thresholding assumption;
    4. student: least squares of ``y^p`` on ``X̃_S`` (post-processing).
    Returns ``(n_eps, R, d)`` coefficients.
    """
    p, rng, X, y, s, eps = _setup(X, y, sparsity, epsilons, delta, loss, rng, params)
    n, d = X.shape
    R = int(draws)
    if not 0 < select_share < 1:
        raise ValueError("select_share must lie in (0, 1)")
    votes, k = block_votes(X, y, s, loss, p)
    eps1, eps2 = eps * select_share, eps * (1.0 - select_share)
    supp = noisy_top_s(votes, np.array([2.0 * s / (k * e) for e in eps1]), s, rng, R)  # (E, R, s)
    lams = np.array([p.ridge(n, d, s, float(e), delta, loss) for e in eps2])
    Xs = np.moveaxis(X[:, supp], 0, -2)  # (E, R, n, s)
    theta, opt_err = fixed_support_teacher(Xs, y, lams[:, None], loss, p)  # opt_err: (E, R)
    m = p.n_synthetic(n)
    X_syn = synthetic_features(m, d, p.K, p.synthetic_seed)
    Xsyn_s = np.moveaxis(X_syn[:, supp], 0, -2).astype(float)  # (E, R, m, s)
    op = np.linalg.norm(Xsyn_s, ord=2, axis=(-2, -1))  # (E, R) largest singular values
    gamma = p.gamma(loss)
    sens = kt_ps_sensitivity(n, s, gamma, lams[:, None], opt_err, op)  # (E, R)
    unit = np.array([analytic_gaussian_sigma(1.0, float(e), delta) for e in eps2])  # σ is linear in Δ
    sigma = unit[:, None] * sens
    clean = np.matmul(Xsyn_s, theta[..., None])[..., 0]
    y_syn = clean + sigma[..., None] * rng.standard_normal(clean.shape)
    gram = np.matmul(np.swapaxes(Xsyn_s, -1, -2), Xsyn_s)
    rhs = np.matmul(np.swapaxes(Xsyn_s, -1, -2), y_syn[..., None])[..., 0]
    coef_s = np.linalg.solve(gram, rhs[..., None])[..., 0]
    coef = np.zeros((eps.size, R, d))
    np.put_along_axis(coef, supp, coef_s, axis=-1)
    noises = tuple(Noise("laplace", 2.0 * s / (k * float(e1)), 2.0 * s / k, float(e1)) for e1 in eps1)
    noises += tuple(Noise("gaussian", float(np.median(sigma[i])), float(np.median(sens[i])), float(e2), delta)
                    for i, e2 in enumerate(eps2))
    return SparseFit("kt_ps", coef, eps, delta, loss, {**p.__dict__, "select_share": select_share}, noises,
                     {"lam": lams, "support": supp, "sigma": sigma})


def knowledge_transfer_private_support(X, y, *, sparsity, epsilon, delta, loss="linear", rng=None,
                                       **params) -> SparseFit:
    """One call of :func:`kt_private_support_batch` (preview noise)."""
    fit = kt_private_support_batch(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=loss, rng=rng,
                                   **params)
    return SparseFit("kt_ps", fit.coef[0, 0], float(epsilon), float(delta), loss, fit.params, fit.noise,
                     {"lam": float(fit.details["lam"][0]), "support": fit.details["support"][0, 0]})


BATCH = {"kt": knowledge_transfer_batch, "kt_ps": kt_private_support_batch, "dp_ight": dp_ight_batch, "frank_wolfe": frank_wolfe_batch,
         "two_stage": two_stage_batch}
ONE_CALL = {"kt": knowledge_transfer, "kt_ps": knowledge_transfer_private_support, "nonprivate": nonprivate_ight, "dp_ight": dp_ight,
            "frank_wolfe": dp_frank_wolfe, "two_stage": two_stage}


# --------------------------------------------------------------------------
# Synthetic data with a known θ*, metrics
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SparseData:
    """A synthetic (or real) problem: training data, held-out data and, when known, θ*."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    theta: np.ndarray | None
    loss: str
    label: str = "synthetic"
    feature_names: tuple[str, ...] = ()


def make_synthetic(n: int, d: int, s_star: int, *, loss: str = "linear", noise: float = 0.5, K: float = 1.0,
                   magnitude: float = 1.0, n_test: int = 1000, rng: np.random.Generator | None = None) -> SparseData:
    """``x ~ N(0, I)`` clipped to ``[−K, K]``, θ* with ``s*`` non-zeros (random positions and signs, given magnitude),
    ``y = xᵀθ* + N(0, noise²)`` (linear) or ``y ~ ±1`` with ``P(y = 1) = sigmoid(xᵀθ*)`` (logistic)."""
    rng = rng if rng is not None else np.random.default_rng()
    if not 1 <= s_star <= d:
        raise ValueError("need 1 ≤ s* ≤ d")
    theta = np.zeros(d)
    idx = rng.choice(d, size=s_star, replace=False)
    theta[idx] = magnitude * rng.choice([-1.0, 1.0], size=s_star)
    X = np.clip(rng.standard_normal((n + n_test, d)), -K, K)
    z = X @ theta
    if loss == "linear":
        y = z + noise * rng.standard_normal(z.shape)
    else:
        y = np.where(rng.random(z.shape) < _sigmoid(z), 1.0, -1.0)
    return SparseData(X[:n], y[:n], X[n:], y[n:], theta, loss)


def support_scores(coef, truth_support) -> dict[str, np.ndarray]:
    """Precision, recall and F1 of ``supp(coef)`` (batched on leading axes) against a reference support."""
    coef = np.asarray(coef)
    sel = coef != 0
    ref = np.zeros(coef.shape[-1], dtype=bool)
    ref[np.asarray(truth_support, dtype=int)] = True
    tp = (sel & ref).sum(axis=-1)
    n_sel = sel.sum(axis=-1)
    precision = np.where(n_sel > 0, tp / np.maximum(n_sel, 1), 0.0)
    recall = tp / max(ref.sum(), 1)
    f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-300), 0.0)
    return {"precision": precision, "recall": recall, "f1": f1}


def test_error(coef, X_test, y_test, loss: str) -> np.ndarray:
    """Test MSE (linear) or misclassification rate (logistic), batched over leading axes of ``coef``."""
    z = np.asarray(coef) @ np.asarray(X_test, dtype=float).T
    if loss == "linear":
        return np.mean((z - y_test) ** 2, axis=-1)
    return np.mean(np.where(z >= 0, 1.0, -1.0) != y_test, axis=-1)


def metrics(coef, *, theta=None, X_test=None, y_test=None, loss="linear", teacher=None) -> dict[str, np.ndarray]:
    """ℓ2 error to θ* and support P/R/F1 (when θ* known), test error, support overlap (F1) with the teacher."""
    out: dict[str, np.ndarray] = {}
    if theta is not None:
        out["l2_error"] = np.linalg.norm(np.asarray(coef) - theta, axis=-1)
        out.update(support_scores(coef, np.flatnonzero(theta)))
    if X_test is not None:
        out["test_error"] = test_error(coef, X_test, y_test, loss)
    if teacher is not None:
        out["teacher_overlap"] = support_scores(coef, np.flatnonzero(teacher))["f1"]
    return out


# --------------------------------------------------------------------------
# Privacy–utility curves (vectorised over ε and R)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class UtilityCurve:
    """Per-draw metrics over an ε grid: ``values[method][metric]`` has shape ``(n_eps, R)``.

    The non-private teacher has no ε: its metrics are repeated along both axes
    so that it plots as a flat reference line.
    """

    epsilons: np.ndarray
    delta: float
    methods: tuple[str, ...]
    values: Mapping[str, Mapping[str, np.ndarray]]
    loss: str

    def mean(self, method: str, metric: str) -> np.ndarray:
        return self.values[method][metric].mean(axis=1)


def utility_curve(data: SparseData, *, sparsity: int, epsilons: Sequence[float], delta: float,
                  methods: Sequence[str] = METHODS, repeats: int = 10, rng: np.random.Generator | None = None,
                  progress: Callable[[float], None] | None = None, **params) -> UtilityCurve:
    """Metrics of every method at every ε over ``repeats`` independent noise draws (one batched run per method)."""
    rng = rng if rng is not None else np.random.default_rng()
    eps = _check_budget(epsilons, delta)
    R = int(repeats)
    values: dict[str, dict[str, np.ndarray]] = {}
    p = _params(**params)
    Xc, yc = prepare(data.X, data.y, data.loss, p)
    teacher = teacher_fit(Xc, yc, sparsity=sparsity, lam=0.0, loss=data.loss, p=p)
    for i, method in enumerate(methods):
        if method == "nonprivate":
            coef = np.broadcast_to(teacher, (eps.size, R, teacher.size))
        else:
            coef = BATCH[method](data.X, data.y, sparsity=sparsity, epsilons=eps, delta=delta, loss=data.loss,
                                 rng=rng, draws=R, **params).coef
        values[method] = metrics(coef, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=data.loss,
                                 teacher=teacher)
        if progress is not None:
            progress((i + 1) / len(methods))
    return UtilityCurve(eps, float(delta), tuple(methods), values, data.loss)


def convergence(data: SparseData, *, sparsity: int, epsilon: float, delta: float, rng=None, **params) -> dict:
    """Optimisation paths of the teacher and of one student draw.

    Returns ``teacher`` and ``student``: ``‖θ_t − θ_T‖2`` of each run against its own
    final iterate (linear convergence shows as a straight line on a log axis),
    and ``student_to_teacher``: ``‖θ^p_t − θ̂‖2`` (which levels off at the
    privacy error).
    """
    p = _params(**params)
    X, y = prepare(data.X, data.y, data.loss, p)
    rng = rng if rng is not None else np.random.default_rng()
    plan = kt_plan(X, y, sparsity=sparsity, epsilons=[epsilon], delta=delta, loss=data.loss, p=p)
    _, tpath = teacher_fit(X, y, sparsity=plan.sparsity, lam=float(plan.lam[0]), loss=data.loss, p=p, keep_path=True)
    y_syn = plan.noises[0].sample(plan.clean[0], rng=rng)
    _, spath = student_fit(plan.X_syn, y_syn, sparsity=plan.sparsity, p=p, keep_path=True)
    tpath, spath = np.array(tpath), np.array(spath)
    return {"teacher": np.linalg.norm(tpath[:-1] - tpath[-1], axis=-1),
            "student": np.linalg.norm(spath[:-1] - spath[-1], axis=-1),
            "student_to_teacher": np.linalg.norm(spath - plan.teacher[0], axis=-1)}


# --------------------------------------------------------------------------
# Black-box audit scenarios
# --------------------------------------------------------------------------

AUDIT_DELTA = 1e-2
AUDIT_RAW_FACTOR = 50.0
BUG_LABELS = {"clip": "response clipping skipped (the changed record's raw response is −50r)",
              "noise": "noise scale halved"}


def _kt_audit_pair(kind: str, bug: str):
    """Neighbouring data sets A, B (same n, one record replaced) and the public parameters of the KT audit.

    ``extreme``: n − 1 records are ``(x = 0, y = 0)``; the last one has
    ``x = K·(sign pattern on the first s coordinates)`` and ``y = +r`` in A and
    a response at or beyond ``−r`` in B (raw ``−50r``, clipped to ``−r``). The
    support is the same in A and B (only those s coordinates ever get a
    gradient), so the strong-convexity argument applies and the teacher
    moves by ``2rK√s/(nλ + K²s)``. The sign pattern is the one that maximises
    ``‖X̃v‖`` (the adversary knows the public X̃). For the halved-noise bug
    the ℓ1 radius B is tiny, which brings the shift within 1 % of the claimed
    sensitivity (γ = K(KB + r) ≈ Kr); for the clipping bug B = 1 leaves room
    for an unclipped record to move the teacher.

    ``flip``: s = 1; 499 records ``(e_1, r)``, 499 records ``(e_2, r)``, one
    ``(0, 0)``; the last record is ``(e_1, r)`` in A and ``(e_2, r)`` in B. The
    tie is broken by that one record, so the teacher keeps coordinate 1 in A
    and coordinate 2 in B: ``θ̂`` moves by O(1) instead of O(1/n).
    """
    n, d, K, r, lam = 1000, 20, 1.0, 1.0, 1.0
    if kind == "extreme":
        s = 2
        B = 1.01 * s * K * r / (n * lam) if bug == "noise" else 1.0
        p = SparseParams(K=K, r=r, B=B, lam=lam, m=200, T1=60, synthetic_seed=7)
        X_syn = synthetic_features(p.m, d, K, p.synthetic_seed)
        signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * s)).reshape(s, -1).T
        best = signs[np.argmax(np.linalg.norm(X_syn[:, :s] @ signs.T, axis=0))]
        X = np.zeros((n, d))
        X[-1, :s] = K * best
        yA = np.zeros(n)
        yA[-1] = r
        yB = yA.copy()
        yB[-1] = -AUDIT_RAW_FACTOR * r
        return (X, yA), (X, yB), s, p
    s = 1
    p = SparseParams(K=K, r=r, B=1.0, lam=lam, m=200, T1=60, synthetic_seed=7)
    X = np.zeros((n, d))
    X[:499, 0] = K
    X[499:998, 1] = K
    y = np.zeros(n)
    y[:998] = r
    y[-1] = r
    XA, XB = X.copy(), X.copy()
    XA[-1, 0] = K
    XB[-1, 1] = K
    return (XA, y), (XB, y.copy()), s, p


def gaussian_shift_epsilon(sigma: float, shift: float, delta: float) -> float:
    """Exact ε at δ between ``N(μ_A, σ²I)`` and ``N(μ_B, σ²I)`` with ``‖μ_A − μ_B‖2 = shift``.

    The pair's privacy profile is the Gaussian mechanism's with sensitivity ``shift`` (Balle & Wang 2018,
    Thm. 8), decreasing in ε: the root of ``gaussian_privacy_loss_delta(σ, ε, shift) = δ``. At
    ``ε = (shift/σ)²/2 + 10·shift/σ`` the first term is ``Φ(−10)`` < 10⁻²³, which brackets the root.
    """
    if gaussian_privacy_loss_delta(sigma, 0.0, shift) <= delta:
        return 0.0
    ratio = shift / sigma
    return float(optimize.brentq(lambda e: gaussian_privacy_loss_delta(sigma, e, shift) - delta,
                                 0.0, 0.5 * ratio**2 + 10.0 * ratio, xtol=1e-9))


def _kt_scenario(kind: str, epsilon: float, delta: float, bug: str = "clip") -> AuditScenario:
    (XA, yA), (XB, yB), s, p = _kt_audit_pair(kind, bug)
    n, d = XA.shape
    X_syn = synthetic_features(p.m, d, p.K, p.synthetic_seed)
    noise = kt_noise(n, p.m, s, p.gamma("linear"), p.K, p.lam, epsilon, delta, p.calibration)

    def centres(skip_clip: bool):
        out = []
        for X, y in ((XA, yA), (XB, yB)):
            Xc, yc = prepare(X, y, "linear", p)
            if skip_clip:
                yc = np.asarray(y, dtype=float)
            out.append(X_syn @ teacher_fit(Xc, yc, sparsity=s, lam=p.lam, loss="linear", p=p))
        muA, muB = out
        u = (muA - muB) / max(np.linalg.norm(muA - muB), 1e-300)
        return float(u @ muA), float(u @ muB), float(np.linalg.norm(muA - muB))

    good = centres(False)
    buggy = centres(True) if bug == "clip" else good
    ratio = good[2] / noise.sensitivity

    def sampler(which, planted_bug, rng, draws):
        nz = noise.with_scale_factor(0.5) if planted_bug and bug == "noise" else noise
        cA, cB, _ = buggy if planted_bug else good
        # ⟨y^p, u⟩ for y^p = X̃θ̂ + N(0, σ²I): the projection of isotropic noise is N(0, σ²)
        return nz.sample(np.float64(cA if which == "A" else cB), rng=rng, draws=draws)

    if kind == "extreme":
        name = "knowledge transfer: one record at the clipping extremes (stable support)"
        text = (f"n = {n}, d = {d}, s = {s}, B = {p.radius():.3g}: n − 1 records are (x = 0, y = 0); the last has "
                f"x = ±K on the first s features (signs chosen to maximise ‖X̃v‖) and y = +r in A, raw −{AUDIT_RAW_FACTOR:g}r "
                f"(clipped to −r) in B. Same support in A and B, so the paper's strong-convexity argument holds; "
                f"‖X̃(θ̂_A − θ̂_B)‖ = {ratio:.3f} × the claimed sensitivity.")
    else:
        name = "knowledge transfer: support flip"
        text = (f"n = {n}, d = {d}, s = 1: two features each carried by 499 records; the changed record adds a vote to "
                f"feature 1 in A and to feature 2 in B, so the IGHT teacher keeps a different coordinate. "
                f"‖X̃(θ̂_A − θ̂_B)‖ = {ratio:.0f} × the claimed sensitivity: the strong-convexity bound does not hold "
                f"for a hard-thresholded teacher. The released responses are Gaussian around X̃θ̂_A and X̃θ̂_B, so "
                f"the true privacy loss on this pair is ε ≈ {gaussian_shift_epsilon(noise.scale, good[2], delta):,.0f} "
                f"at δ = {delta:g}, far above what a black-box audit can show: at most ε ≈ "
                f"{max_detectable_epsilon(10**5, 0.99, delta):.1f} with 10⁵ runs per data set, "
                f"{max_detectable_epsilon(10**6, 0.99, delta):.1f} with 10⁶.")
    return AuditScenario(
        method="sparse", name=name, neighbours=text,
        summary="projection of the m released synthetic responses on the unit vector X̃(θ̂_A − θ̂_B)/‖·‖ "
                "(the likelihood-ratio direction)",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler, planted_bug_label=BUG_LABELS[bug])


def _dp_ight_scenario(epsilon: float, delta: float, bug: str = "clip") -> AuditScenario:
    """DP-IGHT: the record ``x = K·1`` (all d features at +K) has ``y = +r`` in A and raw ``−50r`` (clipped to
    ``−r``) in B; the other records are zero. The mean gradients then differ by exactly ``2rK√d/n ≈ Δ`` at
    *every* iterate, so the transcript of T noisy gradients is T Gaussian shifts; the summary is its
    log-likelihood-ratio statistic ``Σ_t ⟨g̃_t − (∇L_A + ∇L_B)(θ_t)/2, u⟩`` (computable from the transcript,
    ``u = x/‖x‖``), of law ``N(∓T·y‖x‖/n, Tσ²)``. Auditing the transcript audits a superset of the release θ_T."""
    n, d, T = 500, 10, 10
    p = SparseParams(K=1.0, r=1.0, B=1e-3, dp_T=T)
    noise = dp_ight_noise(n, d, T, epsilon, delta, "linear", p)
    x = np.full((1, d), p.K)
    raw = {"A": np.array([p.r]), "B": np.array([-AUDIT_RAW_FACTOR * p.r])}
    norm_x = float(np.linalg.norm(x))

    def sampler(which, planted_bug, rng, draws):
        nz = noise.with_scale_factor(0.5) if planted_bug and bug == "noise" else noise
        if planted_bug and bug == "clip":
            y = raw[which][0]
        else:
            y = float(clip_responses(raw[which], p.r)[0])
        return nz.sample(np.full(T, -y * norm_x / n), rng=rng, draws=draws).sum(axis=-1)

    return AuditScenario(
        method="sparse", name="DP-IGHT: one record with all features at +K, y = +r vs −r",
        neighbours=(f"n = {n}, d = {d}, T = {T}: n − 1 records (0, 0); the last has x = K on every feature and "
                    f"y = +r (A) or raw −{AUDIT_RAW_FACTOR:g}r, clipped to −r (B). Its gradient difference 2rx/n has "
                    f"norm {2 * p.r * norm_x / n:.4g} = {2 * p.r * norm_x / n / noise.sensitivity:.3f} × Δ at every "
                    f"step (ℓ1 radius B tiny)."),
        summary="sum over the T steps of the noisy gradient's component along x/‖x‖ (minus the common part): "
                "the log-likelihood-ratio statistic of the whole transcript",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler, planted_bug_label=BUG_LABELS[bug])


def _kt_ps_flip_scenario(epsilon: float, delta: float) -> AuditScenario:
    """KT with private support on the support-flip pair that breaks plain KT.

    Exercises the real vote computation, the real convex teacher on every possible support, the computed
    sensitivity and the analytic σ. Summary: the projection of the released responses on the selected
    column of X̃, signed +1 when feature 1 was selected and −1 for feature 2 (0 otherwise). Planted bug: the
    support is taken from the non-private IGHT teacher, as plain KT does.
    """
    (XA, yA), (XB, yB), s, p = _kt_audit_pair("flip", "noise")
    # put the changed record first, inside the first vote block (records past k·⌊n/k⌋ cast no vote)
    order = np.r_[len(yA) - 1, np.arange(len(yA) - 1)]
    XA, yA, XB, yB = XA[order], yA[order], XB[order], yB[order]
    p = SparseParams(K=p.K, r=p.r, B=p.B, lam=p.lam, m=p.m, T1=p.T1, synthetic_seed=p.synthetic_seed)
    n, d = XA.shape
    X_syn = synthetic_features(p.m, d, p.K, p.synthetic_seed).astype(float)
    e1, e2 = epsilon / 2.0, epsilon / 2.0
    unit = analytic_gaussian_sigma(1.0, e2, delta)
    ops = np.linalg.norm(X_syn, axis=0)  # ‖X̃_S‖op for a single column
    signs = np.zeros(d)
    signs[0], signs[1] = 1.0, -1.0
    tables = {}
    for which, (X, y) in {"A": (XA, yA), "B": (XB, yB)}.items():
        Xc, yc = prepare(X, y, "linear", p)
        votes, k = block_votes(Xc, yc, s, "linear", p)
        Xs = np.moveaxis(Xc[:, np.arange(d)[:, None]], 0, -2)  # (d, n, 1): every singleton support
        theta, opt_err = fixed_support_teacher(Xs, yc, p.lam, "linear", p)
        sens = kt_ps_sensitivity(n, s, p.gamma("linear"), p.lam, opt_err, ops)
        nonprivate = int(np.flatnonzero(teacher_fit(Xc, yc, sparsity=s, lam=p.lam, loss="linear", p=p))[0])
        tables[which] = (votes, k, theta[:, 0] * ops, unit * sens, nonprivate)

    def sampler(which, planted_bug, rng, draws):
        votes, k, centre, sigma, nonprivate = tables[which]
        if planted_bug:
            S = np.full(draws, nonprivate)
        else:
            S = noisy_top_s(votes, np.array([2.0 * s / (k * e1)]), s, rng, draws)[0, :, 0]
        proj = centre[S] + sigma[S] * rng.standard_normal(draws)  # ⟨y^p, X̃_S/‖X̃_S‖⟩
        return signs[S] * proj

    return AuditScenario(
        method="sparse", name="KT with private support: the support-flip pair",
        neighbours=("The pair that breaks plain KT (two features each carried by 499 records; the changed record "
                    "tips the tie). Here the support is chosen by noisy block votes (ε/2) and the teacher is the "
                    "convex ridge fit on that public support, with a computed sensitivity (ε/2, δ)."),
        summary="projection of the released responses on the selected column of X̃, signed +1 (feature 1) / "
                "−1 (feature 2) / 0 (other)",
        claimed_epsilon=float(epsilon), delta=float(delta), sampler=sampler,
        planted_bug_label="support taken from the non-private IGHT teacher (as plain KT does)")


def audit_scenarios(epsilon: float, delta: float = AUDIT_DELTA, bug: str = "clip") -> list[AuditScenario]:
    """Worst-case neighbours for the KT release (stable support) and for DP-IGHT.

    The planted bug is "response clipping skipped" by default: it is caught at
    every ε. With ``bug="noise"`` (noise halved) the audit catches the bug
    only from ε ≈ 2 (KT) / ε ≈ 1 (DP-IGHT) at 2·10⁵ runs and δ = 10⁻²: both
    calibrations are conservative (the paper's textbook σ at δ/2, the zCDP
    conversion), so a halved σ still sits near the claimed ε for every event
    that many runs can resolve. δ defaults to 10⁻² for the same reason. The
    support-flip pair, where the paper's assumption fails, is in
    :func:`known_violation_scenarios`.
    """
    if bug not in BUG_LABELS:
        raise ValueError(f"bug must be one of {tuple(BUG_LABELS)}")
    return [_kt_scenario("extreme", epsilon, delta, bug), _dp_ight_scenario(epsilon, delta, bug),
            _kt_ps_flip_scenario(epsilon, delta)]


def known_violation_scenarios(epsilon: float, delta: float = AUDIT_DELTA) -> list[AuditScenario]:
    """Scenarios on which the *correct* implementation is expected to be flagged (the paper's gap)."""
    return [_kt_scenario("flip", epsilon, delta, "noise")]


# --------------------------------------------------------------------------
# Release (OpenDP noise only)
# --------------------------------------------------------------------------


def release_sparse(X, y, *, sparsity: int, epsilon: float, delta: float, loss: str = "linear", dataset: str = "data",
                   fingerprint: str = "", feature_names: Sequence[str] | None = None,
                   variant: str = "private_support", **params):
    """The exported knowledge-transfer release: KT with private support (OpenDP noise only).

    Only ``variant="private_support"`` (:func:`kt_private_support_batch`:
    OpenDP Laplace on the support votes, OpenDP Gaussian on the synthetic
    responses) can be released. The paper's variant is refused: its
    sensitivity bound assumes a teacher support that no single record can
    change, and on the pair of :func:`known_violation_scenarios`, where one
    record tips that support, the true privacy loss for a claimed ε = 1 is
    ε ≈ 690 (δ = 10⁻²; an audit with 10⁵ runs shows ε ≥ 9, all that many
    runs can show). It stays available for previews and for the audit page.
    """
    if variant == "paper":
        raise ValueError(
            "The paper's knowledge-transfer release is refused: its privacy proof assumes that no single record can "
            "change the teacher's support; on a pair where one record does, a claimed ε = 1 is in truth ε ≈ 690 "
            "(an audit with 10⁵ runs shows ε ≥ 9). Release 'KT with private support' instead (variant='private_support')."
        )
    if variant != "private_support":
        raise ValueError("variant must be 'private_support' (the paper's variant cannot be released)")
    return _release_private_support(X, y, sparsity=sparsity, epsilon=epsilon, delta=delta, loss=loss,
                                    dataset=dataset, fingerprint=fingerprint, feature_names=feature_names, **params)


# --------------------------------------------------------------------------
# Real data: GDSC and uploads
# --------------------------------------------------------------------------


def gdsc_problem(drug_id: str, n_features: int, *, loss: str = "linear", centre: float | None = None,
                 threshold: float | None = None, test_fraction: float = 0.2, split_seed: int = 0,
                 intercept: bool = True) -> SparseData:
    """GDSC binary genomic features (first ``n_features`` in public frequency order) against one drug's ln IC50.

    Linear: ``y = ln IC50 − centre`` with a *public* centre (default: the
    midpoint of the public response range), because the model has no
    intercept. Logistic: sensitive (+1, ln IC50 below ``threshold``) vs
    resistant (−1); the threshold must be public — by default the midpoint
    of the public response range, not the (private) median. A random
    public-seeded split holds out ``test_fraction`` for the test error.
    With ``intercept`` a constant feature ``(intercept) = 1`` comes first
    (public, within ``[−K, K]``); it competes for one of the ``s`` slots.
    """
    from dpcore.datasets import load_gdsc

    g = load_gdsc()
    X, ic50 = g.drug_data(drug_id, n_features)
    mid = 0.5 * (g.response_range[0] + g.response_range[1])
    if loss == "linear":
        y = ic50 - (mid if centre is None else centre)
    else:
        y = np.where(ic50 < (mid if threshold is None else threshold), 1.0, -1.0)
    order = np.random.default_rng(split_seed).permutation(y.size)
    n_test = int(round(test_fraction * y.size))
    test, train = order[:n_test], order[n_test:]
    names = tuple(g.features.columns[:n_features])
    if intercept:
        X = np.column_stack([np.ones(X.shape[0]), X])
        names = ("(intercept)",) + names
    return SparseData(X[train], y[train], X[test], y[test], None, loss, g.drug_label(drug_id), names)


def sparse_from_frame(frame, response: str, features: Sequence[str], *, loss: str = "linear",
                      threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(X, y)`` from an uploaded table; errors name the column, row and problem.

    Logistic responses must be 0/1 or ±1 labels unless a public
    ``threshold`` is given (then label = 1 when the response is below it).
    """
    from dpcore.validation import InputError, distinct_columns, numeric_column

    features = list(features)
    if response in features:
        raise InputError(f"Column {response!r} is the response; remove it from the features.")
    if len(features) < 2:
        raise InputError("Choose at least two feature columns.")
    distinct_columns(*features)
    if len(frame) < 10:
        raise InputError(f"The file has {len(frame)} data rows; sparse regression needs at least 10.")
    X = np.column_stack([numeric_column(frame, c, what="feature value") for c in features])
    y = numeric_column(frame, response, what="response")
    if loss == "logistic":
        if threshold is not None:
            y = np.where(y < threshold, 1.0, -1.0)
        else:
            bad = ~np.isin(y, [0.0, 1.0, -1.0])
            if bad.any():
                i = int(np.argmax(bad))
                raise InputError(f"Column {response!r}, row {i + 2}: the label {y[i]:g} is not 0/1 or ±1 "
                                 "(or give a public threshold).")
            y = np.where(y > 0, 1.0, -1.0)
        if np.all(y == y[0]):
            raise InputError(f"Every record of {response!r} falls in one class"
                             + (f" at the threshold {threshold:g}" if threshold is not None else "")
                             + "; a logistic model needs both (choose another threshold or response).")
    return X, y



def _release_private_support(X, y, *, sparsity, epsilon, delta, loss, dataset, fingerprint, feature_names,
                             select_share: float = 0.5, **params):
    """OpenDP release of KT with a private support (see :func:`kt_private_support_batch` for the proof)."""
    from dpcore.release import ReleaseBundle
    import pandas as pd

    p, _, X, y, s, _ = _setup(X, y, sparsity, [epsilon], delta, loss, None, params)
    n, d = X.shape
    e1, e2 = epsilon * select_share, epsilon * (1.0 - select_share)
    votes, k = block_votes(X, y, s, loss, p)
    vote_noise = Noise("laplace", 2.0 * s / (k * e1), 2.0 * s / k, float(e1))
    noisy_votes = vote_noise.release(votes)
    S = np.sort(np.argsort(-noisy_votes)[:s])
    lam = p.ridge(n, d, s, e2, delta, loss)
    theta, opt_err = fixed_support_teacher(X[:, S][None], y, lam, loss, p)
    m = p.n_synthetic(n)
    Xs = synthetic_features(m, d, p.K, p.synthetic_seed)[:, S].astype(float)
    sens = float(kt_ps_sensitivity(n, s, p.gamma(loss), lam, float(opt_err[0]), np.linalg.norm(Xs, 2)))
    noise = Noise("gaussian", analytic_gaussian_sigma(sens, e2, delta), sens, float(e2), float(delta))
    y_syn = noise.release(Xs @ theta[0])
    coef_s = np.linalg.lstsq(Xs, y_syn, rcond=None)[0]
    coef = np.zeros(d)
    coef[S] = coef_s
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    tables = {
        "coefficients": pd.DataFrame({"feature": [names[j] for j in S], "index": S, "coefficient": coef[S]}),
        "synthetic_responses": pd.DataFrame({"i": np.arange(m), "y_synthetic": y_syn}),
        "noisy_votes": pd.DataFrame({"feature": names, "index": np.arange(d), "noisy_vote": noisy_votes}),
    }
    public = {"variant": "KT with private support", "loss": loss, "sparsity": s, "n": n, "d": d, "K": p.K, "r": p.r,
              "B": p.radius(), "lambda": lam, "lambda_rule": p.lam_rule if p.lam is None else "given", "m": m, "blocks": k, "select_share": select_share,
              "synthetic_seed": p.synthetic_seed,
              "synthetic_features": f"columns S of 2K * numpy.random.default_rng({p.synthetic_seed})"
                                    ".random((m, d), dtype=float32) - K",
              "sigma": noise.scale, "l2_sensitivity": sens, "vote_scale": vote_noise.scale}
    notes = ("Support: top s of Laplace-noised sample-and-aggregate votes (pure DP, ε·select_share). Teacher: the "
             "λ-strongly convex ridge fit on that public support inside the ℓ1 ball; sensitivity of X̃_Sθ̂ computed "
             "exactly with ‖X̃_S‖op (no probabilistic event). Student: least squares on the support (post-processing).",)
    return ReleaseBundle(
        method="Sparse regression by knowledge transfer (private support)", dataset=dataset, fingerprint=fingerprint,
        epsilon=float(epsilon), delta=float(delta),
        mechanisms=(f"Laplace on the d block votes: {vote_noise.describe()}",
                    f"Gaussian mechanism on the m = {m} synthetic responses X̃_Sθ̂_S: {noise.describe()}"),
        public_params=public, tables=tables,
        parts={"support selection (Laplace)": float(e1), "synthetic responses (Gaussian)": float(e2)},
        notes=notes)

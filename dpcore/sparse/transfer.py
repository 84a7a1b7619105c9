"""Knowledge transfer (Wang & Gu 2020): teacher → statistic ``X̃θ̂`` and its sensitivity → Gaussian → student.

1. **Teacher** (not private): IGHT on ``L_S(θ) + (λ/2)‖θ‖²`` s.t. ``‖θ‖0 ≤ s`` (:func:`teacher_fit`;
   also the non-private baseline :func:`nonprivate_ight`).
2. **Statistic and sensitivity**: the synthetic responses ``X̃θ̂`` on public features
   ``X̃ ~ Uniform[−K, K]^{m×d}`` (public seed); :func:`kt_sensitivity` carries the paper's proof
   sketch ``2√s γ √(mβ)/(nλ)`` — valid only under :data:`KT_ASSUMPTIONS` (a record that flips the
   teacher's support breaks it, see :mod:`dpcore.sparse.audit`), so this variant is for previews.
3. **Mechanism**: :func:`kt_noise`, the Gaussian mechanism on ``X̃θ̂``.
4. **Student** (post-processing): IGHT on ``(1/2m)‖y^p − X̃θ‖²`` (:func:`student_fit`).

The convex teacher on a given support (:func:`fixed_support_teacher`) is here too, at the end: it is
the teacher of KT with a private support and the objective-perturbation fit of two-stage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore.core.mechanisms import (
    Noise,
    analytic_gaussian_sigma,
)
from dpcore.sparse.params import (
    DEFAULT_SYNTHETIC_SEED,
    SparseFit,
    SparseParams,
    _check_budget,
    _check_sparsity,
    _params,
    prepare,
)
from dpcore.sparse.solver import _sigmoid, _sparse_matvec, ight, loss_gradient, project_l1_ball, restricted_smoothness


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

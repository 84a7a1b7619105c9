"""Baseline: two-stage (Kifer, Smith & Thakurta 2012): noisy support votes, then objective perturbation."""

from __future__ import annotations

import math

import numpy as np

from dpcore.core.mechanisms import (
    Noise,
)
from dpcore.sparse.params import SparseFit, SparseParams, _setup
from dpcore.sparse.solver import _sigmoid, hard_threshold
from dpcore.sparse.transfer import fixed_support_teacher


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

"""Baseline: DP Frank–Wolfe (Talwar, Thakurta & Zhang 2015), exponential mechanism (Gumbel report-noisy-min), zCDP."""

from __future__ import annotations

import math

import numpy as np

from dpcore.core.mechanisms import (
    Noise,
    approx_dp_to_zcdp,
)
from dpcore.sparse.params import SparseFit, SparseParams, _setup
from dpcore.sparse.solver import loss_gradient


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

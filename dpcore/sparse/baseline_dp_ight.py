"""Baseline: DP-IGHT (Wang & Gu 2019), Gaussian noise on every gradient step, zCDP accounting."""

from __future__ import annotations

import math

import numpy as np

from dpcore.core.mechanisms import (
    Noise,
    approx_dp_to_zcdp,
    gaussian_zcdp_sigma,
)
from dpcore.sparse.params import SparseFit, SparseParams, _setup
from dpcore.sparse.solver import ight, loss_gradient


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

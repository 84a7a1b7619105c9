"""Baselines: output perturbation and the functional mechanism."""

from __future__ import annotations

import math

import numpy as np


def output_perturbation_coef(X, y, *, epsilon, y_bound, rng: np.random.Generator, draws: int | None = None,
                             radius: float = 1.0) -> np.ndarray:
    """Output-perturbed ridge LR (Wu et al. 2015), batched over leading axes of ``X`` (..., n, d).

    Rows are unit-norm (so ``x ∈ [−1, 1]^d``), ``y`` is scaled by its public
    bound ``y_bound`` (broadcast over the batch) to ``[−1, 1]``. Minimise
    ``(1/n)Σ(y − wᵀx)² + (λ/2)‖w‖²`` on ``‖w‖ ≤ R`` with ``λ = √(d/(nε))`` (exactly,
    by bisection on the KKT multiplier in the eigenbasis of ``XᵀX/n``), then add
    a vector with a uniform direction and norm ``~ Γ(d, (12R + 8)/(λ n ε))``.
    ``draws`` adds a leading axis of independent draws. Coefficients are on the scale of ``y``.
    """
    X = np.asarray(X, dtype=float)
    yb = np.asarray(y_bound, dtype=float)
    ys = np.clip(np.asarray(y, dtype=float) / yb[..., None], -1, 1)
    n, d = X.shape[-2:]
    eps = np.asarray(epsilon, dtype=float)
    lam = np.sqrt(d / (n * eps))
    w_eig, v = np.linalg.eigh(np.swapaxes(X, -1, -2) @ X / n)
    t = np.einsum("...ji,...j->...i", v, np.einsum("...ni,...n->...i", X, ys) / n)
    t, w_eig = np.broadcast_arrays(t, w_eig)
    lam_b = np.broadcast_to(lam, t.shape[:-1])[..., None]

    def norm_at(mu):
        return np.linalg.norm(t / (w_eig + lam_b / 2.0 + mu[..., None]), axis=-1)

    lo = np.zeros(t.shape[:-1])
    hi = np.ones(t.shape[:-1])
    for _ in range(60):  # grow hi until the constraint holds everywhere
        grow = norm_at(hi) > radius
        if not grow.any():
            break
        hi = np.where(grow, hi * 2.0, hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = norm_at(mid) > radius
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    mu = np.where(norm_at(lo * 0.0) > radius, hi, 0.0)
    wt = t / (w_eig + lam_b / 2.0 + mu[..., None])
    w = np.einsum("...ij,...j->...i", v, wt)
    shape = w.shape if draws is None else (int(draws),) + w.shape
    direction = rng.standard_normal(shape)
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    scale = (12.0 * radius + 8.0) / (np.broadcast_to(lam, w.shape[:-1]) * n * np.broadcast_to(eps, w.shape[:-1]))
    norm = rng.gamma(d, 1.0, size=shape[:-1]) * scale
    return (w + norm[..., None] * direction) * yb[..., None]


def functional_mechanism_coef(X, y, *, epsilon, y_bound, rng: np.random.Generator,
                              draws: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Functional-mechanism LR (Zhang et al. 2012), batched: returns ``(coef, intercept)``.

    A bias column is appended (d ← d + 1), ``y`` scaled to ``[−1, 1]``;
    ``Δ = 2d² + 4d``; ``XᵀX`` (all entries, then symmetrised) and ``−2Xᵀy`` get
    Laplace(Δ/ε) noise; a ridge ``5√2 Δ/ε · I`` is added and the noisy quadratic
    is minimised over its positive eigen-directions.
    """
    X = np.asarray(X, dtype=float)
    yb = np.asarray(y_bound, dtype=float)
    Xa = np.concatenate([np.clip(X, -1, 1), np.ones(X.shape[:-1] + (1,))], axis=-1)
    ys = np.clip(np.asarray(y, dtype=float) / yb[..., None], -1, 1)
    d = Xa.shape[-1]
    delta = 2.0 * d * d + 4.0 * d
    quad = np.swapaxes(Xa, -1, -2) @ Xa
    lin = -2.0 * np.einsum("...ni,...n->...i", Xa, ys)
    quad, lin_b = np.broadcast_arrays(quad, lin[..., None])
    lin = lin_b[..., 0]
    scale = (delta / np.asarray(epsilon, dtype=float)) * np.ones(quad.shape[:-2])
    lead = () if draws is None else (int(draws),)
    m = quad + rng.laplace(size=lead + quad.shape) * scale[..., None, None]
    m = 0.5 * (m + np.swapaxes(m, -1, -2)) + (5.0 * math.sqrt(2.0) * scale)[..., None, None] * np.eye(d)
    lin = lin + rng.laplace(size=lead + lin.shape) * scale[..., None]
    w, v = np.linalg.eigh(m)
    t = np.einsum("...ji,...j->...i", v, lin)
    keep = w > 0
    coef_t = np.where(keep, -0.5 * t / np.where(keep, w, 1.0), 0.0)
    coef = np.einsum("...ij,...j->...i", v, coef_t) * yb[..., None]
    return coef[..., :-1], coef[..., -1]

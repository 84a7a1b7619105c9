"""Knowledge transfer with a private support — the variant that is released — and its sensitivity (proof).

Support from Laplace-noised block votes (:mod:`dpcore.sparse.baseline_two_stage`), a λ-strongly convex teacher
on that public support, then the Gaussian mechanism on ``X̃_Sθ̂_S`` with the sensitivity proved in
:func:`kt_ps_sensitivity`: ``‖X̃_S‖op·(2√s γ/(nλ) + 2·opt_error)`` — on a fixed support the objective
is λ-strongly convex, replace-one moves the mean gradient by ≤ ``2√sγ/n`` in ℓ2, so the exact
minimisers differ by ≤ ``2√sγ/(nλ)``; each computed iterate is within ``opt_error`` of its minimiser;
and ``‖X̃_S v‖ ≤ ‖X̃_S‖op‖v‖`` exactly (the operator norm is computed, no probabilistic event).
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.core.mechanisms import (
    Noise,
    analytic_gaussian_sigma,
    laplace_noise,
)
from dpcore.sparse.baseline_two_stage import block_votes, noisy_top_s
from dpcore.sparse.params import SparseFit, _setup
from dpcore.sparse.transfer import fixed_support_teacher, synthetic_features


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


def kt_vote_noise(s: int, k: int, epsilon: float) -> Noise:
    """Laplace on the normalised block votes (``counts/k``) at ``ε1``: scale ``2s/(kε1)``.

    Proof: replace-one changes one block, whose top-s set changes in at most 2s coordinates by one vote
    each: ℓ1 sensitivity ``2s/k`` of the normalised vote vector.
    """
    return laplace_noise(2.0 * s / k, epsilon)


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
    vote_noises = tuple(kt_vote_noise(s, k, float(e1)) for e1 in eps1)
    supp = noisy_top_s(votes, np.array([nz.scale for nz in vote_noises]), s, rng, R)  # (E, R, s)
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
    noises = vote_noises + tuple(
        Noise("gaussian", float(np.median(sigma[i])), float(np.median(sens[i])), float(e2), delta)
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

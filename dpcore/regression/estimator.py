"""One-call estimator: statistic → mechanism → posterior (:func:`robust_private_lr`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dpcore.regression.linalg import DEFAULT_SPLIT, _split
from dpcore.regression.mechanism import StatNoise, stat_noise
from dpcore.regression.posterior import fit_stats, noise_ridge
from dpcore.regression.statistic import Stats, prediction_features, sufficient_stats


@dataclass(frozen=True)
class RobustPrivateLR:
    """Result of :func:`robust_private_lr`: ``coef`` and ``predict``, plus the privacy bookkeeping."""

    coef: np.ndarray
    epsilon: float
    split: tuple[float, float, float]
    bx: float
    by: float
    noise: StatNoise | None
    noisy_stats: Stats | None
    priors: bool
    released: bool = False
    sd: np.ndarray | None = None  # posterior standard deviations (given the noisy statistics)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predictions for prepared records: features clipped at ±Bx as in the fit with the priors, unclipped in the
        paper's mode, as in the authors' code (:func:`~dpcore.regression.statistic.prediction_features`)."""
        return prediction_features(X, self.bx, priors=self.priors) @ self.coef


def robust_private_lr(
    X: np.ndarray,
    y: np.ndarray,
    *,
    epsilon: float,
    bx: float,
    by: float,
    split: Sequence[float] = DEFAULT_SPLIT,
    priors: bool = True,
    rng: np.random.Generator | None = None,
    public: tuple[np.ndarray, np.ndarray] | None = None,
) -> RobustPrivateLR:
    """Fit robust private LR on prepared data (rows normalised, ``y`` centred with a public/charged centre).

    Clips at ``(bx, by)``, perturbs ``nxx, nxy, nyy`` with Laplace noise at
    ``split · ε`` and fits the posterior (VB with Gamma priors and a ridge of the noise's scale,
    :func:`~dpcore.regression.posterior.noise_ridge`, or λ = λ0 = 1).
    ``rng`` given → a seeded *preview* draw; ``rng=None`` → one OpenDP draw
    (a real release: charge it). ``epsilon=math.inf`` fits without clipping or
    noise (the non-private reference). ``public=(X0, y0)`` adds non-private
    records (clipped the same way) to the statistics without noise.
    """
    p = _split(split)
    if math.isinf(epsilon):
        s = sufficient_stats(X, y)
        noise, noisy = None, s
        if public is not None:
            noisy = noisy + sufficient_stats(*public)
    else:
        d = np.asarray(X).shape[1]
        noise = stat_noise(d, bx, by, epsilon, p)
        s = sufficient_stats(X, y, bx, by)
        noisy = noise.release(s) if rng is None else noise.sample(s, rng=rng)
        if public is not None:
            noisy = noisy + sufficient_stats(*public, bx, by)
    post = fit_stats(noisy, priors=priors, ridge=0.0 if noise is None else noise_ridge(noise.xx.scale))
    if math.isinf(epsilon):
        bx = by = math.inf  # nothing was clipped, so nothing is clipped when predicting either
    return RobustPrivateLR(post.coef, float(epsilon), p, float(bx), float(by), noise, noisy, priors,
                           released=rng is None and not math.isinf(epsilon), sd=post.sd)

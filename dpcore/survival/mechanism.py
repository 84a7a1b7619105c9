"""Stage 2 — the mechanism: discrete Laplace (or Laplace) noise of scale Δ1/ε on the released counts.

:func:`noisy_counts` is the NumPy preview, vectorised over R draws; :func:`release_counts` is one
OpenDP draw. Both go through the shared :class:`dpcore.mechanisms.Noise`.
"""

from __future__ import annotations

import numpy as np

from dpcore.mechanisms import Noise, discrete_laplace_noise, laplace_noise
from dpcore.survival.statistic import DEFAULT_STATISTIC, Counts, sensitivity


def survival_noise(epsilon: float, n_groups: int = 1, *, kind: str = "discrete_laplace",
                   statistic: str = DEFAULT_STATISTIC) -> Noise:
    """The calibrated mechanism for the counts of ``n_groups`` groups released as ``statistic`` (scale Δ1/ε)."""
    delta1 = sensitivity(n_groups, statistic=statistic)
    if kind == "discrete_laplace":
        return discrete_laplace_noise(delta1, epsilon)
    if kind == "laplace":
        return laplace_noise(delta1, epsilon)
    raise ValueError(f"survival counts use Laplace or discrete Laplace noise, not {kind!r}")


def noise_for(counts: Counts, epsilon: float, *, kind: str = "discrete_laplace") -> Noise:
    """The calibrated mechanism for these counts (their groups and their statistic)."""
    return survival_noise(epsilon, counts.n_groups, kind=kind, statistic=counts.statistic)


def _calibrated_for(counts: Counts, noise: Noise) -> None:
    """Refuse noise calibrated for a smaller sensitivity than these counts' (e.g. the histogram's noise on the
    paper's grouped matrix): a mismatch between statistic and mechanism is a privacy bug, not a preview choice."""
    needed = sensitivity(counts.n_groups, statistic=counts.statistic)
    if noise.sensitivity < needed:
        raise ValueError(f"noise calibrated for Δ1 = {noise.sensitivity:g}, but the {counts.statistic} of "
                         f"{counts.n_groups} group(s) has Δ1 = {needed}: use survival_noise(ε, {counts.n_groups}, "
                         f"statistic={counts.statistic!r})")


def noisy_counts(counts: Counts, noise: Noise, *, rng: np.random.Generator, draws: int | None = None) -> Counts:
    """Preview: ``M + Z`` with NumPy noise; ``draws=R`` stacks R releases on axis 0. Never export."""
    _calibrated_for(counts, noise)
    vec = counts.vector()
    if noise.kind == "laplace":
        vec = vec.astype(float)
    return counts.from_vector(noise.sample(vec, rng=rng, draws=draws))


def release_counts(counts: Counts, noise: Noise) -> Counts:
    """Release: one OpenDP draw of ``M + Z`` (discrete Laplace for integer counts)."""
    _calibrated_for(counts, noise)
    vec = counts.vector()
    if noise.kind == "discrete_laplace":
        vec = vec.astype(np.int64)
    return counts.from_vector(noise.release(vec))

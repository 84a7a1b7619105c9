"""Stage 2 — the mechanism: discrete Laplace (or Laplace) noise of scale Δ1/ε on the count matrix.

:func:`noisy_counts` is the NumPy preview, vectorised over R draws; :func:`release_counts` is one
OpenDP draw. Both go through the shared :class:`dpcore.mechanisms.Noise`.
"""

from __future__ import annotations

import numpy as np

from dpcore.mechanisms import Noise, discrete_laplace_noise, laplace_noise
from dpcore.survival.statistic import Counts, sensitivity


def survival_noise(epsilon: float, n_groups: int = 1, *, kind: str = "discrete_laplace") -> Noise:
    """The calibrated mechanism for the matrices of ``n_groups`` groups (scale Δ1/ε)."""
    delta1 = sensitivity(n_groups)
    if kind == "discrete_laplace":
        return discrete_laplace_noise(delta1, epsilon)
    if kind == "laplace":
        return laplace_noise(delta1, epsilon)
    raise ValueError(f"survival counts use Laplace or discrete Laplace noise, not {kind!r}")


def noisy_counts(counts: Counts, noise: Noise, *, rng: np.random.Generator, draws: int | None = None) -> Counts:
    """Preview: ``M + Z`` with NumPy noise; ``draws=R`` stacks R releases on axis 0. Never export."""
    vec = counts.vector()
    if noise.kind == "laplace":
        vec = vec.astype(float)
    return counts.from_vector(noise.sample(vec, rng=rng, draws=draws))


def release_counts(counts: Counts, noise: Noise) -> Counts:
    """Release: one OpenDP draw of ``M + Z`` (discrete Laplace for integer counts)."""
    vec = counts.vector()
    if noise.kind == "discrete_laplace":
        vec = vec.astype(np.int64)
    return counts.from_vector(noise.release(vec))

"""Stage 2 — the mechanism: noise on the released counts.

Discrete Laplace of scale Δ1/ε (the default: the most accurate for one release; Laplace for previews), or
Gaussian with the analytic σ for (ε, δ) at the L2 sensitivity: several releases of one cohort compose to one
Gaussian under tight accounting, so their noise grows like √k instead of k (``docs/accounting.md``).
:func:`noisy_counts` is the NumPy preview, vectorised over R draws; :func:`release_counts` is one
OpenDP draw. Both go through the shared :class:`dpcore.core.mechanisms.Noise`.
"""

from __future__ import annotations

import numpy as np

from dpcore.core.mechanisms import Noise, check_budget, discrete_laplace_noise, gaussian_noise, laplace_noise
from dpcore.survival.statistic import DEFAULT_STATISTIC, Counts, l2_sensitivity, sensitivity

#: The noises a survival release can use: what each is for.
NOISE_KINDS: dict[str, str] = {
    "discrete_laplace": "discrete Laplace (ε-DP): the most accurate for one release",
    "gaussian": "Gaussian ((ε, δ)-DP): less noise per release once several releases share a budget",
    "laplace": "Laplace (ε-DP): previews only, the paper's continuous noise",
}


def survival_noise(epsilon: float, n_groups: int = 1, *, kind: str = "discrete_laplace",
                   statistic: str = DEFAULT_STATISTIC, delta: float = 0.0) -> Noise:
    """The calibrated mechanism for the counts of ``n_groups`` groups released as ``statistic``: scale Δ1/ε for
    the Laplace kinds, the analytic σ for ``(ε, delta)`` at the L2 sensitivity for ``"gaussian"``."""
    if kind == "discrete_laplace":
        return discrete_laplace_noise(sensitivity(n_groups, statistic=statistic), epsilon)
    if kind == "laplace":
        return laplace_noise(sensitivity(n_groups, statistic=statistic), epsilon)
    if kind == "gaussian":
        check_budget(epsilon, delta, delta_needed=True, what="Gaussian noise")
        return gaussian_noise(l2_sensitivity(n_groups, statistic=statistic), epsilon, delta)
    raise ValueError(f"survival counts use one of {list(NOISE_KINDS)}, not {kind!r}")


def noise_for(counts: Counts, epsilon: float, *, kind: str = "discrete_laplace", delta: float = 0.0) -> Noise:
    """The calibrated mechanism for these counts (their groups and their statistic)."""
    return survival_noise(epsilon, counts.n_groups, kind=kind, statistic=counts.statistic, delta=delta)


def _calibrated_for(counts: Counts, noise: Noise) -> None:
    """Refuse noise calibrated for a smaller sensitivity than these counts' (e.g. the histogram's noise on the
    paper's grouped matrix): a mismatch between statistic and mechanism is a privacy bug, not a preview choice."""
    norm = l2_sensitivity if noise.kind == "gaussian" else sensitivity
    needed = norm(counts.n_groups, statistic=counts.statistic)
    if noise.sensitivity < needed - 1e-12:
        norm_name = "Δ2" if noise.kind == "gaussian" else "Δ1"
        raise ValueError(f"noise calibrated for {norm_name} = {noise.sensitivity:g}, but the {counts.statistic} of "
                         f"{counts.n_groups} group(s) has {norm_name} = {needed:g}: use noise_for(counts, ε, kind="
                         f"{noise.kind!r})")


def noisy_counts(counts: Counts, noise: Noise, *, rng: np.random.Generator, draws: int | None = None) -> Counts:
    """Preview: ``M + Z`` with NumPy noise; ``draws=R`` stacks R releases on axis 0. Never export."""
    _calibrated_for(counts, noise)
    vec = counts.vector()
    if noise.kind != "discrete_laplace":
        vec = vec.astype(float)
    return counts.from_vector(noise.sample(vec, rng=rng, draws=draws))


def release_counts(counts: Counts, noise: Noise) -> Counts:
    """Release: one OpenDP draw of ``M + Z`` (discrete Laplace on integer counts, Gaussian on floats)."""
    _calibrated_for(counts, noise)
    vec = counts.vector()
    vec = vec.astype(np.int64) if noise.kind == "discrete_laplace" else vec.astype(float)
    return counts.from_vector(noise.release(vec))

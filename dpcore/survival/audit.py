"""Audit scenarios: worst-case neighbouring pairs for the black-box audit of the survival mechanism."""

from __future__ import annotations

import numpy as np

from dpcore.core.audit import AuditScenario, release_path
from dpcore.survival.grid import make_grid
from dpcore.survival.mechanism import noise_for, noisy_counts, release_counts
from dpcore.survival.statistic import Counts, count_matrix


def _audit_counts(kind: str, statistic: str = "histogram") -> tuple[Counts, Counts, str]:
    """Worst-case neighbouring data sets (n = 21 on a 5-bin grid) for one scenario, counted as ``statistic``."""
    grid = make_grid(5.0, data_unit="days")
    base_t = np.array([1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 1.5, 2.5, 3.5, 4.5, 0.5, 1.2, 2.2, 6.0])
    base_e = np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0])
    base_g = np.array(["a", "b"] * 10)
    if kind == "first-last":
        tA, eA = np.append(base_t, 0.3), np.append(base_e, 1)
        tB, eB = np.append(base_t, 4.9), np.append(base_e, 0)
        A = count_matrix(tA, eA, grid, statistic=statistic)
        B = count_matrix(tB, eB, grid, statistic=statistic)
        text = ("A: one extra person has an event in the first bin; B: that person is replaced by someone "
                "censored in the last bin (everything else equal).")
    elif kind == "event-censored":
        tA, eA = np.append(base_t, 2.5), np.append(base_e, 1)
        tB, eB = np.append(base_t, 2.5), np.append(base_e, 0)
        A = count_matrix(tA, eA, grid, statistic=statistic)
        B = count_matrix(tB, eB, grid, statistic=statistic)
        text = "A: one person has an event in bin 3; B: the same person is censored at the same time instead."
    elif kind == "between-groups":
        tA, eA, gA = np.append(base_t, 0.3), np.append(base_e, 1), np.append(base_g, "a")
        tB, eB, gB = np.append(base_t, 4.9), np.append(base_e, 0), np.append(base_g, "b")
        A = count_matrix(tA, eA, grid, group=gA, groups=("a", "b"), statistic=statistic)
        B = count_matrix(tB, eB, grid, group=gB, groups=("a", "b"), statistic=statistic)
        text = ("Groups released together (log-rank): A has an extra person in group a with an event in the "
                "first bin; B replaces them by a person in group b censored in the last bin — "
                + ("two cells differ." if statistic == "histogram" else
                   "four counts differ (the paper's matrix: both groups' numbers at the start move too)."))
    else:
        raise ValueError(kind)
    return A, B, text


def _indicator_summary(vec: np.ndarray, a_vec: np.ndarray, b_vec: np.ndarray) -> np.ndarray:
    """Number of differing coordinates whose noisy value sits on A's side of the difference.

    For each coordinate where A and B differ by one, the event "noisy value
    ≥ A's value" (A larger) or "≤ A's value" (A smaller) has likelihood ratio
    ``e^{1/b}`` between A and B; the event "all on A's side" attains the full
    ``e^{Δ1/b} = e^ε`` with a large probability — the most powerful test.
    """
    diff = (a_vec - b_vec).ravel()
    idx = np.flatnonzero(diff)
    flat = vec.reshape(vec.shape[0], -1)[:, idx]
    a = a_vec.ravel()[idx]
    up = diff[idx] > 0
    side = np.where(up, flat >= a, flat <= a)
    return side.sum(axis=1).astype(float)


def _projection_summary(vec: np.ndarray, a_vec: np.ndarray, b_vec: np.ndarray) -> np.ndarray:
    """``(noisy − B)·(A − B)``: for Gaussian noise the likelihood ratio of A to B is increasing in it, so
    thresholding it is the most powerful test (Neyman–Pearson), and its privacy loss is the Gaussian's."""
    diff = (a_vec - b_vec).ravel().astype(float)
    return (vec.reshape(vec.shape[0], -1) - b_vec.ravel()) @ diff


#: The Gaussian scenario's claimed δ (the page's default δ).
GAUSSIAN_AUDIT_DELTA = 1e-6
#: The Gaussian scenario's planted bug shrinks σ to a quarter, not a half: a Gaussian's privacy loss lives in
#: tails that 10⁵ runs barely reach, so a halved σ (true ε ≈ 2.6 at δ = 10⁻⁶ where 1 is claimed) is refuted
#: only at 2·10⁵ runs and then by a hair (empirical ε ≥ 1.004); a quarter is refuted with margin at 6·10⁴.
GAUSSIAN_PLANTED_FACTOR = 0.25


def audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """Worst-case neighbouring pairs for the survival releases: discrete Laplace on the histogram (the default)
    and on the paper's matrix, whose grouped release has the larger sensitivity; Gaussian noise on the histogram.

    Laplace kinds: the summary counts the changed cells whose noisy value lies on data set A's side; "all of
    them" is the event with the largest privacy loss (exactly ``e^ε`` for the correct mechanism, ``e^{2ε}`` with
    the noise halved). Gaussian: the projection of the noisy counts on ``A − B`` (:func:`_projection_summary`).
    The sampler recomputes the count matrices with :func:`count_matrix` every time, so a wrong sensitivity is
    caught too.
    """
    scenarios = []
    for kind, statistic, noise_kind, title in [
            ("first-last", "histogram", "discrete_laplace",
             "record moved from the first to the last bin, event → censored"),
            ("event-censored", "histogram", "discrete_laplace", "event ↔ censored in the same bin"),
            ("between-groups", "histogram", "discrete_laplace", "record moved between groups (log-rank release)"),
            ("between-groups", "matrix", "discrete_laplace", "record moved between groups (the paper's matrix)"),
            ("between-groups", "histogram", "gaussian", "record moved between groups, Gaussian noise")]:
        A, B, text = _audit_counts(kind, statistic)
        delta = GAUSSIAN_AUDIT_DELTA if noise_kind == "gaussian" else 0.0
        summarise = _projection_summary if noise_kind == "gaussian" else _indicator_summary
        factor = GAUSSIAN_PLANTED_FACTOR if noise_kind == "gaussian" else 0.5

        def sampler(which, planted_bug, rng, draws, A=A, B=B, noise_kind=noise_kind, delta=delta,
                    summarise=summarise, factor=factor):
            counts = A if which == "A" else B
            noise = noise_for(counts, epsilon, kind=noise_kind, delta=delta)
            if planted_bug:
                noise = noise.with_scale_factor(factor)
            if rng is None:  # the release path: one OpenDP call on `draws` stacked copies of the matrices
                noisy = release_counts(counts.from_vector(np.repeat(counts.vector()[None], draws, axis=0)), noise)
            else:
                noisy = noisy_counts(counts, noise, rng=rng, draws=draws)
            return summarise(noisy.vector(), A.vector(), B.vector())

        scenarios.append(AuditScenario(
            method="survival", name=title, neighbours=text,
            summary=("projection of the noisy counts on A − B, the most powerful test for Gaussian noise"
                     if noise_kind == "gaussian" else
                     "number of changed counts whose noisy value lies on A's side (all of them = worst-case event)"),
            claimed_epsilon=float(epsilon), delta=delta, sampler=sampler,
            planted_bug_label="noise scale halved" if factor == 0.5 else f"noise scale × {factor:g}",
            release_sampler=release_path(sampler)))
    return scenarios

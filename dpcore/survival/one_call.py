"""One-call functions for notebooks: raw records → (optionally noised) curve or test, in one call.

Statistic, mechanism and post-processing composed; ``epsilon=None`` gives the non-private baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.survival.estimators import DEFAULT_RISK_SET, curve_for, postprocess
from dpcore.survival.logrank import logrank_table, logrank_test
from dpcore.survival.grid import Grid
from dpcore.survival.mechanism import noise_for, noisy_counts, release_counts
from dpcore.survival.read import fine_times, first_below, path
from dpcore.survival.statistic import DEFAULT_STATISTIC, Counts, count_matrix
from dpcore.core.validation import InputError


@dataclass(frozen=True)
class SurvivalResult:
    """What the one-call functions return (arrays over ``times``, group axis dropped for one group).

    ``estimate`` is the curve (``survival`` for KM, ``cumulative_hazard``
    for Nelson–Aalen, ``incidence`` for competing risks — aliases below).
    """

    estimator: str
    times: np.ndarray
    estimate: np.ndarray
    variance: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    groups: tuple[str, ...]
    epsilon: float | None
    noise: str
    median: np.ndarray | float | None = None
    counts: Counts | None = None

    @property
    def survival(self) -> np.ndarray:
        return self.estimate

    @property
    def cumulative_hazard(self) -> np.ndarray:
        return self.estimate

    @property
    def incidence(self) -> np.ndarray:
        return self.estimate

    def to_frame(self) -> pd.DataFrame:
        est = np.atleast_2d(self.estimate)
        lo, hi = np.atleast_2d(self.ci_lower), np.atleast_2d(self.ci_upper)
        rows = []
        for g, name in enumerate(self.groups):
            rows.append(pd.DataFrame({"group": name, "time": self.times, "estimate": est[g],
                                      "ci_lower": lo[g], "ci_upper": hi[g]}))
        return pd.concat(rows, ignore_index=True)


@dataclass(frozen=True)
class LogrankResult:
    statistic: float
    p_value: float
    degrees_of_freedom: int
    groups: tuple[str, ...]
    epsilon: float | None
    noise: str
    observed: np.ndarray
    expected: np.ndarray


def _as_grid(grid, time) -> Grid:
    if isinstance(grid, Grid):
        return grid
    edges = np.asarray(grid, dtype=float)
    if edges[0] != 0.0:
        edges = np.concatenate([[0.0], edges])
    return Grid(edges)


def _noised(counts: Counts, epsilon: float | None, rng) -> tuple[Counts, str]:
    """Exact counts (ε None), a preview draw (rng given) or an OpenDP release (rng None)."""
    if epsilon is None:
        return counts, "none (non-private)"
    noise = noise_for(counts, epsilon)
    if rng is None:
        return release_counts(counts, noise), noise.describe() + " — OpenDP release"
    return noisy_counts(counts, noise, rng=rng), noise.describe() + " — NumPy preview, do not publish"


def _squeeze(x):
    x = np.asarray(x)
    return x[0] if x.shape and x.shape[0] == 1 else x


def _declared_groups(group, groups, epsilon, rng):
    """The label list a one-call function uses: declared, or read off the data when nothing is private.

    A release (OpenDP draw) of grouped counts needs the public, declared list (see :func:`count_matrix`);
    a non-private fit may read it off the data; a preview may too, with a warning (from :func:`count_matrix`).
    """
    if group is None or groups is not None:
        return groups
    if epsilon is None:
        return tuple(np.unique(np.asarray(group).astype(str)))
    if rng is None:
        raise InputError("a release needs the declared list of group labels (groups=[...]); reading them from "
                         "the data would let one person add or remove a group")
    return None


def _one_call(estimator: str, time, event, group, groups, grid, epsilon, rng, alpha, n_types, event_type=1,
              risk_set=DEFAULT_RISK_SET, statistic=DEFAULT_STATISTIC):
    groups = _declared_groups(group, groups, epsilon, rng)
    grid = _as_grid(grid, time)
    counts = count_matrix(time, event, grid, group=group, groups=groups, n_types=n_types, statistic=statistic)
    if estimator != "cif":
        counts = counts.collapse_types()
    noisy, desc = _noised(counts, epsilon, rng)
    cs = curve_for(postprocess(noisy, risk_set=risk_set), estimator, alpha=alpha, event_type=event_type)
    median = None
    if estimator == "km":  # where the curve read by the within-bin rule reaches 0.5 (inf: not reached)
        fine = fine_times(cs.times)
        median = _squeeze(first_below(fine, path(cs.times, cs.estimate, fine)))
    return SurvivalResult(estimator, cs.times, _squeeze(cs.estimate), _squeeze(cs.variance), _squeeze(cs.ci_lower),
                          _squeeze(cs.ci_upper), counts.groups, epsilon, desc, median, noisy)


def kaplan_meier(time, event, *, grid, epsilon: float | None = None, rng: np.random.Generator | None = None,
                 group=None, groups: Sequence[str] | None = None, alpha: float = 0.05,
                 risk_set: str = DEFAULT_RISK_SET, statistic: str = DEFAULT_STATISTIC) -> SurvivalResult:
    """Kaplan–Meier curve with log(−log) Greenwood interval on a public ``grid``.

    ``grid``: a :class:`Grid` (see :func:`make_grid`) or public edges.
    ``epsilon=None``: non-private (equals lifelines on the binned data).
    With ``epsilon`` and ``rng``: a NumPy preview draw; with ``rng=None``: a
    real OpenDP release (discrete Laplace, scale 2/ε on the histogram of bin × outcome, with or without
    ``group``; ``statistic="matrix"``: the paper's release, scale 4/ε with ``group``),
    which needs the declared label list ``groups`` (previews may infer it, with a warning).
    Any non-zero event code counts as an event. ``risk_set``: see :func:`postprocess`; ``statistic``: see
    :data:`STATISTICS`.

    >>> import numpy as np
    >>> from dpcore import survival as sv
    >>> time = np.array([2, 3, 3, 5, 8, 9, 12, 14, 4, 7])
    >>> event = np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1])
    >>> exact = sv.kaplan_meier(time, event, grid=[0, 5, 10, 15])
    >>> [round(float(s), 3) for s in exact.estimate]
    [1.0, 0.579, 0.322, 0.107]
    >>> preview = sv.kaplan_meier(time, event, grid=[0, 5, 10, 15], epsilon=1.0, rng=np.random.default_rng(0))
    >>> preview.noise.startswith("discrete Laplace noise, b = 2"), len(preview.estimate)
    (True, 4)
    """
    ev = (np.asarray(event) != 0).astype(np.int64)
    return _one_call("km", time, ev, group, groups, grid, epsilon, rng, alpha, 1, risk_set=risk_set,
                     statistic=statistic)


def nelson_aalen(time, event, *, grid, epsilon: float | None = None, rng: np.random.Generator | None = None,
                 group=None, groups: Sequence[str] | None = None, alpha: float = 0.05,
                 risk_set: str = DEFAULT_RISK_SET, statistic: str = DEFAULT_STATISTIC) -> SurvivalResult:
    """Nelson–Aalen cumulative hazard (as lifelines with ``nelson_aalen_smoothing=False``); see :func:`kaplan_meier`.

    >>> import numpy as np
    >>> from dpcore import survival as sv
    >>> time, event = np.array([2, 3, 3, 5, 8, 9, 12, 14, 4, 7]), np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1])
    >>> [round(float(h), 3) for h in sv.nelson_aalen(time, event, grid=[0, 5, 10, 15]).estimate]
    [0.0, 0.421, 0.865, 1.532]
    """
    ev = (np.asarray(event) != 0).astype(np.int64)
    return _one_call("na", time, ev, group, groups, grid, epsilon, rng, alpha, 1, risk_set=risk_set,
                     statistic=statistic)


def cumulative_incidence(time, event, *, grid, event_type: int = 1, n_types: int | None = None,
                         epsilon: float | None = None, rng: np.random.Generator | None = None, group=None,
                         groups: Sequence[str] | None = None, alpha: float = 0.05,
                         risk_set: str = DEFAULT_RISK_SET, statistic: str = DEFAULT_STATISTIC) -> SurvivalResult:
    """Aalen–Johansen cumulative incidence of ``event_type`` (codes 0 censored, 1..n_types).

    ``n_types`` is the public number of event types (default: ``max(2, event_type)``).

    >>> import numpy as np
    >>> from dpcore import survival as sv
    >>> time, event = np.array([2, 3, 3, 5, 8, 9, 12, 14, 4, 7]), np.array([1, 2, 0, 1, 0, 2, 1, 0, 1, 1])
    >>> [round(float(f), 3) for f in sv.cumulative_incidence(time, event, grid=[0, 5, 10, 15]).estimate]
    [0.0, 0.316, 0.444, 0.659]
    """
    K = int(n_types or max(2, event_type))
    return _one_call("cif", time, event, group, groups, grid, epsilon, rng, alpha, K, event_type, risk_set=risk_set,
                     statistic=statistic)


def logrank(time, event, group, *, grid, epsilon: float | None = None, rng: np.random.Generator | None = None,
            groups: Sequence[str] | None = None, risk_set: str = DEFAULT_RISK_SET,
            noise_aware: bool = True, statistic: str = DEFAULT_STATISTIC) -> LogrankResult:
    """Log-rank test (G ≥ 2 groups) from the groups' counts, released together (Δ1 = 2; 4 for the paper's matrix).

    ``noise_aware=True`` (default, the p-value to report) adds the known noise variance to the test's
    covariance (see :func:`logrank_test`): it keeps the false-positive rate near α at small ε, at the price
    of power. ``noise_aware=False`` is the spec's test, which treats noisy counts as real people and rejects
    far too often at small ε.

    >>> import numpy as np
    >>> from dpcore import survival as sv
    >>> time, event = np.array([2, 3, 3, 5, 8, 9, 12, 14, 4, 7]), np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1])
    >>> arm = np.array(["a", "b"] * 5)
    >>> round(sv.logrank(time, event, arm, grid=[0, 5, 10, 15]).p_value, 3)
    0.791
    """
    groups = _declared_groups(group, groups, epsilon, rng)
    grid = _as_grid(grid, time)
    ev = (np.asarray(event) != 0).astype(np.int64)
    counts = count_matrix(time, ev, grid, group=group, groups=groups, statistic=statistic)
    if counts.n_groups < 2:
        raise InputError("the log-rank test needs at least two groups")
    noisy, desc = _noised(counts, epsilon, rng)
    std = noise_for(counts, epsilon).std if epsilon is not None else 0.0
    res = logrank_test(logrank_table(noisy, std, risk_set=risk_set), noise_var=std**2 if noise_aware else 0.0)
    return LogrankResult(float(res.statistic), float(res.p_value), res.dof, counts.groups, epsilon, desc,
                         res.observed, res.expected)

"""The non-private reference a clinician would have computed: lifelines' Kaplan–Meier on the **exact** times.

Reads the private records, so it is for previews and benchmarks only: never exported, never part of a release.
It shows what a release costs in two parts (:func:`costs`): the grid alone (the same within-bin rule on the exact
binned counts, against lifelines on the exact times) and the noise (a release against that binned curve).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore.survival.grid import Grid
from dpcore.survival.read import fine_times, on_resolution, path


@dataclass(frozen=True)
class Reference:
    """lifelines' Kaplan–Meier of one group on the exact times, in the grid's display unit (a step function).

    ``times``/``survival``/``ci_lower``/``ci_upper``: its steps (time 0 first), cut at the horizon; ``median`` and
    ``median_ci`` (inf: not reached by the horizon); ``at_risk_share(t)``: the share still at risk.
    """

    group: str
    times: np.ndarray
    survival: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    median: float
    median_ci: tuple[float, float]
    n: int
    exact_times: np.ndarray

    def at(self, t) -> np.ndarray:
        """The step function at ``t`` (right-continuous, as lifelines reads it)."""
        i = np.searchsorted(self.times, np.asarray(t, float), side="right") - 1
        return self.survival[np.clip(i, 0, self.times.size - 1)]

    def band_at(self, t) -> tuple[np.ndarray, np.ndarray]:
        """Its pointwise interval (lifelines' exponential Greenwood) at ``t``."""
        i = np.clip(np.searchsorted(self.times, np.asarray(t, float), side="right") - 1, 0, self.times.size - 1)
        return self.ci_lower[i], self.ci_upper[i]

    def rmst(self, tau: float) -> float:
        """Restricted mean survival time to ``tau``: the area under the step function."""
        knots = np.append(self.times[self.times < tau], tau)
        return float(np.sum(np.diff(knots) * self.survival[: knots.size - 1]))

    def at_risk_share(self, t) -> np.ndarray:
        return (self.exact_times[None, :] >= np.atleast_1d(np.asarray(t, float))[:, None]).mean(1)


def lifelines_reference(time, event, grid: Grid, *, group=None, groups=None, alpha: float = 0.05) -> list[Reference]:
    """One :class:`Reference` per group (all people as ``"all"`` without groups); times after the horizon are
    censored at it, as in the release. Non-private: for the page's comparison and the benchmarks only."""
    from lifelines import KaplanMeierFitter  # a heavy import, needed only for the comparison
    from lifelines.utils import median_survival_times

    time = np.asarray(time, float)
    event = np.asarray(event) != 0
    event = event & (time <= grid.horizon)
    time = np.minimum(time, grid.horizon)
    labels = ("all",) if group is None else tuple(groups if groups is not None else np.unique(group))
    out = []
    for label in labels:
        mine = np.ones(time.size, bool) if group is None else (np.asarray(group).astype(str) == str(label))
        kmf = KaplanMeierFitter(alpha=alpha).fit(time[mine], event[mine])
        sf, ci = kmf.survival_function_, kmf.confidence_interval_
        t = sf.index.to_numpy(float) / grid.step
        med = float(kmf.median_survival_time_)
        m_ci = median_survival_times(ci).to_numpy(float).ravel()
        out.append(Reference(str(label), t, sf.iloc[:, 0].to_numpy(float), ci.iloc[:, 0].to_numpy(float),
                             ci.iloc[:, 1].to_numpy(float), med / grid.step if np.isfinite(med) else np.inf,
                             tuple(float(x) / grid.step if np.isfinite(x) else np.inf for x in m_ci), int(mine.sum()),
                             time[mine] / grid.step))
    return out


def costs(edges, private, binned, reference: Reference, *, min_share: float = 0.1,
          resolution: float | None = None) -> tuple[float, float]:
    """``(binning alone, noise)``: sup-norm gaps read by the within-bin rule at every point of the grid (edges and
    16 points per bin) where at least ``min_share`` of the group is still at risk — the exact binned curve against
    lifelines on the exact times, and the private curve against the exact binned one. With a declared
    ``resolution`` both curves are read as its staircase (:func:`on_resolution`), as a release reads them."""
    t = fine_times(edges, 16)
    t = t[reference.at_risk_share(t) >= min_share]
    if t.size == 0:
        return float("nan"), float("nan")
    read = on_resolution(t, resolution)
    b = path(edges, binned, read)
    return float(np.max(np.abs(b - reference.at(t)))), float(np.max(np.abs(path(edges, private, read) - b)))

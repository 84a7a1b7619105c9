"""Public inputs of DP survival analysis: the time grid, the estimator names, the neighbouring relation.

Everything here is fixed without looking at the data (a public horizon and bin width).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from dpcore.core.datasets import UNIT_DAYS
from dpcore.core.validation import InputError

Estimator = Literal["km", "na", "cif"]
ESTIMATORS: dict[str, str] = {
    "km": "Kaplan–Meier survival",
    "na": "Nelson–Aalen cumulative hazard",
    "cif": "cumulative incidence (competing risks)",
}
RELATION = "replace-one"


class GroupLabelsFromDataWarning(UserWarning):
    """A preview read its group labels off the data (which labels occur depends on who is in it)."""

# --------------------------------------------------------------------------
# The public grid
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """A public time grid ``0 = t_0 < t_1 < … < t_k = H``.

    ``edges`` are in the data's own time unit (``data_unit``); ``step`` is
    the length of one ``grid_unit`` in data units, so ``edges / step`` is
    the grid in display units. The grid must never come from the data's
    own event times (that set is private); build it with :func:`make_grid`
    from a unit and a public horizon.
    """

    edges: np.ndarray
    data_unit: str = "days"
    grid_unit: str = "days"
    step: float = 1.0
    width: float = 1.0

    def __post_init__(self):
        edges = np.asarray(self.edges, dtype=float)
        if edges.ndim != 1 or edges.size < 2:
            raise ValueError("a grid needs at least two edges (0 and the horizon)")
        if edges[0] != 0.0 or not np.all(np.diff(edges) > 0) or not np.isfinite(edges).all():
            raise ValueError("grid edges must start at 0 and increase strictly")
        object.__setattr__(self, "edges", edges)

    @property
    def horizon(self) -> float:
        return float(self.edges[-1])

    @property
    def k(self) -> int:
        """Number of bins."""
        return self.edges.size - 1

    @property
    def display(self) -> np.ndarray:
        """Edges in grid units (e.g. months), for axes and tables."""
        return self.edges / self.step

    def describe(self) -> str:
        return (f"{self.k} bins of {bin_width_text(self.width, self.grid_unit)} up to the horizon "
                f"H = {self.horizon:g} {self.data_unit} ({self.display[-1]:.4g} {self.grid_unit})")

    def public_params(self) -> dict:
        return {"grid_edges": self.edges.tolist(), "data_unit": self.data_unit, "grid_unit": self.grid_unit,
                "grid_step_in_data_units": self.step, "bin_width_in_grid_units": self.width, "horizon": self.horizon}


def bin_width_text(width: float, unit: str) -> str:
    """``"one month"``, ``"2 weeks"``."""
    return f"one {unit.rstrip('s')}" if width == 1 else f"{width:g} {unit}"


def make_grid(horizon: float, *, data_unit: str = "days", grid_unit: str | None = None, width: float = 1.0,
              max_bins: int = 20_000) -> Grid:
    """Equal-width public grid: bins of ``width`` ``grid_unit`` up to ``horizon`` (in ``data_unit``).

    The last bin is shortened so that the last edge is exactly the horizon. More than ``max_bins``
    bins is refused (the page uses a lower limit than notebooks, for speed).
    """
    grid_unit = grid_unit or data_unit
    if data_unit not in UNIT_DAYS or grid_unit not in UNIT_DAYS:
        raise InputError(f"time units must be one of {list(UNIT_DAYS)}")
    if not (np.isfinite(horizon) and horizon > 0):
        raise InputError(f"the horizon must be a positive number, got {horizon!r}")
    if not (np.isfinite(width) and width > 0):
        raise InputError(f"the bin width must be positive, got {width!r}")
    step = UNIT_DAYS[grid_unit] / UNIT_DAYS[data_unit]
    dt = step * width
    n_bins = max(1, int(math.ceil(horizon / dt - 1e-9)))
    if n_bins > max_bins:
        raise InputError(f"that grid has {n_bins:,} bins; use a coarser unit or a shorter horizon "
                         f"(at most {max_bins:,} bins)")
    edges = dt * np.arange(n_bins + 1, dtype=float)
    edges[-1] = float(horizon)
    return Grid(edges, data_unit, grid_unit, step, float(width))


#: Bin widths a default grid is chosen from, finest first: (width, unit). Neighbours differ by at most a factor 2
#: (up to a year), so the finest width with at most :data:`MAX_DEFAULT_BINS` bins gives more than half that many.
GRID_LADDER: tuple[tuple[int, str], ...] = (
    (1, "days"), (2, "days"), (3, "days"), (4, "days"), (1, "weeks"), (2, "weeks"), (3, "weeks"), (1, "months"),
    (2, "months"), (3, "months"), (6, "months"), (1, "years"), (2, "years"), (5, "years"))
MAX_DEFAULT_BINS = 40
MIN_DEFAULT_BINS = 6
#: The binning error of the within-bin rule (a constant hazard inside a bin: ``dpcore.survival.read``) is second
#: order, about ``BINNING_CONSTANT / k²``: measured as the largest gap at half-years between the rule on exact binned
#: counts and lifelines on the exact times, on yearly grids of nine public cohorts (``bench/bench_survival_read.py``):
#: 0.6–2.9 × 1/k², median 1.4; the rule takes the largest.
BINNING_CONSTANT = 3.0
#: The rule, in words, for the page and the docs.
GRID_RULE = (f"about k* = (2 · {BINNING_CONSTANT:g} · n per group · ε / (√2 · Δ1))^(2/5) bins, kept within "
             f"{MIN_DEFAULT_BINS}–{MAX_DEFAULT_BINS}: the width among 1, 2, 3 or 4 days, 1, 2 or 3 weeks, 1, 2, 3 or 6 "
             f"months, 1, 2 or 5 years whose number of bins over the horizon is nearest k*. It balances the binning "
             f"error of the curve read by a constant hazard inside each bin (about {BINNING_CONSTANT:g}/k²) against "
             f"the noise (about 2σ√k / n per group, σ = √2·Δ1/ε); without n and ε, the finest width with at most "
             f"{MAX_DEFAULT_BINS} bins")


def target_bins(n: int, epsilon: float, n_groups: int = 1) -> float:
    """The number of bins that balances binning error against noise (public inputs only): :data:`GRID_RULE`.

    The curve is read between edges by a constant hazard inside each bin, which misses a smooth curve by about
    ``c/k²`` (:data:`BINNING_CONSTANT`); the noise moves a curve estimated from ``k`` bins by about ``2σ√k / m``
    (``m = n / G`` people per group, ``σ = √2·Δ1/ε`` the noise of one bin's exits: every bin before ``t`` adds
    its noise to ``S(t)``). ``c/k² + 2σ√k/m`` is least at ``k* = (2c·m/σ)^(2/5)``, kept within
    :data:`MIN_DEFAULT_BINS`–:data:`MAX_DEFAULT_BINS`. (A step between edges misses by a bin's whole drop, about
    ``0.6/k``, which asked for ``(0.6 m/σ)^(2/3)``: about twice as many bins, so √2 times the noise at the median.)
    """
    delta1 = 2 if n_groups <= 1 else 4  # statistic.sensitivity (grid.py sits below statistic.py)
    sigma = math.sqrt(2.0) * delta1 / float(epsilon)
    k = (2.0 * BINNING_CONSTANT * (float(n) / max(1, int(n_groups))) / sigma) ** 0.4
    return float(min(MAX_DEFAULT_BINS, max(MIN_DEFAULT_BINS, k)))


def default_bin_width(horizon: float, data_unit: str = "days", *, n: int | None = None,
                      epsilon: float | None = None, n_groups: int = 1,
                      resolution: float | None = None) -> tuple[int, str]:
    """The default ``(width, grid_unit)`` for a public ``horizon`` (in ``data_unit``): :data:`GRID_RULE`.

    Every input is public: the horizon and unit, ``n`` (public under replace-one), the ε of the release and
    the number of declared groups — never the data's times. With ``n`` and ``epsilon`` the width whose number
    of bins is nearest :func:`target_bins` (in ratio) is chosen; without them, the finest width with at most
    :data:`MAX_DEFAULT_BINS` bins (too many empty bins is noise: one-day bins over a year made the private
    curve fall far too early).

    ``resolution`` (``data_unit``; public: the custodian's statement that times were recorded in whole units of
    it, e.g. whole years): the exact curve then steps only at its multiples, so bins of exactly that width have no
    binning error at all; they are chosen while :func:`target_bins` is at least half their number (the noise of
    at most twice the balanced number of bins), otherwise the rule's width among the multiples of it.
    """
    if data_unit not in UNIT_DAYS or not (np.isfinite(horizon) and horizon > 0):
        raise InputError(f"need a positive horizon and a unit among {list(UNIT_DAYS)}")
    days = horizon * UNIT_DAYS[data_unit]
    bins = [math.ceil(days / (width * UNIT_DAYS[unit]) - 1e-9) for width, unit in GRID_LADDER]
    if n is None or epsilon is None:
        fits = [rung for rung, k in zip(GRID_LADDER, bins) if k <= MAX_DEFAULT_BINS]
        return fits[0] if fits else GRID_LADDER[-1]
    target = target_bins(n, epsilon, n_groups)
    allowed = [i for i, k in enumerate(bins) if k <= MAX_DEFAULT_BINS] or [len(GRID_LADDER) - 1]
    if resolution is not None:
        recorded = resolution * UNIT_DAYS[data_unit]
        ratios = [width * UNIT_DAYS[unit] / recorded for width, unit in GRID_LADDER]
        exact = [i for i, r in enumerate(ratios) if abs(r - 1) < 1e-9]
        if exact and target >= bins[exact[0]] / 2:
            return GRID_LADDER[exact[0]]
        allowed = [i for i in allowed if abs(ratios[i] - round(ratios[i])) < 1e-9 and ratios[i] >= 1] or allowed
    return GRID_LADDER[min(allowed, key=lambda i: abs(math.log(bins[i] / target)))]


def points_grid(horizon: float, n_points: int, *, data_unit: str = "days") -> Grid:
    """``n_points`` equal bins up to ``horizon`` (for benchmarks and fine grids)."""
    edges = np.linspace(0.0, float(horizon), int(n_points) + 1)
    return Grid(edges, data_unit, data_unit, 1.0)


def bin_index(time, grid: Grid) -> np.ndarray:
    """0-based bin ``j`` with ``t_j < time ≤ t_{j+1}``; time 0 → bin 0; time > H → last bin."""
    time = np.asarray(time, dtype=float)
    idx = np.searchsorted(grid.edges, time, side="left") - 1
    return np.clip(idx, 0, grid.k - 1)


def binned_for_lifelines(time, event, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    """The binned data as lifelines should see it: right-edge times, ``time > H`` censored at ``H``.

    Only for the non-private comparison in tests and the reproduction script.
    """
    time = np.asarray(time, dtype=float)
    event = np.asarray(event).astype(np.int64)
    event = np.where(time > grid.horizon, 0, event)
    return grid.edges[bin_index(time, grid) + 1], event

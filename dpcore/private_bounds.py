"""A charged private choice of clipping ranges: a DP quantile per column over a public candidate grid.

Clipping ranges are public settings: a release's (ε, δ) is proved for ranges that do not depend on the private rows.
A custodian who does not know them would have to peek; this is the alternative, a release of its own (charged to
every person it reads, composed in the ledger like any release): for each of the k = d + 1 columns (the response and
the d features), the lower and upper ranges are the α_lo = (1 − coverage)/2 and α_hi = 1 − α_lo quantiles chosen by
the exponential mechanism over a public candidate grid (Smith 2011), drawn by OpenDP's ``make_private_quantile``
(report-noisy-max with exponential noise: permute-and-flip, McKenna & Sheldon 2020).

Public inputs: the declared outer range of each column (typed by the custodian from domain knowledge, never read
off the data), the grid of :data:`GRID_POINTS` evenly spaced candidates in it, the coverage, n (public under
replace-one) and ε_bounds.

**Sensitivity proof (replace-one).** For a candidate c and level α let L(c) = #{x_i < c}, G(c) = #{x_i > c} and
u(c) = −|(1 − α) L(c) − α G(c)| (0 at the α-quantile). One row adds (1 − α) to the inner sum if it lies below c, 0
at c and −α above: a value in [−α, 1 − α], an interval of length 1. Replacing the row moves the inner sum of every c
by at most 1, so |Δu(c)| ≤ 1 for all c at once, in any direction: Δ∞ = 1. Report-noisy-max with exponential noise of
scale 2Δ/ε_q is then ε_q-DP (McSherry & Talwar 2007; McKenna & Sheldon 2020); OpenDP's map of the measurement on
vectors of known size n states the same cost at d_in = 2 (replace-one is a symmetric distance of 2), checked on
every build.

**Composition.** One row is one person and touches every column, so the 2k quantiles are not disjoint: each gets
ε_q = ε_bounds / 2k and basic sequential composition of pure-ε mechanisms gives ε_bounds in total, δ = 0, under
replace-one. The ledger charges it as one pure-ε release (an (ε_bounds, 0) event), as the private choice of ε. Sorting
the two bounds of a column (and widening an empty range by one grid step) is post-processing.

A quantile near 0 or 1 is weakly identified: a candidate below every row scores only −α n, while one inside the data
loses about one point per row it passes, so with a small ε_q the lower bound falls mostly below the data (and the
upper above): the error is mostly outward, wider ranges and more noise in the release, seldom lost coverage
(``bench/results/private_bounds.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from dpcore.audit import AuditScenario, release_path

#: the quantile scores' L∞ sensitivity under replace-one (the module's proof)
SENSITIVITY = 1
#: candidates per column: the choice's error grows as log(points), the grid's resolution as 1/points
GRID_POINTS = 1001
#: shares of each column the ranges are meant to hold: 90 % by default, since the extreme quantiles need many rows
#: per quantile to be found privately (bench/results/private_bounds.md)
COVERAGES = (0.8, 0.9, 0.95, 0.98, 0.99)
DEFAULT_COVERAGE = 0.9


def levels(coverage: float) -> tuple[float, float]:
    """The quantile levels (α_lo, α_hi) of a coverage: the same share cut from each tail."""
    if not 0.0 < coverage < 1.0:
        raise ValueError("the coverage must lie strictly between 0 and 1")
    tail = (1.0 - float(coverage)) / 2.0
    return tail, 1.0 - tail


def candidate_grid(outer: Sequence[Sequence[float]], points: int = GRID_POINTS) -> np.ndarray:
    """``(k, points)`` candidates: each column's declared outer range (lo, hi) cut evenly (public: never the data)."""
    bounds = np.asarray(outer, dtype=float).reshape(-1, 2)
    if not (np.all(np.isfinite(bounds)) and np.all(bounds[:, 1] > bounds[:, 0])):
        raise ValueError("each declared outer range needs two finite numbers, the maximum above the minimum")
    if int(points) < 2:
        raise ValueError("a candidate grid needs at least two points")
    return np.linspace(bounds[:, 0], bounds[:, 1], int(points), axis=1)


def quantile_epsilon(epsilon: float, columns: int) -> float:
    """ε_q = ε_bounds / 2k: each of the 2k quantiles' share (basic composition)."""
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError("the choice's ε must be positive and finite")
    return float(epsilon) / (2 * int(columns))


def noise_scale(epsilon_q: float) -> float:
    """The exponential noise's scale 2Δ/ε_q for one ε_q-DP quantile."""
    return 2.0 * SENSITIVITY / float(epsilon_q)


def scores(values: np.ndarray, grid: np.ndarray, alphas: Sequence[float]) -> np.ndarray:
    """``(k, len(alphas), m)`` scores u(c) of every column's candidates for each level (the module's proof)."""
    values = np.asarray(values, dtype=float)
    ordered = np.sort(values, axis=0)
    n = values.shape[0]
    below = np.stack([np.searchsorted(ordered[:, j], grid[j], side="left") for j in range(grid.shape[0])])
    above = n - np.stack([np.searchsorted(ordered[:, j], grid[j], side="right") for j in range(grid.shape[0])])
    a = np.asarray(alphas, dtype=float)[None, :, None]
    return -np.abs((1.0 - a) * below[:, None, :] - a * above[:, None, :])


def _ordered(grid: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds from chosen indices (``(..., k)`` each): sorted, an empty range widened by one grid step
    (post-processing)."""
    lo, hi = np.minimum(lower, upper), np.maximum(lower, upper)
    top = grid.shape[1] - 1
    same = lo == hi
    hi = np.where(same & (hi < top), hi + 1, hi)
    lo = np.where(same & (lo == top), lo - 1, lo)
    cols = np.arange(grid.shape[0])
    return grid[cols, lo], grid[cols, hi]


def preview_ranges(values, outer, *, epsilon: float, coverage: float = DEFAULT_COVERAGE, points: int = GRID_POINTS,
                   rng: np.random.Generator, draws: int, scale_factor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` choices as :func:`choose_ranges` makes them (the same law, seeded NumPy, all draws at once: audits
    and the bench): ``(draws, k)`` lower and upper bounds. ``scale_factor`` plants a bug for audits."""
    values = np.asarray(values, dtype=float)
    grid = candidate_grid(outer, points)
    u = scores(values, grid, levels(coverage))
    scale = noise_scale(quantile_epsilon(epsilon, grid.shape[0])) * scale_factor
    chosen = np.argmax(u + rng.exponential(scale, size=(int(draws),) + u.shape), axis=-1)
    return _ordered(grid, chosen[..., 0], chosen[..., 1])


@lru_cache(maxsize=256)
def _quantile(n: int, candidates: tuple[float, ...], alpha: float, epsilon_q: float):
    """OpenDP's private quantile on vectors of n floats, whose privacy map confirms ε_q at replace-one (d_in = 2).
    Built once per setting: a build costs about a millisecond, a draw a fifth of one."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=int(n))
    measurement = dp.m.make_private_quantile(domain, dp.symmetric_distance(), dp.max_divergence(), list(candidates),
                                             alpha, scale=noise_scale(epsilon_q))
    if measurement.map(2) > epsilon_q * (1 + 1e-9):
        raise RuntimeError("OpenDP states a larger cost for this quantile than claimed")
    return measurement


@dataclass(frozen=True)
class PrivateRanges:
    """What a charged private choice of ranges released: each column's (lower, upper) and what the choice read and
    cost. The quantiles' scores are never kept."""

    names: tuple[str, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    coverage: float
    outer: tuple[tuple[float, float], ...]
    points: int
    epsilon: float

    @property
    def quantiles(self) -> int:
        return 2 * len(self.names)

    def public_params(self) -> dict:
        """The choice's public inputs, for its ledger record and bundle."""
        lo, hi = levels(self.coverage)
        return {"columns": list(self.names), "coverage": self.coverage, "quantile levels": [lo, hi],
                "declared outer ranges": [list(b) for b in self.outer], "grid points per column": self.points,
                "ε per quantile": quantile_epsilon(self.epsilon, len(self.names)),
                "composition": f"basic: {self.quantiles} pure-ε quantiles of one person's row, replace-one"}

    def summary(self) -> str:
        lo, hi = levels(self.coverage)
        return (f"the ranges of {len(self.names)} columns chosen by a private selection of their {lo:g} and {hi:g} "
                f"quantiles over public grids of {self.points} points, charged ε = {self.epsilon:g}")


def choose_ranges(values, outer, *, epsilon: float, coverage: float = DEFAULT_COVERAGE, points: int = GRID_POINTS,
                  names: Sequence[str] | None = None) -> PrivateRanges:
    """Each column's range, chosen privately at total cost ``epsilon`` (release path: OpenDP's sampler, one draw per
    quantile). ``values``: ``(n, k)``, the columns read (response first); ``outer``: k declared outer ranges.
    Charge it before calling: the quantiles read the private rows."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or not np.all(np.isfinite(values)):
        raise ValueError("the columns must be a finite (rows × columns) table")
    grid = candidate_grid(outer, points)
    k = grid.shape[0]
    if values.shape[1] != k:
        raise ValueError(f"{values.shape[1]} columns but {k} declared outer ranges")
    eps_q = quantile_epsilon(epsilon, k)
    picked = np.empty((k, 2), dtype=np.int64)
    for j in range(k):  # one OpenDP draw per quantile: 2k draws, the release's only randomness
        column, candidates = [float(v) for v in values[:, j]], tuple(float(c) for c in grid[j])
        for side, alpha in enumerate(levels(coverage)):
            chosen = _quantile(values.shape[0], candidates, alpha, eps_q)(column)
            picked[j, side] = int(np.argmin(np.abs(grid[j] - chosen)))
    lower, upper = _ordered(grid, picked[:, 0], picked[:, 1])
    names = tuple(names) if names is not None else tuple(f"column {j + 1}" for j in range(k))
    return PrivateRanges(names, tuple(map(float, lower)), tuple(map(float, upper)), float(coverage),
                         tuple((float(a), float(b)) for a, b in np.asarray(outer, dtype=float).reshape(-1, 2)),
                         int(points), float(epsilon))


# -- audit --------------------------------------------------------------------------------------------------------------
#: the audit's columns (a response and two features), rows, coverage and grid: candidates 0, 1, 2, 3 in every column
AUDIT_COLUMNS = 3
AUDIT_COVERAGE = 0.8
AUDIT_OUTER = (0.0, 3.0)
AUDIT_POINTS = 4


def audit_pair() -> tuple[np.ndarray, np.ndarray]:
    """Neighbouring tables of 20 rows differing in one row, which sits below every candidate in A (−1 in every
    column) and above every one in B (4): in each column 19 rows lie at 0.5 (2), 1.5 (15) and 2.5 (2), so that both
    quantiles (0.1 and 0.9) sit between two candidates and the row moves every score difference by the full 2Δ
    toward the upper candidate — in all 2k quantiles at once."""
    others = np.repeat([0.5, 1.5, 2.5], [2, 15, 2])
    a = np.column_stack([np.append(others, -1.0)] * AUDIT_COLUMNS)
    b = a.copy()
    b[-1] = 4.0
    return a, b


def audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """The private choice of ranges with its selection step: the quantiles drawn on two neighbouring tables, the
    summary the sum of every released bound (one person moves all 2k of them). The planted bug gives each quantile
    the whole ε instead of its share ε / 2k: a per-quantile guarantee, not a per-release one."""
    a, b = audit_pair()
    tables = {"A": a, "B": b}
    outer = [AUDIT_OUTER] * AUDIT_COLUMNS
    split = 2 * AUDIT_COLUMNS

    def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
        if rng is None:  # the release path: OpenDP's sampler, one choice per run
            cost = epsilon * split if planted_bug else epsilon
            return np.array([sum(r.lower) + sum(r.upper) for r in (
                choose_ranges(tables[which], outer, epsilon=cost, coverage=AUDIT_COVERAGE, points=AUDIT_POINTS)
                for _ in range(draws))])
        lower, upper = preview_ranges(tables[which], outer, epsilon=epsilon, coverage=AUDIT_COVERAGE,
                                      points=AUDIT_POINTS, rng=rng, draws=draws,
                                      scale_factor=1.0 / split if planted_bug else 1.0)
        return lower.sum(axis=1) + upper.sum(axis=1)

    return [AuditScenario(
        method="Private choice of clipping ranges", name="one row at the boundary of every quantile",
        neighbours=f"20 rows × {AUDIT_COLUMNS} columns; one row replaced, from below every candidate in every "
                   "column to above every one",
        summary="the sum of all released bounds", claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler,
        planted_bug_label="each quantile given the whole ε, not its share",
        reveal="without noise, in every column: on A the lower bound ties between 0 and 1 and the upper is 2; on B "
               "the lower is 1 and the upper ties between 2 and 3",
        release_sampler=release_path(sampler))]

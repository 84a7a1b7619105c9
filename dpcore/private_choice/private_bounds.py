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

**One bound per kind (the sparse page's K and r).** A bound K on every |x_ij| and r on |y_i| needs one quantile each,
not two per column: the ``coverage`` quantiles of the row's largest magnitude m_i = max_j |x_ij| and of |y_i|
(:func:`magnitudes`, :func:`choose_bounds`). Proof: m_i and |y_i| are functions of row i alone, so replacing one
person's row replaces one value in each of the two columns, and the proof above gives Δ∞ = 1 for each quantile's
scores; ε/2 each by basic composition, ε in total, δ = 0. Each bound gets d + 1 times the share a range of the
regression's 2(d + 1) quantiles would.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from dpcore.core.audit import AuditScenario, release_path
from dpcore.core.mechanisms import check_budget

#: the quantile scores' L∞ sensitivity under replace-one (the module's proof)
SENSITIVITY = 1
#: candidates per column: the choice's error grows as log(points), the grid's resolution as 1/points
GRID_POINTS = 1001
#: shares of each column the ranges are meant to hold: 90 % by default, since the extreme quantiles need many rows
#: per quantile to be found privately (bench/results/private_bounds.md)
COVERAGES = (0.8, 0.9, 0.95, 0.98, 0.99)
DEFAULT_COVERAGE = 0.9


def level(coverage: float) -> float:
    """A one-sided bound's quantile level: the coverage itself, checked."""
    if not 0.0 < coverage < 1.0:
        raise ValueError("the coverage must lie strictly between 0 and 1")
    return float(coverage)


def levels(coverage: float) -> tuple[float, float]:
    """The quantile levels (α_lo, α_hi) of a coverage: the same share cut from each tail."""
    tail = (1.0 - level(coverage)) / 2.0
    return tail, 1.0 - tail


def candidate_grid(outer: Sequence[Sequence[float]], points: int = GRID_POINTS) -> np.ndarray:
    """``(k, points)`` candidates: each column's declared outer range (lo, hi) cut evenly (public: never the data)."""
    bounds = np.asarray(outer, dtype=float).reshape(-1, 2)
    if not (np.all(np.isfinite(bounds)) and np.all(bounds[:, 1] > bounds[:, 0])):
        raise ValueError("each declared outer range needs two finite numbers, the maximum above the minimum")
    if int(points) < 2:
        raise ValueError("a candidate grid needs at least two points")
    return np.linspace(bounds[:, 0], bounds[:, 1], int(points), axis=1)


def quantile_epsilon(epsilon: float, columns: int, sides: int = 2) -> float:
    """ε_q = ε_bounds / (sides · k): each quantile's share (basic composition): two per range, one per bound."""
    check_budget(epsilon, what="the choice")
    return float(epsilon) / (int(sides) * int(columns))


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


def _preview_picks(values, grid: np.ndarray, alphas: Sequence[float], epsilon_q: float, rng: np.random.Generator,
                   draws: int, scale_factor: float) -> np.ndarray:
    """``(draws, k, len(alphas))`` chosen grid indices, report-noisy-max with exponential noise in NumPy: the law
    OpenDP's sampler draws from (tested), all draws at once."""
    u = scores(values, grid, alphas)
    return np.argmax(u + rng.exponential(noise_scale(epsilon_q) * scale_factor, size=(int(draws),) + u.shape), axis=-1)


def _release_picks(values: np.ndarray, grid: np.ndarray, alphas: Sequence[float], epsilon_q: float) -> np.ndarray:
    """``(k, len(alphas))`` chosen grid indices, one OpenDP draw per quantile: the release's only randomness."""
    picked = np.empty((grid.shape[0], len(alphas)), dtype=np.int64)
    for j in range(grid.shape[0]):
        column, candidates = [float(v) for v in values[:, j]], tuple(float(c) for c in grid[j])
        for side, alpha in enumerate(alphas):
            chosen = _quantile(values.shape[0], candidates, alpha, epsilon_q)(column)
            picked[j, side] = int(np.argmin(np.abs(grid[j] - chosen)))
    return picked


def _checked(values, outer, points: int) -> tuple[np.ndarray, np.ndarray]:
    """The table read (finite, rows × columns) and its candidate grid, one declared outer range per column."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or not np.all(np.isfinite(values)):
        raise ValueError("the columns must be a finite (rows × columns) table")
    grid = candidate_grid(outer, points)
    if values.shape[1] != grid.shape[0]:
        raise ValueError(f"{values.shape[1]} columns but {grid.shape[0]} declared outer ranges")
    return values, grid


def preview_ranges(values, outer, *, epsilon: float, coverage: float = DEFAULT_COVERAGE, points: int = GRID_POINTS,
                   rng: np.random.Generator, draws: int, scale_factor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` choices as :func:`choose_ranges` makes them (the same law, seeded NumPy, all draws at once: audits
    and the bench): ``(draws, k)`` lower and upper bounds. ``scale_factor`` plants a bug for audits."""
    values, grid = _checked(values, outer, points)
    chosen = _preview_picks(values, grid, levels(coverage), quantile_epsilon(epsilon, grid.shape[0]), rng, draws,
                            scale_factor)
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

    def table(self) -> dict[str, list]:
        """The released ranges, one row per column."""
        return {"column": list(self.names), "lower": list(self.lower), "upper": list(self.upper)}

    def summary(self) -> str:
        lo, hi = levels(self.coverage)
        return (f"the ranges of {len(self.names)} columns chosen by a private selection of their {lo:g} and {hi:g} "
                f"quantiles over public grids of {self.points} points, charged ε = {self.epsilon:g}")


def choose_ranges(values, outer, *, epsilon: float, coverage: float = DEFAULT_COVERAGE, points: int = GRID_POINTS,
                  names: Sequence[str] | None = None) -> PrivateRanges:
    """Each column's range, chosen privately at total cost ``epsilon`` (release path: OpenDP's sampler, one draw per
    quantile). ``values``: ``(n, k)``, the columns read (response first); ``outer``: k declared outer ranges.
    Charge it before calling: the quantiles read the private rows."""
    values, grid = _checked(values, outer, points)
    k = grid.shape[0]
    picked = _release_picks(values, grid, levels(coverage), quantile_epsilon(epsilon, k))
    lower, upper = _ordered(grid, picked[:, 0], picked[:, 1])
    names = tuple(names) if names is not None else tuple(f"column {j + 1}" for j in range(k))
    return PrivateRanges(names, tuple(map(float, lower)), tuple(map(float, upper)), float(coverage),
                         tuple((float(a), float(b)) for a, b in np.asarray(outer, dtype=float).reshape(-1, 2)),
                         int(points), float(epsilon))


# -- one bound per kind: the sparse page's K and r ----------------------------------------------------------------------
def magnitudes(X, y=None) -> np.ndarray:
    """``(n, 1 or 2)``: each row's largest |feature| (what K must bound) and, with a response, its |y| (r). Each is a
    function of its own row alone: replacing one person's row replaces one value of each column (the module's
    proof)."""
    X = np.asarray(X, dtype=float)
    columns = [np.abs(X).max(axis=1)] + ([] if y is None else [np.abs(np.asarray(y, dtype=float))])
    return np.column_stack(columns)


@dataclass(frozen=True)
class PrivateBounds:
    """What a charged private choice of bounds released: each bound (a ``coverage`` quantile of its magnitudes) and
    what the choice read and cost."""

    names: tuple[str, ...]
    bounds: tuple[float, ...]
    coverage: float
    outer: tuple[tuple[float, float], ...]
    points: int
    epsilon: float

    @property
    def quantiles(self) -> int:
        return len(self.names)

    def public_params(self) -> dict:
        """The choice's public inputs, for its ledger record and bundle."""
        return {"bounds": list(self.names), "coverage": self.coverage, "quantile level": self.coverage,
                "declared outer ranges": [list(b) for b in self.outer], "grid points per bound": self.points,
                "ε per quantile": quantile_epsilon(self.epsilon, len(self.names), sides=1),
                "composition": f"basic: {self.quantiles} pure-ε quantiles of one person's row, replace-one"}

    def table(self) -> dict[str, list]:
        """The released bounds, one row per bound."""
        return {"bound": list(self.names), "value": list(self.bounds)}

    def summary(self) -> str:
        return (f"the bounds {', '.join(self.names)} chosen by a private selection of the {self.coverage:g} quantile "
                f"of each row's magnitudes over public grids of {self.points} points, charged ε = {self.epsilon:g}")


def preview_bounds(values, outer, *, epsilon: float, coverage: float = DEFAULT_COVERAGE, points: int = GRID_POINTS,
                   rng: np.random.Generator, draws: int, scale_factor: float = 1.0) -> np.ndarray:
    """``draws`` choices as :func:`choose_bounds` makes them (seeded NumPy, the same law): ``(draws, k)`` bounds.
    ``values``: :func:`magnitudes`. ``scale_factor`` plants a bug for audits."""
    values, grid = _checked(values, outer, points)
    chosen = _preview_picks(values, grid, (level(coverage),), quantile_epsilon(epsilon, grid.shape[0], sides=1), rng,
                            draws, scale_factor)
    return grid[np.arange(grid.shape[0]), chosen[..., 0]]


def choose_bounds(values, outer, *, epsilon: float, coverage: float = DEFAULT_COVERAGE, points: int = GRID_POINTS,
                  names: Sequence[str] | None = None) -> PrivateBounds:
    """Each bound, chosen privately at total cost ``epsilon`` (release path: one OpenDP draw per bound).
    ``values``: :func:`magnitudes` of the rows read; ``outer``: each bound's declared (smallest, largest) candidate.
    Charge it before calling: the quantiles read the private rows."""
    values, grid = _checked(values, outer, points)
    k = grid.shape[0]
    picked = _release_picks(values, grid, (level(coverage),), quantile_epsilon(epsilon, k, sides=1))[:, 0]
    names = tuple(names) if names is not None else tuple(f"bound {j + 1}" for j in range(k))
    return PrivateBounds(names, tuple(float(grid[j, i]) for j, i in enumerate(picked)), float(coverage),
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


#: the bounds' audit: features per row, coverage (level) and rows below, at and above the 0.9 quantile's two candidates
AUDIT_FEATURES = 3
AUDIT_BOUND_COVERAGE = 0.9


def audit_bounds_pair() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Neighbouring (X, y) of 20 rows differing in one row, 0 in every feature and the response in A and 4 (above
    every candidate 0, 1, 2, 3) in B: it moves the row's largest |x| and its |y| at once. The 19 others have
    magnitudes 1.5 (17 rows) and 2.5 (2), signs mixed, so that in both quantiles (level 0.9) the replaced row moves the
    score gap between candidates 2 and 3 by the full 2Δ."""
    sizes = np.repeat([1.5, 2.5], [17, 2])
    signs = np.where(np.arange(sizes.size) % 2, -1.0, 1.0)
    features = np.column_stack([signs * sizes] + [signs * sizes / (j + 2) for j in range(AUDIT_FEATURES - 1)])
    xa, ya = np.vstack([features, np.zeros(AUDIT_FEATURES)]), np.append(-signs * sizes, 0.0)
    xb, yb = xa.copy(), ya.copy()
    xb[-1], yb[-1] = 4.0, 4.0
    return (xa, ya), (xb, yb)


def _bounds_scenario(epsilon: float) -> AuditScenario:
    """The private choice of K and r with its selection step, from the raw rows (the row maximum is part of what is
    audited); the summary K + r. The planted bug gives each bound the whole ε instead of its half."""
    a, b = audit_bounds_pair()
    tables = {"A": magnitudes(*a), "B": magnitudes(*b)}
    outer = [AUDIT_OUTER] * 2

    def sampler(which: str, planted_bug: bool, rng: np.random.Generator | None, draws: int) -> np.ndarray:
        if rng is None:  # the release path: OpenDP's sampler, one choice per run
            return np.array([sum(choose_bounds(tables[which], outer, epsilon=epsilon * (2 if planted_bug else 1),
                                               coverage=AUDIT_BOUND_COVERAGE, points=AUDIT_POINTS).bounds)
                             for _ in range(draws)])
        return preview_bounds(tables[which], outer, epsilon=epsilon, coverage=AUDIT_BOUND_COVERAGE,
                              points=AUDIT_POINTS, rng=rng, draws=draws,
                              scale_factor=0.5 if planted_bug else 1.0).sum(axis=1)

    return AuditScenario(
        method="Private choice of clipping ranges", name="K and r: one row moves its largest |x| and its |y|",
        neighbours=f"20 rows × {AUDIT_FEATURES} features and a response; one row replaced, from 0 everywhere to "
                   "above every candidate in every feature and the response",
        summary="K + r", claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler,
        planted_bug_label="each bound given the whole ε, not its half",
        reveal="without noise, for both K and r: on A the bound is 2; on B it ties between 2 and 3",
        release_sampler=release_path(sampler))


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
        release_sampler=release_path(sampler)), _bounds_scenario(epsilon)]

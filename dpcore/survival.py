"""Differentially private survival analysis on a public time grid.

Specification: ``shared/docs/survival.md`` (Gondara & Wang, "Differentially
Private Survival Function Estimation", with the spec's fixes: a public grid
and censoring counts). Three stages, as every dpcore method:

1. **statistic** — :func:`count_matrix`: per group, the number of people at
   the start ``r_1`` and, per grid bin, the events of each type and the
   censorings. L1 sensitivity 2 (one group) or 4 (several groups released
   together) under replace-one — see :func:`sensitivity`.
2. **mechanism** — :func:`noisy_counts` (preview, NumPy, vectorised over R
   draws) or :func:`release_counts` (one OpenDP discrete-Laplace draw); both
   through the shared :class:`dpcore.mechanisms.Noise`.
3. **post-processing** — :func:`postprocess` (clip at 0, risk-set recursion
   with censorings, events clipped to the risk set) and the estimators
   :func:`km`, :func:`nelson_aalen_curve`, :func:`incidence_curve`,
   :func:`logrank_test`, :func:`noise_band`. Run on the exact counts they give
   the non-private reference — equal to lifelines on the binned data.

Every array function accepts leading "draw" axes (``(..., G, k)``), so R
noisy releases, or an ε sweep × R releases, go through one vectorised pass.

One-call functions for notebooks: :func:`kaplan_meier`, :func:`nelson_aalen`,
:func:`cumulative_incidence`, :func:`logrank`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from dpcore.audit import AuditScenario
from dpcore.datasets import UNIT_DAYS
from dpcore.mechanisms import Noise, discrete_laplace_noise, laplace_noise, sample_sweep
from dpcore.validation import InputError

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
        return (f"{self.k} bins of one {self.grid_unit.rstrip('s')} up to the horizon "
                f"H = {self.horizon:g} {self.data_unit} ({self.display[-1]:.4g} {self.grid_unit})")

    def public_params(self) -> dict:
        return {"grid_edges": self.edges.tolist(), "data_unit": self.data_unit, "grid_unit": self.grid_unit,
                "grid_step_in_data_units": self.step, "horizon": self.horizon}


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
    return Grid(edges, data_unit, grid_unit, step)


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


# --------------------------------------------------------------------------
# Stage 1: the count matrix and its sensitivity
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    """Count matrices of G groups on a grid (exact, noisy, or R stacked noisy draws).

    ``at_start`` (..., G): people at risk at time 0 (``r_1``); ``events``
    (..., G, k, K): events of type 1..K per bin; ``censored`` (..., G, k).
    Leading axes are Monte-Carlo draws (and ε values in a sweep).
    """

    at_start: np.ndarray
    events: np.ndarray
    censored: np.ndarray
    grid: Grid
    groups: tuple[str, ...] = ("all",)
    event_labels: tuple[str, ...] = ("event",)

    @property
    def n_groups(self) -> int:
        return len(self.groups)

    @property
    def n_types(self) -> int:
        return len(self.event_labels)

    def vector(self) -> np.ndarray:
        """The released matrix M per group, flattened: ``(..., G, 1 + k(K+1))``."""
        lead = self.censored.shape[:-1]
        cells = np.concatenate([self.events, self.censored[..., None]], axis=-1).reshape(lead + (-1,))
        return np.concatenate([self.at_start[..., None], cells], axis=-1)

    def from_vector(self, vec: np.ndarray) -> "Counts":
        """Counts with the same grid/labels from a (possibly noisy, possibly stacked) vector."""
        k, K = self.grid.k, self.n_types
        cells = vec[..., 1:].reshape(vec.shape[:-1] + (k, K + 1))
        return Counts(vec[..., 0], cells[..., :K], cells[..., K], self.grid, self.groups, self.event_labels)

    def pooled(self) -> "Counts":
        """All groups summed (post-processing when applied to released counts)."""
        return Counts(self.at_start.sum(-1, keepdims=True), self.events.sum(-3, keepdims=True),
                      self.censored.sum(-2, keepdims=True), self.grid, ("all",), self.event_labels)

    def collapse_types(self) -> "Counts":
        """Events of any type as one type (for KM / Nelson–Aalen / log-rank)."""
        if self.n_types == 1:
            return self
        return Counts(self.at_start, self.events.sum(-1, keepdims=True), self.censored, self.grid, self.groups,
                      ("any event",))


def count_matrix(time, event, grid: Grid, *, group=None, groups: Sequence[str] | None = None,
                 n_types: int = 1, event_labels: Sequence[str] | None = None) -> Counts:
    """Exact count matrix per group on the public grid (stage 1).

    ``event``: 0 = censored, 1..``n_types`` = event type (``n_types`` is
    public: the declared coding). ``groups`` is the public list of group
    labels; records with a label outside it are refused. Subjects with
    ``time > H`` are censored at ``H`` (last bin).

    Without ``groups`` the labels are read off the data, with a
    :class:`GroupLabelsFromDataWarning`: which labels occur is itself private
    (a group with one member appears or vanishes with that person, changing
    the released table's shape), so :func:`release` and OpenDP draws refuse it
    — only previews may infer labels.
    """
    time = np.asarray(time, dtype=float)
    event = np.asarray(event)
    if time.ndim != 1 or time.shape != event.shape:
        raise InputError("time and event must be one-dimensional and of the same length")
    if time.size == 0:
        raise InputError("no records")
    if not np.isfinite(time).all() or (time < 0).any():
        raise InputError("times must be finite and non-negative")
    if not np.all(event == np.round(event)) or event.min() < 0 or event.max() > n_types:
        raise InputError(f"event codes must be 0 (censored) or 1..{n_types}")
    event = event.astype(np.int64)
    if group is None:
        gidx = np.zeros(time.size, dtype=np.int64)
        groups = ("all",)
    else:
        group = np.asarray(group).astype(str)
        if group.shape != time.shape:
            raise InputError("group must have one label per record")
        if groups is None:
            warnings.warn("group labels were read from the data: fine for a preview, but a release needs the "
                          "declared list of labels (pass groups=...)", GroupLabelsFromDataWarning, stacklevel=2)
            groups = np.unique(group)
        groups = tuple(str(g) for g in groups)
        gidx = pd.Categorical(group, categories=list(groups)).codes.astype(np.int64)
        if (gidx < 0).any():
            bad = group[int(np.argmax(gidx < 0))]
            raise InputError(f"group label {bad!r} is not among the declared groups {list(groups)}")
    G, k, K = len(groups), grid.k, int(n_types)
    j = bin_index(time, grid)
    kind = np.where(time > grid.horizon, 0, event)  # 0 censored, 1..K event type
    # one bincount over (group, bin, column) with column K meaning "censored"
    col = np.where(kind == 0, K, kind - 1)
    flat = np.bincount((gidx * k + j) * (K + 1) + col, minlength=G * k * (K + 1)).reshape(G, k, K + 1)
    at_start = np.bincount(gidx, minlength=G).astype(np.int64)
    labels = tuple(event_labels) if event_labels is not None else (
        ("event",) if K == 1 else tuple(f"type {i}" for i in range(1, K + 1)))
    return Counts(at_start, flat[..., :K].astype(np.int64), flat[..., K].astype(np.int64), grid, tuple(groups), labels)


@dataclass(frozen=True)
class MappedData:
    """An uploaded table mapped to the survival roles, validated."""

    time: np.ndarray
    event: np.ndarray
    group: np.ndarray | None
    groups: tuple[str, ...] | None
    event_labels: tuple[str, ...]


def survival_from_frame(frame: pd.DataFrame, *, time_col: str, event_col: str, group_col: str | None = None,
                        group_labels: Sequence[str] | None = None, n_types: int = 1, max_groups: int = 8) -> MappedData:
    """Validate an uploaded frame's columns for survival analysis (named errors, nothing stored).

    Times must be finite and non-negative; event codes in ``0..n_types`` (0
    = censored; the coding is declared by the user, i.e. public). With a
    group column, the user declares the group labels (public, e.g. the
    trial's arms): the set of labels found in a file depends on who is in
    it, so it is never read off the data, and a row with an undeclared
    label is refused.
    """
    from dpcore.validation import declared_category_column, distinct_columns, numeric_column, role_code_column

    distinct_columns(time_col, event_col, group_col)
    if not 1 <= int(n_types) <= 9:
        raise InputError("the number of event types must be between 1 and 9")
    time = numeric_column(frame, time_col, minimum=0, what="time")
    event = role_code_column(frame, event_col, list(range(int(n_types) + 1)), role="event")
    group = groups = None
    if group_col:
        if not group_labels:
            raise InputError(f"Declare the group labels of column {group_col!r} (comma-separated, e.g. 'A, B').")
        declared = list(dict.fromkeys(str(g).strip() for g in group_labels if str(g).strip()))
        if len(declared) > max_groups:
            raise InputError(f"{len(declared)} groups declared; at most {max_groups} are supported.")
        group = declared_category_column(frame, group_col, declared)
        groups = tuple(declared)
    labels = ("event",) if n_types == 1 else tuple(f"type {k}" for k in range(1, int(n_types) + 1))
    return MappedData(time, event, group, groups, labels)


def sensitivity(n_groups: int = 1, relation: str = RELATION) -> int:
    """L1 sensitivity of the released matrices (all groups stacked).

    Replace-one, one group: the replaced person leaves one cell (event or
    censoring in some bin) and the new one enters one cell; ``r_1 = n`` is
    unchanged, so ``‖M − M'‖1 ≤ 1 + 1 = 2``.
    Replace-one, G ≥ 2 groups released together: the old person leaves group
    a (``r_1^a`` −1 and one cell −1), the new one joins group b (``r_1^b`` +1
    and one cell +1): ``‖ΔM‖1 ≤ 4`` (2 when a = b).
    Add/remove-one: ``r_1`` of one group and one cell change by 1: 2.
    """
    if relation == "add/remove-one":
        return 2
    if relation != "replace-one":
        raise ValueError(f"unknown neighbouring relation {relation!r}")
    return 2 if n_groups <= 1 else 4


def survival_noise(epsilon: float, n_groups: int = 1, *, kind: str = "discrete_laplace") -> Noise:
    """The calibrated mechanism for the matrices of ``n_groups`` groups (scale Δ1/ε)."""
    delta1 = sensitivity(n_groups)
    if kind == "discrete_laplace":
        return discrete_laplace_noise(delta1, epsilon)
    if kind == "laplace":
        return laplace_noise(delta1, epsilon)
    raise ValueError(f"survival counts use Laplace or discrete Laplace noise, not {kind!r}")


# --------------------------------------------------------------------------
# Stage 2: noise
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# Stage 3: post-processing and estimators
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RiskTable:
    """Post-processed table: ``at_risk`` (..., G, k) and ``events`` (..., G, k, K), floats."""

    at_risk: np.ndarray
    events: np.ndarray
    censored: np.ndarray
    grid: Grid
    groups: tuple[str, ...]
    event_labels: tuple[str, ...]

    @property
    def deaths(self) -> np.ndarray:
        """All-cause events per bin (..., G, k)."""
        return self.events.sum(-1)

    def pooled(self) -> "RiskTable":
        return RiskTable(self.at_risk.sum(-2, keepdims=True), self.events.sum(-3, keepdims=True),
                         self.censored.sum(-2, keepdims=True), self.grid, ("all",), self.event_labels)


def postprocess(counts: Counts, *, risk_set: str = "spec") -> RiskTable:
    """Spec post-processing (free): clip at 0; ``r_j = max(0, r_{j−1} − Σ_k d_{j−1} − c_{j−1})``;
    clip the events of a bin to the number at risk (types scaled proportionally).

    Because the subtracted counts are ≥ 0 after clipping, the clipped
    recursion equals ``max(0, r_1 − cumsum(removed))``, which vectorises.
    On exact counts this is the ordinary risk-set table.

    ``risk_set="running"`` is an optional alternative (not in the spec, also
    free post-processing): the risk set subtracts the *unclipped* noisy
    counts (zero-mean noise, so no drift from clipping many empty cells),
    then is clipped at 0 and made non-increasing by a running minimum.
    Clipping first adds about +b/2 people per empty cell, which empties the
    risk set early on fine grids; see ``docs/survival.md``.

    Counts of people are whole numbers, so real-valued (Laplace) noisy counts
    are first rounded to the nearest integer (free). Without it the table never
    reaches the exact one as ε grows: where nobody is left at risk, a
    noise-sized risk set divided into noise-sized events gives hazards of
    order one (the Nelson–Aalen curve of the Kidney set stayed 1.0 off at
    ε = 10⁶).
    """
    whole = [np.rint(np.asarray(x, dtype=float)) for x in (counts.at_start, counts.events, counts.censored)]
    r1, d, c = (np.maximum(x, 0.0) for x in whole)
    if risk_set == "spec":
        removed = d.sum(-1) + c
        before = np.cumsum(removed, axis=-1) - removed  # removed in bins < j
        at_risk = np.maximum(r1[..., None] - before, 0.0)
    elif risk_set == "running":
        removed = whole[1].sum(-1) + whole[2]
        before = np.cumsum(removed, axis=-1) - removed
        at_risk = np.minimum.accumulate(np.maximum(r1[..., None] - before, 0.0), axis=-1)
    else:
        raise ValueError(f"risk_set must be 'spec' or 'running', not {risk_set!r}")
    total = d.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(total > at_risk, at_risk / np.where(total > 0, total, 1.0), 1.0)
    d = d * factor[..., None]
    return RiskTable(at_risk, d, c, counts.grid, counts.groups, counts.event_labels)


def _ratio(num, den):
    """``num / den`` with 0 where ``den == 0`` (a bin with nobody at risk contributes nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _prepend(x: np.ndarray, value: float) -> np.ndarray:
    pad = np.full(x.shape[:-1] + (1,), value, dtype=float)
    return np.concatenate([pad, x], axis=-1)


@dataclass(frozen=True)
class CurveSet:
    """Curves on the grid edges (``times``, k+1 points incl. t=0), arrays (..., G, k+1)."""

    times: np.ndarray
    estimate: np.ndarray
    variance: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    groups: tuple[str, ...]
    alpha: float = 0.05


def km(table: RiskTable, *, alpha: float = 0.05) -> CurveSet:
    """Kaplan–Meier ``S(t_j) = Π (1 − d_l/r_l)`` with Greenwood variance and log(−log) CI.

    Conventions follow lifelines' ``KaplanMeierFitter`` so that exact counts
    give its numbers: a Greenwood term is 0 where ``r_l = d_l`` (lifelines
    replaces that infinity by 0), and the interval is 1 where ``S = 1``.
    """
    d, r = table.deaths, table.at_risk
    S = _prepend(np.cumprod(1.0 - _ratio(d, r), axis=-1), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where((r > 0) & (r > d), d / (r * (r - d)), 0.0)
    cum = _prepend(np.cumsum(term, axis=-1), 0.0)
    var = S**2 * cum
    lo, hi = loglog_interval(S, cum, alpha)
    return CurveSet(table.grid.display, S, var, lo, hi, table.groups, alpha)


def loglog_interval(S, cum_sq, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Exponential Greenwood ("log(−log)") interval, as lifelines computes it (NaN → 1)."""
    z = special.ndtri(1 - alpha / 2)
    with np.errstate(all="ignore"):
        v = np.log(S)
        lo = np.exp(-np.exp(np.log(-v) - z * np.sqrt(cum_sq) / v))
        hi = np.exp(-np.exp(np.log(-v) + z * np.sqrt(cum_sq) / v))
    return np.nan_to_num(lo, nan=1.0), np.nan_to_num(hi, nan=1.0)


def nelson_aalen_curve(table: RiskTable, *, alpha: float = 0.05) -> CurveSet:
    """Nelson–Aalen ``H(t_j) = Σ d_l / r_l`` with lifelines' (un-smoothed) variance
    ``Σ d_l (r_l − d_l) / r_l³`` and its log-transformed interval.

    (The spec's ``Σ d/r²`` is the Aalen variance; lifelines'
    ``NelsonAalenFitter(nelson_aalen_smoothing=False)`` uses the binomial
    form above, which we follow so that ε = ∞ reproduces lifelines.)
    """
    d, r = table.deaths, table.at_risk
    H = _prepend(np.cumsum(_ratio(d, r), axis=-1), 0.0)
    var = _prepend(np.cumsum(_ratio(d * np.maximum(r - d, 0.0), r**3), axis=-1), 0.0)
    z = special.ndtri(1 - alpha / 2)
    safe = np.where(H == 0, 1.0, H)
    lo = H * np.exp(-z * np.sqrt(var) / safe)
    hi = H * np.exp(z * np.sqrt(var) / safe)
    return CurveSet(table.grid.display, H, var, lo, hi, table.groups, alpha)


def incidence_curve(table: RiskTable, *, event_type: int = 1, alpha: float = 0.05) -> CurveSet:
    """Aalen–Johansen cumulative incidence ``F_k(t_j) = Σ S(t_{l−1}) d_l^(k) / r_l`` (S all-cause KM).

    Interval: a simple plug-in variance ``Σ S(t_{l−1})² d^(k)_l (r_l − d^(k)_l) / r_l³``
    (it ignores the variance of S) with a normal interval clipped to [0, 1];
    it is indicative only.
    """
    d_all, r = table.deaths, table.at_risk
    dk = table.events[..., event_type - 1]
    S = np.cumprod(1.0 - _ratio(d_all, r), axis=-1)
    S_prev = _prepend(S[..., :-1], 1.0)
    F = _prepend(np.cumsum(S_prev * _ratio(dk, r), axis=-1), 0.0)
    var = _prepend(np.cumsum(S_prev**2 * _ratio(dk * np.maximum(r - dk, 0.0), r**3), axis=-1), 0.0)
    z = special.ndtri(1 - alpha / 2)
    sd = np.sqrt(np.maximum(var, 0.0))
    return CurveSet(table.grid.display, F, var, np.clip(F - z * sd, 0, 1), np.clip(F + z * sd, 0, 1), table.groups,
                    alpha)


def curve_for(table: RiskTable, estimator: str, *, alpha: float = 0.05, event_type: int = 1) -> CurveSet:
    if estimator == "km":
        return km(table, alpha=alpha)
    if estimator == "na":
        return nelson_aalen_curve(table, alpha=alpha)
    if estimator == "cif":
        return incidence_curve(table, event_type=event_type, alpha=alpha)
    raise ValueError(f"unknown estimator {estimator!r}; choose from {list(ESTIMATORS)}")


def median_survival(S: np.ndarray, times: np.ndarray) -> np.ndarray:
    """First grid time with ``S ≤ 0.5`` (``inf`` when never reached), over the last axis."""
    below = S <= 0.5
    idx = np.argmax(below, axis=-1)
    return np.where(below.any(axis=-1), np.asarray(times)[idx], np.inf)


@dataclass(frozen=True)
class LogrankArrays:
    statistic: np.ndarray
    p_value: np.ndarray
    dof: int
    observed: np.ndarray
    expected: np.ndarray


def logrank_test(table: RiskTable, *, noise_var=0.0) -> LogrankArrays:
    """Log-rank chi-square for G ≥ 2 groups from per-group risk tables (vectorised over draws).

    Per bin: ``E_gj = d_j r_gj / r_j`` and hypergeometric covariance
    ``V_ghj = d_j (r_j − d_j)/(r_j − 1) · (r_gj/r_j)(δ_gh − r_hj/r_j)``
    (the factor ``(r−d)/(r−1)`` is 1 where ``r_j ≤ 1``, as in lifelines);
    ``U = (O−E)ᵀ V⁻ (O−E)`` over the first G−1 groups (pseudo-inverse).

    ``noise_var`` (optional, not in the spec): the variance of the DP noise
    on one event count. The plain statistic treats noisy counts as real
    people, so its variance ignores the noise and it rejects far too often
    at small ε. With ``noise_var = σ²`` the covariance gets the noise term
    ``σ² Σ_j A_j A_jᵀ``, ``A_j[g, h] = (δ_gh − r_gj/r_j)·1{r_hj > 0}`` (the
    noise of ``d_hj`` enters ``O_g − E_g`` with weight ``δ_gh − r_gj/r_j``;
    counts clipped to an empty risk set carry no noise). ``noise_var = 0``
    is the spec's (and lifelines') test. An array ``noise_var`` broadcasts
    against the leading (draw / ε) axes, e.g. shape ``(n_eps, 1)``.
    """
    G = len(table.groups)
    if G < 2:
        raise ValueError("the log-rank test needs at least two groups")
    rg = table.at_risk  # (..., G, k)
    dg = table.deaths
    r = rg.sum(-2)  # (..., k)
    d = dg.sum(-2)
    frac = _ratio(rg, r[..., None, :])  # (..., G, k)
    O = dg.sum(-1)
    E = (d[..., None, :] * frac).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        hyper = np.where(r > 1, (r - d) / np.where(r > 1, r - 1, 1.0), 1.0)
    w = d * hyper  # (..., k)
    # V_gh = Σ_j w_j frac_g (δ_gh − frac_h)
    Vdiag = np.einsum("...gk,...k->...g", frac, w)
    V = -np.einsum("...gk,...hk,...k->...gh", frac, frac, w)
    idx = np.arange(G)
    V[..., idx, idx] += Vdiag
    nv = np.asarray(noise_var, dtype=float)
    if np.any(nv > 0):
        alive = (rg > 0).astype(float)  # (..., G, k): does group h's event count carry noise in bin j
        A = (np.eye(G)[:, :, None] - frac[..., :, None, :]) * alive[..., None, :, :]  # (..., g, h, k)
        V = V + nv[..., None, None] * np.einsum("...ghk,...fhk->...gf", A, A)
    u = (O - E)[..., : G - 1]
    Vi = np.linalg.pinv(V[..., : G - 1, : G - 1])
    stat = np.einsum("...g,...gh,...h->...", u, Vi, u)
    stat = np.maximum(stat, 0.0)
    return LogrankArrays(stat, stats.chi2.sf(stat, G - 1), G - 1, O, E)


def noise_band(released: Counts, noise: Noise, *, draws: int = 200, rng: np.random.Generator,
               estimator: str = "km", alpha: float = 0.05, include_sampling: bool = True,
               event_type: int = 1, method: str = "union", pool_groups: bool = False,
               risk_set: str = "spec") -> tuple[np.ndarray, np.ndarray]:
    """Noise-aware band from the released counts alone (parametric bootstrap, free post-processing).

    Redraw the known noise around the released matrix ``M'`` (``M* = M' + Z*``),
    re-run the post-processing and the estimator, and take the α/2 and
    1−α/2 quantiles per grid point. With ``include_sampling`` each redraw
    is also perturbed by its own sampling error (a normal draw on the
    interval's scale: log(−log) for KM, log for Nelson–Aalen, linear for
    incidence), so the band covers noise *and* sampling uncertainty.

    The post-processing (clipping at 0) is biased, and the redraws around
    the already-noisy ``M'`` carry that bias twice, so the plain percentile
    band can miss the truth on one side. ``method="union"`` (default) takes
    the union of the percentile band and the basic (reflected) bootstrap
    band ``[2Ŝ − q_hi, 2Ŝ − q_lo]``, which corrects that bias to first
    order; ``"percentile"`` and ``"basic"`` return one of them. Empirical
    coverage of the exact curve at ε = 1 is 0.8–1.0 on the bundled sets
    (``tests/test_survival.py``, ``docs/survival.md``).
    With ``pool_groups`` the groups' redrawn matrices are summed before the
    post-processing (the band of the pooled curve of a grouped release).
    Returns ``(lower, upper)`` shaped like the curve (..., G, k+1).
    """
    boot = noisy_counts(released, noise, rng=rng, draws=draws)
    if pool_groups:
        boot, released = boot.pooled(), released.pooled()
    table = postprocess(boot.collapse_types() if estimator == "km" else boot, risk_set=risk_set)
    cs = curve_for(table, estimator, alpha=alpha, event_type=event_type)
    est = cs.estimate
    if include_sampling:
        z = rng.standard_normal(est.shape[:-1] + (1,))  # one sampling deviate per redrawn curve
        with np.errstate(all="ignore"):
            if estimator == "km":
                v = np.log(est)
                sd = np.sqrt(_ratio(cs.variance, est**2)) / np.where(v < 0, -v, 1.0)
                moved = np.exp(-np.exp(np.log(-v) + z * sd))
                est = np.where((est > 0) & (est < 1), moved, est)
            elif estimator == "na":
                sd = np.sqrt(cs.variance) / np.where(est > 0, est, 1.0)
                est = est * np.exp(z * sd)
            else:
                est = np.clip(est + z * np.sqrt(cs.variance), 0.0, 1.0)
    q_lo, q_hi = np.quantile(est, [alpha / 2, 1 - alpha / 2], axis=0)
    if method == "percentile":
        return q_lo, q_hi
    centre_counts = released.collapse_types() if estimator == "km" else released
    centre = curve_for(postprocess(centre_counts, risk_set=risk_set), estimator, alpha=alpha, event_type=event_type).estimate
    top = np.inf if estimator == "na" else 1.0
    b_lo, b_hi = np.clip(2 * centre - q_hi, 0.0, top), np.clip(2 * centre - q_lo, 0.0, top)
    if method == "basic":
        return b_lo, b_hi
    return np.minimum(q_lo, b_lo), np.maximum(q_hi, b_hi)


# --------------------------------------------------------------------------
# One-call functions
# --------------------------------------------------------------------------


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
    noise = survival_noise(epsilon, counts.n_groups)
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
              risk_set="spec"):
    groups = _declared_groups(group, groups, epsilon, rng)
    grid = _as_grid(grid, time)
    counts = count_matrix(time, event, grid, group=group, groups=groups, n_types=n_types)
    if estimator != "cif":
        counts = counts.collapse_types()
    noisy, desc = _noised(counts, epsilon, rng)
    cs = curve_for(postprocess(noisy, risk_set=risk_set), estimator, alpha=alpha, event_type=event_type)
    median = _squeeze(median_survival(cs.estimate, cs.times)) if estimator == "km" else None
    return SurvivalResult(estimator, cs.times, _squeeze(cs.estimate), _squeeze(cs.variance), _squeeze(cs.ci_lower),
                          _squeeze(cs.ci_upper), counts.groups, epsilon, desc, median, noisy)


def kaplan_meier(time, event, *, grid, epsilon: float | None = None, rng: np.random.Generator | None = None,
                 group=None, groups: Sequence[str] | None = None, alpha: float = 0.05,
                 risk_set: str = "spec") -> SurvivalResult:
    """Kaplan–Meier curve with log(−log) Greenwood interval on a public ``grid``.

    ``grid``: a :class:`Grid` (see :func:`make_grid`) or public edges.
    ``epsilon=None``: non-private (equals lifelines on the binned data).
    With ``epsilon`` and ``rng``: a NumPy preview draw; with ``rng=None``: a
    real OpenDP release (discrete Laplace, scale 2/ε, or 4/ε with ``group``),
    which needs the declared label list ``groups`` (previews may infer it, with a warning).
    Any non-zero event code counts as an event. ``risk_set``: see :func:`postprocess`.
    """
    ev = (np.asarray(event) != 0).astype(np.int64)
    return _one_call("km", time, ev, group, groups, grid, epsilon, rng, alpha, 1, risk_set=risk_set)


def nelson_aalen(time, event, *, grid, epsilon: float | None = None, rng: np.random.Generator | None = None,
                 group=None, groups: Sequence[str] | None = None, alpha: float = 0.05,
                 risk_set: str = "spec") -> SurvivalResult:
    """Nelson–Aalen cumulative hazard (as lifelines with ``nelson_aalen_smoothing=False``); see :func:`kaplan_meier`."""
    ev = (np.asarray(event) != 0).astype(np.int64)
    return _one_call("na", time, ev, group, groups, grid, epsilon, rng, alpha, 1, risk_set=risk_set)


def cumulative_incidence(time, event, *, grid, event_type: int = 1, n_types: int | None = None,
                         epsilon: float | None = None, rng: np.random.Generator | None = None, group=None,
                         groups: Sequence[str] | None = None, alpha: float = 0.05,
                         risk_set: str = "spec") -> SurvivalResult:
    """Aalen–Johansen cumulative incidence of ``event_type`` (codes 0 censored, 1..n_types).

    ``n_types`` is the public number of event types (default: ``max(2, event_type)``).
    """
    K = int(n_types or max(2, event_type))
    return _one_call("cif", time, event, group, groups, grid, epsilon, rng, alpha, K, event_type, risk_set=risk_set)


def logrank(time, event, group, *, grid, epsilon: float | None = None, rng: np.random.Generator | None = None,
            groups: Sequence[str] | None = None, risk_set: str = "spec",
            noise_aware: bool = False) -> LogrankResult:
    """Log-rank test (G ≥ 2 groups) from the groups' count matrices, released together (Δ1 = 4).

    ``noise_aware=True`` adds the known noise variance to the test's
    covariance (see :func:`logrank_test`): it keeps the false-positive rate
    near α at small ε, at the price of power.
    """
    groups = _declared_groups(group, groups, epsilon, rng)
    grid = _as_grid(grid, time)
    ev = (np.asarray(event) != 0).astype(np.int64)
    counts = count_matrix(time, ev, grid, group=group, groups=groups)
    if counts.n_groups < 2:
        raise InputError("the log-rank test needs at least two groups")
    noisy, desc = _noised(counts, epsilon, rng)
    nv = survival_noise(epsilon, counts.n_groups).std ** 2 if (noise_aware and epsilon is not None) else 0.0
    res = logrank_test(postprocess(noisy, risk_set=risk_set), noise_var=nv)
    return LogrankResult(float(res.statistic), float(res.p_value), res.dof, counts.groups, epsilon, desc,
                         res.observed, res.expected)


# --------------------------------------------------------------------------
# Utility over R draws and over ε
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Utility:
    """Per-draw utility measures; every array has the draw axes (R,) or (n_eps, R).

    ``sup_error``: max over grid (and groups) of ``|private − exact|``;
    ``integrated_error``: Σ over bins of ``|private − exact| × width`` (grid
    units), averaged over groups; ``median_error``: ``|median' − median|``
    (grid units, NaN when only one of them is reached, 0 when neither);
    ``coverage``: share of grid points where the private interval contains
    the exact curve; ``covers_all``: it does at every point; ``p_value`` and
    ``logrank_agree`` (decision at ``level`` equal to the exact one) when
    G ≥ 2, else None.
    """

    sup_error: np.ndarray
    integrated_error: np.ndarray
    median_error: np.ndarray
    coverage: np.ndarray
    covers_all: np.ndarray
    p_value: np.ndarray | None
    logrank_agree: np.ndarray | None
    exact_p_value: float | None
    estimator: str

    def summary(self) -> pd.DataFrame:
        """Mean and 5–95 % band of each measure over the draws (last axis)."""
        rows = []
        for name, label in [("sup_error", "sup-norm error"), ("integrated_error", "integrated absolute error"),
                            ("median_error", "median survival error"), ("coverage", "CI coverage of exact curve"),
                            ("covers_all", "CI covers the whole exact curve"), ("p_value", "log-rank p-value"),
                            ("logrank_agree", "log-rank decision agrees")]:
            v = getattr(self, name)
            if v is None or (name == "median_error" and self.estimator != "km"):
                continue
            v = np.asarray(v, dtype=float)
            if np.isnan(v).all():
                rows.append({"measure": label, "mean": np.nan, "q05": np.nan, "q95": np.nan})
                continue
            rows.append({"measure": label, "mean": float(np.nanmean(v)), "q05": float(np.nanquantile(v, 0.05)),
                         "q95": float(np.nanquantile(v, 0.95))})
        return pd.DataFrame(rows)


def _utility_from(exact: Counts, noisy: Counts, estimator: str, alpha: float, level: float, event_type: int,
                  risk_set: str = "spec", lr_noise_var=0.0) -> Utility:
    if estimator != "cif":
        exact, noisy = exact.collapse_types(), noisy.collapse_types()
    ex_table, nz_table = postprocess(exact), postprocess(noisy, risk_set=risk_set)
    ex = curve_for(ex_table, estimator, alpha=alpha, event_type=event_type)
    nz = curve_for(nz_table, estimator, alpha=alpha, event_type=event_type)
    diff = np.abs(nz.estimate - ex.estimate)  # (..., G, k+1)
    widths = np.diff(exact.grid.display)
    sup = diff.max(axis=(-1, -2))
    integ = (diff[..., :-1] * widths).sum(-1).mean(-1)  # step function: value on [t_j, t_{j+1})
    inside = (nz.ci_lower <= ex.estimate + 1e-12) & (ex.estimate <= nz.ci_upper + 1e-12)
    coverage = inside.mean(axis=(-1, -2))
    covers = inside.all(axis=(-1, -2))
    if estimator == "km":
        m_ex = median_survival(ex.estimate, ex.times)
        m_nz = median_survival(nz.estimate, nz.times)
        both_inf = np.isinf(m_ex) & np.isinf(m_nz)
        with np.errstate(invalid="ignore"):
            me = np.where(both_inf, 0.0, np.where(np.isinf(m_ex) | np.isinf(m_nz), np.nan, np.abs(m_nz - m_ex)))
        med = np.where(np.isnan(me).any(-1), np.nan, me.max(-1))
    else:
        med = np.full(sup.shape, np.nan)
    p = agree = exact_p = None
    if exact.n_groups >= 2:
        lr_ex = logrank_test(ex_table if estimator != "cif" else postprocess(exact.collapse_types()))
        lr_nz = logrank_test(nz_table if estimator != "cif" else postprocess(noisy.collapse_types(), risk_set=risk_set),
                             noise_var=lr_noise_var)
        exact_p = float(lr_ex.p_value)
        p = lr_nz.p_value
        agree = (p < level) == (exact_p < level)
    return Utility(sup, integ, med, coverage, covers, p, agree, exact_p, estimator)


def utility(counts: Counts, epsilon: float, *, draws: int = 200, rng: np.random.Generator, estimator: str = "km",
            kind: str = "laplace", alpha: float = 0.05, level: float = 0.05, event_type: int = 1,
            risk_set: str = "spec", noise_aware_logrank: bool = False) -> Utility:
    """Utility measures of ``survival.md`` over ``draws`` preview releases, one vectorised pass.

    ``noise_aware_logrank`` adds the noise variance to the log-rank test
    (see :func:`logrank_test`); ``risk_set`` as in :func:`postprocess`.
    """
    noise = survival_noise(epsilon, counts.n_groups, kind=kind)
    return _utility_from(counts, noisy_counts(counts, noise, rng=rng, draws=draws), estimator, alpha, level,
                         event_type, risk_set, noise.std**2 if noise_aware_logrank else 0.0)


@dataclass(frozen=True)
class UtilityCurve:
    """Utility over an ε grid: every measure shaped ``(n_eps, R)`` (per-draw values)."""

    epsilons: np.ndarray
    sup_error: np.ndarray
    integrated_error: np.ndarray
    median_error: np.ndarray
    coverage: np.ndarray
    logrank_agree: np.ndarray | None
    p_value: np.ndarray | None
    exact_p_value: float | None
    estimator: str

    def metric(self, name: str) -> np.ndarray:
        value = getattr(self, name)
        if value is None:
            raise KeyError(f"{name} is not available (needs two or more groups)")
        return np.asarray(value, dtype=float)


def utility_curve(counts: Counts, epsilons, *, draws: int = 200, rng: np.random.Generator, estimator: str = "km",
                  kind: str = "laplace", alpha: float = 0.05, level: float = 0.05, event_type: int = 1,
                  risk_set: str = "spec", noise_aware_logrank: bool = False) -> UtilityCurve:
    """Per-draw utility measures over an ε grid in one vectorised pass (``(n_eps, R)`` arrays)."""
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    noises = [survival_noise(float(e), counts.n_groups, kind=kind) for e in eps]
    vec = sample_sweep(counts.vector(), noises, rng=rng, draws=draws)
    nv = np.array([n.std**2 for n in noises])[:, None] if noise_aware_logrank else 0.0
    u = _utility_from(counts, counts.from_vector(vec), estimator, alpha, level, event_type, risk_set, nv)
    return UtilityCurve(eps, u.sup_error, u.integrated_error, u.median_error, u.coverage, u.logrank_agree,
                        u.p_value, u.exact_p_value, estimator)


def noise_std_people(epsilon: float, n_groups: int = 1, kind: str = "discrete_laplace") -> float:
    """Standard deviation of the noise on each count, in people ("each count ± …")."""
    return survival_noise(epsilon, n_groups, kind=kind).std


# --------------------------------------------------------------------------
# Audit scenarios
# --------------------------------------------------------------------------


def _audit_counts(kind: str) -> tuple[Counts, Counts, str]:
    """Worst-case neighbouring data sets (n = 20 on a 5-bin grid) for one scenario."""
    grid = make_grid(5.0, data_unit="days")
    base_t = np.array([1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 1.5, 2.5, 3.5, 4.5, 0.5, 1.2, 2.2, 6.0])
    base_e = np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0])
    base_g = np.array(["a", "b"] * 10)
    if kind == "first-last":
        tA, eA = np.append(base_t, 0.3), np.append(base_e, 1)
        tB, eB = np.append(base_t, 4.9), np.append(base_e, 0)
        A = count_matrix(tA, eA, grid)
        B = count_matrix(tB, eB, grid)
        text = ("A: one extra person has an event in the first bin; B: that person is replaced by someone "
                "censored in the last bin (everything else equal).")
    elif kind == "event-censored":
        tA, eA = np.append(base_t, 2.5), np.append(base_e, 1)
        tB, eB = np.append(base_t, 2.5), np.append(base_e, 0)
        A = count_matrix(tA, eA, grid)
        B = count_matrix(tB, eB, grid)
        text = "A: one person has an event in bin 3; B: the same person is censored at the same time instead."
    elif kind == "between-groups":
        tA, eA, gA = np.append(base_t, 0.3), np.append(base_e, 1), np.append(base_g, "a")
        tB, eB, gB = np.append(base_t, 4.9), np.append(base_e, 0), np.append(base_g, "b")
        A = count_matrix(tA, eA, grid, group=gA, groups=("a", "b"))
        B = count_matrix(tB, eB, grid, group=gB, groups=("a", "b"))
        text = ("Groups released together (log-rank): A has an extra person in group a with an event in the "
                "first bin; B replaces them by a person in group b censored in the last bin — four counts differ.")
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


def audit_scenarios(epsilon: float) -> list[AuditScenario]:
    """Worst-case neighbouring pairs for the survival release (discrete Laplace on the count matrices).

    The summary counts the changed cells whose noisy value lies on data set
    A's side; "all of them" is the event with the largest privacy loss
    (exactly ``e^ε`` for the correct mechanism, ``e^{2ε}`` with the noise
    halved). The sampler recomputes the count matrices with
    :func:`count_matrix` every time, so a wrong sensitivity is caught too.
    """
    scenarios = []
    for kind, title in [("first-last", "record moved from the first to the last bin, event → censored"),
                        ("event-censored", "event ↔ censored in the same bin"),
                        ("between-groups", "record moved between groups (log-rank release)")]:
        A, B, text = _audit_counts(kind)

        def sampler(which, planted_bug, rng, draws, A=A, B=B):
            counts = A if which == "A" else B
            noise = survival_noise(epsilon, counts.n_groups)
            if planted_bug:
                noise = noise.with_scale_factor(0.5)
            vec = noisy_counts(counts, noise, rng=rng, draws=draws).vector()
            return _indicator_summary(vec, A.vector(), B.vector())

        scenarios.append(AuditScenario(
            method="survival", name=title, neighbours=text,
            summary="number of changed counts whose noisy value lies on A's side (all of them = worst-case event)",
            claimed_epsilon=float(epsilon), delta=0.0, sampler=sampler, planted_bug_label="noise scale halved"))
    return scenarios


# --------------------------------------------------------------------------
# Release
# --------------------------------------------------------------------------


def _curve_frame(cs: CurveSet, name: str, band: tuple[np.ndarray, np.ndarray] | None = None,
                 at_risk: np.ndarray | None = None) -> pd.DataFrame:
    frames = []
    for g, label in enumerate(cs.groups):
        cols = {"group": label, "time": cs.times, name: cs.estimate[g], "variance": cs.variance[g],
                "ci_lower": cs.ci_lower[g], "ci_upper": cs.ci_upper[g]}
        if band is not None:
            cols["band_lower"], cols["band_upper"] = band[0][g], band[1][g]
        if at_risk is not None:
            cols["at_risk_start_of_bin"] = np.append(at_risk[g], np.nan)
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


def released_tables(rel: Counts, noise: Noise, *, alpha: float = 0.05, band_draws: int = 200,
                    rng: np.random.Generator | None = None, risk_set: str = "spec") -> dict[str, pd.DataFrame]:
    """Every table of a release, computed from the released (noisy) counts only."""
    rng = rng if rng is not None else np.random.default_rng()
    grid, K = rel.grid, rel.n_types
    tables: dict[str, pd.DataFrame] = {}
    rows = []
    for g, label in enumerate(rel.groups):
        row = {"group": label, "bin": np.arange(1, grid.k + 1), "t_start": grid.display[:-1], "t_end": grid.display[1:]}
        for i, ev in enumerate(rel.event_labels):
            row["events" if K == 1 else f"events_{ev}"] = rel.events[g, :, i]
        row["censored"] = rel.censored[g]
        rows.append(pd.DataFrame(row))
    tables["counts"] = pd.concat(rows, ignore_index=True)
    tables["at_start"] = pd.DataFrame({"group": rel.groups, "noisy_n": rel.at_start})
    all_cause = rel.collapse_types()
    table = postprocess(all_cause, risk_set=risk_set)
    cs = km(table, alpha=alpha)
    band = noise_band(all_cause, noise, draws=band_draws, rng=rng, alpha=alpha, risk_set=risk_set)
    tables["kaplan_meier"] = _curve_frame(cs, "survival", band, table.at_risk)
    tables["median"] = pd.DataFrame({"group": rel.groups, "median_survival": median_survival(cs.estimate, cs.times)})
    tables["nelson_aalen"] = _curve_frame(nelson_aalen_curve(table, alpha=alpha), "cumulative_hazard")
    if rel.n_groups >= 2:
        pooled = postprocess(all_cause.pooled(), risk_set=risk_set)
        tables["kaplan_meier_pooled"] = _curve_frame(km(pooled, alpha=alpha), "survival")
        lr = logrank_test(table)
        lr_na = logrank_test(table, noise_var=noise.std**2)
        tables["logrank"] = pd.DataFrame({
            "variance": ["hypergeometric (spec)", "hypergeometric + DP noise (noise-aware)"],
            "statistic": [float(lr.statistic), float(lr_na.statistic)], "degrees_of_freedom": [lr.dof, lr.dof],
            "p_value": [float(lr.p_value), float(lr_na.p_value)]})
    if K > 1:
        full = postprocess(rel.pooled(), risk_set=risk_set)
        frames = []
        for k, ev in enumerate(rel.event_labels, start=1):
            f = _curve_frame(incidence_curve(full, event_type=k, alpha=alpha), "incidence")
            f.insert(1, "event_type", ev)
            frames.append(f)
        tables["cumulative_incidence"] = pd.concat(frames, ignore_index=True)
    return tables


def release(time, event, *, grid: Grid, epsilon: float, group=None, groups: Sequence[str] | None = None,
            n_types: int = 1, event_labels: Sequence[str] | None = None, dataset: str = "uploaded data",
            fingerprint: str = "", alpha: float = 0.05, band_draws: int = 200, with_figure: bool = True,
            risk_set: str = "spec"):
    """One OpenDP release of the count matrices and everything derived from them, as a ReleaseBundle.

    Only the discrete-Laplace-noised counts and their post-processing are
    exported; the exact counts never leave this function. With ``group``,
    the declared label list ``groups`` is required (see :func:`count_matrix`).
    """
    from dpcore.release import ReleaseBundle

    groups = _declared_groups(group, groups, epsilon, None)
    counts = count_matrix(time, event, grid, group=group, groups=groups, n_types=n_types, event_labels=event_labels)
    noise = survival_noise(epsilon, counts.n_groups, kind="discrete_laplace")
    rel = release_counts(counts, noise)
    tables = released_tables(rel, noise, alpha=alpha, band_draws=band_draws, risk_set=risk_set)
    figures = {}
    if with_figure:
        from dpcore.survival_figures import release_figure

        figures["Kaplan–Meier (DP)"] = release_figure(tables["kaplan_meier"], grid)
    params = {**grid.public_params(), "groups": list(counts.groups), "event_types": list(counts.event_labels),
              "time_above_horizon": "censored at the horizon", "sensitivity_l1": sensitivity(counts.n_groups),
              "noise": noise.describe(), "noise_std_per_count": noise.std, "alpha": alpha,
              "noise_band": f"parametric bootstrap, {band_draws} redraws (post-processing)",
              "post_processing": ("clip at 0; r_j = max(0, r_{j-1} - events - censored); events clipped to r_j"
                                  if risk_set == "spec" else "risk set from the running sum of unclipped noisy "
                                  "counts, clipped at 0 and non-increasing; events clipped at 0 and to r_j")}
    notes = (
        f"Released: per group, the number at risk at time 0 and, per bin, the events of each type and the "
        f"censorings, each with discrete Laplace noise (scale {noise.scale:g}, ± {noise.std:.3g} people).",
        "Curves, intervals, medians and the log-rank test are post-processing of those counts.",
        "The Greenwood interval covers sampling error only; the noise band also covers the added noise.",
    )
    return ReleaseBundle(method="DP survival analysis", dataset=dataset, fingerprint=fingerprint,
                         epsilon=float(epsilon), delta=0.0,
                         mechanisms=(f"discrete Laplace (OpenDP), Δ1 = {sensitivity(counts.n_groups)}",),
                         public_params=params, tables=tables, relation=RELATION, figures=figures, notes=notes)

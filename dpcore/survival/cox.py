"""A private Cox fitter with lifelines' shape: hazard ratios of declared categorical covariates, by one histogram.

:class:`DPCoxPHFitter` releases **one histogram** and fits the grouped piecewise-exponential model to it
(:mod:`dpcore.survival.hazard_ratio`, post-processing): every person falls in exactly one cell of

    stratum × covariate cell × (event in interval k | censored in interval k | followed past the horizon),

plus one cell for the people whose covariates or stratum are missing (complete cases are fitted; ``n`` is the
upload's, public under replace-one, and the missing cell keeps every person in the histogram so that ``n`` is
never replaced by the private number of complete cases). Covariates are declared: a binary ``(0, 1)`` (values
outside are clipped into it) or a tuple of labels (the first is the reference; another label is refused by row).
Strata are one declared categorical column. Intervals are public cut points up to a public horizon.

**Sensitivity (proof).** Replace-one, ``n`` public. The cell of a person is a function of that person's record and
the public inputs only (declared levels and strata, the clipped binary values, the public cut points and horizon),
and the cells partition every possible record (a missing value goes to the missing cell, a time after the
horizon to "followed past the horizon"). Replacing one person removes 1 from one cell and adds 1 to one cell and
changes nothing else, so ``‖H − H'‖₁ ≤ 2`` and ``‖H − H'‖₂ ≤ √2``, whatever the data (no dependence on risk
sets, the cumulative hazard or the observed covariate range, unlike the score of cox.md §1). Discrete Laplace of
scale ``2/ε`` is ε-DP; the analytic Gaussian σ at ``Δ₂ = √2`` is (ε, δ)-DP. Every scale reads ε, δ and the
constant 2 only. The fit, its interval and every figure are post-processing of the noisy histogram.

Design choice (cox.md, "Recommended default"): for categorical covariates the histogram route has noise
independent of n and stays pure ε; continuous covariates need the piecewise-exponential model by clipped noisy
gradient descent (cox.md §4a), not built here, so a continuous bound is refused with that reason. ``primary``
names the covariate the analysis is about: one histogram serves every coefficient, so no budget is split; it is
listed first. ``method=`` reaches methods B and C (:data:`~dpcore.survival.cox_score.FIT_METHODS`), each with its own
proof in its own file; A, measured the best, is the default. Why one file: the fitter's API is one class.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd

from dpcore.core.mechanisms import Noise, check_budget, discrete_laplace_noise, gaussian_noise
from dpcore.reporting.release import ReleaseBundle
from dpcore.survival.events import COX
from dpcore.survival.grid import RELATION
from dpcore.survival.hazard_ratio import (
    ESTIMAND,
    GroupedTable,
    HazardRatioFit,
    ProportionalHazardsCheck,
    fit_table,
    fit_with_noise,
    proportional_hazards_check,
)
from dpcore.core.validation import InputError, numeric_column, require_columns
from dpcore.survival.cox_score import FIT_METHODS, alternative_method

#: The method's name in releases, the ledger and the accounting.
METHOD = COX
#: Replace-one sensitivities of the histogram (module docstring).
L1_SENSITIVITY = 2
L2_SENSITIVITY = math.sqrt(2.0)
#: Below this expected share of people with an event (public: from the study design) one interval is the default.
RARE_EVENTS = 0.15
#: The most equal intervals the default chooses.
MAX_DEFAULT_INTERVALS = 32


def default_intervals(epsilon: float, expected_event_share: float | None = None, n: int | None = None,
                      cells: int = 2) -> int:
    """The public default number of equal intervals, from ε, ``n``, the number of covariate cells (× strata) and
    the design's expected event share (never the data).

    One interval where the design expects rare events: it behaves like the hazard ratio and has the least noise (a
    1,151-person trial with 8 % events at ε = 1: median |Δ log HR| 0.066, against 0.093 with two). Otherwise the
    most intervals (a power of two, 2 to :data:`MAX_DEFAULT_INTERVALS`) that keep the expected events per cell
    and interval, ``n·share/(cells·K)``, at 50/ε or more (25 noise scales; ``share`` 0.5 when not declared): more
    intervals remove the grouping's bias where events are common, and this many keep the noise they add small.
    Measured (bench/results/cox.md): on the democracy durations (1,808 people, 81 % events over 45 years) it
    chooses 16 at ε = 2, within 0.5 SE of Cox, where two are 10 SE off and eight 1.6 SE. Without ``n``: two
    below ε = 5, four from there.
    """
    if expected_event_share is not None and expected_event_share < RARE_EVENTS:
        return 1
    if n is None:
        return 2 if epsilon < 5 else 4
    share = 0.5 if expected_event_share is None else expected_event_share
    most = n * share * epsilon / (50.0 * cells)
    return int(np.clip(2 ** np.floor(np.log2(max(most, 1.0))), 2, MAX_DEFAULT_INTERVALS))


MISSING = "missing covariate"
BINARY = ("0", "1")


@dataclass(frozen=True)
class CutPoints:
    """A continuous covariate coarsened at public cut points (from the design or clinical convention, never the
    data): every person falls in exactly one interval, so the histogram's sensitivity is unchanged. The lowest
    interval is the reference."""

    points: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.points or not all(math.isfinite(p) for p in self.points) or \
                any(b <= a for a, b in zip(self.points, self.points[1:])):
            raise InputError(f"Cut points must be finite numbers in increasing order; got {list(self.points)}.")

    def labels(self) -> tuple[str, ...]:
        """``("under 40", "40 to under 65", "65 or more")`` for the cut points 40 and 65 (words, not ``<``: labels
        reach figures, tables and CSVs, where a bracket may be escaped)."""
        edges = [f"{p:g}" for p in self.points]
        return (f"under {edges[0]}", *(f"{a} to under {b}" for a, b in zip(edges, edges[1:])), f"{edges[-1]} or more")


def cut_at(*points: float) -> CutPoints:
    """Declare a continuous covariate by its public cut points: ``bounds={"age": cut_at(40, 65)}``."""
    return CutPoints(tuple(float(p) for p in points))


@dataclass(frozen=True)
class Covariate:
    """A declared covariate: its levels (reference first); ``binary`` ones are numbers clipped into [0, 1]; one cut
    at public ``cuts`` is a number placed in its interval (the levels name the intervals)."""

    name: str
    levels: tuple[str, ...]
    binary: bool
    cuts: tuple[float, ...] = ()

    def columns(self) -> list[str]:
        """Names of its coefficients: the column itself for a binary, ``name[level]`` per other level."""
        return [self.name] if self.binary else [f"{self.name}[{lvl}]" for lvl in self.levels[1:]]


def declare(name: str, bound) -> Covariate:
    """A covariate from its public bound: ``(0, 1)`` binary, a tuple of ≥ 2 labels categorical, :func:`cut_at`
    continuous coarsened at public cut points; any other numeric range is continuous, which the histogram route
    cannot fit as such (module docstring)."""
    if isinstance(bound, CutPoints):
        return Covariate(name, bound.labels(), False, bound.points)
    values = tuple(bound) if isinstance(bound, (tuple, list)) else (bound,)
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in values)
    if numeric and len(values) == 2:
        lo, hi = float(values[0]), float(values[1])
        if (lo, hi) == (0.0, 1.0):
            return Covariate(name, BINARY, True)
        raise InputError(f"Covariate {name!r} has the range ({lo:g}, {hi:g}): the histogram fits a continuous "
                         "covariate cut at public points (cut_at(40, 65): the design's or clinical convention's, "
                         "never the data's). Declare its cut points, or declare it binary (0, 1) or as labels.")
    labels = tuple(dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
    if len(labels) < 2:
        raise InputError(f"Covariate {name!r}: declare at least two levels (the reference first), or (0, 1).")
    return Covariate(name, labels, False)


def level_codes(frame: pd.DataFrame, cov: Covariate) -> tuple[np.ndarray, np.ndarray]:
    """Each row's level index and whether it is missing; binary values are clipped into [0, 1] first."""
    raw = frame[cov.name]
    text = raw.astype(str).str.strip()
    missing = raw.isna().to_numpy() | text.isin(["", "nan", "NaN", "NA", "None"]).to_numpy()
    if cov.cuts:
        values = pd.to_numeric(text.where(~missing), errors="coerce").to_numpy(dtype=float)
        bad = ~missing & ~np.isfinite(values)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"Column {cov.name!r}, row {i + 2}: {text.iloc[i][:40]!r} is not a number (the column "
                             "is declared continuous, cut at public points).")
        return np.where(missing, 0, np.searchsorted(cov.cuts, np.nan_to_num(values), side="right")), missing
    if cov.binary:
        values = pd.to_numeric(text.where(~missing), errors="coerce").to_numpy(dtype=float)
        bad = ~missing & ~np.isfinite(values)
        values = np.clip(values, 0.0, 1.0)
        bad |= ~missing & ~np.isin(values, (0.0, 1.0))
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"Column {cov.name!r}, row {i + 2}: the binary covariate is {text.iloc[i][:40]!r}, not "
                             "0 or 1 (values below 0 or above 1 are clipped to the bounds).")
        return np.where(missing, 0, values).astype(np.int64), missing
    codes = pd.Categorical(text, categories=list(cov.levels)).codes.astype(np.int64)
    outside = ~missing & (codes < 0)
    if outside.any():
        i = int(np.argmax(outside))
        raise InputError(f"Column {cov.name!r}, row {i + 2}: the level {text.iloc[i][:40]!r} is not one of the "
                         f"declared levels {list(cov.levels)}.")
    return np.maximum(codes, 0), missing


def cut_points(horizon: float, intervals) -> np.ndarray:
    """Public edges ``0 < a_1 < … < a_K = horizon``: ``intervals`` equal ones, or the given inner cut points."""
    if not (horizon is not None and np.isfinite(horizon) and horizon > 0):
        raise InputError("Declare the horizon (the study's planned follow-up, in the time column's unit): it must be "
                         "public, so it is never read off the data.")
    if np.ndim(intervals) == 0:
        k = int(intervals)
        if k < 1:
            raise InputError("The number of intervals must be at least 1.")
        return np.linspace(0.0, float(horizon), k + 1)
    inner = np.asarray(sorted(float(c) for c in intervals if 0 < float(c) < horizon))
    return np.concatenate([[0.0], inner, [float(horizon)]])


@dataclass(frozen=True)
class CoxDesign:
    """The public side of a fit: covariates, strata, intervals; it maps records to histogram cells."""

    covariates: tuple[Covariate, ...]
    strata: tuple[str, ...]
    strata_column: str | None
    edges: np.ndarray

    @property
    def cells(self) -> tuple[tuple[str, ...], ...]:
        return tuple(product(*(c.levels for c in self.covariates)))

    @property
    def shape(self) -> tuple[int, int, int]:
        """(strata, covariate cells, intervals)."""
        return len(self.strata), len(self.cells), self.edges.size - 1

    @property
    def size(self) -> int:
        """Cells of the released histogram: every stratum × covariate cell × (2K + 1) outcomes, plus missing."""
        S, C, K = self.shape
        return S * C * (2 * K + 1) + 1

    def matrix(self) -> np.ndarray:
        """Design rows of the covariate cells ``(C, P)``: one column per binary, dummies per categorical."""
        blocks = []
        for j, cov in enumerate(self.covariates):
            index = np.array([cov.levels.index(cell[j]) for cell in self.cells])
            blocks.append(np.eye(len(cov.levels))[index][:, 1:])
        return np.hstack(blocks)

    def names(self) -> tuple[str, ...]:
        return tuple(name for cov in self.covariates for name in cov.columns())

    def cell_index(self, time, event, codes: np.ndarray, stratum: np.ndarray, missing: np.ndarray) -> np.ndarray:
        """Each record's histogram cell (module docstring): a function of the record and public inputs only."""
        _, C, K = self.shape
        radix = np.array([len(c.levels) for c in self.covariates])
        cell = np.zeros(len(time), dtype=np.int64)
        for j in range(len(self.covariates)):
            cell = cell * radix[j] + codes[:, j]
        horizon = self.edges[-1]
        past = (time > horizon) | ((time == horizon) & (event == 0))
        k = np.clip(np.searchsorted(self.edges, time, side="left") - 1, 0, K - 1)
        outcome = np.where(past, 2 * K, np.where(event == 1, k, K + k))
        index = (stratum * C + cell) * (2 * K + 1) + outcome
        return np.where(missing, self.size - 1, index)

    def table(self, histogram: np.ndarray, *, noisy: bool) -> GroupedTable:
        """The grouped table of a (released) histogram; the missing cell is left out of the fit."""
        S, C, K = self.shape
        body = np.asarray(histogram, dtype=float)[..., :-1].reshape(histogram.shape[:-1] + (S, C, 2 * K + 1))
        return GroupedTable(body[..., :K], body[..., K:2 * K], body[..., 2 * K], np.diff(self.edges),
                            self.strata, tuple(" · ".join(c) for c in self.cells), beyond_released=noisy)

    def histogram_frame(self, histogram: np.ndarray) -> pd.DataFrame:
        """One row per released cell, named in words (the export's ``released_histogram``)."""
        S, C, K = self.shape
        rows = []
        for s, c in product(range(S), range(C)):
            for o in range(2 * K + 1):
                what = ("followed past the horizon" if o == 2 * K else
                        f"event in ({self.edges[o]:g}, {self.edges[o + 1]:g}]" if o < K else
                        f"censored in ({self.edges[o - K]:g}, {self.edges[o - K + 1]:g}]")
                rows.append({"stratum": self.strata[s], "cell": " · ".join(self.cells[c]), "outcome": what})
        rows.append({"stratum": "", "cell": MISSING, "outcome": "any"})
        frame = pd.DataFrame(rows)
        frame["count"] = np.asarray(histogram)
        return frame


def cox_noise(epsilon: float, delta: float = 0.0) -> Noise:
    """The histogram's mechanism from public inputs only: discrete Laplace ``2/ε``, or the analytic Gaussian at
    ``Δ₂ = √2`` when ``delta > 0``."""
    if delta > 0:
        return gaussian_noise(L2_SENSITIVITY, epsilon, delta)
    return discrete_laplace_noise(L1_SENSITIVITY, epsilon)


def release_histogram(exact: np.ndarray, noise: Noise, rng: np.random.Generator | None) -> np.ndarray:
    """The noisy histogram: a seeded NumPy draw of the same law with ``rng``, one OpenDP draw without."""
    values = np.asarray(exact, dtype=np.int64 if noise.kind == "discrete_laplace" else float)
    return noise.sample(values, rng=rng) if rng is not None else noise.release(values)


class DPCoxPHFitter:
    """lifelines' ``CoxPHFitter`` shape, released privately (module docstring for the mechanism and its proof).

    ``bounds``: ``{column: (0, 1)}`` for binary covariates (values clipped), ``{column: ("ref", "other", …)}`` for
    categorical ones; ``horizon``: the public follow-up in the time column's unit; ``strata``: ``{column: levels}``;
    ``intervals``: the number of equal public intervals, or the inner cut points (default :func:`default_intervals`
    from ε, ``n``, the declared cells and ``expected_event_share``, the design's expected share of people with an
    event; ``n``, the upload's number of rows, is public under replace-one; both optional).
    """

    def __init__(self, epsilon: float, delta: float = 0.0, bounds: Mapping[str, Sequence] | None = None,
                 horizon: float | None = None, strata: Mapping[str, Sequence[str]] | None = None,
                 primary: str | None = None, intervals=None, expected_event_share: float | None = None,
                 n: int | None = None, alpha: float = 0.05, redraws: int = 200, method: str = "histogram",
                 padding: int | None = None, pseudo: Mapping[str, float] | None = None, steps: int | None = None):
        check_budget(epsilon, delta, what="a hazard-ratio release")
        if method not in FIT_METHODS:
            raise InputError(f"method must be one of {list(FIT_METHODS)}, not {method!r}")
        self.method, self._alternative = method, None
        if method != "histogram":  # methods B and C (FIT_METHODS)
            self.epsilon, self.delta, self.alpha, self.redraws = float(epsilon), float(delta), alpha, int(redraws)
            self.horizon, self.primary = horizon, primary
            self._alternative = alternative_method(method, epsilon, delta, bounds, horizon, strata, primary, intervals,
                                                   expected_event_share, padding, pseudo, steps, alpha, redraws)
            return
        if not bounds:
            raise InputError("Declare at least one covariate in bounds, e.g. {'arm': ('control', 'treated')}.")
        covariates = [declare(name, b) for name, b in bounds.items()]
        if primary is not None:
            if primary not in bounds:
                raise InputError(f"The primary covariate {primary!r} is not among the declared ones {list(bounds)}.")
            covariates.sort(key=lambda c: c.name != primary)
        if strata is not None and len(strata) != 1:
            raise InputError("Declare one strata column with its levels, e.g. {'site': ('A', 'B')}.")
        strata_column, strata_levels = (None, ("all",)) if not strata else next(iter(strata.items()))
        strata_levels = tuple(dict.fromkeys(str(s).strip() for s in strata_levels if str(s).strip()))
        if strata_column is not None and len(strata_levels) < 1:
            raise InputError(f"Declare the levels of the strata column {strata_column!r}.")
        self.epsilon, self.delta, self.alpha, self.redraws = float(epsilon), float(delta), alpha, int(redraws)
        if intervals is None:
            cells = len(strata_levels) * math.prod(len(c.levels) for c in covariates)
            intervals = default_intervals(epsilon, expected_event_share, n, cells)
        self.horizon, self.intervals, self.primary = horizon, intervals, primary
        self.design = CoxDesign(tuple(covariates), strata_levels, strata_column, cut_points(horizon, intervals))
        self.noise = cox_noise(self.epsilon, self.delta)

    def _cells(self, df: pd.DataFrame, duration_col: str, event_col: str) -> np.ndarray:
        names = [duration_col, event_col, *(c.name for c in self.design.covariates)]
        if self.design.strata_column:
            names.append(self.design.strata_column)
        if len(set(names)) < len(names):
            raise InputError("A column is used for more than one role (duration, event, covariates, strata).")
        require_columns(df, names)
        if len(df) < 2:
            raise InputError("The upload has fewer than two rows.")
        time = numeric_column(df, duration_col, minimum=0, what="duration")
        event = numeric_column(df, event_col, minimum=0, maximum=1, integer=True, what="event (0 or 1)")
        codes, missing = zip(*(level_codes(df, c) for c in self.design.covariates))
        codes, missing = np.column_stack(codes), np.any(np.column_stack(missing), axis=1)
        stratum = np.zeros(len(df), dtype=np.int64)
        if self.design.strata_column:
            stratum_cov = Covariate(self.design.strata_column, self.design.strata, False)
            stratum, stratum_missing = level_codes(df, stratum_cov)
            missing = missing | stratum_missing
        return self.design.cell_index(time, event, codes, stratum, missing)

    def fit(self, df: pd.DataFrame, duration_col: str, event_col: str,
            rng: np.random.Generator | None = None) -> DPCoxPHFitter:
        """Release the histogram (``rng``: a seeded preview of the release's law; None: one OpenDP draw) and fit."""
        if self._alternative is not None:
            self.fit_, self.n, self.preview = self._alternative.fit(df, duration_col, event_col, rng), len(df), rng is not None
            return self
        index = self._cells(df, duration_col, event_col)
        exact = np.bincount(index, minlength=self.design.size)
        self.n = len(df)
        self.released_ = release_histogram(exact, self.noise, rng)
        self.preview = rng is not None
        self.fit_ = fit_with_noise(self.design.table(self.released_, noisy=True), self.design.matrix(),
                                   self.design.names(), self.noise, rng=rng, draws=self.redraws, alpha=self.alpha)
        self.duration_col, self.event_col = duration_col, event_col
        return self

    def simulate(self, df: pd.DataFrame, duration_col: str, event_col: str, *, draws: int,
                 rng: np.random.Generator, redraws: int = 100) -> HazardRatioFit:
        """``draws`` seeded preview releases at once, each fitted with its own honest interval (leading axis):
        the utility over many noise draws (previews only, nothing released)."""
        if self._alternative is not None:
            return self._alternative.simulate(df, duration_col, event_col, draws=draws, rng=rng, redraws=redraws)
        exact = np.bincount(self._cells(df, duration_col, event_col), minlength=self.design.size)
        noisy = self.noise.sample(exact.astype(np.int64 if self.noise.kind == "discrete_laplace" else float),
                                  rng=rng, draws=draws)
        return fit_with_noise(self.design.table(noisy, noisy=True), self.design.matrix(), self.design.names(),
                              self.noise, rng=rng, draws=redraws, alpha=self.alpha)

    def grouped_reference(self, df: pd.DataFrame, duration_col: str, event_col: str) -> np.ndarray:
        """The grouped model fitted to the exact histogram, without noise: what the private estimates approach as ε
        grows (non-private, previews only, never exported). Its distance from lifelines' Cox is the grouping's own
        bias, which no budget removes; more intervals shrink it."""
        exact = np.bincount(self._cells(df, duration_col, event_col), minlength=self.design.size)
        return fit_table(self.design.table(exact, noisy=False), self.design.matrix())[0]

    def _fitted(self) -> HazardRatioFit:
        if not hasattr(self, "fit_"):
            raise InputError("Call fit(df, duration_col=, event_col=) first.")
        return self.fit_

    @property
    def summary(self) -> pd.DataFrame:
        """lifelines' columns (coef, exp(coef), se(coef), intervals, z, p) from sampling and privacy together."""
        return self._fitted().summary()

    @property
    def params_(self) -> pd.Series:
        return self.summary["coef"]

    def proportional_hazards_check(self, rng: np.random.Generator | None = None) -> ProportionalHazardsCheck:
        """Per-interval hazard ratios and the test of their trend, from the same released histogram (one
        categorical or binary covariate)."""
        self._fitted()
        if self._alternative is not None:
            raise InputError("The per-interval check reads the released histogram (method='histogram').")
        if len(self.design.covariates) != 1:
            raise InputError("The per-interval check reads one covariate's groups; fit one covariate for it.")
        return proportional_hazards_check(self.design.table(self.released_, noisy=True), self.noise, rng=rng,
                                          draws=self.redraws, alpha=self.alpha)

    def public_params(self) -> dict:
        if self._alternative is not None:
            return {**self._alternative.public_params(), "n": getattr(self, "n", None), "alpha": self.alpha}
        return {"covariates": {c.name: ("binary (0, 1), clipped" if c.binary else
                                        {"cut_points": list(c.cuts), "levels": list(c.levels)} if c.cuts else
                                        list(c.levels)) for c in self.design.covariates},
                "strata_column": self.design.strata_column, "strata": list(self.design.strata),
                "interval_edges": self.design.edges.tolist(), "horizon": float(self.design.edges[-1]),
                "n": self.n, "noise_kind": self.noise.kind, "sensitivity_l1": L1_SENSITIVITY,
                "sensitivity_l2": L2_SENSITIVITY, "noise": self.noise.describe(), "alpha": self.alpha,
                "privacy_variance_redraws": self.redraws, "primary": self.primary}

    def notes(self) -> tuple[str, ...]:
        return (
            (f"Released: one histogram of stratum × covariate cell × (event or censoring in each of "
             f"{self.design.shape[2]} public intervals, or followed past the horizon), plus one cell for people with "
             f"a missing covariate, each with {self.noise.describe()}. Every person is in exactly one cell, so one "
             "person moves two counts by one (sensitivity 2)."),
            f"Estimand: {ESTIMAND}",
            ("Binary covariates are clipped into their declared bounds [0, 1]; categorical levels and the cut points of "
             "a continuous covariate are declared, never read off the data. Complete cases are fitted; n is the "
             "upload's, and the people with a missing value are one released cell."),
            ("The 95 % interval and the p-value add the sampling variance (the model's information at the released "
             f"counts) and the privacy variance (the spread over {self.redraws} redraws of the known noise), so "
             "significance is read from the interval: post-processing of the released counts."),
        )

    def release_bundle(self, *, dataset: str = "uploaded data", fingerprint: str = "") -> ReleaseBundle:
        """The fit as a ReleaseBundle (data only: the released histogram and what is computed from it)."""
        if self._alternative is not None:
            raise InputError(f"method={self.method!r} is measured, not released: the histogram method is released.")
        if self.preview:
            raise InputError("This fit is a seeded preview; fit with rng=None to release.")
        tables = {"hazard_ratios": self.summary.reset_index(),
                  "released_histogram": self.design.histogram_frame(self.released_)}
        if len(self.design.covariates) == 1:
            check = self.proportional_hazards_check()
            tables.update(per_interval_hazard_ratios=check.per_interval, proportional_hazards_trend=check.trend)
        return ReleaseBundle(method=METHOD, dataset=dataset, fingerprint=fingerprint, epsilon=self.epsilon,
                             delta=self.noise.delta, mechanisms=(f"{self.noise.describe()} (OpenDP)",),
                             public_params=self.public_params(), tables=tables, relation=RELATION,
                             notes=self.notes())


def group_frame(time, event, group, columns: pd.DataFrame | None = None,
                names: tuple[str, str, str] = ("T", "E", "group")) -> pd.DataFrame:
    """The survival page's arrays as the fitter's frame: time, event (an event of any type is an event) and group (as
    text, the declared labels' type), named ``names``; ``columns``: an upload's strata and covariate columns, row for
    row. An upload passes its own column names, so the fitter's role check sees a column chosen for two roles."""
    frame = pd.DataFrame({names[0]: np.asarray(time, float), names[1]: (np.asarray(event) > 0).astype(int),
                          names[2]: np.asarray(group).astype(str)})
    return frame if columns is None else pd.concat([frame, columns.reset_index(drop=True)], axis=1)


#: share of releases a coefficient must stay significant in to count as within reach (the adjusted-Cox criterion)
WITHIN_REACH = 0.6


def significance_frontier(shares: pd.DataFrame, threshold: float = WITHIN_REACH) -> pd.Series:
    """Per coefficient, the smallest ε from which it stays significant in at least ``threshold`` of the releases
    (NaN: not within the ε tried). ``shares``: one row per ε (the index, increasing), one column per coefficient,
    the share of preview releases whose honest interval excludes 1. "Stays": every larger ε tried reaches it too."""
    shares = shares.sort_index()
    reached = shares.to_numpy() >= threshold
    stays = np.flip(np.logical_and.accumulate(np.flip(reached, axis=0), axis=0), axis=0)
    first = np.where(stays.any(axis=0), np.argmax(stays, axis=0), -1)
    eps = shares.index.to_numpy(dtype=float)
    return pd.Series(np.where(first >= 0, eps[np.maximum(first, 0)], np.nan), index=shares.columns,
                     name=f"smallest ε significant in ≥ {threshold:.0%}")


def lifelines_reference(df: pd.DataFrame, duration_col: str, event_col: str, fitter: DPCoxPHFitter) -> pd.DataFrame:
    """lifelines' ``CoxPHFitter`` (Efron ties) on the same complete, clipped rows cut at the horizon, with the same
    dummies and strata: the non-private comparison (previews and benchmarks only, never exported)."""
    from lifelines import CoxPHFitter

    design = fitter.design
    time = numeric_column(df, duration_col, minimum=0, what="duration")
    event = numeric_column(df, event_col, minimum=0, maximum=1, integer=True, what="event (0 or 1)")
    columns, missing = {}, np.zeros(len(df), bool)
    for cov in design.covariates:
        codes, miss = level_codes(df, cov)
        missing |= miss
        onehot = np.eye(len(cov.levels))[codes][:, 1:]
        for name, column in zip(cov.columns(), onehot.T):
            columns[name] = column
    frame = pd.DataFrame(columns)
    strata = None
    if design.strata_column:
        codes, miss = level_codes(df, Covariate(design.strata_column, design.strata, False))
        missing |= miss
        frame["_stratum"], strata = codes, ["_stratum"]
    horizon = design.edges[-1]
    frame["_T"], frame["_E"] = np.minimum(time, horizon), np.where(time > horizon, 0, event)
    cph = CoxPHFitter().fit(frame[~missing], "_T", "_E", strata=strata)
    return cph.summary[["coef", "exp(coef)", "se(coef)", "exp(coef) lower 95%", "exp(coef) upper 95%", "z", "p"]]

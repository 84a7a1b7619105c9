"""The release: one OpenDP draw of the count matrix and its post-processing, as a ReleaseBundle.

Returns data only (tables, public parameters, notes). Which figures go with it is decided by the
report layer (:mod:`dpcore.reporting.release_figures`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.core.mechanisms import Noise
from dpcore.reporting.release import ReleaseBundle
from dpcore.survival.estimators import (
    DEFAULT_RISK_SET,
    RISK_SETS,
    CurveSet,
    RiskTable,
    bootstrap_curves,
    incidence_curve,
    km,
    min_at_risk,
    nelson_aalen_curve,
    noise_band,
    postprocess,
    reliable_edges,
)
from dpcore.core.datasets import UNIT_DAYS
from dpcore.survival.events import SURVIVAL
from dpcore.survival.grid import RELATION, Grid
from dpcore.survival.logrank import logrank_table, logrank_test
from dpcore.survival.mechanism import noise_for, release_counts
from dpcore.survival.one_call import _declared_groups
from dpcore.survival.read import (
    BAND_RULES,
    DEFAULT_BAND,
    WITHIN_BIN_RULE,
    fine_times,
    median_table,
    read_tables,
    survival_at,
)
from dpcore.survival.statistic import DEFAULT_STATISTIC, STATISTICS, Counts, count_matrix, sensitivity


def _curve_frame(cs: CurveSet, name: str, band: tuple[np.ndarray, np.ndarray] | None = None,
                 at_risk: np.ndarray | None = None, minimum: float | None = None) -> pd.DataFrame:
    """One row per group per grid edge. With ``band`` (the noise-aware interval) ``ci_lower``/``ci_upper`` are the
    band and the Greenwood interval moves to ``greenwood_lower``/``greenwood_upper``; with ``minimum``, ``reliable``
    says whether the noisy number at risk at the edge reaches that public minimum."""
    frames = []
    for g, label in enumerate(cs.groups):
        cols = {"group": label, "time": cs.times, name: cs.estimate[g], "variance": cs.variance[g]}
        if band is not None:
            cols.update(ci_lower=band[0][g], ci_upper=band[1][g], greenwood_lower=cs.ci_lower[g],
                        greenwood_upper=cs.ci_upper[g])
        else:
            cols.update(ci_lower=cs.ci_lower[g], ci_upper=cs.ci_upper[g])
        if at_risk is not None:
            cols["at_risk_start_of_bin"] = np.append(_whole(at_risk[g]), np.nan)
        if minimum is not None:
            cols["reliable"] = reliable_edges(at_risk[g], minimum)
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


def _whole(x) -> np.ndarray:
    """Whole, non-negative people (post-processing of noisy counts)."""
    return np.maximum(np.rint(np.asarray(x, dtype=float)), 0).astype(np.int64)


#: Why the ``counts`` table holds no negative numbers (in the release's notes and on the page).
COUNTS_NOTE = ("The 'counts' table shows whole, non-negative numbers: the noise can push a count of people below 0, "
               "which is no count at all, so each is rounded and clipped at 0 (free post-processing). The mechanism's "
               "raw output, negative values included, is 'counts_unclipped': it is unbiased, and the default "
               "post-processing (counts made consistent with the total, monotone fit, no clipping before the "
               "hazard) is computed "
               "from it.")
#: Which of the two log-rank p-values to report, and why (in the release's table, notes and on the page).
LOGRANK_ADVICE = ("Report the noise-aware p-value. The plain test treats the noisy counts as real people: its "
                  "variance misses the added noise, so at small ε it finds differences that are only noise (far "
                  "more than 5 % false positives). The noise-aware test adds the variance of the known noise in "
                  "every released count (events, censorings and the count at time 0, which move the risk sets too; "
                  "delta method) and keeps false positives at or below about 5 %, at the price of power.")


#: How accurate the default release is, measured (bench/bench_survival_estimators.py, docs/survival.md), and where
#: the issue-43 goals are out of reach: shown on the page under "How accurate is the default?".
MEASURED_FRONTIER = (
    "Measured on the bundled sets (200 releases per set and ε, against lifelines on the raw times where ≥ 10 % "
    "are at risk; `docs/survival.md`). The default releases only the per-bin counts (sensitivity 2 even with "
    "groups, half the noise of the paper's grouped release). **Cohorts of 400+ people** (Myeloid, PBC, "
    "Transplant): bias ≤ 0.006 at ε = 1; sup error median / 90th percentile ≤ 0.021 / 0.039 at ε = 2; the 95 % "
    "interval covers the truth at ≥ 99 % of points (ε = 1); the log-rank decision agrees with the non-private one "
    "in all releases on Myeloid (p = 0.002) at ε = 2. **137–241 people** (Cancer, Mgus, Stanford, Veteran; two "
    "groups): bias ≤ 0.021 at ε = 1, sup error ≤ 0.042 / 0.075 at ε = 2 except on Stanford (0.066 / 0.110: its "
    "default grid at ε = 2 is yearly, 11 bins, for the reading between edges), and log-rank agreement 90 % on Cancer "
    "(p = 0.001) at ε = 2, but only 57 % on Stanford (p = 0.010; 87 % on 2-year bins, a Settings choice) and 59 % "
    "on Mgus (p = 0.012, a weaker effect). "
    "The log-rank test's false-positive rate under no difference is 2–5.6 % on these sets (2,000 permutations "
    "each, ± 0.5 %). **Out of reach:** on **23–76 people** (Gehan, "
    "Kidney, Leukemia, Ovarian) each count carries ± 2.8 people of noise at ε = 1 against 12–38 per group, so no "
    "release reaches the accuracy goals (sup error 0.12–0.27 at ε = 2), though the interval still covers the truth "
    "at ≥ 96 % of points (ε = 1); there the log-rank false-positive rate reaches 5.7–6.1 % at ε = 5–10 (the "
    "non-private binned test: 4.6–5.6 %). This default was the closest of the six releases and rules measured; the "
    "paper's release and rule are one click away.")


#: How the curve reads between edges, measured (bench/bench_survival_read.py, docs/survival.md): shown on
#: the page beside the curve.
READ_FRONTIER = (
    "Measured on nine public cohorts of 646–7,874 people (GBSG2, kidney transplant and democracy durations from "
    "lifelines; the bundled Myeloid and Transplant; R's colon, rotterdam, nwtco and flchain), 100 releases per ε, "
    "against lifelines on the exact times at every half-year. **Between edges** the curve follows a constant "
    "hazard; on the default grid (balanced for that reading) its bias is ≤ 0.008 at ε = 1 and its band covers "
    "≥ 99 % of points on all nine; on a yearly grid (half the half-years mid-bin) the bias is ≤ 0.027 on seven of "
    "them where the old step was off by 0.020–0.117. **The median's interval** holds lifelines' median in ≥ 99 % "
    "of releases at ε = 1 and 2 on every cohort and grid, never with zero width (the old reading: zero-width "
    "intervals in up to all releases); its error at ε = 1 is ≤ 2.4 % of the horizon except on Myeloid (4.5 %: its "
    "curve is flat near one half, so the noise moves the median by months). **Times recorded in whole units** "
    "(e.g. whole years) must be declared (Settings: 'Times recorded in') to be read as recorded: undeclared, the exact curve steps where the "
    "constant-hazard path does not (bias 0.15, coverage 74 % of half-years on whole-year data); declared, bias "
    "0.008 and coverage 99 %.")


def numbers_at_risk_frame(table: RiskTable) -> pd.DataFrame:
    """Numbers at risk (whole, ≥ 0) at the start of every bin, per group, from a post-processed noisy table."""
    grid = table.grid
    return pd.concat([pd.DataFrame({"group": label, "time": grid.display[:-1], "at_risk": _whole(table.at_risk[g])})
                      for g, label in enumerate(table.groups)], ignore_index=True)


#: Times a summary table reads the curve at by default, in years (converted to the grid's unit; those past the
#: horizon are dropped).
READ_YEARS = (1.0, 2.0, 5.0)
#: Points per bin of the exported curve read by the within-bin rule (``kaplan_meier_curve``).
CURVE_POINTS_PER_BIN = 8


def default_read_times(grid: Grid, years=READ_YEARS) -> tuple[float, ...]:
    """``years`` in the grid's display unit, those inside the horizon (public: the grid and the years only)."""
    per_year = UNIT_DAYS["years"] / UNIT_DAYS[grid.grid_unit]
    return tuple(float(y * per_year) for y in years if 0 < y * per_year <= grid.display[-1] + 1e-9)


def released_tables(rel: Counts, noise: Noise, *, alpha: float = 0.05, band_draws: int = 200,
                    rng: np.random.Generator | None = None, risk_set: str = DEFAULT_RISK_SET,
                    read_times=None, rmst_horizon: float | None = None,
                    band_rule: str = DEFAULT_BAND, time_resolution: float | None = None) -> dict[str, pd.DataFrame]:
    """Every table of a release, computed from the released (noisy) counts only.

    ``read_times`` (grid units; default 1, 2 and 5 years inside the horizon) and ``rmst_horizon`` (grid units;
    default the horizon) are public choices of the summary tables (:func:`dpcore.survival.read.read_tables`);
    ``band_rule`` (:data:`BAND_RULES`) how far the band between edges is widened towards the monotone envelope;
    ``time_resolution`` (the data's unit, public: the custodian's statement of how times were recorded, e.g. 1 for
    whole years in years) reads every curve and summary as the staircase such times give (:func:`on_resolution`).
    """
    if time_resolution is not None and not (np.isfinite(time_resolution) and time_resolution > 0):
        raise ValueError(f"time_resolution must be a positive length in the data's unit, not {time_resolution!r}")
    if band_rule not in BAND_RULES:
        raise ValueError(f"band_rule must be one of {list(BAND_RULES)}, not {band_rule!r}")
    widen = BAND_RULES[band_rule]
    rng = rng if rng is not None else np.random.default_rng()
    grid, K = rel.grid, rel.n_types
    resolution = None if time_resolution is None else float(time_resolution) / grid.step  # in grid units
    tables: dict[str, pd.DataFrame] = {}
    all_cause = rel.collapse_types()
    table = postprocess(all_cause, risk_set=risk_set)
    shown, raw = [], []
    for g, label in enumerate(rel.groups):
        bins = {"group": label, "bin": np.arange(1, grid.k + 1), "t_start": grid.display[:-1],
                "t_end": grid.display[1:]}
        row, unclipped = dict(bins, at_risk=_whole(table.at_risk[g])), dict(bins)
        for i, ev in enumerate(rel.event_labels):
            name = "events" if K == 1 else f"events_{ev}"
            row[name], unclipped[name] = _whole(rel.events[g, :, i]), rel.events[g, :, i]
        row["censored"], unclipped["censored"] = _whole(rel.censored[g]), rel.censored[g]
        shown.append(pd.DataFrame(row))
        raw.append(pd.DataFrame(unclipped))
    tables["counts"] = pd.concat(shown, ignore_index=True)
    tables["counts_unclipped"] = pd.concat(raw, ignore_index=True)
    tables["at_start"] = pd.DataFrame({"group": rel.groups, "noisy_n": _whole(rel.at_start),
                                       "noisy_n_unclipped": rel.at_start})
    tables["numbers_at_risk"] = numbers_at_risk_frame(table)
    cs = km(table, alpha=alpha)
    redraws = bootstrap_curves(all_cause, noise, draws=band_draws, rng=rng, alpha=alpha, risk_set=risk_set)
    band = tuple(np.quantile(redraws, [alpha / 2, 1 - alpha / 2], axis=0))
    minimum = min_at_risk(noise.std)
    tables["kaplan_meier"] = _curve_frame(cs, "survival", band, table.at_risk, minimum)
    # read where a clinician reads it: every table below from the released kaplan_meier table (and its redraws)
    tables["kaplan_meier_curve"] = survival_at(tables["kaplan_meier"], fine_times(grid.display, CURVE_POINTS_PER_BIN),
                                               widen=widen, resolution=resolution)
    tables["median"] = median_table(tables["kaplan_meier"], grid.grid_unit, alpha=alpha, widen=widen,
                                    resolution=resolution)
    times = default_read_times(grid) if read_times is None else tuple(read_times)
    tables.update(read_tables(cs.times, cs.estimate, band[0], band[1], redraws, rel.groups, times=times,
                              tau=grid.display[-1] if rmst_horizon is None else float(rmst_horizon),
                              unit=grid.grid_unit, alpha=alpha, widen=widen, resolution=resolution))
    na_band = noise_band(all_cause, noise, draws=band_draws, rng=rng, estimator="na", alpha=alpha, risk_set=risk_set)
    tables["nelson_aalen"] = _curve_frame(nelson_aalen_curve(table, alpha=alpha), "cumulative_hazard", na_band,
                                          at_risk=table.at_risk, minimum=minimum)
    if rel.n_groups >= 2:
        pooled = postprocess(all_cause.pooled(), risk_set=risk_set)
        pooled_band = noise_band(all_cause, noise, draws=band_draws, rng=rng, alpha=alpha, risk_set=risk_set,
                                 pool_groups=True)
        tables["kaplan_meier_pooled"] = _curve_frame(km(pooled, alpha=alpha), "survival", pooled_band,
                                                     pooled.at_risk, minimum)
        lr_table = logrank_table(all_cause, noise.std, risk_set=risk_set)
        lr = logrank_test(lr_table)
        lr_na = logrank_test(lr_table, noise_var=noise.std**2, n_types=rel.n_types)
        tables["logrank"] = pd.DataFrame({
            "variance": ["hypergeometric + DP noise (noise-aware)", "hypergeometric (spec)"],
            "recommended": [True, False],
            "statistic": [float(lr_na.statistic), float(lr.statistic)], "degrees_of_freedom": [lr.dof, lr.dof],
            "p_value": [float(lr_na.p_value), float(lr.p_value)]})
    if K > 1:
        full = postprocess(rel.pooled(), risk_set=risk_set)
        frames = []
        for k, ev in enumerate(rel.event_labels, start=1):
            band_k = noise_band(rel, noise, draws=band_draws, rng=rng, estimator="cif", alpha=alpha, event_type=k,
                                risk_set=risk_set, pool_groups=True)
            f = _curve_frame(incidence_curve(full, event_type=k, alpha=alpha), "incidence", band_k,
                             at_risk=full.at_risk, minimum=minimum)
            f.insert(1, "event_type", ev)
            frames.append(f)
        tables["cumulative_incidence"] = pd.concat(frames, ignore_index=True)
    return tables


def derived_from_tables(tables: dict[str, pd.DataFrame]) -> dict:
    """The headline values a release reports, read off its own DP tables (median survival, the log-rank p to use)."""
    derived = {"median_survival": dict(zip(tables["median"]["group"], tables["median"]["reported"])),
               "restricted_mean_survival": dict(zip(tables["rmst"]["group"], tables["rmst"]["reported"]))}
    if "logrank" in tables:
        best = tables["logrank"][tables["logrank"]["recommended"]].iloc[0]
        derived.update(logrank_recommended=best["variance"], logrank_p_value=float(best["p_value"]),
                       logrank_advice=LOGRANK_ADVICE)
    return derived


def release(time, event, *, grid: Grid, epsilon: float, group=None, groups: Sequence[str] | None = None,
            n_types: int = 1, event_labels: Sequence[str] | None = None, dataset: str = "uploaded data",
            fingerprint: str = "", alpha: float = 0.05, band_draws: int = 200,
            risk_set: str = DEFAULT_RISK_SET, group_column: str | None = None,
            statistic: str = DEFAULT_STATISTIC, noise_kind: str = "discrete_laplace", delta: float = 0.0,
            read_times=None, rmst_horizon: float | None = None, band_rule: str = DEFAULT_BAND,
            time_resolution: float | None = None):
    """One OpenDP release of the count matrices and everything derived from them, as a ReleaseBundle.

    Only the discrete-Laplace-noised counts and their post-processing are
    exported; the exact counts never leave this function. With ``group``,
    the declared label list ``groups`` is required (see :func:`count_matrix`);
    ``group_column`` (public: the column's name) names the groups in figures ("sex = 1").
    ``statistic`` (:data:`STATISTICS`): the default noises the histogram of (group, bin, outcome) at Δ1 = 2;
    ``"matrix"`` is the paper's release (the number at the start noised too; Δ1 = 4 with groups).
    ``noise_kind``: ``"discrete_laplace"`` (ε-DP, the default) or ``"gaussian"`` (``(ε, delta)``-DP at the L2
    sensitivity, for several releases on one budget: see :data:`dpcore.survival.NOISE_KINDS`).

    The ``kaplan_meier`` table has one row per group per grid edge: ``survival``, and ``ci_lower``/``ci_upper``,
    the 95 % interval that covers the privacy noise as well as the sampling error (:func:`noise_band`: a
    parametric bootstrap from the released counts alone, so free post-processing), the Greenwood interval
    (sampling only) as ``greenwood_lower``/``greenwood_upper``, and ``reliable`` (the noisy number at risk
    reaches the public :func:`min_at_risk`). The ``nelson_aalen`` and ``cumulative_incidence`` tables carry
    their own noise-aware interval the same way (sampling-only beside it).

    Read where a clinician reads it (:mod:`dpcore.survival.read`, one within-bin rule): ``kaplan_meier_curve``
    (the curve and band between edges), ``median`` (read by the rule, its interval the band inverted at 0.5),
    ``survival_at_times`` at ``read_times`` (grid units; default 1, 2 and 5 years), ``rmst`` to ``rmst_horizon``
    (default the horizon) and, with groups, ``differences``; ``band_rule`` (:data:`BAND_RULES`, default
    ``"half"``; ``"envelope"`` where times are recorded in whole grid units, so the exact curve steps at the edges)
    sets how far the band between edges is widened towards what a monotone curve allows; ``time_resolution``
    (the data's unit; public: how the custodian states the times were recorded, e.g. whole years) reads every
    curve and summary as the staircase such times give (steps only at its multiples).
    """
    groups = _declared_groups(group, groups, epsilon, None)
    counts = count_matrix(time, event, grid, group=group, groups=groups, n_types=n_types, event_labels=event_labels,
                          statistic=statistic)
    if noise_kind not in ("discrete_laplace", "gaussian"):
        raise ValueError(f"a survival release uses discrete Laplace or Gaussian noise, not {noise_kind!r}")
    noise = noise_for(counts, epsilon, kind=noise_kind, delta=delta)
    rel = release_counts(counts, noise)
    tables = released_tables(rel, noise, alpha=alpha, band_draws=band_draws, risk_set=risk_set,
                             read_times=read_times, rmst_horizon=rmst_horizon, band_rule=band_rule,
                             time_resolution=time_resolution)
    params = {**grid.public_params(), "groups": list(counts.groups), "event_types": list(counts.event_labels),
              "time_above_horizon": "censored at the horizon", "noise_kind": noise.kind,
              "sensitivity_l1": sensitivity(counts.n_groups, statistic=counts.statistic),
              **({"sensitivity_l2": noise.sensitivity} if noise.kind == "gaussian" else {}),
              "noise": noise.describe(), "noise_std_per_count": noise.std, "alpha": alpha,
              "interval": f"parametric bootstrap from the released counts, {band_draws} redraws, each with its own "
                          "sampling error (post-processing)",
              "min_at_risk": min_at_risk(noise.std), "group_column": group_column,
              "within_bin_rule": WITHIN_BIN_RULE, "band_between_edges": band_rule,
              "band_widening_towards_the_monotone_envelope": BAND_RULES[band_rule],
              "times_recorded_in_whole": (None if time_resolution is None
                                          else f"{time_resolution:g} {grid.data_unit} (declared by the custodian)"),
              "risk_set": risk_set, "statistic": statistic, "released_statistic": STATISTICS[statistic],
              "post_processing": f"{RISK_SETS[risk_set]}; events clipped to the number at risk"}
    released = ("per group and bin, the events of each type and the censorings (the number at time 0 of each "
                "group is their sum, and all groups together are pinned to the total n, which replace-one "
                "neighbours share and this release treats as public)" if statistic == "histogram" else
                "per group, the number at risk at time 0 and, per bin, the events of each type and the censorings "
                "(the paper's release)")
    notes = (
        f"Released: {released}, each with {noise.describe()} (± {noise.std:.3g} people).",
        "Curves, intervals, medians and the log-rank test are post-processing of those counts.",
        "Every curve's 95 % interval (ci_lower, ci_upper: survival, cumulative hazard, cumulative incidence) covers "
        "the added noise as well as sampling error (a parametric bootstrap from the released counts); the "
        "sampling-only interval (greenwood_lower, greenwood_upper) is kept beside it.",
        f"Where the noisy number at risk falls below {min_at_risk(noise.std):.3g} (the public minimum: 10 people "
        "or 3 noise standard deviations) a bin's hazard is a ratio of noise-sized numbers: 'reliable' is False "
        "there and the figures fade the curve; the values and intervals are kept.",
        COUNTS_NOTE,
        f"Between grid edges every curve, table and figure is read by one rule: {WITHIN_BIN_RULE}. The 95 % band "
        f"between edges is the edges' band on the same path, widened {BAND_RULES[band_rule]:.0%} of the way to what "
        "a never-increasing curve allows inside the bin (between the neighbouring edges' bounds); "
        "'kaplan_meier_curve' is the curve and band so read at 8 points per bin." + (
            "" if time_resolution is None else
            f" The data's custodian declared every time recorded as a whole multiple of {time_resolution:g} "
            f"{grid.data_unit} (public: how the study recorded them, not read from the data): every reading is "
            "taken at the last such multiple at or before the time asked (the exact curve is flat in between). "
            "Every curve, median, interval and summary between the edges rests on that declaration, which the "
            "release does not check; the privacy guarantee does not depend on it."),
        "Median survival: where the curve read by that rule reaches 0.5 ('not reached' if it does not by the "
        "horizon); its interval inverts the band at 0.5 (Brookmeyer–Crowley), so it covers the DP noise as well as "
        "sampling error, and is never of zero width. 'survival_at_times' (1, 2 and 5 years by default), 'rmst' "
        "(the restricted mean survival time to the horizon, its interval from the band's redraws) and, with "
        "groups, 'differences' are read the same way.",
    ) + ((LOGRANK_ADVICE,) if counts.n_groups >= 2 else ()) + ((
        f"Gaussian noise: (ε, δ) = ({epsilon:g}, {noise.delta:g}) for this release. Several Gaussian releases of the "
        "same people compose to one Gaussian (the ledger's tight accounting), so their noise grows like the square "
        "root of their number; one release alone is less accurate than with discrete Laplace noise.",)
        if noise.kind == "gaussian" else ())
    return ReleaseBundle(method=SURVIVAL, dataset=dataset, fingerprint=fingerprint,
                         epsilon=float(epsilon), delta=float(noise.delta),
                         mechanisms=(f"{noise.describe()} (OpenDP)",),
                         public_params=params, tables=tables, derived_params=derived_from_tables(tables),
                         relation=RELATION, notes=notes)

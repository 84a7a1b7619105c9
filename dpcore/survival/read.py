"""Post-processing — the curve read where a clinician reads it: between the grid edges, the median and
its interval, survival at chosen times, the restricted mean, differences between groups.

Everything here reads **released** values only: a release's ``kaplan_meier`` table (its edges, curve and 95 %
band) or the redrawn curves of :func:`dpcore.survival.estimators.bootstrap_curves` (redraws of the known noise
around the released counts). Nothing reads a private count, so everything is free post-processing.

**The within-bin rule** (:data:`WITHIN_BIN_RULE`, one rule for the figure, the tables, the median and the
exports): the default estimator is actuarial, i.e. it assumes a constant hazard inside a bin, so between two edges
the curve follows the exponential path ``S(t) = S(t_j) · (S(t_{j+1}) / S(t_j))^u``, ``u = (t − t_j)/(t_{j+1} − t_j)``
(a straight line where the later edge is 0), never a step.

**The band between edges** (:data:`BAND_RULES`): the band's edges follow the same path, then each bound is moved
towards what a monotone curve allows inside the bin (the truth lies between the neighbouring edges' values:
below the earlier edge's upper bound, above the later edge's lower bound) by the fraction ``widen`` of that room
(0: the path band; 1: the whole monotone envelope, which covers wherever the edges are covered). The default
fraction was measured (``bench/bench_survival_read.py``, ``docs/survival.md``).

**Times recorded in whole units** (``resolution``, a public declaration of how the times were recorded, e.g. whole
years): the exact Kaplan–Meier curve then steps only at multiples of the resolution, so every reading is taken at
the last multiple at or before the time asked (the curve is flat in between), the median and its interval's ends
are multiples of it and the restricted mean is the area under that staircase. Nothing is read from the data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The one within-bin rule, in words (page, docs, release notes).
WITHIN_BIN_RULE = ("between two grid edges the curve follows a constant hazard (the actuarial estimator's own "
                   "assumption): S(t) = S(t_j)·(S(t_j+1)/S(t_j))^u with u the fraction of the bin elapsed, an "
                   "exponential path rather than a step (a straight line where the later edge is 0)")
#: How far the band between edges is widened towards the monotone envelope (0 = path band, 1 = envelope).
BAND_RULES = {
    "path": 0.0,
    "quarter": 0.25,
    "half": 0.5,
    "envelope": 1.0,
}
DEFAULT_BAND = "half"
#: Sub-points per bin at which a band is evaluated to find where it crosses a level (the median's interval).
SUBSTEPS = 64
LEVEL = 0.5


def on_resolution(times, resolution: float | None) -> np.ndarray:
    """``times`` moved back to the last multiple of a declared ``resolution`` (unchanged without one): where times
    are recorded in whole units the exact curve is flat between multiples, so it is read at the last one."""
    times = np.asarray(times, float)
    if resolution is None:
        return times
    return np.floor(times / resolution + 1e-9) * resolution


def _up_to_resolution(times, resolution: float | None) -> np.ndarray:
    """The first multiple of ``resolution`` at or after each time (inf stays inf): where a staircase recorded in
    whole units first reaches a level that its continuous reading reaches at ``times``."""
    times = np.asarray(times, float)
    if resolution is None:
        return times
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(times), np.ceil(times / resolution - 1e-9) * resolution, times)


def _bins(edges: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bin index ``j`` (``t_j ≤ t ≤ t_{j+1}``) and the fraction ``u`` of the bin elapsed, for every time."""
    k = edges.size - 1
    j = np.clip(np.searchsorted(edges, times, side="right") - 1, 0, k - 1)
    u = np.clip((times - edges[j]) / (edges[j + 1] - edges[j]), 0.0, 1.0)
    return j, u


def path(edges, values, times) -> np.ndarray:
    """The within-bin rule: ``values`` (..., k+1) at ``edges`` read at ``times`` (m,) → (..., m).

    Exponential (constant-hazard) path between positive neighbours, linear where one of them is 0; NaN outside
    ``[0, horizon]`` (nothing is released there).
    """
    edges, times = np.asarray(edges, float), np.asarray(times, float)
    v = np.asarray(values, float)
    j, u = _bins(edges, times)
    a, b = v[..., j], v[..., j + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        expo = a * np.power(np.where(a > 0, b / np.where(a > 0, a, 1.0), 0.0), u)
    out = np.where((a > 0) & (b > 0), expo, a + (b - a) * u)
    return np.where((times < edges[0]) | (times > edges[-1] * (1 + 1e-12)), np.nan, out)


def band_at(edges, lower, upper, times, *, widen: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The band at ``times``: each bound on the path, moved by ``widen`` (default :data:`DEFAULT_BAND`'s) of the way
    to the monotone envelope ``[lower(t_{j+1}), upper(t_j)]``. Exact at the edges."""
    widen = BAND_RULES[DEFAULT_BAND] if widen is None else float(widen)
    edges, times = np.asarray(edges, float), np.asarray(times, float)
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    j, u = _bins(edges, times)
    inside = widen * ((u > 0) & (u < 1))  # at an edge the edge's own band holds
    lo, hi = path(edges, lower, times), path(edges, upper, times)
    lo = lo - inside * np.maximum(lo - lower[..., j + 1], 0.0)
    hi = hi + inside * np.maximum(upper[..., j] - hi, 0.0)
    return lo, hi


def _as_arrays(km_table: pd.DataFrame, value: str = "survival"):
    """``(groups, edges, curve (G, k+1), lower, upper)`` from a released curve table (one row per group and edge;
    without a ``group`` column, one group ``"all"``)."""
    if "group" not in km_table:
        km_table = km_table.assign(group="all")
    groups = tuple(dict.fromkeys(km_table["group"]))
    parts = [km_table[km_table["group"] == g].sort_values("time") for g in groups]
    edges = parts[0]["time"].to_numpy(float)
    stack = [np.array([p[c if c in p else value].to_numpy(float) for p in parts])  # no band: the curve itself
             for c in (value, "ci_lower", "ci_upper")]
    return groups, edges, *stack


def curve_table(times, estimate, lower, upper, groups) -> pd.DataFrame:
    """A released curve as the table :func:`survival_at` reads (``group, time, survival, ci_lower, ci_upper``) from
    arrays (G, k+1) at the edges ``times``."""
    return pd.concat([pd.DataFrame({"group": g, "time": np.asarray(times, float), "survival": estimate[i],
                                    "ci_lower": lower[i], "ci_upper": upper[i]}) for i, g in enumerate(groups)],
                     ignore_index=True)


def survival_at(km_table: pd.DataFrame, times, *, widen: float | None = None,
                resolution: float | None = None) -> pd.DataFrame:
    """The released curve and its 95 % band at any ``times`` (in the table's own unit), read by the one rule.

    ``km_table``: a release's ``kaplan_meier`` table (``group, time, survival, ci_lower, ci_upper``). Returns
    ``group, time, survival, ci_lower, ci_upper`` (NaN beyond the horizon). ``resolution`` (the table's unit): the
    declared unit the times were recorded in; each time is read at its last multiple. Post-processing of released
    values.
    """
    groups, edges, S, lo, hi = _as_arrays(km_table)
    times = np.atleast_1d(np.asarray(times, float))
    read = on_resolution(times, resolution)
    est = path(edges, S, read)
    b_lo, b_hi = band_at(edges, lo, hi, read, widen=widen)
    b_lo, b_hi = np.fmin(b_lo, est), np.fmax(b_hi, est)  # the band holds its curve (a straight piece into 0 too)
    return pd.concat([pd.DataFrame({"group": g, "time": times, "survival": est[i], "ci_lower": b_lo[i],
                                    "ci_upper": b_hi[i]}) for i, g in enumerate(groups)], ignore_index=True)


def fine_times(edges, substeps: int = SUBSTEPS) -> np.ndarray:
    """Every edge and ``substeps − 1`` equally spaced points inside each bin (for figures and crossings)."""
    edges = np.asarray(edges, float)
    u = np.arange(substeps) / substeps
    inner = (edges[:-1, None] + np.diff(edges)[:, None] * u[None, :]).ravel()
    return np.append(inner, edges[-1])


def first_below(times, values, level: float = LEVEL, *, side: str = "linear") -> np.ndarray:
    """First time a curve sampled at ``times`` (..., m) falls to ``level``; inf if never. ``side``: "linear"
    (between the two samples around the crossing), "before" (the last sample above: a conservative lower end),
    "after" (the first sample at or below: a conservative upper end)."""
    times = np.asarray(times, float)
    v = np.minimum.accumulate(np.nan_to_num(np.asarray(values, float), nan=np.inf), axis=-1)  # "first reaches"
    below = v <= level
    i = np.argmax(below, axis=-1)
    reached = below.any(axis=-1)
    prev = np.maximum(i - 1, 0)
    v1 = np.take_along_axis(v, prev[..., None], -1)[..., 0]
    v2 = np.take_along_axis(v, i[..., None], -1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(v1 > v2, (v1 - level) / (v1 - v2), 1.0)
    t = times[prev] + np.clip(f, 0.0, 1.0) * (times[i] - times[prev])
    t = {"linear": t, "before": times[prev], "after": times[i]}[side]
    return np.where(reached, np.where(i == 0, times[0], t), np.inf)


def median_read(edges, S, lower, upper, *, widen: float | None = None, level: float = LEVEL,
                resolution: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Median (where the curve, read by the rule, reaches ``level``) and its interval (Brookmeyer–Crowley: the times
    where the band's lower and upper bounds reach it). ``inf`` = not reached by the horizon. Never zero width:
    where the two bounds cross within one sub-step (a vertical band) the interval is the bin holding the median;
    with a declared ``resolution`` every end is the first multiple at or after its crossing, and where both ends
    fall on one multiple the interval is the step ending there. Arrays (..., k+1) → (...)."""
    edges = np.asarray(edges, float)
    t = fine_times(edges)
    median = first_below(t, path(edges, S, t), level)
    b_lo, b_hi = band_at(edges, lower, upper, t, widen=widen)
    low, high = first_below(t, b_lo, level, side="before"), first_below(t, b_hi, level, side="after")
    if resolution is not None:
        median, low, high = (_up_to_resolution(x, resolution) for x in (median, low, high))
        low, high = np.minimum(low, median), np.maximum(high, median)
        with np.errstate(invalid="ignore"):
            flat = np.isfinite(median) & (high - low < 0.5 * resolution)
        return median, np.where(flat, np.maximum(high - resolution, 0.0), low), high
    low = np.minimum(low, median)  # the interval holds its own estimate (the band holds the curve)
    high = np.maximum(high, median)
    j = np.clip(np.searchsorted(edges, median, side="left") - 1, 0, edges.size - 2)
    step = np.diff(edges)[j] / SUBSTEPS
    with np.errstate(invalid="ignore"):  # inf − inf where nothing is reached
        flat = np.isfinite(median) & (high - low <= step * (1 + 1e-9))  # both bounds cross within one sub-step
    low = np.where(flat, edges[j], low)
    high = np.where(flat, edges[j + 1], high)
    return median, low, high


def describe(value: float, low: float, high: float, unit: str, level: float = 0.95, digits: int = 3) -> str:
    """``"9.4 months (95 % CI 7.1 to 11)"``; "not reached" for an infinite or missing end."""
    def text(x):
        return "not reached" if x is None or not np.isfinite(x) else f"{x:.{digits}g}"
    head = "not reached" if value is None or not np.isfinite(value) else f"{value:.{digits}g} {unit}"
    return f"{head} ({level:.0%} CI {text(low)} to {text(high)})".replace("%", " %")


def median_table(km_table: pd.DataFrame, unit: str, *, widen: float | None = None, alpha: float = 0.05,
                 resolution: float | None = None) -> pd.DataFrame:
    """Per group: median survival read by the rule and its interval (the band inverted at 0.5); empty = not
    reached. From the released ``kaplan_meier`` table only."""
    groups, edges, S, lo, hi = _as_arrays(km_table)
    m, a, b = median_read(edges, S, lo, hi, widen=widen, resolution=resolution)
    fin = lambda x: np.where(np.isfinite(x), x, np.nan)  # noqa: E731
    return pd.DataFrame({"group": groups, "median_survival": fin(m), "ci_lower": fin(a), "ci_upper": fin(b),
                         "reported": [describe(*v, unit, 1 - alpha) for v in zip(m, a, b)],
                         "interval": "the curve's 95 % band (noise and sampling), read by the within-bin rule, "
                                     "inverted at 0.5; empty = not reached by the horizon"})


def rmst(edges, curves, tau: float, *, resolution: float | None = None) -> np.ndarray:
    """Restricted mean survival time ``∫_0^τ S(t) dt`` of curves (..., k+1) read by the rule (τ ≤ the horizon);
    with a declared ``resolution``, the area under the staircase read at its multiples."""
    edges = np.asarray(edges, float)
    tau = min(float(tau), float(edges[-1]))
    if resolution is not None:
        steps = np.arange(0.0, tau, float(resolution))
        return path(edges, curves, steps) @ np.diff(np.append(steps, tau))
    t = fine_times(edges)
    t = np.append(t[t < tau], tau)
    return np.trapezoid(path(edges, curves, t), t, axis=-1)


def _quantiles(draws: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over axis 0; an end is inf/−inf where more than α/2 of the draws are (not reached)."""
    lo, hi = np.quantile(np.where(np.isnan(draws), np.inf, draws), [alpha / 2, 1 - alpha / 2], axis=0)
    return lo, hi


def _gap(edges, lower, upper, times, widen: float | None = None):
    """How far the band at ``times`` was widened (per bound) — added to a difference's interval too."""
    p_lo, p_hi = band_at(edges, lower, upper, times, widen=0.0)
    b_lo, b_hi = band_at(edges, lower, upper, times, widen=widen)
    return p_lo - b_lo, b_hi - p_hi


def read_tables(edges, estimate, lower, upper, redraws, groups, *, times, tau: float, unit: str,
                alpha: float = 0.05, widen: float | None = None,
                resolution: float | None = None) -> dict[str, pd.DataFrame]:
    """The summary tables a clinician quotes, from released values only.

    ``estimate``/``lower``/``upper`` (G, k+1): the released curve and band; ``redraws`` (R, G, k+1): the
    bootstrap redraws behind the band (:func:`bootstrap_curves`), for summaries whose interval needs the joint law
    over time or groups. Returns ``survival_at_times`` (survival at the chosen ``times`` with the band read by the
    rule), ``rmst`` (restricted mean to ``tau`` with a percentile interval over the redraws) and, with two or more
    groups, ``differences`` (each group minus the first: survival at the times, median, restricted mean).
    ``resolution``: the declared unit the times were recorded in (:func:`on_resolution`), read the same way.
    """
    edges = np.asarray(edges, float)
    times = np.asarray([t for t in np.atleast_1d(np.asarray(times, float)) if 0 < t <= edges[-1]], float)
    tables: dict[str, pd.DataFrame] = {}
    read = on_resolution(times, resolution)
    est_t = path(edges, estimate, read)
    lo_t, hi_t = band_at(edges, lower, upper, read, widen=widen)
    lo_t, hi_t = np.fmin(lo_t, est_t), np.fmax(hi_t, est_t)
    tables["survival_at_times"] = pd.concat([pd.DataFrame({
        "group": g, "time": times, "survival": est_t[i], "ci_lower": lo_t[i], "ci_upper": hi_t[i],
        "reported": [f"{s:.2f} (95 % CI {a:.2f} to {b:.2f})" for s, a, b in zip(est_t[i], lo_t[i], hi_t[i])]})
        for i, g in enumerate(groups)], ignore_index=True)
    r_est = rmst(edges, estimate, tau, resolution=resolution)
    r_draws = rmst(edges, redraws, tau, resolution=resolution)
    r_lo, r_hi = _quantiles(r_draws, alpha)
    r_lo, r_hi = np.minimum(r_lo, r_est), np.maximum(r_hi, r_est)
    tables["rmst"] = pd.DataFrame({"group": groups, "horizon": min(tau, edges[-1]), "rmst": r_est, "ci_lower": r_lo,
                                   "ci_upper": r_hi,
                                   "reported": [describe(*v, unit, 1 - alpha) for v in zip(r_est, r_lo, r_hi)]})
    if len(groups) >= 2:
        rows = []
        med = median_read(edges, estimate, lower, upper, widen=widen, resolution=resolution)[0]
        t_f = fine_times(edges)
        med_draws = _up_to_resolution(first_below(t_f, path(edges, redraws, t_f)), resolution)  # (R, G)
        s_draws = path(edges, redraws, read)  # (R, G, m)
        g_lo, g_hi = _gap(edges, lower, upper, read, widen)
        for i in range(1, len(groups)):
            name = f"{groups[i]} − {groups[0]}"
            d = s_draws[:, i] - s_draws[:, 0]
            lo, hi = _quantiles(d, alpha)
            # the within-bin allowance of each curve widens the difference too (each bound by the other's room)
            point = est_t[i] - est_t[0]
            lo, hi = np.minimum(lo - g_lo[i] - g_hi[0], point), np.maximum(hi + g_hi[i] + g_lo[0], point)
            for t, p, a, b in zip(times, point, lo, hi):
                rows.append({"comparison": name, "measure": f"survival at {t:g} {unit}", "difference": p,
                             "ci_lower": a, "ci_upper": b})
            with np.errstate(invalid="ignore"):
                md = med_draws[:, i] - med_draws[:, 0]
            both = np.isfinite(med_draws[:, i]) & np.isfinite(med_draws[:, 0])
            mp = med[i] - med[0] if np.isfinite(med[i]) and np.isfinite(med[0]) else np.nan
            if np.isfinite(mp) and both.mean() >= 1 - alpha / 2:
                a, b = np.quantile(md[both], [alpha / 2, 1 - alpha / 2])
                a, b = min(a, mp), max(b, mp)
            else:
                a = b = np.nan
            rows.append({"comparison": name, "measure": "median survival", "difference": mp, "ci_lower": a,
                         "ci_upper": b})
            a, b = np.quantile(r_draws[:, i] - r_draws[:, 0], [alpha / 2, 1 - alpha / 2])
            rp = r_est[i] - r_est[0]
            rows.append({"comparison": name, "measure": f"restricted mean to {min(tau, edges[-1]):.4g} {unit}",
                         "difference": rp, "ci_lower": min(a, rp), "ci_upper": max(b, rp)})
        diff = pd.DataFrame(rows)
        diff["reported"] = [("not estimable (a median not reached in the redraws)" if not np.isfinite(r.ci_lower)
                             else f"{r.difference:+.3g} (95 % CI {r.ci_lower:+.3g} to {r.ci_upper:+.3g})")
                            for r in diff.itertuples()]
        tables["differences"] = diff
    return tables

"""Plotly figure builders for the survival page (plain functions, unit-testable, no Streamlit)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.reporting.figures import (
    NONPRIVATE,
    PALETTE,
    PRIVATE,
    WARNING,
    add_numbers_at_risk,
    add_trace,
    annotate,
    band,
    base_layout,
    curve,
    epsilon_axis,
    fixed_margins,
    new_spec,
    on,
    plot_text,
    relayout,
    rgba,
    series_marks,
    split_reliable,
    subplots,
    text_legend,
    to_figure,
    vline,
)
from dpcore.reporting.alt_text import set_summary
from dpcore.survival.estimators import CurveSet, reliable_edges
from dpcore.survival.grid import ESTIMATORS
from dpcore.survival.monte_carlo import SurvivalUtilityCurve
from dpcore.survival.read import fine_times, on_resolution, path, survival_at

Y_TITLES = {"km": "survival probability S(t)", "na": "cumulative hazard H(t)", "cif": "cumulative incidence F(t)"}
FADED_NOTE = "dotted: fewer than {m:.3g} people at risk (noisy count): noise, not signal"


def _private_curve(fig, t, y, at_risk, min_at_risk, **style) -> bool:
    """The private curve, solid while the noisy number at risk reaches ``min_at_risk`` and dotted, faded after;
    returns whether a part was faded."""
    if at_risk is None or min_at_risk is None:
        curve(fig, t, y, **style)
        return False
    solid, faded = split_reliable(y, reliable_edges(at_risk, min_at_risk))
    curve(fig, t, solid, **style)
    if np.isnan(solid).sum() == 0:
        return False
    curve(fig, t, faded, **{**style, "name": style["name"] + ", few at risk", "dash": "dot", "width": 1.2,
                            "opacity": 0.45, "showlegend": False})
    return True


def _faded_note(fig, min_at_risk: float) -> None:
    annotate(fig, text=FADED_NOTE.format(m=min_at_risk), xref="paper", yref="paper", x=1, y=0.02, showarrow=False,
             xanchor="right", yanchor="bottom", font=dict(size=11), bgcolor="rgba(255,255,255,0.7)")


def _y_range(estimator: str, *arrays) -> list[float] | None:
    if estimator in ("km", "cif"):
        return [-0.02, 1.02]
    top = max(float(np.nanmax(np.where(np.isfinite(a), a, np.nan))) for a in arrays if a is not None)
    return [0, top * 1.05 if top > 0 else 1]


def headline_figure(private: CurveSet, exact: CurveSet | None, *, estimator: str = "km", group: int = 0,
                    noise_band: tuple[np.ndarray, np.ndarray] | None = None, time_label: str = "time",
                    title: str | None = None, legend: bool = True, at_risk: np.ndarray | None = None,
                    exact_at_risk: np.ndarray | None = None, min_at_risk: float | None = None,
                    height: int | None = None) -> go.Figure:
    """Private vs non-private curve of one group with the Greenwood interval of each and the noise band.

    ``legend=False`` draws no legend (the browser draws a chart without one noticeably faster while a slider
    moves): the caller then names the lines in text; the traces keep their names for the hover.
    ``at_risk`` (k,): the noisy number at risk per bin, printed in a numbers-at-risk table under the plot, with
    ``exact_at_risk`` (the true numbers, a preview's comparison) as a second row. With ``min_at_risk`` (public)
    the private curve is dotted and faded where the noisy number at risk falls below it, with a note.
    ``height``: the whole figure's, numbers at risk included (default: a 405 px plot above them).
    """
    fig = new_spec()
    t = private.times
    if noise_band is not None:
        band(fig, t, noise_band[0][group], noise_band[1][group], name="private: noise-aware band",
             colour=PRIVATE, alpha=0.12, step=True)
    band(fig, t, private.ci_lower[group], private.ci_upper[group], name="private: Greenwood interval",
         colour=PRIVATE, alpha=0.25, step=True)
    if exact is not None:
        # both edges in one trace, split by a gap: a redraw's time grows with the traces
        curve(fig, np.r_[t, np.nan, t], np.r_[exact.ci_lower[group], np.nan, exact.ci_upper[group]],
              name="non-private interval", colour=NONPRIVATE, width=1, dash="dot", step=True)
        curve(fig, t, exact.estimate[group], name="non-private", colour=NONPRIVATE, step=True, dash="dash")
    faded = _private_curve(fig, t, private.estimate[group], at_risk, min_at_risk, name="private (one preview draw)",
                           colour=PRIVATE, step=True, width=2.5)
    set_summary(fig, _headline_summary(ESTIMATORS[estimator], estimator, t, private.estimate[group],
                                       None if exact is None else exact.estimate[group], time_label))
    rows = ([("noisy", at_risk, PRIVATE)] if at_risk is not None else []) + (
        [("true", exact_at_risk, NONPRIVATE)] if exact_at_risk is not None else [])
    bottom, left = add_numbers_at_risk(fig, t, rows, heading="Number at risk") if rows else (55, 60)
    base_layout(fig, x_title=time_label, y_title=Y_TITLES[estimator], height=_height(height, bottom))
    relayout(fig, yaxis=dict(range=_y_range(estimator, private.ci_upper, exact.ci_upper if exact else None)))
    if legend:
        relayout(fig, margin=dict(t=80, b=bottom, l=left))
    else:  # a legend in text: nor a second layout pass for margins
        key = [("━━", PRIVATE, "private (one preview draw)")] + (
            [("╍╍", NONPRIVATE, "non-private"), ("┈┈", NONPRIVATE, "non-private interval")] if exact is not None else [])
        fixed_margins(fig, t=text_legend(fig, key), b=bottom, l=left)
    if faded:
        _faded_note(fig, min_at_risk)
    if title:
        annotate(fig, text=title, xref="paper", yref="paper", x=1, y=0.98, showarrow=False, xanchor="right",
                 font=dict(size=12, color=NONPRIVATE), bgcolor="rgba(255,255,255,0.7)")
    return to_figure(fig)


def _height(height: int | None, bottom: int) -> int:
    """The figure's height: ``height`` (a page's first screen fixes it, the plot taking what the numbers at risk
    under it leave), else a 405 px plot above a ``bottom`` margin of 55 px or the numbers at risk."""
    return 460 + bottom - 55 if height is None else int(height)


def _median(t: np.ndarray, y: np.ndarray) -> str:
    """The first time a survival curve reaches 0.5, as a reader hears it."""
    below = np.flatnonzero(np.asarray(y, dtype=float) <= 0.5)
    return f"{t[below[0]]:.3g}" if below.size else "not reached"


def _headline_summary(what: str, estimator: str, t, private, exact, time_label: str, exact_t=None) -> str:
    """"Kaplan–Meier, private vs non-private, time (months) 0–36; median 12 vs 12": the numbers a clinician reads
    off the headline chart (the median for survival, the last value otherwise). ``exact_t``: the non-private
    curve's own times, where they differ from ``t``."""
    t = np.asarray(t, dtype=float)
    exact_t = t if exact_t is None else np.asarray(exact_t, dtype=float)
    head = f"{what}, private" + (" vs non-private" if exact is not None else "") + f", {plot_text(time_label)} " \
           f"{t[0]:g} to {t[-1]:g}"
    if estimator == "km":
        return head + f"; median {_median(t, private)}" + (f" vs {_median(exact_t, exact)}" if exact is not None else "")
    last = lambda y: f"{np.asarray(y, dtype=float)[np.isfinite(y)][-1]:.3g}"  # noqa: E731
    return head + f"; at {t[-1]:g}: {last(private)}" + (f" vs {last(exact)}" if exact is not None else "")


def read_figure(km_table, *, reference: tuple[np.ndarray, np.ndarray] | None = None,
                reference_band: tuple[np.ndarray, np.ndarray] | None = None,
                binned: tuple[np.ndarray, np.ndarray] | None = None, group=None, time_label: str = "time",
                title: str | None = None, at_risk: np.ndarray | None = None, exact_at_risk: np.ndarray | None = None,
                min_at_risk: float | None = None, legend: bool = True, points_per_bin: int = 16,
                widen: float | None = None, resolution: float | None = None,
                height: int | None = None) -> go.Figure:
    """The released Kaplan–Meier curve and its 95 % band **read by the within-bin rule** (every point drawn comes
    from :func:`dpcore.survival.read.survival_at` on the released table: an exponential path between edges, not a
    step), beside the non-private reference a clinician would compute: ``reference = (times, S)`` — lifelines'
    Kaplan–Meier on the exact times, drawn as its step, with ``reference_band`` its interval. ``binned`` (edges, S):
    the same rule on the exact binned counts, to show what the grid alone costs. ``at_risk`` (k,) the noisy number
    at risk per bin (numbers-at-risk table; the curve is dotted and faded below ``min_at_risk``). ``widen``: the
    band rule's widening between edges (:data:`dpcore.survival.read.BAND_RULES`; default the release's).
    ``resolution`` (the table's unit): the declared unit the times were recorded in; the curve, its band and the
    binned curve are then the staircase the release's tables read (steps at its multiples), as one rule.
    ``height``: the whole figure's, numbers at risk included (default: a 405 px plot above them).
    """
    group = km_table["group"].iloc[0] if group is None else group
    mine = km_table[km_table["group"] == group].sort_values("time")
    edges = mine["time"].to_numpy(float)
    t = _drawn_at(edges, points_per_bin, resolution)
    read = survival_at(mine, t, widen=widen, resolution=resolution)
    stairs = resolution is not None
    fig = new_spec()
    band(fig, t, read["ci_lower"].to_numpy(), read["ci_upper"].to_numpy(), name="private: 95 % band (noise and "
         "sampling)", colour=PRIVATE, alpha=0.15, step=stairs)
    if reference is not None:
        if reference_band is not None:
            curve(fig, np.r_[reference[0], np.nan, reference[0]], np.r_[reference_band[0], np.nan, reference_band[1]],
                  name="non-private interval", colour=NONPRIVATE, width=1, dash="dot", step=True)
        curve(fig, reference[0], reference[1], name="non-private: lifelines on the exact times", colour=NONPRIVATE,
              step=True)
    if binned is not None:
        curve(fig, t, survival_at(pd.DataFrame({"group": group, "time": binned[0], "survival": binned[1],
                                                "ci_lower": binned[1], "ci_upper": binned[1]}), t,
                                  resolution=resolution)["survival"],
              name="non-private on the grid (binning alone)", colour=NONPRIVATE, width=1.2, dash="dash", step=stairs)
    # the released values themselves: a dot at every edge (solid, then faded where few are at risk)
    y_edges = mine["survival"].to_numpy(float)
    solid, rest = (split_reliable(y_edges, reliable_edges(at_risk, min_at_risk))
                   if at_risk is not None and min_at_risk is not None else (y_edges, np.full_like(y_edges, np.nan)))
    dots = dict(mode="markers", marker=dict(size=5, color=PRIVATE), hoverinfo="x+y")
    curve(fig, edges, solid, name="private (one preview draw)", colour=PRIVATE, **dots)
    curve(fig, edges, rest, name="private (one preview draw), few at risk", colour=PRIVATE, showlegend=False,
          opacity=0.45, **dots)
    faded = _read_private(fig, edges, y_edges, at_risk, min_at_risk, points_per_bin=points_per_bin,
                          resolution=resolution, name="private (read between edges)", colour=PRIVATE, width=2.5)
    rows = ([("noisy", at_risk, PRIVATE)] if at_risk is not None else []) + (
        [("true", exact_at_risk, NONPRIVATE)] if exact_at_risk is not None else [])
    bottom, left = add_numbers_at_risk(fig, edges, rows, heading="Number at risk") if rows else (55, 60)
    base_layout(fig, x_title=time_label, y_title=Y_TITLES["km"], height=_height(height, bottom))
    relayout(fig, yaxis=dict(range=[-0.02, 1.02]))
    set_summary(fig, _headline_summary("Kaplan–Meier survival", "km", t, read["survival"].to_numpy(),
                                       None if reference is None else reference[1], time_label,
                                       exact_t=None if reference is None else reference[0]))
    if legend:
        relayout(fig, margin=dict(t=80, b=bottom, l=left))
    else:
        key = [("━●━", PRIVATE, "private (one preview draw)")] + (
            [("━━", NONPRIVATE, "non-private (exact times)")] if reference is not None else []) + (
            [("╍╍", NONPRIVATE, "non-private on the grid")] if binned is not None else [])
        fixed_margins(fig, t=text_legend(fig, key), b=bottom, l=left)
    if faded:
        _faded_note(fig, min_at_risk)
    if title:
        annotate(fig, text=title, xref="paper", yref="paper", x=1, y=0.98, showarrow=False, xanchor="right",
                 font=dict(size=12, color=NONPRIVATE), bgcolor="rgba(255,255,255,0.7)")
    return to_figure(fig)


def draws_figure(times: np.ndarray, draws: np.ndarray, exact: np.ndarray, *, estimator: str = "km",
                 time_label: str = "time", n_shown: int = 30,
                 reference: tuple[np.ndarray, np.ndarray] | None = None,
                 resolution: float | None = None) -> go.Figure:
    """Band of R private curves (5–95 % and the mean) around the non-private curve, plus a few draws.

    Redrawn on every move of ε or of the draws: the legend is text and the margins are fixed
    (:func:`dpcore.reporting.figures.text_legend`). Kaplan–Meier curves with a ``reference`` (lifelines on the exact times,
    ``(times, S)``, drawn as its steps instead of ``exact``) are read between the edges by the within-bin rule
    (:func:`dpcore.survival.read.path`, 8 points per bin), as a release reads them — with a declared
    ``resolution``, as its staircase (:func:`dpcore.survival.read.on_resolution`); otherwise steps.
    """
    step = True
    if estimator == "km" and reference is not None:
        fine = _drawn_at(np.asarray(times, float), 8, resolution)
        draws = path(times, draws, on_resolution(fine, resolution))
        times, step = fine, resolution is not None
    fig = new_spec()
    lo, hi = np.nanquantile(draws, [0.05, 0.95], axis=0)
    m = min(n_shown, draws.shape[0])
    if m:
        # one trace, curves separated by gaps: far cheaper to build and render than m traces
        xs = np.concatenate([np.append(times, np.nan) for _ in range(m)])
        ys = np.concatenate([np.append(draws[i], np.nan) for i in range(m)])
        add_trace(fig, dict(type="scatter", x=xs, y=ys, mode="lines",
                            line=dict(color=PRIVATE, width=0.6, shape="hv" if step else "linear"),
                            opacity=0.3, hoverinfo="skip", name=f"{m} single private draws", connectgaps=False))
    band_alpha = 0.22
    band(fig, times, lo, hi, name=f"private: 5–95 % of {draws.shape[0]} draws", colour=PRIVATE, alpha=band_alpha,
         step=step)
    curve(fig, times, draws.mean(axis=0), name="private: mean of draws", colour=PRIVATE, step=step, dash="dash")
    if reference is not None and estimator == "km":
        curve(fig, reference[0], reference[1], name="non-private", colour=NONPRIVATE, step=True)
    else:
        curve(fig, times, exact, name="non-private", colour=NONPRIVATE, step=True)
    base_layout(fig, x_title=time_label, y_title=Y_TITLES[estimator], height=400)
    legend = ([("━━", rgba(PRIVATE, 0.45), f"{m} single private draws")] if m else []) + [
        ("■", rgba(PRIVATE, band_alpha), f"private: 5–95 % of {draws.shape[0]} draws"),
        ("╍╍", PRIVATE, "private: mean of draws"), ("━━", NONPRIVATE, "non-private")]
    fixed_margins(fig, t=text_legend(fig, legend), b=55)
    return to_figure(relayout(fig, yaxis=dict(range=_y_range(estimator, hi, exact))))


UTILITY_PANELS = (
    ("sup_error", "sup-norm error"),
    ("integrated_error", "integrated abs. error"),
    ("logrank_agree", "log-rank decision agrees"),
)


def utility_figure(uc: SurvivalUtilityCurve, epsilon: float | None, *, time_unit: str = "time units") -> go.Figure:
    """Privacy–utility curves over ε (mean and 5–95 % band over draws), chosen ε marked (unless None).

    Redrawn whenever the draws per ε change: the legend is text above the panels and the margins are fixed
    (:func:`dpcore.reporting.figures.text_legend`).
    """
    panels = [(n, l) for n, l in UTILITY_PANELS if getattr(uc, n) is not None]
    band_colour = rgba(PRIVATE, 0.18)
    fig = new_spec()
    axes = subplots(fig, [l for _, l in panels], spacing=0.09)
    for axis, (name, label) in zip(axes, panels):
        v = uc.metric(name)
        if name == "logrank_agree":
            mean = v.mean(1)
            se = np.sqrt(mean * (1 - mean) / v.shape[1])
            lo, hi = np.clip(mean - 1.96 * se, 0, 1), np.clip(mean + 1.96 * se, 0, 1)
        else:
            mean, (lo, hi) = np.nanmean(v, 1), np.nanquantile(v, [0.05, 0.95], axis=1)
        x = uc.epsilons
        band(fig, x, lo, hi, name="5–95 % of draws" if name != "logrank_agree" else "95 % CI", colour=PRIVATE,
             showlegend=False, axis=axis)
        add_trace(fig, on(axis, dict(type="scatter", x=x, y=mean, mode="lines+markers", line=dict(color=PRIVATE, width=2),
                                     marker=dict(size=4), name="mean over draws", showlegend=False)))
        if epsilon is not None:
            vline(fig, epsilon, dict(color=WARNING, dash="dash", width=1.5), axis=axis)
        epsilon_axis(fig, title="ε (log scale)", axis=axis)
    if uc.logrank_agree is not None:
        relayout(fig, **{f"yaxis{axes[-1]}": dict(range=[0, 1.05])})
    if len(panels) > 1:
        relayout(fig, yaxis2=dict(title=dict(text=f"error ({time_unit} × prob.)")))
    base_layout(fig, height=400)
    relayout(fig, xaxis=dict(title=dict(text="ε (log scale)")),  # base_layout blanks the first axis title
             hovermode="x")
    legend = [("■", band_colour, "5–95 % of draws" + (" (log-rank agreement: its 95 % CI)" if uc.logrank_agree is not None
                                               else "")), ("━●━", PRIVATE, "mean over draws")]
    if epsilon is not None:
        legend.append(("╍╍", WARNING, f"chosen ε = {epsilon:g}"))
    fixed_margins(fig, t=text_legend(fig, legend, above=26), b=60)
    return to_figure(fig)


def _read_private(fig, edges, y_edges, at_risk, min_at_risk, *, points_per_bin: int = 16,
                  resolution: float | None = None, **style) -> bool:
    """A private Kaplan–Meier curve read between edges by the within-bin rule (:func:`survival_at`, at a declared
    ``resolution`` too: :func:`_drawn_at`), solid while the noisy number at risk reaches ``min_at_risk``, dotted
    after; returns whether a part was faded."""
    edges = np.asarray(edges, float)
    t = _drawn_at(edges, points_per_bin, resolution)
    y = survival_at(pd.DataFrame({"group": "g", "time": edges, "survival": y_edges, "ci_lower": y_edges,
                                  "ci_upper": y_edges}), t, resolution=resolution)["survival"].to_numpy()
    style = {**style, "step": resolution is not None}
    if at_risk is None or min_at_risk is None:
        curve(fig, t, y, **style)
        return False
    ok = reliable_edges(at_risk, min_at_risk)[np.clip(np.searchsorted(edges, t, side="left"), 0, edges.size - 1)]
    solid, rest = split_reliable(y, ok)
    curve(fig, t, solid, **style)
    if np.isnan(solid).sum() == 0:
        return False
    curve(fig, t, rest, **{**style, "name": style["name"] + ", few at risk", "dash": "dot", "width": 1.2,
                           "opacity": 0.45, "showlegend": False})
    return True


#: The most multiples of a declared resolution drawn as the staircase's own steps (finer steps are below a pixel).
MAX_STAIRS = 2_000


def _drawn_at(edges, points_per_bin: int, resolution: float | None) -> np.ndarray:
    """Where a curve read by the rule is drawn: ``points_per_bin`` per bin and, with a declared ``resolution`` (a
    staircase, drawn as steps), every multiple of it up to :data:`MAX_STAIRS`, so each riser stands where the
    staircase steps."""
    t = fine_times(edges, points_per_bin)
    if resolution is None or edges[-1] / resolution > MAX_STAIRS:
        return t
    return np.union1d(t, np.arange(0.0, edges[-1] + 1e-9 * resolution, resolution))


def groups_figure(private: CurveSet, exact: CurveSet, *, estimator: str = "km", time_label: str = "time",
                  p_private: float | None = None, p_exact: float | None = None,
                  at_risk: np.ndarray | None = None, min_at_risk: float | None = None,
                  group_column: str | None = None, references=None,
                  resolution: float | None = None) -> go.Figure:
    """Per-group curves, private (solid) and non-private (dotted), with both log-rank p-values in the title.

    ``at_risk`` (G, k): each group's noisy number at risk per bin, printed under the plot in the group's colour;
    with ``min_at_risk`` a private curve is faded where its group's noisy number at risk falls below it.
    ``group_column`` names the groups in the legend (``sex = 1``). Kaplan–Meier curves are read between edges by
    the within-bin rule (not steps); with ``references`` (per group ``(times, S)``: lifelines on the exact times)
    those steps are the non-private curves instead of the binned ones; with a declared ``resolution``, as its
    staircase (:func:`_read_private`).
    """
    fig = new_spec()
    faded = False
    for g, name in enumerate(private.groups):
        name = plot_text(name if group_column is None else f"{group_column} = {name}")  # labels can come from uploads
        colour = PALETTE[g % len(PALETTE)]
        ref_t, ref_y = (exact.times, exact.estimate[g]) if references is None else references[g]
        # groups differ in marker shape too, not in colour alone; non-private hollow and dotted
        curve(fig, ref_t, ref_y, name=f"{name} (non-private)", colour=colour, step=True, dash="dot",
              width=1.5, legendgroup=name, **series_marks(g, colour=colour, hollow=True))
        style = dict(name=f"{name} (private)", colour=colour, legendgroup=name, **series_marks(g, colour=colour))
        g_risk = None if at_risk is None else at_risk[g]
        if estimator == "km":
            faded = _read_private(fig, private.times, private.estimate[g], g_risk, min_at_risk,
                                  resolution=resolution, **style) or faded
        else:
            faded = _private_curve(fig, private.times, private.estimate[g], g_risk, min_at_risk, step=True,
                                   **style) or faded
    title = None
    if p_private is not None and p_exact is not None:
        title = f"log-rank p: private {p_private:.3g} · non-private {p_exact:.3g}"
    bottom, left = 55, 60
    if at_risk is not None:
        rows = [(name, at_risk[g], PALETTE[g % len(PALETTE)]) for g, name in enumerate(private.groups)]
        bottom, left = add_numbers_at_risk(fig, private.times, rows, heading="Number at risk (noisy, from the DP counts)")
    if faded:
        _faded_note(fig, min_at_risk)
    base_layout(fig, title=title, x_title=time_label, y_title=Y_TITLES[estimator], height=420 + bottom - 55)
    relayout(fig, margin=dict(t=110, b=bottom, l=left), legend=dict(y=1.04),
             yaxis=dict(range=_y_range(estimator, private.estimate, exact.estimate)))
    return to_figure(fig)


__all__ = ["headline_figure", "read_figure", "draws_figure", "utility_figure", "groups_figure", "add_numbers_at_risk", "ESTIMATORS",
           "forest_figure", "per_interval_figure", "hazard_ratio_utility_figure"]


# --------------------------------------------------------------------------
# Hazard ratios (dpcore.survival.cox): forest plot, per-interval check, privacy–utility curve
# --------------------------------------------------------------------------

HR_AXIS = {"type": "log", "title": {"text": "hazard ratio (log scale; 1 = no difference)"}}


def _interval_trace(names, hr, lower, upper, *, name: str, colour: str, symbol: str, offset: float) -> dict:
    y = np.arange(len(names), dtype=float) + offset
    return {"type": "scatter", "x": list(hr), "y": list(y), "mode": "markers", "name": name,
                "marker": {"color": colour, "symbol": symbol, "size": 10},
                "error_x": {"type": "data", "symmetric": False, "array": list(np.asarray(upper) - np.asarray(hr)),
                             "arrayminus": list(np.asarray(hr) - np.asarray(lower)), "color": colour, "thickness": 2},
                "customdata": [plot_text(n) for n in names],
                "hovertemplate": "%{customdata}: HR %{x:.3g}<extra>" + plot_text(name) + "</extra>"}


def forest_figure(private: pd.DataFrame, reference: pd.DataFrame | None = None, *, title: str | None = None,
                  epsilon: float | None = None) -> go.Figure:
    """Each coefficient's hazard ratio and 95 % interval: private (sampling + privacy) above lifelines' Cox on the
    same rows (non-private, preview only). ``private``/``reference``: lifelines-shaped summaries (index = names)."""
    names = list(private.index)
    spec = new_spec()
    label = "private" + (f" (ε = {epsilon:g})" if epsilon is not None else "") + ": sampling + privacy"
    add_trace(spec, _interval_trace(names, private["exp(coef)"], private["exp(coef) lower 95%"],
                                    private["exp(coef) upper 95%"], name=label, colour=PRIVATE, symbol="circle",
                                    offset=0.15 if reference is not None else 0.0))
    if reference is not None:
        ref = reference.reindex(names)
        add_trace(spec, _interval_trace(names, ref["exp(coef)"], ref["exp(coef) lower 95%"],
                                        ref["exp(coef) upper 95%"], name="lifelines CoxPHFitter (non-private)",
                                        colour=NONPRIVATE, symbol="square", offset=-0.15))
    vline(spec, 1.0, {"color": "#888888", "dash": "dash", "width": 1})
    base_layout(spec, title=title, x_title="", y_title="", height=max(220, 90 + 70 * len(names)))
    relayout(spec, xaxis=HR_AXIS, hovermode="closest",
             yaxis={"tickvals": list(range(len(names))), "ticktext": [plot_text(n) for n in names],
                        "autorange": "reversed"})
    first = private.iloc[0]
    set_summary(spec, f"Forest plot: {plot_text(names[0])} hazard ratio {first['exp(coef)']:.2f} (95 % "
                      f"{first['exp(coef) lower 95%']:.2f} to {first['exp(coef) upper 95%']:.2f})"
                      + (f"; lifelines {reference.loc[names[0], 'exp(coef)']:.2f}" if reference is not None else ""))
    return to_figure(spec)


def per_interval_figure(per_interval: pd.DataFrame, *, time_label: str = "time", title: str | None = None) -> go.Figure:
    """The proportional-hazards check: each interval's hazard ratio and interval (a flat row of points: the
    hazards are proportional; a drift: they are not)."""
    spec = new_spec()
    for i, (group, rows) in enumerate(per_interval.groupby("group", sort=False)):
        mid = (rows["start"] + rows["end"]) / 2
        hr, lo, hi = np.exp(rows["log_hr"]), np.exp(rows["lower"]), np.exp(rows["upper"])
        add_trace(spec, {"type": "scatter", "x": list(mid), "y": list(hr), "mode": "markers+lines", "name": plot_text(group),
                             "marker": {"color": PRIVATE, "size": 9, "symbol": ["circle", "square", "diamond"][i % 3]},
                             "line": {"color": PRIVATE, "dash": "dot", "width": 1},
                             "error_y": {"type": "data", "symmetric": False, "array": list(hi - hr),
                                          "arrayminus": list(hr - lo), "color": PRIVATE}})
    base_layout(spec, title=title, x_title=time_label, y_title="hazard ratio in the interval (log scale)")
    relayout(spec, yaxis={"type": "log"}, hovermode="closest")
    set_summary(spec, f"Per-interval hazard ratios over {per_interval['interval'].nunique()} public intervals")
    return to_figure(spec)


def hazard_ratio_utility_figure(curve: pd.DataFrame, *, chosen: float | None = None, title: str | None = None) -> go.Figure:
    """|Δ log HR| against lifelines (median and 90th percentile over previews) and the share of releases whose
    honest interval excludes 1, against ε. ``curve``: columns epsilon, median_abs_diff, q90_abs_diff,
    share_significant (and optionally exact_significant: lifelines' decision, 0 or 1)."""
    spec = new_spec()
    axes = subplots(spec, ["|Δ log HR| against lifelines' Cox", "share of releases significant at 5 %"],
                    spacing=0.12)
    add_trace(spec, on(axes[0], {"type": "scatter", "x": list(curve["epsilon"]), "y": list(curve["median_abs_diff"]),
                                     "mode": "lines+markers", "name": "median |Δ log HR|", "line": {"color": PRIVATE}}))
    add_trace(spec, on(axes[0], {"type": "scatter", "x": list(curve["epsilon"]), "y": list(curve["q90_abs_diff"]),
                                     "mode": "lines+markers", "name": "90th percentile",
                                     "line": {"color": PRIVATE, "dash": "dot"}}))
    add_trace(spec, on(axes[1], {"type": "scatter", "x": list(curve["epsilon"]), "y": list(curve["share_significant"]),
                                     "mode": "lines+markers", "name": "significant (honest interval)",
                                     "line": {"color": NONPRIVATE}}))
    base_layout(spec, title=title, height=380)
    epsilon_axis(spec)
    epsilon_axis(spec, axis="2")
    # the legend above the two subplot titles (base_layout puts it where a single title would not be)
    relayout(spec, yaxis2={"range": [0, 1.02]}, hovermode="closest",
             legend=dict(orientation="h", yanchor="bottom", y=1.12, xanchor="left", x=0.0))
    if chosen is not None:
        vline(spec, chosen, {"color": "#888888", "dash": "dash", "width": 1})
        vline(spec, chosen, {"color": "#888888", "dash": "dash", "width": 1}, axis="2")
    eps, err, sig = (curve[c].to_numpy(float) for c in ("epsilon", "median_abs_diff", "share_significant"))
    set_summary(spec, f"Hazard ratio against ε from {eps[0]:g} to {eps[-1]:g} over preview releases: median "
                      f"|Δ log HR| against lifelines' Cox from {err[0]:.3g} to {err[-1]:.3g}; share significant "
                      f"from {sig[0]:.0%} to {sig[-1]:.0%}")
    return to_figure(spec)

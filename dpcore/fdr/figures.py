"""Plotly figures of the online-FDR page (plain functions, unit-testable, no Streamlit)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.fdr.core import StreamResult, log_pvalues
from dpcore.fdr.frontier import smallest_records_per_epsilon
from dpcore.fdr.sensitivity import METHODS
from dpcore.fdr.sweeps import FdrUtilityCurve
from dpcore.reporting.figures import (
    NONPRIVATE,
    PALETTE,
    PRIVATE,
    SYMBOLS,
    TRUTH,
    WARNING,
    add_trace,
    band,
    base_layout,
    epsilon_axis,
    fixed_margins,
    hline,
    new_spec,
    no_discoveries,
    on,
    relayout,
    rgba,
    series_marks,
    subplots,
    text_legend,
    to_figure,
    vline,
    vrect,
)

METHOD_COLOURS = dict(zip(METHODS, ("#3b3b3b", "#8c6d31", "#7b5ea7", PALETTE[6], PRIVATE, PALETTE[1])))
METHOD_DASH = {m: ("dot" if m not in ("PAPRIKA", "PAPRIKA AI") else "solid") for m in METHODS}


def stream_figure(private: StreamResult, pvalues: np.ndarray, *, truth: np.ndarray | None = None,
                  nonprivate: StreamResult | None = None, title: str | None = None,
                  cutoff: int | None = None, height: int = 460) -> go.Figure:
    """One stream: the evidence ``−ln p_t`` against PAPRIKA's moving noisy threshold, rejections marked.

    ``private`` and ``nonprivate`` are single-stream results (``.squeeze()``); the noisy threshold
    ``log α_t − A + Z_α`` comes from a preview run with ``keep_threshold=True`` and is drawn as ``A − log α_t − Z_α``:
    a hypothesis is rejected when its (noisy) point lies above it. The y-axis is logarithmic because the proven shift
    puts the threshold hundreds of units of ``ln p`` below the nulls (A = 513 at n = 5,000): on a linear axis the nulls,
    α_t and SAFFRON's levels were one line at the top and every discovery sat on the bottom edge. P-values too small
    for the axis are drawn at its top edge as ▲ (hover shows t and the value drawn).

    Only the hypotheses the private rule tested (its candidates, p < 2λ, or p < 2α_t for PAPRIKA AI, up to its c-th
    rejection) are drawn as points: the others can never be rejected, so they are a shaded region below the
    candidacy boundary and a count, and the stream after the cutoff (nothing is tested there) a grey strip and a
    count.
    The page redraws this figure from scratch on every slider move and Plotly's time grows with the points drawn
    (bench_pages: 800 → 320 points took a fifth off a move), so it is also kept light otherwise: the tested
    hypotheses are one marker trace coloured by truth, no per-point hover payload, a per-point symbol array only
    when some p-values are clipped, the legend as text (:func:`dpcore.reporting.figures.text_legend`) and fixed margins.
    """
    p = np.asarray(pvalues, dtype=float)
    T = p.size
    t = np.arange(1, T + 1)
    evidence = -log_pvalues(p)
    thr = -np.array(private.log_threshold, dtype=float)
    rej_count = np.cumsum(np.asarray(private.rejections, bool))
    stop = None
    if cutoff is not None and rej_count[-1] >= cutoff:
        stop = int(np.argmax(rej_count >= cutoff)) + 1  # time of the c-th rejection
        thr[stop:] = np.nan  # nothing can be rejected after the cutoff
    with np.errstate(divide="ignore"):
        level = -np.log(private.alpha)
        level_np = -np.log(nonprivate.alpha) if nonprivate is not None else None
    finite = [a[np.isfinite(a) & (a > 0)] for a in (thr, level, level_np) if a is not None]
    top = 10.0 * max([float(f.max()) for f in finite if f.size] + [12.0])  # a decade above the highest line
    tr = np.zeros(T, bool) if truth is None else np.asarray(truth, bool)
    stopped = t > stop if stop is not None else np.zeros(T, bool)  # after the c-th rejection nothing is tested
    tested = np.asarray(private.candidates, bool) & ~stopped
    # p < 2λ ≤ 0.8 for PAPRIKA's candidates (−ln p > 0.22); lower only for a p-value near 1 that another rule tested
    bottom = float(np.clip(0.5 * evidence[tested].min() if tested.any() else 0.2, 1e-3, 0.2))
    shown = np.clip(evidence, bottom, top)
    clipped = evidence > top
    fig = new_spec()
    legend = []
    hover = "t = %{x}<br>−ln p = %{y:.3g}<extra></extra>"
    null_colour, effect_colour = rgba("#9e9e9e", 0.55), rgba(TRUTH, 0.55)
    skipped = ~tested & ~stopped  # not candidates, before the cutoff
    boundary = _candidacy_boundary(private, T)
    if boundary is not None and skipped.any():
        flat = np.all(boundary == boundary[0])  # PAPRIKA's 2λ: two points, not T
        bx, by = (t[[0, -1]], -boundary[[0, -1]]) if flat else (t, -boundary)
        band(fig, bx, np.full(bx.size, bottom), np.clip(by, bottom, top), name="not candidates", colour="#9e9e9e",
             alpha=0.15, step=True, showlegend=False)
    both = truth is not None and tr[tested].any() and not tr[tested].all()
    name = "p-values" if truth is None else "null hypotheses" if not tr[tested].all() else "non-null hypotheses"
    # one trace per colour (nulls first, the non-nulls drawn over them): a colour per point costs Plotly more than
    # a trace (about 3 of a redraw's 20 ms, Chromium)
    groups = ([(tested & ~tr, null_colour, "null hypotheses"), (tested & tr, effect_colour, "non-null hypotheses")]
              if both else
              [(tested, effect_colour if truth is not None and tr[tested].all() and tested.any() else null_colour, name)])
    for mask, group_colour, group_name in groups:
        idx = np.flatnonzero(mask)
        # nulls hollow, non-nulls filled: told apart without their colour
        shape = "circle-open" if group_colour == null_colour else "circle"
        marker = dict(size=5, color=group_colour,
                      symbol=np.where(clipped[idx], "triangle-up", shape) if clipped[idx].any() else shape)
        add_trace(fig, dict(type="scattergl" if T > 5000 else "scatter", x=t[idx], y=shown[idx], mode="markers",
                            name=f"{group_name} tested", hovertemplate=hover, marker=marker, showlegend=False))
    if truth is None:
        legend.append(("○", null_colour, "p-values tested (candidates)"))
    else:
        legend += [("○", null_colour, "no real effect"), ("●", effect_colour, "real effect: the hypotheses tested")]
    if skipped.any():
        what = f"{int(skipped.sum())} not candidates" + (f" ({int(tr[skipped].sum())} non-null)" if truth is not None
                                                          else "")
        legend.append(("▒▒" if boundary is not None else "", rgba("#9e9e9e", 0.6),
                       f"{what}: never tested, so not drawn"))
    if stopped.any():
        legend.append(("▒▒", rgba("#9e9e9e", 0.6), f"{int(stopped.sum())} after the cutoff: not tested, not drawn"))
    lines = [("━━", PRIVATE, thr, dict(color=PRIVATE, width=1.6, shape="hv"),
              f"private threshold ({private.method.split(' (')[0]}, noisy): a discovery above it"),
             ("╍╍", PRIVATE, level, dict(color=PRIVATE, width=1, dash="dash", shape="hv"),
              "its level without noise or shift")]
    if nonprivate is not None:
        lines.append(("┈┈", NONPRIVATE, level_np, dict(color=NONPRIVATE, width=1, dash="dot", shape="hv"),
                      f"non-private threshold ({nonprivate.method})"))
    for symbol, colour, y, line, label in lines:
        add_trace(fig, dict(type="scatter", x=t, y=np.where(np.isfinite(y) & (y > 0), y, np.nan), mode="lines",
                            name=label, line=line, showlegend=False))
        legend.append((symbol, colour, label))
    rej = np.asarray(private.rejections, bool)
    if truth is None:
        marks = [("rejections", rej, WARNING, "diamond", "◆")]
    else:
        marks = [("true discoveries", rej & tr, TRUTH, "diamond", "◆"),
                 ("false discoveries", rej & ~tr, WARNING, "x", "✕")]
    for label, mask, colour, symbol, glyph in marks:
        label = f"{label} ({int(mask.sum())})"
        add_trace(fig, dict(type="scatter", x=t[mask], y=shown[mask], mode="markers", name=label, showlegend=False,
                            hovertemplate=hover,
                            marker=dict(size=11, color=colour, symbol=symbol, line=dict(width=1, color="white"))))
        legend.append((glyph, colour, label))
    # the notes go into the axis title: inside the plot they covered discoveries
    notes = (["▲ = smaller p-values, drawn at the top edge"] if clipped[tested].any() else []) + (
        [f"dashed line: cutoff c = {cutoff} reached, nothing tested after it"] if stop is not None else [])
    base_layout(fig, title=title, x_title=" · ".join(["hypothesis t (stream order)"] + notes),
                y_title="−ln p (log scale): higher = smaller p-value", height=height)
    top_margin = text_legend(fig, legend) + (40 if title else 0)
    fixed_margins(fig, t=top_margin, b=60)
    relayout(fig, hovermode="closest", yaxis=dict(type="log", dtick=1, range=[np.log10(bottom), np.log10(top) + 0.05]))
    if not rej.any():
        no_discoveries(fig, T)
    if stop is not None:
        vline(fig, stop + 0.5, dict(color=WARNING, dash="dash", width=1))
        if stop < T:
            vrect(fig, stop + 0.5, T + 0.5, rgba("#9e9e9e", 0.12))
    return to_figure(fig)


def _candidacy_boundary(private: StreamResult, T: int) -> np.ndarray | None:
    """``log`` of the candidacy bound of a PAPRIKA run per step (2λ, or 2α_t for PAPRIKA AI); None for other rules."""
    params = private.params
    if "lam" not in params or "ai" not in params:
        return None
    with np.errstate(divide="ignore"):
        return np.log(2 * np.asarray(private.alpha, float)) if params["ai"] else np.full(T, np.log(2 * params["lam"]))


def _error_bars(se: pd.Series) -> np.ndarray:
    """±2 standard errors (a missing SE draws no bar)."""
    return 2 * se.fillna(0).to_numpy()


def sweep_figure(table: pd.DataFrame, *, x_title: str, alpha: float, bound: float | None = None,
                 methods: Sequence[str] | None = None, log_x: bool = False, mark: float | None = None) -> go.Figure:
    """FDR (left) and power (right) against ``x`` for every method, error bars = ±2 standard errors.

    ``bound`` draws PAPRIKA's guarantee ``α + δT`` next to the target ``α``.
    """
    fig = new_spec()
    panels = subplots(fig, ("FDR (mean FDP over runs)", "power"), spacing=0.1)
    if methods is None:  # the same legend order on every sweep: METHODS order, variants after their rule
        names = list(dict.fromkeys(table["method"]))
        methods = sorted(names, key=lambda n: (METHODS.index(n.split(" (")[0]) if n.split(" (")[0] in METHODS
                                               else len(METHODS), names.index(n)))
    for name in methods:
        sub = table[table["method"] == name].sort_values("x")
        colour = METHOD_COLOURS.get(name.split(" (")[0], PALETTE[0])
        code_rule = "code rule" in name  # the authors' variant: same colour as its rule, dashed, open squares
        dash = "dash" if code_rule else METHOD_DASH.get(name.split(" (")[0], "solid")
        rule = name.split(" (")[0]  # each rule its own marker shape: told apart without their colours
        shape = SYMBOLS[METHODS.index(rule) % len(SYMBOLS)] if rule in METHODS else SYMBOLS[0]
        marker = dict(symbol="square-open", size=8) if code_rule else dict(symbol=shape, size=7)
        for axis, metric in zip(panels, ("FDR", "power")):
            add_trace(fig, on(axis, dict(
                type="scatter", x=sub["x"].to_numpy(), y=sub[metric].to_numpy(), mode="lines+markers", name=name,
                legendgroup=name, showlegend=axis == "", line=dict(color=colour, dash=dash, width=2), marker=marker,
                error_y=dict(type="data", array=_error_bars(sub[f"{metric}_se"]), width=3, thickness=1))))
    label = dict(bgcolor="rgba(255,255,255,0.8)", font=dict(size=11))
    hline(fig, alpha, dict(color=WARNING, dash="dash", width=1), text=f"target α = {alpha:g}", **label)
    if bound is not None:
        hline(fig, bound, dict(color=WARNING, dash="dot", width=1), text=f"PAPRIKA bound α + δT = {bound:.3g}", **label)
    base_layout(fig, height=460)
    x_axis = dict(title=dict(text=x_title))
    if log_x:
        ticks = sorted(set(float(v) for v in table["x"]))
        x_axis.update(type="log", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    relayout(fig, hovermode="x unified", margin=dict(t=40, b=130),
             legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0),
             xaxis=x_axis, xaxis2=x_axis, yaxis=dict(rangemode="tozero"), yaxis2=dict(rangemode="tozero", range=[0, 1.05]))
    if mark is not None:
        for axis in panels:
            vline(fig, mark, dict(color=WARNING, dash="dash", width=1), axis=axis)
    return to_figure(fig)


def utility_figure(curves: Sequence[FdrUtilityCurve], epsilon: float, *, alpha: float, bound: float) -> go.Figure:
    """Privacy–utility curve: mean FDR and power over runs against ε (bands = ±2 SE), chosen ε marked."""
    fig = new_spec()
    panels = subplots(fig, ("FDR vs ε", "power vs ε"), spacing=0.1)
    for i, curve in enumerate(curves):
        colour = METHOD_COLOURS.get(curve.method, PRIVATE)
        for axis, values in zip(panels, (curve.fdp, curve.power)):
            mean = np.nanmean(values, axis=1)
            se = np.nanstd(values, axis=1, ddof=1) / np.sqrt(np.sum(np.isfinite(values), axis=1).clip(1))
            x = curve.epsilons
            add_trace(fig, on(axis, dict(type="scatter", x=np.concatenate([x, x[::-1]]),
                                         y=np.concatenate([mean + 2 * se, (mean - 2 * se)[::-1]]), fill="toself",
                                         fillcolor=rgba(colour, 0.18), line=dict(width=0), hoverinfo="skip",
                                         showlegend=False, legendgroup=curve.method)))
            add_trace(fig, on(axis, dict(type="scatter", x=x, y=mean, name=curve.method, legendgroup=curve.method,
                                         showlegend=axis == "", line=dict(color=colour, width=2),
                                         **series_marks(i, colour=colour))))
    hline(fig, alpha, dict(color=WARNING, dash="dash", width=1), text=f"α = {alpha:g}")
    hline(fig, bound, dict(color=WARNING, dash="dot", width=1), text=f"α + δT = {bound:.3g}")
    base_layout(fig, height=440)
    relayout(fig, hovermode="x unified", margin=dict(t=40, b=130),
             legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0))
    ticks = sorted(set(float(v) for c in curves for v in c.epsilons))
    for axis in panels:
        epsilon_axis(fig, axis=axis)
        relayout(fig, **{f"xaxis{axis}": dict(tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])})
    relayout(fig, yaxis=dict(rangemode="tozero"), yaxis2=dict(rangemode="tozero", range=[0, 1.05]))
    for axis in panels:
        vline(fig, epsilon, dict(color=WARNING, dash="dash", width=1.5), axis=axis)
    return to_figure(fig)


def summary_figure(table: pd.DataFrame, *, alpha: float, bound: float) -> go.Figure:
    """Bars of FDR and power per method with ±2 SE error bars (the utility panel at the chosen settings).

    Horizontal bars with the method names once on the left: six names under narrow vertical bars
    overlapped whatever their angle.
    """
    fig = new_spec()
    panels = subplots(fig, ("FDR", "power"), spacing=0.06, shared_y=True)
    colours = [METHOD_COLOURS.get(m.split(" (")[0], PRIVATE) for m in table["method"]]
    for axis, metric in zip(panels, ("FDR", "power")):
        add_trace(fig, on(axis, dict(type="bar", y=table["method"].to_numpy(), x=table[metric].to_numpy(),
                                     orientation="h", marker=dict(color=colours), showlegend=False, name=metric,
                                     error_x=dict(type="data", array=_error_bars(table[f"{metric}_se"])))))
    vline(fig, alpha, dict(color=WARNING, dash="dash", width=1), text=f"α = {alpha:g}", font=dict(size=10))
    if bound < 1:
        vline(fig, bound, dict(color=WARNING, dash="dot", width=1), text=f"α + δT = {bound:.3g}", font=dict(size=10))
    base_layout(fig, height=330)
    methods_axis = dict(autorange="reversed", type="category")  # METHODS order from the top
    return to_figure(relayout(fig, hovermode="closest", margin=dict(l=110), yaxis=methods_axis, yaxis2=methods_axis,
                              xaxis=dict(rangemode="tozero"), xaxis2=dict(range=[0, 1.05])))


#: White (no power) to dark blue (full power); explicit stops, so the spec needs no named scale
POWER_SCALE = [[0.0, "#f7fbff"], [0.5, "#6baed6"], [0.8, "#2171b5"], [1.0, "#08306b"]]


def frontier_figure(table: pd.DataFrame, *, cutoff: int, target: float,
                    current: tuple[int, float] | None = None) -> go.Figure:
    """The release path's power frontier (:func:`dpcore.fdr.frontier.power_frontier`).

    Left: power over records per test × ε at ``cutoff`` (cells print the power; hover adds FDR, μ, η and the
    shift). Right: the fewest records per test that reach ``target`` power at each ε, one line per cutoff.
    ``current`` (records, ε) marks the page's configuration on both panels.
    """
    fig = new_spec()
    panels = subplots(fig, (f"power of the release path, cutoff c = {cutoff}",
                            f"fewest records per test with power ≥ {target:g}"), spacing=0.12)
    sub = table[table["cutoff"] == cutoff]
    records = sorted(sub["records"].unique())
    eps = sorted(sub["epsilon"].unique())
    grid = sub.pivot(index="records", columns="epsilon")
    x_labels, y_labels = [f"{e:g}" for e in eps], [f"{n:,}" for n in records]
    power = grid["power"].to_numpy()
    detail = np.stack([grid[c].to_numpy() for c in ("power_se", "FDR", "FDR_se", "floor", "eta", "shift_A")], axis=-1)
    add_trace(fig, on(panels[0], dict(
        type="heatmap", x=x_labels, y=y_labels, z=power, zmin=0.0, zmax=1.0, colorscale=POWER_SCALE,
        text=np.vectorize(lambda v: f"{v:.2f}")(power), texttemplate="%{text}", customdata=detail, showscale=False,
        hovertemplate=("n = %{y} records per test, ε = %{x}<br>power %{z:.2f} ± %{customdata[0]:.2f}, "
                       "FDR %{customdata[1]:.3f} ± %{customdata[2]:.3f}<br>floor μ = %{customdata[3]:.0e}, "
                       "η = %{customdata[4]:.3f}, shift A = %{customdata[5]:.0f}<extra></extra>"))))
    fewest = smallest_records_per_epsilon(table, target=target).set_index(["cutoff", "epsilon"])["records"]
    for i, c in enumerate(sorted(table["cutoff"].unique())):
        line = fewest.reindex([(c, e) for e in eps])
        never = " (never on this grid)" if line.isna().all() else ""
        add_trace(fig, on(panels[1], dict(
            type="scatter", x=np.array(eps), y=line.to_numpy(dtype=float), mode="lines+markers",
            name=f"c = {c}{never}",
            line=dict(color=PALETTE[i % len(PALETTE)], width=3 if c == cutoff else 1.5),
            hovertemplate=f"c = {c}, ε = %{{x:g}}: n ≥ %{{y:,}}<extra></extra>")))
    if current is not None:
        n, e = current
        box = dict(symbol="square-open", size=30, color=WARNING, line=dict(width=3))  # the cell's value stays legible
        add_trace(fig, on(panels[0], dict(type="scatter", x=[f"{e:g}"], y=[f"{n:,}"], mode="markers",
                                          name="this page's configuration", marker=box, hoverinfo="skip")))
        add_trace(fig, on(panels[1], dict(type="scatter", x=[e], y=[n], mode="markers", showlegend=False,
                                          hoverinfo="skip", marker=dict(box, size=14))))
    base_layout(fig, height=440)
    ticks = dict(tickvals=eps, ticktext=x_labels)
    relayout(fig, hovermode="closest", margin=dict(t=40, b=120),
             legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0.0),
             xaxis=dict(type="category", title=dict(text="privacy budget ε")),
             yaxis=dict(type="category", title=dict(text="records per test n")),
             xaxis2=dict(type="log", title=dict(text="privacy budget ε (log scale)"), **ticks),
             yaxis2=dict(type="log", title=dict(text="records per test n (log scale)"), tickvals=records,
                         ticktext=y_labels))
    return to_figure(fig)

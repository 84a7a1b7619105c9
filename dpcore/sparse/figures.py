"""Plotly figures of the sparse-learning page (plain functions, unit-testable, no Streamlit)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dpcore.figures import (  # noqa: F401  (COLOURS, TRUTH: re-exported for the page's colours)
    COLOURS,
    NONPRIVATE,
    PALETTE,
    TRUTH,
    add_trace,
    band,
    base_layout,
    curve,
    epsilon_axis,
    fixed_margins,
    mark_epsilon,
    new_spec,
    plot_text,
    shown_features,
    relayout,
    series_colour,
    text_legend,
    to_figure,
)


def utility_figure(curve_data, metric: str, *, labels: Mapping[str, str], epsilon: float | None = None,
                   y_title: str = "", title: str | None = None, log_y: bool = False) -> go.Figure:
    """Mean of ``metric`` over repeats vs ε with a 10–90 % band per method (``curve_data``: a UtilityCurve)."""
    fig = new_spec()
    eps = curve_data.epsilons
    for i, method in enumerate(curve_data.methods):
        vals = np.asarray(curve_data.values[method][metric], dtype=float)
        label = labels.get(method, method)
        colour = series_colour(label, i)
        lo, hi = np.quantile(vals, [0.1, 0.9], axis=1)
        if method != "nonprivate":
            band(fig, eps, lo, hi, name=f"{label} 10–90 %", colour=colour, showlegend=False, legendgroup=label)
        curve(fig, eps, vals.mean(axis=1), name=label, colour=colour, legendgroup=label,
              dash="dot" if method == "nonprivate" else None)
    base_layout(fig, title=title, y_title=y_title)
    epsilon_axis(fig)
    if log_y:
        relayout(fig, yaxis=dict(type="log"))
    if epsilon is not None:
        mark_epsilon(fig, epsilon)
    return to_figure(fig)


def _positive(v: np.ndarray) -> np.ndarray:
    """Zeros (converged exactly) become gaps on a log axis."""
    return np.where(v > 0, v, np.nan)


def convergence_figure(paths: Mapping[str, np.ndarray]) -> go.Figure:
    """Optimisation error ``‖θ_t − θ_T‖2`` of the teacher and the student against t (log y: linear convergence is
    a straight line), plus the student's distance to the teacher (levels off at the privacy error)."""
    fig = new_spec()
    curve(fig, np.arange(paths["teacher"].size), _positive(paths["teacher"]),
          name="teacher: ‖θ_t − θ_T‖", colour=NONPRIVATE)
    curve(fig, np.arange(paths["student"].size), _positive(paths["student"]),
          name="student: ‖θ_t − θ_T‖", colour=PALETTE[0])
    curve(fig, np.arange(paths["student_to_teacher"].size), _positive(paths["student_to_teacher"]),
          name="student: ‖θ_t − teacher‖", colour=PALETTE[0], dash="dot")
    base_layout(fig, x_title="iteration t", y_title="distance (log scale)")
    return to_figure(relayout(fig, yaxis=dict(type="log", exponentformat="power")))


#: a stem's width in units of the feature axis per feature shown: about 2 px on a chart some 1,000 px wide
STEM_WIDTH = 0.002


def stem_figure(coefs: Mapping[str, np.ndarray], *, feature_names: Sequence[str] | None = None,
                max_features: int = 40) -> go.Figure:
    """Lollipop (stem) plot of several coefficient vectors on the union of their supports, cheap to draw.

    The page redraws it on every move of ε, δ or the repeats, and the browser builds a changed chart from
    scratch, so it is drawn with few parts (the shared ``dpcore.figures.coefficient_figure`` took about three
    times as long in Plotly): one bar trace for every vector's stems (a colour per bar: Plotly's time grows with
    the number of traces, and one line trace per vector took 17 ms a draw against 11 ms in Chromium for seven
    vectors), one marker trace for every vector's support,
    the legend as one line of coloured text (Plotly's legend measures and places each entry) and fixed margins
    (automatic margins measure every tick label, then lay the plot out again).

    Only features that are non-zero in some vector are shown (up to ``max_features``, largest magnitudes
    first); each vector is offset sideways so stems do not hide each other; a dot marks a coefficient in that
    vector's support, and hovering it names the feature and the vector.
    """
    vectors, names, used = shown_features(coefs, feature_names, max_features)
    fig = new_spec()
    k = len(vectors)
    tips_x, tips_y, tips_colour, tips_text, legend = [], [], [], [], []
    for i, (name, v) in enumerate(vectors.items()):
        x = np.arange(used.size) + (i - (k - 1) / 2) * 0.8 / max(k, 1)
        vals = v[used]
        colour = series_colour(name, i)
        kept = vals != 0
        tips_x.append(x[kept])
        tips_y.append(vals[kept])
        tips_colour += [colour] * int(kept.sum())
        tips_text += [[names[j], plot_text(name)] for j in used[kept]]
        legend.append(("━━", colour, plot_text(name)))
    x, y = np.concatenate(tips_x), np.concatenate(tips_y)
    # stems: one bar trace, a colour per bar, about 2 px wide on a chart some 1,000 px across
    add_trace(fig, dict(type="bar", x=x, y=y, width=(used.size + 1) * STEM_WIDTH, marker=dict(color=tips_colour),
                        hoverinfo="skip", showlegend=False, name="stems"))
    add_trace(fig, dict(type="scatter", x=x, y=y, mode="markers", marker=dict(color=tips_colour, size=8),
                        customdata=tips_text, showlegend=False, name="in the support",
                        hovertemplate="%{customdata[0]}: %{y:.3g}<extra>%{customdata[1]}</extra>"))
    short = [names[j] if len(names[j]) <= 18 else names[j][:17] + "…" for j in used]  # full name on hover
    angled = used.size > 8
    longest = max((len(t) for t in short), default=1)
    base_layout(fig, x_title="feature (union of the recovered supports)", y_title="coefficient", height=460)
    fixed_margins(fig, t=text_legend(fig, legend), b=(48 + int(5.2 * longest)) if angled else 60)
    relayout(fig, hovermode="closest", barmode="overlay",
             xaxis=dict(tickmode="array", tickvals=np.arange(used.size), ticktext=short, tickangle=-45 if angled else 0,
                        zeroline=False),
             yaxis=dict(zeroline=True, zerolinecolor="#999", zerolinewidth=1))
    return to_figure(fig)

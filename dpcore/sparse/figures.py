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


def stem_figure(coefs: Mapping[str, np.ndarray], *, feature_names: Sequence[str] | None = None,
                max_features: int = 40) -> go.Figure:
    """Lollipop (stem) plot of several coefficient vectors on the union of their supports, cheap to draw.

    The page redraws it on every move of ε, δ or the repeats, and the browser builds a changed chart from
    scratch, so it is drawn with few parts (the shared ``dpcore.figures.coefficient_figure`` took about three
    times as long in Plotly): one line trace of stems per vector, one marker trace for every vector's support,
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
        add_trace(fig, dict(type="scatter", x=np.column_stack([x, x, np.full_like(x, np.nan)]).ravel(),
                            y=np.column_stack([np.zeros_like(vals), vals, np.full_like(vals, np.nan)]).ravel(),
                            mode="lines", line=dict(color=colour, width=2), hoverinfo="skip", name=plot_text(name),
                            showlegend=False))
        kept = vals != 0
        tips_x.append(x[kept])
        tips_y.append(vals[kept])
        tips_colour += [colour] * int(kept.sum())
        tips_text += [[names[j], plot_text(name)] for j in used[kept]]
        legend.append(("━━", colour, plot_text(name)))
    add_trace(fig, dict(type="scatter", x=np.concatenate(tips_x), y=np.concatenate(tips_y), mode="markers",
                        marker=dict(color=tips_colour, size=8), customdata=tips_text, showlegend=False,
                        name="in the support", hovertemplate="%{customdata[0]}: %{y:.3g}<extra>%{customdata[1]}</extra>"))
    short = [names[j] if len(names[j]) <= 18 else names[j][:17] + "…" for j in used]  # full name on hover
    angled = used.size > 8
    longest = max((len(t) for t in short), default=1)
    base_layout(fig, x_title="feature (union of the recovered supports)", y_title="coefficient", height=460)
    fixed_margins(fig, t=text_legend(fig, legend), b=(48 + int(5.2 * longest)) if angled else 60)
    relayout(fig, hovermode="closest",
             xaxis=dict(tickmode="array", tickvals=np.arange(used.size), ticktext=short, tickangle=-45 if angled else 0,
                        zeroline=False),
             yaxis=dict(zeroline=True, zerolinecolor="#999", zerolinewidth=1))
    return to_figure(fig)

"""Plotly figures of the sparse-learning page (plain functions, unit-testable, no Streamlit)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dpcore.figures import NONPRIVATE, PALETTE, TRUTH, band, base_layout, curve, epsilon_axis, mark_epsilon

#: Colour of each series name used on the page.
COLOURS = {
    "truth θ*": TRUTH,
    "teacher (non-private)": NONPRIVATE,
    "knowledge transfer (student)": PALETTE[0],
    "DP-IGHT": PALETTE[1],
    "DP Frank–Wolfe": PALETTE[3],
    "two-stage": PALETTE[4],
    "KT with private support": PALETTE[6],
    "released student": PALETTE[0],
}


def _colour(name: str, i: int) -> str:
    for key, colour in COLOURS.items():
        if name.startswith(key):
            return colour
    return PALETTE[i % len(PALETTE)]


def coefficient_figure(coefs: Mapping[str, np.ndarray], *, feature_names: Sequence[str] | None = None,
                       title: str | None = None, max_features: int = 40) -> go.Figure:
    """Lollipop (stem) plot of several coefficient vectors on the union of their supports.

    Only features that are non-zero in some vector are shown (up to
    ``max_features``, largest magnitudes first) — with d up to 10⁴ a full
    axis would be unreadable. Each series is offset sideways so stems do not
    hide each other; a dot marks a coefficient in that method's support.
    """
    vectors = {k: np.asarray(v, dtype=float) for k, v in coefs.items()}
    d = next(iter(vectors.values())).size
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    stacked = np.vstack(list(vectors.values()))
    used = np.flatnonzero(np.any(stacked != 0, axis=0))
    if used.size > max_features:
        used = used[np.argsort(-np.abs(stacked[:, used]).max(axis=0))[:max_features]]
    used = np.sort(used)
    fig = go.Figure()
    k = len(vectors)
    width = 0.8
    for i, (name, v) in enumerate(vectors.items()):
        offset = (i - (k - 1) / 2) * width / max(k, 1)
        x = np.arange(used.size) + offset
        vals = v[used]
        xs = np.column_stack([x, x, np.full_like(x, np.nan)]).ravel()
        ys = np.column_stack([np.zeros_like(vals), vals, np.full_like(vals, np.nan)]).ravel()
        colour = _colour(name, i)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=colour, width=2), hoverinfo="skip",
                                 legendgroup=name, name=name))
        fig.add_trace(go.Scatter(
            x=x, y=np.where(vals != 0, vals, np.nan), mode="markers", name=name, legendgroup=name, showlegend=False,
            marker=dict(color=colour, size=8), customdata=[names[j] for j in used],
            hovertemplate="%{customdata}: %{y:.3g}<extra>" + name + "</extra>"))
    fig.add_hline(y=0, line=dict(color="#999", width=1))
    base_layout(fig, title=title, x_title="feature (union of the recovered supports)", y_title="coefficient",
                height=460)
    fig.update_layout(hovermode="closest", legend=dict(y=1.02, yanchor="bottom"))
    short = [names[j] if len(names[j]) <= 18 else names[j][:17] + "…" for j in used]  # full name on hover
    fig.update_xaxes(tickmode="array", tickvals=np.arange(used.size), ticktext=short,
                     tickangle=-45 if used.size > 8 else 0)
    return fig


def utility_figure(curve_data, metric: str, *, labels: Mapping[str, str], epsilon: float | None = None,
                   y_title: str = "", title: str | None = None, log_y: bool = False) -> go.Figure:
    """Mean of ``metric`` over repeats vs ε with a 10–90 % band per method (``curve_data``: a UtilityCurve)."""
    fig = go.Figure()
    eps = curve_data.epsilons
    for i, method in enumerate(curve_data.methods):
        vals = np.asarray(curve_data.values[method][metric], dtype=float)
        label = labels.get(method, method)
        colour = _colour(label, i)
        lo, hi = np.quantile(vals, [0.1, 0.9], axis=1)
        if method != "nonprivate":
            band(fig, eps, lo, hi, name=f"{label} 10–90 %", colour=colour, showlegend=False, legendgroup=label)
        curve(fig, eps, vals.mean(axis=1), name=label, colour=colour, legendgroup=label,
              dash="dot" if method == "nonprivate" else None)
    base_layout(fig, title=title, y_title=y_title)
    epsilon_axis(fig)
    if log_y:
        fig.update_yaxes(type="log")
    if epsilon is not None:
        mark_epsilon(fig, epsilon)
    return fig


def _positive(v: np.ndarray) -> np.ndarray:
    """Zeros (converged exactly) become gaps on a log axis."""
    return np.where(v > 0, v, np.nan)


def convergence_figure(paths: Mapping[str, np.ndarray]) -> go.Figure:
    """Optimisation error ``‖θ_t − θ_T‖2`` of the teacher and the student against t (log y: linear convergence is
    a straight line), plus the student's distance to the teacher (levels off at the privacy error)."""
    fig = go.Figure()
    curve(fig, np.arange(paths["teacher"].size), _positive(paths["teacher"]),
          name="teacher: ‖θ_t − θ_T‖", colour=NONPRIVATE)
    curve(fig, np.arange(paths["student"].size), _positive(paths["student"]),
          name="student: ‖θ_t − θ_T‖", colour=PALETTE[0])
    curve(fig, np.arange(paths["student_to_teacher"].size), _positive(paths["student_to_teacher"]),
          name="student: ‖θ_t − teacher‖", colour=PALETTE[0], dash="dot")
    base_layout(fig, x_title="iteration t", y_title="distance (log scale)")
    fig.update_yaxes(type="log", exponentformat="power")
    return fig

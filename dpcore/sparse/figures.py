"""Plotly figures of the sparse-learning page (plain functions, unit-testable, no Streamlit)."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import plotly.graph_objects as go

from dpcore.figures import (  # noqa: F401  (coefficient_figure: the shared stem plot, used by the sparse page)
    COLOURS,
    NONPRIVATE,
    PALETTE,
    TRUTH,
    band,
    base_layout,
    coefficient_figure,
    curve,
    epsilon_axis,
    mark_epsilon,
    new_spec,
    relayout,
    series_colour,
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

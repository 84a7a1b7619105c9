"""Figures of the attacker's view (plain functions returning Plotly figures; no Streamlit).

* :func:`roc_figure` — the optimal attacker's ROC (exact and/or from seeded
  releases with its confidence band) inside the region (ε, δ)-DP allows;
* :func:`bound_figure` — the best possible guessing accuracy over ε, with the
  chosen ε marked (the small panel of the method pages and the home page);
* :func:`nonprivate_figure` — the two non-private curves the attacker compares.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dpcore.reporting.attack import AttackView, max_accuracy, percent, tpr_bound, tpr_floor
from dpcore.reporting.figures import (
    EPSILON_TICKS,
    NONPRIVATE,
    PALETTE,
    PRIVATE,
    TRUTH,
    WARNING,
    add_trace,
    base_layout,
    curve,
    epsilon_axis,
    mark_epsilon,
    new_spec,
    relayout,
    rgba,
    to_figure,
)

REGION = "#7b5ea7"


def roc_figure(view: AttackView, *, height: int = 460) -> go.Figure:
    """ROC of the best test on the pair, over the shaded region allowed by (ε, δ)-DP.

    Points outside the shaded region would refute the privacy claim; the
    corner (0, 1) is the attacker without privacy (never wrong).
    """
    fpr = np.linspace(0.0, 1.0, 401)
    upper, lower = tpr_bound(fpr, view.epsilon, view.delta), tpr_floor(fpr, view.epsilon, view.delta)
    fig = new_spec()
    add_trace(fig, dict(type="scatter", x=fpr, y=lower, mode="lines", line=dict(width=0), hoverinfo="skip",
                        showlegend=False))
    add_trace(fig, dict(type="scatter", x=fpr, y=upper, mode="lines", fill="tonexty", fillcolor=rgba(REGION, 0.15),
                        line=dict(color=REGION, width=1.5),
                        name=f"allowed by (ε = {view.epsilon:g}" + (f", δ = {view.delta:g}" if view.delta else "")
                        + ")-DP", hovertemplate="FPR %{x:.3f}: TPR at most %{y:.3f}<extra></extra>"))
    curve(fig, [0, 1], [0, 1], name="coin flip", colour=NONPRIVATE, dash="dot", width=1.2)
    emp = view.empirical
    t_lo, t_hi = emp.tpr_band
    f_lo, f_hi = emp.fpr_band
    add_trace(fig, dict(
        type="scatter", x=emp.fpr, y=emp.tpr, mode="lines+markers", name=f"optimal attacker, {emp.draws:,} seeded releases",
        line=dict(color=PRIVATE, width=1.5), marker=dict(size=5),
        error_y=dict(type="data", symmetric=False, array=t_hi - emp.tpr, arrayminus=emp.tpr - t_lo,
                     color=rgba(PRIVATE, 0.5), thickness=1),
        error_x=dict(type="data", symmetric=False, array=f_hi - emp.fpr, arrayminus=emp.fpr - f_lo,
                     color=rgba(PRIVATE, 0.5), thickness=1),
        hovertemplate="FPR %{x:.3f}, TPR %{y:.3f}<extra></extra>"))
    if view.exact is not None:
        curve(fig, view.exact.fpr[0], view.exact.tpr[0], name="optimal attacker, exact", colour=PALETTE[1], width=2.5)
    add_trace(fig, dict(type="scatter", x=[0], y=[1], mode="markers+text",
                        marker=dict(color=WARNING, size=11, symbol="star"), text=["without privacy: always right"],
                        textposition="middle right", name="without privacy",
                        hovertemplate="no noise: FPR 0, TPR 1<extra></extra>"))
    base_layout(fig, x_title="false-positive rate (says A when it is B)",
                y_title="true-positive rate (says A when it is A)", height=height)
    relayout(fig, hovermode="closest", xaxis=dict(range=[-0.02, 1.02], constrain="domain"),
             yaxis=dict(range=[-0.02, 1.05], scaleanchor="x", scaleratio=1))
    return to_figure(fig)


def bound_figure(epsilon: float, delta: float = 0.0, *, height: int = 260) -> go.Figure:
    """The attacker's best chance of guessing right over ε (log axis), with the chosen ε marked."""
    grid = np.array([e for e in EPSILON_TICKS if 0.05 <= e <= 20] + [float(epsilon)])
    grid = np.unique(np.concatenate([grid, np.geomspace(0.05, 20, 120)]))
    acc = max_accuracy(grid, delta)
    fig = new_spec()
    add_trace(fig, dict(type="scatter", x=grid, y=100 * acc, mode="lines", line=dict(color=PRIVATE, width=2.5),
                        name="at most (with privacy)", hovertemplate="ε %{x:.3g}: at most %{y:.1f} %<extra></extra>"))
    curve(fig, [grid[0], grid[-1]], [100, 100], name="without privacy", colour=WARNING, dash="dash", width=1.2)
    curve(fig, [grid[0], grid[-1]], [50, 50], name="coin flip", colour=NONPRIVATE, dash="dot", width=1.2)
    here = float(max_accuracy(epsilon, delta))
    add_trace(fig, dict(type="scatter", x=[epsilon], y=[100 * here], mode="markers+text",
                        marker=dict(color=TRUTH, size=10), text=[percent(here)], cliponaxis=False,
                        # below the point near 100 % (above it the label ran into the plot's top edge), right of it
                        # near the axis' left end
                        textposition=("bottom" if here > 0.85 else "top") + (" right" if epsilon < 0.2 else " left"),
                        showlegend=False, hovertemplate="ε %{x:g}: at most %{y:.1f} %<extra></extra>"))
    mark_epsilon(fig, epsilon, side="left" if epsilon > 5 else "right")
    base_layout(fig, y_title="attacker right (%)", height=height)
    # legend under the axis: the chosen-ε label sits where a top legend would be
    relayout(fig, hovermode="closest", margin=dict(l=60, r=20, t=30, b=95),
             legend=dict(orientation="h", yanchor="top", y=-0.32, xanchor="left", x=0.0), yaxis=dict(range=[45, 105]))
    return to_figure(epsilon_axis(fig, title="privacy budget ε (log scale)"))


def nonprivate_figure(curves: dict, *, height: int = 420) -> go.Figure:
    """The release without noise on A and on B (step curves) and their difference below: where the
    difference is not zero, the attacker reads the last record off the two curves."""
    fig = new_spec()
    x = curves["x"]
    add_trace(fig, dict(type="scatter", x=x, y=curves["A"], mode="lines", name="release on A (no noise)",
                        line=dict(color=PRIVATE, width=2, shape="hv"), xaxis="x", yaxis="y"))
    add_trace(fig, dict(type="scatter", x=x, y=curves["B"], mode="lines", name="release on B (no noise)",
                        line=dict(color=PALETTE[1], width=2, dash="dash", shape="hv"), xaxis="x", yaxis="y"))
    diff = np.asarray(curves["A"], dtype=float) - np.asarray(curves["B"], dtype=float)
    add_trace(fig, dict(type="scatter", x=x, y=diff, mode="lines", name="A − B: the last record", fill="tozeroy",
                        line=dict(color=WARNING, width=2, shape="hv"), fillcolor=rgba(WARNING, 0.2),
                        xaxis="x2", yaxis="y2"))
    base_layout(fig, height=height)
    # two rows sharing x (make_subplots' row heights 0.65 / 0.35, vertical spacing 0.08)
    relayout(fig, xaxis=dict(anchor="y", domain=[0.0, 1.0], matches="x2", showticklabels=False),
             yaxis=dict(anchor="x", domain=[0.402, 1.0], title=dict(text=curves["y_label"])),
             xaxis2=dict(anchor="y2", domain=[0.0, 1.0], title=dict(text=curves["x_label"])),
             yaxis2=dict(anchor="x2", domain=[0.0, 0.322], title=dict(text="A − B")))
    return to_figure(fig)

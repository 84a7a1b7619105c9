"""Shared look of every figure: colours, layout and the band/curve helpers.

Figure builders of each method (``dpcore.<method>_figures`` or a
``figures`` section in the method module) are plain functions returning
``plotly.graph_objects.Figure`` and use these helpers, so all pages read the
same way: non-private reference in dark grey, private in blue, Monte-Carlo
bands as translucent fills, the chosen ε as a dashed vertical line.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import plotly.graph_objects as go

NONPRIVATE = "#3b3b3b"
PRIVATE = "#1f6fd1"
TRUTH = "#2e7d32"
WARNING = "#d1495b"
#: A qualitative palette for several private methods / groups.
PALETTE = ("#1f6fd1", "#e69500", "#2e9e6a", "#d1495b", "#7b5ea7", "#8c6d31", "#17becf", "#555555")


def rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def base_layout(fig: go.Figure, *, title: str | None = None, x_title: str = "", y_title: str = "", height: int = 420) -> go.Figure:
    """Apply the common layout: white template, legend on top, readable margins.

    A title sits at the very top of the figure with room below it for a
    legend of up to three rows, so the two never overlap.
    """
    fig.update_layout(
        template="plotly_white",
        title=dict(text=title, x=0.0, xanchor="left", y=0.99, yanchor="top", yref="container") if title else None,
        xaxis_title=x_title,
        yaxis_title=y_title,
        height=height + (70 if title else 0),
        margin=dict(l=60, r=20, t=110 if title else 30, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0),
        hovermode="x unified",
    )
    return fig


def band(
    fig: go.Figure,
    x: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    name: str,
    colour: str,
    alpha: float = 0.18,
    step: bool = False,
    showlegend: bool = True,
    legendgroup: str | None = None,
) -> go.Figure:
    """Add a filled band between ``lower`` and ``upper`` (step-shaped for survival curves)."""
    shape = "hv" if step else "linear"
    group = legendgroup or name
    fig.add_trace(
        go.Scatter(x=x, y=upper, mode="lines", line=dict(width=0, shape=shape), hoverinfo="skip",
                   showlegend=False, legendgroup=group)
    )
    fig.add_trace(
        go.Scatter(x=x, y=lower, mode="lines", line=dict(width=0, shape=shape), fill="tonexty",
                   fillcolor=rgba(colour, alpha), name=name, hoverinfo="skip", showlegend=showlegend,
                   legendgroup=group)
    )
    return fig


def curve(
    fig: go.Figure,
    x: Sequence[float],
    y: Sequence[float],
    *,
    name: str,
    colour: str,
    step: bool = False,
    dash: str | None = None,
    width: float = 2.0,
    legendgroup: str | None = None,
    showlegend: bool = True,
) -> go.Figure:
    fig.add_trace(
        go.Scatter(x=x, y=y, mode="lines", name=name, legendgroup=legendgroup or name, showlegend=showlegend,
                   line=dict(color=colour, width=width, dash=dash, shape="hv" if step else "linear"))
    )
    return fig


def mark_epsilon(fig: go.Figure, epsilon: float, *, label: str = "chosen ε", log_x: bool = True) -> go.Figure:
    """Dashed vertical line at the chosen ε on a privacy–utility curve, labelled at the top.

    Plotly reads an annotation's x on a log axis as log10(x) (shapes take
    data values), so the label is placed explicitly; ``add_vline``'s own
    annotation would land at 10^ε and stretch the axis.
    """
    fig.add_vline(x=epsilon, line=dict(color=WARNING, dash="dash", width=1.5))
    fig.add_annotation(x=math.log10(epsilon) if log_x else epsilon, xref="x", y=1.0, yref="paper",
                       text=f"{label} = {epsilon:g}", showarrow=False, xanchor="left", yanchor="bottom",
                       font=dict(color=WARNING, size=12))
    return fig


#: Tick values of every log-scaled ε axis (1-2-5 steps): plotly's own log ticks mix full labels with
#: small digits ("0.1 2 5 1 2 5 10"), which reads as nonsense to a clinician.
EPSILON_TICKS = tuple(m * 10.0 ** k for k in range(-3, 4) for m in (1, 2, 5))


def epsilon_axis(fig: go.Figure, *, title: str = "privacy budget ε (log scale; smaller = more private)",
                 **axis_selector) -> go.Figure:
    """Log-scaled ε axis with plain 1-2-5 tick labels, as every privacy–utility curve uses.

    ``axis_selector`` (e.g. ``row=1, col=2``) picks one subplot's axis.
    """
    fig.update_xaxes(type="log", title_text=title, tickvals=EPSILON_TICKS,
                     ticktext=[f"{v:g}" for v in EPSILON_TICKS], tickangle=0, **axis_selector)
    return fig


def quantile_band(values: np.ndarray, lower: float = 0.05, upper: float = 0.95, axis: int = 0):
    """Mean and the (lower, upper) quantile band over Monte-Carlo draws on ``axis``."""
    values = np.asarray(values, dtype=float)
    lo, hi = np.quantile(values, [lower, upper], axis=axis)
    return values.mean(axis=axis), lo, hi


def epsilon_choice_figure(choice, *, metric_label: str) -> go.Figure:
    """The accuracy-first curve: estimate and confidence band over ε, the target and the chosen ε."""
    fig = go.Figure()
    band(fig, choice.grid, choice.lower, choice.upper, name="95% interval", colour=PRIVATE)
    curve(fig, choice.grid, choice.estimate, name="estimate (Monte-Carlo)", colour=PRIVATE)
    fig.add_hline(y=choice.target, line=dict(color=NONPRIVATE, dash="dot"), annotation_text="target")
    if choice.epsilon is not None:
        mark_epsilon(fig, choice.epsilon, label="smallest ε")
    base_layout(fig, y_title=metric_label, height=320)
    return epsilon_axis(fig)


def audit_figure(summaries_a: np.ndarray, summaries_b: np.ndarray, result, *, bins: int = 60) -> go.Figure:
    """The two output distributions the audit compared, with the distinguishing threshold.

    Summaries with few distinct values (indicators, counts) are shown as
    grouped bars per value — a histogram would hide a rare value that carries
    the whole privacy loss; continuous summaries as overlaid histograms.
    """
    a = np.asarray(summaries_a, dtype=float)
    b = np.asarray(summaries_b, dtype=float)
    fig = go.Figure()
    values = np.unique(np.concatenate([a, b]))
    if values.size <= 20:
        labels = [f"{v:g}" for v in values]
        for sample, name, colour in ((a, "neighbour A", PRIVATE), (b, "neighbour B", PALETTE[1])):
            share = (sample[None, :] == values[:, None]).mean(axis=1)
            fig.add_trace(go.Bar(x=labels, y=share, name=name, marker_color=colour,
                                 text=[f"{s:.3g}" for s in share], textposition="outside"))
        base_layout(fig, x_title="value of the summary", y_title="share of runs", height=360)
        fig.update_layout(barmode="group", hovermode="closest")
        fig.update_xaxes(type="category")
        return fig
    lo, hi = np.quantile(np.concatenate([a, b]), [0.001, 0.999])
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    centres = 0.5 * (edges[1:] + edges[:-1])
    for sample, name, colour in ((a, "neighbour A", PRIVATE), (b, "neighbour B", PALETTE[1])):
        counts, _ = np.histogram(np.clip(sample, lo, hi), bins=edges)
        fig.add_trace(go.Bar(x=centres, y=counts / sample.size, name=name, marker_color=rgba(colour, 0.6)))
    if np.isfinite(result.threshold):
        fig.add_vline(x=result.threshold, line=dict(color=WARNING, dash="dash"))
        fig.add_annotation(x=result.threshold, y=1.0, yref="paper", text="event threshold", showarrow=False,
                           xanchor="left", yanchor="bottom", font=dict(color=WARNING))
    base_layout(fig, x_title="scalar summary of the release", y_title="share of runs", height=360)
    fig.update_layout(barmode="overlay", bargap=0.0, hovermode="closest")
    return fig

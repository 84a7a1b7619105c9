"""The ledger's figure: how many persons have spent how much, against the cap (a plain function of ``Spend`` rows)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dpcore.reporting.figures import PRIVATE, WARNING, add_trace, base_layout, new_spec, relayout, to_figure, vline


def person_spend_figure(spend: Sequence, cap_epsilon: float | None = None, *, bins: int = 20,
                        rule: str = "basic composition") -> go.Figure:
    """How many persons have spent how much ε (one bar per range of spend), against the per-person cap.

    ``spend`` holds one row per history (``dpcore.ledger.Spend``: ε spent and the number of persons sharing it), so
    the figure costs the number of distinct histories, not of persons. A reviewer reads at a glance that every bar
    sits left of the cap line.
    """
    eps = np.array([s.epsilon for s in spend], dtype=float)
    people = np.array([s.persons for s in spend], dtype=float)
    top = max(float(eps.max(initial=0.0)), cap_epsilon or 0.0, 1e-9)
    edges = np.linspace(0.0, top * 1.0001, bins + 1)
    counts, _ = np.histogram(eps, bins=edges, weights=people)
    fig = new_spec()
    add_trace(fig, dict(type="bar", x=0.5 * (edges[1:] + edges[:-1]), y=counts, width=np.diff(edges),
                        name="persons", marker=dict(color=PRIVATE),
                        customdata=np.column_stack([edges[:-1], edges[1:]]),
                        hovertemplate="ε spent %{customdata[0]:.3g}–%{customdata[1]:.3g}: %{y:,} persons"
                                      "<extra></extra>"))
    if cap_epsilon is not None:
        vline(fig, cap_epsilon, dict(color=WARNING, dash="dash"), text=f"per-person cap ε = {cap_epsilon:g}",
              position="top left")
    base_layout(fig, x_title=f"ε spent by a person ({rule})", y_title="persons", height=320)
    return to_figure(relayout(fig, bargap=0.05, hovermode="closest", showlegend=False))

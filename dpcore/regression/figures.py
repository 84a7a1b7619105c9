"""Plotly figure builders for the drug-sensitivity page (plain functions, no Streamlit)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures import (
    LIGHT_TEMPLATE,
    NONPRIVATE,
    PALETTE,
    PRIVATE,
    TRUTH,
    WARNING,
    band,
    base_layout,
    curve,
    epsilon_axis,
    mark_epsilon,
    plot_text,
    quantile_band,
    rgba,
)
from dpcore.regression.linalg import MODELS

MODEL_COLOURS = dict(zip(MODELS, (NONPRIVATE, PRIVATE, PALETTE[1], PALETTE[3], PALETTE[4])))


def predicted_vs_observed(y_obs, pred_private, pred_nonprivate, *, rho_private: float, rho_nonprivate: float,
                          y_label: str = "observed response") -> go.Figure:
    """Test-set scatter of predictions against observations, private and non-private, with Spearman ρ."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=y_obs, y=pred_nonprivate, mode="markers", name=f"non-private (ρ = {rho_nonprivate:.3f})",
                             marker=dict(color=NONPRIVATE, size=6, opacity=0.55, symbol="circle-open")))
    fig.add_trace(go.Scatter(x=y_obs, y=pred_private, mode="markers", name=f"private preview (ρ = {rho_private:.3f})",
                             marker=dict(color=PRIVATE, size=6, opacity=0.7)))
    base_layout(fig, x_title=plot_text(y_label), y_title="prediction", height=420)
    fig.update_layout(hovermode="closest")
    return fig


def rho_draws_histogram(rho_draws, rho_nonprivate: float) -> go.Figure:
    """Utility over many noise draws: histogram of test ρ of the private fit, non-private line."""
    rho_draws = np.asarray(rho_draws, dtype=float)
    finite = rho_draws[np.isfinite(rho_draws)]  # ρ is undefined (nan) for constant predictions
    counts, edges = np.histogram(finite if finite.size else np.zeros(1), bins=30)
    fig = go.Figure(go.Histogram(x=rho_draws, name=f"private, {rho_draws.size} noise draws",
                                 xbins=dict(start=edges[0], end=edges[-1], size=edges[1] - edges[0]),
                                 marker=dict(color=rgba(PRIVATE, 0.6))))
    fig.add_vline(x=rho_nonprivate, line=dict(color=NONPRIVATE, width=2),
                  annotation_text=f"non-private {rho_nonprivate:.3f}", annotation_position="top right")
    lo, hi = np.quantile(finite, [0.05, 0.95]) if finite.size else (0.0, 0.0)
    fig.add_vrect(x0=lo, x1=hi, fillcolor=rgba(PRIVATE, 0.08), line_width=0,
                  annotation_text="90% of draws", annotation_position="top left")
    base_layout(fig, x_title="Spearman ρ on the test set", y_title="noise draws", height=360)
    fig.update_layout(hovermode="closest", showlegend=True)
    fig.update_yaxes(range=[0, 1.25 * max(counts.max(), 1)])  # headroom: the labels sit above the tallest bar
    return fig


def _model_bands(fig, x, values: np.ndarray, models: Sequence[str], shown: Sequence[str]):
    """``values`` (models, len(x), repeats): mean line and 10–90% band over repeats per shown model."""
    for m, name in enumerate(models):
        if name not in shown:
            continue
        mean, lo, hi = quantile_band(values[m], 0.1, 0.9, axis=-1)
        colour = MODEL_COLOURS.get(name, PALETTE[m % len(PALETTE)])
        band(fig, x, lo, hi, name=f"{name} 10–90%", colour=colour, alpha=0.12, showlegend=False, legendgroup=name)
        curve(fig, x, mean, name=name, colour=colour, legendgroup=name, dash="dot" if m == 0 else None)


def _compact_legend(fig: go.Figure) -> None:
    fig.update_layout(legend=dict(entrywidth=0.5, entrywidthmode="fraction", font=dict(size=11)),
                      margin=dict(t=90))


def rho_vs_epsilon(epsilons, rho: np.ndarray, *, models: Sequence[str] = MODELS, chosen: float | None = None,
                   shown: Sequence[str] = MODELS) -> go.Figure:
    """ρ vs ε for the models: ``rho`` (models, n_eps, repeats); bands over CV repeats."""
    fig = go.Figure()
    _model_bands(fig, list(epsilons), rho, models, shown)
    fig.add_hline(y=0, line=dict(color="#999", width=1))
    base_layout(fig, y_title="Spearman ρ on held-out cell lines", height=460)
    epsilon_axis(fig)
    eps = np.asarray(epsilons, dtype=float)
    fig.update_xaxes(range=[np.log10(eps.min()) - 0.05, np.log10(eps.max()) + 0.05])
    _compact_legend(fig)
    if chosen is not None:
        mark_epsilon(fig, chosen)
    return fig


def rho_vs_size(sizes, rho: np.ndarray, *, models: Sequence[str] = MODELS, shown: Sequence[str] = MODELS,
                chosen_size: int | None = None, equivalent: float | None = None) -> go.Figure:
    """ρ vs private training size ``rho`` (models, n_sizes, repeats) at one ε, with the equivalent size read off."""
    fig = go.Figure()
    _model_bands(fig, list(sizes), rho, models, shown)
    fig.add_hline(y=0, line=dict(color="#999", width=1))
    base_layout(fig, x_title="private training set size (cell lines)", y_title="Spearman ρ on held-out cell lines",
                height=460)
    _compact_legend(fig)
    if chosen_size is not None:
        fig.add_vline(x=chosen_size, line=dict(color=WARNING, dash="dash", width=1.5),
                      annotation_text=f"chosen n = {chosen_size}", annotation_position="top left")
    if equivalent is not None and np.isfinite(equivalent):
        fig.add_vline(x=equivalent, line=dict(color=NONPRIVATE, dash="dot", width=1.5),
                      annotation_text=f"non-private equivalent ≈ {equivalent:.0f}", annotation_position="bottom right")
    return fig


def tuning_heatmap(grid_x, grid_y, scores: np.ndarray, *, chosen: tuple[float, float],
                   used: tuple[float, float] | None = None) -> go.Figure:
    """Mean synthetic Spearman ρ over the (ωx, ωy) grid, with the search's choice (and the pair in use) marked.

    The axes are categorical (one cell per grid value) so the paper's 0.1–2.0 steps and the tail up to 16
    get equal room.
    """
    def label(v: float) -> str:
        return f"{float(v):g}"

    fig = go.Figure(go.Heatmap(x=[label(v) for v in grid_y], y=[label(v) for v in grid_x], z=scores,
                               colorscale="Blues", colorbar=dict(title="mean ρ"),
                               hovertemplate="ωx = %{y}<br>ωy = %{x}<br>mean ρ = %{z:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[label(chosen[1])], y=[label(chosen[0])], mode="markers", name="search's choice",
                             marker=dict(symbol="star", size=16, color=WARNING, line=dict(color="white", width=1))))
    if used is not None and tuple(used) != tuple(chosen):
        fig.add_trace(go.Scatter(x=[label(used[1])], y=[label(used[0])], mode="markers", name="pair in use",
                                 marker=dict(symbol="x", size=12, color=TRUTH)))
    base_layout(fig, x_title="ωy (By = ωy σy)", y_title="ωx (Bx = ωx σx)", height=440)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category")
    return fig


def ternary_split(splits: np.ndarray | None, scores: np.ndarray | None, *, chosen: Sequence[float],
                  best: Sequence[float] | None = None) -> go.Figure:
    """Utility over the budget split (p1 → nxx, p2 → nxy, p3 → nyy) on a ternary plot."""
    fig = go.Figure()
    if splits is not None and scores is not None:
        fig.add_trace(go.Scatterternary(
            a=splits[:, 0], b=splits[:, 1], c=splits[:, 2], mode="markers", name="searched splits",
            marker=dict(color=scores, colorscale="Blues", size=11, showscale=True, colorbar=dict(title="best ρ"),
                        line=dict(color="#888", width=0.5)),
            hovertemplate="nxx %{a:.2f} · nxy %{b:.2f} · nyy %{c:.2f}<br>ρ = %{marker.color:.3f}<extra></extra>"))
    if best is not None:
        fig.add_trace(go.Scatterternary(a=[best[0]], b=[best[1]], c=[best[2]], mode="markers", name="best split",
                                        marker=dict(symbol="star", size=16, color=WARNING)))
    fig.add_trace(go.Scatterternary(a=[chosen[0]], b=[chosen[1]], c=[chosen[2]], mode="markers",
                                    name="split in use", marker=dict(symbol="x", size=13, color=TRUTH)))
    fig.update_layout(
        template=LIGHT_TEMPLATE, height=440, margin=dict(l=40, r=40, t=50, b=40),
        legend=dict(orientation="h", yanchor="bottom", y=1.05, x=0.0),
        ternary=dict(aaxis=dict(title="p1 · nxx", min=0), baxis=dict(title="p2 · nxy", min=0),
                     caxis=dict(title="p3 · nyy", min=0)),
    )
    return fig


def coefficient_bars(names: Sequence[str], nonprivate, private_mean, private_lo, private_hi,
                     truth=None) -> go.Figure:
    """Coefficients: non-private, private (mean and 5–95% over draws) and, for synthetic data, the truth."""
    fig = go.Figure()
    x = [plot_text(n) for n in names]  # column names of an upload
    fig.add_trace(go.Bar(x=x, y=nonprivate, name="non-private", marker_color=rgba(NONPRIVATE, 0.7)))
    fig.add_trace(go.Bar(x=x, y=private_mean, name="private (mean over draws, 5–95%)", marker_color=rgba(PRIVATE, 0.7),
                         error_y=dict(type="data", symmetric=False, array=np.asarray(private_hi) - private_mean,
                                      arrayminus=np.asarray(private_mean) - private_lo)))
    if truth is not None:
        fig.add_trace(go.Scatter(x=x, y=truth, mode="markers", name="true β", marker=dict(color=TRUTH, size=11,
                                                                                          symbol="diamond")))
    base_layout(fig, y_title="coefficient", height=380)
    fig.update_layout(barmode="group", hovermode="x unified")
    return fig


def rho_panels(epsilons, rho_eps: np.ndarray, sizes, rho_size: np.ndarray, *, epsilon: float, n_private: int,
               equivalent: float | None = None, models: Sequence[str] = MODELS,
               shown: Sequence[str] = MODELS) -> go.Figure:
    """Side by side, one shared legend: ρ vs ε (at the chosen size) and ρ vs private size (at the chosen ε).

    ``rho_eps`` (models, n_eps, repeats), ``rho_size`` (models, n_sizes, repeats); bands are 10–90 %
    over CV repeats.
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=(f"over ε (n = {n_private} private)", f"over private size (ε = {epsilon:g})"))
    for col, x, values in ((1, list(epsilons), rho_eps), (2, list(sizes), rho_size)):
        for m, name in enumerate(models):
            if name not in shown:
                continue
            mean, lo, hi = quantile_band(values[m], 0.1, 0.9, axis=-1)
            colour = MODEL_COLOURS.get(name, PALETTE[m % len(PALETTE)])
            fig.add_trace(go.Scatter(x=x, y=hi, mode="lines", line=dict(width=0), hoverinfo="skip",
                                     showlegend=False, legendgroup=name), row=1, col=col)
            fig.add_trace(go.Scatter(x=x, y=lo, mode="lines", line=dict(width=0), fill="tonexty",
                                     fillcolor=rgba(colour, 0.12), hoverinfo="skip", showlegend=False,
                                     legendgroup=name), row=1, col=col)
            fig.add_trace(go.Scatter(x=x, y=mean, mode="lines+markers", name=name, legendgroup=name,
                                     showlegend=col == 1, marker=dict(size=5),
                                     line=dict(color=colour, width=2, dash="dot" if m == 0 else None)),
                          row=1, col=col)
    base_layout(fig, height=480)
    eps = np.asarray(epsilons, dtype=float)
    epsilon_axis(fig, title="ε (log scale; smaller = more private)", row=1, col=1)
    fig.update_xaxes(range=[np.log10(eps.min()) - 0.05, np.log10(eps.max()) + 0.05], row=1, col=1)
    fig.update_xaxes(title_text="private training records", row=1, col=2)
    fig.update_yaxes(title_text="Spearman ρ (held-out)", row=1, col=1)
    fig.update_layout(margin=dict(t=130), hovermode="x", legend=dict(y=1.13))
    for col in (1, 2):
        fig.add_hline(y=0, line=dict(color="#999", width=1), row=1, col=col)
    fig.add_vline(x=epsilon, line=dict(color=WARNING, dash="dash", width=1.5), row=1, col=1)
    fig.add_vline(x=n_private, line=dict(color=WARNING, dash="dash", width=1.5), row=1, col=2)
    if equivalent is not None and np.isfinite(equivalent):
        fig.add_vline(x=equivalent, line=dict(color=NONPRIVATE, dash="dot", width=1.5), row=1, col=2,
                      annotation_text=f"non-private equivalent ≈ {equivalent:.0f}",
                      annotation_position="bottom right")
    return fig

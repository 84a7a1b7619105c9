"""Plotly figure builders for the drug-sensitivity page (plain functions, no Streamlit)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from dpcore.reporting.figures import (
    GLYPHS,
    NONPRIVATE,
    PALETTE,
    PRIVATE,
    TRUTH,
    WARNING,
    add_trace,
    band,
    base_layout,
    curve,
    epsilon_axis,
    fixed_margins,
    hline,
    mark_epsilon,
    new_spec,
    plot_text,
    quantile_band,
    relayout,
    rgba,
    series_marks,
    subplots,
    text_legend,
    to_figure,
    vline,
)
from dpcore.regression.linalg import MODELS

MODEL_COLOURS = dict(zip(MODELS, (NONPRIVATE, PRIVATE, PALETTE[1], PALETTE[3], PALETTE[4], PALETTE[2])))
#: plotly.py's "Blues" as the explicit scale its validation wrote into the figure (plotly.js' own "Blues" differs).
BLUES = [list(stop) for stop in go.Heatmap(colorscale="Blues").colorscale]


def _scores(rho: float, r2: float | None, rmse: float | None) -> str:
    return f"ρ = {rho:.3f}" + ("" if r2 is None else f", R² = {r2:.2f}") + ("" if rmse is None else f", RMSE = {rmse:.3g}")


def predicted_vs_observed(y_obs, pred_private, pred_nonprivate, *, rho_private: float, rho_nonprivate: float,
                          y_label: str = "observed response", r2_private: float | None = None,
                          r2_nonprivate: float | None = None, rmse_private: float | None = None,
                          rmse_nonprivate: float | None = None) -> go.Figure:
    """Test-set scatter of predictions against observations, private and non-private, with Spearman ρ (and held-out
    R² and RMSE when given), and the identity line: points on it are predicted exactly, so a fit whose points
    lie far from it in either direction is off the response's scale whatever its ρ.

    The page's headline, redrawn from scratch on every move of ε or the budget split: the legend is text and the
    margins fixed (:func:`dpcore.reporting.figures.text_legend`), which spares Plotly a second layout pass.
    """
    fig = new_spec()
    nonprivate = f"non-private ({_scores(rho_nonprivate, r2_nonprivate, rmse_nonprivate)})"
    private = f"private preview ({_scores(rho_private, r2_private, rmse_private)})"
    lo, hi = float(np.min(y_obs)), float(np.max(y_obs))
    add_trace(fig, dict(type="scatter", x=[lo, hi], y=[lo, hi], mode="lines", name="prediction = observation",
                        line=dict(color="#999", width=1, dash="dash"), hoverinfo="skip"))
    add_trace(fig, dict(type="scatter", x=y_obs, y=pred_nonprivate, mode="markers", name=nonprivate,
                        marker=dict(color=NONPRIVATE, size=6, opacity=0.55, symbol="circle-open")))
    add_trace(fig, dict(type="scatter", x=y_obs, y=pred_private, mode="markers", name=private,
                        marker=dict(color=PRIVATE, size=6, opacity=0.7)))
    base_layout(fig, x_title=plot_text(y_label), y_title="prediction", height=420)
    fixed_margins(fig, t=text_legend(fig, [("○", NONPRIVATE, nonprivate), ("●", PRIVATE, private),
                                           ("╌", "#999", "prediction = observation")]), b=55, l=70)
    return to_figure(relayout(fig, hovermode="closest"))


def rho_draws_histogram(rho_draws, rho_nonprivate: float) -> go.Figure:
    """Utility over many noise draws: histogram of test ρ of the private fit, non-private line."""
    rho_draws = np.asarray(rho_draws, dtype=float)
    finite = rho_draws[np.isfinite(rho_draws)]  # ρ is undefined (nan) for constant predictions
    counts, edges = np.histogram(finite if finite.size else np.zeros(1), bins=30)
    fig = new_spec()
    add_trace(fig, dict(type="histogram", x=rho_draws, name=f"private, {rho_draws.size} noise draws",
                        xbins=dict(start=edges[0], end=edges[-1], size=edges[1] - edges[0]),
                        marker=dict(color=rgba(PRIVATE, 0.6))))
    vline(fig, rho_nonprivate, dict(color=NONPRIVATE, width=2), text=f"non-private {rho_nonprivate:.3f}")
    lo, hi = np.quantile(finite, [0.05, 0.95]) if finite.size else (0.0, 0.0)
    fig["layout"]["shapes"].append(dict(type="rect", x0=lo, x1=hi, xref="x", y0=0, y1=1, yref="y domain",
                                        fillcolor=rgba(PRIVATE, 0.08), line=dict(width=0)))
    fig["layout"]["annotations"].append(dict(text="90% of draws", showarrow=False, x=lo, xanchor="left", xref="x",
                                             y=1, yanchor="top", yref="y domain"))
    base_layout(fig, x_title="Spearman ρ on the test set", y_title="noise draws", height=360)
    # headroom: the labels sit above the tallest bar
    return to_figure(relayout(fig, hovermode="closest", showlegend=True,
                              yaxis=dict(range=[0, 1.25 * max(counts.max(), 1)])))


def _model_bands(fig, x, values: np.ndarray, models: Sequence[str], shown: Sequence[str], *, axis: str | None = None,
                 showlegend: bool = True):
    """``values`` (models, len(x), repeats): mean line and 10–90% band over repeats per shown model, each model's
    line with its own marker shape (models differ in more than colour)."""
    for m, name in enumerate(models):
        if name not in shown:
            continue
        mean, lo, hi = quantile_band(values[m], 0.1, 0.9, axis=-1)
        colour = _model_colour(m, name)
        band(fig, x, lo, hi, name=f"{name} 10–90%", colour=colour, alpha=0.12, showlegend=False, legendgroup=name,
             axis=axis)
        curve(fig, x, mean, name=name, colour=colour, legendgroup=name, dash="dot" if m == 0 else None,
              showlegend=showlegend, **({} if axis is None else dict(xaxis=f"x{axis}", yaxis=f"y{axis}")),
              **series_marks(m, colour=colour, size=6))


def _model_colour(m: int, name: str) -> str:
    return MODEL_COLOURS.get(name, PALETTE[m % len(PALETTE)])


def _compact_legend(fig) -> None:
    relayout(fig, legend=dict(entrywidth=0.5, entrywidthmode="fraction", font=dict(size=11)), margin=dict(t=90))


def rho_vs_epsilon(epsilons, rho: np.ndarray, *, models: Sequence[str] = MODELS, chosen: float | None = None,
                   shown: Sequence[str] = MODELS) -> go.Figure:
    """ρ vs ε for the models: ``rho`` (models, n_eps, repeats); bands over CV repeats."""
    fig = new_spec()
    _model_bands(fig, list(epsilons), rho, models, shown)
    hline(fig, 0, dict(color="#999", width=1))
    base_layout(fig, y_title="Spearman ρ on held-out cell lines", height=460)
    epsilon_axis(fig)
    eps = np.asarray(epsilons, dtype=float)
    relayout(fig, xaxis=dict(range=[np.log10(eps.min()) - 0.05, np.log10(eps.max()) + 0.05]))
    _compact_legend(fig)
    if chosen is not None:
        mark_epsilon(fig, chosen)
    return to_figure(fig)


def rho_vs_size(sizes, rho: np.ndarray, *, models: Sequence[str] = MODELS, shown: Sequence[str] = MODELS,
                chosen_size: int | None = None, equivalent: float | None = None) -> go.Figure:
    """ρ vs private training size ``rho`` (models, n_sizes, repeats) at one ε, with the equivalent size read off."""
    fig = new_spec()
    _model_bands(fig, list(sizes), rho, models, shown)
    hline(fig, 0, dict(color="#999", width=1))
    base_layout(fig, x_title="private training set size (cell lines)", y_title="Spearman ρ on held-out cell lines",
                height=460)
    _compact_legend(fig)
    if chosen_size is not None:
        vline(fig, chosen_size, dict(color=WARNING, dash="dash", width=1.5), text=f"chosen n = {chosen_size}",
              position="top left")
    if equivalent is not None and np.isfinite(equivalent):
        vline(fig, equivalent, dict(color=NONPRIVATE, dash="dot", width=1.5),
              text=f"non-private equivalent ≈ {equivalent:.0f}", position="bottom right")
    return to_figure(fig)


def tuning_heatmap(grid_x, grid_y, scores: np.ndarray, *, chosen: tuple[float, float],
                   used: tuple[float, float] | None = None) -> go.Figure:
    """Mean synthetic Spearman ρ over the (ωx, ωy) grid, with the search's choice (and the pair in use) marked.

    The axes are categorical (one cell per grid value) so the paper's 0.1–2.0 steps and the tail up to 16
    get equal room.
    """
    def label(v: float) -> str:
        return f"{float(v):g}"

    fig = new_spec()
    add_trace(fig, dict(type="heatmap", x=[label(v) for v in grid_y], y=[label(v) for v in grid_x], z=scores,
                        colorscale=BLUES, colorbar=dict(title=dict(text="mean ρ")),
                        hovertemplate="ωx = %{y}<br>ωy = %{x}<br>mean ρ = %{z:.3f}<extra></extra>"))
    add_trace(fig, dict(type="scatter", x=[label(chosen[1])], y=[label(chosen[0])], mode="markers",
                        name="search's choice",
                        marker=dict(symbol="star", size=16, color=WARNING, line=dict(color="white", width=1))))
    if used is not None and tuple(used) != tuple(chosen):
        add_trace(fig, dict(type="scatter", x=[label(used[1])], y=[label(used[0])], mode="markers",
                            name="pair in use", marker=dict(symbol="x", size=12, color=TRUTH)))
    base_layout(fig, x_title="ωy (By = ωy σy)", y_title="ωx (Bx = ωx σx)", height=440)
    return to_figure(relayout(fig, hovermode="closest", xaxis=dict(type="category"), yaxis=dict(type="category")))


def ternary_split(splits: np.ndarray | None, scores: np.ndarray | None, *, chosen: Sequence[float],
                  best: Sequence[float] | None = None) -> go.Figure:
    """Utility over the budget split (p1 → nxx, p2 → nxy, p3 → nyy) on a ternary plot."""
    fig = new_spec()
    if splits is not None and scores is not None:
        add_trace(fig, dict(
            type="scatterternary", a=splits[:, 0], b=splits[:, 1], c=splits[:, 2], mode="markers",
            name="searched splits", marker=dict(color=scores, colorscale=BLUES, size=11, showscale=True,
                                                colorbar=dict(title=dict(text="best ρ")),
                                                line=dict(color="#888", width=0.5)),
            hovertemplate="nxx %{a:.2f} · nxy %{b:.2f} · nyy %{c:.2f}<br>ρ = %{marker.color:.3f}<extra></extra>"))
    if best is not None:
        add_trace(fig, dict(type="scatterternary", a=[best[0]], b=[best[1]], c=[best[2]], mode="markers",
                            name="best split", marker=dict(symbol="star", size=16, color=WARNING)))
    add_trace(fig, dict(type="scatterternary", a=[chosen[0]], b=[chosen[1]], c=[chosen[2]], mode="markers",
                        name="split in use", marker=dict(symbol="x", size=13, color=TRUTH)))
    return to_figure(relayout(
        fig, height=440, margin=dict(l=40, r=40, t=50, b=40), legend=dict(orientation="h", yanchor="bottom", y=1.05, x=0.0),
        ternary=dict(aaxis=dict(title=dict(text="p1 · nxx"), min=0), baxis=dict(title=dict(text="p2 · nxy"), min=0),
                     caxis=dict(title=dict(text="p3 · nyy"), min=0)),
    ))


def coefficient_bars(names: Sequence[str], nonprivate, private_mean, private_lo, private_hi,
                     truth=None) -> go.Figure:
    """Coefficients: non-private, private (mean and 5–95% over draws) and, for synthetic data, the truth."""
    fig = new_spec()
    x = [plot_text(n) for n in names]  # column names of an upload
    add_trace(fig, dict(type="bar", x=x, y=nonprivate, name="non-private", marker=dict(color=rgba(NONPRIVATE, 0.7))))
    add_trace(fig, dict(type="bar", x=x, y=private_mean, name="private (mean over draws, 5–95%)",
                        marker=dict(color=rgba(PRIVATE, 0.7), pattern=dict(shape="/")),  # not colour alone
                        error_y=dict(type="data", symmetric=False, array=np.asarray(private_hi) - private_mean,
                                     arrayminus=np.asarray(private_mean) - private_lo)))
    if truth is not None:
        add_trace(fig, dict(type="scatter", x=x, y=truth, mode="markers", name="true β",
                            marker=dict(color=TRUTH, size=11, symbol="diamond")))
    base_layout(fig, y_title="coefficient", height=380)
    return to_figure(relayout(fig, barmode="group", hovermode="x unified"))


def rho_panels(epsilons, rho_eps: np.ndarray, sizes, rho_size: np.ndarray, *, epsilon: float, n_private: int,
               equivalent: float | None = None, models: Sequence[str] = MODELS,
               shown: Sequence[str] = MODELS) -> go.Figure:
    """Side by side, one shared legend: ρ vs ε (at the chosen size) and ρ vs private size (at the chosen ε).

    ``rho_eps`` (models, n_eps, repeats), ``rho_size`` (models, n_sizes, repeats); bands are 10–90 %
    over CV repeats. Redrawn whenever ε or the CV repeats move: the legend is text and the margins fixed
    (:func:`dpcore.reporting.figures.text_legend`).
    """
    fig = new_spec()
    left, right = subplots(fig, (f"over ε (n = {n_private} private)", f"over private size (ε = {epsilon:g})"),
                           spacing=0.1)
    for axis, x, values in ((left, list(epsilons), rho_eps), (right, list(sizes), rho_size)):
        _model_bands(fig, x, values, models, shown, axis=axis, showlegend=False)
    base_layout(fig, height=480)
    eps = np.asarray(epsilons, dtype=float)
    epsilon_axis(fig, title="ε (log scale; smaller = more private)", axis=left)
    relayout(fig, xaxis=dict(range=[np.log10(eps.min()) - 0.05, np.log10(eps.max()) + 0.05]),
             xaxis2=dict(title=dict(text="private training records")),
             yaxis=dict(title=dict(text="Spearman ρ (held-out)")),
             hovermode="x")
    legend = [(("┈" if m == 0 else "━") + GLYPHS[m % len(GLYPHS)], _model_colour(m, name), plot_text(name))
              for m, name in enumerate(models) if name in shown]
    fixed_margins(fig, t=text_legend(fig, legend, above=26), b=55)
    for axis in (left, right):
        hline(fig, 0, dict(color="#999", width=1), axis=axis)
    vline(fig, epsilon, dict(color=WARNING, dash="dash", width=1.5), axis=left)
    vline(fig, n_private, dict(color=WARNING, dash="dash", width=1.5), axis=right)
    if equivalent is not None and np.isfinite(equivalent):
        vline(fig, equivalent, dict(color=NONPRIVATE, dash="dot", width=1.5), axis=right,
              text=f"non-private equivalent ≈ {equivalent:.0f}", position="bottom right")
    return to_figure(fig)

"""Plotly figures of the sparse-learning page (plain functions, unit-testable, no Streamlit)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dpcore.reporting.figures import (  # noqa: F401  (COLOURS, TRUTH: re-exported for the page's colours)
    COLOURS,
    NONPRIVATE,
    PALETTE,
    SYMBOLS,
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
    series_marks,
    to_figure,
)


def utility_figure(curve_data, metric: str, *, labels: Mapping[str, str], epsilon: float | None = None,
                   y_title: str = "", title: str | None = None, log_y: bool = False) -> go.Figure:
    """Mean of ``metric`` over repeats vs ε with a 10–90 % band per method (``curve_data``: a SparseUtilityCurve)."""
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
              dash="dot" if method == "nonprivate" else None, **series_marks(i, colour=colour))
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
          name="teacher: ‖θ_t − θ_T‖", colour=NONPRIVATE, dash="dash")
    curve(fig, np.arange(paths["student"].size), _positive(paths["student"]),
          name="student: ‖θ_t − θ_T‖", colour=PALETTE[0])
    curve(fig, np.arange(paths["student_to_teacher"].size), _positive(paths["student_to_teacher"]),
          name="student: ‖θ_t − teacher‖", colour=PALETTE[0], dash="dot")
    base_layout(fig, x_title="iteration t", y_title="distance (log scale)")
    return to_figure(relayout(fig, yaxis=dict(type="log", exponentformat="power")))


#: a stem's width in units of the feature axis per feature shown: about 2 px on a chart some 1,000 px wide
STEM_WIDTH = 0.002


def stem_figure(coefs: Mapping[str, np.ndarray], *, feature_names: Sequence[str] | None = None,
                max_features: int = 40, colours: Mapping[str, str] | None = None, height: int = 460) -> go.Figure:
    """Lollipop (stem) plot of a few coefficient vectors on the union of their supports, cheap to draw.

    The page redraws it on every move of ε, δ or the repeats, and the browser builds a changed chart from
    scratch, so it is drawn with few parts: one bar trace for every vector's stems (a colour per bar) and one
    marker trace per vector for its support, which also gives the legend its entry (a real Plotly legend that
    a screen reader and the page's tests can read; with the two or three vectors of the page, each vector's own
    trace costs little), and fixed margins (automatic margins measure every tick label, then lay the plot out
    again).

    Only features that are non-zero in some vector are shown (up to ``max_features``, largest magnitudes
    first); each vector is offset sideways so stems do not hide each other; a dot marks a coefficient in that
    vector's support, and hovering it names the feature and the vector. ``colours`` maps a vector's name to its
    colour (default: :func:`dpcore.reporting.figures.series_colour`). Feature names up to 24 characters are shown whole,
    longer ones cut with "…" (the full name on hover), and the margins leave room for the longest.
    """
    vectors, names, used = shown_features(coefs, feature_names, max_features)
    fig = new_spec()
    k = len(vectors)
    stems_x, stems_y, stems_colour = [], [], []
    dots = []
    for i, (name, v) in enumerate(vectors.items()):
        x = np.arange(used.size) + (i - (k - 1) / 2) * 0.8 / max(k, 1)
        vals = v[used]
        colour = (colours or {}).get(name) or series_colour(name, i)
        kept = vals != 0
        stems_x.append(x[kept])
        stems_y.append(vals[kept])
        stems_colour += [colour] * int(kept.sum())
        dots.append(dict(type="scatter", x=x[kept], y=vals[kept], mode="markers", name=plot_text(name),
                         marker=dict(color=colour, size=8, symbol=SYMBOLS[i % len(SYMBOLS)]),  # not colour alone
                         customdata=[names[j] for j in used[kept]],
                         hovertemplate="%{customdata}: %{y:.3g}<extra>" + plot_text(name) + "</extra>"))
    # stems: one bar trace, a colour per bar, about 2 px wide on a chart some 1,000 px across
    add_trace(fig, dict(type="bar", x=np.concatenate(stems_x), y=np.concatenate(stems_y),
                        width=(used.size + 1) * STEM_WIDTH, marker=dict(color=stems_colour), hoverinfo="skip",
                        showlegend=False, name="stems"))
    for dot in dots:
        add_trace(fig, dot)
    short = [names[j] if len(names[j]) <= 24 else names[j][:23] + "…" for j in used]  # full name on hover
    angled = used.size > 6
    longest = max((len(t) for t in short), default=1)
    first = len(short[0]) if short else 1
    base_layout(fig, x_title="feature (kept by one of the models)", y_title="coefficient", height=height)
    # a -40° label reaches about 5.5 px per character down and 4.6 px to the left of its tick
    fixed_margins(fig, t=30 + 22 * ((k + 1) // 2), b=(40 + int(4.6 * longest)) if angled else 60,
                  l=max(60, int(4.6 * first) - 10) if angled else 60)
    relayout(fig, hovermode="closest", barmode="overlay",
             legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0),
             xaxis=dict(tickmode="array", tickvals=np.arange(used.size), ticktext=short, tickangle=-40 if angled else 0,
                        zeroline=False),
             yaxis=dict(zeroline=True, zerolinecolor="#999", zerolinewidth=1))
    return to_figure(fig)


#: What the release's stem chart calls each model, in the words of a reader who is not a statistician
STEM_NAMES = {"truth": "true coefficients (simulated)", "nonprivate": "non-private model",
              "peel": "private release (peeling + private fit)", "kt_ps": "private release (KT with private support)"}
STEM_COLOURS = {STEM_NAMES["truth"]: TRUTH, STEM_NAMES["nonprivate"]: NONPRIVATE,
                STEM_NAMES["peel"]: COLOURS["peeling + private fit"],
                STEM_NAMES["kt_ps"]: COLOURS["KT with private support"]}


def release_stem_figure(teacher: np.ndarray, released: np.ndarray, *, variant: str = "peel",
                        theta: np.ndarray | None = None, feature_names: Sequence[str] | None = None,
                        height: int = 460) -> go.Figure:
    """One draw of the release's coefficients (``variant``: "peel" or "kt_ps") against the non-private model's, and
    the true ones when known (synthetic data): the sparse page's first figure, and its notebook's."""
    stems = {} if theta is None else {STEM_NAMES["truth"]: theta}
    stems[STEM_NAMES["nonprivate"]] = teacher
    stems[STEM_NAMES[variant]] = released
    return stem_figure(stems, feature_names=feature_names, colours=STEM_COLOURS, height=height)

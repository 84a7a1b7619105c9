"""Shared look of every figure: colours, layout and the band/curve helpers.

Figure builders of each method (``dpcore.<method>.figures``) are plain functions returning
``plotly.graph_objects.Figure`` and use these helpers, so all pages read the
same way: non-private reference in dark grey, private in blue, Monte-Carlo
bands as translucent fills, the chosen ε as a dashed vertical line. Figures used by more than one
method or by the report layer (the coefficient stem plot, the log-ε axis) live here once.

Builders assemble a plain spec (:func:`new_spec`: ``{"data": [trace dicts], "layout": {...}}``) with the helpers
below — :func:`vline`/:func:`hline` for ``add_vline``/``add_hline``, :func:`subplots` for ``make_subplots``, subplot
axes by name (``xaxis2``, ``x2``, ``y2 domain``) — and return :func:`to_figure` of it: a ``go.Figure`` built without
validation, 10–35× faster to build while a slider moves.
"""

from __future__ import annotations

import html
import math
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from dpcore.reporting import alt_text
from dpcore.reporting.figure_styles import DASHES, GLYPHS, SYMBOLS, no_discoveries, series_marks  # noqa: F401 (shared look)

NONPRIVATE = "#3b3b3b"
PRIVATE = "#1f6fd1"
TRUTH = "#2e7d32"
WARNING = "#d1495b"
#: A qualitative palette for several private methods / groups, each at least 3:1 against the white plot (WCAG 1.4.11:
#: a curve must stand out from its background as much as a control's outline does).
PALETTE = ("#1f6fd1", "#b36b00", "#2e9e6a", "#d1495b", "#7b5ea7", "#8c6d31", "#0e7c86", "#555555")
#: plotly_white's layout (fonts, grid and background colours) without its defaults for every trace type:
#: each figure validates and copies its template, and the full one cost ≈ 5 ms of a 10–30 ms figure.
LIGHT_TEMPLATE = go.layout.Template(layout=pio.templates["plotly_white"].layout)


def plot_text(value) -> str:
    """A name from the data (group label, column, feature) as literal text in a Plotly figure.

    Plotly renders a subset of HTML in names, titles and tick labels — ``<a href>`` becomes a clickable
    link — so an uploaded column named ``<a href=…>`` would put a link on the page. Escaping ``&``, ``<``
    and ``>`` shows it as typed (Plotly decodes the entities back to characters for display).
    """
    return html.escape(str(value), quote=False)


def rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


#: A figure under construction: ``{"data": [trace dicts], "layout": {...}}``, turned into a ``go.Figure`` once by
#: :func:`to_figure`. Subplot axes go by name (``xaxis2``, trace ``xaxis="x2"``, shape ``yref="y2 domain"``).
Spec = dict
_TEMPLATE = LIGHT_TEMPLATE.to_plotly_json()


def new_spec(**layout) -> Spec:
    """An empty figure spec with the shared template (and any layout given)."""
    return {"data": [], "layout": {"template": _TEMPLATE, **layout}}


def to_figure(spec: Spec) -> go.Figure:
    """The spec as a ``go.Figure`` built WITHOUT Plotly's validation.

    Validating (and deep-copying) every trace and layout property through ``plotly.graph_objects`` was a third to
    two thirds of each rerun while a slider moves (py-spy); ``go.Figure(spec, _validate=False)`` still copies
    the spec but skips the checks. That every builder's spec is valid Plotly — validation would change nothing — is
    asserted for every public builder by ``tests/reporting/test_figure_specs.py``.
    """
    return go.Figure(spec, _validate=False)


def _merge(dst: dict, src: Mapping) -> dict:
    """``update_layout`` on plain dicts: nested dicts merge, ``None`` removes a key."""
    for k, v in src.items():
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, Mapping) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = _merge({}, v) if isinstance(v, Mapping) else v  # never share a caller's dict
    return dst


def add_trace(spec: Spec, trace: dict) -> Spec:
    """Append a trace dict (``type`` set) to a spec."""
    spec["data"].append(trace)
    return spec


def relayout(spec: Spec, **props) -> Spec:
    """``update_layout(**props)`` on a spec (no magic underscores: nest dicts)."""
    _merge(spec["layout"], props)
    return spec


def _append(spec: Spec, kind: str, item: dict) -> None:
    spec["layout"].setdefault(kind, []).append(item)


def annotate(target, **annotation):
    """Add an annotation (plain properties) to a spec."""
    _append(target, "annotations", annotation)
    return target


def text_legend(spec: Spec, entries: Sequence[tuple[str, str, str]], *, width: int = 110, above: int = 0) -> int:
    """Plotly's legend replaced by lines of coloured text above the plot; returns the top margin it needs.

    For figures redrawn on every slider move: the browser builds a changed chart from scratch, and Plotly's legend
    measures and places each entry and then, with automatic margins, lays the whole plot out again (bench_pages:
    the sparse stem plot's Plotly time fell to a third, the FDR stream's move by a fifth). ``entries``: (symbol,
    colour, name) with ``name`` already literal (:func:`plot_text`), no symbol for an empty one; lines wrap at about ``width`` characters;
    ``above``: pixels left free between the plot and the legend (for subplot titles).
    """
    rows, row, used = [], [], 0
    for symbol, colour, name in entries:
        n = len(symbol) + len(name) + 2
        if row and used + n > width:
            rows.append("   ".join(row))
            row, used = [], 0
        row.append(f"<span style='color:{colour}'>{symbol}</span> {name}" if symbol else name)
        used += n + 3
    rows += ["   ".join(row)] if row else []
    relayout(spec, showlegend=False)
    annotate(spec, text="<br>".join(rows), x=0, y=1, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
             align="left", showarrow=False, yshift=6 + above)
    return 14 + above + 20 * len(rows)


def fixed_margins(spec: Spec, *, t: int, b: int = 50, l: int = 60, r: int = 20) -> Spec:
    """Margins that Plotly does not grow to fit tick labels and titles (no second layout pass while a slider moves);
    the caller leaves room for them."""
    return relayout(spec, margin=dict(t=t, b=b, l=l, r=r, autoexpand=False), xaxis=dict(automargin=False),
                    yaxis=dict(automargin=False))


def _label(position: str) -> dict:
    """Anchors of an ``add_vline``/``add_hline`` annotation at ``position`` ("top right", "bottom left", …)."""
    vert, horiz = position.split()
    return dict(yanchor="top" if vert == "top" else "bottom", xanchor="left" if horiz == "right" else "right")


def vline(target, x: float, line: dict, *, axis: str = "", text: str | None = None, position: str = "top right",
          **label) -> Spec:
    """``add_vline`` on subplot ``axis`` ("" or "2"): a line over the axis' height, optionally labelled."""
    _append(target, "shapes", dict(type="line", x0=x, x1=x, xref=f"x{axis}", y0=0, y1=1, yref=f"y{axis} domain",
                                   line=line))
    if text is not None:
        a = _label(position)
        annotate(target, text=text, showarrow=False, x=x, xref=f"x{axis}", y=1 if a["yanchor"] == "top" else 0,
                 yref=f"y{axis} domain", **a, **label)
    return target


def vrect(target, x0: float, x1: float, fill: str, *, axis: str = "") -> Spec:
    """A shaded strip ``x0 ≤ x ≤ x1`` over the axis' height, under the traces (one shape, cheap to redraw)."""
    _append(target, "shapes", dict(type="rect", x0=x0, x1=x1, xref=f"x{axis}", y0=0, y1=1, yref=f"y{axis} domain",
                                   fillcolor=fill, line=dict(width=0), layer="below"))
    return target


def hline(target, y: float, line: dict, *, axis: str = "", text: str | None = None, position: str = "top right",
          **label) -> Spec:
    """``add_hline`` on subplot ``axis`` ("" or "2"): a line over the axis' width, optionally labelled."""
    _append(target, "shapes", dict(type="line", x0=0, x1=1, xref=f"x{axis} domain", y0=y, y1=y, yref=f"y{axis}",
                                   line=line))
    if text is not None:
        right = position.split()[1] == "right"
        annotate(target, text=text, showarrow=False, x=1 if right else 0, xref=f"x{axis} domain", y=y, yref=f"y{axis}",
                 xanchor="right" if right else "left", yanchor="bottom", **label)
    return target


def subplots(spec: Spec, titles: Sequence[str], *, spacing: float, shared_y: bool = False) -> list[str]:
    """``make_subplots(rows=1, cols=len(titles))`` on a spec: axis domains and the titles. Returns the axis
    suffixes ("", "2", …) to put in a trace's ``xaxis``/``yaxis`` (``"x" + suffix``) or a helper's ``axis``."""
    n = len(titles)
    width = (1 - spacing * (n - 1)) / n
    suffixes = [""] + [str(i) for i in range(2, n + 1)]
    for i, (s, title) in enumerate(zip(suffixes, titles)):
        lo = i * (width + spacing)
        domain = [lo, lo + width] if i < n - 1 else [lo, 1.0]
        spec["layout"][f"xaxis{s}"] = dict(anchor=f"y{s}", domain=domain)
        spec["layout"][f"yaxis{s}"] = dict(anchor=f"x{s}", domain=[0.0, 1.0])
        if shared_y and i:
            spec["layout"][f"yaxis{s}"].update(matches="y", showticklabels=False)
        annotate(spec, text=title, showarrow=False, font=dict(size=16), x=(domain[0] + domain[1]) / 2,
                 xanchor="center", xref="paper", y=1.0, yanchor="bottom", yref="paper")
    return suffixes


def on(axis: str, trace: dict) -> dict:
    """``trace`` drawn on subplot ``axis`` (a suffix from :func:`subplots`)."""
    trace.update(xaxis=f"x{axis}", yaxis=f"y{axis}")
    return trace


def base_layout(fig, *, title: str | None = None, x_title: str = "", y_title: str = "", height: int = 420):
    """Apply the common layout: legend on top, readable margins (the template comes with :func:`new_spec`).

    A title sits at the very top of the figure with room below it for a
    legend of up to three rows, so the two never overlap.
    """
    return relayout(
        fig,
        title=dict(text=title, x=0.0, xanchor="left", y=0.99, yanchor="top", yref="container") if title else None,
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title)),
        height=height + (70 if title else 0),
        margin=dict(l=60, r=20, t=110 if title else 30, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0),
        hovermode="x unified",
    )


def _staircase(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The corners of Plotly's ``"hv"`` step line through ``(x, y)``, so that a step can be one edge of a polygon."""
    return np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]


def band(
    fig,
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
    axis: str | None = None,
):
    """Add a filled band between ``lower`` and ``upper`` (step-shaped for survival curves).

    One trace, the band's outline filled (``fill="toself"``): the upper edge left to right, then the lower edge
    back. Plotly's time per redraw grows with the traces, and the usual pair of traces (an invisible upper line,
    the lower one filled ``tonexty``) doubled it for every band. Points where an edge is missing are left out.
    """
    x, lower, upper = (np.asarray(v, dtype=float) for v in (x, lower, upper))
    known = np.isfinite(x) & np.isfinite(lower) & np.isfinite(upper)
    x, lower, upper = x[known], lower[known], upper[known]
    if step and x.size:
        (x, upper), lower = _staircase(x, upper), _staircase(x, lower)[1]
    trace = dict(type="scatter", x=np.concatenate([x, x[::-1]]), y=np.concatenate([upper, lower[::-1]]),
                 mode="lines", line=dict(width=0), fill="toself", fillcolor=rgba(colour, alpha), name=name,
                 hoverinfo="skip", showlegend=showlegend, legendgroup=legendgroup or name)
    add_trace(fig, trace if axis is None else on(axis, trace))
    return fig


def split_reliable(y, reliable) -> tuple[np.ndarray, np.ndarray]:
    """A step curve split where it stops meaning something: ``(solid, faded)``, NaN outside each part.

    ``reliable`` (booleans per point) is True up to some point and False after it; the faded part starts one
    point early so the drawn line stays continuous.
    """
    y = np.asarray(y, dtype=float)
    reliable = np.asarray(reliable, dtype=bool)
    first = int(np.argmin(reliable)) if not reliable.all() else y.size
    solid, faded = np.full_like(y, np.nan), np.full_like(y, np.nan)
    solid[:first] = y[:first]
    faded[max(first - 1, 0):] = y[max(first - 1, 0):]
    return solid, faded


def curve(
    fig,
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
    **extra,
):
    line = dict(color=colour, width=width, shape="hv" if step else "linear")
    if dash is not None:
        line["dash"] = dash
    trace = dict(type="scatter", x=x, y=y, mode="lines", name=name, legendgroup=legendgroup or name,
                 showlegend=showlegend, line=line)
    return add_trace(fig, {**trace, **extra})  # extra: e.g. mode="lines+markers", xaxis="x2"


def mark_epsilon(fig, epsilon: float, *, label: str = "chosen ε", log_x: bool = True, side: str = "right"):
    """Dashed vertical line at the chosen ε on a privacy–utility curve, labelled at the top on its ``side`` (the
    left near the axis' right end, where a label on the right would run off the figure).

    Plotly reads an annotation's x on a log axis as log10(x) (shapes take
    data values), so the label is placed explicitly; ``add_vline``'s own
    annotation would land at 10^ε and stretch the axis.
    """
    vline(fig, epsilon, dict(color=WARNING, dash="dash", width=1.5))
    return annotate(fig, x=math.log10(epsilon) if log_x else epsilon, xref="x", y=1.0, yref="paper",
                    text=f"{label} = {epsilon:g}", showarrow=False, xanchor="left" if side == "right" else "right",
                    yanchor="bottom",
                    font=dict(color=WARNING, size=12))


#: Colour of each series name used on the page.
COLOURS = {
    "truth θ*": TRUTH,
    "teacher (non-private)": NONPRIVATE,
    "peeling + private fit": PALETTE[0],  # the default sparse release: the private blue, as on the other pages
    "knowledge transfer (student)": PALETTE[5],
    "DP-IGHT": PALETTE[1],
    "DP Frank–Wolfe": PALETTE[3],
    "two-stage": PALETTE[4],
    "KT with private support": PALETTE[6],
    "released student": PALETTE[0],
}


def series_colour(name: str, i: int) -> str:
    for key, colour in COLOURS.items():
        if name.startswith(key):
            return colour
    return PALETTE[i % len(PALETTE)]


def shown_features(coefs: Mapping[str, np.ndarray], feature_names: Sequence[str] | None,
                   max_features: int) -> tuple[dict[str, np.ndarray], list[str], np.ndarray]:
    """The vectors as float arrays, every feature's label (as plot text) and the indices a stem plot shows: the
    features non-zero in some vector, at most ``max_features`` (largest magnitudes first), in index order."""
    vectors = {k: np.asarray(v, dtype=float) for k, v in coefs.items()}
    d = next(iter(vectors.values())).size
    names = [plot_text(n) for n in feature_names] if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    stacked = np.vstack(list(vectors.values()))
    used = np.flatnonzero(np.any(stacked != 0, axis=0))
    if used.size > max_features:
        used = used[np.argsort(-np.abs(stacked[:, used]).max(axis=0))[:max_features]]
    return vectors, names, np.sort(used)


#: the x axis of a stem plot: the features drawn are those some vector gives a non-zero coefficient
SELECTED_FEATURES = "feature (those with a non-zero coefficient)"


def coefficient_figure(coefs: Mapping[str, np.ndarray], *, feature_names: Sequence[str] | None = None,
                       title: str | None = None, max_features: int = 40) -> go.Figure:
    """Lollipop (stem) plot of several coefficient vectors on the union of their supports.

    Only features that are non-zero in some vector are shown (up to
    ``max_features``, largest magnitudes first) — with d up to 10⁴ a full
    axis would be unreadable. Each series is offset sideways so stems do not
    hide each other; a dot marks a coefficient in that method's support.
    """
    vectors, names, used = shown_features(coefs, feature_names, max_features)
    fig = new_spec()
    k = len(vectors)
    width = 0.8
    for i, (name, v) in enumerate(vectors.items()):
        offset = (i - (k - 1) / 2) * width / max(k, 1)
        x = np.arange(used.size) + offset
        vals = v[used]
        xs = np.column_stack([x, x, np.full_like(x, np.nan)]).ravel()
        ys = np.column_stack([np.zeros_like(vals), vals, np.full_like(vals, np.nan)]).ravel()
        colour = series_colour(name, i)
        add_trace(fig, dict(type="scatter", x=xs, y=ys, mode="lines", hoverinfo="skip", legendgroup=name, name=name,
                            line=dict(color=colour, width=2, dash=DASHES[i % len(DASHES)])))  # not colour alone
        add_trace(fig, dict(
            type="scatter", x=x, y=np.where(vals != 0, vals, np.nan), mode="markers", name=name, legendgroup=name,
            showlegend=False, marker=dict(color=colour, size=8, symbol=SYMBOLS[i % len(SYMBOLS)]),
            customdata=[names[j] for j in used],
            hovertemplate="%{customdata}: %{y:.3g}<extra>" + name + "</extra>"))
    hline(fig, 0, dict(color="#999", width=1))
    base_layout(fig, title=title, x_title=SELECTED_FEATURES, y_title="coefficient",
                height=460)
    short = [names[j] if len(names[j]) <= 18 else names[j][:17] + "…" for j in used]  # full name on hover
    relayout(fig, hovermode="closest", legend=dict(y=1.02, yanchor="bottom"),
             xaxis=dict(tickmode="array", tickvals=np.arange(used.size), ticktext=short,
                        tickangle=-45 if used.size > 8 else 0))
    return to_figure(fig)


#: Tick values of every log-scaled ε axis (1-2-5 steps): plotly's own log ticks mix full labels with
#: small digits ("0.1 2 5 1 2 5 10"), which reads as nonsense to a clinician.
EPSILON_TICKS = tuple(m * 10.0 ** k for k in range(-3, 4) for m in (1, 2, 5))
EPSILON_TICK_TEXT = [f"{v:g}" for v in EPSILON_TICKS]


def epsilon_axis(fig: Spec, *, title: str = "privacy budget ε (log scale; smaller = more private)",
                 axis: str = "") -> Spec:
    """Log-scaled ε axis with plain 1-2-5 tick labels, as every privacy–utility curve uses (``axis``: "", "2", …
    picks one subplot's x axis)."""
    props = dict(type="log", title=dict(text=title), tickvals=list(EPSILON_TICKS), ticktext=EPSILON_TICK_TEXT,
                 tickangle=0)
    _merge(fig["layout"].setdefault(f"xaxis{axis}", {}), props)
    return fig


def quantile_band(values: np.ndarray, lower: float = 0.05, upper: float = 0.95, axis: int = 0):
    """Mean and the (lower, upper) quantile band over Monte-Carlo draws on ``axis``."""
    values = np.asarray(values, dtype=float)
    lo, hi = np.quantile(values, [lower, upper], axis=axis)
    return values.mean(axis=axis), lo, hi


def epsilon_choice_figure(choice, *, metric_label: str) -> go.Figure:
    """The accuracy-first curve: estimate and confidence band over ε, the target and the chosen ε."""
    fig = new_spec()
    band(fig, choice.grid, choice.lower, choice.upper, name="95% interval", colour=PRIVATE)
    curve(fig, choice.grid, choice.estimate, name="estimate (Monte-Carlo)", colour=PRIVATE)
    hline(fig, choice.target, dict(color=NONPRIVATE, dash="dot"), text="target")
    if choice.epsilon is not None:
        mark_epsilon(fig, choice.epsilon, label="smallest ε")
    base_layout(fig, y_title=metric_label, height=320)
    return to_figure(epsilon_axis(fig))


#: the audit's two neighbours: name, colour and bar pattern (B hatched: not told apart by colour alone)
NEIGHBOURS = (("neighbour A", PRIVATE, {"shape": ""}), ("neighbour B", PALETTE[1], {"shape": "/"}))


def audit_figure(summaries_a: np.ndarray, summaries_b: np.ndarray, result, *, bins: int = 60) -> go.Figure:
    """The two output distributions the audit compared, with the distinguishing threshold.

    Summaries with few distinct values (indicators, counts) are shown as
    grouped bars per value — a histogram would hide a rare value that carries
    the whole privacy loss; continuous summaries as overlaid histograms.
    """
    a = np.asarray(summaries_a, dtype=float)
    b = np.asarray(summaries_b, dtype=float)
    fig = new_spec()
    values = np.unique(np.concatenate([a, b]))
    if values.size <= 20:
        labels = [f"{v:g}" for v in values]
        for sample, (name, colour, pattern) in zip((a, b), NEIGHBOURS):
            share = (sample[None, :] == values[:, None]).mean(axis=1)
            add_trace(fig, dict(type="bar", x=labels, y=share, name=name, marker=dict(color=colour, pattern=pattern),
                                text=[f"{s:.3g}" for s in share], textposition="outside"))
        base_layout(fig, x_title="value of the summary", y_title="share of runs", height=360)
        return to_figure(relayout(fig, barmode="group", hovermode="closest", xaxis=dict(type="category")))
    lo, hi = np.quantile(np.concatenate([a, b]), [0.001, 0.999])
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    centres = 0.5 * (edges[1:] + edges[:-1])
    for sample, (name, colour, pattern) in zip((a, b), NEIGHBOURS):
        counts, _ = np.histogram(np.clip(sample, lo, hi), bins=edges)
        add_trace(fig, dict(type="bar", x=centres, y=counts / sample.size, name=name,
                            marker=dict(color=rgba(colour, 0.6), pattern=pattern)))
    if np.isfinite(result.threshold):
        vline(fig, result.threshold, dict(color=WARNING, dash="dash"))
        annotate(fig, x=result.threshold, y=1.0, yref="paper", text="event threshold", showarrow=False,
                 xanchor="left", yanchor="bottom", font=dict(color=WARNING))
    base_layout(fig, x_title="scalar summary of the release", y_title="share of runs", height=360)
    return to_figure(relayout(fig, barmode="overlay", bargap=0.0, hovermode="closest"))
#: Height in pixels of one row of the numbers-at-risk table under a plot, and the gap above its heading.
RISK_ROW, RISK_TOP = 17, 50
#: At most this many columns (time points) in the numbers-at-risk table.
RISK_COLUMNS = 8


def risk_columns(k: int, max_columns: int = RISK_COLUMNS) -> np.ndarray:
    """Bins whose start times head the numbers-at-risk columns: every m-th bin from time 0, at most ``max_columns``."""
    return np.arange(0, k, max(1, math.ceil(k / max_columns)))


def add_numbers_at_risk(fig, times: np.ndarray, rows: Sequence[tuple[str, np.ndarray, str]], *,
                        heading: str) -> tuple[int, int]:
    """A numbers-at-risk table under the x axis, as clinical papers print it under a Kaplan–Meier plot.

    ``times`` are the grid edges (k + 1) in display units; each row is ``(label, at_risk per bin (k,), colour)``,
    shown as whole numbers at the start of every column's bin. The x axis ticks move to the same times so columns
    line up with them. Returns the bottom and left margins (pixels) the table needs.
    """
    k = len(times) - 1
    cols = risk_columns(k)
    at = np.asarray(times, dtype=float)[cols]
    relayout(fig, xaxis={"tickmode": "array", "tickvals": at.tolist(), "ticktext": [f"{t:g}" for t in at]})
    small = {"size": 11}
    annotate(fig, text=plot_text(heading), xref="paper", yref="paper", x=0, y=0, xanchor="left", yanchor="top",
             yshift=-RISK_TOP, showarrow=False, font={"size": 11, "color": NONPRIVATE})
    wholes = [np.maximum(np.rint(np.asarray(values, dtype=float)[cols]), 0).astype(int) for _, values, _ in rows]
    for i, ((label, _, colour), whole) in enumerate(zip(rows, wholes)):
        shift = -RISK_TOP - RISK_ROW * (i + 1)
        annotate(fig, text=plot_text(label), xref="paper", yref="paper", x=0, y=0, xanchor="right", yanchor="top",
                 xshift=-8, yshift=shift, showarrow=False, font={**small, "color": colour})
        for t, n in zip(at, whole):
            annotate(fig, text=str(n), xref="x", yref="paper", x=float(t), y=0, yanchor="top", yshift=shift,
                     showarrow=False, font={**small, "color": colour})
    # the same numbers as a table for readers who cannot see the chart (labels already literal, as printed)
    alt_text.attach_table(fig, heading, {"time": at, **{label: whole for (label, _, _), whole in zip(rows, wholes)}})
    longest = max((len(plot_text(label)) for label, _, _ in rows), default=0)
    return RISK_TOP + RISK_ROW * (len(rows) + 1) + 8, max(60, 16 + 7 * longest)

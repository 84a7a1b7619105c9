"""Text alternatives of a figure: a one-line summary with the numbers that matter, and the plotted numbers as tables.

A screen reader cannot read a Plotly chart; a reader who cannot see it still needs what it shows. Every figure the
app draws or a release exports gets both from here (``ui.chart``/``ui.live_chart`` on a page; the report and ZIP of
a release), computed from the figure alone, so a figure of released values has a text alternative of released
values only.

A builder that knows better than the automatic summary states its own (:func:`set_summary`: "median 12 vs 12
months") and may attach tables that are not traces (:func:`attach_table`: the numbers at risk printed under a
survival plot); both live in the figure's ``layout.meta`` and travel with it.
"""

from __future__ import annotations

import html
import re
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

#: keys in ``layout.meta``: the builder's own summary, and its extra tables ``{name: {column: values}}``
SUMMARY, TABLES = "summary", "tables"
#: traces named in the automatic summary (the rest are counted)
MAX_TRACES = 8
#: categories of a bar trace named one by one
MAX_BARS = 6
PLOTTED = "plotted values"
_TAG = re.compile(r"<[^>]+>")


def set_summary(spec: dict, text: str) -> dict:
    """The figure's own one-line summary (already literal: names from the data escaped as in the figure)."""
    spec["layout"].setdefault("meta", {})[SUMMARY] = text
    return spec


def attach_table(spec: dict, name: str, columns: Mapping[str, Sequence]) -> dict:
    """A table the figure shows other than as traces (e.g. printed numbers), kept with the figure."""
    tables = spec["layout"].setdefault("meta", {}).setdefault(TABLES, {})
    tables[name] = {str(k): np.asarray(v).tolist() for k, v in columns.items()}
    return spec


def plain(text) -> str:
    """Figure text (Plotly's HTML subset, entities) as plain text on one line."""
    return " ".join(html.unescape(_TAG.sub(" ", str(text or ""))).split())


def number(value) -> str:
    """A value as a reader hears it: three significant digits, no exponent noise for ordinary sizes."""
    if isinstance(value, (str, bytes)):
        return plain(value)
    value = float(value)
    if not np.isfinite(value):
        return "not shown"
    return f"{value:.3g}"


def _parts(fig: go.Figure | dict) -> tuple[list, dict]:
    """The traces and layout as plain dicts, read without copying (a live chart builds one per slider move)."""
    if isinstance(fig, dict):
        return list(fig.get("data", [])), dict(fig.get("layout", {}))
    return fig._data, fig._layout  # noqa: SLF001 - read only


def _meta(layout: dict) -> dict:
    meta = layout.get("meta")
    return meta if isinstance(meta, dict) else {}


def _title(layout: dict) -> str:
    title = layout.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return plain(text)


def _axis_titles(layout: dict, data: list) -> list[str]:
    """Each axis' title once, with the span the traces on it cover (``x: time (months), 0 to 36``)."""
    out = []
    for key in sorted(k for k in layout if re.fullmatch(r"[xy]axis\d*", k)):
        axis = layout[key] if isinstance(layout[key], dict) else {}
        title = axis.get("title")
        text = plain(title.get("text") if isinstance(title, dict) else title)
        if not text or any(entry.startswith(f"{key[0]}: {text}") for entry in out):
            continue
        if key[0] == "x" and axis.get("type") != "category":
            ref = "x" + key[5:]
            spans = [_numeric(t.get("x")) for t in data if t.get("xaxis", "x") == ref and t.get("type") != "bar"]
            spans = np.concatenate([v[np.isfinite(v)] for v in spans if v is not None] or [np.array([])])
            if spans.size:
                text += f", {number(spans.min())} to {number(spans.max())}"
        out.append(f"{key[0]}: {text}")
    return out


def _numeric(values) -> np.ndarray | None:
    if values is None or isinstance(values, (str, dict)):
        return None
    try:
        array = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return array


def _shown(trace: dict) -> bool:
    return trace.get("visible", True) not in (False, "legendonly")


def _describe(trace: dict) -> str:
    """What one trace shows, in a few numbers."""
    kind = trace.get("type", "scatter")
    if kind == "heatmap":
        z = _numeric(trace.get("z"))
        if z is None or not np.isfinite(z).any():
            return "no values"
        return f"values {number(np.nanmin(z))} to {number(np.nanmax(z))}"
    if kind == "histogram":
        x = _numeric(trace.get("x"))
        x = x[np.isfinite(x)] if x is not None else np.array([])
        return f"{x.size} values, median {number(np.median(x))}" if x.size else "no values"
    if kind == "scatterternary":
        points = np.column_stack([_numeric(trace.get(k)) for k in "abc"])
        if len(points) == 1:
            return "(" + ", ".join(number(v) for v in points[0]) + ")"
        return f"{len(points)} points"
    x, y = trace.get("x"), _numeric(trace.get("y"))
    if kind == "bar" and trace.get("orientation") == "h":
        x, y = trace.get("y"), _numeric(trace.get("x"))
    if y is None:
        return ""
    finite = np.isfinite(y)
    if not finite.any():
        return "nothing drawn"
    if kind == "bar":
        labels = list(x) if x is not None else list(range(len(y)))
        pairs = [(plain(lab) if isinstance(lab, str) else number(lab), v) for lab, v in zip(labels, y) if np.isfinite(v)]
        if len(pairs) <= MAX_BARS:
            return ", ".join(f"{lab} {number(v)}" for lab, v in pairs)
        return f"{len(pairs)} bars, {number(y[finite].min())} to {number(y[finite].max())}"
    if trace.get("fill") in ("toself", "tonexty", "tozeroy"):
        return f"range {number(y[finite].min())} to {number(y[finite].max())}"
    if "lines" in str(trace.get("mode", "lines")):
        ys = y[finite]
        return f"from {number(ys[0])} to {number(ys[-1])}" if ys.size > 1 else number(ys[0])
    return f"{int(finite.sum())} points, {number(y[finite].min())} to {number(y[finite].max())}"


def _subplot_titles(layout: dict) -> str:
    """Titles over the panels of a figure without its own title (annotations centred above the plot area)."""
    titles = [plain(a.get("text")) for a in layout.get("annotations") or ()
              if a.get("yref") == "paper" and a.get("y") == 1.0 and a.get("xanchor") == "center"]
    return " | ".join(t for t in titles if t)


def summary(fig: go.Figure | dict) -> str:
    """One line naming the figure, its axes and each named trace with its key values; the builder's own summary
    (:func:`set_summary`) when it gave one."""
    data, layout = _parts(fig)
    own = _meta(layout).get(SUMMARY)
    if own:
        return plain(own)
    head = _title(layout) or _subplot_titles(layout) or "Chart"
    axes = _axis_titles(layout, data)
    seen, described = set(), []
    for trace in data:
        name = plain(trace.get("name"))
        if not name or name in seen or not _shown(trace):
            continue
        seen.add(name)
        what = _describe(trace)
        described.append(f"{name}: {what}" if what else name)
    more = len(described) - MAX_TRACES
    text = head + (" (" + "; ".join(axes) + ")" if axes else "")
    if described:
        text += ". " + "; ".join(described[:MAX_TRACES]) + (f"; and {more} more" if more > 0 else "")
    return text + "."


def tables(fig: go.Figure | dict, *, max_rows: int = 5_000) -> dict[str, pd.DataFrame]:
    """The plotted numbers: one long table of every trace's points (``series``, ``x``, ``y``; ``z`` for a heatmap;
    points not drawn left out; at most ``max_rows`` rows), then the tables the builder attached."""
    data, layout = _parts(fig)
    frames = []
    for trace in data:
        if not _shown(trace):
            continue
        name = plain(trace.get("name")) or trace.get("type", "scatter")
        if trace.get("type") == "heatmap":
            z = np.asarray(trace.get("z"), dtype=float)
            ys = trace.get("y", range(z.shape[0]))
            xs = trace.get("x", range(z.shape[1]))
            yy, xx = np.meshgrid(np.asarray(ys), np.asarray(xs), indexing="ij")
            frames.append(pd.DataFrame({"series": name, "x": xx.ravel(), "y": yy.ravel(), "z": z.ravel()}))
            continue
        if trace.get("type") == "scatterternary":
            frames.append(pd.DataFrame({"series": name, **{k: np.asarray(trace.get(k, [])).ravel() for k in "abc"}}))
            continue
        x, y = trace.get("x"), trace.get("y")
        if x is None and y is None:
            continue
        if trace.get("type") == "histogram" or y is None:
            values = pd.Series(np.asarray(x).ravel())
            frames.append(pd.DataFrame({"series": name, "x": values, "y": np.nan}))
            continue
        if trace.get("type") == "bar" and trace.get("orientation") == "h":
            x, y = y, x
        y = np.asarray(y).ravel()
        x = np.asarray(x).ravel() if x is not None else np.arange(y.size)
        frame = pd.DataFrame({"series": name, "x": x[: y.size], "y": y[: x.size]})
        frames.append(frame[pd.to_numeric(frame["y"], errors="coerce").notna()])
    out = {}
    if frames:
        plotted = pd.concat(frames, ignore_index=True)
        plotted = plotted.dropna(axis=1, how="all")
        out[PLOTTED] = plotted.head(max_rows)
    for name, columns in (_meta(layout).get(TABLES) or {}).items():
        out[plain(name)] = pd.DataFrame({plain(k): v for k, v in columns.items()})
    return out

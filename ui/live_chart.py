"""Charts a slider redraws: one Plotly div that stays on the page and is updated in place.

``st.plotly_chart`` keys its element by a hash of the figure, so a figure that changed is a new element: the
browser mounts it, draws it once hidden (before its container's width is known) and again with that width, two
full Plotly passes per move (``bench/bench_pages.py`` counts them). ``live_chart`` mounts a small component
(``st.components.v2``, no iframe) under a fixed key instead; its element survives the move and the new figure
reaches the same div through ``Plotly.react``, which draws once and only what changed.

Plotly.js comes from the installed ``plotly`` package (the same version that wrote the figure), served by
Streamlit's static file serving (``.streamlit/config.toml``) from ``static/`` next to ``app.py``, where the first
live chart of a server process puts it. The look is
Streamlit's own theme for Plotly charts, as the browser applies it to ``st.plotly_chart`` (``plotly_theme.json``,
read from Streamlit 1.67 in Chromium), so a live chart looks like the charts beside it.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import plotly
import plotly.graph_objects as go
import plotly.io
import streamlit as st
from _plotly_utils.basevalidators import is_homogeneous_array
from _plotly_utils.utils import is_skipped_key, plotlyjsShortTypes, to_typed_array_spec

from dpcore.reporting import alt_text
from ui.chart import chart, figure_data

APP_STATIC = Path(__file__).resolve().parent.parent / "static"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
DEFAULT_HEIGHT = 450  # Plotly's own default, used when a figure sets none


def _theme() -> dict:
    """Streamlit's Plotly look, and tick labels that may overflow the plot area on every axis that does not say
    otherwise (a template default). Plotly's default for linear axes hides labels past the chart's edge by
    measuring every label (a forced layout each) on every draw, about 10 ms of a move; the fixed margins of the
    charts a slider redraws keep their labels inside anyway."""
    theme = json.loads(Path(__file__).with_name("plotly_theme.json").read_text())
    for axis in ("xaxis", "yaxis"):
        theme["layout"].setdefault(axis, {})["ticklabeloverflow"] = "allow"
    return theme


THEME = _theme()

_JS = """
function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__dpcorePlotly) {
    window.__dpcorePlotly = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = new URL('app/static/plotly.min.js', document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => { window.__dpcorePlotly = undefined; reject(new Error('plotly.min.js')); };
      document.head.appendChild(script);
    });
  }
  return window.__dpcorePlotly;
}

const CONFIG = {displaylogo: false, responsive: true, displayModeBar: 'hover', modeBarButtonsToRemove: ['lasso2d', 'select2d']};

export default function (component) {
  const { data, parentElement } = component;
  let div = parentElement.querySelector('div.dpcore-live-chart');
  if (!div) {
    div = document.createElement('div');
    div.className = 'dpcore-live-chart';
    parentElement.appendChild(div);
  }
  const figure = JSON.parse(data);
  // the text alternative a screen reader announces (dpcore.reporting.alt_text.summary), kept current on every redraw
  div.setAttribute('role', 'figure');
  div.setAttribute('aria-label', figure.summary || 'chart');
  loadPlotly().then(
    (Plotly) => Plotly.react(div, figure.data, figure.layout, CONFIG),
    () => { div.textContent = 'The chart library could not be loaded: reload the page.'; });
  return () => { if (window.Plotly) window.Plotly.purge(div); };
}
"""

COMPONENT = "dpcore_live_chart"
_component = st.components.v2.component(COMPONENT, js=_JS, isolate_styles=False)


def publish_plotly_js(static_dir: Path = APP_STATIC) -> Path:
    """Put the installed Plotly.js where Streamlit serves static files (once per install; atomic, so server
    processes starting together never serve half a file). Raises OSError where the app's folder is read-only."""
    target = static_dir / PLOTLY_JS.name
    if not target.exists() or target.stat().st_size != PLOTLY_JS.stat().st_size:
        static_dir.mkdir(exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=static_dir, suffix=".partial")
        os.close(fd)
        shutil.copyfile(PLOTLY_JS, partial)
        os.chmod(partial, 0o644)
        os.replace(partial, target)
    return target


@functools.cache
def _plotly_js_served() -> bool:
    """Whether this server can serve Plotly.js to the live charts (checked once per process)."""
    try:
        publish_plotly_js()
    except OSError:
        return False
    return True


def live_chart(figure: go.Figure, *, key: str) -> None:
    """Draw ``figure`` in the live chart ``key`` (a fixed key per chart: the element is kept across reruns), or
    with ``st.plotly_chart`` where Plotly.js cannot be published (a read-only install); either way with its text
    alternative and its numbers one click away (:mod:`ui.chart`)."""
    if not _plotly_js_served():
        chart(figure, key=key)
        return
    _component(data=payload(figure), key=key, height=int(figure.layout.height or DEFAULT_HEIGHT))
    figure_data(figure, key=key)


def payload(figure: go.Figure) -> str:
    """What the component draws: :func:`figure_json` with the figure's one-line summary beside its data and layout
    (``summary``: the chart's accessible name)."""
    return figure_json(figure)[:-1] + ', "summary": ' + json.dumps(alt_text.summary(figure)) + "}"


def figure_json(figure: go.Figure) -> str:
    """The JSON ``Plotly.react`` draws: the figure's traces and layout in Streamlit's look, arrays as Plotly's typed
    arrays (base64), as ``figure.to_plotly_json()`` gives them.

    Read from the figure without ``to_plotly_json``'s deep copy of every trace (which exists only so that the
    conversion to typed arrays may work in place): a copy and a conversion per ε move were about 1.5 ms of the
    move's server time (py-spy). ``tests/ui/test_live_chart.py`` checks that the result equals Plotly's own on every
    figure a page redraws live. Frames are left out: ``Plotly.react`` draws traces and layout only.
    """
    own = {k: v for k, v in figure._layout.items() if k != "template"}  # noqa: SLF001 - the figure's dicts, read only
    layout = dict(_typed(own), template=THEME)  # the theme holds no arrays: not walked on every move
    return plotly.io.to_json({"data": _typed(figure._data), "layout": layout}, validate=False)  # noqa: SLF001


_PLAIN = (str, int, float, type(None))  # what most of a spec's values are: never an array
#: Plotly's test of a key, asked for every key of every trace on every move (a scan of a list each time)
_skipped_key = functools.cache(is_skipped_key)


def _typed(value):
    """``convert_to_base64`` (plotly.py's, in place) as a function that builds new containers: a dict's numeric
    arrays become typed-array specs, except under the keys Plotly leaves alone."""
    if isinstance(value, dict):
        return {k: v if _skipped_key(k) else _typed_entry(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_typed(v) for v in value]
    return value


def _typed_entry(value):
    if isinstance(value, (dict, list, tuple)):
        return _typed(value)
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, np.ndarray):
        return _typed_array(value)
    return to_typed_array_spec(value) if is_homogeneous_array(value) else value


def _typed_array(array: np.ndarray):
    """``to_typed_array_spec`` for an array the figure already holds as NumPy's (what Plotly's validators store).

    Plotly's own first copies the array after asking narwhals whether it is a data frame of some library: about
    half of a live chart's serialisation (cProfile). Arrays Plotly treats specially (64-bit integers it narrows,
    dtypes Plotly.js has no typed array for, empty ones) still go through it."""
    short = plotlyjsShortTypes.get(str(array.dtype))
    if short is None or array.size == 0 or array.dtype.kind in "iu" and array.dtype.itemsize == 8:
        return to_typed_array_spec(array)
    spec = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = str(array.shape)[1:-1]
    return spec

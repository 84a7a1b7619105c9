"""The bare page with a method page's main figure in place of its one-line chart (bench_pages.py's figure floor).

What a move of ε costs when nothing but that figure follows the slider: the same slider as ``bare_page.py``, and
the figure as the method page last drew it (``DPCORE_BENCH_FIGURE``: a JSON file of its traces and layout, written
by the bench), drawn as the method pages draw it (``ui.live_chart``, with its figure-data box), its curves scaled by
the slider's step so that each move redraws it as a new ε does. The ratio of this page to the bare page is the
part of a method page's ε move that its figure alone takes.
"""

import base64
import functools
import json
import os
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from ui.live_chart import live_chart, publish_plotly_js  # after the app's folder is importable

publish_plotly_js(HERE / "static")  # Streamlit serves static files from beside the script it runs

OPTIONS = [0.5, 1.0, 2.0, 3.0, 5.0]


def _array(value):
    """A trace's numbers as NumPy's: a list, or Plotly's typed-array spec (base64) as the live chart sent it."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"].rstrip("c")))
        return array.reshape([int(n) for n in value["shape"].split(",")]) if "shape" in value else array
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return np.asarray(value, dtype=float)
    return None


@functools.cache
def _figure(path: str, epsilon: float) -> go.Figure:
    """The drawn figure with its curves scaled for ``epsilon``, built once per option: a method page keeps its figures
    per ε too (the survival page's ``remembered``), and parsing and validating the figure on every move (6–15 ms)
    would be counted against the figure."""
    drawn = json.loads(Path(path).read_text())
    drawn["layout"].pop("template", None)  # the live chart applies the app's theme
    for trace in drawn["data"]:
        if (y := _array(trace.get("y"))) is not None:
            trace["y"] = y * (0.9 + 0.02 * OPTIONS.index(epsilon))
    return go.Figure(drawn, skip_invalid=True)


epsilon = st.select_slider("Privacy budget ε", options=OPTIONS, value=1.0)
live_chart(_figure(os.environ["DPCORE_BENCH_FIGURE"], epsilon), key="figure")

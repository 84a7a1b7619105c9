"""Teaching notes say what the figure beside them shows: axis, regions, lines and the direction of a
rejection, checked against the figure's own spec."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.support.page_views import chart_spec
from ui.layout import TEACHING_KEY

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _values(array) -> np.ndarray:
    """A spec's array: a list, or a typed array (base64 of its bytes) as the live chart sends it."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).astype(float)
    return np.asarray(array, dtype=float)


def _teaching(at: AppTest, start: str) -> str:
    return next(i.value for i in at.info if i.value.startswith(start))


def test_fdr_stream_note_matches_the_stream_figure():
    at = AppTest.from_file(APP, default_timeout=180)
    at.switch_page("app_pages/fdr.py")
    at.query_params[TEACHING_KEY] = "true"
    at.run()
    assert not at.exception, at.exception
    note = _teaching(at, "1. Each dot")
    spec = chart_spec(at, "fdr_fig_stream")
    layout = spec["layout"]
    # the axis: −ln p on a log axis, higher = smaller p
    y_title = layout["yaxis"]["title"]["text"]
    assert y_title.startswith("−ln p") and layout["yaxis"]["type"] == "log"
    assert "−ln p" in note and "log axis" in note and "higher means a smaller p-value" in note
    assert "log p-value" not in note
    # the threshold as the legend writes it, and the direction of a rejection
    legend = " ".join(a["text"] for a in layout["annotations"])  # a legend written as text above the plot
    assert "private threshold (PAPRIKA, noisy): a discovery above it" in legend, legend
    assert "noisy threshold A − log α_t − Z_α" in note and "log α_t − A + Z_α" not in note
    assert "−ln p − Z_t lies above the line" in note
    assert "dots just above the line can be missed and dots just below can be hit" in note
    # the shaded region of non-candidates is a band from the axis' bottom up to the boundary: "at the bottom"
    shaded = next(t for t in spec["data"] if t.get("name") == "not candidates")
    bottom = 10 ** layout["yaxis"]["range"][0]
    y = _values(shaded["y"])
    assert np.isclose(y.min(), bottom) and y.max() < 10 ** layout["yaxis"]["range"][1]
    assert "shaded band at the bottom, below the candidacy boundary" in note and "above the candidacy" not in note
    # the lines named in the note are the figure's: solid noisy threshold, dashed level, dotted SAFFRON
    dashes = {t["name"]: t["line"].get("dash", "solid") for t in spec["data"] if t.get("mode") == "lines"}
    assert dashes[next(n for n in dashes if n.startswith("private threshold"))] == "solid"
    assert "dash" in dashes.values() and "dot" in dashes.values()
    assert "dashed blue line" in note and "dotted line is what non-private SAFFRON" in note


def test_survival_trade_off_note_names_every_panel_of_its_figure():
    """The trade-off figure has a third panel (log-rank agreement) when the data have groups: the note says what
    each panel shows, as many as the figure draws."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page("app_pages/survival.py")
    at.query_params[TEACHING_KEY] = "true"
    at.run()
    assert not at.exception, at.exception
    note = _teaching(at, "Each point repeats the whole release")
    panels = [a["text"] for a in chart_spec(at, "sv_curve")["layout"]["annotations"] if a.get("y") == 1.0
              and a.get("yref") == "paper" and a.get("xanchor") == "center"]
    assert len(panels) == 3 and "log-rank" in panels[2]
    assert "left: the largest gap" in note and "middle: the gap summed over time" in note
    assert "right: how often the private log-rank test" in note

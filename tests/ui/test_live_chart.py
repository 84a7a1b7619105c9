"""ui.live_chart: the figure reaches the component as Plotly JSON in Streamlit's look, under its fixed key, and the
installed Plotly.js is published for static serving (tests/app/test_fragments_browser.py checks the in-place update)."""

from __future__ import annotations

import importlib
import json
import os

import plotly.io
import pytest

from streamlit.testing.v1 import AppTest

from tests.support.page_views import chart_keys, chart_spec, live_charts
from tests.support.figure_cases import cases
from ui.live_chart import COMPONENT, PLOTLY_JS, THEME, figure_json, publish_plotly_js

CASES = cases()

SCRIPT = """
import plotly.graph_objects as go
import streamlit as st
import ui

eps = st.select_slider("Privacy budget ε", options=[1.0, 2.0], value=1.0, key="eps")
figure = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, eps, 2 * eps], name="private"))
figure.update_layout(height=321, yaxis_ticklabeloverflow="hide past domain")
ui.live_chart(figure, key="demo")
"""


def test_the_figure_reaches_the_component_under_its_key_in_streamlits_look():
    at = AppTest.from_string(SCRIPT).run()
    assert not at.exception
    assert chart_keys(at) == ["demo"]
    spec = chart_spec(at, "demo")
    assert spec["data"][0]["y"] == [0, 1.0, 2.0] and spec["data"][0]["name"] == "private"
    assert spec["layout"]["template"] == THEME and spec["layout"]["height"] == 321
    # tick labels are not measured one by one on every draw (a template default); a figure may still ask for it
    assert THEME["layout"]["xaxis"]["ticklabeloverflow"] == THEME["layout"]["yaxis"]["ticklabeloverflow"] == "allow"
    assert spec["layout"]["yaxis"]["ticklabeloverflow"] == "hide past domain"
    element = live_charts(at)[0].proto
    assert element.component_name == COMPONENT and "Plotly.react" in element.js_content

    first_id = element.id
    at.select_slider(key="eps").set_value(2.0).run()
    assert chart_spec(at, "demo")["data"][0]["y"] == [0, 2.0, 4.0]
    assert live_charts(at)[0].proto.id == first_id  # the same element: the browser keeps its Plotly div


def test_the_theme_is_streamlits_plotly_look():
    layout = THEME["layout"]
    assert "Source Sans" in layout["font"]["family"] and layout["paper_bgcolor"] == "#FFFFFF"


def test_without_a_place_for_plotly_js_the_chart_is_drawn_by_streamlit(monkeypatch):
    module = importlib.import_module("ui.live_chart")  # the module (the attribute ``ui.live_chart`` is the function)

    def read_only(static_dir=None):
        raise PermissionError("read-only file system")

    monkeypatch.setattr(module, "publish_plotly_js", read_only)
    module._plotly_js_served.cache_clear()
    try:
        at = AppTest.from_string(SCRIPT).run()
        assert not at.exception and not live_charts(at) and chart_keys(at) == ["demo"]
        assert chart_spec(at, "demo")["data"][0]["y"] == [0, 1.0, 2.0]
    finally:
        module._plotly_js_served.cache_clear()


def test_plotly_js_is_published_once_and_repaired_when_damaged(tmp_path):
    target = publish_plotly_js(tmp_path)
    assert target.read_bytes() == PLOTLY_JS.read_bytes()
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    os.utime(target, (1, 1))
    publish_plotly_js(tmp_path)
    assert target.stat().st_mtime == 1  # already there: not copied again

    target.write_bytes(b"damaged")
    publish_plotly_js(tmp_path)
    assert target.read_bytes() == PLOTLY_JS.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no partial file left behind


def _plotly_json(figure) -> dict:
    """What Plotly's own export gives (deep copy, typed arrays converted in place), in Streamlit's look."""
    spec = figure.to_plotly_json()
    return json.loads(plotly.io.to_json(dict(spec, layout=dict(spec["layout"], template=THEME)), validate=False))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_live_json_is_plotlys_own(case):
    figure = CASES[case]()
    before = figure.to_plotly_json()
    assert json.loads(figure_json(figure)) == _plotly_json(figure)
    assert json.dumps(figure.to_plotly_json(), default=repr) == json.dumps(before, default=repr)  # read, not changed


def test_the_cases_carry_typed_arrays():
    """The comparison above covers the conversion to typed arrays: most figures send their arrays that way."""
    assert sum('"bdata"' in figure_json(build()) for build in CASES.values()) > len(CASES) // 2

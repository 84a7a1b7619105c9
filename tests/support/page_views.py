"""AppTest helpers for pages whose views are lazy views (``ui.view_switch``) and whose details at ε are folded
(``ui.details_at_epsilon``): open one, open the details, list the charts drawn."""

from __future__ import annotations

import contextlib
import json
from unittest import mock

from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from ui.live_chart import COMPONENT as LIVE_CHART


def open_view(at: AppTest, key: str, label: str) -> AppTest:
    """Open the view ``label`` of the switch keyed ``key`` (choosing a view reruns the enclosing fragment)."""
    at.session_state[key] = label
    return at.run()


#: each method page's folded details at ε (``ui.details_at_epsilon``), by page
DETAILS = {"survival": "sv_details", "regression": "rg_details", "sparse": "sp_details", "fdr": "fdr_details"}


#: each method page's folded settings group, whose controls are drawn only while it is open
SETTINGS = {"survival": ("sv_settings",), "regression": ("rg_settings",), "sparse": ("sp_settings",),
            "fdr": ("fdr_settings",)}


def unfold_settings(at: AppTest, page: str | None = None) -> AppTest:
    """Open the method page's folded settings, or every page's (the next run draws their controls, as a reader's
    click would)."""
    for key in SETTINGS[page] if page else [key for keys in SETTINGS.values() for key in keys]:
        at.session_state[key] = True
    return at


def open_details(at: AppTest, page: str) -> AppTest:
    """Open the method page's details at ε (drawn only while open; opening reruns the ε fragment) and run."""
    at.session_state[DETAILS[page]] = True
    return at.run()


def live_charts(at: AppTest) -> list:
    """The live charts drawn (``ui.live_chart``: a component element carrying the figure as JSON)."""
    return [c for c in at.get("bidi_component") if c.proto.component_name == LIVE_CHART]


def chart_keys(at: AppTest) -> list[str]:
    """Keys of the charts drawn: ``st.plotly_chart``'s first, then the live charts (an element id ends with its
    key)."""
    return [c.proto.id.rsplit("-", 1)[-1] for c in [*at.get("plotly_chart"), *live_charts(at)]]


def chart_spec(at: AppTest, key: str) -> dict:
    """The figure (Plotly JSON) of the chart ``key``, live or not."""
    for chart in at.get("plotly_chart"):
        if chart.proto.id.endswith(f"-{key}"):
            return json.loads(chart.proto.spec)
    for chart in live_charts(at):
        if chart.proto.id.endswith(f"-{key}"):
            return json.loads(json.loads(chart.proto.json))
    raise KeyError(key)


@contextlib.contextmanager
def captured_downloads():
    """The deferred downloads a page offers while inside, by file name (each a callable that makes the file)."""
    files: dict[str, object] = {}
    original = MediaFileManager.add_deferred

    def capture(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        files[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name, **kw)

    with mock.patch.object(MediaFileManager, "add_deferred", capture):
        yield files

"""AppTest helpers for pages whose views are lazy tabs (``ui.view_tabs``): open one, list the charts drawn."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def open_view(at: AppTest, key: str, label: str) -> AppTest:
    """Open the view tab ``label`` of the tabs keyed ``key`` (a tab switch reruns the enclosing fragment)."""
    at.session_state[key] = label
    return at.run()


def chart_keys(at: AppTest) -> list[str]:
    """Keys of the Plotly charts drawn (a chart's element id ends with its key)."""
    return [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]

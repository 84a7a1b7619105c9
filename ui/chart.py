"""Charts every reader can read: a Plotly figure with its one-line text alternative and its numbers as a table.

A screen reader announces the chart by its summary (:func:`dpcore.reporting.alt_text.summary`: title, axes, each series with
its key values), and the plotted numbers sit one click away in a "Figure data" box under it. The box's tables are
built and sent only while it is open: a closed box is its title alone, so a chart a slider redraws pays nothing
for it. The chart's own toolbar is off the keyboard's path (Plotly's mode bar shows on hover only); everything it
offers is in the table.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dpcore.reporting import alt_text
from dpcore.reporting.release import spreadsheet_safe
from ui.layout import literal

FIGURE_DATA = "Figure data"
#: Plotly's mode bar appears only while the pointer is over the chart; its zoom and PNG buttons are not tab stops
CONFIG = {"displaylogo": False, "displayModeBar": "hover", "modeBarButtonsToRemove": ["lasso2d", "select2d"]}


def chart(figure: go.Figure, *, key: str) -> None:
    """Draw a figure that does not follow a slider (``st.plotly_chart``) with its text alternative and data box."""
    st.plotly_chart(figure, key=key, alt=alt_text.summary(figure), config=CONFIG)
    figure_data(figure, key=key)


def figure_data(figure: go.Figure, *, key: str) -> None:
    """The figure's plotted numbers (and any table it prints, such as the numbers at risk) in a collapsed box,
    filled only while open."""
    with st.expander(FIGURE_DATA, key=f"figure data {key}", on_change="rerun") as box:
        if box.open:
            st.markdown(literal(alt_text.summary(figure)))
            for name, table in alt_text.tables(figure).items():
                st.markdown(f"**{literal(name)}**")
                st.dataframe(spreadsheet_safe(table), hide_index=True, key=f"figure data {key} {name}")

"""The survival page's headline figure in Chromium at 1366×768: wholly on the first screen, its x-axis (ticks and
title) and the numbers at risk under it in view, for the Kaplan–Meier reading and the Nelson–Aalen steps."""

from __future__ import annotations

import pytest

from ui.first_screen import FIGURE_HEIGHT

pytestmark = pytest.mark.browser

_BOX = "el => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height}; }"


@pytest.mark.parametrize("query", ["", "?sv_est=na"])
def test_the_headline_figure_and_its_x_axis_fit_the_first_screen(query, app_server, _browser, streamlit_idle):
    context = _browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        page.set_default_timeout(180_000)
        page.goto(f"{app_server}/survival{query}")
        streamlit_idle(page, timeout_ms=180_000)
        chart = page.locator(".st-key-sv_headline .js-plotly-plot").first
        chart.wait_for(timeout=180_000)
        figure = chart.evaluate(_BOX)
        assert figure["height"] <= FIGURE_HEIGHT + 1
        assert 0 <= figure["top"] and figure["bottom"] <= 768, f"headline figure at {figure}"
        for part in (".xaxislayer-above", ".xtitle"):  # the tick labels and the axis title
            box = page.locator(f".st-key-sv_headline {part}").first.evaluate(_BOX)
            assert box["bottom"] <= 768, f"{part} at {box}"
        assert "Number at risk" in chart.inner_text()
    finally:
        context.close()

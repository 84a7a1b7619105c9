"""The home page's first screen, in Chromium at a laptop's and a desktop's size: the "Start here" links, the ε
slider and at least half of the chart it redraws are in view on load and still after a keyboard move of ε, and no
label is cut off."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser_helpers import BOX, CUT

pytestmark = pytest.mark.browser

VIEWPORTS = {"1366x768": (1366, 768), "1920x1080": (1920, 1080)}
METHODS = ["Survival curves", "Drug sensitivity", "Sparse learning", "Online FDR"]
SLIDER = '[data-testid="stMain"] [data-testid="stSlider"]:has(input[aria-label^="Privacy budget ε"])'
CHART = ".st-key-home_bound .js-plotly-plot"


def _first_screen(page, height: int) -> None:
    """Every method's link and the ε slider wholly, and the bound's chart at least half, inside the viewport."""
    main = page.locator('[data-testid="stMain"]')
    for title in METHODS:
        link = main.locator('[data-testid="stPageLink"]').filter(has_text=title).first.evaluate(BOX)
        assert 0 <= link["top"] and link["bottom"] <= height, f"link {title!r} at {link}, viewport {height} px high"
    slider = page.locator(SLIDER).first.evaluate(BOX)
    assert 0 <= slider["top"] and slider["bottom"] <= height, f"ε slider at {slider}, viewport {height} px high"
    figure = page.locator(CHART).first.evaluate(BOX)
    visible = min(figure["bottom"], height) - max(figure["top"], 0)
    assert visible >= figure["height"] / 2, f"{visible:.0f} of the chart's {figure['height']:.0f} px in view"
    assert page.evaluate(CUT) == []


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_links_slider_and_chart_on_the_first_screen(viewport, app_server, _browser, streamlit_idle):
    width, height = VIEWPORTS[viewport]
    context = _browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(app_server)
        streamlit_idle(page)
        chart = page.locator(CHART).first
        chart.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        _first_screen(page, height)

        chosen = chart.locator(".annotation-text").filter(has_text="chosen ε").first
        before = chosen.text_content()
        slider = page.locator(SLIDER).locator("input").first
        slider.focus()
        slider.press("ArrowRight")
        expect(chosen).not_to_have_text(before)  # the chart redrew at the new ε
        streamlit_idle(page)
        _first_screen(page, height)
    finally:
        context.close()

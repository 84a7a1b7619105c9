"""The first screen of every method page, in Chromium at two laptop sizes: the ε slider and at least half of the
main private-vs-non-private figure are in view on load and still after a keyboard move of ε, the figure has a
legend, and no label or value on the page is cut off with an ellipsis."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from tests.support.browser_helpers import BOX, CUT, LEGEND

pytestmark = pytest.mark.browser

#: Laptop screens the first screen must fit (CSS pixels of the browser's viewport).
VIEWPORTS = {"1440x900": (1440, 900), "1366x768": (1366, 768)}


@dataclass(frozen=True)
class MethodPage:
    path: str
    slider: str  # the start of the ε slider's label
    figure: str  # the key of the main figure's element


PAGES = {
    "survival": MethodPage("survival", "Privacy budget ε", "sv_headline"),
    "regression": MethodPage("regression", "Privacy budget ε", "rg_headline"),
    "sparse": MethodPage("sparse", "Privacy budget ε", "sp_stem"),
    "FDR": MethodPage("fdr", "Privacy budget ε", "fdr_fig_stream"),
}

def _slider(page, spec: MethodPage):
    return page.locator(f'[data-testid="stMain"] input[aria-label^="{spec.slider}"]').first


def _in_view(page, spec: MethodPage, height: int) -> tuple[dict, dict]:
    """(slider box, figure box), after checking the slider lies wholly and the figure at least half in view."""
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(
        has=page.locator(f'input[aria-label^="{spec.slider}"]')).first.evaluate(BOX)
    figure = page.locator(f".st-key-{spec.figure} .js-plotly-plot").first.evaluate(BOX)
    assert 0 <= slider["top"] and slider["bottom"] <= height, f"ε slider at {slider}, viewport {height} px high"
    visible = min(figure["bottom"], height) - max(figure["top"], 0)
    assert visible >= figure["height"] / 2, f"{visible:.0f} of the figure's {figure['height']:.0f} px in view"
    return slider, figure


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("name", list(PAGES))
def test_slider_and_figure_on_the_first_screen(name, viewport, app_server, _browser, streamlit_idle):
    spec, (width, height) = PAGES[name], VIEWPORTS[viewport]
    context = _browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_server}/{spec.path}")
        streamlit_idle(page, timeout_ms=180_000)
        chart = page.locator(f".st-key-{spec.figure} .js-plotly-plot").first
        chart.wait_for(timeout=180_000)
        assert page.locator('[data-testid="stException"]').count() == 0
        _in_view(page, spec, height)
        legend = " ".join(chart.evaluate(LEGEND))
        assert "non-private" in legend and "private" in legend.replace("non-private", ""), \
            f"the main figure names its private and non-private lines in a legend: {legend!r}"
        assert page.evaluate(CUT) == []

        thumb = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(
            has=page.locator(f'input[aria-label^="{spec.slider}"]')).locator('[data-testid="stSliderThumbValue"]').first
        before = thumb.inner_text()
        _slider(page, spec).focus()
        _slider(page, spec).press("ArrowRight")
        expect(thumb).not_to_have_text(before, timeout=60_000)
        streamlit_idle(page, timeout_ms=180_000)
        chart.wait_for(timeout=180_000)
        assert page.locator('[data-testid="stException"]').count() == 0
        _in_view(page, spec, height)
        assert page.evaluate(CUT) == []
    finally:
        context.close()

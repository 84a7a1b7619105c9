"""End to end in Chromium: the drug-sensitivity page renders one view at a time, ε moves by keyboard, the view
tabs switch, the CV repeats and the budget split move inside the ε fragment and land in the link; no exception."""

from __future__ import annotations


import pytest
from playwright.sync_api import expect
from tests.support.browser_helpers import open_details

pytestmark = pytest.mark.browser

NOISED = '[data-testid="stMarkdownContainer"]'


def _move(page, label: str, key: str, times: int = 1) -> None:
    slider = page.locator(f'[data-testid="stMain"] [data-testid="stSlider"] input[aria-label^="{label}"]').first
    slider.focus()
    for _ in range(times):
        slider.press(key)


def _tab(page, name: str) -> None:
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name=name).first.click()


def test_regression_page_epsilon_slider_and_views(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/regression?rg_method=robust")  # the paper's method: its split slider moves below
    streamlit_idle(page)
    page.get_by_text("Drug sensitivity: private linear regression").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator(".st-key-rg_headline .js-plotly-plot").first.wait_for(timeout=120_000)
    assert page.locator(".js-plotly-plot").count() == 1  # only the open view is drawn
    open_details(page)  # what is noised at ε is in the folded details
    noised = page.locator(NOISED, has_text="What is noised").first
    before = noised.inner_text()
    assert "centre/scale took ε = 0.1" in before  # 10 % of ε = 1
    _move(page, "Privacy budget ε (total)", "ArrowRight", times=2)  # 1 → 1.5 → 2
    expect(page.locator(NOISED, has_text="What is noised").first).to_contain_text(
        "centre/scale took ε = 0.2", timeout=180_000)
    streamlit_idle(page, timeout_ms=180_000)
    after = page.locator(NOISED, has_text="What is noised").first.inner_text()
    assert before != after and "centre/scale took ε = 0.2" in after, after
    assert "eps=2" in page.url
    assert page.locator(".js-plotly-plot").count() == 1

    _tab(page, "ρ over ε and size (CV)")  # the CV runs when its view opens
    expect(page.get_by_text("Monte-Carlo CV: 10 random splits").first).to_be_visible(timeout=180_000)
    streamlit_idle(page, timeout_ms=180_000)
    assert page.locator(".st-key-rg_headline").count() == 0 and page.locator(".js-plotly-plot").count() == 1
    _move(page, "CV repeats", "ArrowRight")  # 10 → 20, inside the CV view
    expect(page.get_by_text("Monte-Carlo CV: 20 random splits").first).to_be_visible(timeout=180_000)
    page.wait_for_function("() => window.location.search.includes('rg_R=20')", timeout=60_000)

    _tab(page, "Budget split")
    page.locator(".st-key-rg_ternary .js-plotly-plot").first.wait_for(timeout=120_000)
    page.locator('[data-testid="stExpander"] summary', has_text="Settings:").first.click()  # the folded settings
    _move(page, "p1 → nxx", "ArrowLeft")  # 0.35 → 0.30
    expect(page.get_by_text("p3 → nyy = 0.10").first).to_be_visible(timeout=60_000)
    page.wait_for_function("() => window.location.search.includes('rg_p1=0.3')", timeout=60_000)
    assert "rg_R=20" in page.url  # kept while its view is closed

    _tab(page, "Predicted vs observed")
    page.locator(".st-key-rg_headline .js-plotly-plot").first.wait_for(timeout=120_000)
    streamlit_idle(page, timeout_ms=180_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 1
    page_screenshot(page, "regression")


def test_default_adassp_headline_in_chromium(app_server, chromium_page, streamlit_idle, page_screenshot):
    """The page opens on the AdaSSP release: its headline (predicted vs observed with R² and RMSE, the identity
    line) draws, and the release section says what a release costs (ε and δ)."""
    page = chromium_page
    page.goto(f"{app_server}/regression?eps=10")
    streamlit_idle(page)
    page.locator(".st-key-rg_headline .js-plotly-plot").first.wait_for(timeout=120_000)
    streamlit_idle(page, timeout_ms=180_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    open_details(page)  # what is noised at ε is in the folded details
    expect(page.locator(NOISED, has_text="What is noised (AdaSSP").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("prediction = observation").first).to_be_visible()
    expect(page.get_by_text("δ = 1/n²").first).to_be_visible()
    page.locator(".st-key-rg_headline").first.screenshot(path=str(page_screenshot(page, "regression-adassp").parent
                                                                  / "regression-adassp-headline.png"))

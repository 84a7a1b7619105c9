"""End to end in Chromium: the drug-sensitivity page renders, ε moves by keyboard, no exception."""

from __future__ import annotations


import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_regression_page_epsilon_slider(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/regression")
    streamlit_idle(page)
    page.get_by_text("Drug sensitivity: robust private linear regression").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    noised = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first
    before = noised.inner_text()
    assert "centre/scale took ε = 0.05" in before  # 5% of ε = 1
    slider = page.locator('[data-testid="stSlider"] input[aria-label="Privacy budget ε (total)"]').first
    slider.focus()
    for _ in range(2):
        slider.press("ArrowRight")  # 1 → 1.5 → 2
    expect(page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first).to_contain_text(
        "centre/scale took ε = 0.1", timeout=180_000)
    expect(page.get_by_text("Monte-Carlo CV:").first).to_be_visible(timeout=180_000)
    streamlit_idle(page, timeout_ms=180_000)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first.inner_text()
    assert before != after and "centre/scale took ε = 0.1" in after, after
    assert "eps=2" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 6
    page_screenshot(page, "regression")

"""End to end in Chromium: the sparse-learning page renders, the ε slider moves by keyboard, no exception."""

from __future__ import annotations


import pytest

pytestmark = pytest.mark.browser


def test_sparse_page_epsilon_slider(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/sparse?sp_n=1000&sp_d=500&sp_R=10")
    streamlit_idle(page)
    page.get_by_text("Sparse regression with differential privacy").first.wait_for()
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=90_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    noised = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first
    before = noised.inner_text()
    assert "ε = 2" in before, before
    slider = page.locator('[data-testid="stSlider"]', has_text="Privacy budget").locator('input[type="range"]').first
    slider.focus()
    for _ in range(2):
        slider.press("ArrowRight")
    # the rerun refits the teacher (λ depends on ε): wait for the new noise description
    page.wait_for_function("() => document.body.innerText.includes('ε = 5, δ')", timeout=90_000)
    streamlit_idle(page)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first.inner_text()
    assert before != after and "ε = 5" in after, after  # 2 → 3 → 5
    assert "eps=5" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 4
    page_screenshot(page, "sparse")


def test_sparse_page_gdsc_logistic(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/sparse?sp_src=gdsc&sp_loss=logistic&sp_gd=200&sp_R=5")
    streamlit_idle(page)
    page.get_by_text("sensitive (+1) when ln IC50").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=90_000)
    streamlit_idle(page)
    assert "TP53_mut" in page.locator(".js-plotly-plot").first.inner_text()  # the known Nutlin-3a biomarker
    page_screenshot(page, "sparse_gdsc")

"""End to end in Chromium: the survival page renders, the ε slider moves by keyboard, no exception."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

SCREENS = Path("/work/helpers/screens")


def test_survival_page_epsilon_slider(app_server, chromium_page, streamlit_idle, tmp_path):
    page = chromium_page
    page.goto(f"{app_server}/survival")
    streamlit_idle(page)
    page.get_by_text("Survival curves with differential privacy").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    noised = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first
    before = noised.inner_text()
    assert "ε = 1" in before
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    slider.focus()
    for _ in range(3):
        slider.press("ArrowRight")
    streamlit_idle(page)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first.inner_text()
    assert before != after and "ε = 3" in after, after  # 1 → 1.5 → 2 → 3
    assert "eps=3" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 4
    # one real (OpenDP) release from the page: charged, downloadable, no exception
    page.get_by_role("button", name="Release with ε = 3").click()
    page.get_by_text("Released DP survival analysis").first.wait_for()
    streamlit_idle(page)
    assert page.get_by_role("button", name="Download ZIP (JSON + CSV + report)").count() == 1
    assert page.locator('[data-testid="stException"]').count() == 0
    # Streamlit scrolls inside its own container: grow the viewport to capture the whole page
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 9000)})
    page.wait_for_timeout(1500)
    shot = tmp_path / "survival.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    if SCREENS.parent.exists():
        SCREENS.mkdir(exist_ok=True)
        shutil.copy(shot, SCREENS / "survival.png")

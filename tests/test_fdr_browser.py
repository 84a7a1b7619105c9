"""End to end in Chromium: the online-FDR page renders, the ε slider moves by keyboard, no exception."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

SCREENS = Path("/work/helpers/screens")


def test_fdr_page_epsilon_slider(app_server, chromium_page, streamlit_idle, tmp_path):
    page = chromium_page
    page.goto(f"{app_server}/fdr")
    streamlit_idle(page)
    page.get_by_text("Online FDR control with differential privacy").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    noise = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first
    before = noise.inner_text()
    assert "Laplace(1.33)" in before  # ε = 5, c = 40, η ≈ 0.083 (fdr.md's table)
    slider = page.locator('[data-testid="stSlider"]', has_text="Privacy budget ε").locator('input[type="range"]').first
    slider.focus()
    slider.press("ArrowRight")  # 5 → 7
    slider.press("ArrowRight")  # 7 → 10
    streamlit_idle(page)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first.inner_text()
    assert "Laplace(0.665)" in after, after
    assert "eps=10" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 3
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 9000)})
    page.wait_for_timeout(1500)
    shot = tmp_path / "fdr.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    if SCREENS.parent.exists():
        SCREENS.mkdir(exist_ok=True)
        shutil.copy(shot, SCREENS / "fdr.png")

"""End to end in Chromium: the survival page renders, the ε slider moves by keyboard, the view tabs and the
draws slider in one of them, no exception."""

from __future__ import annotations

import pytest
from tests.support.browser_helpers import CHECK, SPEC, TAG, open_details, wait_quiet

pytestmark = pytest.mark.browser


def test_survival_page_epsilon_slider(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/survival")
    streamlit_idle(page)
    page.get_by_text("Survival curves with differential privacy").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    # the details at ε are folded, and not drawn until opened
    assert page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").count() == 0
    open_details(page)
    # the restricted mean's horizon defaults to the data's last time (36.1396… months): shown to 6 digits, not 14
    assert page.locator('input[aria-label^="Restricted mean up to"]').input_value() == "36.1396"
    noised = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first
    before = noised.inner_text()
    assert "ε = 1" in before
    for _ in range(3):  # one step at a time: a step that changes the default grid reruns the whole page
        slider = page.locator('[data-testid="stSlider"] input[aria-label="Privacy budget ε"]').first
        slider.focus()
        slider.press("ArrowRight")
        streamlit_idle(page)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first.inner_text()
    assert before != after and "ε = 3" in after, after  # 1 → 1.5 → 2 → 3
    assert "eps=3" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    # the open view's chart and the trade-off curve (accuracy first is closed); the other views are not drawn
    assert page.locator(".js-plotly-plot").count() == 2
    assert page.locator(".st-key-sv_headline .js-plotly-plot").count() == 1
    assert page.locator(".st-key-sv_draws, .st-key-sv_groups").count() == 0
    # one real (OpenDP) release from the page: charged, downloadable, no exception
    page.get_by_role("button", name="Release with ε = 3").click()
    page.get_by_role("button", name="Release and charge ε = 3").click()  # the confirmation dialog
    page.get_by_text("Released DP survival analysis").first.wait_for()
    streamlit_idle(page)
    assert page.get_by_role("button", name="Download ZIP (JSON + CSV + report)").count() == 1
    assert page.locator('[data-testid="stException"]').count() == 0
    # Streamlit scrolls inside its own container: grow the viewport to capture the whole page
    page_screenshot(page, "survival")


def test_epsilon_survives_waiting_for_an_upload(app_server, chromium_page, streamlit_idle, tmp_path):
    """The ε slider is not drawn while the page waits for a file; when it comes back it must show (and use)
    the ε chosen before, not its first option (a widget seeded through session state did that)."""
    rows = "\n".join(f"{i + 1},{i % 2},{'AB'[i % 2]}" for i in range(60))  # no two rows alike
    csv = tmp_path / "trial.csv"
    csv.write_text("time,event,arm\n" + rows + "\n")
    page = chromium_page
    page.goto(f"{app_server}/survival?eps=2")
    streamlit_idle(page)
    page.get_by_text("upload a CSV").click()
    streamlit_idle(page)
    page.locator('input[type="file"]').set_input_files(str(csv))
    streamlit_idle(page)
    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="ε").first
    assert thumb.locator('[data-testid="stSliderThumbValue"]').first.inner_text() == "2"
    open_details(page)
    noised = page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first.inner_text()
    assert "ε = 2" in noised, noised
    assert page.locator('[data-testid="stException"]').count() == 0


def test_draws_slider_in_its_view_redraws_that_view_only(app_server, chromium_page, streamlit_idle):
    """The draws slider sits in the "Over R noise draws" view: moving it redraws that view's chart and leaves
    the trade-off curve below (its own fragment) untouched; the value goes to the link."""
    page = chromium_page
    page.goto(f"{app_server}/survival")
    streamlit_idle(page)
    page.locator(".st-key-sv_curve .js-plotly-plot").first.wait_for(timeout=120_000)
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name="Over R noise draws").click()
    streamlit_idle(page)
    page.locator(".st-key-sv_draws .js-plotly-plot").first.wait_for(timeout=120_000)
    wait_quiet(page)
    assert page.locator(".st-key-sv_headline").count() == 0
    assert page.evaluate(TAG, ["sv_curve", "sv_Rc"]) is None
    before = page.evaluate(SPEC, "sv_draws")
    slider = page.locator('[data-testid="stMain"] input[type="range"][aria-label^="Noise draws for the utility panel"]')
    slider.focus()
    slider.press("ArrowRight")
    page.get_by_text("Largest gap to the non-private curve, 500 draws").first.wait_for()  # the answer beside ε
    streamlit_idle(page)
    wait_quiet(page)
    assert "sv_R=500" in page.url
    assert page.evaluate(CHECK) == [], "the trade-off curve does not depend on the utility view's draws"
    assert page.evaluate(SPEC, "sv_draws") != before
    assert page.locator('[data-testid="stException"]').count() == 0


def test_km_plots_print_numbers_at_risk(app_server, chromium_page, streamlit_idle, tmp_path):
    """The headline and the per-group Kaplan–Meier plots carry a numbers-at-risk table under the axis:
    drawn by Plotly inside the chart, whole numbers, the noisy rows labelled; screenshots of both charts."""
    import os
    import shutil

    page = chromium_page
    page.goto(f"{app_server}/survival")
    streamlit_idle(page)
    shots = []
    for key, tab in (("sv_headline", None), ("sv_groups", "Groups and log-rank")):
        if tab:
            page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name=tab).click()
            streamlit_idle(page)
        chart = page.locator(f".st-key-{key} .js-plotly-plot").first
        chart.wait_for(timeout=120_000)
        texts = chart.locator(".annotation-text").evaluate_all("els => els.map(e => e.textContent)")
        assert any(t.startswith("Number at risk") for t in texts), texts
        numbers = [int(t) for t in texts if t.strip().isdigit()]
        assert numbers and min(numbers) >= 0
        assert ("noisy" in texts and "true" in texts) if key == "sv_headline" else {"female", "male"} <= set(texts)
        chart.scroll_into_view_if_needed()
        shots.append(chart.screenshot(path=str(tmp_path / f"survival_{key}.png")))
    keep = os.environ.get("DP_SCREENSHOT_DIR")
    if keep:
        for key in ("sv_headline", "sv_groups"):
            shutil.copy(tmp_path / f"survival_{key}.png", keep)
    assert page.locator('[data-testid="stException"]').count() == 0

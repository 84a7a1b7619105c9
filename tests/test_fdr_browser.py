"""End to end in Chromium: the online-FDR page renders, the ε slider moves by keyboard, no exception."""

from __future__ import annotations


import pytest

pytestmark = pytest.mark.browser


def test_fdr_page_epsilon_slider(app_server, chromium_page, streamlit_idle, page_screenshot):
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
    page.wait_for_function("() => window.location.search.includes('eps=10')")  # the second fragment run is queued
    streamlit_idle(page)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first.inner_text()
    assert "Laplace(0.665)" in after, after
    assert "eps=10" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 3
    page_screenshot(page, "fdr")


def test_fdr_page_upload_with_truth_and_a_bad_file(app_server, chromium_page, streamlit_idle, tmp_path):
    import numpy as np

    from dpcore import fdr

    sim = fdr.simulate_bernoulli(1, 300, pi1=0.1, rng=np.random.default_rng(0))
    good = tmp_path / "stream.csv"
    good.write_text("p,truth\n" + "\n".join(f"{p:.6g},{int(t)}" for p, t in zip(sim.pvalues[0], sim.truth[0])))
    bad = tmp_path / "bad.csv"
    bad.write_text("p,truth\n0.01,1\n1.7,0\n0.3,0\n")
    page = chromium_page
    page.goto(f"{app_server}/fdr?fdr_src=upload&fdr_tcol=truth&fdr_Rup=20")
    streamlit_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(good))
    streamlit_idle(page)
    page.get_by_text("All six methods over 20 noise draws").wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlert"]', has_text="went wrong").count() == 0
    page.locator(".js-plotly-plot").first.wait_for()
    assert page.locator(".js-plotly-plot").count() >= 3
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    streamlit_idle(page)
    page.get_by_text("row 3").first.wait_for()  # 'p', row 3: the p-value 1.7 is above 1
    assert page.locator('[data-testid="stException"]').count() == 0

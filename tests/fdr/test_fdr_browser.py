"""End to end in Chromium: the online-FDR page renders, the ε slider moves by keyboard, no exception; its views are
tabs, only the open one is drawn, and a slider move redraws only the open view's chart."""

from __future__ import annotations

import pytest
from tests.support.browser_helpers import CHECK, SPEC, TAG, open_details, wait_quiet
from conftest import unfold

#: TAG for an element INSIDE the fragment: a fragment rerun marks every element's container stale and back (its
#: class and data-stale attributes), so watch the figure or slider node itself: a remount replaces it, a redraw in
#: place (Plotly.react) changes something inside it
TAG_INSIDE = TAG.replace(".observe(box,", ".observe(node,")

pytestmark = pytest.mark.browser


def _charts(page) -> list[str]:
    """Keys of the Plotly charts on the page."""
    return page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')].map(n => {
      const box = n.closest('[class*="st-key-"]');
      return box ? [...box.classList].find(c => c.startsWith('st-key-')).slice(7) : '?'; })""")


def _press(page, label: str, key: str, arrow: str = "ArrowRight", in_url: bool = True) -> None:
    """Move the slider ``label`` one step and wait until the fragment's rerun is drawn (a setting's folded box is
    opened first)."""
    slider = page.locator('[data-testid="stSlider"]', has_text=label).locator('input[type="range"]').first
    unfold(page, slider)
    value = slider.get_attribute("aria-valuetext")
    slider.focus()
    slider.press(arrow)
    page.wait_for_function("([k, v]) => document.querySelector(`.st-key-${k} input[type=range]`)"
                           ".getAttribute('aria-valuetext') !== v", arg=[key, value])
    if in_url:  # (a default value is dropped from the URL)
        page.wait_for_function("(k) => window.location.search.includes(k + '=')", arg=key)


def test_fdr_page_epsilon_slider(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/fdr")
    streamlit_idle(page)
    page.get_by_text("Online FDR control with differential privacy").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    open_details(page)  # the noise at ε is in the folded details
    noise = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first
    before = noise.inner_text()
    assert "Laplace(17.6)" in before  # ε = 5, c = 40, the exact η = 1.098 for n = 5000 above μ = 10^−286
    slider = page.locator('[data-testid="stSlider"]', has_text="Privacy budget ε").locator('input[type="range"]').first
    slider.focus()
    slider.press("ArrowRight")  # 5 → 7
    slider.press("ArrowRight")  # 7 → 10
    page.wait_for_function("() => window.location.search.includes('eps=10')")  # the second fragment run is queued
    streamlit_idle(page)
    after = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first.inner_text()
    assert "Laplace(8.79)" in after, after
    assert "eps=10" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator(".st-key-fdr_fig_stream .js-plotly-plot").first.wait_for()
    assert _charts(page) == ["fdr_fig_stream"]  # the other views are tabs, drawn only when opened
    page_screenshot(page, "fdr")


def test_each_slider_move_redraws_only_the_open_view(app_server, chromium_page, streamlit_idle, page_screenshot):
    """On the view over ε: moving ε leaves its figure alone (it does not depend on ε), moving α redraws it; neither
    touches the data's controls outside the fragment; views open and keep the settings."""
    page = chromium_page
    page.goto(f"{app_server}/fdr?fdr_R=20")
    streamlit_idle(page)
    page.locator(".st-key-fdr_fig_stream .js-plotly-plot").first.wait_for(timeout=120_000)
    open_details(page)  # the noise and the release path at ε are in the folded details
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name="FDR and power vs ε").click()
    page.locator(".st-key-fdr_fig_eps .js-plotly-plot").first.wait_for(timeout=120_000)
    streamlit_idle(page)
    wait_quiet(page)
    assert "fdr_fig_stream" not in _charts(page) and "fdr_fig_eps" in _charts(page)
    assert TAG_INSIDE != TAG
    unfold(page, page.locator(".st-key-fdr_R").first)  # the stream's settings, folded: drawn when open
    wait_quiet(page)
    assert page.evaluate(TAG_INSIDE, ["fdr_fig_eps", "fdr_R"]) is None
    before = page.evaluate(SPEC, "fdr_fig_eps")

    _press(page, "Privacy budget ε", "eps")
    streamlit_idle(page)
    wait_quiet(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate(CHECK) == [], "re-rendered although they do not depend on ε"

    assert page.evaluate(TAG, ["fdr_R"]) is None
    _press(page, "Target FDR α", "fdr_alpha")
    streamlit_idle(page)
    wait_quiet(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    # (the observer on the sweep's figure from the ε move still reports: it was redrawn, as checked below)
    assert [c for c in page.evaluate(CHECK) if "fdr_fig_eps" not in c] == [], "the data's controls are outside"
    assert page.evaluate(SPEC, "fdr_fig_eps") != before, "the sweep over ε should show the new α"
    assert "fdr_alpha=0.1" in page.url and "eps=7" in page.url
    page_screenshot(page, "fdr-eps-view")

    # ε's fragment is nested in the settings' one: after α moved, an ε move alone must use the new α
    _press(page, "Privacy budget ε", "eps", "ArrowLeft", in_url=False)
    streamlit_idle(page)
    page.wait_for_function("() => !window.location.search.includes('eps=')")  # back at the default 5
    noise = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first
    assert "FDR ≤ α + δT = 0.3." in noise.inner_text() and "(5, 0.00025)-DP" in noise.inner_text()

    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name="One stream").click()
    page.locator(".st-key-fdr_fig_stream .js-plotly-plot").first.wait_for(timeout=120_000)
    streamlit_idle(page)
    assert _charts(page) == ["fdr_fig_stream"]
    assert page.locator(".st-key-fdr_alpha").get_by_text("0.1").count() >= 1


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
    page.locator(".st-key-fdr_fig_stream .js-plotly-plot").first.wait_for()
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name="All methods over runs").click()
    page.get_by_text("All six methods over 20 noise draws").wait_for()
    page.locator(".st-key-fdr_fig_summary .js-plotly-plot").first.wait_for()
    streamlit_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlert"]', has_text="went wrong").count() == 0
    assert _charts(page) == ["fdr_fig_summary"]
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    streamlit_idle(page)
    page.get_by_text("row 3").first.wait_for()  # 'p', row 3: the p-value 1.7 is above 1
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_power_frontier_and_the_papers_settings(app_server, chromium_page, streamlit_idle, page_screenshot,
                                                    tmp_path):
    """The page opens on a releasable configuration; its frontier view draws where a release has power; the paper's
    settings are one click away (and cannot be released)."""
    page = chromium_page
    page.goto(f"{app_server}/fdr?fdr_R=20")
    streamlit_idle(page)
    page.locator(".st-key-fdr_fig_stream .js-plotly-plot").first.wait_for(timeout=120_000)
    open_details(page)  # the noise and the release path at ε are in the folded details
    release_path = page.locator('[data-testid="stMarkdownContainer"]', has_text="Release path").first
    assert "fewest records per test reaching power ≥ 0.8 at ε ≤ 5 is 5,000" in release_path.inner_text()
    assert page.get_by_role("button", name="Release with ε = 5, δ = 0.00025").is_enabled()
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name="Power frontier").click()
    page.locator(".st-key-fdr_fig_frontier .js-plotly-plot").first.wait_for(timeout=120_000)
    streamlit_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert _charts(page) == ["fdr_fig_frontier"]
    assert page.locator(".st-key-fdr_fig_frontier").get_by_text("0.93").count() >= 1  # n = 5,000, ε = 5 (seeded)
    page_screenshot(page, "fdr-frontier-page")
    page.locator(".st-key-fdr_fig_frontier").screenshot(path=str(tmp_path / "fdr-frontier.png"))
    unfold(page, page.locator("button", has_text="The paper's settings").first)  # the presets sit in the settings
    page.get_by_role("button", name="The paper's settings").click()
    streamlit_idle(page)
    page.wait_for_function("() => window.location.search.includes('fdr_n=1000')")
    streamlit_idle(page)
    noise = page.locator('[data-testid="stMarkdownContainer"]', has_text="Noise at these settings").first
    assert "Laplace(1.33)" in noise.inner_text()  # ε = 5, c = 40, η ≈ 0.083 (fdr.md's table)
    assert page.get_by_role("button", name="Release with ε = 5, δ = 0.00025").is_disabled()
    assert page.locator('[data-testid="stException"]').count() == 0

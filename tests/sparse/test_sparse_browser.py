"""End to end in Chromium: the sparse-learning page renders (by default on bundled GDSC data with the peeling
release), its sliders move by keyboard, no exception; each slider move redraws the open view only."""

from __future__ import annotations

import pytest
from tests.support.browser_helpers import CHECK, SPEC, TAG, open_details, wait_quiet
from conftest import unfold

pytestmark = pytest.mark.browser

PLOTS = "() => document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot').length"

#: tags the Plotly node of each chart and watches inside it: a chart of the rerun fragment is marked stale while
#: the fragment runs (its container's attributes change), but a chart whose spec is unchanged is not redrawn
TAG_PLOTS = """(keys) => {
  window.__dpTagged = []; window.__dpMutations = [];
  for (const key of keys) {
    const node = document.querySelector(`.st-key-${key} .js-plotly-plot`);
    if (!node) return `missing: ${key}`;
    node.__dpTag = key;
    window.__dpTagged.push(node);
    new MutationObserver(() => { window.__dpMutations.push(key); })
      .observe(node, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return null;
}"""


def _noised(page) -> str:
    return page.locator('[data-testid="stMarkdownContainer"]', has_text="What is noised").first.inner_text()


def _move(page, label: str, key: str) -> None:
    """One step right on the slider ``label``; until its value is in the link and the page is quiet. δ and the
    repeats sit in the folded 'Preview noise' box beside ε: it is opened first."""
    slider = page.locator('[data-testid="stSlider"]', has_text=label).locator('input[type="range"]').first
    if not slider.is_visible():
        page.locator('[data-testid="stExpander"]', has_text="Preview noise").locator("summary").first.click()
        slider.wait_for(state="visible")
    slider.focus()
    slider.press("ArrowRight")
    page.wait_for_function(f"() => window.location.search.includes('{key}=')")
    page.wait_for_timeout(300)
    wait_quiet(page)


def _open_view(page, label: str) -> None:
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_role("radio", name=label).first.click()
    page.wait_for_timeout(300)
    wait_quiet(page)


def test_sparse_page_epsilon_slider(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/sparse?sp_src=synthetic&sp_n=1000&sp_d=500&sp_R=10")
    streamlit_idle(page)
    page.get_by_text("Sparse regression with differential privacy").first.wait_for()
    page.locator(".st-key-sp_stem .js-plotly-plot").first.wait_for(timeout=90_000)
    open_details(page)  # what is noised at ε is in the folded details
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate(PLOTS) == 1  # only the open view (the coefficients) is drawn
    before = _noised(page)
    assert "ε = 2" in before, before
    slider = page.locator('[data-testid="stSlider"]', has_text="Privacy budget").locator('input[type="range"]').first
    slider.focus()
    for _ in range(2):
        slider.press("ArrowRight")
    # the rerun refits the teacher (λ depends on ε): wait for the new noise description
    page.wait_for_function("() => document.body.innerText.includes('ε = 5, δ')", timeout=90_000)
    streamlit_idle(page)
    after = _noised(page)
    assert before != after and "ε = 5" in after, after  # 2 → 3 → 5
    assert "eps=5" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate(PLOTS) == 1
    page_screenshot(page, "sparse")


def test_delta_and_the_repeats_rerun_the_live_part_and_redraw_the_open_view_only(app_server, chromium_page,
                                                                                streamlit_idle):
    """δ and the repeats sit with ε: a move leaves the controls above untouched and redraws the one open chart."""
    page = chromium_page
    page.goto(f"{app_server}/sparse?sp_src=synthetic&sp_n=500&sp_d=200")
    streamlit_idle(page)
    page.locator(".st-key-sp_stem .js-plotly-plot").first.wait_for(timeout=90_000)
    open_details(page)  # what is noised at ε is in the folded details
    unfold(page, page.locator(".st-key-sp_d").first)  # the data's settings, folded: drawn when open
    wait_quiet(page)
    assert page.evaluate(TAG, ["sp_n", "sp_d"]) is None
    stem, noised = page.evaluate(SPEC, "sp_stem"), _noised(page)
    _move(page, "δ", "sp_delta")
    assert "δ = 1e-05" in _noised(page) and _noised(page) != noised
    assert page.evaluate(SPEC, "sp_stem") != stem, "the coefficients should show the new δ"
    _move(page, "Repeats (noise draws)", "sp_R")
    assert "sp_R=20" in page.url and "sp_delta=1e-5" in page.url
    assert page.evaluate(CHECK) == [], "re-rendered although they are outside the live part"
    assert page.evaluate(PLOTS) == 1
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_sweep_view_is_not_redrawn_by_epsilon_but_follows_delta(app_server, chromium_page, streamlit_idle,
                                                                     page_screenshot):
    """On the privacy–utility view the curves over ε do not depend on the chosen ε: a move of ε leaves them (same
    nodes, nothing inside changed), while δ, which changes every method's noise, redraws them."""
    page = chromium_page
    page.goto(f"{app_server}/sparse?sp_src=synthetic&sp_n=500&sp_d=200&sp_R=5")
    streamlit_idle(page)
    page.locator(".st-key-sp_stem .js-plotly-plot").first.wait_for(timeout=90_000)
    open_details(page)  # what is noised at ε is in the folded details
    _open_view(page, "Privacy–utility over ε")
    for key in ("sp_err", "sp_f1"):
        page.locator(f".st-key-{key} .js-plotly-plot").first.wait_for(timeout=120_000)
    wait_quiet(page)
    assert page.locator(".st-key-sp_stem").count() == 0  # the other views are not drawn
    assert page.evaluate(TAG_PLOTS, ["sp_err", "sp_f1"]) is None
    noised = _noised(page)
    _move(page, "Privacy budget ε", "eps")
    assert _noised(page) != noised and "ε = 3" in _noised(page)
    assert page.evaluate(CHECK) == [], "redrawn although they do not depend on ε"
    page_screenshot(page, "sparse_sweep")
    curve = page.evaluate(SPEC, "sp_err")
    _move(page, "δ", "sp_delta")
    assert page.evaluate(SPEC, "sp_err") != curve, "the curves should follow δ"
    assert page.evaluate(CHECK), "the check sees a redrawn chart"
    assert page.locator('[data-testid="stException"]').count() == 0


def test_sparse_page_gdsc_logistic(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/sparse?sp_src=gdsc&sp_loss=logistic&sp_gd=400&sp_R=5")
    streamlit_idle(page)
    page.get_by_text("sensitive (+1) when ln IC50").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator(".st-key-sp_stem .js-plotly-plot").first.wait_for(timeout=90_000)
    streamlit_idle(page)
    assert "TP53_mut" in page.locator(".js-plotly-plot").first.inner_text()  # the known Nutlin-3a biomarker
    page_screenshot(page, "sparse_gdsc")


def test_default_page_opens_on_gdsc_with_the_peeling_release(app_server, chromium_page, streamlit_idle,
                                                              page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/sparse")
    streamlit_idle(page)
    page.locator(".st-key-sp_stem .js-plotly-plot").first.wait_for(timeout=90_000)
    open_details(page)  # what is noised at ε is in the folded details
    streamlit_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "peeling + private fit" in _noised(page)
    stem = page.locator(".st-key-sp_stem .js-plotly-plot").first.inner_text()
    assert "peeling + private fit" in stem and "TP53_mut" in stem  # the known Nutlin-3a biomarker is peeled
    assert page.get_by_text("Release with ε = 2").count() >= 1
    page_screenshot(page, "sparse_default")

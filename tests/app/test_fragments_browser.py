"""Chromium: moving ε (or a budget split beside it) on a method page reruns only what depends on it.

Before the move, every figure that does not depend on the chosen ε (the sweeps over ε), and another of the page's
controls, is tagged through JavaScript and watched by a MutationObserver; after the move the very same DOM
nodes must still be attached and nothing inside them changed (not re-rendered, not even redrawn in place by
Plotly.react), while a figure that does depend on ε did change. That figure is a live chart (``ui.live_chart``):
it must change in place, in the same Plotly div, with one Plotly pass.
"""

from __future__ import annotations

import pytest
from tests.support.browser_helpers import CHECK, SPEC, TAG, wait_quiet
from conftest import unfold

pytestmark = pytest.mark.browser

#: page → (keys of the figures that do not depend on ε, a control outside the ε fragment, a figure that does)
PAGES = {
    "survival": (["sv_curve"], "sv_Rc", "sv_headline"),  # the curve and its draws slider: their own fragment
    # every view of this page is computed at ε and only the open one is drawn (the first: the preview's fit)
    "regression": ([], "rg_npriv", "rg_headline"),
    # δ and the repeats sit with ε; the curves over ε are a view tab of their own (tests/sparse/test_sparse_browser.py)
    "sparse": ([], "sp_gd", "sp_stem"),  # opens on GDSC: its feature-count slider
    # the sweep over ε is a view tab of the fragment (not drawn with the stream open; tests/fdr/test_fdr_browser.py checks
    # that ε leaves it alone); PAPRIKA's settings are in the fragment too, the data's controls are not
    "fdr": ([], "fdr_R", "fdr_fig_stream"),
}

#: tags the ε-dependent chart's Plotly div and counts its passes (``plotly_afterplot``)
WATCH_LIVE = """(key) => {
  const node = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  window.__dpLive = node;
  window.__dpPasses = 0;
  node.on('plotly_afterplot', () => { window.__dpPasses += 1; });
}"""

#: the slider moved: ε on every page (budget splits are folded page settings now, like the centring they split for)
MOVED = [(name, "eps") for name in PAGES]


@pytest.mark.parametrize("name, slider_key", MOVED)
def test_moving_epsilon_leaves_the_figures_that_do_not_depend_on_it(name, slider_key, app_server, chromium_page,
                                                                     streamlit_idle, page_screenshot):
    fixed, control, moving = PAGES[name]
    page = chromium_page
    page.goto(f"{app_server}/{name}")
    streamlit_idle(page)
    for key in fixed + [moving]:
        page.locator(f".st-key-{key} .js-plotly-plot").first.wait_for(timeout=120_000)
    unfold(page, page.locator(f".st-key-{control}").first)  # a folded settings box draws its controls when open
    wait_quiet(page)
    assert page.evaluate(TAG, fixed + [control]) is None
    before = page.evaluate(SPEC, moving)
    page.evaluate(WATCH_LIVE, moving)

    slider = page.locator(f".st-key-{slider_key} input[type=range]").first
    value = slider.get_attribute("aria-valuetext")
    slider.focus()
    slider.press("ArrowRight")
    page.wait_for_function("([key, v]) => document.querySelector(`.st-key-${key} input[type=range]`)"
                           ".getAttribute('aria-valuetext') !== v", arg=[slider_key, value])
    page.wait_for_function("(key) => new URLSearchParams(window.location.search).has(key)", arg=slider_key)
    streamlit_idle(page)
    wait_quiet(page)

    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate(CHECK) == [], f"re-rendered although they do not depend on {slider_key}"
    assert page.evaluate(SPEC, moving) != before, f"{moving} should show the new {slider_key}"
    in_place = page.evaluate(f"() => window.__dpLive === document.querySelector('.st-key-{moving} .js-plotly-plot')")
    assert in_place and page.evaluate("() => window.__dpPasses") == 1, "the live chart should be updated in place, once"
    page_screenshot(page, f"fragment-{name}" + ("" if slider_key == "eps" else f"-{slider_key}"))


#: keeps every websocket the page opens, so that the test can drop the connection like a network blip
KEEP_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__dpSockets = [];
  window.WebSocket = function (...args) { const ws = new Native(...args); window.__dpSockets.push(ws); return ws; };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})()"""


def test_after_a_dropped_connection_moving_epsilon_still_works(app_server, chromium_page, streamlit_idle):
    """A network blip: on disconnect the server empties the page's namespace (ui.live_fragment), the browser
    reconnects, and moving ε afterwards redraws the page instead of failing on the released data."""
    page = chromium_page
    page.add_init_script(KEEP_SOCKETS)
    page.goto(f"{app_server}/survival")
    streamlit_idle(page)
    page.locator(".st-key-sv_headline .js-plotly-plot").first.wait_for(timeout=120_000)
    wait_quiet(page)
    before = page.evaluate(SPEC, "sv_headline")

    page.evaluate("() => window.__dpSockets.at(-1).close()")
    page.wait_for_function("() => window.__dpSockets.length >= 2 && window.__dpSockets.at(-1).readyState === 1",
                           timeout=60_000)
    streamlit_idle(page)
    slider = page.locator('[data-testid="stSlider"]', has_text="Privacy budget ε").locator('input[type="range"]').first
    slider.focus()
    slider.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('eps=')")
    streamlit_idle(page)
    page.locator(".st-key-sv_headline .js-plotly-plot").first.wait_for(timeout=120_000)
    wait_quiet(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate(SPEC, "sv_headline") != before, "the headline should show the new ε"

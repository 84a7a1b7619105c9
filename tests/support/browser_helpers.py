"""Shared steps of the browser tests: a page opened in its own context, a file uploaded, redraws watched.

Test modules import these (``from tests.support.browser_helpers import ...``) rather than from each other.
"""

from __future__ import annotations

import contextlib
import warnings

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import postgres_schema, start_app, stop_app, wait_for_idle


def open_details(page) -> None:
    """Unfold a method page's details at ε (``ui.details_at_epsilon``: drawn only while open) and wait for them."""
    page.locator('[data-testid="stExpander"] summary', has_text="Details at this ε").first.click()
    wait_for_idle(page)


def csv_text(header: str, rows) -> str:
    """A CSV file's text from a header line and rows of values."""
    return header + "\n" + "\n".join(",".join(str(v) for v in row) for row in rows) + "\n"


@contextlib.contextmanager
def opened(browser, url: str):
    """A fresh browser context on ``url`` (1400×1000), closed afterwards; no exception box may be left on the page."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(url)
        wait_for_idle(page)
        yield page
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()


def upload(page, folder, name: str, text: str) -> None:
    """Write ``text`` to ``folder/name`` and give it to the page's file uploader, as a person choosing the file."""
    path = folder / name
    path.write_text(text)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    wait_for_idle(page)


def file_input_after_load(page, url: str, timeout_ms: int = 60_000):
    """The page's file input once ``url`` has drawn it. A first load that finished without it (seen once in CI in
    about 2,000 runs, not reproduced under load here) is reported as a warning with what the page showed, and the
    page is loaded once more; a second miss fails the test."""
    selector = '[data-testid="stFileUploader"] input[type="file"]'
    for attempt in range(2):
        page.goto(url)
        wait_for_idle(page)
        try:
            page.wait_for_selector(selector, state="attached", timeout=timeout_ms)
            return page.locator(selector)
        except PlaywrightTimeout:  # say what was on the page instead of only that it timed out
            shown = page.locator('[data-testid="stMain"]').inner_text()[:1500]
            if attempt:
                raise AssertionError(f"no file input at {page.url} after two loads; the page showed: {shown}")
            warnings.warn(f"no file input at {page.url} on the first load; the page showed: {shown}")


def capped_app(request, tmp_path):
    """Yield the URL of an app whose person cap is ε = 1, on the store ``request.param`` names (sqlite or postgres)."""
    url_env = ""
    if request.param == "postgres":
        schema = postgres_schema(request.getfixturevalue("postgres_server"))
        url_env = schema.__enter__()
        request.addfinalizer(lambda: schema.__exit__(None, None, None))
    proc, url = start_app(tmp_path / "ledger", ledger_url=url_env, extra_env={"DPCORE_DEFAULT_EPSILON_CAP": "1"})
    yield url
    stop_app(proc)


#: tags the Plotly div (or slider) inside each keyed box and records any change inside the box
TAG = """(keys) => {
  const nodes = [];
  window.__dpMutations = [];
  for (const key of keys) {
    const box = document.querySelector(`.st-key-${key}`);
    const node = box && box.querySelector('.js-plotly-plot, [data-testid="stSlider"]');
    if (!node) return `missing: ${key}`;
    node.__dpTag = key;
    nodes.push(node);
    // any change inside (Plotly.react redraws in place, keeping the outer node) counts as a re-render
    new MutationObserver((records) => { window.__dpMutations.push(key); })
      .observe(box, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  window.__dpTagged = nodes;
  return null;
}"""

CHECK = """() => window.__dpTagged.filter(n => !(n.isConnected && n.__dpTag)).map(n => n.__dpTag || '?')
  .concat([...new Set(window.__dpMutations)].map(k => `${k} changed`))"""

SPEC = """(key) => {
  const node = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  return node ? JSON.stringify(node.data) : null;
}"""


def wait_quiet(page, quiet_ms: int = 1500, timeout_ms: int = 120_000) -> None:
    """Until the DOM has not changed for ``quiet_ms`` (the fragment's rerun and Plotly's redraw are done)."""
    page.evaluate("""() => { window.__dpLast = performance.now();
      new MutationObserver(() => { window.__dpLast = performance.now(); })
        .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true}); }""")
    page.wait_for_function(f"() => performance.now() - window.__dpLast > {quiet_ms}", timeout=timeout_ms,
                           polling=200)


#: Where a box lies in the viewport ({top, bottom, height} in CSS pixels; Streamlit scrolls its own container).
BOX = "el => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height}; }"
#: The entries of a chart's legend: Plotly's, or the legend drawn as text above the plot (dpcore.reporting.figures.text_legend,
#: whose entries start with a line or marker symbol).
LEGEND = """el => [...el.querySelectorAll('.legendtext')].map(t => t.textContent).concat(
  [...el.querySelectorAll('.annotation-text')].map(t => t.textContent).filter(t => /[━╍┈■●▲]/.test(t)))"""
#: Every element of the main area whose text the browser cut with an ellipsis (text-overflow), that clips a label
#: it is too narrow for (a widget label or a button's text wider than its box), or a row of buttons wider than its
#: box, with its text.
CUT = """() => {
  const cut = [];
  for (const el of document.querySelectorAll('[data-testid="stMain"] *')) {
    if (!el.offsetParent || !el.textContent.trim()) continue;
    const style = getComputedStyle(el);
    const label = el.matches('[data-testid="stWidgetLabel"] *, button *, [role="radio"] *, [data-baseweb="select"] *');
    const clipped = style.textOverflow === 'ellipsis' || (label && style.overflow === 'hidden')
      || el.matches('[data-testid="stButtonGroup"]');  // a row of view buttons wider than its column
    if (clipped && el.scrollWidth > el.clientWidth + 1) cut.push(el.textContent.trim().slice(0, 80));
  }
  return cut;
}"""

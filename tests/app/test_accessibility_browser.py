"""WCAG 2.1 A and AA in Chromium: axe-core on every page, as it opens and with each view and box opened, and the
keyboard path from ε to the Release button and back from its dialog.

axe-core comes with its Python package (``axe-playwright-python``, the engine's JavaScript inside the wheel: no
download). A violation fails the test when it is critical or serious and the app causes it. What Streamlit itself
draws is told apart by a bare page (``tests/support/bare_widgets_page.py``: the same kinds of element in Streamlit's
default theme) checked in the same test: a violation whose rule and element kind (the Streamlit element it sits in)
also occur there is the framework's. :data:`FRAMEWORK` lists those, each with why; the test fails when one of
them no longer occurs on the bare page, so an upgrade of Streamlit that fixes it shows, and when the bare page
has one not listed. Headings are checked too: none may skip a level.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import _free_port, import_outside_ci, stop_app, wait_for_idle

pytestmark = pytest.mark.browser

#: the WCAG 2.0 and 2.1 A and AA rules of axe-core
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
               "resultTypes": ["violations"]}
SEVERE = ("critical", "serious")

#: Violations Streamlit's own elements have on a bare page (rule, element kind): the app cannot change them.
FRAMEWORK = {
    ("color-contrast", "stCaptionContainer"): "st.caption's text is the body colour at 60 % (3.8:1): the app sets "
                                              "no essential text in it (ui.note instead)",
    ("list", "stSidebarNavItems"): "the sidebar's navigation in sections puts each section's heading and items "
                                   "straight into one <ul> without <li> around them",
    ("listitem", "stSidebarNavItems"): "the same navigation's items are <li> inside a <div>, not a list",
}
#: Violations the bare page may have in Streamlit's default theme (depending on when axe catches a control's colour
#: transition) that the app's own theme must not have: the app is checked for them (its primary colour is its
#: choice).
DEFAULT_THEME = {
    ("color-contrast", "stMarkdownContainer"): "the selected view switch's text in the default primary red on its "
                                               "tint (3.6:1)",
}

PAGES = {"home": "", "survival": "survival", "regression": "regression", "sparse": "sparse", "fdr": "fdr",
         "audit": "audit", "ledger": "ledger", "plan-first": "plan-first"}

#: axe's severe violations with, per element, the kind of Streamlit element it sits in (its nearest data-testid):
#: with the rule, the key that tells an app's violation from the framework's.
_RUN_AXE = """
async (options) => {
  const results = await axe.run(document, options);
  return results.violations.filter(v => ['critical', 'serious'].includes(v.impact)).map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => {
      let element = null;
      try { element = document.querySelector(n.target[0]); } catch (e) { element = null; }
      const owner = element && element.closest('[data-testid]');
      return {target: JSON.stringify(n.target), html: n.html.slice(0, 160),
              kind: owner ? owner.getAttribute('data-testid') : ''};
    })}));
}
"""


def axe_violations(page) -> list[dict]:
    """Every critical or serious WCAG 2.1 A/AA violation on the page now, one entry per element."""
    axe = import_outside_ci("axe_playwright_python.base")
    page.evaluate(axe.AXE_SCRIPT)
    out = []
    for violation in page.evaluate(_RUN_AXE, AXE_OPTIONS):
        for node in violation["nodes"]:
            out.append({"rule": violation["id"], "impact": violation["impact"], "help": violation["help"], **node})
    return out


def _key(violation: dict) -> tuple:
    return violation["rule"], violation["kind"]


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory):
    """``streamlit run`` of the bare page from a folder without the project's config (Streamlit's defaults)."""
    folder = tmp_path_factory.mktemp("bare")
    shutil.copy(Path(__file__).parents[1] / "support" / "bare_widgets_page.py", folder / "bare_widgets_page.py")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "bare_widgets_page.py", "--server.port",
                             str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false"], cwd=folder, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                break
        except OSError:
            time.sleep(0.5)
    else:
        stop_app(proc)
        pytest.fail("the bare Streamlit page did not start")
    yield url
    stop_app(proc)


@pytest.fixture(scope="module")
def framework(bare_server, _browser) -> set[tuple]:
    """The keys of the bare page's severe violations, as it opens and with its closed box opened."""
    context = _browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(bare_server)
    wait_for_idle(page)
    found = axe_violations(page)
    page.get_by_text("A closed box").click()
    wait_for_idle(page)
    found += axe_violations(page)
    context.close()
    return {_key(v) for v in found}


def test_the_framework_list_is_what_a_bare_page_shows(framework):
    """Each listed framework violation still occurs on a bare Streamlit page (else the upgrade fixed it: take it off
    the list), and the bare page has none that is not listed."""
    fixed, new = set(FRAMEWORK) - framework, framework - set(FRAMEWORK) - set(DEFAULT_THEME)
    assert not fixed and not new, (f"fixed by Streamlit, to take off the list: {sorted(fixed)}; "
                                   f"new on a bare page: {sorted(new)}")


def heading_jumps(page) -> list[str]:
    """Headings of the main area that skip a level (h1 then h3): axe rates that "moderate", WCAG 1.3.1 asks for
    the structure a screen reader's heading list shows."""
    levels = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMain"] :is(h1,h2,h3,h4,h5,h6)')]
        .filter(h => h.offsetParent !== null).map(h => [Number(h.tagName[1]), h.innerText.trim().slice(0, 60)])""")
    return [f"h{level} {text!r} after h{previous}" for (previous, _), (level, text) in zip(levels, levels[1:])
            if level > previous + 1] + ([f"the page starts with h{levels[0][0]}"]
                                        if levels and levels[0][0] != 1 else [])


def _app_violations(page, framework: set[tuple], state: str) -> list[str]:
    """The page's severe violations that are not the framework's own (listed and seen on the bare page), and its
    headings out of order."""
    excused = framework & set(FRAMEWORK)
    return [f"{state}: {v['rule']} ({v['impact']}: {v['help']}) in {v['kind'] or 'the page'} at {v['target']}: "
            f"{v['html']}" for v in axe_violations(page) if _key(v) not in excused] + [
        f"{state}: heading out of order: {jump}" for jump in heading_jumps(page)]


def _open_boxes(page) -> int:
    """Open every closed box (expander) in the main area, one at a time (each may rerun its fragment); how many."""
    for opened in range(60):
        closed = page.locator('[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary')
        if not closed.count():
            return opened
        closed.first.click()
        wait_for_idle(page)
    return opened


def _views(page) -> list[str]:
    switch = page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').first
    return switch.get_by_role("radio").all_inner_texts() if switch.count() else []


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("name", PAGES)
def test_every_page_passes_axe_in_every_view(name, app_server, chromium_page, framework):
    """WCAG 2.1 A/AA on the page as it opens, then in each view (the page's view switch) with every box opened."""
    page = chromium_page
    page.goto(f"{app_server}/{PAGES[name]}")
    wait_for_idle(page)
    problems = _app_violations(page, framework, "as it opens")
    views = _views(page) or [""]
    # the plan-first page opens on its declaration form: its views come after the facts are declared
    assert views != [""] or name in ("home", "ledger", "plan-first"), "a method page without its view switch"
    opened = 0
    for view in views:
        if view:
            page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').first.get_by_role(
                "radio", name=view).click()
            wait_for_idle(page)
            problems += _app_violations(page, framework, f"view {view!r}")
        opened += _open_boxes(page)
        problems += _app_violations(page, framework, f"view {view!r}, every box open" if view else "every box open")
    assert opened or name == "home", "no box opened: the boxes were not found"
    assert not problems, "\n".join(problems)


def test_the_check_can_fail(chromium_page, framework):
    """An image without a text alternative and grey text on white are caught as the app's own."""
    page = chromium_page
    page.set_content("<html lang='en'><head><title>t</title></head><body><main><h1>t</h1>"
                     "<img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>"
                     "<p style='color:#aaa'>faint text</p></main></body></html>")
    found = {v["rule"] for v in axe_violations(page) if _key(v) not in set(FRAMEWORK)}
    assert {"image-alt", "color-contrast"} <= found
    page.set_content("<html lang='en'><body><div data-testid='stMain'><h1>t</h1><h3>skipped a level</h3></div>"
                     "</body></html>")
    assert heading_jumps(page) == ["h3 'skipped a level' after h1"]


def _focused(page) -> dict:
    return page.evaluate("""() => {
      const e = document.activeElement;
      const box = e.closest('[class*="st-key-"]');
      const style = getComputedStyle(e);
      return {role: e.getAttribute('role') || e.tagName.toLowerCase(), label: e.getAttribute('aria-label') || '',
              text: (e.innerText || '').slice(0, 80),
              key: box ? [...box.classList].find(c => c.startsWith('st-key-')) : '',
              outline: style.outlineStyle + ' ' + style.outlineWidth + ' ' + style.outlineColor};
    }""")


@pytest.mark.timeout(900)
def test_keyboard_alone_sets_epsilon_and_releases_with_focus_visible(app_server, chromium_page):
    """From the ε slider to the Release button by Tab (few stops: chart toolbars are not among them), the slider's
    focus ring drawn at 3:1 or more, and after the confirmation closes the focus back on the Release button."""
    page = chromium_page
    page.goto(f"{app_server}/survival")
    wait_for_idle(page)
    page.locator('.st-key-eps input[type="range"]').focus()  # the slider's thumb holds a range input
    page.keyboard.press("ArrowRight")
    wait_for_idle(page)
    ring = page.evaluate("() => { const s = getComputedStyle(document.activeElement.closest('[data-focus-visible]'));"
                         " return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }")
    assert ring == ["solid", "3px", "rgb(21, 88, 176)"], ring  # #1558b0 against white: 6.9:1
    stops = 0
    while "release_button" not in _focused(page)["key"]:
        page.keyboard.press("Tab")
        stops += 1
        assert stops <= 30, f"no Release button within 30 tab stops of ε (now on {_focused(page)})"
    assert stops <= 12, f"{stops} tab stops from ε to Release"
    page.keyboard.press("Enter")
    page.get_by_role("dialog").wait_for()
    page.keyboard.press("Escape")
    page.get_by_role("dialog").wait_for(state="detached")
    wait_for_idle(page)
    page.wait_for_function("() => !!document.activeElement.closest('[class*=\"st-key-release_button\"]')",
                           timeout=10_000)

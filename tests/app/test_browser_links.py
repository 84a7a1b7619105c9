"""Shareable links (Chromium): every control takes its value from the URL, and changes go back into it."""

from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = pytest.mark.browser


def _query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_audit_link_sets_every_control_and_changes_update_the_url(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/audit?method=regression&eps=2&runs=50000&bug=true&teach=true")
    streamlit_idle(page)
    page.get_by_text("Privacy audit", exact=True).first.wait_for()
    method_box = page.locator('[data-testid="stSelectbox"]').first.locator("input")
    assert method_box.input_value() == "Drug sensitivity (AdaSSP, robust private LR)"
    page.get_by_text("Resolution: with 50,000 runs per data set").wait_for()  # the audit tab (the attacker's is closed)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stSliderThumbValue\"]').length >= 2")
    thumbs = [t.inner_text() for t in page.locator('[data-testid="stSliderThumbValue"]').all()]
    assert thumbs[:2] == ["2", "50,000"]  # ε and runs
    toggles = page.locator('input[type=checkbox]').evaluate_all(
        "els => Object.fromEntries(els.map(e => [e.getAttribute('aria-label') || e.closest('label').innerText, e.checked]))"
    )
    assert any(v for k, v in toggles.items() if "Plant a bug" in k)
    assert any(v for k, v in toggles.items() if "Teaching mode" in k), toggles
    assert page.locator('[data-testid="stException"]').count() == 0

    # move ε one step right with the keyboard, as a user would
    page.locator('[data-testid="stSlider"] input').first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('eps=3')")
    streamlit_idle(page)
    query = _query(page)
    assert query["eps"] in {"3", "3.0"} and query["method"] == "regression" and query["runs"] == "50000"

    # a value equal to the default leaves the URL clean
    page.locator('[data-testid="stSlider"] input').first.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.location.search.includes('eps=1') || !window.location.search.includes('eps=')")
    page_screenshot(page, "audit-link")

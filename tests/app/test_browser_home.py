"""End to end in Debian's Chromium: the served app opens on the home page without errors."""


import pytest

pytestmark = pytest.mark.browser


def test_home_page_in_chromium(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(app_server)
    streamlit_idle(page)
    page.get_by_text("Privacy–utility trade-offs for clinical statistics").wait_for()
    page.wait_for_function("() => document.title === 'DP trade-offs for clinical data'")
    assert page.locator('[data-testid="stException"]').count() == 0
    page_screenshot(page, "home")

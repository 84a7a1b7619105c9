"""Clamped link values (Chromium): every value a link asks for that the page changes gets a note a person sees, and
the note stays while the control keeps the value the link was moved to."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path, asked, shown", [
    ("survival?eps=-0", "'-0'", "0.05"),
    ("survival?sv_width=1e9", "'1e9'", "1000"),
    ("sparse?eps=0.05", "'0.05'", "0.1"),
])
def test_every_clamped_link_value_has_a_note(app_server, chromium_page, streamlit_idle, path, asked, shown):
    page = chromium_page
    page.goto(f"{app_server}/{path}")
    streamlit_idle(page)
    page.wait_for_timeout(1500)  # let any later rerun (fragments, components) finish
    streamlit_idle(page)
    note = page.get_by_text(f"Link: the link asked for {asked}; the nearest value", exact=False)
    assert note.count() >= 1, page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
    assert f"is {shown}." in note.first.inner_text()
    # a rerun that does not read the link (teaching mode on, in the sidebar) keeps the note: the control still holds
    # the value the link was moved to
    page.get_by_text("Teaching mode", exact=True).first.click()
    page.wait_for_function("() => window.location.search.includes('teach=true')")
    streamlit_idle(page)
    assert note.count() >= 1, page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()

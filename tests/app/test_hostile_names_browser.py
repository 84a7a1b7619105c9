"""In Chromium: a file named with Streamlit's colour, icon and emoji codes is shown as typed, in the page and in
the sidebar's ledger after a release."""

import pytest

pytestmark = pytest.mark.browser

HOSTILE = ":red[ALARM] :material/warning: :smile: **bold**.csv"


def test_colon_codes_in_a_file_name_stay_text(app_server, chromium_page, streamlit_idle, page_screenshot):
    rows = "\n".join(f"{5 + 3 * i},{i % 2}" for i in range(80))
    page = chromium_page
    page.goto(f"{app_server}/survival?eps=1")
    streamlit_idle(page)
    page.get_by_text("upload a CSV").click()
    streamlit_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": HOSTILE, "mimeType": "text/csv", "buffer": ("time,status\n" + rows + "\n").encode()})
    streamlit_idle(page)
    page.get_by_role("button", name="Release with ε = 1").click()
    page.get_by_role("button", name="Release and charge ε = 1").click()
    streamlit_idle(page)
    page.get_by_text("Released DP survival analysis").first.wait_for()
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text().replace("\u2060", "")
    main = page.locator('[data-testid="stMain"]').inner_text().replace("\u2060", "")
    stem = HOSTILE.removesuffix(".csv")
    assert stem in sidebar and stem in main, sidebar
    assert "😄" not in sidebar + main
    assert page.locator('[data-testid="stSidebar"] [style*="color"]', has_text="ALARM").count() == 0
    page_screenshot(page, "hostile_file_name")

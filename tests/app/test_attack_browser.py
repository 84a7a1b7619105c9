"""End to end in Chromium: the attacker's view on the audit page, and the teaching panel's link to it."""

from __future__ import annotations

import pytest

from tests.support.browser_helpers import file_input_after_load

pytestmark = pytest.mark.browser

HEADLINE = "At ε = 1 an attacker who knows everyone else guesses right at most 73 % of the time"


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0


def test_attacker_view_on_the_audit_page(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/audit?method=survival&eps=1")
    streamlit_idle(page)
    page.get_by_text("Runs per data set").first.wait_for()  # the audit tab opens first; the attacker's view is not computed
    assert page.get_by_text("What ε means for one patient: the attacker's view").count() == 0
    page.locator('[data-testid="stButtonGroup"]').get_by_role("radio", name="Attacker's view").click()
    streamlit_idle(page)
    page.get_by_text("What ε means for one patient: the attacker's view").wait_for()
    page.get_by_text(HEADLINE).first.wait_for()
    _no_exception(page)
    roc = page.locator(".js-plotly-plot", has_text="false-positive rate")
    roc.first.wait_for()
    assert "allowed by (ε = 1)-DP" in roc.first.inner_text()
    page_screenshot(page, "attack_registry")
    # a pair built from a bundled data set: the differencing attack without privacy, the exact ROC with it
    page.get_by_text("built from a data set by replacing one record").click()
    streamlit_idle(page)
    page.get_by_text("The attacker subtracts the counts").wait_for()
    page.get_by_text("exactly); (ε, δ)-DP allows at most 73 %").wait_for()
    assert "optimal attacker, exact" in page.locator(".js-plotly-plot", has_text="false-positive rate").first.inner_text()
    _no_exception(page)
    page_screenshot(page, "attack_data")


def test_teaching_panel_links_to_the_same_configuration(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(f"{app_server}/fdr?eps=2&teach=true")
    streamlit_idle(page)
    page.get_by_text("What ε means for one patient.").wait_for()
    page.get_by_text("At ε = 2 and δ = ").first.wait_for()
    _no_exception(page)
    page_screenshot(page, "attack_panel_fdr")
    link = page.locator("a", has_text="See the attacker's view with this configuration").first
    href = link.get_attribute("href")
    assert "method=fdr" in href and "eps=2" in href and "adelta=0.00025" in href, href
    # the shared link (a new session, e.g. a colleague's browser) opens the same configuration
    page.goto(f"{app_server}/{href.lstrip('/')}")
    streamlit_idle(page)
    page.get_by_text("What ε means for one patient: the attacker's view").wait_for()
    page.get_by_text("At ε = 2 and δ = 0.00025 an attacker").first.wait_for()
    page_screenshot(page, "attack_linked_fdr")
    page.locator('[data-testid="stMarkdownContainer"]', has_text="20 p-values; B = A").first.wait_for()  # FDR pair
    _no_exception(page)
    # within the session the link opens the audit page on the same method and ε (app.py forgets the previous
    # page's ε on a page change, but keeps the one a link carries)
    page.goto(f"{app_server}/fdr?eps=2&teach=true")
    streamlit_idle(page)
    page.locator("a", has_text="See the attacker's view with this configuration").first.click()
    page.wait_for_url("**/audit?*")
    streamlit_idle(page)
    page.get_by_text("What ε means for one patient: the attacker's view").wait_for()
    page.locator('[data-testid="stMarkdownContainer"]', has_text="20 p-values; B = A").first.wait_for()  # FDR pair
    page.get_by_text("At ε = 2 and δ = 0.00025 an attacker").first.wait_for()
    assert page.get_by_text("Session State API").count() == 0  # no warning about the method chosen by the panel
    _no_exception(page)
    page_screenshot(page, "attack_clicked_fdr")


def test_home_page_explains_epsilon_with_the_attacker(app_server, chromium_page, streamlit_idle, page_screenshot):
    page = chromium_page
    page.goto(app_server)
    streamlit_idle(page)
    page.get_by_text("What ε means for one patient").first.wait_for()
    page.get_by_text(HEADLINE).first.wait_for()
    page.locator(".js-plotly-plot", has_text="attacker right (%)").first.wait_for()
    _no_exception(page)
    page_screenshot(page, "attack_home")
    page.locator("a", has_text="Open the attacker's view").first.click()
    page.wait_for_url("**/audit?*")
    streamlit_idle(page)
    page.get_by_text("The attacker subtracts the counts").wait_for()
    _no_exception(page)


def test_pairs_from_an_upload_and_from_bundled_regression_data(app_server, chromium_page, streamlit_idle,
                                                                page_screenshot, tmp_path):
    page = chromium_page
    csv = tmp_path / "*trial*.csv"
    rows = "\n".join(f"{t},{e}" for t, e in zip(range(5, 305, 3), [1, 0, 1, 1] * 25))
    csv.write_text("months,died\n" + rows + "\n")
    file_input_after_load(page, f"{app_server}/audit?method=survival&atk_pair=data&atk_src=upload").set_input_files(
        str(csv))
    streamlit_idle(page)
    page.get_by_text("The attacker subtracts the counts of the 99 patients").wait_for()
    page.get_by_text("exactly); (ε, δ)-DP allows at most 73 %").wait_for()
    _no_exception(page)
    page_screenshot(page, "attack_upload")
    page.goto(f"{app_server}/audit?method=regression&atk_pair=data&eps=2")
    streamlit_idle(page)
    page.get_by_text("The attacker subtracts the statistics").wait_for()
    page.get_by_text("At ε = 2 an attacker who knows everyone else guesses right at most 88 %").first.wait_for()
    page.locator(".js-plotly-plot", has_text="false-positive rate").first.wait_for()
    _no_exception(page)
    page_screenshot(page, "attack_regression")


@pytest.mark.parametrize("page_path, sentence", [("survival?eps=0.5", "At ε = 0.5 an attacker"),
                                                ("regression?eps=2", "At ε = 2 an attacker"),
                                                ("sparse", "At ε = 2 and δ = ")])
def test_teaching_panel_on_every_method_page(app_server, chromium_page, streamlit_idle, page_screenshot, page_path,
                                            sentence):
    page = chromium_page
    page.goto(f"{app_server}/{page_path}{'&' if '?' in page_path else '?'}teach=true")
    streamlit_idle(page)
    page.get_by_text("What ε means for one patient.").wait_for()
    page.get_by_text(sentence).first.scroll_into_view_if_needed()
    page.locator(".js-plotly-plot", has_text="attacker right (%)").first.wait_for()  # charts draw when in view
    href = page.locator("a", has_text="See the attacker's view with this configuration").first.get_attribute("href")
    assert f"method={page_path.split('?')[0]}" in href
    _no_exception(page)


def _attacker_view_drawn(page, eps: str = "1", bound: str = "73 %") -> None:
    """The headline, the three paragraphs and the ROC figure of the attacker's view, without an exception."""
    limited = bound != "more than 99.9 %"  # past 99.9 % the sentence says the bound no longer limits anyone
    verb = f"guesses right at most {bound}" if limited else f"may guess right {bound}"
    page.get_by_text(f"an attacker who knows everyone else {verb} of the time").first.wait_for()
    page.get_by_text("Without privacy.").first.wait_for()
    page.get_by_text(f"(ε, δ)-DP allows {'at most' if limited else 'up to'} {bound}").first.wait_for()
    roc = page.locator(".js-plotly-plot", has_text="false-positive rate").first
    roc.scroll_into_view_if_needed()
    roc.wait_for()
    assert f"allowed by (ε = {eps}" in roc.inner_text()
    _no_exception(page)


def _csv(rows: list[str]) -> dict:
    return {"name": "data.csv", "mimeType": "text/csv", "buffer": ("\n".join(rows) + "\n").encode()}


@pytest.mark.parametrize("method, bundled, upload, csv", [
    ("fdr&atk_fc=1&atk_t=6", ["PAPRIKA as released: paper rule", "the exact binomial η = 0.3107"],
     ("10", "atk_fsrc=upload&atk_move=toward", ["rests on that statement",
                                                "A: the stream as it is (60 p-values, uploaded)",
                                                "the discovery of hypothesis 1 flips"]),
     ["p"] + [f"{0.007 + 0.0001 * i:.4f}" for i in range(60)]),
    ("sparse", ["Peeling + private fit as released", "right 100 % of the time"],
     ("1", "atk_ssrc=upload&atk_rec=2", ["A: the data set as it is (n = 80, d = 3"]),
     ["y,g1,g2,g3"] + [f"{(i % 7) - 3},{(i % 5) / 4:.2f},{(i % 3) / 2:.2f},{(i % 11) / 10:.2f}" for i in range(80)]),
])
def test_pairs_from_bundled_data_and_an_upload(app_server, chromium_page, streamlit_idle, page_screenshot, method,
                                               bundled, upload, csv):
    """FDR and sparse: the view on the bundled data, then on an in-memory CSV (never a file on disk); at ε = 10 the
    uploaded stream's attacker is visibly better than a coin flip."""
    page = chromium_page
    base = f"{app_server}/audit?method={method}&atk_pair=data&atk_R=5000"
    name = method.split("&")[0]
    page.goto(f"{base}&eps=1")
    streamlit_idle(page)
    for text in bundled:
        page.get_by_text(text).first.wait_for()
    _attacker_view_drawn(page)
    page_screenshot(page, f"attack_{name}_bundled")
    eps, params, texts = upload
    page.goto(f"{base}&eps={eps}&{params}")
    streamlit_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(_csv(csv))
    streamlit_idle(page)
    for text in texts:
        page.get_by_text(text).first.wait_for()
    _attacker_view_drawn(page, eps, "73 %" if eps == "1" else "more than 99.9 %")
    page_screenshot(page, f"attack_{name}_upload")

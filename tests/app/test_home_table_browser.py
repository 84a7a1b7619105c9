"""The Home table names the methods each page releases by default: what a person reads on Home
(Chromium) against the pages' own defaults (AppTest)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore import regression as R
from dpcore import sparse as sp
from tests.support.page_views import unfold_settings

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _default(page: str, kind: str, key: str):
    at = unfold_settings(AppTest.from_file(APP, default_timeout=300))  # the method is a folded setting
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return getattr(at, kind)(key=key).value


@pytest.mark.browser
def test_home_table_names_the_default_releases(app_server, chromium_page, streamlit_idle):
    released = {"Drug sensitivity": {"adassp": R.ADASSP}[_default("app_pages/regression.py", "radio", "rg_method")],
                "Sparse learning": sp.METHOD_LABELS[_default("app_pages/sparse.py", "radio", "sp_release")]}
    page = chromium_page
    page.goto(app_server)
    streamlit_idle(page)
    page.get_by_text("What each page compares").wait_for()
    for name, method in released.items():
        cell = page.locator("tr", has_text=name).locator("td").nth(1).inner_text()
        assert cell.startswith(method) and "released by default" in cell.split(";")[0], cell
    robust = page.locator("tr", has_text="Drug sensitivity").locator("td").nth(1).inner_text()
    assert "robust private Bayesian linear regression" in robust and "one click away" in robust
    assert "knowledge transfer" in page.locator("tr", has_text="Sparse learning").locator("td").nth(1).inner_text()

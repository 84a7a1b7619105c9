"""In Chromium: a survival upload whose group labels are spreadsheet formulas, released, and its ZIP downloaded as a
person would; every CSV in it shows the labels as text (OWASP's single quote), numbers as numbers
(``=cmd|' /C calc'!A0`` was written as it was into ``counts.csv`` and ``at_start.csv``)."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from dpcore.reporting.release import FORMULA_STARTS

pytestmark = pytest.mark.browser

CALC, PLUS = "=cmd|' /C calc'!A0", "+1"


def test_the_downloaded_release_zip_escapes_formula_labels(app_server, chromium_page, streamlit_idle):
    rows = "\n".join(f"{5 + 3 * i},{i % 2},{CALC if i % 3 else PLUS}" for i in range(90))
    page = chromium_page
    page.goto(f"{app_server}/survival?eps=1&sv_src=upload")
    streamlit_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": "arms.csv", "mimeType": "text/csv", "buffer": ("time,status,arm\n" + rows + "\n").encode()})
    streamlit_idle(page)
    labels = page.get_by_placeholder("e.g. control, treatment")
    labels.fill(f"{CALC},{PLUS}")
    labels.press("Enter")
    streamlit_idle(page)
    page.get_by_role("button", name="Release with ε = 1").click()
    page.get_by_role("button", name="Release and charge ε = 1").click()
    streamlit_idle(page)
    page.get_by_text("Released DP survival analysis").first.wait_for()
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download ZIP (JSON + CSV + report)").click()
    with zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read())) as archive:
        tables = {n: archive.read(n).decode() for n in archive.namelist() if n.endswith(".csv")}
    assert {"counts.csv", "at_start.csv"} <= set(tables)
    for name, text in tables.items():
        cells = [c for row in csv.reader(io.StringIO(text, newline="")) for c in row]
        texts = [c for c in cells if not _number(c)]
        assert not [c for c in texts if c.startswith(FORMULA_STARTS)], name
    for name in ("counts.csv", "at_start.csv"):
        cells = [c for row in csv.reader(io.StringIO(tables[name], newline="")) for c in row]
        assert "'" + CALC in cells and "'" + PLUS in cells, name


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True

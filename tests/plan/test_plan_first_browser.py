"""End to end in Chromium at 1366×768: declare the facts, see the proxy's curve on the first screen, lock, upload,
and release; the file is named only after Release and the release is charged once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}


def _screen(page, tmp_path: Path, name: str) -> Path:
    """What a 1366×768 laptop shows without scrolling (kept under ``DP_SCREENSHOT_DIR`` when it is set)."""
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot))
    keep = os.environ.get("DP_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
    return shot


def test_plan_first_from_declaring_to_release(app_server, chromium_page, streamlit_idle, tmp_path):
    rows = "\n".join(f"P{i:03d},{1 + (7 * i) % 40},{int(i % 3 != 0)},{'AB'[i % 2]}" for i in range(143))
    csv = tmp_path / "trial.csv"
    csv.write_text("id,months,died,arm\n" + rows + "\n")
    page = chromium_page
    page.set_viewport_size(LAPTOP)
    page.goto(f"{app_server}/plan-first")
    streamlit_idle(page)
    page.get_by_text("Plan first: fix the settings without looking at the data").first.wait_for()
    _screen(page, tmp_path, "plan-first-declare")
    for label, value in {"Time column": "months", "Event column (0 = censored, 1 = event)": "died",
                         "Group column (optional)": "arm", "Person id column (optional)": "id",
                         "Group labels (as the design fixes them)": "A, B",
                         "Expected median survival per group (for the proxy)": "18, 24"}.items():
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_label("Horizon: planned follow-up").fill("36")
    page.get_by_role("button", name="Declare these facts").click()
    streamlit_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    figure = page.locator(".st-key-plan_headline .js-plotly-plot")
    figure.wait_for()
    box = figure.bounding_box()
    assert box["y"] + box["height"] / 2 < LAPTOP["height"], box  # half the proxy's curve in the first screen
    _screen(page, tmp_path, "plan-first-explore")
    page.get_by_role("button", name="Lock these settings").click()
    streamlit_idle(page)
    page.get_by_text("Locked: ε = 1").first.wait_for()
    page.locator('input[type="file"]').set_input_files(str(csv))
    streamlit_idle(page)
    page.get_by_text("Nothing of the file has been read").first.wait_for()
    assert page.get_by_text("143").count() == 0  # the file's row count is not shown before Release
    page.get_by_role("button", name="Release: read the file now").click()
    streamlit_idle(page)
    page.get_by_role("button", name="Release with ε = 1").click()
    page.get_by_role("button", name="Release and charge ε = 1").click()
    page.get_by_text("Released DP survival analysis").first.wait_for()
    streamlit_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    _screen(page, tmp_path, "plan-first-released")


@pytest.mark.parametrize("method", ["survival", "regression", "sparse", "fdr"])
def test_every_methods_plan_first_steps_cut_no_label(method, app_server, chromium_page, streamlit_idle):
    """At 1366×768 each method's declaration form, then its settings beside the proxy's figure, show every label
    whole (a checkbox in a quarter-width column was cut to 'Identical rows are differe…')."""
    from tests.support.browser_helpers import CUT

    page = chromium_page
    page.set_viewport_size(LAPTOP)
    page.goto(f"{app_server}/plan-first?plan_method={method}")
    streamlit_idle(page)
    page.get_by_role("button", name="Declare these facts").wait_for()
    assert page.evaluate(CUT) == []
    page.get_by_role("button", name="Declare these facts").click()
    streamlit_idle(page)
    page.get_by_role("button", name="Lock these settings").wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.evaluate(CUT) == []

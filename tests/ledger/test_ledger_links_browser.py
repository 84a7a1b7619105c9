"""In Chromium, on both stores: an honest custodian's clicks never hand the same people a fresh cap.

The cap is ε = 1 per person and one release at ε = 1 spends it. Then the same upload under another person column
or none, the file without its id column, with lower-cased ids or other text case, all find those people spent (the
Release button disabled with the reason); a file with a repeated row and no id column is refused with a message
naming the rows; an unrelated cohort with the same columns keeps its own budget.
"""

from __future__ import annotations

import re

import pytest
from tests.support.browser_helpers import capped_app, csv_text, opened, upload
from conftest import unfold, wait_for_idle

pytestmark = pytest.mark.browser

N = 120
ROWS = [(f"P{i:03d}", 70_000 + (i * 37) % 1000, 5 + 3 * i, [1, 0, 1, 1, 0][i % 5], ["Male", "Female"][i % 2],
         30 + (i * 7) % 50) for i in range(N)]


TRIAL = csv_text("patient,record,time,status,sex,age", ROWS)
COPIES = {
    "without the id column": csv_text("record,time,status,sex,age", [r[1:] for r in ROWS]),
    "ids lower-cased": csv_text("patient,record,time,status,sex,age", [(r[0].lower(), *r[1:]) for r in ROWS]),
    "text re-exported in lower case, columns reordered": csv_text(
        "age,sex,status,time,record", [(r[5], r[4].lower(), r[3], r[2], r[1]) for r in ROWS]),
}
UNRELATED = csv_text("record,time,status,sex,age", [(90_000 + i, *r[2:]) for i, r in enumerate(ROWS)])
REPEATED = csv_text("time,status,sex,age", [r[2:] for r in ROWS] + [ROWS[3][2:]] * 2)


@pytest.fixture(params=["sqlite", "postgres"])
def app(request, tmp_path):
    yield from capped_app(request, tmp_path)


def _person_column(page, option: str) -> None:
    box = page.get_by_role("combobox", name=re.compile("Person column"))
    box.click()
    page.keyboard.type(option)
    page.keyboard.press("Enter")
    wait_for_idle(page)
    assert box.input_value() == option


def _refused(page, what: str) -> None:
    page.get_by_text("Not enough budget left for this release").first.wait_for()
    assert page.get_by_role("button", name="Release with ε = 1").is_disabled(), what


def test_no_keying_choice_or_honest_re_export_gives_spent_people_a_fresh_cap(app, _browser, tmp_path,
                                                                             page_screenshot):
    with opened(_browser, f"{app}/survival?eps=1&sv_src=upload") as page:
        upload(page, tmp_path, "trial.csv", TRIAL)
        _person_column(page, "patient")
        page.get_by_text(f"It reads {N} people (persons named by column 'patient')").first.wait_for()
        page.get_by_role("button", name="Release with ε = 1").click()
        page.get_by_role("button", name="Release and charge ε = 1").click()
        wait_for_idle(page)
        page.get_by_text("Released ").first.wait_for()
        for option in ("(none: each whole row is one person)", "record"):
            _person_column(page, option)
            _refused(page, f"the same upload keyed by {option}")
        page_screenshot(page, "links-keying-switch-refused")
        for i, (variant, text) in enumerate(COPIES.items()):
            upload(page, tmp_path, f"copy{i}.csv", text)
            _refused(page, variant)
        upload(page, tmp_path, "repeated.csv", REPEATED)
        page.get_by_text(re.compile(r"rows 4 and 121 are identical and there is no person column")).first.wait_for()
        upload(page, tmp_path, "other-study.csv", UNRELATED)
        _person_column(page, "(none: each whole row is one person)")
        page.get_by_text("none of them was read by an earlier release").first.wait_for()
        assert page.get_by_role("button", name="Release with ε = 1").is_enabled()


def _stream(p_values, column: str = "p", labels: bool = False) -> str:
    header = column + (",gene" if labels else "")
    return header + "\n" + "\n".join(f"{p:.6g}" + (f",g{i}" if labels else "") for i, p in enumerate(p_values)) + "\n"


def _state_eta(page) -> None:
    """Tick the statement of η, which sits with the stream's folded settings, and see it ticked once the page is idle.

    A click that lands while the upload's run is still drawing the page can be redrawn away; tick again then.
    """
    statement = page.get_by_text("I state that one person moves every log p").first
    box = page.get_by_role("checkbox", name=re.compile("I state that one person moves every log p"))
    for _ in range(3):
        unfold(page, statement)
        statement.click()
        wait_for_idle(page)
        if box.is_checked():
            return
    raise AssertionError("the η statement would not stay ticked")


def test_an_fdr_stream_of_one_cohort_meets_its_budget_however_it_is_re_uploaded(app, _browser, tmp_path):
    import numpy as np

    p = np.random.default_rng(3).random(200) ** 3
    with opened(_browser, f"{app}/fdr?fdr_src=upload&fdr_etahow=stated&eps=1") as page:
        upload(page, tmp_path, "stream.csv", _stream(p))
        _state_eta(page)
        wait_for_idle(page)
        page.get_by_text("Name the cohort the p-values came from").first.wait_for()
        name = page.get_by_role("textbox", name="Name of the cohort")
        name.fill("Trial A")
        name.press("Enter")
        size = page.get_by_role("spinbutton", name="People in it")
        size.fill("300")
        size.press("Enter")
        wait_for_idle(page)
        page.get_by_text("It reads 300 people (persons named by declared cohort 'Trial A'").first.wait_for()
        button = page.get_by_role("button", name=re.compile(r"^Release with ε = 1"))
        if button.is_disabled():  # say which reason holds it, rather than time out on the click
            raise AssertionError(page.locator('[data-testid="stAlertContentInfo"]').all_inner_texts())
        button.click()
        page.get_by_role("button", name=re.compile(r"^Release and charge ε = 1")).click()
        wait_for_idle(page)
        page.get_by_text("Released ").first.wait_for()
        for i, text in enumerate([_stream(p, "pvalue"), _stream(p, labels=True), _stream([*p, 0.5]),
                                  _stream(np.random.default_rng(4).random(150))]):  # …and a second stream
            upload(page, tmp_path, f"stream{i}.csv", text)
            statement = page.get_by_role("checkbox", name=re.compile("I state that one person moves every log p"))
            if not statement.is_checked():  # a file with other columns asks for the statement again
                _state_eta(page)
                wait_for_idle(page)
            page.get_by_text("Not enough budget left for this release").first.wait_for()
            assert page.get_by_role("button", name=re.compile(r"^Release with ε = 1")).is_disabled(), i

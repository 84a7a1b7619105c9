"""AppTest of the plan-first page: declare → explore on the proxy → lock → upload → Release.

The file's bytes are read only when Release is pressed (the uploader's ``getvalue`` and the parser are counted),
and the release is charged in the ledger with its settings "fixed before the private rows were read". A file that
does not match the declared facts is refused at Release with a named error, and nothing is charged.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import FIXED
from tests.support.page_views import chart_keys, open_view
from tests.support.pages import ok
from tests.support.uploads import FakeUpload
from ui.plan_first.survival import VIEWS
from ui.state import DEFAULT_DATA_DIR

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "plan_first.py")
ROWS = "\n".join(f"P{i:03d},{1 + (7 * i) % 40},{int(i % 3 != 0)},{'AB'[i % 2]}" for i in range(143))  # under the declared bound of 150
GOOD = ("id,months,died,arm\n" + ROWS + "\n").encode()


def _upload(data: bytes) -> FakeUpload:
    return FakeUpload(data, "trial.csv")


def _declared_and_locked() -> AppTest:
    at = ok(AppTest.from_file(PAGE, default_timeout=120).run())
    assert not chart_keys(at)  # nothing to draw before the facts are declared
    for key, value in {"plan_time": "months", "plan_event": "died", "plan_group": "arm", "plan_labels": "A, B",
                       "plan_person": "id", "plan_medians": "18, 24"}.items():
        at.text_input(key=key).set_value(value)
    at.number_input(key="plan_n").set_value(150)
    at.number_input(key="plan_horizon").set_value(36.0)
    ok(at.button[0].click().run())  # the form's submit button
    for view in VIEWS:  # every view of the survival page, drawn on the proxy
        ok(open_view(at, "plan_view", view))
        assert len(chart_keys(at)) == 1, (view, chart_keys(at))
    at.select_slider(key="eps").set_value(2.0).run()
    ok(at.button(key="plan_lock").click().run())
    assert any("Locked: ε = 2" in s.value for s in at.success), [s.value for s in at.success]
    return at


def _records():
    return open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()


def test_the_file_is_read_only_when_release_is_pressed_and_the_release_is_fixed_before_reading(monkeypatch, parses):
    at = _declared_and_locked()
    upload = _upload(GOOD)
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: upload)
    ok(at.run())
    open_view(at, "plan_view", VIEWS[1])  # exploring on with the file held
    ok(at.run())
    assert upload.reads == 0 and parses == []  # held, never opened: no preview, no count, no check
    assert not [m.value for m in at.markdown if "143" in m.value]  # nothing says how many rows it has
    ok(at.button(key="plan_read").click().run())
    assert upload.reads == 1 and len(parses) == 1
    ok(at.button(key="release_button_plan_survival").click().run())
    ok(at.button(key="release_confirm_plan_survival").click().run())
    assert upload.reads == 1 and len(parses) == 1  # read once, at Release
    bundle = at.session_state["_release_last_plan_survival"]
    assert bundle.epsilon == 2.0 and bundle.settings_choice.how == FIXED
    assert "fixed before the private rows were read" in bundle.statement
    assert "time_col='months'" in bundle.script and "EPSILON = 2.0" in bundle.script  # its reproduce.py
    (record,) = _records()
    assert record.settings_choice().how == FIXED and record.settings_choice().label == (
        "fixed before the private rows were read")
    assert record.epsilon == 2.0 and record.persons == 143


def test_a_file_that_breaks_the_declared_facts_is_refused_at_release_and_charges_nothing(monkeypatch, parses):
    at = _declared_and_locked()
    bad = GOOD.replace(b"\nP004,29,1,A\n", b"\nP004,29,7,A\n")
    assert bad != GOOD
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(bad))
    ok(at.run())
    at.button(key="plan_read").click().run()
    assert not at.exception
    assert any("Column 'died', row 6" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.button(key="plan_read").disabled and "_release_last_plan_survival" not in at.session_state
    assert not _records()


def test_changing_the_settings_drops_the_file_read_for_the_old_ones(monkeypatch, parses):
    at = _declared_and_locked()
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(GOOD))
    at.run()
    ok(at.button(key="plan_read").click().run())
    assert len(parses) == 1
    ok(at.button(key="plan_unlock").click().run())
    assert "_plan_cohort" not in at.session_state and not [b for b in at.button if b.key == "plan_read"]


def test_the_release_statement_lists_no_private_view(monkeypatch):
    at = _declared_and_locked()
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(GOOD))
    at.run()
    at.button(key="plan_read").click().run()
    at.button(key="release_button_plan_survival").click().run()
    ok(at.button(key="release_confirm_plan_survival").click().run())
    assert at.session_state["_release_last_plan_survival"].settings_choice.viewed == ()


def test_the_app_lists_the_page_and_a_page_outside_the_navigation_names_it():
    at = AppTest.from_file(str(Path(PAGE).parent.parent / "app.py"), default_timeout=120).run()
    ok(at.switch_page("app_pages/plan_first.py").run())
    assert at.title[0].value.startswith("Plan first")

    def method_page():
        from ui.first_screen import plan_first_link

        plan_first_link("survival")

    alone = ok(AppTest.from_function(method_page).run())
    assert alone.caption[0].value.startswith("Plan first: fix the settings on simulated data")

"""AppTest of the plan-first page's regression path: declare → explore on the proxy → lock → upload → Release.

As for survival (``tests/plan/test_plan_first_page.py``): the file's bytes are read only when Release is pressed (the
uploader's ``getvalue`` and the parser are counted), the release is charged with its settings "fixed before the
private rows were read", and a file that does not match the declared facts is refused at Release, charging nothing.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore import regression as R
from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import FIXED
from tests.support.page_views import chart_keys, open_view
from tests.support.pages import ok
from tests.support.uploads import FakeUpload
from ui.plan_first.regression import VIEWS
from ui.state import DEFAULT_DATA_DIR

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "plan_first.py")
ROWS = "\n".join(f"P{i:03d},{round(-4 + (37 * i) % 80 / 10, 1)},{(i % 7) / 7:.4f},{(i % 3) / 3:.4f},"
                 f"{((i * 11) % 20) / 10 - 1:.1f}" for i in range(143))  # under the declared bound of 150
GOOD = ("id,ic50,a,b,c\n" + ROWS + "\n").encode()


def _upload(data: bytes) -> FakeUpload:
    return FakeUpload(data, "cells.csv")


def _declared_and_locked(robust: bool = False) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["plan_method"] = "regression"  # the link from the regression page
    ok(at.run())
    assert not chart_keys(at)  # nothing to draw before the facts are declared
    for key, value in {"plan_rg_y": "ic50", "plan_rg_x": "a, b, c", "plan_rg_person": "id",
                       "plan_rg_xlo": "0, 0, -1", "plan_rg_xhi": "1"}.items():
        at.text_input(key=key).set_value(value)
    for key, value in {"plan_rg_ylo": -5.0, "plan_rg_yhi": 5.0, "plan_rg_n": 150, "plan_rg_ntest": 30}.items():
        at.number_input(key=key).set_value(value)
    (declare,) = [b for b in at.button if b.label == "Declare these facts"]
    ok(declare.click().run())
    for view in VIEWS:  # the regression page's main views, drawn on the proxy
        ok(open_view(at, "plan_rg_view", view))
        assert len(chart_keys(at)) == 1, (view, chart_keys(at))
    at.select_slider(key="eps").set_value(2.0).run()
    if robust:
        ok(at.radio(key="plan_rg_method").set_value(R.METHOD).run())
    ok(at.button(key="plan_rg_lock").click().run())
    assert any("Locked: ε = 2" in s.value for s in at.success), [s.value for s in at.success]
    return at


def _records():
    return open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()


def _release(at: AppTest) -> AppTest:
    ok(at.button(key="release_button_plan_regression").click().run())
    return ok(at.button(key="release_confirm_plan_regression").click().run())


def test_the_file_is_read_only_when_release_is_pressed_and_the_release_is_fixed_before_reading(monkeypatch, parses):
    at = _declared_and_locked()
    upload = _upload(GOOD)
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: upload)
    ok(at.run())
    open_view(at, "plan_rg_view", VIEWS[1])  # exploring on with the file held
    ok(at.run())
    assert upload.reads == 0 and parses == []  # held, never opened: no preview, no count, no check
    assert not [m.value for m in at.markdown if "143" in m.value]  # nothing says how many rows it has
    ok(at.button(key="plan_rg_read").click().run())
    assert upload.reads == 1 and len(parses) == 1
    _release(at)
    assert upload.reads == 1 and len(parses) == 1  # read once, at Release
    bundle = at.session_state["_release_last_plan_regression"]
    assert bundle.method == R.ADASSP and bundle.epsilon == 2.0 and bundle.delta == 1.0 / 120**2
    assert bundle.settings_choice.how == FIXED and bundle.settings_choice.viewed == ()
    assert "fixed before the private rows were read" in bundle.statement
    assert "response='ic50'" in bundle.script and "EPSILON, SEED, PRIORS = 2.0, 0" in bundle.script  # reproduce.py
    (record,) = _records()
    assert record.settings_choice().how == FIXED and record.settings_choice().label == (
        "fixed before the private rows were read")
    assert record.epsilon == 2.0 and record.persons == 113  # the 143 rows less the 30 held out


def test_robust_private_lr_is_released_with_its_locked_split_and_thresholds(monkeypatch, parses):
    at = _declared_and_locked(robust=True)
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(GOOD))
    ok(at.run())
    ok(at.button(key="plan_rg_read").click().run())
    _release(at)
    bundle = at.session_state["_release_last_plan_regression"]
    assert bundle.method == R.METHOD and bundle.epsilon == 2.0 and bundle.delta == 0.0
    assert bundle.public_params["split (nxx, nxy, nyy)"] == list(R.DEFAULT_SPLIT)
    assert bundle.public_params["threshold tuning"]["n"] == 120  # tuned for free at the declared bound
    assert bundle.settings_choice.how == FIXED


def test_a_file_that_breaks_the_declared_facts_is_refused_at_release_and_charges_nothing(monkeypatch, parses):
    at = _declared_and_locked()
    bad = GOOD.replace(b"\nP004,", b"\nP004,high", 1)
    assert bad != GOOD
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(bad))
    ok(at.run())
    at.button(key="plan_rg_read").click().run()
    assert not at.exception
    assert any("Column 'ic50', row 6" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.button(key="plan_rg_read").disabled and "_release_last_plan_regression" not in at.session_state
    assert not _records()


def test_changing_the_settings_drops_the_file_read_for_the_old_ones(monkeypatch, parses):
    at = _declared_and_locked()
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(GOOD))
    at.run()
    ok(at.button(key="plan_rg_read").click().run())
    assert len(parses) == 1
    ok(at.button(key="plan_rg_unlock").click().run())
    assert "_plan_rg_cohort" not in at.session_state and not [b for b in at.button if b.key == "plan_rg_read"]


def test_the_regression_page_links_to_the_plan_first_path_where_a_file_is_uploaded():
    page = Path(PAGE).parent / "regression.py"
    at = AppTest.from_file(str(page), default_timeout=120)
    at.query_params["rg_src"] = "upload"
    at.run()
    assert any(c.value.startswith("Plan first: fix the settings on simulated data") for c in at.caption), [
        c.value for c in at.caption]

"""The regression page's private choice of an upload's ranges (ui.private_bounds): charged to the file's persons in the
ledger, it sets the range inputs, stands in for the domain-knowledge box, and the release with its ranges says they
were chosen by a charged private selection; an edit after it is recorded as a change."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import streamlit as st

from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import CHANGED, SELECTED
from tests.support.pages import ok, regression_release, regression_upload
from tests.support.uploads import FakeUpload, diabetes_like_csv
from ui.private_bounds import declared_key
from ui.state import DEFAULT_DATA_DIR

METHOD = "Private choice of clipping ranges"


def _choose(at, data: bytes):
    """Declare outer ranges (public: typed, not read off the file) and press the button."""
    at.number_input(key="rg_pb_ylo").set_value(-200.0)
    at.number_input(key="rg_pb_yhi").set_value(400.0)
    at.number_input(key="rg_pb_xlo").set_value(0.0)
    at.number_input(key="rg_pb_xhi").set_value(400.0)
    at.run()
    at.button(key="rg_pb_choose").click().run()
    ok(at)
    return at.session_state["rg_private_ranges"]["ranges"]


def test_a_private_choice_of_ranges_is_charged_sets_the_ranges_and_the_release_says_so(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    data = diabetes_like_csv()  # 200 rows: age, bmi, chol and the response 'target'
    at = regression_upload(data, confirmed=False)  # the domain-knowledge box is not ticked
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        ok(at)
        assert at.button(key="release_button_regression").disabled  # ranges neither confirmed nor chosen
        ranges = _choose(at, data)
        ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
        (choice,) = ledger.records()
        assert choice.method == METHOD and choice.epsilon == 1.0 and choice.delta == 0.0 and choice.persons == 200
        assert ledger.summary()[0]["ε spent"] == pytest.approx(1.0)  # in the spend, like any release
        assert choice.params["columns"] == ["target", "age", "bmi", "chol"]
        assert ranges.names == ("target", "age", "bmi", "chol") and ranges.epsilon == 1.0
        assert all(lo < hi for lo, hi in zip(ranges.lower, ranges.upper))
        assert (at.number_input(key="rg_ylo").value, at.number_input(key="rg_yhi").value) == (ranges.lower[0],
                                                                                                ranges.upper[0])
        assert any("charged ε = 1" in s.value for s in at.success)
        assert not at.button(key="release_button_regression").disabled  # the choice stands in for the box
        bundle = regression_release(at)
    # the release's ranges are the choice's: its public centres are their midpoints
    mid = (np.array(ranges.lower[1:]) + np.array(ranges.upper[1:])) / 2
    assert bundle.public_params["feature centre"] == pytest.approx(mid.tolist())
    assert bundle.settings_choice.how == SELECTED
    assert "chosen by a charged private selection" in bundle.statement and "charged ε = 1" in bundle.statement
    record = ledger.records()[-1]
    assert record.settings_choice() == bundle.settings_choice
    assert record.params["response range"] == [ranges.lower[0], ranges.upper[0]]


def test_a_range_edited_after_the_choice_is_a_change_and_needs_the_box(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    data = diabetes_like_csv()
    at = regression_upload(data, confirmed=False)
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        ranges = _choose(at, data)
        at.number_input(key="rg_yhi").set_value(ranges.upper[0] + 1.0).run()
        ok(at)
        assert at.button(key="release_button_regression").disabled  # no longer the choice's ranges
        at.checkbox(key="rg_ranges_ok").check().run()
        bundle = regression_release(at)
    assert bundle.settings_choice.how == CHANGED and "response range" in bundle.settings_choice.changed


def test_a_feature_can_have_its_own_declared_outer_range(monkeypatch):
    """One row of the declared table edited (a feature on its own scale): that feature's candidates lie in its own
    range, the others keep the shared one; a blank cell is refused before anything is charged."""
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    data = diabetes_like_csv()
    at = regression_upload(data, confirmed=False)
    table = declared_key("rg", ["age", "bmi", "chol"], 0.0, 400.0)
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        at.number_input(key="rg_pb_xlo").set_value(0.0)
        at.number_input(key="rg_pb_xhi").set_value(400.0)
        at.run()
        at.session_state[table] = {"edited_rows": {1: {"declared minimum": None}}, "added_rows": [],
                                   "deleted_rows": []}
        at.run()  # the button takes the declared ranges drawn with it
        at.button(key="rg_pb_choose").click().run()
        assert any("Private choice not made" in e.value for e in at.error)
        assert not open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()  # nothing charged
        at.session_state[table] = {"edited_rows": {1: {"declared minimum": 10.0, "declared maximum": 60.0}},
                                   "added_rows": [], "deleted_rows": []}
        ranges = _choose(at, data)
    (choice,) = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()
    assert choice.params["declared outer ranges"][1:] == [[0.0, 400.0], [10.0, 60.0], [0.0, 400.0]]
    assert 10.0 <= ranges.lower[2] < ranges.upper[2] <= 60.0  # bmi, inside its own declared range
    assert ranges.outer[2] == (10.0, 60.0) and ranges.outer[1] == ranges.outer[3] == (0.0, 400.0)

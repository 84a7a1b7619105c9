"""The survival page's charged private choice of the grid (ui.private_grid) on an upload: charged to the file's
persons in the ledger, it sets the grid controls, and the release on that grid says it was chosen by a charged
private selection."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.support.page_views import unfold_settings

from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import SELECTED
from tests.support.pages import SURVIVAL_PAGE, ok, survival_upload
from tests.support.uploads import FakeUpload
from ui.state import DEFAULT_DATA_DIR

METHOD = "Private choice of the survival grid"
N = 200  # 8 blocks of 25


def _csv() -> bytes:
    """N people followed up to a year, each row its own person (no two alike)."""
    rng = np.random.default_rng(0)
    time = np.round(rng.exponential(150.0, N) + np.arange(N) * 1e-3, 3)
    event = (rng.random(N) < 0.7).astype(int)
    return ("time,event\n" + "\n".join(f"{t},{e}" for t, e in zip(time, event))).encode()


def test_a_private_choice_of_the_grid_is_charged_sets_the_grid_and_the_release_says_so(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    data = _csv()
    at = survival_upload(data)
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        ok(at)
        at.number_input(key="sv_width").set_value(5).run()  # moved by hand after the previews: a change …
        at.toggle(key="sv_grid_private").set_value(True).run()
        ok(at)
        at.button(key="sv_grid_choose").click().run()
        ok(at)
        ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
        (choice,) = ledger.records()
        assert choice.method == METHOD and choice.epsilon == 0.5 and choice.delta == 0.0 and choice.persons == N
        assert ledger.summary()[0]["ε spent"] == pytest.approx(0.5)  # in the spend, like any release
        chosen = at.session_state["sv_private_grid"][1]
        assert (chosen.width, chosen.unit) in chosen.candidates and chosen.blocks == N // 25
        assert (at.selectbox(key="sv_unit").value, at.number_input(key="sv_width").value) == (chosen.unit,
                                                                                               chosen.width)
        assert any("charged ε = 0.5" in s.value for s in at.success)
        at.button(key="release_button_survival").click().run()
        at.button(key="release_confirm_survival").click().run()
        ok(at)
    bundle = at.session_state["_release_last_survival"]
    assert bundle.settings_choice.how == SELECTED  # … that the paid-for choice replaced
    assert "chosen by a charged private selection" in bundle.statement and "charged ε = 0.5" in bundle.statement
    assert ledger.records()[-1].settings_choice() == bundle.settings_choice
    assert ledger.records()[-1].persons == N  # the release and its choice charge the same persons


def test_with_groups_compared_the_blocks_judge_every_groups_curve(monkeypatch):
    """Myeloid (646 people, two declared arms compared): the choice runs on the groups' release and is charged."""
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "100")
    at = AppTest.from_file(SURVIVAL_PAGE, default_timeout=120)
    unfold_settings(at, "survival")
    at.session_state["sv_data"] = "myeloid"
    at.session_state["sv_grid_private"] = True
    at.run()
    at.button(key="sv_grid_choose").click().run()
    ok(at)
    (choice,) = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()
    assert choice.method == METHOD and choice.persons == 646
    chosen = at.session_state["sv_private_grid"][1]
    assert chosen.blocks == 25 and (at.number_input(key="sv_width").value, at.selectbox(key="sv_unit").value) == (
        chosen.width, chosen.unit)

"""The Release button on the deployment's ledger: one confirmation, charge before values, caps across sessions."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcore.ledger import CHARGED, FAILED, RELEASED
from dpcore.ledger.config import LedgerConfig, open_ledger
from tests.support.pages import toy_release_page
from ui.state import DEFAULT_DATA_DIR

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _session(mode: str = "ok") -> AppTest:
    at = AppTest.from_function(toy_release_page, default_timeout=30)
    at.session_state["mode"] = mode
    return at.run()


def _ledger():
    return open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))


def test_one_confirmation_is_one_release_charged_before_its_values_are_shown():
    at = _session()
    at.button(key="release_button_toy").click().run()
    at.button(key="release_button_toy").click().run()  # pressing again only keeps the dialog open
    dialog = " ".join(m.value for m in at.markdown)
    assert "This release costs **ε = 1**" in dialog and "left for everyone read: ε = 10" in dialog
    assert "by basic composition: ε = 0, δ = 0 before this release, ε = 1, δ = 0 after it" in dialog
    assert "By the tight accountant at δ = 0.001 (the figure the cap is checked on): ε = 0 before" in dialog
    assert not _ledger().records()  # nothing charged until confirmed
    at.button(key="release_confirm_toy").click().run()
    assert not at.exception
    assert any("Released Toy counts" in s.value for s in at.success)
    assert not [b for b in at.button if b.key == "release_confirm_toy"]  # the dialog closed
    (record,) = _ledger().records(with_values=True)
    assert record.id == at.session_state["charged_before_drawing"]
    assert record.status == RELEASED and json.loads(record.values)["tables"]["counts"][1]["noisy count"] == 5
    assert (record.page, record.params) == ("toy", {"bins": 2})


def test_cancel_charges_nothing():
    at = _session()
    at.button(key="release_button_toy").click().run()
    at.button(key="release_cancel_toy").click().run()
    assert not [b for b in at.button if b.key == "release_confirm_toy"] and not _ledger().records()


def test_a_release_that_fails_after_its_charge_keeps_the_charge():
    at = _session("fail")
    at.button(key="release_button_toy").click().run()
    at.button(key="release_confirm_toy").click().run()
    assert not at.exception
    assert any("failed after it was charged (RuntimeError)" in e.value and "ε = 1, stays spent" in e.value
               for e in at.error)
    (record,) = _ledger().records()
    assert record.status == FAILED and record.status != CHARGED
    assert _ledger().spent_basic(record.dataset) == (1.0, 0.0)


def test_the_cap_holds_across_sessions_and_each_session_sees_the_deployment_total(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "1.5")
    first, second = _session(), _session()
    for at in (first, second):
        at.button(key="release_button_toy").click().run()
    first.button(key="release_confirm_toy").click().run()
    assert any("Released Toy counts" in s.value for s in first.success)
    second.button(key="release_confirm_toy").click().run()  # its dialog was opened before the first release
    assert any("Release refused" in e.value and "would take 1 of them past the per" in e.value for e in second.error)
    assert len(_ledger().records()) == 1
    app = AppTest.from_file(APP, default_timeout=60).run()  # a third session (a reload) sees the same total
    sidebar = " ".join(m.value for m in app.sidebar.markdown)
    assert "ε 0.999 of 1.5 (their ε add up to 1) spent · 1 release" in sidebar  # tight: ε 0.9986
    assert "in this session" not in sidebar


def test_sidebar_marks_this_sessions_releases():
    at = AppTest.from_file(APP, default_timeout=60).run()
    ledger = _ledger()
    key = ledger.dataset_key("toy")
    ledger.charge(key, "Toy counts", 0.5, label="Toy (bundled)", session=at.session_state["_dp_session"])
    ledger.charge(key, "Toy counts", 0.25, label="Toy (bundled)", session="another tab")
    at.run()
    assert "of 10 (their ε add up to 0.75) spent · 2 releases (1 in this session)" in " ".join(
        m.value for m in at.sidebar.markdown)


def test_ledger_page_shows_the_configured_ceiling_and_only_lowers_a_cap(monkeypatch):
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "4")
    ledger = _ledger()
    key = ledger.dataset_key("toy")
    ledger.charge(key, "Toy counts", 1.0, label="Toy (bundled)", session="elsewhere")
    at = AppTest.from_file(str(Path(APP).parent / "app_pages" / "ledger.py"), default_timeout=30).run()
    assert not at.exception
    assert any("caps this data set at ε = 4" in c.value for c in at.caption)
    assert at.number_input(key="cap_eps").value == 4.0 and at.number_input(key="cap_eps").max == 4.0
    releases, per_person, totals = at.dataframe
    assert releases.value["this session"].iloc[0] == "" and totals.value["key"].iloc[0] == key
    at.number_input(key="cap_eps").set_value(2.0)
    at.button[0].click().run()
    assert _ledger().budget(key).epsilon == 2.0 and at.dataframe[2].value["ε cap"].iloc[0] == "2"
    assert at.get("download_button")  # the data set's history report is offered


def test_the_button_is_disabled_with_the_reason_when_the_budget_left_cannot_cover_the_release(monkeypatch):
    """A release over the budget is not offered and refused after confirming, but disabled, saying what is left and what it costs."""
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "1.5")
    _ledger().charge(_ledger().dataset_key("toy"), "Toy counts", 1.0, label="Toy (bundled)")
    at = _session()
    assert at.button(key="release_button_toy").disabled
    (reason,) = [i.value for i in at.info if "Not enough budget left" in i.value]
    assert "costs ε = 1" in reason and "would take 1 of them past the per-person cap" in reason
    monkeypatch.setenv("DPCORE_DEFAULT_EPSILON_CAP", "2")
    assert not _session().button(key="release_button_toy").disabled  # exactly what is left: offered


def test_the_persons_keyed_digests_are_computed_once_per_session_and_scope(monkeypatch):
    """A move of ε redraws the panel; the per-person MACs (about 0.75 µs each) are not recomputed for it, and another
    scope gets its own digests, never these."""
    from dpcore.ledger import rules

    calls = []
    real = rules.row_keys
    monkeypatch.setattr(rules, "row_keys", lambda secret, persons, scope: calls.append(scope)
                        or real(secret, persons, scope))

    def page():
        import numpy as np
        import streamlit as st

        from dpcore.ledger import Persons, RecordsRead
        from dpcore.ledger.keys import LOCAL_SCOPE
        from ui import get_ledger
        from ui.release import _holding

        persons = Persons.of_column(np.arange(50), "id")
        holding = _holding(get_ledger(), persons, RecordsRead.of([np.arange(50)]), "fp",
                           st.session_state.get("scope", LOCAL_SCOPE))
        st.session_state["key"], st.session_state["digests"] = holding.key, len(holding.persons)

    at = AppTest.from_function(page, default_timeout=30).run()
    first = at.session_state["key"]
    at.run()
    assert len(calls) == 1 and at.session_state["key"] == first and at.session_state["digests"] == 50
    at.session_state["scope"] = "team-a"
    at.run()
    assert len(calls) == 2 and calls[-1] == "team-a" and at.session_state["key"] != first

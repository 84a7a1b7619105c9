"""Every release says how its settings were chosen: in its bundle and statement, its report, and the ledger.

Through the survival page (AppTest): a release whose ε moved after the private preview says so everywhere; one made
with the settings in force when the rows were first shown says they were fixed. On every store (memory, SQLite,
PostgreSQL) the record keeps the choice, a release recorded without one reads "not recorded", and a ledger of
schema 5 migrates.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.page_views import unfold_settings

from dpcore.ledger import Budget, Ledger
from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.ledger.history import history_report
from dpcore.ledger.schema import MIGRATIONS
from dpcore.ledger.stores import PostgresStore, SQLiteStore
from dpcore.provenance import (
    CHANGED, FINDER, FIXED, NON_PRIVATE_ANSWER, PRIVATE_PREVIEWS, PUBLIC, SELECTED, UNKNOWN, SettingsChoice, compare,
)
from dpcore.reporting.release import ReleaseBundle
from dpcore.reporting.report import html_report
from ui.state import DEFAULT_DATA_DIR

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "survival.py")
TUNED = SettingsChoice(CHANGED, ("ε", "grid"), (PRIVATE_PREVIEWS, NON_PRIVATE_ANSWER))


# -- the rule ------------------------------------------------------------------------------------------------------
def test_a_setting_moved_away_and_set_back_was_still_chosen_after_seeing_the_rows():
    base = {"ε": "1", "grid": "a"}
    assert compare(base, dict(base)).how == FIXED
    moved = compare(base, dict(base), moved=("grid",), viewed=(PRIVATE_PREVIEWS,))
    assert moved.how == CHANGED and moved.changed == ("grid (moved and set back)",)
    assert "grid (moved and set back) changed after private previews were viewed" in moved.sentence()


def test_a_setting_chosen_by_a_charged_selection_is_not_counted_as_tuned():
    base, released = {"ε": "1", "grid": "a"}, {"ε": "0.5", "grid": "a"}
    paid = {"ε": ("0.5", "ε = 0.5 by a private selection charged ε = 0.2")}
    chosen = compare(base, released, moved=("ε",), selected=paid, viewed=(FINDER,))
    assert chosen.how == SELECTED and "charged ε = 0.2" in chosen.sentence()
    other = compare(base, {"ε": "0.7", "grid": "a"}, selected=paid)  # released with another value: tuned
    assert other.how == CHANGED and other.changed == ("ε",)
    both = compare(base, {"ε": "0.5", "grid": "b"}, selected=paid)
    assert both.how == CHANGED and both.changed == ("grid",) and both.selections == (paid["ε"][1],)


def test_each_way_says_what_it_means_for_the_guarantee():
    assert "holds as proved" in SettingsChoice(FIXED).meaning()
    assert "holds as proved" in SettingsChoice(PUBLIC).meaning()
    assert "compose" in SettingsChoice(SELECTED).meaning()
    assert "assumes settings fixed in advance" in TUNED.meaning() and "Papernot & Steinke 2022" in TUNED.meaning()
    assert SettingsChoice.from_json(TUNED.to_json()) == TUNED and SettingsChoice.from_json("").how == UNKNOWN
    with pytest.raises(ValueError):
        SettingsChoice("guessed")


# -- the bundle and its report ----------------------------------------------------------------------------------------
def _bundle(settings: SettingsChoice | None = None) -> ReleaseBundle:
    return ReleaseBundle(method="Toy counts", dataset="Toy", fingerprint="", epsilon=1.0, delta=0.0,
                         mechanisms=("discrete Laplace",), public_params={"bins": 2},
                         tables={"counts": pd.DataFrame({"bin": [1, 2], "noisy count": [3, 5]})},
                         settings=settings.to_dict() if settings else {})


def test_the_bundle_its_json_and_its_report_say_how_the_settings_were_chosen():
    bundle = _bundle(TUNED)
    assert TUNED.sentence() in bundle.statement and "fixed without looking" not in bundle.statement
    data = json.loads(bundle.to_json())
    assert data["settings_chosen"]["how"] == CHANGED and data["settings_chosen"]["changed"] == ["ε", "grid"]
    assert ReleaseBundle.from_json(bundle.to_json()).settings_choice == TUNED
    report = html_report([bundle])
    assert "ε, grid changed after previews of the private rows" in report  # the parameters' heading
    assert "Papernot &amp; Steinke 2022" in report
    fixed = html_report([_bundle(SettingsChoice(FIXED))])
    assert "fixed before the private rows were read" in fixed and "Public inputs (fixed without looking" in fixed


# -- the stores -----------------------------------------------------------------------------------------------------
@pytest.fixture(params=["memory", "sqlite", "postgres"])
def ledger(request, tmp_path):
    cap = Budget(10.0, 1e-5)
    if request.param == "memory":
        yield Ledger(secret=b"s" * 32, default_cap=cap)
    elif request.param == "sqlite":
        store = SQLiteStore(tmp_path / "ledger.sqlite3")
        store.migrate()
        yield Ledger(store, secret=b"s" * 32, default_cap=cap)
    else:
        from conftest import postgres_schema

        with postgres_schema(request.getfixturevalue("postgres_server")) as url:
            store = PostgresStore(url)
            store.migrate()
            yield Ledger(store, secret=b"s" * 32, default_cap=cap)


def test_every_store_keeps_how_a_releases_settings_were_chosen(ledger):
    tuned = ledger.charge("toy", "KM", 1.0, label="Toy", settings=TUNED)
    fixed = ledger.charge("toy", "KM", 1.0, settings=SettingsChoice(FIXED, (), (PRIVATE_PREVIEWS,)))
    unrecorded = ledger.charge("toy", "KM", 1.0)
    kept = {r.id: r for r in ledger.records("toy")}
    assert kept[tuned.id].settings_choice() == TUNED
    assert kept[fixed.id].settings_choice().how == FIXED
    assert kept[unrecorded.id].settings_choice().how == UNKNOWN
    assert kept[unrecorded.id].settings_choice().label == "not recorded"
    history = history_report("Toy", ledger.records("toy", with_values=True))
    assert "changed after previews that read the private rows: ε, grid" in history and "not recorded" in history


def test_a_schema_5_ledger_migrates_and_its_releases_read_not_recorded(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    path = data_dir / "ledger.sqlite3"
    with sqlite3.connect(path) as db:  # a ledger written before releases kept how their settings were chosen
        for steps in MIGRATIONS[:5]:
            for statement in steps:
                db.execute(statement.format(real="REAL", id="INTEGER PRIMARY KEY AUTOINCREMENT", norowid=""))
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (5)")
        db.execute("INSERT INTO datasets (key, label, created) VALUES ('old', 'old.csv', 't')")
        db.execute("INSERT INTO releases (dataset, method, epsilon, delta, parts, params, relation, time, page, "
                   "session, status, release_json) VALUES ('old', 'KM', 1, 0, '{}', '{}', 'replace-one', 't', 'p', "
                   "'s', 'released', '')")
    store = SQLiteStore(path)
    store.migrate()
    assert store.schema_version() == len(MIGRATIONS) == 6
    (old,) = Ledger(store).records("old")
    assert old.settings_choice().how == UNKNOWN


# -- through a real page ------------------------------------------------------------------------------------------------
def _survival() -> AppTest:
    at = unfold_settings(AppTest.from_file(PAGE, default_timeout=120), "survival").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _release(at: AppTest):
    at.button(key="release_button_survival").click().run()
    at.button(key="release_confirm_survival").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state["_release_last_survival"]


def _records():
    return open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()


def test_a_release_after_its_epsilon_moved_over_the_private_preview_says_so_in_bundle_report_and_ledger():
    at = _survival()  # bundled rows charge their persons: they are private to the ledger
    at.select_slider(key="eps").set_value(2.0).run()
    bundle = _release(at)
    choice = bundle.settings_choice
    assert choice.how == CHANGED and "ε" in choice.changed
    assert set(choice.viewed) == {PRIVATE_PREVIEWS, NON_PRIVATE_ANSWER}
    assert "changed after previews that read the private rows" in bundle.statement
    assert json.loads(bundle.to_json())["settings_chosen"]["how"] == CHANGED
    report = html_report([bundle])
    assert "Its settings were changed after previews that read the private rows" in report
    (record,) = _records()
    assert record.settings_choice() == choice


def test_a_release_with_the_settings_first_shown_says_they_were_fixed_and_what_was_seen():
    at = AppTest.from_file(PAGE, default_timeout=120)
    unfold_settings(at, "survival")
    at.session_state["sv_acc_open"] = True  # the smallest-ε finder open on the private rows
    at.run()
    bundle = _release(at)
    assert bundle.settings_choice.how == FIXED and FINDER in bundle.settings_choice.viewed
    assert "Its settings were fixed before the private rows were read" in bundle.statement
    (record,) = _records()
    assert record.settings_choice().how == FIXED


def test_the_dialog_says_how_the_settings_were_chosen_before_the_charge():
    at = _survival()
    at.select_slider(key="eps").set_value(2.0).run()
    at.button(key="release_button_survival").click().run()
    assert any("Its settings were changed after previews that read the private rows: " in m.value
               for m in at.markdown), [m.value for m in at.markdown]
    assert not _records()  # said before anything is charged


def test_an_upload_whose_horizon_moved_after_its_preview_says_so(monkeypatch):
    import streamlit as st

    class Upload:
        name = "cohort.csv"

        def getvalue(self) -> bytes:
            rows = "\n".join(f"P{i:03d},{10 + 7 * i % 300},{i % 3 != 0:d}" for i in range(120))
            return ("id,time,event\n" + rows + "\n").encode()

    at = AppTest.from_file(PAGE, default_timeout=120)

    unfold_settings(at, "survival")
    at.run()
    at.radio(key="sv_src").set_value("upload")
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: Upload())
    at.run()
    at.number_input(key="sv_hor").set_value(200.0).run()
    bundle = _release(at)
    choice = bundle.settings_choice
    assert choice.how == CHANGED and "grid" in choice.changed, choice
    (record,) = _records()
    assert record.settings_choice() == choice and record.source.startswith("cohort.csv")


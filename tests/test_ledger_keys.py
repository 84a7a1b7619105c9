"""The key rule (dpcore.ledger.keys): budgets follow the people within one custodian's scope, never across scopes.

Near-copies of a table share its budget; another custodian's identical table shares nothing, and nothing a custodian
sees depends on whether their data matches another's; the database's keys and digests cannot test guesses.
"""

import sqlite3

import numpy as np
import pandas as pd
import pytest

from dpcore.ledger import Budget, BudgetExceeded, Ledger, RecordsRead, table_fingerprint
from dpcore.ledger.stores import MIGRATIONS, SQLITE_FILE, LedgerConfig, open_ledger
from dpcore.validation import read_csv

SECRET = b"s" * 32


def _table(n: int = 137, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"time": rng.integers(1, 1000, n), "status": rng.integers(0, 2, n),
                         "age": rng.integers(30, 90, n)})


def _read(frame: pd.DataFrame, time="time", event="status") -> RecordsRead:
    return RecordsRead.of([frame[time], frame[event]])


def _csv(frame: pd.DataFrame) -> pd.DataFrame:
    return read_csv(frame.to_csv(index=False).encode())


def _near_copies(frame: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, str, str]]:
    """The review's near-copies (a number written 72.0, a renamed column, an extra constant column, one row
    dropped) and more, with the columns a release reads in each."""
    written = frame.to_csv(index=False).replace(f"\n{frame.time[0]},", f"\n{frame.time[0]:.1f},", 1)
    assert written != frame.to_csv(index=False)
    return {
        "72 written 72.0": (read_csv(written.encode()), "time", "status"),
        "renamed column": (frame.rename(columns={"time": "days"}), "days", "status"),
        "extra constant column": (frame.assign(site=7), "time", "status"),
        "one row dropped": (frame.drop(index=5).reset_index(drop=True), "time", "status"),
        "rows reordered": (frame.sample(frac=1, random_state=1).reset_index(drop=True), "time", "status"),
        "a row duplicated": (pd.concat([frame, frame.iloc[[3]]], ignore_index=True), "time", "status"),
        "columns reordered": (frame[["age", "status", "time"]], "time", "status"),
    }


def test_numbers_are_compared_as_numbers_and_unread_columns_do_not_count():
    frame = _csv(_table())
    same = [_csv(frame.assign(time=frame.time.map(lambda v: f"{float(v):.1f}"))), frame.assign(age=0), frame[["status", "time"]]]
    keys = {_read(f).fingerprint for f in same}
    assert keys == {_read(frame).fingerprint}
    assert RecordsRead.of([["72", "-0", "x "]]).fingerprint == RecordsRead.of([[72.0, 0.0, "x"]]).fingerprint
    assert RecordsRead.of([[72, 0]], exchangeable=[[1.0, 2.0], [3.0, 4.0]]).fingerprint == \
        RecordsRead.of([[72, 0]], exchangeable=[[2.0, 1.0], [4.0, 3.0]]).fingerprint  # order-free columns


@pytest.mark.parametrize("variant", list(_near_copies(_table())))
def test_every_near_copy_is_charged_to_the_originals_budget(variant):
    original = _table()
    ledger = Ledger(secret=SECRET, default_cap=Budget(1.0, 1e-3))
    ledger.charge(ledger.holding(_read(original)), "KM", 1.0, label="original")
    copy, time, event = _near_copies(original)[variant]
    holding = ledger.holding(_read(copy, time, event))
    assert ledger.remaining(holding) == (0.0, pytest.approx(1e-3))
    with pytest.raises(BudgetExceeded, match="left of its cap"):  # the same key, or one sharing records
        ledger.charge(holding, "KM", 0.5, label="copy")


def test_a_release_on_a_copy_is_charged_to_the_original_too():
    original = _table()
    ledger = Ledger(secret=SECRET, default_cap=Budget(10.0, 1e-3))
    first = ledger.holding(_read(original))
    ledger.charge(first, "KM", 1.0, label="original")
    copy = ledger.holding(_read(original.drop(index=0)))
    ledger.charge(copy, "KM", 2.0, label="copy")
    assert ledger.spent(first) == (3.0, 0.0) and ledger.spent(copy) == (2.0, 0.0)
    (through,) = [r for r in ledger.records(first.key) if r.via]
    assert through.epsilon == 2.0


def test_an_unrelated_table_and_an_edited_table_are_new_records():
    ledger = Ledger(secret=SECRET, default_cap=Budget(1.0, 1e-3))
    ledger.charge(ledger.holding(_read(_table(seed=0))), "KM", 1.0)
    assert ledger.remaining(ledger.holding(_read(_table(seed=1)))) == (1.0, pytest.approx(1e-3))
    edited = _table(n=1)  # a one-record table whose only value is edited shares no record
    ledger.charge(ledger.holding(_read(edited)), "KM", 1.0)
    changed = edited.assign(time=edited.time + 1)
    assert ledger.overlapping(ledger.holding(_read(changed))) == []


def test_another_custodians_identical_table_shares_nothing_and_reveals_nothing():
    """The cross-visitor attack (issue 31): B's guesses see identical standing whether or not they match A's data."""
    table = _table(n=300)
    ledger = Ledger(secret=SECRET, default_cap=Budget(1.0, 1e-3))
    ledger.charge(ledger.holding(_read(table), "alice"), "KM", 1.0, label="a.csv")
    guesses = [table, table.assign(time=table.time.where(table.index != 7, 987.66))]
    seen = []
    for guess in guesses:
        holding = ledger.holding(_read(guess), "bob")
        ledger.check(holding, 1.0, 1e-4)  # never refused on A's account
        seen.append((ledger.spent(holding), ledger.remaining(holding), ledger.overlapping(holding),
                     ledger.summary(scopes=("bob",)), ledger.records(scopes=("bob",))))
    assert seen[0] == seen[1] == ((0.0, 0.0), (1.0, pytest.approx(1e-3)), [], [], [])
    assert ledger.holding(_read(table), "bob").key != ledger.holding(_read(table), "alice").key


def test_only_the_owner_changes_a_cap():
    ledger = Ledger(secret=SECRET, default_cap=Budget(10.0, 1e-3))
    alice = ledger.holding(_read(_table()), "alice")
    ledger.charge(alice, "KM", 1.0)
    ledger.set_budget(alice.key, 3.0, 1e-4, scope="alice", actor="alice@h")
    for epsilon in (10.0, 1.0):  # raising it back, or lowering it to what is spent, from another scope
        with pytest.raises(PermissionError):
            ledger.set_budget(alice.key, epsilon, 1e-4, scope="bob", actor="bob@h")
    assert ledger.budget(alice.key) == Budget(3.0, 1e-4)
    assert [(c["actor"], c["epsilon"]) for c in ledger.cap_changes(alice.key)] == [("alice@h", 3.0)]


def test_reviewers_read_only_what_was_granted():
    ledger = Ledger(secret=SECRET)
    ledger.charge(ledger.holding("fp", "alice"), "KM", 1.0)
    assert ledger.reviewed_scopes("rev") == ()
    ledger.grant_review("alice", "rev", actor="alice")
    assert ledger.reviewed_scopes("rev") == ("alice",)
    assert len(ledger.records(scopes=ledger.reviewed_scopes("rev"))) == 1


@pytest.fixture(params=["sqlite", "postgres"])
def config(request, tmp_path):
    if request.param == "sqlite":
        yield LedgerConfig(data_dir=tmp_path / "data", default_cap=Budget(1.0, 1e-3))
        return
    from conftest import postgres_schema

    with postgres_schema(request.getfixturevalue("postgres_server")) as url:
        yield LedgerConfig(data_dir=tmp_path / "data", url=url, default_cap=Budget(1.0, 1e-3))


def test_durable_stores_charge_near_copies_and_keep_scopes_apart(config):
    ledger = open_ledger(config)
    original = _table()
    ledger.charge(ledger.holding(_read(original)), "KM", 1.0, label="original")
    for copy, time, event in _near_copies(original).values():
        with pytest.raises(BudgetExceeded):
            open_ledger(config).charge(ledger.holding(_read(copy, time, event)), "KM", 0.1)
    other = ledger.holding(_read(original), "group:oncology")
    ledger.charge(other, "KM", 1.0)
    assert ledger.overlapping(other) == [] and ledger.summary(scopes=("local",))[0]["ε spent"] == 1.0


def test_the_database_cannot_test_a_guess_and_digests_go_with_their_data_set(config):
    if config.url:
        pytest.skip("the schema check below reads the SQLite file; the store code is shared")
    ledger = open_ledger(config)
    table = _table(n=20)
    read = _read(table)
    holding = ledger.holding(read)
    ledger.label(holding, "t")
    ledger.charge(holding, "KM", 0.5)
    with sqlite3.connect(config.data_dir / SQLITE_FILE) as db:
        stored = {d for (d,) in db.execute("SELECT digest FROM record_digests")}
        keys = {k for (k,) in db.execute("SELECT key FROM datasets")}
    assert stored == set(holding.digests) and len(stored) == len(set(read.records))
    guess = _read(table.iloc[:10])  # ten of its records (both columns vary in them)
    assert table.iloc[:10].nunique().min() > 1
    without_secret = [Ledger(secret=b"guess" * 7).holding(guess), Ledger().holding(guess)]
    for attempt in without_secret:  # a reader without the secret computes nothing that is in the database
        assert not set(attempt.digests) & stored and attempt.key not in keys
    assert set(ledger.holding(guess).digests) <= stored  # (with the secret, the same record is found)
    with sqlite3.connect(config.data_dir / SQLITE_FILE) as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("DELETE FROM releases")
        db.execute("DELETE FROM datasets")
        assert db.execute("SELECT COUNT(*) FROM record_digests").fetchone() == (0,)


def test_a_version_1_ledger_migrates_and_its_keys_stay_valid(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    with sqlite3.connect(data_dir / SQLITE_FILE) as db:  # a ledger written by the previous schema
        for statement in MIGRATIONS[0]:
            db.execute(statement.format(real="REAL", id="INTEGER PRIMARY KEY AUTOINCREMENT"))
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (1)")
    (data_dir / "ledger.secret").write_text(SECRET.hex())
    (data_dir / "ledger.secret").chmod(0o600)
    table = _table()
    old_key = Ledger(secret=SECRET).dataset_key(table_fingerprint(table))
    with sqlite3.connect(data_dir / SQLITE_FILE) as db:
        db.execute("INSERT INTO datasets (key, label, created) VALUES (?, 'old.csv', 't')", (old_key,))
        db.execute("INSERT INTO releases (dataset, method, epsilon, delta, parts, params, relation, time, page, "
                   "session, status, release_json) VALUES (?, 'KM', 0.75, 0, '{}', '{}', 'replace-one', 't', 'p', "
                   "'s', 'released', '')", (old_key,))
    ledger = open_ledger(LedgerConfig(data_dir=data_dir, default_cap=Budget(1.0, 1e-3)))
    assert ledger._store.schema_version() == len(MIGRATIONS) == 2
    assert ledger.spent(old_key) == (0.75, 0.0) and ledger.summary()[0]["data set"] == "old.csv"
    holding = ledger.holding(_read(table), legacy_fingerprints=[table_fingerprint(table)])
    assert ledger.remaining(holding) == (0.25, pytest.approx(1e-3))  # the old key's spend still binds
    with pytest.raises(BudgetExceeded):
        ledger.charge(holding, "KM", 0.5)


def test_a_bundled_set_and_its_csv_copy_share_one_budget():
    """The survival page keys bundled and uploaded data alike by (time, event): the same people, one budget."""
    from dpcore import datasets

    bundled = datasets.load_survival("veteran")
    csv = pd.DataFrame({"futime": bundled.time, "status": bundled.event, "trt": bundled.group})
    upload = read_csv(csv.to_csv(index=False).encode())
    ledger = Ledger(secret=SECRET)
    assert ledger.holding(RecordsRead.of([bundled.time, bundled.event])).key == \
        ledger.holding(RecordsRead.of([upload.futime, upload.status])).key

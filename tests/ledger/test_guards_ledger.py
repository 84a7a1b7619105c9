"""The ledger's promises to a reviewer, each checked against a count of what every true person has spent.

Per-person caps hold through splits of the persons that read together, a custodian's lowered cap binds, every group
of persons a release reads is checked, a δ cap is a cap, an empty list of scopes reads nothing, a data-set key of
one custodian is never charged by another, and an SQLite write transaction holds the database from its start.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

from dpcore.ledger import Budget, BudgetExceeded, Holding, Ledger, Persons
from dpcore.ledger.stores import SQLiteStore

SECRET = b"g" * 32


@pytest.fixture(params=["memory", "sqlite"])
def ledger(request, tmp_path):
    """A ledger with a per-person cap of ε = 3 (no δ: basic composition) in memory and on SQLite."""
    cap = Budget(3.0, 0.0)
    if request.param == "memory":
        return Ledger(secret=SECRET, default_cap=cap)
    store = SQLiteStore(tmp_path / "ledger.sqlite3")
    store.migrate()
    return Ledger(store, secret=SECRET, default_cap=cap)


def _ids(n: int = 10) -> pd.DataFrame:
    return pd.DataFrame({"patient": [f"P{i:03d}" for i in range(n)], "time": np.arange(10, 10 + n)})


def _persons(frame: pd.DataFrame) -> Persons:
    return Persons.of_column(frame["patient"], "patient", frame)


def _until_refused(ledger: Ledger, persons: Persons, epsilon: float = 1.0, limit: int = 10) -> int:
    made = 0
    for _ in range(limit):
        try:
            ledger.charge(ledger.holding(persons), "KM", epsilon)
        except BudgetExceeded:
            return made
        made += 1
    return made


def test_persons_read_by_part_of_an_earlier_release_carry_their_whole_history(ledger):
    """On a cap of 3: one release on 10 persons, then releases on 3 of them — only 2 more fit, and persons read
    again after the split keep every release (a split must move the persons read, not leave them behind)."""
    persons = _persons(_ids(10))
    ledger.charge(ledger.holding(persons), "KM", 1.0)
    some = persons.subset(np.arange(3))
    assert _until_refused(ledger, some) == 2
    assert ledger.spent(ledger.holding(some))[0] == pytest.approx(3.0)
    assert ledger.spent(ledger.holding(persons))[0] == pytest.approx(3.0)


def test_persons_not_read_by_a_release_are_not_charged_for_it(ledger):
    """A release on 3 of 10 persons charges those 3 only: the other 7 still have 2 of their 3 left, and can spend
    exactly that."""
    persons = _persons(_ids(10))
    ledger.charge(ledger.holding(persons), "KM", 1.0)
    ledger.charge(ledger.holding(persons.subset(np.arange(3))), "KM", 1.0)
    rest = persons.subset(np.arange(3, 10))
    assert ledger.spent(ledger.holding(rest))[0] == pytest.approx(1.0)
    assert _until_refused(ledger, rest) == 2


def test_a_release_reading_new_and_spent_persons_is_checked_on_the_spent_ones(ledger):
    """Persons never read before come first in the standing; the cap must be checked on every group, so a
    release on 5 new persons and 5 spent ones is refused when the spent ones would pass the cap."""
    persons = _persons(_ids(10))
    ledger.charge(ledger.holding(persons.subset(np.arange(5, 10))), "KM", 2.5)
    with pytest.raises(BudgetExceeded, match="take 5 of them past"):
        ledger.charge(ledger.holding(persons), "KM", 1.0)
    assert ledger.spent(ledger.holding(persons))[0] == pytest.approx(2.5)


def test_a_lowered_cap_binds_below_the_configured_ceiling(ledger):
    """A custodian lowers the data set's cap from 3 to 1.5: the lowered cap is the one in force."""
    persons = _persons(_ids(10))
    holding = ledger.holding(persons)
    ledger.set_budget(holding.key, 1.5)
    assert ledger.budget(holding.key) == Budget(1.5, 0.0)
    ledger.charge(holding, "KM", 1.0)
    with pytest.raises(BudgetExceeded):
        ledger.charge(holding, "KM", 1.0)


def test_a_delta_cap_refuses_under_basic_composition():
    """Under the basic accountant a cap's δ binds as its ε does: two releases of δ 6·10⁻⁶ pass a cap of 10⁻⁵."""
    ledger = Ledger(secret=SECRET, default_cap=Budget(10.0, 1e-5), accountant="basic")
    holding = ledger.holding(_persons(_ids(5)))
    ledger.charge(holding, "KM", 1.0, 6e-6)
    with pytest.raises(BudgetExceeded):
        ledger.charge(holding, "KM", 1.0, 6e-6)


def test_an_empty_list_of_scopes_reads_nothing(ledger):
    """Scopes name what a caller may read: none means nothing, never every custodian's ledger."""
    for scope in ("alice", "bob"):
        ledger.charge(Holding(f"data-{scope}", scope), "KM", 1.0)
    assert ledger.records(scopes=[]) == []
    assert ledger.datasets(scopes=[]) == []
    assert ledger.person_spend(scopes=[]) == []
    assert ledger.summary(scopes=[]) == []
    assert {r.dataset for r in ledger.records(scopes=["alice"])} == {"data-alice"}


def test_a_data_set_key_held_by_one_custodian_is_never_charged_by_another(ledger):
    """The first custodian to record a data-set key owns it: another scope's charge on that key is refused and
    writes nothing."""
    ledger.charge(Holding("shared-key", "alice"), "KM", 1.0)
    with pytest.raises(PermissionError):
        ledger.charge(Holding("shared-key", "bob"), "KM", 1.0)
    assert len(ledger.records()) == 1


def test_an_sqlite_write_transaction_holds_the_database_from_its_start(tmp_path):
    """Check and charge are one transaction: from its first statement no other connection may start writing
    (SQLite ``BEGIN IMMEDIATE``), so two charges never read the same spend and both write."""
    store = SQLiteStore(tmp_path / "ledger.sqlite3")
    store.migrate()
    with store._transaction():
        other = sqlite3.connect(tmp_path / "ledger.sqlite3", timeout=0.2, isolation_level=None)
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        finally:
            other.close()


def _rows(n: int, seed: int) -> pd.DataFrame:
    """A cohort without an id column whose rows are distinct (a record number among its columns)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"record": rng.permutation(np.arange(seed * 1000, seed * 1000 + n)),
                         "time": rng.integers(1, 2000, n), "event": rng.integers(0, 2, n),
                         "age": rng.integers(30, 90, n)})


def test_a_file_sharing_more_than_half_its_rows_with_an_earlier_one_is_the_same_people(ledger):
    """Recognition across files (``RECOGNITION_SHARE`` = one half): a file whose rows are 60 % an earlier file's
    is recognised, so the people it shares have no budget left."""
    first = _rows(40, 1)
    assert _until_refused(ledger, Persons.of_rows(first), 1.0) == 3
    second = pd.concat([first.iloc[:24], _rows(16, 2)], ignore_index=True)
    assert ledger.standing(ledger.holding(Persons.of_rows(second))).seen == 24
    assert _until_refused(ledger, Persons.of_rows(second), 1.0) == 0


def test_a_small_subset_of_an_earlier_file_is_the_same_people(ledger):
    """The share is taken of the smaller file: 15 rows of a 40-row file, re-exported alone, are recognised."""
    first = _rows(40, 1)
    assert _until_refused(ledger, Persons.of_rows(first), 1.0) == 3
    assert _until_refused(ledger, Persons.of_rows(first.iloc[5:20]), 1.0) == 0


def test_a_file_sharing_under_half_its_rows_with_an_earlier_one_keeps_its_own_budget(ledger):
    """Rows of another cohort that coincide with 30 % of an earlier file's are not merged with it: the documented
    rule recognises a file only from one half of shared rows."""
    first = _rows(40, 1)
    assert _until_refused(ledger, Persons.of_rows(first), 1.0) == 3
    second = pd.concat([first.iloc[:12], _rows(28, 3)], ignore_index=True)
    assert ledger.standing(ledger.holding(Persons.of_rows(second))).seen == 0
    assert _until_refused(ledger, Persons.of_rows(second), 1.0) == 3


def test_files_keyed_by_other_ids_are_other_people_however_alike_their_other_values(ledger):
    """Two files that both name their persons by ids and agree on every other value: the ids say they are other
    people (an unrelated cohort with the same times, events and ages keeps its own budget)."""
    first = _rows(30, 1).drop(columns="record").assign(patient=[f"A{i:03d}" for i in range(30)])
    assert _until_refused(ledger, Persons.of_column(first["patient"], "patient", first), 1.0) == 3
    second = first.assign(patient=[f"B{i:03d}" for i in range(30)])
    persons = Persons.of_column(second["patient"], "patient", second)
    assert ledger.standing(ledger.holding(persons)).seen == 0
    assert _until_refused(ledger, persons, 1.0) == 3

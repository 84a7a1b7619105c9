"""One person, one budget, whatever the custodian clicks: keys seen together are one person, for good.

Each scenario drives the ledger as the pages do (``Persons`` from the upload and the chosen person column,
``Ledger.holding``, charge until refused) with the true person behind every row tracked, and checks that no true
person received more than the cap, on the in-memory, SQLite and PostgreSQL stores. An unrelated cohort with the
same columns keeps its own budget.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.ledger import Budget, BudgetExceeded, Ledger, Persons
from dpcore.ledger.stores import PostgresStore, SQLiteStore

SECRET = b"k" * 32
CAP = 3.0


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def ledger(request, tmp_path):
    """A fresh ledger with a per-person cap of ε = 3 (δ 10⁻⁵: the tight accountant applies) on each back end."""
    cap = Budget(CAP, 1e-5)
    if request.param == "memory":
        yield Ledger(secret=SECRET, default_cap=cap)
    elif request.param == "sqlite":
        store = SQLiteStore(tmp_path / "ledger.sqlite3")
        store.migrate()
        yield Ledger(store, secret=SECRET, default_cap=cap)
    else:
        from conftest import postgres_schema

        with postgres_schema(request.getfixturevalue("postgres_server")) as url:
            store = PostgresStore(url)
            store.migrate()
            yield Ledger(store, secret=SECRET, default_cap=cap)


def cohort(n: int = 60, seed: int = 0, prefix: str = "P") -> pd.DataFrame:
    """A cohort with an id column, another column of unique values and a few ordinary columns."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"patient": [f"{prefix}{i:03d}" for i in range(1, n + 1)],
                         "record": rng.permutation(np.arange(10_000, 10_000 + n)),
                         "time": rng.integers(1, 2000, n), "event": rng.integers(0, 2, n),
                         "sex": rng.choice(["Male", "Female"], n), "age": rng.integers(30, 90, n)})


def keyed(frame: pd.DataFrame, column: str | None) -> Persons:
    """The persons the upload page builds for ``frame`` with ``column`` chosen as the person column (or none)."""
    if column is None:
        return Persons.of_rows(frame)
    return Persons.of_column(frame[column], column, frame)


class TruePersons:
    """The reference model: how many accepted releases read each true person (by the cohort's patient id)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.spent: dict[str, int] = {}

    def release_until_refused(self, persons: Persons, truth: pd.Series, epsilon: float = 1.0) -> int:
        made = 0
        for _ in range(10):
            try:
                self.ledger.charge(self.ledger.holding(persons), "KM", epsilon)
            except BudgetExceeded:
                break
            made += 1
            for who in pd.unique(truth):
                self.spent[who] = self.spent.get(who, 0) + 1
        return made

    def most(self, epsilon: float = 1.0) -> float:
        return max(self.spent.values(), default=0) * epsilon


def test_switching_the_person_column_of_one_upload_never_makes_new_people(ledger):
    frame = cohort()
    model = TruePersons(ledger)
    for column in ("patient", None, "record", "patient"):
        model.release_until_refused(keyed(frame, column), frame.patient)
    assert model.most() <= CAP


def test_the_same_people_without_their_id_column_meet_the_same_budget(ledger):
    frame = cohort()
    model = TruePersons(ledger)
    model.release_until_refused(keyed(frame, "patient"), frame.patient)
    copy = frame.drop(columns="patient").sample(frac=1, random_state=3)[["age", "sex", "event", "time", "record"]]
    assert model.release_until_refused(keyed(copy, None), frame.patient) == 0
    assert model.most() <= CAP


def test_a_key_by_key_check_is_not_enough_three_keyings_three_releases(ledger):
    """Id-keyed release, then the id-less copy, then the same file keyed by another unique column: no single key
    saw more than two releases, but the person had three; with a cap of two releases the third is refused."""
    frame = cohort()
    ledger._default_cap = Budget(2.0, 0.0)
    ledger.charge(ledger.holding(keyed(frame, "patient")), "KM", 1.0)
    ledger.charge(ledger.holding(keyed(frame.drop(columns=["patient"]), None)), "KM", 1.0)
    with pytest.raises(BudgetExceeded):
        ledger.charge(ledger.holding(keyed(frame, "record")), "KM", 1.0)


def test_identical_rows_without_an_id_are_refused_unless_declared_different_people(ledger):
    frame = cohort().drop(columns=["patient", "record"])
    repeated = pd.concat([frame, frame.iloc[[4, 4, 4, 4]]], ignore_index=True)  # one person's row five times
    with pytest.raises(ValueError, match=r"rows 5 and 61 are identical and there is no person column"):
        Persons.of_rows(repeated)
    declared = Persons.of_rows(repeated, identical_rows_are_different_people=True)
    assert declared.identical_rows == 4 and "declared them different people" in declared.keying_note()
    holding = ledger.holding(declared)
    assert holding.rows == 64 and len(holding.persons) == 60  # five rows, one record: charged once per release
    record = ledger.charge(holding, "KM", 1.0)
    assert record.persons == 64


def test_the_union_of_two_cohorts_sharing_people_is_refused_as_repeated_rows():
    first, second = cohort(40).drop(columns="record"), cohort(40, seed=1, prefix="Q").drop(columns="record")
    shared = pd.concat([first.iloc[:20], second.iloc[20:]], ignore_index=True)
    union = pd.concat([first, shared], ignore_index=True).drop(columns="patient")
    with pytest.raises(ValueError, match="identical and there is no person column"):
        Persons.of_rows(union)


@pytest.mark.parametrize("change", ["lower-case ids", "text case", "non-breaking space", "zero-padded numbers"])
def test_a_re_export_with_other_case_or_spacing_is_the_same_people(ledger, change):
    frame = cohort()
    model = TruePersons(ledger)
    model.release_until_refused(keyed(frame, "patient"), frame.patient)
    copy = frame.copy()
    if change == "lower-case ids":
        copy["patient"] = copy.patient.str.lower()
    elif change == "text case":
        copy["sex"] = copy.sex.str.lower()
    elif change == "non-breaking space":
        copy["patient"] = "\u00a0" + copy.patient
    else:
        copy["record"] = copy.record.map(lambda v: f"+0{v}")
    for column in ("patient", None):
        model.release_until_refused(keyed(copy, column), frame.patient)
    assert model.most() <= CAP


def test_ids_that_differ_only_by_case_are_one_person_and_refused_as_repeated():
    with pytest.raises(ValueError, match="rows 1 and 2 have the same person"):
        Persons.of_column(pd.Series(["P001", "p001", "P002"]), "patient")


def test_an_fdr_stream_charges_the_cohort_behind_it_however_the_file_changes(ledger):
    """Renaming the p column, adding a label, appending a hypothesis or a second stream: the uploader names the
    same cohort, so every release reads the same persons."""
    model = TruePersons(ledger)
    people = pd.Series([f"trial:{i}" for i in range(1, 301)])
    for _stream in ("first", "renamed column", "with labels", "one more hypothesis", "second stream"):
        model.release_until_refused(Persons.cohort("Trial A", 300), people, 1.0)
    assert model.most() <= CAP
    uploaded = ledger.holding(keyed(cohort(), "patient"))
    ledger.charge(uploaded, "KM", 2.0)
    on_it = ledger.dataset_holding(uploaded.key)  # a stream from an uploaded cohort: its persons
    assert on_it.persons == uploaded.persons
    with pytest.raises(BudgetExceeded):
        ledger.charge(on_it, "PAPRIKA discovery list", 1.5)


def test_an_unrelated_cohort_with_the_same_columns_keeps_its_own_budget(ledger):
    frame = cohort()
    for column in ("patient", None):
        TruePersons(ledger).release_until_refused(keyed(frame, column), frame.patient)
    other = cohort(60, seed=7, prefix="R").drop(columns="patient")  # other people, the same columns, no ids
    other["time"] = frame.time.to_numpy()  # even with the same times
    other["event"] = frame.event.to_numpy()
    standing = ledger.standing(ledger.holding(keyed(other, None)))
    assert standing.seen == 0
    assert TruePersons(ledger).release_until_refused(keyed(other, None), other.record) == 3


def test_a_person_recorded_before_keys_were_linked_keeps_their_spend(ledger):
    """Ledgers before linking keyed text ids with their case: such a person is found by the old key."""
    from dpcore.ledger.keys import person_digests
    from dpcore.core.persons import legacy_cells

    frame = cohort()
    old = Persons.named("x", [], "old")  # a Persons whose primary ids are the old canonical cells
    old = Persons(old.fingerprint, legacy_cells(frame.patient).to_numpy(dtype=object), "column 'patient'")
    assert person_digests(SECRET, old) != person_digests(SECRET, keyed(frame, "patient"))
    ledger.charge(ledger.holding(old), "KM", CAP)
    with pytest.raises(BudgetExceeded):
        ledger.charge(ledger.holding(keyed(frame, "patient")), "KM", 0.5)


def test_two_records_of_one_person_merge_into_the_union_of_their_releases(ledger):
    """A person first known by id in one file and by content in another (a file without ids sharing too few rows
    to be recognised) has two records; the file that shows both keys on one row merges them, and from then on the
    person's spend is every release of either record (their union: a release both had counts once)."""
    frame = cohort(40)
    ledger._default_cap = Budget(3.0, 0.0)
    ledger.charge(ledger.holding(keyed(frame.iloc[:10], "patient")), "KM", 1.0)  # person 0..9 by id
    other = frame.iloc[8:40].drop(columns="patient")  # persons 8..39 by content: 8, 9 not recognised (2 of 32)
    ledger.charge(ledger.holding(keyed(other, None)), "KM", 1.0)
    both = ledger.holding(keyed(frame, "patient"))  # a subset of `other`'s rows: recognised, rows 8, 9 show both
    assert ledger.spent(both)[0] == pytest.approx(2.0)
    ledger.charge(both, "KM", 1.0)  # persons 8, 9 now at 3 = the cap: one record, three releases
    with pytest.raises(BudgetExceeded, match="take 2 of them past"):
        ledger.charge(ledger.holding(keyed(frame.iloc[8:10], "record")), "KM", 0.5)
    with pytest.raises(BudgetExceeded, match="take 2 of them past"):
        ledger.charge(ledger.holding(keyed(other.iloc[:2], None)), "KM", 0.5)
    ledger.charge(ledger.holding(keyed(frame.iloc[10:12], "patient")), "KM", 0.5)  # persons at 2 still have room


def test_other_ids_with_the_same_other_values_are_other_people(ledger):
    """Two files that both name their persons by ids, whose rows agree on everything but the ids: the ids say they
    are other people (an unrelated cohort with the same times and events), so the second keeps its own budget."""
    frame = cohort()
    TruePersons(ledger).release_until_refused(keyed(frame, "patient"), frame.patient)
    other = frame.assign(patient=[f"Z{i:04d}" for i in range(len(frame))],
                         record=frame.record + 50_000)
    standing = ledger.standing(ledger.holding(keyed(other, "patient")))
    assert standing.seen == 0
    assert TruePersons(ledger).release_until_refused(keyed(other, "patient"), other.patient) == 3


def test_each_release_names_the_file_it_read_while_the_budget_stays_with_the_persons():
    """The same people by id in two files: both releases charge one data set's persons, and the audit trail names
    the file each release actually read (the records, the data set's summary, the history report)."""
    from dpcore.ledger.history import history_report

    ledger = Ledger(secret=SECRET, default_cap=Budget(CAP, 1e-5))
    days = cohort()
    months = days.assign(time=(days.time / 30.44).round(2))
    first = ledger.charge(ledger.holding(keyed(days, "patient")), "KM", 1.0, label="cohort_ids_days.csv")
    second = ledger.charge(ledger.holding(keyed(months, "patient")), "KM", 1.0, label="cohort_ids_months.csv")
    assert first.dataset == second.dataset  # the persons' data set: one budget
    records = ledger.records(first.dataset)
    assert [r.source for r in records] == ["cohort_ids_days.csv", "cohort_ids_months.csv"]
    (row,) = ledger.summary()
    assert row["data set"] == "cohort_ids_days.csv" and row["also read as"] == ["cohort_ids_months.csv"]
    report = history_report(row["data set"], ledger.records(first.dataset, with_values=True))
    assert "<td>cohort_ids_months.csv</td>" in report


def test_simulated_data_read_nobody_and_charge_nobody_on_every_store(ledger):
    """One rule for simulated and synthetic data (nothing real is read): their releases are recorded for the trail,
    charge no person, so no cap applies, and add nothing to any person's spend or any data set's standing."""
    holding = ledger.simulated_holding("fdr-sim-seed-0")
    for _ in range(5):  # five times the cap: nobody is charged
        record = ledger.charge(holding, "PAPRIKA discovery list", 1.0, label="Simulated Bernoulli stream")
    assert record.persons == -1 and len(ledger.records(holding.key)) == 5
    assert ledger.person_spend() == [] and ledger.standing(holding).groups == ()
    (row,) = ledger.summary()
    assert row["persons"] == 0 and row["ε spent"] == 0.0


def test_the_sidebar_says_simulated_data_charge_nobody():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=180).run()
    at.switch_page("app_pages/fdr.py").run()
    assert not at.exception, at.exception
    sidebar = " ".join(m.value for m in at.sidebar.markdown)
    assert "charge nobody" in sidebar and "people were read before" not in sidebar, sidebar

"""Who a person is (dpcore.ledger.keys) and per-person budgets, on memory, SQLite and PostgreSQL.

Every scenario of the review is here with a per-person cap: random subsets of one table, the table padded with
invented people, other time units with the same ids, other feature and response selections of one upload, sliding
sub-cohorts, and two unrelated cohorts with identical (time, event) values but other ids. None gives any person more
than the cap, and the unrelated cohort keeps its own budget. Scopes never meet; the database cannot test a guess;
ledgers of schema versions 1 and 2 migrate with their spend still binding.
"""

import re
import sqlite3

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_SECRET

from dpcore.ledger import Budget, BudgetExceeded, Ledger, Persons, RecordsRead, table_fingerprint
from dpcore.ledger.config import SQLITE_FILE, LedgerConfig, open_ledger
from dpcore.ledger.stores import MIGRATIONS
from dpcore.core.validation import read_csv

SECRET = b"s" * 32
CAP = 10.0


def _cohort(n: int = 137, seed: int = 0, first_id: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": np.arange(first_id, first_id + n), "time": rng.integers(1, 1000, n),
                         "status": rng.integers(0, 2, n), "age": rng.integers(30, 90, n),
                         "x1": rng.normal(size=n).round(3), "x2": rng.normal(size=n).round(3)})


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def ledger(request, tmp_path):
    """A fresh ledger with a per-person cap of ε = 10 on each back end."""
    cap = Budget(CAP, 1e-3)
    if request.param == "memory":
        yield Ledger(secret=SECRET, default_cap=cap)
        return
    if request.param == "sqlite":
        yield open_ledger(LedgerConfig(data_dir=tmp_path / "data", default_cap=cap))
        return
    from conftest import postgres_schema

    with postgres_schema(request.getfixturevalue("postgres_server")) as url:
        yield open_ledger(LedgerConfig(data_dir=tmp_path / "data", url=url, default_cap=cap, secret=SHARED_SECRET))


def _spend_all(ledger: Ledger, holding, epsilon: float) -> int:
    """Release at ``epsilon`` until refused; how many releases were charged (at most 200)."""
    for made in range(200):
        try:
            ledger.charge(holding, "KM", epsilon)
        except BudgetExceeded:
            return made
    return 200


def _max_spent(ledger: Ledger, persons: Persons) -> float:
    return ledger.spent(ledger.holding(persons))[0]


def test_persons_are_named_by_a_column_or_by_the_whole_row():
    frame = _cohort()
    by_id = Persons.of_column(frame.id, "id")
    assert by_id.fingerprint == Persons.of_column(frame.id.astype(float), "id").fingerprint  # 72 = 72.0
    assert by_id.fingerprint == Persons.of_column(frame.id.sample(frac=1, random_state=2), "id").fingerprint
    rows = Persons.of_rows(frame)
    assert rows.fingerprint == Persons.of_rows(frame[frame.columns[::-1]].rename(columns=str.upper)).fingerprint
    assert rows.fingerprint == Persons.of_rows(read_csv(frame.to_csv(index=False).replace(
        f"\n{frame.id[0]},", f"\n{frame.id[0]:.1f},", 1).encode())).fingerprint
    assert rows.fingerprint != Persons.of_rows(frame.assign(time=frame.time / 30.4)).fingerprint  # days → months
    sub = by_id.subset(np.arange(len(frame)) < 20)
    assert sub.fingerprint == by_id.fingerprint and len(sub) == 20  # a sub-cohort is the same data set
    with pytest.raises(ValueError, match="person column 'id' is empty in row 3"):
        Persons.of_column(frame.id.astype(object).where(frame.index != 2, None), "id")


def test_random_subsets_of_one_table_never_give_a_person_more_than_the_cap(ledger):
    """The review gave one patient 240–560 ε through random 20-row subsets; each is a sub-cohort or a new upload
    of the same rows (with ids, and without: the whole row names the person)."""
    frame = _cohort()
    rng = np.random.default_rng(5)
    for persons in (Persons.of_column(frame.id, "id"), Persons.of_rows(frame)):
        for _ in range(12):
            rows = rng.choice(len(frame), 20, replace=False)
            as_upload = Persons.of_rows(frame.iloc[rows]) if persons.source == "the whole row" else \
                Persons.of_column(frame.id.iloc[rows], "id")
            for subset in (persons.subset(rows), as_upload):
                _spend_all(ledger, ledger.holding(subset), 2.5)
        assert _max_spent(ledger, persons) <= CAP + 1e-9


def test_padding_with_invented_people_or_other_units_shares_the_budget(ledger):
    frame = _cohort()
    original = Persons.of_column(frame.id, "id")
    ledger.charge(ledger.holding(original), "KM", 6.0)
    for k in range(5):  # the table padded with 138 invented records, five times
        padded = pd.concat([frame, _cohort(138, seed=10 + k, first_id=10_000 * (k + 1))], ignore_index=True)
        with pytest.raises(BudgetExceeded, match="would take 137 of them past"):
            ledger.charge(ledger.holding(Persons.of_column(padded.id, "id")), "KM", 5.0)
    for time in (frame.time / 7, frame.time / 30.44, frame.time + 0.5):  # other units, the same ids
        with pytest.raises(BudgetExceeded):
            ledger.charge(ledger.holding(Persons.of_column(frame.assign(time=time).id, "id")), "KM", 5.0)
    assert _spend_all(ledger, ledger.holding(original), 1.0) >= 4  # (the tight accountant may allow a fifth)
    assert _max_spent(ledger, original) <= CAP + 1e-9


def test_other_columns_responses_and_sliding_sub_cohorts_share_the_budget(ledger):
    """Without a person column the whole uploaded row is the person: choosing features, responses or sub-cohorts
    in the app never makes new people, and sliding sub-cohorts (uploaded on their own) overlap by persons."""
    frame = _cohort()
    upload = Persons.of_rows(frame.drop(columns="id"))
    for _ in range(3):  # three feature / response selections of one upload: the same persons each time
        ledger.charge(ledger.holding(upload), "AdaSSP", 3.0)
    with pytest.raises(BudgetExceeded):
        ledger.charge(ledger.holding(upload), "AdaSSP", 3.0)
    ledger.charge(ledger.holding(upload.subset(np.arange(137) < 60)), "AdaSSP", 1.0)
    windows = [frame.drop(columns="id").iloc[start:start + 80] for start in (0, 44, 57)]  # 45 % overlap
    for window in windows:
        _spend_all(ledger, ledger.holding(Persons.of_rows(window)), 0.5)
    assert _max_spent(ledger, upload) <= CAP + 1e-9
    assert ledger.spent(ledger.holding(Persons.of_rows(windows[2])))[0] == pytest.approx(CAP, abs=0.5)


def test_an_unrelated_cohort_with_the_same_time_and_event_keeps_its_own_budget(ledger):
    frame = _cohort(80)
    other = frame.assign(id=frame.id + 5000, age=frame.age + 1)  # identical (time, event) values, other people
    ledger.charge(ledger.holding(Persons.of_column(frame.id, "id")), "KM", CAP, label="rossi.csv")
    for persons in (Persons.of_column(other.id, "id"), Persons.of_rows(other.drop(columns="id"))):
        standing = ledger.standing(ledger.holding(persons))
        assert (standing.persons, standing.seen, standing.most()) == (80, 0, (0.0, 0.0))
        ledger.charge(ledger.holding(persons), "KM", 9.0)


def test_a_few_coinciding_rows_of_another_file_without_ids_are_other_people():
    """Across files, contents link only an upload recognised as the same people (most of the smaller file the same
    rows): two coinciding rows of an otherwise new cohort are not merged with the earlier cohort's persons, whose
    budget is spent, so the new cohort keeps its own budget; the same two rows uploaded alone are recognised."""
    ledger = Ledger(secret=SECRET, default_cap=Budget(CAP, 1e-3))
    frame = _cohort(50).drop(columns="id")
    ledger.charge(ledger.holding(Persons.of_rows(frame)), "KM", 8.0)
    other = pd.concat([frame.iloc[:2], _cohort(48, seed=9).drop(columns="id")], ignore_index=True)
    standing = ledger.standing(ledger.holding(Persons.of_rows(other)))
    assert (standing.persons, standing.seen) == (50, 0)
    ledger.charge(ledger.holding(Persons.of_rows(other)), "KM", 3.0)
    with pytest.raises(BudgetExceeded, match=r"would take 2 of them past the per-person cap"):
        ledger.charge(ledger.holding(Persons.of_rows(frame.iloc[:2])), "KM", 3.0)


def test_a_refusal_says_how_many_and_by_how_much_never_which(ledger):
    frame = _cohort(30)
    persons = Persons.of_column(frame.id, "id")
    ledger.charge(ledger.holding(persons.subset(np.arange(30) < 4)), "KM", 9.0, label="t.csv")
    with pytest.raises(BudgetExceeded) as refused:
        ledger.charge(ledger.holding(persons), "KM", 2.0, label="t.csv")
    text = str(refused.value)
    assert "reads 30 people of t.csv" in text and "take 4 of them past" in text
    assert re.search(r"by up to ε = (1|0\.99\d*):", text)
    ledger.charge(ledger.holding(persons.subset(np.arange(30) >= 4)), "KM", 2.0)  # what fits is accepted


def test_a_lowered_data_set_cap_binds_releases_on_it(ledger):
    persons = Persons.of_column(_cohort(40).id, "id")
    holding = ledger.holding(persons)
    ledger.charge(holding, "KM", 2.0, label="c.csv")
    with pytest.raises(BudgetExceeded, match="already spent ε = (2|1.99)"):
        ledger.set_budget(holding.key, 1.5, 1e-4)
    ledger.set_budget(holding.key, 3.0, 1e-4)
    assert ledger.remaining(holding) == (pytest.approx(1.0, abs=1e-3), pytest.approx(1e-4))
    with pytest.raises(BudgetExceeded, match="per-person cap \\(ε = 3"):
        ledger.charge(holding.__class__(holding.key, holding.scope, holding.persons[:5]), "KM", 1.5)


def test_another_custodians_identical_table_shares_nothing_and_reveals_nothing():
    """The cross-visitor attack: B's guesses see identical standing whether or not they match A's data."""
    table = _cohort(300)
    ledger = Ledger(secret=SECRET, default_cap=Budget(1.0, 1e-3))
    ledger.charge(ledger.holding(Persons.of_column(table.id, "id"), "alice"), "KM", 1.0, label="a.csv")
    guesses = [table, table.assign(id=table.id + 1000)]
    seen = []
    for guess in guesses:
        holding = ledger.holding(Persons.of_column(guess.id, "id"), "bob")
        ledger.check(holding, 1.0, 1e-4)  # never refused on A's account
        seen.append((ledger.spent(holding), ledger.remaining(holding), ledger.standing(holding).seen,
                     ledger.summary(scopes=("bob",)), ledger.records(scopes=("bob",)),
                     ledger.person_spend(scopes=("bob",))))
    assert seen[0] == seen[1] == ((0.0, 0.0), (1.0, pytest.approx(1e-3)), 0, [], [], [])
    alice, bob = (ledger.holding(Persons.of_column(table.id, "id"), s) for s in ("alice", "bob"))
    assert alice.key != bob.key and not set(alice.persons) & set(bob.persons)


def test_only_the_owner_changes_a_cap():
    ledger = Ledger(secret=SECRET, default_cap=Budget(10.0, 1e-3))
    alice = ledger.holding(Persons.of_column(_cohort().id, "id"), "alice")
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


def test_the_spend_distribution_shows_everyone_against_the_cap(ledger):
    frame = _cohort(100)
    persons = Persons.of_column(frame.id, "id")
    ledger.charge(ledger.holding(persons), "KM", 1.0, label="d.csv")
    ledger.charge(ledger.holding(persons.subset(np.arange(100) < 30)), "KM", 2.0)
    spend = sorted((s.epsilon, s.persons, s.releases) for s in ledger.person_spend())
    assert spend == [(1.0, 70, 1), (3.0, 30, 2)]
    (row,) = ledger.summary()
    assert (row["releases"], row["persons"], row["ε spent"]) == (2, 100, 3.0)


def test_the_database_holds_keyed_digests_only(tmp_path):
    config = LedgerConfig(data_dir=tmp_path / "data")
    ledger = open_ledger(config)
    table = _cohort(20)
    persons = Persons.of_column(table.id, "id")
    ledger.charge(ledger.holding(persons), "KM", 0.5)
    with sqlite3.connect(config.data_dir / SQLITE_FILE) as db:
        stored = {d for (d,) in db.execute("SELECT person FROM persons")}
        members = {d for (d,) in db.execute("SELECT person FROM persons p JOIN dataset_classes m ON m.class = p.class")}
        keys = {k for (k,) in db.execute("SELECT key FROM datasets")}
        text = "".join(str(row) for t in ("persons", "histories", "releases", "datasets")
                       for row in db.execute(f"SELECT * FROM {t}"))  # noqa: S608 - fixed table names
    assert stored == members == set(ledger.holding(persons).persons) and len(stored) == 20
    assert "id:" not in text and "1.0" not in stored
    guess = Persons.of_column(table.id.iloc[:10], "id")
    for attempt in (Ledger(secret=b"guess" * 7).holding(guess), Ledger().holding(guess)):
        assert not set(attempt.persons) & stored and attempt.key not in keys
    assert set(ledger.holding(guess).persons) <= stored  # (with the secret, the same person is found)


def _old_ledger(data_dir, version: int) -> None:
    data_dir.mkdir()
    with sqlite3.connect(data_dir / SQLITE_FILE) as db:  # a ledger written by an earlier schema
        for steps in MIGRATIONS[:version]:
            for statement in steps:
                db.execute(statement.format(real="REAL", id="INTEGER PRIMARY KEY AUTOINCREMENT", norowid=""))
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (?)", (version,))
    (data_dir / "ledger.secret").write_text(SECRET.hex())
    (data_dir / "ledger.secret").chmod(0o600)


@pytest.mark.parametrize("version", [1, 2])
def test_an_earlier_ledger_migrates_and_its_spend_still_binds_its_persons(tmp_path, version):
    data_dir = tmp_path / "data"
    _old_ledger(data_dir, version)
    table = _cohort()
    old_keys = {"whole table": Ledger(secret=SECRET).dataset_key(table_fingerprint(table)),
                "values read": Ledger(secret=SECRET).dataset_key(RecordsRead.of([table.time, table.status]).fingerprint)}
    with sqlite3.connect(data_dir / SQLITE_FILE) as db:
        for key in old_keys.values():
            db.execute("INSERT INTO datasets (key, label, created) VALUES (?, 'old.csv', 't')", (key,))
            db.execute("INSERT INTO releases (dataset, method, epsilon, delta, parts, params, relation, time, page, "
                       "session, status, release_json) VALUES (?, 'KM', 0.375, 0, '{}', '{}', 'replace-one', 't', "
                       "'p', 's', 'released', '')", (key,))
    ledger = open_ledger(LedgerConfig(data_dir=data_dir, default_cap=Budget(1.0, 1e-3)))
    assert ledger._store.schema_version() == len(MIGRATIONS) == 6
    assert ledger.spent_basic(old_keys["whole table"]) == (0.375, 0.0) and ledger.summary()[0]["data set"] == "old.csv"
    assert ledger.summary()[0]["ε spent"] == 0.375
    legacy = [table_fingerprint(table), RecordsRead.of([table.time, table.status]).fingerprint]
    holding = ledger.holding(Persons.of_column(table.id, "id"), legacy_fingerprints=legacy)
    assert ledger.remaining(holding) == (pytest.approx(0.25, abs=5e-3), pytest.approx(1e-3))  # both old keys bind
    with pytest.raises(BudgetExceeded):
        ledger.charge(holding, "KM", 0.5)
    ledger.charge(holding, "KM", 0.125)
    assert ledger.spent_basic(holding) == (0.875, 0.0)  # carried over once, not again on the next release
    ledger.charge(holding, "KM", 0.125)
    assert ledger.spent_basic(holding) == (1.0, 0.0)


def test_bundled_sets_name_their_persons_by_a_documented_rule():
    from dpcore.core import datasets

    bundled = datasets.load_survival("veteran")
    persons = datasets.survival_persons("veteran", bundled)
    assert len(persons) == len(bundled.time) and "row" in persons.source
    assert persons.fingerprint == datasets.survival_persons("veteran", bundled).fingerprint
    assert persons.fingerprint != datasets.survival_persons("cancer", datasets.load_survival("cancer")).fingerprint


def test_caps_are_checked_on_the_tight_per_person_figure_with_basic_beside_it(ledger):
    """Ten AdaSSP releases (three analytic Gaussians each) cost a person ε ≈ 1.4 at δ = 10⁻³, not 10: under
    a cap of 10 the tight accountant admits more of them than basic composition, and never a person past the cap."""
    from dpcore import accounting
    from dpcore.regression import ADASSP, ADASSP_SPLIT

    persons = Persons.of_column(_cohort(50).id, "id")
    holding = ledger.holding(persons)
    parts = {k: share for k, share in zip(("λ_min", "XᵀX", "Xᵀy"), ADASSP_SPLIT)}
    for _ in range(10):
        ledger.charge(holding, ADASSP, 1.0, 1e-6, parts=parts)
    tight, basic = ledger.spent(holding), ledger.spent_basic(holding)
    assert basic == (pytest.approx(10.0), pytest.approx(1e-5)) and tight[0] < 2.5
    (record, *_) = ledger.records()
    events = accounting.events_from_json(record.events)
    assert [type(e).__name__ for e in events] == ["Gaussian"] * 3  # the release's events, as it ran
    expected = accounting.compose(events * 10, 1e-3).epsilon_tight
    assert tight[0] == pytest.approx(expected)
    (row,) = ledger.summary()  # every view shows both: the figure the cap is checked on, and the sums
    assert (row["ε spent (tight)"], row["ε spent"], row["δ spent"]) == (tight[0], basic[0], basic[1])
    assert ledger.most_charged(ledger.standing(holding).groups, ledger.budget(holding.key)) == {
        "ε spent": basic[0], "δ spent": basic[1], "ε spent (tight)": tight[0], "ε cap": CAP, "δ cap": 1e-3}
    made = _spend_all(ledger, holding, 1.0)  # Laplace-like (ε, δ) releases on top, until refused
    assert ledger.spent(holding)[0] <= CAP + 1e-9 and made >= 8
    with pytest.raises(BudgetExceeded, match="by the tight accountant at δ = 0.001"):
        ledger.charge(holding, "KM", 1.0)


def test_the_basic_accountant_stays_available_and_pure_caps_use_it():
    basic = Ledger(secret=SECRET, default_cap=Budget(3.0, 1e-3), accountant="basic")
    holding = basic.holding("t")
    assert _spend_all(basic, holding, 1.0) == 3
    pure = Ledger(secret=SECRET, default_cap=Budget(3.0, 0.0))  # no δ to compose at: the sum
    assert _spend_all(pure, pure.holding("t"), 1.0) == 3
    for ledger in (basic, pure, Ledger()):  # no cap either: nothing tight to show beside the sums
        ledger.charge("u", "KM", 1.0)
        assert {row["ε spent (tight)"] for row in ledger.summary()} == {None}
        assert ledger.tight_spend(ledger.person_spend(), ledger.budget("u")) is None

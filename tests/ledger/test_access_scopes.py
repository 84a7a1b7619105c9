"""Who reads whose ledger, through the store: a reading call given ``scopes`` returns the data sets, releases and
per-person spend of those custodian scopes and nothing else — an empty list reads nothing, a reviewer reads what
they are granted, a second custodian none of the first's — and only a data set's own custodian releases on it or
changes its cap (``privacy.md``, "Composition and the ledger"; roles in :mod:`dpcore.access`). The Ledger page's
side of the same promises is in ``tests/ledger/test_ledger_page.py``."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from conftest import SHARED_SECRET

from dpcore.ledger import Budget, Ledger, Persons
from dpcore.ledger.config import LedgerConfig, open_ledger

ALICE, BOB = "alice@hospital.example", "bob@hospital.example"
OLAF, RITA = "olaf@hospital.example", "rita@hospital.example"


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def ledger(request, tmp_path) -> Ledger:
    cap = Budget(10.0, 1e-3)
    if request.param == "memory":
        return Ledger(secret=SHARED_SECRET, default_cap=cap)
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else ""
    return open_ledger(LedgerConfig(data_dir=tmp_path / "data", url=url, default_cap=cap, secret=SHARED_SECRET,
                                    sign_in=True))


def _cohort(first_id: int, n: int) -> Persons:
    return Persons.of_column(pd.Series([f"P{first_id + i:04d}" for i in range(n)]), "patient_id")


@pytest.fixture
def two_custodians(ledger):
    """Alice released twice on 30 people of hers, Bob once on 20 of his (ids that overlap Alice's, other scope)."""
    alice = ledger.holding(_cohort(0, 30), ALICE)
    bob = ledger.holding(_cohort(10, 20), BOB)
    ledger.charge(alice, "DP survival analysis", 1.0, label="alice-cohort.csv", actor=ALICE)
    ledger.charge(alice, "DP survival analysis", 0.5, label="alice-cohort.csv", actor=ALICE)
    ledger.charge(bob, "DP regression", 2.0, label="bob-cohort.csv", actor=BOB)
    return ledger, alice.key, bob.key


def _everything(ledger: Ledger, scopes, dataset: str | None = None) -> dict:
    """What a reader with ``scopes`` can see by every reading call the pages use (of one data set: its releases,
    their exports and its people's spend, as the history report reads them)."""
    seen = {"records": [(r.dataset, r.epsilon) for r in ledger.records(dataset, scopes=scopes)],
            "with values": len(ledger.records(dataset, scopes=scopes, with_values=True)),
            "spend": sorted((s.persons, s.epsilon) for s in ledger.person_spend(scopes, dataset))}
    if dataset is None:
        seen |= {"datasets": ledger.datasets(scopes=scopes),
                 "summary": sorted(row["data set"] for row in ledger.summary(scopes=scopes))}
    return seen


NOTHING = {"records": [], "with values": 0, "datasets": [], "spend": [], "summary": []}
NOTHING_OF_IT = {"records": [], "with values": 0, "spend": []}


def test_an_empty_scope_list_reads_nothing(two_custodians):
    """``scopes=()`` is nobody's scopes (a visitor's, or a reviewer granted nothing), not everyone's."""
    ledger, alice, bob = two_custodians
    for scopes in ((), []):
        assert _everything(ledger, scopes) == NOTHING
        for dataset in (alice, bob):
            assert _everything(ledger, scopes, dataset) == NOTHING_OF_IT
    assert len(ledger.records(scopes=None)) == 3  # None is the server's own view, every scope


def test_a_scope_nobody_owns_reads_nothing(two_custodians):
    ledger, alice, _ = two_custodians
    for scopes in (("group:oncology",), ("",), ("local",), (ALICE.upper(),)):
        assert _everything(ledger, scopes) == NOTHING
        assert _everything(ledger, scopes, alice) == NOTHING_OF_IT


def test_a_second_custodian_reads_only_their_own_data_sets(two_custodians):
    """Bob sees his release, his data set and his 20 people; nothing of Alice's, not even by naming her key."""
    ledger, alice, bob = two_custodians
    assert _everything(ledger, (BOB,)) == {"records": [(bob, 2.0)], "with values": 1, "datasets": [bob],
                                            "spend": [(20, 2.0)], "summary": ["bob-cohort.csv"]}
    assert _everything(ledger, (BOB,), alice) == NOTHING_OF_IT
    assert _everything(ledger, (ALICE,)) == {"records": [(alice, 1.0), (alice, 0.5)], "with values": 2,
                                              "datasets": [alice], "spend": [(30, 1.5)],
                                              "summary": ["alice-cohort.csv"]}
    assert _everything(ledger, (ALICE,), bob) == NOTHING_OF_IT


def test_a_reviewer_without_a_grant_reads_nothing(two_custodians):
    ledger, _, _ = two_custodians
    assert ledger.reviewed_scopes(OLAF) == ()
    assert _everything(ledger, ledger.reviewed_scopes(OLAF)) == NOTHING


def test_a_grant_lets_its_reviewer_read_that_custodian_only(two_custodians):
    """Alice grants Olaf: he reads exactly Alice's ledger; Bob's stays closed to him, and nobody else gains."""
    ledger, alice, bob = two_custodians
    ledger.grant_review(ALICE, OLAF, actor=ALICE)
    assert ledger.reviewed_scopes(OLAF) == (ALICE,)
    assert _everything(ledger, ledger.reviewed_scopes(OLAF)) == _everything(ledger, (ALICE,))
    assert _everything(ledger, ledger.reviewed_scopes(OLAF), bob) == NOTHING_OF_IT
    assert ledger.reviewed_scopes(RITA) == () and ledger.reviewed_scopes(BOB) == ()
    ledger.grant_review(BOB, OLAF, actor=BOB)
    assert set(ledger.reviewed_scopes(OLAF)) == {ALICE, BOB}


def test_only_a_data_sets_custodian_releases_on_it_or_changes_its_cap(two_custodians):
    """Alice's data set, named by its key from Bob's scope or from none (a reviewer's, a visitor's): no charge, no
    cap change, nothing written; from Alice's scope both work."""
    ledger, alice, _ = two_custodians
    before = [(r.id, r.epsilon) for r in ledger.records(scopes=None)]
    hers = ledger.holding(_cohort(0, 30), ALICE)
    for other in (BOB, ""):
        with pytest.raises(PermissionError):
            ledger.charge(replace(hers, scope=other), "DP survival analysis", 0.1, actor=other)
        with pytest.raises(PermissionError):
            ledger.set_budget(alice, 5.0, 1e-4, scope=other, actor=other)
    assert [(r.id, r.epsilon) for r in ledger.records(scopes=None)] == before
    assert ledger.budget(alice) == Budget(10.0, 1e-3) and ledger.cap_changes(alice) == []
    ledger.set_budget(alice, 5.0, 1e-4, scope=ALICE, actor=ALICE)
    assert ledger.budget(alice) == Budget(5.0, 1e-4)

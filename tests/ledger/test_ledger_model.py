"""The person ledger against a reference model: random custodian sessions never take a true person past the cap.

A hypothesis state machine plays a custodian on one small cohort of true persons: releases on subsets, subsets of
subsets, splits and unions, re-uploads in another unit (with ids), column order, names, id case or row order, under every person
column the upload page offers and none, the id column dropped, a row duplicated, an FDR stream of the cohort
re-keyed; between releases it changes caps: the custodian raises or lowers one data set's cap (refused above the
deployment's cap or below what a person it read has spent), and the deployment's cap is raised or lowered (the server
restarted on the same store with another configuration), which may leave persons already past it. Its first upload
is the whole cohort with ids: files without ids are recognised by content only when at least half of them is an
earlier file's rows (``dpcore.core.persons.RECOGNITION_SHARE``, the documented limit). The model is a dict of true
person → spend (basic composition: the caps have no δ, so the ledger's check is the sum) and the caps in force: a
release on a data set is held to the lower of the deployment's cap and that data set's own. Every release is
accepted exactly when the model says each true person it reads stays within the cap in force, and the ledger
reports exactly the model's spend for the persons a release reads, before and after it; every cap change is
accepted or refused as the model says. Run on the in-memory, SQLite and PostgreSQL stores.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from dpcore.ledger import Budget, BudgetExceeded, Ledger, Persons
from dpcore.ledger.stores import MemoryStore, PostgresStore, SQLiteStore

CAP = 3.0  # the deployment's cap at the start
CAPS = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0]  # caps a custodian or the deployment may move to (sums of 0.5: exact)
PEOPLE = 14
KEYINGS = ("patient", "record", None)


def _cohort() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    return pd.DataFrame({"patient": [f"P{i:03d}" for i in range(PEOPLE)],
                         "record": rng.permutation(np.arange(500, 500 + PEOPLE)),
                         "time": rng.integers(1, 400, PEOPLE), "event": rng.integers(0, 2, PEOPLE),
                         "sex": rng.choice(["Male", "Female"], PEOPLE), "age": rng.integers(30, 90, PEOPLE)})


COHORT = _cohort()
FDR_COHORT = [("declared cohort", i) for i in range(PEOPLE)]  # the FDR streams' persons, not uploaded


class CustodianSession(RuleBasedStateMachine):
    """One custodian's releases on one cohort, however they upload and key it."""

    store_kind = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.store = _store(self.store_kind)
        self.deployment_cap = CAP
        self.ledger = self._open()
        self.spent = {who: 0.0 for who in COHORT.patient} | {who: 0.0 for who in FDR_COHORT}
        self.dataset_caps: dict[str, float] = {}  # data-set key → the cap its custodian set
        self.read_by: dict[str, set] = {}  # data-set key → the true persons its accepted releases read
        # the custodian's first upload: the whole cohort with its ids. Later files without ids are recognised as
        # these people by their contents (the documented rule: at least half of a file's rows an earlier file's)
        self._release(COHORT, "patient", 0.5, COHORT.patient)

    def _open(self) -> Ledger:
        """The server's ledger on the session's store, configured with the deployment's cap of the moment."""
        return Ledger(self.store, secret=b"m" * 32, default_cap=Budget(self.deployment_cap, 0.0))

    def _cap_in_force(self, dataset: str) -> float:
        return min(self.deployment_cap, self.dataset_caps.get(dataset, np.inf))

    def _release(self, frame: pd.DataFrame | None, keying: str | None, epsilon: float, truth,
                 persons: Persons | None = None) -> None:
        persons = persons or (Persons.of_rows(frame) if keying is None else
                              Persons.of_column(frame[keying], keying, frame))
        holding = self.ledger.holding(persons)
        truth = list(pd.unique(pd.Series(list(truth))))
        most = max(self.spent[w] for w in truth)
        assert self.ledger.spent(holding)[0] == pytest.approx(most, abs=1e-9), "the ledger's spend is not the model's"
        fits = most + epsilon <= self._cap_in_force(holding.key) + 1e-9
        try:
            self.ledger.charge(holding, "KM", epsilon)
        except BudgetExceeded:
            assert not fits, "a release within the cap in force for every person it reads was refused"
            return
        assert fits, "a release taking a person past the cap in force was accepted"
        for who in truth:
            self.spent[who] += epsilon
        self.read_by.setdefault(holding.key, set()).update(truth)
        assert self.ledger.spent(holding)[0] == pytest.approx(most + epsilon, abs=1e-9), \
            "the ledger's spend after an accepted release is not the model's"

    @rule(rows=st.sets(st.integers(0, PEOPLE - 1), min_size=1), keying=st.sampled_from(KEYINGS),
          epsilon=st.sampled_from([0.5, 1.0, 1.5]), reshape=st.sampled_from(
              ["as is", "shuffled", "columns reversed and renamed", "ids lower-cased", "text upper-cased",
               "time in months"]))
    def release_on_an_upload(self, rows, keying, epsilon, reshape):
        frame = COHORT.iloc[sorted(rows)]
        if reshape == "shuffled":
            frame = frame.sample(frac=1, random_state=len(rows))
        elif reshape == "columns reversed and renamed":
            frame = frame[frame.columns[::-1]].rename(columns=lambda c: c if c in ("patient", "record") else c.upper())
        elif reshape == "ids lower-cased":
            frame = frame.assign(patient=frame.patient.str.lower())
        elif reshape == "text upper-cased":
            frame = frame.assign(sex=frame.sex.str.upper())
        elif reshape == "time in months":  # another unit: other contents, the same ids
            frame = frame.assign(time=(frame.time / 30.44).round(3))
            if keying != "patient":
                return  # other rows unless the file's own ids name them: the documented limit

        self._release(frame, keying, epsilon, frame.patient.str.upper())

    @rule(rows=st.sets(st.integers(0, PEOPLE - 1), min_size=1), epsilon=st.sampled_from([0.5, 1.0]),
          keying=st.sampled_from(["record", None]))
    def release_without_the_id_column(self, rows, epsilon, keying):
        frame = COHORT.iloc[sorted(rows)]
        self._release(frame.drop(columns="patient"), keying, epsilon, frame.patient)

    @rule(rows=st.sets(st.integers(0, PEOPLE - 1), min_size=2), keying=st.sampled_from(KEYINGS),
          inner=st.data(), epsilon=st.sampled_from([0.5, 1.0]))
    def release_on_a_sub_cohort_of_an_upload(self, rows, keying, inner, epsilon):
        frame = COHORT.iloc[sorted(rows)]
        persons = Persons.of_rows(frame) if keying is None else Persons.of_column(frame[keying], keying, frame)
        mask = np.array(inner.draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame))))
        if not mask.any():
            return
        sub = persons.subset(mask)
        if mask.sum() > 1 and inner.draw(st.booleans()):  # a subset of the subset
            second = np.zeros(mask.sum(), dtype=bool)
            second[0] = True
            sub = sub.subset(second)
            chosen = frame.patient.to_numpy()[np.flatnonzero(mask)[:1]]
        else:
            chosen = frame.patient.to_numpy()[mask]
        self._release(frame, keying, epsilon, pd.Series(chosen), persons=sub)

    @rule(row=st.integers(0, PEOPLE - 1))
    def a_repeated_row_without_ids_is_refused(self, row):
        frame = pd.concat([COHORT, COHORT.iloc[[row]]], ignore_index=True).drop(columns=["patient", "record"])
        with pytest.raises(ValueError, match="identical and there is no person column"):
            Persons.of_rows(frame)

    @rule(epsilon=st.sampled_from([0.5, 1.0]), name=st.sampled_from(["Trial A", "trial a", " TRIAL  A "]))
    def release_an_fdr_stream_of_the_declared_cohort(self, epsilon, name):
        self._release(None, None, epsilon, FDR_COHORT, persons=Persons.cohort(name, PEOPLE))

    @precondition(lambda self: self.read_by)
    @rule(data=st.data(), epsilon=st.sampled_from(CAPS))
    def custodian_raises_or_lowers_a_data_set_cap(self, data, epsilon):
        """Refused above the deployment's cap, or below what a person the data set's releases read has spent."""
        dataset = data.draw(st.sampled_from(sorted(self.read_by)))
        if epsilon > self.deployment_cap:
            with pytest.raises(ValueError, match="can be lowered here, not raised above"):
                self.ledger.set_budget(dataset, epsilon)
        elif max(self.spent[w] for w in self.read_by[dataset]) > epsilon:
            with pytest.raises(BudgetExceeded, match="would already be exceeded"):
                self.ledger.set_budget(dataset, epsilon)
        else:
            self.ledger.set_budget(dataset, epsilon)
            self.dataset_caps[dataset] = epsilon
        assert self.ledger.budget(dataset) == Budget(self._cap_in_force(dataset), 0.0)

    @rule(epsilon=st.sampled_from(CAPS), who=st.integers(0, PEOPLE - 1))
    def deployment_raises_or_lowers_its_cap(self, epsilon, who):
        """The server restarts on the same store with another cap; a person already past a lowered cap is refused
        any further spend, through the upload that first read them."""
        self.deployment_cap = epsilon
        self.ledger = self._open()
        if self.spent[COHORT.patient[who]] + 0.5 > epsilon:
            mask = np.arange(PEOPLE) == who
            self._release(COHORT, "patient", 0.5, COHORT.patient[mask],
                          persons=Persons.of_column(COHORT.patient, "patient", COHORT).subset(mask))

    @invariant()
    def nobody_passes_the_highest_cap(self):
        assert max(self.spent.values()) <= max(CAPS) + 1e-9


def _store(kind: str):
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite":
        import tempfile

        store = SQLiteStore(os.path.join(tempfile.mkdtemp(prefix="dpcore-model-"), "ledger.sqlite3"))
    else:
        store = PostgresStore(_postgres_url())
        with store._transaction() as conn:  # a fresh schema per example: drop what the last one made
            for table in ("schema_version", "content_origins", "person_keys", "dataset_classes", "persons",
                          "classes", "histories", "review_grants", "cap_changes", "record_digests", "audits",
                          "releases", "datasets"):
                store._run(conn, f"DROP TABLE IF EXISTS {table} CASCADE")
    store.migrate()
    return store


_POSTGRES = {}


def _postgres_url() -> str:
    return _POSTGRES["url"]


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_no_custodian_session_takes_a_true_person_past_the_cap(kind, request):
    if kind == "postgres":
        from conftest import postgres_schema

        context = postgres_schema(request.getfixturevalue("postgres_server"))
        _POSTGRES["url"] = context.__enter__()
        request.addfinalizer(lambda: context.__exit__(None, None, None))
    machine = type(f"CustodianSession_{kind}", (CustodianSession,), {"store_kind": kind})
    runs = {"memory": 60, "sqlite": 25, "postgres": 15}[kind]
    settings(max_examples=runs, stateful_step_count=12, deadline=None, derandomize=True,
             suppress_health_check=list(HealthCheck))(machine).TestCase().runTest()

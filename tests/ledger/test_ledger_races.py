"""Real processes charging the same persons at the same moment, under every keying, never pass the cap.

Two and eight server processes (SQLite's write lock, PostgreSQL's advisory lock per scope) each charge the same
cohort's 40 persons, keyed by its id column, another unique column or whole rows: the keys they create race too,
and are linked into one person each. Exactly cap / ε releases are accepted in all; a refused charge writes
nothing (no key, link, history or release).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcore.ledger import Budget, BudgetExceeded, Ledger, Persons
from dpcore.ledger.config import LedgerConfig, open_ledger

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "tests" / "support" / "ledger_worker.py"
CAP = 2.0


@pytest.fixture(params=["sqlite", "postgres"])
def config(request, tmp_path):
    if request.param == "sqlite":
        yield LedgerConfig(data_dir=tmp_path / "data")
        return
    from conftest import SHARED_SECRET, postgres_schema

    with postgres_schema(request.getfixturevalue("postgres_server")) as url:
        yield LedgerConfig(data_dir=tmp_path / "data", url=url, secret=SHARED_SECRET)


def _race(config: LedgerConfig, tmp_path: Path, keyings: list[str], tries: int) -> list[tuple[int, int]]:
    open_ledger(config)  # the schema and the secret exist before the race
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(ROOT), DPCORE_DATA_DIR=str(config.data_dir), DPCORE_LEDGER_URL=config.url,
               DPCORE_DEFAULT_EPSILON_CAP=str(CAP), DPCORE_ACCOUNTANT="basic")
    if config.secret:
        env["DPCORE_LEDGER_SECRET"] = config.secret.hex()
    workers = [subprocess.Popen([sys.executable, str(WORKER), "persons", keying, str(tries), str(go)], env=env,
                                stdout=subprocess.PIPE, text=True) for keying in keyings]
    try:
        for worker in workers:
            assert worker.stdout.readline().strip() == "ready"
        go.touch()
        results = [tuple(map(int, worker.communicate(timeout=300)[0].split())) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    assert all(worker.returncode == 0 for worker in workers)
    return results


@pytest.mark.parametrize("processes", [2, 8])
def test_processes_racing_on_the_same_persons_under_every_keying_charge_exactly_the_cap(config, tmp_path,
                                                                                        processes):
    keyings = [("patient", "none", "record")[i % 3] for i in range(processes)]
    results = _race(config, tmp_path, keyings, tries=30 // processes + 2)
    assert sum(accepted for accepted, _ in results) == round(CAP / 0.1)


def _table_sizes(ledger: Ledger) -> dict[str, int]:
    with ledger._store._reading() as conn:
        return {t: ledger._store._run(conn, f"SELECT COUNT(*) FROM {t}")[0][0]
                for t in ("person_keys", "content_origins", "persons", "classes", "histories", "releases")}


def test_a_refused_charge_writes_nothing():
    import pandas as pd

    ledger = Ledger(secret=b"r" * 32, default_cap=Budget(1.0, 0.0))
    frame = pd.DataFrame({"patient": ["A1", "A2", "A3"], "time": [3, 5, 8], "event": [1, 0, 1]})
    ledger.charge(ledger.holding(Persons.of_column(frame.patient, "patient", frame)), "KM", 1.0)
    before = _table_sizes(ledger)
    copy = pd.concat([frame.drop(columns="patient"), pd.DataFrame({"time": [9], "event": [0]})], ignore_index=True)
    with pytest.raises(BudgetExceeded):  # new keys, new contents and a new person would be written if accepted
        ledger.charge(ledger.holding(Persons.of_rows(copy)), "KM", 0.5)
    assert _table_sizes(ledger) == before

"""The durable ledger on SQLite and PostgreSQL: records, keys, caps, schema, races between processes, crashes."""

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from conftest import SHARED_SECRET
from hypothesis import strategies as st

from dpcore.ledger import CHARGED, FAILED, RELEASED, Budget, BudgetExceeded, Ledger, MemoryStore
from dpcore.ledger.config import SECRET_FILE, SQLITE_FILE, LedgerConfig, open_ledger
from dpcore.ledger.stores import SCHEMA_VERSION, SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parents[1] / "support" / "ledger_worker.py"


@pytest.fixture(params=["sqlite", "postgres"])
def config(request, tmp_path):
    """A fresh deployment configuration on each back end (PostgreSQL: a private schema of the test server, and a
    secret given from outside the data folder, as a shared deployment must)."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else ""
    return LedgerConfig(data_dir=tmp_path / "data", url=url, secret=SHARED_SECRET if url else b"")


def test_a_release_is_recorded_with_everything_a_reviewer_needs_and_survives_a_restart(config):
    ledger = open_ledger(config)
    key = ledger.dataset_key("fingerprint-of-veteran")
    record = ledger.charge(key, "DP survival analysis", 1.0, 1e-6, params={"grid": "months", "horizon": 12},
                           parts={"counts": 0.75, "log-rank": 0.25}, label="Veteran (bundled)", page="survival",
                           session="s1")
    assert record.status == CHARGED and record.id > 0
    ledger.record_values(record, json.dumps({"tables": {"km": [{"t": 1, "S": 0.9}]}}))
    failed = ledger.charge(key, "DP survival analysis", 0.5, label="Veteran (bundled)", page="survival", session="s2")
    ledger.record_failure(failed)
    ledger.record_audit("survival: worst-case pair", {"epsilon_lower": 0.93, "runs": 100_000})

    reopened = open_ledger(config)  # a server restart
    assert reopened.spent_basic(key) == pytest.approx((1.5, 1e-6))
    first, second = reopened.records(key, with_values=True)
    assert (first.method, first.params, first.parts, first.page, first.session, first.status) == (
        "DP survival analysis", {"grid": "months", "horizon": 12}, {"counts": 0.75, "log-rank": 0.25}, "survival",
        "s1", RELEASED)
    assert json.loads(first.values)["tables"]["km"][0]["S"] == 0.9
    assert second.status == FAILED and second.values == ""  # noise drawn is budget spent
    assert reopened.records(key)[0].values == ""  # values only on request
    assert reopened.name_of(key) == "Veteran (bundled)"
    (row,) = reopened.summary(session="s1")
    assert (row["releases"], row["this session"], row["ε spent"]) == (2, 1, 1.5)
    (audit,) = reopened.audit_records()
    assert audit["subject"] == "survival: worst-case pair" and audit["summary"]["runs"] == 100_000


def test_data_sets_are_keyed_by_hmac_with_a_secret_kept_beside_the_database(config, tmp_path):
    ledger = open_ledger(config)
    key = ledger.dataset_key("0123456789abcdef")
    assert key != "0123456789abcdef" and len(key) == 32
    assert open_ledger(config).dataset_key("0123456789abcdef") == key  # the secret persists
    secret = config.data_dir / SECRET_FILE
    other = replace(config, data_dir=tmp_path / "other", secret=SHARED_SECRET[::-1] if config.url else b"")
    assert open_ledger(other).dataset_key("0123456789abcdef") != key  # another server, another secret
    if config.url:  # shared (PostgreSQL): the secret is given from outside, none is written beside the data
        assert not secret.exists()
        return
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    ledger.charge(key, "m", 0.1, label="t")
    if not config.url:
        database = (config.data_dir / SQLITE_FILE).read_bytes()
        assert b"0123456789abcdef" not in database and secret.read_bytes().strip() not in database


def test_a_lost_secret_is_refused_rather_than_replaced(config):
    ledger = open_ledger(config)
    ledger.charge(ledger.dataset_key("fp"), "m", 1.0, label="t")
    if config.url:  # a shared deployment without its secret from outside is refused (test_ledger_secret.py)
        with pytest.raises(RuntimeError, match="DPCORE_LEDGER_SECRET"):
            open_ledger(replace(config, secret=b""))
        return
    (config.data_dir / SECRET_FILE).unlink()
    with pytest.raises(RuntimeError, match="restore it from the backup"):
        open_ledger(config)


def test_a_readable_secret_is_refused(tmp_path):
    config = LedgerConfig(data_dir=tmp_path)
    open_ledger(config)
    (tmp_path / SECRET_FILE).chmod(0o644)
    with pytest.raises(PermissionError, match="chmod 600"):
        open_ledger(config)


def test_configured_caps_are_ceilings_the_page_may_lower_only(config):
    ledger = open_ledger(replace(config, default_cap=Budget(4.0, 1e-5), caps={"special": Budget(1.0, 0.0)}))
    assert ledger.budget("new") == Budget(4.0, 1e-5) and ledger.budget("special") == Budget(1.0, 0.0)
    with pytest.raises(ValueError, match="not raised above"):
        ledger.set_budget("new", 5.0, 1e-5)
    ledger.set_budget("new", 2.0, 1e-6, label="lowered")
    assert ledger.budget("new") == Budget(2.0, 1e-6)
    ledger.charge("new", "m", 1.5)
    with pytest.raises(BudgetExceeded, match="of lowered;.*the most-charged has ε = 0.5"):
        ledger.charge("new", "m", 1.0)
    ledger.check("new", 0.5, 1e-6)  # advice before a charge: this would still fit
    with pytest.raises(BudgetExceeded):
        ledger.check("new", 0.6)
    with pytest.raises(BudgetExceeded, match="already spent"):
        ledger.set_budget("new", 1.0, 1e-6)
    # a configuration lowered after the fact wins over a cap set earlier on the page
    tighter = open_ledger(replace(config, default_cap=Budget(1.5, 1e-7)))
    assert tighter.budget("new") == Budget(1.5, 1e-7)
    assert tighter.remaining("new") == (pytest.approx(0.0, abs=1e-3), pytest.approx(1e-7))


def test_configuration_from_toml_and_environment(tmp_path):
    (tmp_path / "dpcore.toml").write_text(
        '[ledger]\ndefault_epsilon_cap = 3.0\ndefault_delta_cap = 1e-6\nurl = "postgresql://u:pw@db/x"\n'
        "[ledger.caps.abc]\nepsilon = 0.5\n"
    )
    config = LedgerConfig.from_env(Path("/nonexistent"), {"DPCORE_DATA_DIR": str(tmp_path)})
    assert (config.data_dir, config.url, config.default_cap, dict(config.caps)) == (
        tmp_path, "postgresql://u:pw@db/x", Budget(3.0, 1e-6), {"abc": Budget(0.5, 0.0)})
    env = {"DPCORE_DATA_DIR": str(tmp_path), "DPCORE_DEFAULT_EPSILON_CAP": "7", "DPCORE_LEDGER_URL": ""}
    assert LedgerConfig.from_env(Path("/nonexistent"), env).default_cap == Budget(7.0, 1e-6)
    defaults = LedgerConfig.from_env(tmp_path / "fresh", {})
    assert defaults.data_dir == tmp_path / "fresh" and defaults.url == "" and defaults.default_cap == Budget(10.0, 1e-3)
    with pytest.raises(FileNotFoundError, match="DPCORE_CONFIG"):
        LedgerConfig.from_env(tmp_path, {"DPCORE_CONFIG": str(tmp_path / "missing.toml")})


def test_the_schema_is_versioned_and_created_once(config):
    open_ledger(config)
    ledger = open_ledger(config)  # a second start migrates nothing
    store = ledger._store
    assert store.schema_version() == SCHEMA_VERSION
    conn = store._connect(write=True)
    try:
        store._run(conn, "UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
        conn.commit()
    finally:
        conn.close()
    with pytest.raises(RuntimeError, match="upgrade dpcore"):
        open_ledger(config)


def test_the_location_names_the_back_end_only(config):
    location = open_ledger(config).location  # shown to visitors: no path, host or password
    assert location == ("PostgreSQL" if config.url else "SQLite, ledger.sqlite3 in the server's data directory")


# -- properties ------------------------------------------------------------------------------------------------
OPERATIONS = st.lists(
    st.tuples(st.integers(0, 1), st.sampled_from(["a", "b"]), st.floats(0.01, 2.0), st.sampled_from([0.0, 1e-6]),
              st.booleans()),
    max_size=25,
)


def _interleave(handles: list[Ledger], ceiling: float, operations) -> None:
    """Apply charges and cap changes through several handles on one store; check the cap after each."""
    accepted: dict[str, list[float]] = {"a": [], "b": []}
    caps = {"a": ceiling, "b": ceiling}
    for handle, dataset, eps, delta, set_cap in operations:
        ledger = handles[handle]
        if set_cap:  # a visitor moves the cap: to at least what is spent, perhaps above the ceiling (refused)
            wanted = max(ledger.spent(dataset)[0], eps)
            try:
                ledger.set_budget(dataset, wanted, 1e-5)
                caps[dataset] = wanted
            except ValueError:
                assert wanted > ceiling
            continue
        spent = handles[1 - handle].spent(dataset)
        fits = spent[0] + eps <= min(caps[dataset], ceiling) - 1e-9 and spent[1] + delta <= 1e-5 - 1e-12
        try:
            ledger.charge(dataset, "m", eps, delta, session=str(handle))
            accepted[dataset].append(eps)
        except BudgetExceeded:
            assert not fits, "a release that fits under the cap was refused"
        for ds in caps:
            assert handles[1 - handle].spent(ds)[0] <= caps[ds] + 1e-9
    for ds, costs in accepted.items():
        records = handles[0].records(ds)
        assert len(records) == len(costs)
        assert handles[1].spent(ds)[0] == pytest.approx(sum(costs)) == pytest.approx(sum(r.epsilon for r in records))
        total = sum(row["ε spent"] for row in handles[0].summary() if row["key"] == ds)
        assert total == pytest.approx(sum(costs))


@settings(max_examples=60, deadline=None)
@given(cap=st.floats(0.5, 6.0), operations=OPERATIONS)
def test_in_memory_interleavings_never_pass_a_cap(cap, operations):
    store = MemoryStore()
    handles = [Ledger(store, default_cap=Budget(cap, 1e-5), accountant="basic") for _ in range(2)]
    _interleave(handles, cap, operations)


@settings(max_examples=25, deadline=None)
@given(cap=st.floats(0.5, 6.0), operations=OPERATIONS)
def test_sqlite_interleavings_of_two_servers_never_pass_a_cap(cap, operations):
    with tempfile.TemporaryDirectory() as folder:
        config = LedgerConfig(data_dir=Path(folder), default_cap=Budget(cap, 1e-5), accountant="basic")
        _interleave([open_ledger(config), open_ledger(config)], cap, operations)


# -- separate processes ----------------------------------------------------------------------------------------
def _worker_env(config: LedgerConfig, cap: float | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), DPCORE_DATA_DIR=str(config.data_dir), DPCORE_LEDGER_URL=config.url)
    if config.secret:  # a shared deployment's every server is given the same secret
        env["DPCORE_LEDGER_SECRET"] = config.secret.hex()
    if cap is not None:  # races count charges against the sum (basic composition)
        env["DPCORE_DEFAULT_EPSILON_CAP"], env["DPCORE_ACCOUNTANT"] = str(cap), "basic"
    return env


def test_sixteen_processes_racing_200_releases_charge_exactly_the_cap(config, tmp_path):
    """200 releases of ε = 0.1 against a cap of ε = 5 from 16 processes: exactly 50 are charged."""
    ledger = open_ledger(config)  # creates the schema and the secret before the race
    go = tmp_path / "go"
    env = _worker_env(config, cap=5.0)
    shares = [200 // 16 + (i < 200 % 16) for i in range(16)]
    workers = [subprocess.Popen([sys.executable, str(WORKER), "race", "shared-data", str(n), str(go)], env=env,
                                stdout=subprocess.PIPE, text=True) for n in shares]
    try:
        for worker in workers:
            assert worker.stdout.readline().strip() == "ready"
        go.touch()  # every process is connected and waiting: start together
        results = [tuple(map(int, worker.communicate(timeout=300)[0].split())) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    assert all(worker.returncode == 0 for worker in workers)
    assert sum(a for a, _ in results) == 50 and sum(r for _, r in results) == 150
    assert ledger.spent_basic("shared-data") == (pytest.approx(5.0), 0.0)
    assert len(ledger.records("shared-data")) == 50  # (no process tries more than 13: several charged)


def test_a_process_killed_between_charge_and_display_leaves_the_charge(config):
    ledger = open_ledger(config)
    worker = subprocess.Popen([sys.executable, str(WORKER), "crash", "crashed-data"], env=_worker_env(config),
                              stdout=subprocess.PIPE, text=True)
    try:
        line = worker.stdout.readline()
        assert line.startswith("charged"), line
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
    reopened = open_ledger(config)
    (record,) = reopened.records("crashed-data")
    assert record.status == CHARGED and record.epsilon == 0.1 and record.id == int(line.split()[1])
    if not config.url:
        assert SQLiteStore(config.data_dir / SQLITE_FILE).integrity() == "ok"
    reopened.charge("crashed-data", "after the crash", 0.2)
    assert ledger.spent_basic("crashed-data") == pytest.approx((0.3, 0.0))


def test_a_data_sets_history_report_lists_every_charge_and_the_values_that_left():
    import pandas as pd

    from dpcore.reporting.release import ReleaseBundle
    from dpcore.ledger import history_report

    bundle = ReleaseBundle(method="DP counts", dataset="Gehan (bundled)", fingerprint="fp", epsilon=0.5, delta=0.0,
                           mechanisms=("discrete Laplace, b = 4",), public_params={"grid": "weeks"},
                           tables={"counts": pd.DataFrame({"bin": [1, 2], "noisy count": [3, 5]})}, parts={"a": 0.5})
    assert ReleaseBundle.from_json(bundle.to_json()).to_json() == bundle.to_json()  # stored exports round-trip
    ledger = Ledger()
    ledger.record_values(ledger.charge("fp", "DP counts", 0.5, label="Gehan (bundled)"), bundle.to_json())
    ledger.charge("fp", "DP counts", 0.25, label="Gehan (bundled)")  # interrupted: charged, no values
    report = history_report("Gehan <bundled>", ledger.records("fp", with_values=True))
    assert "2 charge(s)" in report and "ε = 0.75, δ = 0" in report and "Gehan &lt;bundled&gt;" in report
    assert "<td>released</td>" in report and "<td>charged</td>" in report
    assert "Released table: counts" in report and "noisy count" in report


def test_the_history_report_shows_spend_per_person_against_the_cap_counts_only():
    import numpy as np

    from dpcore.ledger import Persons, history_report

    ledger = Ledger(default_cap=Budget(10.0, 1e-3))
    persons = Persons.of_column(np.arange(100), "id")
    whole = ledger.holding(persons)
    ledger.charge(whole, "KM", 1.0, label="cohort.csv")
    ledger.charge(ledger.holding(persons.subset(np.arange(100) < 30)), "KM", 2.5)
    report = history_report("cohort.csv", ledger.records(whole.key), ledger.cap_changes(whole.key),
                            ledger.person_spend(dataset=whole.key), ledger.budget(whole.key))
    assert "100 persons read" in report and "most-charged has spent <b>ε = 3.5, δ = 0</b>" in report
    assert "<tr><td>1</td><td>0</td><td>70</td></tr>" in report and "<td>3.5</td><td>0</td><td>30</td>" in report
    assert "nobody is over it" in report and "never shows which person" in report
    # with the tight figures the cap is checked on (at its δ), basic composition beside them
    spend, cap = ledger.person_spend(dataset=whole.key), ledger.budget(whole.key)
    tight = ledger.tight_spend(spend, cap)
    report = history_report("cohort.csv", ledger.records(whole.key), ledger.cap_changes(whole.key), spend, cap, tight)
    most = ledger.spent(whole)[0]
    assert 3 < most < 3.5 and most == max(s.epsilon for s in tight)
    assert (f"most-charged has spent <b>ε = {most:.4g}</b> by tight accounting at δ = 0.001 (by basic composition "
            "ε = 3.5, δ = 0)") in report
    assert "<th>ε spent (tight, at δ = 0.001)</th><th>ε spent (basic)</th>" in report
    assert f"<tr><td>{most:.4g}</td><td>3.5</td><td>0</td><td>30</td></tr>" in report and "nobody is over it" in report

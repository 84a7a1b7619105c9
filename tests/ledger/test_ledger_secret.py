"""The ledger's HMAC secret is kept apart from its data in a shared deployment: a PostgreSQL ledger or sign-in reads
it from ``DPCORE_LEDGER_SECRET`` or ``DPCORE_LEDGER_SECRET_FILE`` (outside the data folder) and refuses to start
without it; the local default keeps ``ledger.secret`` beside the database. The same secret bytes give the same keys
wherever they are read from, so an existing ledger keeps every budget when its secret moves out."""

from __future__ import annotations

import stat
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SHARED_SECRET
from streamlit.testing.v1 import AppTest

from dpcore.ledger import Budget, BudgetExceeded
from dpcore.ledger.config import SECRET_FILE, SQLITE_FILE, LedgerConfig, LedgerSecretError, open_ledger

ROOT = Path(__file__).resolve().parents[2]
#: refused before any connection is tried: nothing listens on port 1
UNREACHABLE_POSTGRES = "postgresql://dpcore@127.0.0.1:1/none"
FINGERPRINT = "0123456789abcdef"


def _env(data_dir: Path, **more: str) -> dict[str, str]:
    return {"DPCORE_DATA_DIR": str(data_dir), **more}


def _secret_file(folder: Path, secret: bytes = SHARED_SECRET, mode: int = 0o600) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ledger.key"
    path.write_text(secret.hex() + "\n")
    path.chmod(mode)
    return path


def test_the_local_default_keeps_its_secret_beside_the_database(tmp_path):
    config = LedgerConfig.from_env(tmp_path / "unused", _env(tmp_path / "data"))
    assert not config.shared
    key = open_ledger(config).dataset_key(FINGERPRINT)
    secret = tmp_path / "data" / SECRET_FILE
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and len(bytes.fromhex(secret.read_text())) == 32
    assert open_ledger(config).dataset_key(FINGERPRINT) == key  # read back on the next start


@pytest.mark.parametrize("how", ["postgres url", "postgres in toml", "sign-in", "access table"])
def test_a_shared_deployment_without_a_secret_from_outside_refuses_to_start(tmp_path, how):
    """PostgreSQL or sign-in configured, no DPCORE_LEDGER_SECRET(_FILE): refused with a message that says what to
    set, before the database is touched and without writing a secret into the data folder."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    env, sign_in = _env(data_dir), False
    if how == "postgres url":
        env["DPCORE_LEDGER_URL"] = UNREACHABLE_POSTGRES
    elif how == "postgres in toml":
        (data_dir / "dpcore.toml").write_text(f'[ledger]\nurl = "{UNREACHABLE_POSTGRES}"\n')
    elif how == "sign-in":
        sign_in = True  # Streamlit's [auth] secrets, as the app finds them
    else:
        (data_dir / "dpcore.toml").write_text('[access]\nidentify_by = "email"\n')
    config = LedgerConfig.from_env(tmp_path / "unused", env, sign_in=sign_in)
    assert config.shared
    with pytest.raises(LedgerSecretError) as refused:
        open_ledger(config)
    message = str(refused.value)
    assert "shared" in message and "DPCORE_LEDGER_SECRET" in message and "DPCORE_LEDGER_SECRET_FILE" in message
    assert ("PostgreSQL" in message) == how.startswith("postgres")
    assert not (data_dir / SECRET_FILE).exists() and not (data_dir / SQLITE_FILE).exists()


@pytest.mark.parametrize("given", ["environment", "file", "toml secret_file"])
def test_a_shared_deployment_reads_its_secret_from_outside_the_data_folder(tmp_path, given):
    data_dir, keys = tmp_path / "data", tmp_path / "keys"
    data_dir.mkdir()
    (data_dir / "dpcore.toml").write_text('[access]\nidentify_by = "email"\n')  # sign-in: shared
    env = _env(data_dir)
    if given == "environment":
        env["DPCORE_LEDGER_SECRET"] = SHARED_SECRET.hex()
    elif given == "file":
        env["DPCORE_LEDGER_SECRET_FILE"] = str(_secret_file(keys))
    else:
        (data_dir / "dpcore.toml").write_text(f'[ledger]\nsecret_file = "{_secret_file(keys)}"\n'
                                              '[access]\nidentify_by = "email"\n')
    config = LedgerConfig.from_env(tmp_path / "unused", env)
    assert config.shared and SHARED_SECRET.hex() not in repr(config)  # the key is never printed with the config
    ledger = open_ledger(config)
    ledger.charge(ledger.dataset_key(FINGERPRINT), "m", 1.0, label="cohort")
    assert not (data_dir / SECRET_FILE).exists()  # nothing written beside the data
    expected = open_ledger(LedgerConfig(data_dir=tmp_path / "elsewhere", secret=SHARED_SECRET))
    assert ledger.dataset_key(FINGERPRINT) == expected.dataset_key(FINGERPRINT)  # the secret given is the key


@pytest.mark.parametrize("moved_to", ["environment", "file"])
def test_moving_a_local_secret_out_of_the_data_folder_keeps_every_key_and_budget(tmp_path, moved_to):
    """A local ledger becomes a shared one (sign-in added): the same secret bytes, now given from outside, give the
    same data-set keys, so its people meet the budget they have spent, not a fresh one."""
    data_dir = tmp_path / "data"
    local = LedgerConfig(data_dir=data_dir, default_cap=Budget(1.5, 0.0), accountant="basic")
    ledger = open_ledger(local)
    key = ledger.dataset_key(FINGERPRINT)
    ledger.charge(key, "m", 1.0, label="cohort")
    beside = data_dir / SECRET_FILE
    hex_digits = beside.read_text().strip()
    if moved_to == "environment":
        env = _env(data_dir, DPCORE_LEDGER_SECRET=hex_digits, DPCORE_DEFAULT_EPSILON_CAP="1.5",
                   DPCORE_ACCOUNTANT="basic")
    else:
        outside = tmp_path / "etc" / "ledger.secret"
        outside.parent.mkdir()
        beside.rename(outside)
        env = _env(data_dir, DPCORE_LEDGER_SECRET_FILE=str(outside), DPCORE_DEFAULT_EPSILON_CAP="1.5",
                   DPCORE_ACCOUNTANT="basic")
    shared = LedgerConfig.from_env(tmp_path / "unused", env, sign_in=True)
    if beside.exists():  # the copy left in the data folder is refused until deleted
        with pytest.raises(LedgerSecretError, match="still in the data directory"):
            open_ledger(shared)
        beside.unlink()
    reopened = open_ledger(shared)
    assert reopened.dataset_key(FINGERPRINT) == key
    assert reopened.spent_basic(key) == (1.0, 0.0)
    with pytest.raises(BudgetExceeded):
        reopened.charge(reopened.dataset_key(FINGERPRINT), "m", 1.0, label="cohort")


def test_a_secret_that_differs_from_the_one_beside_the_database_is_refused(tmp_path):
    """Given a new secret while the ledger's own is still beside it (local or shared), the ledger would re-key every
    data set and give its people a fresh budget: refused, naming the file."""
    data_dir = tmp_path / "data"
    open_ledger(LedgerConfig(data_dir=data_dir)).charge("k", "m", 1.0, label="t")
    for shared in (False, True):
        with pytest.raises(LedgerSecretError, match="differs from .*ledger.secret"):
            open_ledger(LedgerConfig(data_dir=data_dir, secret=SHARED_SECRET, sign_in=shared))


def test_a_local_deployment_may_be_given_its_secret_too(tmp_path):
    config = LedgerConfig.from_env(tmp_path / "unused", _env(tmp_path / "data",
                                                             DPCORE_LEDGER_SECRET=SHARED_SECRET.hex()))
    assert not config.shared and config.secret == SHARED_SECRET
    open_ledger(config)
    assert not (tmp_path / "data" / SECRET_FILE).exists()


def test_a_shared_secret_file_inside_the_data_folder_is_refused(tmp_path):
    data_dir = tmp_path / "data"
    inside = _secret_file(data_dir / "keys")
    config = LedgerConfig(data_dir=data_dir, secret_file=inside, sign_in=True)
    with pytest.raises(LedgerSecretError, match="inside the data directory"):
        open_ledger(config)
    open_ledger(replace(config, sign_in=False))  # the local default may keep it there


@pytest.mark.parametrize("problem, setting, match", [
    ("not hex", {"DPCORE_LEDGER_SECRET": "not a key"}, "hex digits"),
    ("too short", {"DPCORE_LEDGER_SECRET": "ab" * 16}, "at least 32"),
    ("both ways", {"DPCORE_LEDGER_SECRET": SHARED_SECRET.hex(), "DPCORE_LEDGER_SECRET_FILE": "/etc/dpcore/key"},
     "one way"),
])
def test_a_malformed_secret_in_the_environment_is_refused(tmp_path, problem, setting, match):
    with pytest.raises(LedgerSecretError, match=match):
        LedgerConfig.from_env(tmp_path, _env(tmp_path / "data", **setting))


def test_a_missing_readable_or_malformed_secret_file_is_refused(tmp_path):
    data_dir = tmp_path / "data"
    missing = LedgerConfig(data_dir=data_dir, secret_file=tmp_path / "keys" / "nowhere", sign_in=True)
    with pytest.raises(LedgerSecretError, match="does not exist"):
        open_ledger(missing)
    readable = _secret_file(tmp_path / "keys", mode=0o644)
    with pytest.raises(LedgerSecretError, match="chmod 600"):
        open_ledger(replace(missing, secret_file=readable))
    readable.write_text("abc")
    readable.chmod(0o600)
    with pytest.raises(LedgerSecretError, match="hex digits"):
        open_ledger(replace(missing, secret_file=readable))
    assert not (data_dir / SECRET_FILE).exists()


def test_postgres_servers_given_the_same_secret_share_keys_and_write_none_beside_the_data(tmp_path, postgres_url):
    first = LedgerConfig(data_dir=tmp_path / "one", url=postgres_url, secret=SHARED_SECRET,
                         default_cap=Budget(1.5, 0.0), accountant="basic")
    ledger = open_ledger(first)
    key = ledger.dataset_key(FINGERPRINT)
    ledger.charge(key, "m", 1.0, label="cohort")
    second = open_ledger(replace(first, data_dir=tmp_path / "two"))  # another machine, the same secret
    assert second.dataset_key(FINGERPRINT) == key and second.spent_basic(key) == (1.0, 0.0)
    assert not any((tmp_path / d / SECRET_FILE).exists() for d in ("one", "two"))
    with pytest.raises(LedgerSecretError, match="DPCORE_LEDGER_SECRET"):
        open_ledger(replace(first, secret=b""))


def _app_ledger_script():
    import streamlit as st

    from ui.state import get_ledger

    st.session_state["location"] = get_ledger().location


def test_the_app_with_sign_in_refuses_to_open_its_ledger_without_a_secret_from_outside(monkeypatch):
    """The app's ledger (``ui.state.get_ledger``) counts Streamlit's [auth] secrets as sign-in: without
    DPCORE_LEDGER_SECRET(_FILE) every page, a visitor's too, shows the refusal and nothing else; with it, the
    ledger opens."""
    auth = {"client_id": "dp-dashboard", "client_secret": "x", "cookie_secret": "y" * 32,
            "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
            "server_metadata_url": "https://sso.example/.well-known/openid-configuration"}
    at = AppTest.from_function(_app_ledger_script, default_timeout=30)
    at.secrets["auth"] = auth
    at.run()
    assert not at.exception and "location" not in at.session_state
    (refusal,) = [e.value.replace("\\", "") for e in at.error]  # (shown as literal text: Markdown escaped)
    assert "cannot be opened" in refusal and "DPCORE_LEDGER_SECRET" in refusal
    home = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    home.secrets["auth"] = auth
    home.user = {"is_logged_in": False}
    home.run()
    assert not home.exception and not home.title and "DPCORE_LEDGER_SECRET" in home.error[0].value.replace("\\", "")
    monkeypatch.setenv("DPCORE_LEDGER_SECRET", SHARED_SECRET.hex())
    at.run()
    assert not at.exception and not at.error and at.session_state["location"].startswith("SQLite")
    monkeypatch.delenv("DPCORE_LEDGER_SECRET")
    bare = AppTest.from_function(_app_ledger_script, default_timeout=30).run()  # no sign-in: the local default
    assert not bare.exception and bare.session_state["location"].startswith("SQLite")

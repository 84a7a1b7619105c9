"""The deployment's ledger: where it lives, its secret and its configured caps (the server's configuration).

Configuration (environment variables win over the TOML file; see the README, "The privacy ledger"):

``DPCORE_DATA_DIR``
    Directory the server owns: the SQLite ledger ``ledger.sqlite3`` (WAL mode) and the HMAC secret
    ``ledger.secret`` (mode 0600, created on first start; never in the database). Created on first use.
``DPCORE_LEDGER_URL``
    ``postgresql://…``: keep the ledger in PostgreSQL instead (several server processes or machines);
    the secret stays in ``DPCORE_DATA_DIR`` and every server sharing the database needs the same file.
``DPCORE_CONFIG``
    A TOML file (default ``DPCORE_DATA_DIR/dpcore.toml``, optional)::

        [ledger]
        url = "postgresql://dpcore@db.example/dpcore"   # as DPCORE_LEDGER_URL
        default_epsilon_cap = 10.0                      # ceiling for every data set without its own
        default_delta_cap = 1e-3
        [ledger.caps.9f2c41d07a6be3e1c85f0d2a4b6e7c19]  # a data set's key (Ledger page)
        epsilon = 3.0
        delta = 1e-6

``DPCORE_DEFAULT_EPSILON_CAP``, ``DPCORE_DEFAULT_DELTA_CAP``
    The default per-person caps (ceilings) without a TOML file.
``DPCORE_REQUIRE_PERSON_COLUMN``
    ``1``: refuse releases on uploads without a person column (TOML: ``require_person_column = true``).
``DPCORE_ACCOUNTANT``
    ``tight`` (default: each person's ε by PLD / RDP at the cap's δ, ``dpcore.accounting``) or ``basic`` (the sum).

"""

from __future__ import annotations

import contextlib
import os
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from dpcore.ledger.records import Budget
from dpcore.ledger.rules import Ledger
from dpcore.ledger.stores import PostgresStore, SQLiteStore, SQLStore

SQLITE_FILE = "ledger.sqlite3"
SECRET_FILE = "ledger.secret"
CONFIG_FILE = "dpcore.toml"
#: caps when the configuration names none: room for a few releases at the pages' default ε and δ
DEFAULT_CAP = Budget(10.0, 1e-3)


@dataclass(frozen=True)
class LedgerConfig:
    """Where a deployment's ledger lives and its configured caps (ceilings)."""

    data_dir: Path
    url: str = ""
    default_cap: Budget = DEFAULT_CAP
    caps: Mapping[str, Budget] = field(default_factory=dict)
    #: refuse releases on uploads without a person column (``DPCORE_REQUIRE_PERSON_COLUMN=1``)
    require_person_column: bool = False
    #: "tight" (caps checked on each person's PLD / RDP ε at the cap's δ) or "basic" (``DPCORE_ACCOUNTANT``)
    accountant: str = "tight"

    @classmethod
    def from_env(cls, default_dir: Path, environ: Mapping[str, str] = os.environ) -> "LedgerConfig":
        """Read the environment and the TOML file it names (see the module docstring)."""
        data_dir = Path(environ.get("DPCORE_DATA_DIR") or default_dir).expanduser()
        config_path = Path(environ.get("DPCORE_CONFIG") or data_dir / CONFIG_FILE).expanduser()
        ledger: dict[str, Any] = {}
        if config_path.is_file():
            with config_path.open("rb") as handle:
                ledger = tomllib.load(handle).get("ledger", {})
        elif "DPCORE_CONFIG" in environ:
            raise FileNotFoundError(f"DPCORE_CONFIG names {config_path}, which does not exist")
        default_cap = Budget(
            float(environ.get("DPCORE_DEFAULT_EPSILON_CAP") or ledger.get("default_epsilon_cap", DEFAULT_CAP.epsilon)),
            float(environ.get("DPCORE_DEFAULT_DELTA_CAP") or ledger.get("default_delta_cap", DEFAULT_CAP.delta)),
        )
        caps = {key: Budget(float(cap["epsilon"]), float(cap.get("delta", 0.0)))
                for key, cap in ledger.get("caps", {}).items()}
        url = environ.get("DPCORE_LEDGER_URL") or ledger.get("url", "")
        required = environ.get("DPCORE_REQUIRE_PERSON_COLUMN", "").strip().lower()
        require = required in {"1", "true", "yes"} if required else bool(ledger.get("require_person_column", False))
        accountant = environ.get("DPCORE_ACCOUNTANT") or ledger.get("accountant", "tight")
        return cls(data_dir=data_dir, url=url, default_cap=default_cap, caps=caps, require_person_column=require,
                   accountant=accountant)


def open_ledger(config: LedgerConfig) -> Ledger:
    """The deployment's durable ledger: creates the data directory, secret and schema on first use."""
    config.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    if config.url:
        store: SQLStore = PostgresStore(config.url)
        location = "PostgreSQL"
    else:
        store = SQLiteStore(config.data_dir / SQLITE_FILE)
        location = f"SQLite, {SQLITE_FILE} in the server's data directory"
    store.migrate()
    secret_path = config.data_dir / SECRET_FILE
    if not secret_path.exists() and store.datasets(None):  # a new secret would give every data set a fresh budget
        raise RuntimeError(f"the ledger has data sets but {secret_path} is missing: restore it from the backup "
                           "(or copy it from another server of this deployment)")
    secret = load_secret(secret_path)
    return Ledger(store, secret=secret, default_cap=config.default_cap, caps=config.caps, location=location,
                  require_person_column=config.require_person_column, accountant=config.accountant)


def load_secret(path: Path) -> bytes:
    """The server's HMAC secret, created (32 random bytes, mode 0600) on first start; racing starts agree."""
    if not path.exists():
        staging = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_hex(32))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process won the race: use its secret
            os.link(staging, path)
        staging.unlink()
    if path.stat().st_mode & 0o077:
        raise PermissionError(f"{path} must be readable by the server only (chmod 600 {path})")
    return bytes.fromhex(path.read_text().strip())

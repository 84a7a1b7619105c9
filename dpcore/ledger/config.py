"""The deployment's ledger: where it lives, its secret and its configured caps (the server's configuration).

Configuration (environment variables win over the TOML file; see docs/privacy-model.md, "The privacy ledger"):

``DPCORE_DATA_DIR``
    Directory the server owns: the SQLite ledger ``ledger.sqlite3`` (WAL mode) and, in the local default only, the
    HMAC secret ``ledger.secret`` (mode 0600, created on first start; never in the database). Created on first use.
``DPCORE_LEDGER_URL``
    ``postgresql://…``: keep the ledger in PostgreSQL instead (several server processes or machines).
``DPCORE_LEDGER_SECRET``, ``DPCORE_LEDGER_SECRET_FILE``
    The HMAC secret kept apart from the data: its hex digits (at least 32 bytes), or a file holding them (mode 0600,
    outside ``DPCORE_DATA_DIR``; TOML: ``secret_file``). A *shared* deployment — a PostgreSQL ledger, or sign-in
    configured (Streamlit's ``[auth]`` secrets, or an ``[access]`` table) — refuses to start without one of them, and
    while a ``ledger.secret`` is still in its data directory: whoever copies the data folder must not get the key
    with it. Every server sharing the database needs the same secret. The local default (SQLite, no sign-in) keeps
    ``ledger.secret`` beside the database unless one is given. The same secret bytes give the same keys wherever
    they are read from: moving ``ledger.secret`` out (its hex digits in ``DPCORE_LEDGER_SECRET``, or the file where
    ``DPCORE_LEDGER_SECRET_FILE`` points) keeps every budget. See docs/ledger.md, "Where the secret lives".
``DPCORE_CONFIG``
    A TOML file (default ``DPCORE_DATA_DIR/dpcore.toml``, optional)::

        [ledger]
        url = "postgresql://dpcore@db.example/dpcore"   # as DPCORE_LEDGER_URL
        secret_file = "/etc/dpcore/ledger.secret"       # as DPCORE_LEDGER_SECRET_FILE
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
SECRET_ENV, SECRET_FILE_ENV = "DPCORE_LEDGER_SECRET", "DPCORE_LEDGER_SECRET_FILE"
#: the shortest secret accepted from outside (the one created on first start has 32 bytes)
MIN_SECRET_BYTES = 32
_MAKE_ONE = "python3 -c 'import secrets; print(secrets.token_hex(32))'"


class LedgerSecretError(RuntimeError):
    """The ledger's secret is missing, misplaced or malformed: the deployment refuses to start (the message says
    what to set or move)."""
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
    #: the HMAC secret given from outside the data directory (``DPCORE_LEDGER_SECRET``; never in a repr)
    secret: bytes = field(default=b"", repr=False)
    #: a file holding the secret in hex, outside the data directory (``DPCORE_LEDGER_SECRET_FILE``)
    secret_file: Path | None = None
    #: sign-in is configured (Streamlit's ``[auth]`` secrets or an ``[access]`` table): people share the deployment
    sign_in: bool = False

    @property
    def shared(self) -> bool:
        """A deployment several people or servers use (PostgreSQL or sign-in): its secret must be given from
        outside the data directory (:func:`open_ledger` refuses to start otherwise)."""
        return bool(self.url) or self.sign_in

    @classmethod
    def from_env(cls, default_dir: Path, environ: Mapping[str, str] = os.environ, *,
                 sign_in: bool = False) -> "LedgerConfig":
        """Read the environment and the TOML file it names (see the module docstring); ``sign_in``: the app found
        Streamlit's ``[auth]`` secrets (an ``[access]`` table in the TOML file counts as sign-in too)."""
        data_dir = Path(environ.get("DPCORE_DATA_DIR") or default_dir).expanduser()
        config_path = Path(environ.get("DPCORE_CONFIG") or data_dir / CONFIG_FILE).expanduser()
        ledger: dict[str, Any] = {}
        if config_path.is_file():
            with config_path.open("rb") as handle:
                document = tomllib.load(handle)
            ledger = document.get("ledger", {})
            sign_in = sign_in or "access" in document
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
        secret_hex = environ.get(SECRET_ENV, "").strip()
        secret_file = environ.get(SECRET_FILE_ENV, "").strip() or str(ledger.get("secret_file", "")).strip()
        if secret_hex and secret_file:
            raise LedgerSecretError(f"both {SECRET_ENV} and a secret file ({secret_file}) are set: give the "
                                    "ledger's secret one way")
        return cls(data_dir=data_dir, url=url, default_cap=default_cap, caps=caps, require_person_column=require,
                   accountant=accountant, secret=parse_secret(secret_hex, SECRET_ENV) if secret_hex else b"",
                   secret_file=Path(secret_file).expanduser() if secret_file else None, sign_in=sign_in)


def open_ledger(config: LedgerConfig) -> Ledger:
    """The deployment's durable ledger: creates the data directory, schema and (local default only) secret on
    first use. A shared deployment without a secret from outside its data directory is refused before its database
    is touched."""
    config.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    given = given_secret(config)
    if config.url:
        store: SQLStore = PostgresStore(config.url)
        location = "PostgreSQL"
    else:
        store = SQLiteStore(config.data_dir / SQLITE_FILE)
        location = f"SQLite, {SQLITE_FILE} in the server's data directory"
    store.migrate()
    if given:
        secret = given
    else:
        secret_path = config.data_dir / SECRET_FILE
        if not secret_path.exists() and store.datasets(None):  # a new secret would give every data set a fresh budget
            raise LedgerSecretError(f"the ledger has data sets but {secret_path} is missing: restore it from the "
                                    "backup (or copy it from another server of this deployment)")
        secret = load_secret(secret_path)
    return Ledger(store, secret=secret, default_cap=config.default_cap, caps=config.caps, location=location,
                  require_person_column=config.require_person_column, accountant=config.accountant)


def parse_secret(text: str, where: str) -> bytes:
    """The secret bytes written as hex digits in ``where`` (at least :data:`MIN_SECRET_BYTES` of them)."""
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        raise LedgerSecretError(f"{where} must hold the ledger's secret as hex digits (as in ledger.secret)") from None
    if len(secret) < MIN_SECRET_BYTES:
        raise LedgerSecretError(f"{where} holds a secret of {len(secret)} bytes; the ledger needs at least "
                                f"{MIN_SECRET_BYTES} (make one with: {_MAKE_ONE})")
    return secret


def given_secret(config: LedgerConfig) -> bytes:
    """The secret given from outside the data directory (``b""``: none, and the deployment is the local default).

    Refused: a shared deployment without one, or whose secret file is inside its data directory, or that still
    keeps a ``ledger.secret`` there (whoever copies the folder would have the key); a secret that differs from the
    ``ledger.secret`` beside the database (every data set would get a new key, and with it a fresh budget)."""
    beside = config.data_dir / SECRET_FILE
    if config.secret and config.secret_file is not None:
        raise LedgerSecretError(f"both {SECRET_ENV} and {SECRET_FILE_ENV} are set: give the ledger's secret one way")
    if config.secret_file is not None:
        path = config.secret_file.expanduser()
        if config.shared and _inside(path, config.data_dir):
            raise LedgerSecretError(f"{SECRET_FILE_ENV} names {path}, inside the data directory {config.data_dir}: "
                                    "a shared deployment keeps its secret apart from its data (move it elsewhere)")
        if not path.is_file():
            raise LedgerSecretError(f"{SECRET_FILE_ENV} names {path}, which does not exist: put the ledger's "
                                    "secret there (hex digits, chmod 600)")
        if path.stat().st_mode & 0o077:
            raise LedgerSecretError(f"{path} must be readable by the server only (chmod 600 {path})")
        secret = parse_secret(path.read_text(), str(path))
    elif config.secret:
        secret = parse_secret(config.secret.hex(), SECRET_ENV)
    elif config.shared:
        raise LedgerSecretError(
            f"this deployment is shared ({_why_shared(config)}), so the ledger's secret must be kept apart from its "
            f"data: set {SECRET_ENV} to its hex digits, or {SECRET_FILE_ENV} to a file outside {config.data_dir} "
            "holding them (chmod 600). "
            + (f"This ledger's secret is {beside}: move it out of the data directory and name it there, and every "
               "data set keeps its key and budget." if beside.exists() else
               f"Every server of the deployment needs the same one; make one with: {_MAKE_ONE}"))
    else:
        return b""
    if beside.exists():
        try:
            same = bytes.fromhex(beside.read_text().strip()) == secret
        except ValueError:
            same = False
        if not same:
            raise LedgerSecretError(f"the secret given differs from {beside}, with which this ledger's data sets "
                                    "were keyed: every data set would get a new key, and its people a fresh budget. "
                                    f"Give the secret of {beside.name} (its hex digits), or remove it if it belongs "
                                    "to no ledger")
        if config.shared:
            raise LedgerSecretError(f"{beside} is still in the data directory of this shared deployment: whoever "
                                    "copies the folder would have the key. The secret is now read from outside it: "
                                    f"delete {beside.name} (after keeping its copy where the deployment reads it)")
    return secret


def _why_shared(config: LedgerConfig) -> str:
    return " and ".join(why for why, yes in (("a PostgreSQL ledger", bool(config.url)),
                                             ("sign-in is configured", config.sign_in)) if yes)


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


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

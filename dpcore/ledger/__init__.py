"""The privacy ledger: every release a deployment makes, with per-person budgets per custodian and caps that refuse.

A budget belongs to a person: who a record is (a person column, or the whole uploaded row), keyed per custodian
scope, is stated in :mod:`dpcore.ledger.keys`. The package's files:

- :mod:`dpcore.ledger.keys` — who a person is: content fingerprints, keyed data-set keys and person digests;
- :mod:`dpcore.ledger.rules` — :class:`Ledger`: per-person composition, caps, histories, scopes, grants;
- :mod:`dpcore.ledger.records` — the frozen values they exchange (releases, budgets, per-person spend, holdings);
- :mod:`dpcore.ledger.stores` — the stores (SQLite, PostgreSQL, in memory) and their schema;
- :mod:`dpcore.ledger.config` — the server's configuration, secret and :func:`open_ledger`;
- :mod:`dpcore.ledger.history` — a data set's whole history as a printable report.

``Ledger()`` keeps everything in memory (notebooks, tests); :func:`open_ledger` opens a deployment's durable one.
"""

from dpcore.ledger.history import history_report
from dpcore.ledger.keys import LOCAL_SCOPE, WHOLE_ROW, Persons, RecordsRead, fingerprint, table_fingerprint
from dpcore.ledger.rules import (
    CHARGED,
    FAILED,
    RELEASED,
    Budget,
    BudgetExceeded,
    Holding,
    Ledger,
    ReleaseRecord,
    Spend,
    Standing,
)
from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.ledger.stores import MemoryStore

__all__ = [
    "CHARGED", "FAILED", "LOCAL_SCOPE", "RELEASED", "WHOLE_ROW", "Budget", "BudgetExceeded", "Holding", "Ledger",
    "LedgerConfig", "MemoryStore", "Persons", "RecordsRead", "ReleaseRecord", "Spend", "Standing", "fingerprint",
    "history_report", "open_ledger", "table_fingerprint",
]

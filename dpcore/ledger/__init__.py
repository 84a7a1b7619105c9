"""The privacy ledger: every release a deployment makes, per data set and per custodian, with caps that refuse.

The rule that decides which budget a release is charged to — by the values it reads, record by record, within one
custodian's scope — is stated in :mod:`dpcore.ledger.keys`. The package's files:

- :mod:`dpcore.ledger.keys` — the key rule: content fingerprints, keyed data-set keys and per-record digests;
- :mod:`dpcore.ledger.rules` — :class:`Ledger`: composition, caps, overlapping data sets, scopes, grants;
- :mod:`dpcore.ledger.stores` — the durable stores (SQLite, PostgreSQL), their schema and the server configuration;
- :mod:`dpcore.ledger.history` — a data set's whole history as a printable report.

``Ledger()`` keeps everything in memory (notebooks, tests); :func:`open_ledger` opens a deployment's durable one.
"""

from dpcore.ledger.history import history_report
from dpcore.ledger.keys import LOCAL_SCOPE, RecordsRead, fingerprint, table_fingerprint
from dpcore.ledger.rules import (
    CHARGED,
    FAILED,
    RELEASED,
    Budget,
    BudgetExceeded,
    Holding,
    Ledger,
    MemoryStore,
    ReleaseRecord,
)
from dpcore.ledger.stores import LedgerConfig, open_ledger

__all__ = [
    "CHARGED", "FAILED", "LOCAL_SCOPE", "RELEASED", "Budget", "BudgetExceeded", "Holding", "Ledger", "LedgerConfig",
    "MemoryStore", "RecordsRead", "ReleaseRecord", "fingerprint", "history_report", "open_ledger", "table_fingerprint",
]

"""The key rule: which budget a release is charged to. A budget follows the people, not the file.

A release is keyed by the **values it reads**, record by record — not by file bytes, column names, column order,
row order, number format or columns it never reads:

- :class:`RecordsRead` holds one canonical encoding per record: the columns the method reads in their role order
  (time, event, group; response; p-value), then the columns whose order does not matter (a regression's features)
  sorted within the record. Numbers are compared as numbers (``72`` = ``72.0`` = ``7.2e1``), text as stripped
  text. A column holding one value for every record is left out: it says nothing about which person a record is,
  and an added constant column must not make a copy look new.
- A data set's key is an HMAC (the server's secret) of its custodian's **scope** and the multiset of its records;
  each record also gets a keyed digest (HMAC of scope and record). A release on a data set is charged to every
  data set *of the same scope* that shares at least half of the smaller one's distinct records with it
  (:func:`shares_people`), and every one of their caps must hold: dropped, duplicated or reordered rows, extra or
  renamed columns share the budget. The half: two unrelated cohorts of the same custodian share a few records by
  chance (a survival record is a time and an event; 137 patients with day-resolution times collide about nine
  times), and charging one for the other would let an unrelated study exhaust a budget. An edited value is a new
  record: the ledger protects people against honest re-uploads, not against a custodian who edits data.
- Scopes never meet: another custodian's identical table gets other keys and other digests, so nothing one person
  sees (spend, remaining budget, a refusal) can depend on whether their data matches another's.
- Without the secret, neither keys nor digests let anyone test whether a given record is in a data set.

The embedded default's scope is :data:`LOCAL_SCOPE`; its keys are the keys earlier versions gave (HMAC of the
fingerprint alone), so existing data sets and configured caps stay valid.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

#: the one custodian of a deployment without sign-in (``make run``)
LOCAL_SCOPE = "local"


def fingerprint(*parts: Any) -> str:
    """Short SHA-256 fingerprint of a data set (bytes, arrays, frames or strings); never stored, only keyed."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, (bytes, bytearray, memoryview)):
            digest.update(bytes(part))
        elif isinstance(part, np.ndarray):
            digest.update(str(part.dtype).encode() + str(part.shape).encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        elif hasattr(part, "to_csv"):
            digest.update(part.to_csv(index=False).encode())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def _canonical_cells(column: Any) -> pd.Series:
    """Numbers as floats (72 = 72.0 = 7.2e1, whatever the column's dtype), anything else as stripped text."""
    series = pd.Series(np.asarray(column, dtype=object) if not isinstance(column, pd.Series) else column)
    number = pd.to_numeric(series, errors="coerce").astype(float) + 0.0  # -0.0 is 0.0
    text = series.astype(str).str.strip()
    return pd.Series(np.where(number.notna(), number.map(repr), "t:" + text), dtype=object)


def _row_hashes(frame: pd.DataFrame) -> np.ndarray:
    return pd.util.hash_pandas_object(frame, index=False).to_numpy()


def table_fingerprint(frame: pd.DataFrame) -> str:
    """The whole-table fingerprint earlier versions keyed uploads by (any column order, row order, number format).

    Kept so that data sets recorded under it stay valid: a release on the same table is charged to them too.
    """
    columns = sorted(frame.columns)
    canonical = pd.DataFrame({c: _legacy_cells(frame[c]) for c in columns})
    return fingerprint("table", tuple(columns), np.sort(_row_hashes(canonical)))


def _legacy_cells(column: pd.Series) -> pd.Series:
    number = pd.to_numeric(column, errors="coerce").astype(object)
    return number.where(number.notna(), column.astype(str).str.strip())


@dataclass(frozen=True)
class RecordsRead:
    """The values a release reads, one canonical hash per record (row order kept; never stored as such).

    ``fingerprint`` identifies the multiset of records; ``records`` are the per-record hashes the ledger turns into
    keyed digests. ``record_ids`` (public identifiers such as bundled cell-line names) may stand in for values
    when every analysis of a bundled set must share one budget whatever columns it reads.
    """

    fingerprint: str
    records: tuple[int, ...]

    @classmethod
    def of(cls, columns: Sequence[Any] = (), *, exchangeable: Any = None) -> "RecordsRead":
        """From the role columns (in the method's role order) and an optional matrix of order-free columns."""
        parts = [_canonical_cells(c) for c in columns]
        if exchangeable is not None:
            matrix = np.asarray(exchangeable, dtype=float)
            if matrix.ndim == 1:
                matrix = matrix[:, None]
            varying = matrix[:, np.ptp(matrix, axis=0) > 0] if len(matrix) else matrix
            parts += [_canonical_cells(c) for c in np.sort(varying, axis=1).T]
        parts = [p for p in parts if p.nunique(dropna=False) > 1] or parts[:1]
        if not parts:
            raise ValueError("a release reads at least one column")
        hashes = _row_hashes(pd.DataFrame({i: p.to_numpy() for i, p in enumerate(parts)}))
        return cls(fingerprint("records", np.sort(hashes)), tuple(int(h) for h in hashes))

    @classmethod
    def ids(cls, namespace: str, record_ids: Sequence[str]) -> "RecordsRead":
        """Records named by public identifiers (a bundled set's documented ids), whatever a release reads of them."""
        hashes = _row_hashes(pd.DataFrame({"id": [f"{namespace}:{r}" for r in record_ids]}))
        return cls(fingerprint("ids", namespace, np.sort(hashes)), tuple(int(h) for h in hashes))


#: the share of the smaller data set's distinct records two data sets must have in common to share a budget
OVERLAP_SHARE = 0.5


def shares_people(shared: int, mine: int, theirs: int) -> bool:
    """Whether two data sets with ``mine`` and ``theirs`` distinct records, ``shared`` of them in common, hold the
    same people (a near-copy) rather than a few chance coincidences."""
    return shared > 0 and shared >= OVERLAP_SHARE * min(mine, theirs)


def _mac(secret: bytes, *parts: bytes) -> str:
    return hmac.new(secret, b"\x00".join(parts), hashlib.sha256).hexdigest()[:32]


def dataset_key(secret: bytes | None, fingerprint_: str, scope: str = LOCAL_SCOPE) -> str:
    """HMAC of (scope, fingerprint); the local scope keeps the keys earlier versions gave (HMAC of the fingerprint)."""
    if secret is None:  # the in-memory ledger (notebooks, tests): nothing stored, nothing to key against
        return fingerprint_ if scope == LOCAL_SCOPE else f"{scope}/{fingerprint_}"
    if scope == LOCAL_SCOPE:
        return hmac.new(secret, fingerprint_.encode(), hashlib.sha256).hexdigest()[:32]
    return _mac(secret, b"scope", scope.encode(), fingerprint_.encode())


def record_digests(secret: bytes | None, records: Sequence[int], scope: str = LOCAL_SCOPE) -> tuple[str, ...]:
    """Keyed per-record digests (distinct, sorted): HMAC of (scope, record hash); useless without the secret."""
    key = secret if secret is not None else b"in-memory ledger"
    scoped = hmac.new(key, b"digests\x00" + scope.encode(), hashlib.sha256).digest()  # one key per scope
    return tuple(sorted({_mac(scoped, int(r).to_bytes(8, "little")) for r in records}))

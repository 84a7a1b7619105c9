"""Who a record is: the persons a release reads, keyed per custodian. A budget follows the person, not the file.

A **person** is named by a person column (the unit of privacy: a patient id, a cell line's COSMIC id) or, without
one, by the **whole uploaded row** — every column, canonicalised (numbers as numbers: ``72`` = ``72.0`` =
``7.2e1``; text stripped; any column order, any row order). The values one analysis reads never name a person:
choosing other columns, responses, features, groups, units or sub-cohorts inside the app never makes new people
(:class:`Persons`; :meth:`Persons.subset` keeps the data set and names the rows a release reads).

- Each person is keyed by a keyed MAC (BLAKE2b with a per-scope key derived from the server's secret) of their
  canonical identifier: :func:`person_digests`. The ledger stores digests only; identifiers are never stored in
  clear, never logged, never exported, and without the secret a digest cannot be tested against a guess.
- A **data set** (what a page opened: an upload, a bundled set) keeps a key too (:func:`dataset_key`, HMAC of
  scope and the fingerprint of its persons), for its name, its cap and its list of releases; budgets are per person.
- Scopes never meet: another custodian's identical table gets other keys and other digests, so nothing one person
  sees (spend, remaining budget, a refusal) can depend on whether their data matches another's.
- What it cannot do: a custodian who invents identifiers, edits values, or transforms a file outside the app
  (days → months) without a person column makes new persons and can spend twice. The ledger protects people
  against honest reuse by their custodian.

:class:`RecordsRead` is the key rule of ledger schema version 2 (a data set keyed by the values a release reads).
It is kept only to find data sets recorded under it: their spend is carried over to the persons of a release on the
same data (:mod:`dpcore.ledger.rules`), so existing ledgers stay valid. The embedded default's scope is
:data:`LOCAL_SCOPE`; its data-set keys are the keys earlier versions gave (HMAC of the fingerprint alone).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from dpcore.core.persons import WHOLE_ROW, Persons, canonical_cells, fingerprint, legacy_cells  # noqa: F401

#: the one custodian of a deployment without sign-in (``make run``)
LOCAL_SCOPE = "local"


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


def content_key(origin: str, content: str) -> str:
    """The key of one content as found in one upload (both keyed digests): contents link persons only within an
    upload and the uploads recognised as the same people, never by coincidence across unrelated cohorts."""
    return hashlib.sha256(f"{origin}\x1e{content}".encode()).hexdigest()[:32]


def _scope_key(secret: bytes | None, scope: str) -> bytes:
    return hmac.new(secret if secret is not None else b"in-memory ledger", b"persons\x00" + scope.encode(),
                    hashlib.sha256).digest()


def _digests(key: bytes, values: Any, prefix: str = "") -> list[str]:
    return [hashlib.blake2b(f"{prefix}{v}".encode(), key=key, digest_size=16).hexdigest() for v in values]


def person_digests(secret: bytes | None, persons: Persons, scope: str = LOCAL_SCOPE) -> tuple[str, ...]:
    """Keyed digests of the persons a release reads (distinct, sorted): BLAKE2b-128 keyed with a per-scope key
    derived from the server's secret, so the same person has one digest per custodian and none without the secret.
    BLAKE2b's keyed mode is a MAC (a PRF), and about three times faster than HMAC-SHA256 for 10⁶ persons."""
    return tuple(sorted(set(row_keys(secret, persons, scope)["primary"])))


def row_keys(secret: bytes | None, persons: Persons, scope: str = LOCAL_SCOPE) -> dict[str, Any]:
    """Every key of every row a release reads, keyed per scope.

    ``primary`` (one per row); ``links`` (primary, another key of its row); ``lookups`` (primary, the key a ledger
    before linking gave it); ``contents`` (primary, keyed content digest, kind); ``upload`` (every content of the
    whole upload, read or not, and its kind: 0 the whole row, 1 without the person column); ``origin`` (the upload's
    keyed fingerprint).

    An id names its row's primary key (the digest earlier versions gave it). Without an id the primary key is the
    row's content *as found in this upload* (:func:`content_key` of origin and content), so that rows of unrelated
    cohorts that happen to coincide stay apart; the store links contents across uploads it recognises as the same
    people (:data:`dpcore.core.persons.RECOGNITION_SHARE`). Each distinct content is keyed once.
    """
    key = _scope_key(secret, scope)
    ids, contents, legacy = persons.keyed_rows()
    origin = _digests(key, [persons.origin], "origin\x00")[0] if persons.origin else ""
    keyed = [dict(zip(unique, _digests(key, unique, "content\x00")))
             for unique in (pd.unique(column) for column in persons.contents)]
    content_digests = [[table[c] for c in column] for table, column in zip(keyed, contents)]
    own = [[content_key(origin, d) for d in kind] for kind in content_digests]
    primary = own[0] if persons.source == WHOLE_ROW else _digests(key, ids)
    links = {(p, k) for kind in own for p, k in zip(primary, kind) if k != p}
    lookups = set()
    if legacy is not None:
        lookups = {(p, k) for p, k in zip(primary, _digests(key, legacy)) if k != p}
    return {"primary": primary, "links": tuple(sorted(links)), "lookups": tuple(sorted(lookups)),
            "contents": tuple(sorted({(p, d, kind) for kind, column in enumerate(content_digests)
                                      for p, d in zip(primary, column)})),
            "upload": tuple(sorted((d, kind) for kind, table in enumerate(keyed) for d in set(table.values()))),
            "origin": origin}


@dataclass(frozen=True)
class RecordsRead:
    """Schema version 2's key of a data set: the values a release reads, record by record (kept only to find data
    sets recorded under it; their spend carries over to the persons of a release on the same data)."""

    fingerprint: str

    @classmethod
    def of(cls, columns: Sequence[Any] = (), *, exchangeable: Any = None) -> "RecordsRead":
        """From the role columns (in the method's role order) and an optional matrix of order-free columns."""
        parts = [legacy_cells(c) for c in columns]
        if exchangeable is not None:
            matrix = np.asarray(exchangeable, dtype=float)
            if matrix.ndim == 1:
                matrix = matrix[:, None]
            varying = matrix[:, np.ptp(matrix, axis=0) > 0] if len(matrix) else matrix
            parts += [legacy_cells(c) for c in np.sort(varying, axis=1).T]
        parts = [p for p in parts if p.nunique(dropna=False) > 1] or parts[:1]
        if not parts:
            raise ValueError("a release reads at least one column")
        hashes = _row_hashes(pd.DataFrame({i: p.to_numpy() for i, p in enumerate(parts)}))
        return cls(fingerprint("records", np.sort(hashes)))

    @classmethod
    def ids(cls, namespace: str, record_ids: Sequence[str]) -> "RecordsRead":
        """Records named by public identifiers (a bundled set's documented ids), whatever a release reads of them."""
        hashes = _row_hashes(pd.DataFrame({"id": [f"{namespace}:{r}" for r in record_ids]}))
        return cls(fingerprint("ids", namespace, np.sort(hashes)))


def _mac(secret: bytes, *parts: bytes) -> str:
    return hmac.new(secret, b"\x00".join(parts), hashlib.sha256).hexdigest()[:32]


def dataset_key(secret: bytes | None, fingerprint_: str, scope: str = LOCAL_SCOPE) -> str:
    """HMAC of (scope, fingerprint); the local scope keeps the keys earlier versions gave (HMAC of the fingerprint)."""
    if secret is None:  # the in-memory ledger (notebooks, tests): nothing stored, nothing to key against
        return fingerprint_ if scope == LOCAL_SCOPE else f"{scope}/{fingerprint_}"
    if scope == LOCAL_SCOPE:
        return hmac.new(secret, fingerprint_.encode(), hashlib.sha256).hexdigest()[:32]
    return _mac(secret, b"scope", scope.encode(), fingerprint_.encode())



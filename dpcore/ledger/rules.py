"""Privacy ledger: every release, per data set, under basic composition, with caps that refuse.

:class:`Ledger` holds the rules (validation, caps, composition, messages); a
*store* holds the records. ``Ledger()`` keeps them in memory (notebooks,
tests); ``dpcore.ledger_store.open_ledger`` gives the durable ledger a deployment uses, in
SQLite or PostgreSQL (:func:`dpcore.ledger_store.open_ledger`), shared by every session
and server process. No module-level ledger exists: one shared by default, as
diffprivlib's accountant, would mix unrelated deployments.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np
import pandas as pd


class BudgetExceeded(RuntimeError):
    """A release would take a data set's total (ε, δ) past its cap."""


def fingerprint(*parts: Any) -> str:
    """Short SHA-256 fingerprint of a data set (bytes, arrays, frames or strings).

    The ledger is keyed by content, not by file name, so the same data
    uploaded twice (or under another name) shares one budget.
    """
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


def table_fingerprint(frame: pd.DataFrame) -> str:
    """Fingerprint of an uploaded table's *content*: the same for any column order, row order, number
    format (``1`` = ``1.0``), line endings, byte-order mark or file name.

    Hashing the file's bytes would give the same data re-saved by a spreadsheet a fresh budget (and no
    cap). Cells that parse as numbers are compared as numbers, others as stripped text.
    """
    columns = sorted(frame.columns)
    canonical = pd.DataFrame({c: _canonical_cells(frame[c]) for c in columns})
    rows = np.sort(pd.util.hash_pandas_object(canonical, index=False).to_numpy())
    return fingerprint("table", tuple(columns), rows)


def _canonical_cells(column: pd.Series) -> pd.Series:
    number = pd.to_numeric(column, errors="coerce").astype(object)
    return number.where(number.notna(), column.astype(str).str.strip())


#: ``ReleaseRecord.status``: charged, values not (yet) recorded — a release interrupted after its charge keeps it
CHARGED = "charged"
#: the release was drawn and its exported JSON is in ``ReleaseRecord.values``
RELEASED = "released"
#: drawing failed after the charge (noise drawn is budget spent: the charge stays)
FAILED = "failed"


@dataclass(frozen=True)
class ReleaseRecord:
    """One charged release: what, on which data, at what cost, when, from where, and what left."""

    dataset: str
    method: str
    epsilon: float
    delta: float
    params: Mapping[str, Any]
    parts: Mapping[str, float] = field(default_factory=dict)
    relation: str = "replace-one"
    time: str = ""
    page: str = ""
    session: str = ""
    status: str = CHARGED
    #: the released DP values as exported (``ReleaseBundle.to_json()``); empty unless ``status == RELEASED``
    values: str = ""
    id: int = 0


@dataclass(frozen=True)
class Budget:
    epsilon: float
    delta: float = 0.0


Costs = Sequence[tuple[float, float]]


class Store(Protocol):
    """Where a :class:`Ledger` keeps data sets, releases and audits (memory, SQLite, PostgreSQL).

    ``charge`` and ``set_cap`` are atomic: ``check`` sees every cost already charged to the data set (and its
    stored cap) with no other charge or cap change in between, and raises to refuse.
    """

    def charge(self, record: ReleaseRecord, label: str,
               check: Callable[[Costs, Budget | None], None]) -> ReleaseRecord: ...
    def set_cap(self, dataset: str, label: str, cap: Budget, check: Callable[[Costs], None]) -> None: ...
    def finish(self, record_id: int, status: str, values: str) -> None: ...
    def label(self, dataset: str, name: str) -> None: ...
    def datasets(self) -> list[tuple[str, str, Budget | None]]: ...
    def costs(self, dataset: str) -> list[tuple[float, float]]: ...
    def records(self, dataset: str | None, with_values: bool) -> list[ReleaseRecord]: ...
    def add_audit(self, subject: str, summary: str, time: str) -> None: ...
    def audits(self) -> list[dict[str, Any]]: ...


class MemoryStore:
    """The in-memory store of ``Ledger()``: gone with the process (notebooks, tests)."""

    def __init__(self) -> None:
        self._records: list[ReleaseRecord] = []
        self._labels: dict[str, str] = {}
        self._caps: dict[str, Budget] = {}
        self._audits: list[dict[str, Any]] = []
        self._lock = threading.Lock()  # one ledger object, many threads (a notebook's, a test's): still atomic

    def charge(self, record, label, check):
        with self._lock:
            check(self.costs(record.dataset), self._caps.get(record.dataset))
            self._labels.setdefault(record.dataset, label or record.dataset)
            stored = replace(record, id=len(self._records) + 1)
            self._records.append(stored)
            return stored

    def set_cap(self, dataset, label, cap, check):
        with self._lock:
            check(self.costs(dataset))
            self._labels.setdefault(dataset, label or dataset)
            self._caps[dataset] = cap

    def finish(self, record_id, status, values):
        with self._lock:
            self._records[record_id - 1] = replace(self._records[record_id - 1], status=status, values=values)

    def label(self, dataset, name):
        self._labels.setdefault(dataset, name)

    def datasets(self):
        used = dict.fromkeys([r.dataset for r in self._records] + list(self._caps))
        return [(ds, self._labels.get(ds, ds), self._caps.get(ds)) for ds in used]

    def costs(self, dataset):
        return [(r.epsilon, r.delta) for r in self._records if r.dataset == dataset]

    def records(self, dataset, with_values):
        chosen = [r for r in self._records if dataset is None or r.dataset == dataset]
        return chosen if with_values else [replace(r, values="") for r in chosen]

    def add_audit(self, subject, summary, time):
        with self._lock:
            self._audits.append({"id": len(self._audits) + 1, "subject": subject, "summary": json.loads(summary),
                                 "time": time})

    def audits(self):
        return [dict(a) for a in self._audits]


def utc_now() -> str:
    """The time a ledger records: UTC, ISO 8601, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _valid_cost(epsilon: float, delta: float, what: str) -> None:
    if not (epsilon > 0 and math.isfinite(epsilon)) or not (0 <= delta < 1):
        raise ValueError(f"{what} needs 0 < ε < ∞ and 0 ≤ δ < 1")


def _total(costs: Costs) -> tuple[float, float]:
    return math.fsum(c[0] for c in costs), math.fsum(c[1] for c in costs)


class Ledger:
    """Per-data-set releases with totals (basic composition) and caps that refuse.

    ``Ledger()`` keeps everything in memory. A deployment's ledger (``dpcore.ledger_store.open_ledger``) has a durable
    ``store``, a ``secret`` that keys data sets by HMAC (:meth:`dataset_key`), and configured caps: a
    ``default_cap`` for every data set and per-data-set ``caps``; these are ceilings — :meth:`set_budget`
    may lower a data set's cap, never raise it above them.
    """

    def __init__(self, store: Store | None = None, *, secret: bytes | None = None,
                 default_cap: Budget | None = None, caps: Mapping[str, Budget] | None = None,
                 location: str = "in memory") -> None:
        self._store: Store = store if store is not None else MemoryStore()
        self._secret = secret
        self._default_cap = default_cap
        self._caps = dict(caps or {})
        #: which back end keeps the records, for people (no path, host or password: the Ledger page shows it)
        self.location = location

    def dataset_key(self, fingerprint: str) -> str:
        """The key a data set's fingerprint is recorded under: HMAC-SHA256 with the ledger's secret.

        Whoever reads the database without the secret cannot confirm a guess about the data by hashing
        candidate tables. The in-memory ledger (no secret, nothing stored) uses the fingerprint itself.
        """
        if self._secret is None:
            return fingerprint
        return hmac.new(self._secret, fingerprint.encode(), hashlib.sha256).hexdigest()[:32]

    # -- budgets -----------------------------------------------------------
    def ceiling(self, dataset: str) -> Budget | None:
        """The configured cap of ``dataset`` (its own, else the deployment's default); ``None`` if none."""
        return self._caps.get(dataset, self._default_cap)

    def set_budget(self, dataset: str, epsilon: float, delta: float = 0.0, *, label: str = "") -> None:
        """Cap the total (ε, δ) of ``dataset``; a cap below what is spent, or above the ceiling, is refused."""
        _valid_cost(epsilon, delta, "a budget")
        ceiling = self.ceiling(dataset)
        if ceiling is not None and (epsilon > ceiling.epsilon + 1e-12 or delta > ceiling.delta + 1e-15):
            raise ValueError(
                f"The deployment's configuration caps this data set at ε = {ceiling.epsilon:g}, "
                f"δ = {ceiling.delta:g}; a cap can be lowered here, not raised above that."
            )

        def check(costs: Costs) -> None:
            spent_eps, spent_delta = _total(costs)
            if spent_eps > epsilon + 1e-12 or spent_delta > delta + 1e-15:
                raise BudgetExceeded(
                    f"this data set has already spent ε = {spent_eps:g}, δ = {spent_delta:g}; "
                    f"a cap of ε = {epsilon:g}, δ = {delta:g} would already be exceeded"
                )

        self._store.set_cap(dataset, label, Budget(float(epsilon), float(delta)), check)

    def budget(self, dataset: str) -> Budget | None:
        """The cap in force: the lower of the one set here and the configured ceiling (``None``: no cap)."""
        stored = next((cap for ds, _, cap in self._store.datasets() if ds == dataset), None)
        return self._effective(dataset, stored)

    def _effective(self, dataset: str, stored: Budget | None) -> Budget | None:
        ceiling = self.ceiling(dataset)
        if stored is None or ceiling is None:
            return stored or ceiling
        return Budget(min(stored.epsilon, ceiling.epsilon), min(stored.delta, ceiling.delta))

    def label(self, dataset: str, name: str) -> None:
        """Attach a human-readable name (e.g. "Veteran (bundled)") to a key; the first name given is kept."""
        self._store.label(dataset, name)

    def name_of(self, dataset: str) -> str:
        return next((name for ds, name, _ in self._store.datasets() if ds == dataset), dataset)

    # -- spending ----------------------------------------------------------
    def spent(self, dataset: str) -> tuple[float, float]:
        """Total (ε, δ) spent on ``dataset`` by basic sequential composition."""
        return _total(self._store.costs(dataset))

    def remaining(self, dataset: str) -> tuple[float, float] | None:
        cap = self.budget(dataset)
        if cap is None:
            return None
        eps, delta = self.spent(dataset)
        return (max(cap.epsilon - eps, 0.0), max(cap.delta - delta, 0.0))

    def _refuse_past_cap(self, dataset: str, label: str, epsilon: float, delta: float,
                         costs: Costs, stored: Budget | None) -> None:
        cap = self._effective(dataset, stored)
        if cap is None:
            return
        eps, dl = _total(costs)
        if eps + epsilon > cap.epsilon + 1e-12 or dl + delta > cap.delta + 1e-15:
            raise BudgetExceeded(
                f"This release costs ε = {epsilon:g}, δ = {delta:g}, but "
                f"{label or self.name_of(dataset)} has ε = {max(cap.epsilon - eps, 0):g}, "
                f"δ = {max(cap.delta - dl, 0):g} left of its cap (ε = {cap.epsilon:g}, δ = {cap.delta:g})."
            )

    def check(self, dataset: str, epsilon: float, delta: float = 0.0) -> None:
        """Raise :class:`BudgetExceeded` if charging (ε, δ) now would pass the cap (advice: :meth:`charge` decides)."""
        _valid_cost(epsilon, delta, "a release")
        stored = next((cap for ds, _, cap in self._store.datasets() if ds == dataset), None)
        self._refuse_past_cap(dataset, "", epsilon, delta, self._store.costs(dataset), stored)

    def charge(
        self,
        dataset: str,
        method: str,
        epsilon: float,
        delta: float = 0.0,
        *,
        params: Mapping[str, Any] | None = None,
        parts: Mapping[str, float] | None = None,
        relation: str = "replace-one",
        label: str = "",
        page: str = "",
        session: str = "",
    ) -> ReleaseRecord:
        """Check the cap and record the release in one atomic step; returns the stored record.

        Charge *before* drawing: the record says ``charged`` until :meth:`record_values` (or
        :meth:`record_failure`) completes it, and the charge stays whatever happens after it.
        """
        _valid_cost(epsilon, delta, "a release")
        if parts:
            total = math.fsum(parts.values())
            if abs(total - epsilon) > 1e-9 * max(1.0, epsilon):
                raise ValueError(f"budget parts sum to {total:g}, not to ε = {epsilon:g}")
        record = ReleaseRecord(
            dataset=dataset, method=method, epsilon=float(epsilon), delta=float(delta),
            params={str(k): v for k, v in (params or {}).items()},
            parts={str(k): float(v) for k, v in (parts or {}).items()},
            relation=relation, time=utc_now(), page=page, session=session,
        )
        return self._store.charge(
            record, label, lambda costs, stored: self._refuse_past_cap(dataset, label, epsilon, delta, costs, stored)
        )

    def record_values(self, record: ReleaseRecord, values: str) -> None:
        """Store what a charged release exported (its JSON: DP values and public parameters only)."""
        self._store.finish(record.id, RELEASED, values)

    def record_failure(self, record: ReleaseRecord) -> None:
        """Mark a charged release whose drawing failed; its charge stays."""
        self._store.finish(record.id, FAILED, "")

    # -- audits ------------------------------------------------------------
    def record_audit(self, subject: str, summary: Mapping[str, Any]) -> None:
        """Keep an audit result (JSON-serialisable summary) with the releases, to cite it later."""
        text = json.dumps(dict(summary), default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v))
        self._store.add_audit(subject, text, utc_now())

    def audit_records(self) -> list[dict]:
        """Every recorded audit, oldest first: ``{"id", "subject", "summary", "time"}``."""
        return self._store.audits()

    # -- reading -----------------------------------------------------------
    def records(self, dataset: str | None = None, *, with_values: bool = False) -> list[ReleaseRecord]:
        """Releases, oldest first (all data sets when ``dataset`` is None); ``with_values`` loads the exports."""
        return self._store.records(dataset, with_values)

    def datasets(self) -> list[str]:
        return [ds for ds, _, _ in self._store.datasets()]

    def summary(self, session: str = "") -> list[dict[str, Any]]:
        """One row per data set: name, key, releases (and how many from ``session``), ε and δ spent, cap."""
        records = self.records()
        rows = []
        for ds, name, stored in self._store.datasets():
            mine = [r for r in records if r.dataset == ds]
            eps, delta = _total([(r.epsilon, r.delta) for r in mine])
            cap = self._effective(ds, stored)
            row = {"data set": name, "key": ds, "releases": len(mine), "ε spent": eps, "δ spent": delta,
                   "ε cap": cap.epsilon if cap else None, "δ cap": cap.delta if cap else None}
            if session:
                row["this session"] = sum(r.session == session for r in mine)
            rows.append(row)
        return rows


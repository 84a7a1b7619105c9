"""The ledger's rules: every release per data set under basic composition, caps that refuse, overlaps charged.

:class:`Ledger` holds the rules (validation, caps, composition, which data sets a release touches, messages); a
*store* holds the records: :class:`MemoryStore` here (notebooks, tests), SQLite or PostgreSQL in
:mod:`dpcore.ledger.stores`. Which budget a release is charged to is :mod:`dpcore.ledger.keys`' rule. No
module-level ledger exists: one shared by default, as diffprivlib's accountant, would mix unrelated deployments.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from dpcore.ledger.keys import LOCAL_SCOPE, RecordsRead, dataset_key, record_digests, shares_people


class BudgetExceeded(RuntimeError):
    """A release would take a data set's total (ε, δ) past its cap."""


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
    #: who made it (a signed-in person's id; "local" in the embedded default)
    actor: str = ""
    #: 0 for a release on this data set; else the id of the release on another data set sharing records with it
    via: int = 0


@dataclass(frozen=True)
class Budget:
    epsilon: float
    delta: float = 0.0


Costs = Sequence[tuple[float, float]]
#: per data set a release touches: what is already charged to it and the cap stored for it
Standing = Mapping[str, tuple[Costs, "Budget | None"]]


@dataclass(frozen=True)
class Holding:
    """A data set as one custodian holds it: its key, the scope that owns it, its records' keyed digests, and the
    keys earlier versions gave the same data (still valid: charged alongside)."""

    key: str
    scope: str = LOCAL_SCOPE
    digests: tuple[str, ...] = ()
    legacy: tuple[str, ...] = ()


@dataclass(frozen=True)
class DatasetRow:
    key: str
    label: str
    cap: "Budget | None"
    owner: str = LOCAL_SCOPE


class Store(Protocol):
    """Where a :class:`Ledger` keeps data sets, releases, caps, grants and audits (memory, SQLite, PostgreSQL).

    ``charge`` and ``set_cap`` are atomic: ``check`` sees every cost already charged to each data set involved
    (and its stored cap) with no other charge or cap change in between, and raises to refuse. ``charge`` records
    the holding (owner, digests) and involves every data set of the same owner it shares a digest or legacy key
    with; ``scopes=None`` reads every owner (the server's own use), a tuple reads those owners only.
    """

    def charge(self, holding: Holding, label: str, record: ReleaseRecord,
               check: Callable[[Standing], None]) -> ReleaseRecord: ...
    def overlaps(self, holding: Holding) -> list[str]: ...
    def set_cap(self, dataset: str, scope: str, label: str, cap: Budget, actor: str,
                check: Callable[[Costs], None]) -> None: ...
    def finish(self, record_id: int, status: str, values: str) -> None: ...
    def label(self, dataset: str, scope: str, name: str) -> None: ...
    def datasets(self, scopes: Sequence[str] | None) -> list[DatasetRow]: ...
    def costs(self, dataset: str) -> list[tuple[float, float]]: ...
    def records(self, dataset: str | None, scopes: Sequence[str] | None, with_values: bool) -> list[ReleaseRecord]: ...
    def cap_changes(self, dataset: str) -> list[dict[str, Any]]: ...
    def grant(self, owner: str, reviewer: str, actor: str, time: str) -> None: ...
    def grants(self) -> list[tuple[str, str]]: ...
    def add_audit(self, subject: str, summary: str, time: str) -> None: ...
    def audits(self) -> list[dict[str, Any]]: ...


class MemoryStore:
    """The in-memory store of ``Ledger()``: gone with the process (notebooks, tests)."""

    def __init__(self) -> None:
        self._records: list[ReleaseRecord] = []
        self._datasets: dict[str, DatasetRow] = {}
        self._digests: dict[str, set[str]] = {}
        self._cap_changes: list[dict[str, Any]] = []
        self._grants: list[tuple[str, str]] = []
        self._audits: list[dict[str, Any]] = []
        self._lock = threading.RLock()  # one ledger object, many threads (a notebook's, a test's): still atomic

    def _ensure(self, key: str, scope: str, label: str) -> DatasetRow:
        row = self._datasets.setdefault(key, DatasetRow(key, label or key, None, scope))
        if row.owner != scope:
            raise PermissionError("no data set of yours has this key")
        return row

    def charge(self, holding, label, record, check):
        with self._lock:
            self._ensure(holding.key, holding.scope, label)
            involved = [holding.key] + self.overlaps(holding)
            self._digests.setdefault(holding.key, set()).update(holding.digests)
            check({ds: (self.costs(ds), self._datasets[ds].cap) for ds in involved})
            main = replace(record, dataset=holding.key, id=len(self._records) + 1)
            self._records.append(main)
            for ds in involved[1:]:
                self._records.append(replace(record, dataset=ds, via=main.id, id=len(self._records) + 1))
            return main

    def overlaps(self, holding):
        with self._lock:
            wanted = set(holding.digests)
            mine = [ds for ds, row in self._datasets.items() if row.owner == holding.scope and ds != holding.key]
            return [ds for ds in mine if ds in holding.legacy or shares_people(
                len(wanted & self._digests.get(ds, set())), len(wanted), len(self._digests.get(ds, set())))]

    def set_cap(self, dataset, scope, label, cap, actor, check):
        with self._lock:
            row = self._ensure(dataset, scope, label)
            check(self.costs(dataset))
            self._datasets[dataset] = replace(row, cap=cap)
            self._cap_changes.append({"dataset": dataset, "actor": actor, "epsilon": cap.epsilon,
                                      "delta": cap.delta, "time": utc_now()})

    def finish(self, record_id, status, values):
        with self._lock:
            for i, r in enumerate(self._records):
                if r.id == record_id or r.via == record_id:
                    self._records[i] = replace(r, status=status, values=values)

    def label(self, dataset, scope, name):
        with self._lock:
            self._datasets.setdefault(dataset, DatasetRow(dataset, name, None, scope))

    def datasets(self, scopes):
        used = {r.dataset for r in self._records}
        return [row for row in self._datasets.values()
                if (row.cap is not None or row.key in used) and (scopes is None or row.owner in scopes)]

    def costs(self, dataset):
        return [(r.epsilon, r.delta) for r in self._records if r.dataset == dataset]

    def records(self, dataset, scopes, with_values):
        chosen = [r for r in self._records if (dataset is None or r.dataset == dataset)
                  and (scopes is None or self._datasets[r.dataset].owner in scopes)]
        return chosen if with_values else [replace(r, values="") for r in chosen]

    def cap_changes(self, dataset):
        return [dict(c) for c in self._cap_changes if c["dataset"] == dataset]

    def grant(self, owner, reviewer, actor, time):
        with self._lock:
            if (owner, reviewer) not in self._grants:
                self._grants.append((owner, reviewer))

    def grants(self):
        return list(self._grants)

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
    """Per-data-set releases with totals (basic composition), caps that refuse, and overlapping data sets charged.

    ``Ledger()`` keeps everything in memory. A deployment's ledger (:func:`dpcore.ledger.open_ledger`) has a durable
    ``store``, a ``secret`` that keys data sets and record digests by HMAC (:mod:`dpcore.ledger.keys`), and
    configured caps: a ``default_cap`` for every data set and per-data-set ``caps``; these are ceilings —
    :meth:`set_budget` may lower a data set's cap, never raise it above them.

    A data set is named either by its key (a string: the local scope, no digests) or by a :class:`Holding`
    (:meth:`holding`), which also says who owns it and which records it holds. Reading methods take ``scopes``: the
    owners whose data sets a caller may see (``None``: all, for the server's own use and notebooks).
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

    # -- keys --------------------------------------------------------------
    def dataset_key(self, fingerprint: str, scope: str = LOCAL_SCOPE) -> str:
        """The key a data set's fingerprint is recorded under in ``scope`` (:func:`dpcore.ledger.keys.dataset_key`)."""
        return dataset_key(self._secret, fingerprint, scope)

    def holding(self, data: RecordsRead | str, scope: str = LOCAL_SCOPE, *,
                legacy_fingerprints: Iterable[str] = ()) -> Holding:
        """The data set ``scope`` holds: keyed by the records read (or a fingerprint), with its keyed digests and
        the keys earlier versions gave the same data (``legacy_fingerprints``, e.g. a whole-table fingerprint)."""
        if isinstance(data, RecordsRead):
            key = self.dataset_key(data.fingerprint, scope)
            digests = record_digests(self._secret, data.records, scope)
        else:
            key, digests = self.dataset_key(data, scope), ()
        legacy = tuple(k for k in dict.fromkeys(self.dataset_key(f, scope) for f in legacy_fingerprints) if k != key)
        return Holding(key, scope, digests, legacy)

    @staticmethod
    def _as_holding(dataset: str | Holding) -> Holding:
        return dataset if isinstance(dataset, Holding) else Holding(dataset)

    # -- budgets -----------------------------------------------------------
    def ceiling(self, dataset: str) -> Budget | None:
        """The configured cap of ``dataset`` (its own, else the deployment's default); ``None`` if none."""
        return self._caps.get(dataset, self._default_cap)

    def set_budget(self, dataset: str, epsilon: float, delta: float = 0.0, *, label: str = "",
                   scope: str = LOCAL_SCOPE, actor: str = "") -> None:
        """Cap the total (ε, δ) of ``dataset``; refused below what is spent, above the ceiling, or outside ``scope``
        (only a data set's own custodian changes its cap; the change is recorded with ``actor``)."""
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

        self._store.set_cap(dataset, scope, label, Budget(float(epsilon), float(delta)), actor, check)

    def _row(self, dataset: str) -> DatasetRow | None:
        return next((row for row in self._store.datasets(None) if row.key == dataset), None)

    def budget(self, dataset: str) -> Budget | None:
        """The cap in force: the lower of the one set here and the configured ceiling (``None``: no cap)."""
        row = self._row(dataset)
        return self._effective(dataset, row.cap if row else None)

    def _effective(self, dataset: str, stored: Budget | None) -> Budget | None:
        ceiling = self.ceiling(dataset)
        if stored is None or ceiling is None:
            return stored or ceiling
        return Budget(min(stored.epsilon, ceiling.epsilon), min(stored.delta, ceiling.delta))

    def label(self, dataset: str | Holding, name: str) -> None:
        """Attach a human-readable name (e.g. "Veteran (bundled)") to a key; the first name given is kept."""
        holding = self._as_holding(dataset)
        self._store.label(holding.key, holding.scope, name)

    def name_of(self, dataset: str) -> str:
        row = self._row(dataset)
        return row.label if row else dataset

    # -- spending ----------------------------------------------------------
    def overlapping(self, dataset: str | Holding) -> list[str]:
        """The other data sets of the same owner this one shares records (or an earlier key) with."""
        holding = self._as_holding(dataset)
        return self._store.overlaps(holding) if holding.digests or holding.legacy else []

    def spent(self, dataset: str | Holding) -> tuple[float, float]:
        """Total (ε, δ) charged to this data set (its own releases and those on data sets sharing its records)."""
        return _total(self._store.costs(self._as_holding(dataset).key))

    def remaining(self, dataset: str | Holding) -> tuple[float, float] | None:
        """What a release may still cost here: the least left under the cap of this data set and of every data set
        of the same owner it shares records with (``None``: no cap anywhere)."""
        holding = self._as_holding(dataset)
        left = []
        for ds in [holding.key] + self.overlapping(holding):
            cap = self.budget(ds)
            if cap is not None:
                eps, delta = self.spent(ds)
                left.append((max(cap.epsilon - eps, 0.0), max(cap.delta - delta, 0.0)))
        return (min(e for e, _ in left), min(d for _, d in left)) if left else None

    def _refuse_past_caps(self, holding: Holding, label: str, epsilon: float, delta: float,
                          standing: Standing) -> None:
        for ds, (costs, stored) in standing.items():
            cap = self._effective(ds, stored)
            if cap is None:
                continue
            eps, dl = _total(costs)
            if eps + epsilon > cap.epsilon + 1e-12 or dl + delta > cap.delta + 1e-15:
                name = label if ds == holding.key and label else self.name_of(ds)
                shared = "" if ds == holding.key else " (it shares records with this data set)"
                raise BudgetExceeded(
                    f"This release costs ε = {epsilon:g}, δ = {delta:g}, but {name}{shared} has "
                    f"ε = {max(cap.epsilon - eps, 0):g}, δ = {max(cap.delta - dl, 0):g} left of its cap "
                    f"(ε = {cap.epsilon:g}, δ = {cap.delta:g})."
                )

    def check(self, dataset: str | Holding, epsilon: float, delta: float = 0.0) -> None:
        """Raise :class:`BudgetExceeded` if charging (ε, δ) now would pass a cap (advice: :meth:`charge` decides)."""
        _valid_cost(epsilon, delta, "a release")
        holding = self._as_holding(dataset)
        standing = {ds: (self._store.costs(ds), row.cap if (row := self._row(ds)) else None)
                    for ds in [holding.key] + self.overlapping(holding)}
        self._refuse_past_caps(holding, "", epsilon, delta, standing)

    def charge(
        self,
        dataset: str | Holding,
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
        actor: str = "",
    ) -> ReleaseRecord:
        """Check every cap involved and record the release in one atomic step; returns the stored record.

        The release is recorded on the data set and, with the same cost, on every data set of the same owner that
        shares records with it (their caps must hold too). Charge *before* drawing: the record says ``charged``
        until :meth:`record_values` (or :meth:`record_failure`) completes it, and the charge stays whatever happens.
        """
        _valid_cost(epsilon, delta, "a release")
        if parts:
            total = math.fsum(parts.values())
            if abs(total - epsilon) > 1e-9 * max(1.0, epsilon):
                raise ValueError(f"budget parts sum to {total:g}, not to ε = {epsilon:g}")
        holding = self._as_holding(dataset)
        record = ReleaseRecord(
            dataset=holding.key, method=method, epsilon=float(epsilon), delta=float(delta),
            params={str(k): v for k, v in (params or {}).items()},
            parts={str(k): float(v) for k, v in (parts or {}).items()},
            relation=relation, time=utc_now(), page=page, session=session, actor=actor,
        )
        return self._store.charge(
            holding, label, record,
            lambda standing: self._refuse_past_caps(holding, label, epsilon, delta, standing),
        )

    def record_values(self, record: ReleaseRecord, values: str) -> None:
        """Store what a charged release exported (its JSON: DP values and public parameters only)."""
        self._store.finish(record.id, RELEASED, values)

    def record_failure(self, record: ReleaseRecord) -> None:
        """Mark a charged release whose drawing failed; its charge stays."""
        self._store.finish(record.id, FAILED, "")

    # -- reviewers ---------------------------------------------------------
    def grant_review(self, owner: str, reviewer: str, *, actor: str = "") -> None:
        """Let ``reviewer`` read the ledger and reports of ``owner``'s data sets (recorded with who granted it)."""
        self._store.grant(owner, reviewer, actor, utc_now())

    def reviewed_scopes(self, reviewer: str) -> tuple[str, ...]:
        """The owners whose data sets ``reviewer`` was granted in the database."""
        return tuple(owner for owner, who in self._store.grants() if who == reviewer)

    def cap_changes(self, dataset: str) -> list[dict[str, Any]]:
        """Every cap set on ``dataset``: who, what, when."""
        return self._store.cap_changes(dataset)

    # -- audits ------------------------------------------------------------
    def record_audit(self, subject: str, summary: Mapping[str, Any]) -> None:
        """Keep an audit result (JSON-serialisable summary) with the releases, to cite it later."""
        text = json.dumps(dict(summary), default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v))
        self._store.add_audit(subject, text, utc_now())

    def audit_records(self) -> list[dict]:
        """Every recorded audit, oldest first: ``{"id", "subject", "summary", "time"}``."""
        return self._store.audits()

    # -- reading -----------------------------------------------------------
    def records(self, dataset: str | None = None, *, scopes: Sequence[str] | None = None,
                with_values: bool = False) -> list[ReleaseRecord]:
        """Releases, oldest first (all data sets of ``scopes`` when ``dataset`` is None); ``with_values`` loads the
        exports. A charge reaching a data set through shared records has ``via`` set."""
        return self._store.records(dataset, None if scopes is None else tuple(scopes), with_values)

    def datasets(self, scopes: Sequence[str] | None = None) -> list[str]:
        return [row.key for row in self._store.datasets(None if scopes is None else tuple(scopes))]

    def summary(self, session: str = "", *, scopes: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """One row per data set of ``scopes``: name, key, releases (and how many from ``session``), ε and δ spent, cap."""
        chosen = None if scopes is None else tuple(scopes)
        records = self.records(scopes=chosen)
        rows = []
        for row in self._store.datasets(chosen):
            mine = [r for r in records if r.dataset == row.key]
            eps, delta = _total([(r.epsilon, r.delta) for r in mine])
            cap = self._effective(row.key, row.cap)
            entry = {"data set": row.label, "key": row.key, "releases": len(mine), "ε spent": eps, "δ spent": delta,
                     "ε cap": cap.epsilon if cap else None, "δ cap": cap.delta if cap else None}
            if session:
                entry["this session"] = sum(r.session == session for r in mine)
            rows.append(entry)
        return rows

"""The ledger's rules: per-person budgets under basic composition, caps that refuse, histories shared by persons.

:class:`Ledger` holds the rules (validation, caps, composition, messages); a *store* holds the records: SQLite or
PostgreSQL in :mod:`dpcore.ledger.stores` (``Ledger()`` keeps an SQLite database in memory for notebooks and tests).
Who a person is, is :mod:`dpcore.ledger.keys`' rule. No module-level ledger exists: one shared by default, as
diffprivlib's accountant, would mix unrelated deployments.

**Per-person spend.** Every person of a custodian's scope points to a *history*: the chain of releases that read
them. A release on n persons moves each distinct history h among them to a new history h + release, so persons with
the same releases share one row and one accounting (computed once per history, not per person); a release reading
10⁶ people who share a handful of histories checks a handful of totals. A history's total is the composition of its
releases: the tight ε at the cap's δ (:mod:`dpcore.accounting`, from the privacy events the chain keeps) where the
cap has a δ, which caps are checked on, with basic composition (the sum of ε and of δ, :func:`compose`) beside it in
every view (:meth:`Ledger.most_charged`).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import lru_cache
from typing import Any, Mapping, Sequence

from dpcore import accounting
from dpcore.ledger.keys import LOCAL_SCOPE, Persons, dataset_key, row_keys
from dpcore.ledger.records import (  # noqa: F401 - the records are part of the rules' interface
    CHARGED,
    NOBODY,
    FAILED,
    RELEASED,
    Budget,
    DatasetRow,
    Holding,
    ReleaseRecord,
    Spend,
    Standing,
    chain,
    compose,
    utc_now,
)
from dpcore.ledger.stores import MemoryStore
from dpcore.core.mechanisms import check_budget
from dpcore.provenance import SettingsChoice


class BudgetExceeded(RuntimeError):
    """A release would take some person's total (ε, δ) past the cap."""


def _over(spend: tuple[float, float], cap: Budget) -> bool:
    return spend[0] > cap.epsilon + 1e-12 or spend[1] > cap.delta + 1e-15


@lru_cache(maxsize=256)
def _tight_epsilon(history_events: str, release_events: str, delta_total: float) -> float:
    """:meth:`Ledger.tight_epsilon`, kept per history (and release) and δ: the sidebar and the Ledger page ask for
    every history of every data set on each redraw, and parsing a long history's events costs milliseconds."""
    joined = chain(history_events, release_events)
    if joined == "[]":
        return 0.0
    return accounting.history(accounting.events_from_json(joined)).composition(delta_total).epsilon_tight


class Ledger:
    """Per-person budgets (basic composition), caps that refuse, durable when given a store.

    ``Ledger()`` keeps everything in memory. A deployment's ledger (:func:`dpcore.ledger.open_ledger`) has a durable
    ``store``, a ``secret`` that keys data sets and persons (:mod:`dpcore.ledger.keys`), and configured caps: a
    ``default_cap`` — the **per-person** cap of every data set without its own — and per-data-set ``caps``; these
    are ceilings: :meth:`set_budget` may lower a data set's cap, never raise it above them. A data set's cap binds
    every release made on it: no person it reads may pass it.

    A data set is named either by its key (a string: the data set is one person) or by a :class:`Holding`
    (:meth:`holding`), which also says who owns it and which persons a release reads. Reading methods take
    ``scopes``: the owners whose data sets a caller may see (``None``: all, for the server's own use and notebooks).
    """

    def __init__(self, store: Any = None, *, secret: bytes | None = None,
                 default_cap: Budget | None = None, caps: Mapping[str, Budget] | None = None,
                 location: str = "in memory", require_person_column: bool = False,
                 accountant: str = "tight") -> None:
        self._store = store if store is not None else MemoryStore()
        self._secret = secret
        self._default_cap = default_cap
        self._caps = dict(caps or {})
        #: which back end keeps the records, for people (no path, host or password: the Ledger page shows it)
        self.location = location
        #: the deployment refuses releases on uploads without a person column (whole rows as persons)
        self.require_person_column = require_person_column
        if accountant not in ("tight", "basic"):
            raise ValueError("the accountant is 'tight' (PLD / RDP, dpcore.accounting) or 'basic'")
        #: "tight": caps with a δ are checked on each person's tight ε at the cap's δ; "basic": the sum
        self.accountant = accountant

    # -- keys --------------------------------------------------------------
    def dataset_key(self, fingerprint: str, scope: str = LOCAL_SCOPE) -> str:
        """The key a data set's fingerprint is recorded under in ``scope`` (:func:`dpcore.ledger.keys.dataset_key`)."""
        return dataset_key(self._secret, fingerprint, scope)

    def holding(self, data: Persons | str, scope: str = LOCAL_SCOPE, *,
                legacy_fingerprints: Sequence[str] = ()) -> Holding:
        """What a release on ``data`` reads in ``scope``: the data set's key and its persons' keyed digests (or a
        fingerprint alone: the data set is one person), with the keys schema version 2 gave the same data
        (``legacy_fingerprints``: the values read, the whole table) so that their spend carries over."""
        legacy = tuple(k for k in dict.fromkeys(self.dataset_key(f, scope) for f in legacy_fingerprints)
                       if k != self.dataset_key(data.fingerprint if isinstance(data, Persons) else data, scope))
        if not isinstance(data, Persons):
            return Holding(self.dataset_key(data, scope), scope, (), legacy)
        keys = row_keys(self._secret, data, scope)
        return Holding(self.dataset_key(data.fingerprint, scope), scope, tuple(sorted(set(keys["primary"]))), legacy,
                       keys["links"], keys["lookups"], keys["contents"], keys["origin"], keys["upload"],
                       len(keys["primary"]))

    def simulated_holding(self, fingerprint: str, scope: str = LOCAL_SCOPE) -> Holding:
        """A release on simulated or synthetic data (a public seed, nobody real): recorded under its data set's key
        for the trail, charged to nobody, so no cap applies (``privacy.md``: one rule on every page)."""
        return Holding(self.dataset_key(fingerprint, scope), scope, nobody=True)

    def dataset_holding(self, dataset: str, scope: str = LOCAL_SCOPE) -> Holding:
        """A release on the persons an earlier data set's releases read (an FDR stream from that cohort): the same
        persons, whatever file the new release reads; refused outside ``scope``."""
        persons = tuple(self._store.dataset_persons(dataset, scope))
        if not persons:
            raise ValueError("no release of yours has read persons of this data set")
        return Holding(dataset, scope, persons, rows=len(persons))

    @staticmethod
    def _as_holding(dataset: str | Holding) -> Holding:
        return dataset if isinstance(dataset, Holding) else Holding(dataset)

    # -- budgets -----------------------------------------------------------
    def ceiling(self, dataset: str) -> Budget | None:
        """The configured per-person cap of ``dataset`` (its own, else the deployment's default); ``None``: none."""
        return self._caps.get(dataset, self._default_cap)

    def set_budget(self, dataset: str, epsilon: float, delta: float = 0.0, *, label: str = "",
                   scope: str = LOCAL_SCOPE, actor: str = "") -> None:
        """Cap what any person may have spent after a release on ``dataset``; refused below what one of its persons
        has spent, above the ceiling, or outside ``scope`` (only a data set's own custodian changes its cap; the
        change is recorded with ``actor``)."""
        check_budget(epsilon, delta, what="a budget")
        ceiling = self.ceiling(dataset)
        if ceiling is not None and (epsilon > ceiling.epsilon + 1e-12 or delta > ceiling.delta + 1e-15):
            raise ValueError(
                f"The deployment's configuration caps each person of this data set at ε = {ceiling.epsilon:g}, "
                f"δ = {ceiling.delta:g}; a cap can be lowered here, not raised above that."
            )
        cap = Budget(float(epsilon), float(delta))

        def check(spend: Sequence[Spend]) -> None:
            most = self.most_spent(Standing(tuple(spend), None), cap)
            if _over(most, cap):
                raise BudgetExceeded(
                    f"a person of this data set has already spent ε = {most[0]:g}, δ = {most[1]:g}; "
                    f"a cap of ε = {epsilon:g}, δ = {delta:g} would already be exceeded"
                )

        self._store.set_cap(dataset, scope, label, cap, actor, check)

    def _row(self, dataset: str) -> DatasetRow | None:
        return next((row for row in self._store.datasets(None) if row.key == dataset), None)

    def budget(self, dataset: str) -> Budget | None:
        """The per-person cap in force: the lower of the one set here and the configured ceiling (``None``: none)."""
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
    def standing(self, dataset: str | Holding) -> Standing:
        """The persons a release on ``dataset`` would read, grouped by what they have spent (every session and
        server process), and the data set's stored cap."""
        return self._store.standing(self._as_holding(dataset))

    def version(self) -> tuple[int, int]:
        """Changes whenever anything is charged or capped (in any session or process): a key for memos of standing."""
        return self._store.version()

    def spent(self, dataset: str | Holding) -> tuple[float, float]:
        """The most-charged person's (ε, δ) among those a release on ``dataset`` reads, as the cap is checked: ε by
        the tight accountant at the cap's δ where it applies (:meth:`tight_applies`), else basic composition; δ by
        basic composition."""
        holding = self._as_holding(dataset)
        standing = self.standing(holding)
        return self.most_spent(standing, self._effective(holding.key, standing.cap))

    def spent_basic(self, dataset: str | Holding) -> tuple[float, float]:
        """The most-charged person's total (ε, δ) by basic composition (the sum), shown beside the tight figure."""
        return self.standing(dataset).most()

    def remaining(self, dataset: str | Holding) -> tuple[float, float] | None:
        """What is left under the cap for the most-charged person a release on ``dataset`` reads (``None``: no
        cap). Under the tight accountant a release's δ is inside its ε, and its ε may cost less than its face value:
        :meth:`check` decides."""
        holding = self._as_holding(dataset)
        standing = self.standing(holding)
        cap = self._effective(holding.key, standing.cap)
        if cap is None:
            return None
        eps, delta = self.most_spent(standing, cap)
        return max(cap.epsilon - eps, 0.0), (cap.delta if self.tight_applies(cap) else max(cap.delta - delta, 0.0))

    def tight_applies(self, cap: Budget | None) -> bool:
        """Whether caps are checked by the tight accountant: it is on, and the cap has a δ to compose at."""
        return self.accountant == "tight" and cap is not None and cap.delta > 0

    def tight_epsilon(self, spend: Spend, delta_total: float, events: str = "") -> float:
        """A history's ε at total δ (PLD / RDP / basic, the smallest proven; ∞ if its (ε, δ) events' δ exceed it)
        with the release ``events`` (JSON) added."""
        return _tight_epsilon(spend.events, events, float(delta_total))

    def tight_spend(self, spend: Sequence[Spend], cap: Budget | None) -> list[Spend] | None:
        """``spend`` (one row per history) with each ε the tight ε at the cap's δ, the figure ``cap`` is checked on
        (δ stays the basic sum); ``None`` where the cap is checked on basic composition (:meth:`tight_applies`)."""
        if not self.tight_applies(cap):
            return None
        return [replace(s, epsilon=self.tight_epsilon(s, cap.delta)) for s in spend]

    def most_spent(self, standing: Standing, cap: Budget | None) -> tuple[float, float]:
        """The most-charged person's (ε, δ) in ``standing`` as ``cap`` is checked (tight ε where it applies)."""
        most = self.most_charged(standing.groups, cap)
        return self.checked_epsilon(most), most["δ spent"]

    @staticmethod
    def checked_epsilon(most: Mapping[str, float | None]) -> float:
        """The ε a :meth:`most_charged` row is checked against its cap on: tight where it applies, else the sum."""
        tight = most["ε spent (tight)"]
        return most["ε spent"] if tight is None else tight

    def most_charged(self, spend: Sequence[Spend], cap: Budget | None) -> dict[str, float | None]:
        """The most-charged person among ``spend`` (one row per history) against ``cap``, as every view shows it:
        ``"ε spent"``, ``"δ spent"`` by basic composition (the sums), ``"ε spent (tight)"`` the tight ε at the cap's δ
        that the cap is checked on (``None`` where it is checked on basic composition), ``"ε cap"``, ``"δ cap"``
        (``None``: no cap)."""
        tight = self.tight_spend(spend, cap)
        return {"ε spent": max((s.epsilon for s in spend), default=0.0),
                "δ spent": max((s.delta for s in spend), default=0.0),
                "ε spent (tight)": None if tight is None else max((s.epsilon for s in tight), default=0.0),
                "ε cap": cap.epsilon if cap else None, "δ cap": cap.delta if cap else None}

    def refusal(self, holding: Holding, standing: Standing, epsilon: float, delta: float, events: str,
                name: str = "") -> str:
        """Why a release of (ε, δ) with ``events`` (JSON) on ``holding`` would be refused ("" if it fits): how many
        of the persons it reads would pass the cap and by how much — never which ones."""
        cap = self._effective(holding.key, standing.cap)
        if cap is None:
            return ""
        basic = {g: compose(g, epsilon, delta) for g in standing.groups}
        if not any(_over(after, cap) for after in basic.values()):
            # Fits by basic composition of the proved (ε, δ) of every release: it fits, whatever a tighter
            # accountant says (its ε is the smallest proven, never above a basic sum that holds at cap.δ), so the
            # 0.1–0.9 s of PLD composition is spent only on a release basic composition would refuse.
            return ""
        if self.tight_applies(cap):
            after = {g: (self.tight_epsilon(g, cap.delta, events), cap.delta) for g in standing.groups}
            rule = f"by the tight accountant at δ = {cap.delta:g}"
        else:
            after = basic
            rule = "by basic composition"
        over = [g for g in standing.groups if _over(after[g], cap)]
        if not over:
            return ""
        count = sum(g.persons for g in over)
        by_eps = max(after[g][0] for g in over) - cap.epsilon
        by_delta = max(after[g][1] for g in over) - cap.delta
        excess = ", ".join(text for text, amount in ((f"ε = {by_eps:.4g}", by_eps), (f"δ = {by_delta:.3g}", by_delta))
                           if amount > 0)
        most = self.most_spent(standing, cap)
        return (f"This release costs ε = {epsilon:g}, δ = {delta:g} and reads {standing.persons:,} "
                f"{_people(standing.persons)} of {name or self.name_of(holding.key)}; it would take {count:,} of them "
                f"past the per-person cap (ε = {cap.epsilon:g}, δ = {cap.delta:g}) {rule}, by up to {excess}: the "
                f"most-charged has ε = {max(cap.epsilon - most[0], 0):.3g}, δ = {max(cap.delta - most[1], 0):.3g} left.")

    def _refuse_past_cap(self, holding: Holding, name: str, epsilon: float, delta: float, events: str,
                         standing: Standing) -> None:
        problem = self.refusal(holding, standing, epsilon, delta, events, name)
        if problem:
            raise BudgetExceeded(problem)

    @staticmethod
    def events_of(method: str, epsilon: float, delta: float, parts: Mapping[str, float] | None,
                  params: Mapping[str, Any] | None) -> str:
        """The privacy events a release runs (JSON), from what it is charged with (:mod:`dpcore.accounting`); one
        (ε, δ) event — basic composition, always sound — when its parameters do not describe it more tightly."""
        try:
            events = accounting.events_for_release(method, epsilon, delta, parts, params)
        except (ValueError, KeyError, TypeError):
            events = [accounting.ApproxDP(epsilon, delta)]
        return accounting.events_to_json(events)

    def check(self, dataset: str | Holding, epsilon: float, delta: float = 0.0, *, method: str = "",
              parts: Mapping[str, float] | None = None, params: Mapping[str, Any] | None = None) -> None:
        """Raise :class:`BudgetExceeded` if charging (ε, δ) now would pass a cap (advice: :meth:`charge` decides)."""
        check_budget(epsilon, delta, what="a release")
        holding = self._as_holding(dataset)
        events = self.events_of(method, epsilon, delta, parts, params)
        self._refuse_past_cap(holding, self.name_of(holding.key), epsilon, delta, events, self.standing(holding))

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
        source: str = "",
        settings: SettingsChoice | None = None,
        page: str = "",
        session: str = "",
        actor: str = "",
    ) -> ReleaseRecord:
        """Check every person the release reads against the cap and record the release in one atomic step.

        Every person read gets the release added to their history. ``label`` names the data set when this is its
        first release; ``source`` (default ``label``) is the file this release read, kept with it for the trail;
        ``settings`` how its settings were chosen (:mod:`dpcore.provenance`). Charge *before* drawing: the record says
        ``charged`` until :meth:`record_values` (or :meth:`record_failure`) completes it, and the charge stays
        whatever happens.
        """
        check_budget(epsilon, delta, what="a release")
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
            persons=NOBODY if holding.nobody else holding.rows or len(holding.read()), events=self.events_of(method, epsilon, delta, parts, params),
            source=source or label, settings=settings.to_json() if settings is not None else "",
        )
        name = label or self.name_of(holding.key)  # read before the transaction: the check reads nothing
        return self._store.charge(holding, label, record, lambda standing: self._refuse_past_cap(
            holding, name, epsilon, delta, record.events, standing))

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
        exports."""
        return self._store.records(dataset, None if scopes is None else tuple(scopes), with_values)

    def datasets(self, scopes: Sequence[str] | None = None) -> list[str]:
        return list(self.dataset_names(scopes))

    def dataset_names(self, scopes: Sequence[str] | None = None) -> dict[str, str]:
        """Each data set's key and name in ``scopes`` (one query, for lists drawn on every rerun)."""
        return {row.key: row.label for row in self._store.datasets(None if scopes is None else tuple(scopes))}

    def person_spend(self, scopes: Sequence[str] | None = None, dataset: str | None = None) -> list[Spend]:
        """Every person's spend in ``scopes`` (or among the persons ever read on ``dataset``), one row per history:
        how many persons have spent how much (the distribution a reviewer checks against the cap)."""
        return self._store.person_spend(None if scopes is None else tuple(scopes), dataset)

    def summary(self, session: str = "", *, scopes: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """One row per data set of ``scopes``: name, key, releases made on it (and how many from ``session``), the
        other files its releases read (``"also read as"``: the same persons in another file),
        persons read, the most-charged of them and the per-person cap (:meth:`most_charged`: basic composition, and
        the tight ε the cap is checked on where it applies)."""
        chosen = None if scopes is None else tuple(scopes)
        records = self.records(scopes=chosen)
        rows = []
        for row in self._store.datasets(chosen):
            mine = [r for r in records if r.dataset == row.key]
            spend = self.person_spend(chosen, row.key)
            files = [f for f in dict.fromkeys(r.read_from(row.label) for r in mine) if f != row.label]
            entry = {"data set": row.label, "key": row.key, "releases": len(mine), "also read as": files,
                     "persons": sum(s.persons for s in spend),
                     **self.most_charged(spend, self._effective(row.key, row.cap))}
            if session:
                entry["this session"] = sum(r.session == session for r in mine)
            rows.append(entry)
        return rows


def _people(n: int) -> str:
    return "person" if n == 1 else "people"

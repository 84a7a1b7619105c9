"""What the ledger records and reads back: releases, budgets, per-person spend, holdings (plain frozen values).

Shared by the rules (:mod:`dpcore.ledger.rules`) and the stores (:mod:`dpcore.ledger.stores`), which depend on these
and not on each other's internals. :func:`compose` is the one place a history's total is composed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

from dpcore.ledger.keys import LOCAL_SCOPE
from dpcore.provenance import SettingsChoice


#: ``ReleaseRecord.persons`` of a release on simulated or synthetic data: it read no real person and charged nobody
NOBODY = -1

#: ``ReleaseRecord.status``: charged, values not (yet) recorded — a release interrupted after its charge keeps it
CHARGED = "charged"
#: the release was drawn and its exported JSON is in ``ReleaseRecord.values``
RELEASED = "released"
#: drawing failed after the charge (noise drawn is budget spent: the charge stays)
FAILED = "failed"


@dataclass(frozen=True)
class ReleaseRecord:
    """One charged release: what, on which data set, at what cost, how many persons it read, when, from where."""

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
    #: schema version 2: 0 for a release on this data set; else the release on another data set sharing records
    via: int = 0
    #: the number of persons it read (0: a release recorded before per-person budgets, charged to its data set;
    #: :data:`NOBODY`: simulated or synthetic data, no real person read)
    persons: int = 0
    #: the privacy events it ran (JSON list; ``dpcore.accounting``), for the tight accountant
    events: str = ""
    #: the file (and what of it) it read, as its page named it: a data set keeps its first file's name
    source: str = ""
    #: how its settings were chosen (``dpcore.provenance.SettingsChoice`` as JSON; "" where not recorded)
    settings: str = ""

    def read_from(self, dataset_name: str) -> str:
        """What this release read, for the audit trail: its own file where recorded, else its data set's name."""
        return self.source or dataset_name

    def settings_choice(self) -> SettingsChoice:
        """How its settings were chosen (:data:`dpcore.provenance.UNKNOWN` for releases recorded before schema 6)."""
        return SettingsChoice.from_json(self.settings)


@dataclass(frozen=True)
class Budget:
    epsilon: float
    delta: float = 0.0


@dataclass(frozen=True)
class Spend:
    """What ``persons`` persons sharing one history have spent: the composition of ``releases`` releases, by basic
    composition (``epsilon``, ``delta``) and as the privacy events they ran (``events``: a JSON list, for the tight
    accountant; a release without a tighter description is one (ε, δ) event)."""

    epsilon: float
    delta: float
    persons: int
    releases: int = 0
    events: str = ""


def spend_in_words(most: Mapping[str, Any]) -> str:
    """What a most-charged person has spent, as one number to check against the cap and, where it differs, the
    releases' ε added up beside it (``Ledger.most_charged`` or a ``Ledger.summary`` row; :data:`SPEND_EXPLAINED`
    says why in one sentence)."""
    cap = f" of {most['ε cap']:g}" if most["ε cap"] is not None else ""
    delta = f", δ {most['δ spent']:.2g}" if most["δ spent"] else ""
    tight, basic = most["ε spent (tight)"], most["ε spent"]
    if tight is None:
        return f"ε {basic:.3g}{cap}{delta}"
    lead = f"ε {tight:.3g}{cap}"
    if abs(basic - tight) <= 5e-4 * max(1.0, basic):
        return lead
    return f"{lead} (their ε add up to {basic:.3g})"


#: the one plain sentence beside :func:`spend_in_words` (the sidebar, the release panel, the teaching notes)
SPEND_EXPLAINED = (
    "Spend is the number the cap is checked on: every release that read the person, composed tightly "
    "(dp-accounting's privacy-loss distributions at the cap's δ). It is never more than the releases' ε added up, "
    "shown in brackets where it differs: two Gaussian releases of ε 1 cost less together than 2.")


def compose(spend: Spend, epsilon: float, delta: float) -> tuple[float, float]:
    """A history's basic total after one more release of (ε, δ): basic sequential composition (sums)."""
    return spend.epsilon + epsilon, spend.delta + delta


def chain(*events: str) -> str:
    """Privacy-event lists (JSON) joined into one: a history's events are its parent's and its release's."""
    return json.dumps([e for text in events if text for e in json.loads(text)], sort_keys=True)


@dataclass(frozen=True)
class Standing:
    """The persons a release would read, grouped by history (their spend so far, including any spend carried over
    from data sets recorded under schema version 2), and the cap stored for the data set (``None``: none)."""

    groups: tuple[Spend, ...]
    cap: "Budget | None"

    @property
    def persons(self) -> int:
        return sum(g.persons for g in self.groups)

    @property
    def seen(self) -> int:
        """How many of them some earlier release read."""
        return sum(g.persons for g in self.groups if g.releases)

    def most(self) -> tuple[float, float]:
        """The most-charged person's (ε, δ) (0 when none was read before)."""
        return (max((g.epsilon for g in self.groups), default=0.0), max((g.delta for g in self.groups), default=0.0))


@dataclass(frozen=True)
class Holding:
    """A data set as one custodian holds it, read by one release: its key, the scope that owns it, the keyed
    digests of the persons the release reads, and the schema-2 keys of the same data (their spend carries over).

    Each person read is named by a primary digest (``persons``); ``links`` pair a primary with the other keys its
    row has (the store links them for good), ``lookups`` with keys earlier ledger versions gave it (followed, never
    created), ``contents`` with the keyed digests of its row's contents; the store recognises a re-export of an
    earlier upload by the contents of the whole ``upload`` (``origin``: its keyed fingerprint, whatever column
    names its persons).

    Without ``persons`` the data set itself is the one person (a notebook's ``ledger.charge("my-data", …)``)."""

    key: str
    scope: str = LOCAL_SCOPE
    persons: tuple[str, ...] = ()
    legacy: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()
    lookups: tuple[tuple[str, str], ...] = ()
    contents: tuple[tuple[str, str, int], ...] = ()
    origin: str = ""
    #: every content of the whole upload (read or not) and its kind: what the upload is recognised by
    upload: tuple[tuple[str, int], ...] = ()
    #: the rows the release reads (persons as declared: identical rows declared different people count apart)
    rows: int = 0
    #: simulated or synthetic data: no real person is read, so the release is recorded and charges nobody
    nobody: bool = False

    def read(self) -> tuple[str, ...]:
        if self.nobody:
            return ()
        return self.persons or (f"data set {self.key}",)


@dataclass(frozen=True)
class DatasetRow:
    key: str
    label: str
    cap: "Budget | None"
    owner: str = LOCAL_SCOPE


def utc_now() -> str:
    """The time a ledger records: UTC, ISO 8601, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")



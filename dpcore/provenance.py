"""How a release's settings were chosen, and what that means for its guarantee.

A release's (ε, δ) is proved for settings (ε itself, a grid, clipping bounds, a horizon) that do not depend on the
private rows (``privacy.md``: a parameter is public only if it does not). Settings moved while watching previews of
those rows do depend on them, and the choice can leak what no audit sees — an audit fixes the settings. Papernot &
Steinke (2022) quantify this for hyperparameter tuning. So every release records one of:

* :data:`FIXED` — every setting released is the one in force before any view of the private rows;
* :data:`SELECTED` — the settings that moved were chosen by a charged private selection (its own cost composes in
  the ledger with the release);
* :data:`CHANGED` — settings were changed after views computed from the private rows (listed, with what was seen);
* :data:`PUBLIC` — the data are simulated or public: no private row was read, the choice reveals nobody;
* :data:`UNKNOWN` — not recorded (a release from before the ledger kept it, or made outside the dashboard).

:class:`SettingsChoice` says it in one sentence (:meth:`~SettingsChoice.sentence`) and what it means for the
guarantee (:meth:`~SettingsChoice.meaning`); the release notes, the report, the ledger and its reviewer's view all
read these two, so they never disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

FIXED = "fixed"
SELECTED = "selected"
CHANGED = "changed"
PUBLIC = "public"
UNKNOWN = ""

#: what a page showed that was computed from the private rows (in the order they are listed)
PRIVATE_PREVIEWS = "private previews"
NON_PRIVATE_ANSWER = "the non-private answer"
FINDER = "the smallest-ε finder"
VIEWS = (PRIVATE_PREVIEWS, NON_PRIVATE_ANSWER, FINDER)

_HOW = {
    FIXED: "fixed before the private rows were read",
    SELECTED: "chosen by a charged private selection",
    CHANGED: "changed after previews that read the private rows",
    PUBLIC: "chosen on simulated or public data (no private rows)",
    UNKNOWN: "not recorded",
}

PAPER = "Papernot & Steinke 2022"


def _listed(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class SettingsChoice:
    """How the settings of one release were chosen: ``how`` (one of the constants above), the settings that changed
    after private views (``changed``), those views (``viewed``) and the charged private selections that chose
    settings (``selections``: plain descriptions, e.g. "ε = 0.8 by a private selection charged ε = 0.5")."""

    how: str = UNKNOWN
    changed: tuple[str, ...] = ()
    viewed: tuple[str, ...] = ()
    selections: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.how not in _HOW:
            raise ValueError(f"unknown way settings were chosen: {self.how!r}")

    @property
    def label(self) -> str:
        """A few words for a table cell: "changed after previews that read the private rows: ε, grid"."""
        text = _HOW[self.how]
        if self.how == CHANGED and self.changed:
            text += ": " + ", ".join(self.changed)
        return text

    def sentence(self) -> str:
        """How the settings were chosen, in one plain sentence."""
        chosen = f" ({'; '.join(c.rstrip('.') for c in self.selections)})" if self.selections else ""
        if self.how == FIXED:
            seen = f" ({_listed(self.viewed)} were shown, but no setting changed after them)" if self.viewed else ""
            return ("Its settings were fixed before the private rows were read: every setting released is the one in "
                    f"force before anything computed from these rows was shown{seen}.")
        if self.how == SELECTED:
            return f"Its settings were chosen by a charged private selection{chosen}."
        if self.how == CHANGED:
            after = f" after {_listed(self.viewed)} were viewed" if self.viewed else ""
            return (f"Its settings were changed after previews that read the private rows: {_listed(self.changed)} "
                    f"changed{after}{chosen}.")
        if self.how == PUBLIC:
            return "Its data are simulated or public: no private row was read, so how its settings were chosen " \
                   "reveals nobody."
        return "How its settings were chosen was not recorded (a release made outside the dashboard or before the " \
               "ledger kept it)."

    def meaning(self) -> str:
        """What that means for the (ε, δ) guarantee, in one or two sentences."""
        if self.how in (FIXED, PUBLIC):
            return "The release's (ε, δ) holds as proved."
        if self.how == SELECTED:
            return ("The release's (ε, δ) holds as proved; the selection that chose its settings is a "
                    "release of its own, charged to the same people in the ledger, and the two compose.")
        if self.how == CHANGED:
            return ("The proved (ε, δ) assumes settings fixed in advance: settings tuned on the private rows can "
                    f"leak through the choice itself ({PAPER} quantify how much for tuning), which no audit can see. "
                    "Fix settings before reading the data, on a public proxy, or choose them by a charged private "
                    "selection.")
        return "The proved (ε, δ) assumes its settings were fixed without looking at the data."

    def statement(self) -> str:
        return f"{self.sentence()} {self.meaning()}"

    def to_dict(self) -> dict[str, Any]:
        return {"how": self.how, "label": _HOW[self.how], "changed": list(self.changed), "viewed": list(self.viewed),
                "selections": list(self.selections), "statement": self.statement()}

    def to_json(self) -> str:
        return "" if self.how == UNKNOWN else json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "SettingsChoice":
        if not data:
            return cls()
        return cls(str(data.get("how", UNKNOWN)), tuple(data.get("changed", ())), tuple(data.get("viewed", ())),
                   tuple(data.get("selections", ())))

    @classmethod
    def from_json(cls, text: str) -> "SettingsChoice":
        return cls.from_dict(json.loads(text) if text else None)


#: the Ledger page's key to its "settings chosen" column: each way, and what it means for the guarantee
SETTINGS_CHOSEN_EXPLAINED = "Settings chosen — " + "; ".join(
    f"“{_HOW[how]}”: {SettingsChoice(how).meaning().rstrip('.')}" for how in (FIXED, SELECTED, CHANGED, PUBLIC, UNKNOWN)) + "."


def compare(baseline: Mapping[str, str], released: Mapping[str, str], *, moved: tuple[str, ...] = (),
            viewed: tuple[str, ...] = (), selected: Mapping[str, tuple[str, str]] | None = None) -> SettingsChoice:
    """The choice for a release of private rows: ``released`` settings against ``baseline`` (those in force when
    the rows were first shown; values as text), ``moved`` the settings that differed from it at some point since
    (moved and set back still counts: the choice to keep a value was made after seeing the rows), ``viewed`` what
    was shown, ``selected`` setting → (value, description) chosen by a charged private selection."""
    selected = dict(selected or {})
    names = dict.fromkeys([*moved, *(k for k in {*baseline, *released} if baseline.get(k) != released.get(k))])
    changed, selections = [], []
    for name in sorted(names):
        choice = selected.get(name)
        if choice is not None and released.get(name) == choice[0]:
            selections.append(choice[1])
        else:
            changed.append(name if baseline.get(name) != released.get(name) else f"{name} (moved and set back)")
    shown = tuple(v for v in VIEWS if v in viewed)
    selections = list(dict.fromkeys(selections))  # one choice may set several settings (ε and a grid following it)
    if changed:
        return SettingsChoice(CHANGED, tuple(changed), shown, tuple(selections))
    if selections:
        return SettingsChoice(SELECTED, (), shown, tuple(selections))
    return SettingsChoice(FIXED, (), shown)

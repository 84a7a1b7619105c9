"""What a page showed of the private rows before a release, and the settings in force then (per page and data set).

Generic, not per page: the release panel (:mod:`ui.release`) calls :func:`observe` on every run with the settings it
would release (ε, δ, their parts, the method and the page's public parameters). The first call for a page and a
private data set — the run that first shows previews of those rows, since every method page draws its preview beside
the non-private answer above its release panel — keeps those settings as the baseline; later calls note every
setting that moved away from it. Views computed from the private rows elsewhere on the page (the smallest-ε finder)
call :func:`viewed`; a charged private selection calls :func:`selected`. At release, :func:`choice` compares the
settings released with the baseline (:func:`dpcore.provenance.compare`).

Kept in this browser session only, for the last :data:`KEPT` page and data-set pairs: it describes what this session
showed, and a new session that releases without showing anything starts from its own baseline.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import streamlit as st

from dpcore.provenance import NON_PRIVATE_ANSWER, PRIVATE_PREVIEWS, PUBLIC, SettingsChoice, compare
from ui.state import current_dataset

_SEEN = "_dp_settings_seen"
#: page and data-set pairs a session remembers (a few small dicts each: memory stays bounded)
KEPT = 20
#: what every method page shows of private rows beside its release panel
PAGE_VIEWS = (PRIVATE_PREVIEWS, NON_PRIVATE_ANSWER)


def setting_text(value: Any) -> str:
    """A setting's value as compared and recorded: numbers to 12 significant digits, anything else as JSON."""
    if isinstance(value, float):
        return f"{value:.12g}"
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def settings_of(*, method: str, epsilon: float, delta: float, parts: Mapping[str, float] | None,
                params: Mapping[str, Any] | None) -> dict[str, str]:
    """The settings a release is made with, by name: what the panel compares with the baseline."""
    found = {"method": setting_text(method), "ε": setting_text(float(epsilon)), "δ": setting_text(float(delta))}
    found.update({f"ε part {name}": setting_text(float(v)) for name, v in (parts or {}).items()})
    found.update({str(name): setting_text(v) for name, v in (params or {}).items()})
    return found


def _slot(fingerprint: str) -> dict:
    """This page's record for the data set ``fingerprint`` (created empty; the newest kept last)."""
    seen = st.session_state.setdefault(_SEEN, {})
    key = (str(st.session_state.get("_page", "")), fingerprint)
    entry = seen.pop(key, None) or {"baseline": None, "moved": set(), "viewed": set(), "selected": {}, "last": {},
                                    "applying": ""}
    seen[key] = entry
    while len(seen) > KEPT:
        seen.pop(next(iter(seen)))
    return entry


def observe(fingerprint: str, settings: Mapping[str, str], *, views: tuple[str, ...] = PAGE_VIEWS) -> None:
    """The page shows ``views`` of the private data set ``fingerprint`` with ``settings`` in force: the first call
    keeps them as the baseline; each later one notes the settings that differ from it."""
    entry = _slot(fingerprint)
    if entry["baseline"] is None:
        entry["baseline"] = dict(settings)
    else:
        base = entry["baseline"]
        entry["moved"].update(k for k in {*base, *settings} if base.get(k) != settings.get(k))
    if entry["applying"]:  # the run right after a private choice was applied: what it changed, it chose
        last = entry["last"]
        entry["selected"].update({k: (settings[k], entry["applying"]) for k in settings
                                  if last.get(k) != settings.get(k)})
        entry["applying"] = ""
    entry["last"] = dict(settings)
    entry["viewed"].update(views)


def viewed(view: str) -> None:
    """The page shows ``view`` (e.g. :data:`dpcore.provenance.FINDER`), computed from the current data set's rows."""
    current = current_dataset()
    if current:
        _slot(current[1])["viewed"].add(view)


def selected(fingerprint: str, setting: str, value: Any, description: str) -> None:
    """A charged private selection chose ``setting`` = ``value`` on the data set ``fingerprint`` (``description``
    says so in plain words, with its cost): releasing with that value is a choice the selection paid for."""
    _slot(fingerprint)["selected"][setting] = (setting_text(value), description)


def applying(fingerprint: str, description: str) -> None:
    """A private choice is being applied (its ε set on the page, which reruns): every setting that changes on the
    next run — ε, and what the page derives from it by a public rule, such as a default grid — is its choice."""
    _slot(fingerprint)["applying"] = description


def choice(fingerprint: str, settings: Mapping[str, str], *, private: bool) -> SettingsChoice:
    """How the settings released on ``fingerprint`` were chosen, from what this session showed on this page."""
    if not private:
        return SettingsChoice(PUBLIC)
    entry = _slot(fingerprint)
    baseline = entry["baseline"] if entry["baseline"] is not None else dict(settings)
    return compare(baseline, settings, moved=tuple(sorted(entry["moved"])), viewed=tuple(entry["viewed"]),
                   selected=entry["selected"])

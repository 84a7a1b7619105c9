"""Per-browser-session state (releases made, the current data set) and the deployment's privacy ledger.

Session things live in ``st.session_state`` — never in module globals, which a
Streamlit server shares between every visitor. The ledger is the deployment's
durable one (SQLite or PostgreSQL, :mod:`dpcore.ledger.stores`), shared by every
session and server process; each session holds a handle to it.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import streamlit as st

from dpcore.ledger import Ledger
from dpcore.ledger.config import LedgerConfig, LedgerSecretError, open_ledger
from ui.layout import literal

#: where ``make run`` keeps the ledger when DPCORE_DATA_DIR is not set (git-ignored)
DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / ".dpcore-data"

_LEDGER = "_dp_ledger"
_SESSION = "_dp_session"
_RELEASES = "_dp_releases"
_CURRENT = "_dp_current_dataset"
_CURRENT_HOLDING = "_dp_current_holding"
_REDRAW = "_dp_status_redraw"
_OPENED = "_dp_opened_datasets"
#: data sets a session remembers for the cap form (a few dict entries: memory stays bounded)
OPENED_KEPT = 20
_AUDITS = "_dp_audits"
_NOTES = "_dp_release_notes"


@st.cache_resource(show_spinner=False)
def _deployment_ledger(key: str, _config: LedgerConfig) -> Ledger:
    """One handle per configuration and server process (it holds no connection: each call opens its own)."""
    return open_ledger(_config)


def get_ledger() -> Ledger:
    """The deployment's ledger, configured by the environment (DPCORE_DATA_DIR, DPCORE_LEDGER_URL, DPCORE_CONFIG,
    DPCORE_LEDGER_SECRET…); with sign-in configured it is a shared deployment's, whose secret must be given."""
    if _LEDGER not in st.session_state:
        from ui.identity import sign_in_configured  # (ui.identity imports this module)

        try:
            config = LedgerConfig.from_env(DEFAULT_DATA_DIR, sign_in=sign_in_configured())
            st.session_state[_LEDGER] = _deployment_ledger(repr(config), config)
        except LedgerSecretError as refused:  # e.g. a shared deployment without its secret: no page works
            st.error(f"The privacy ledger cannot be opened, so nothing can be shown: {literal(str(refused))}",
                     icon=":material/gpp_bad:")
            st.stop()
    return st.session_state[_LEDGER]


def session_id() -> str:
    """A random name for this browser session, recorded with its releases (marks "this session" in the ledger)."""
    return st.session_state.setdefault(_SESSION, secrets.token_hex(6))


def releases() -> list:
    """Every ``ReleaseBundle`` made in this session, oldest first."""
    return st.session_state.setdefault(_RELEASES, [])


def release_notes() -> list:
    """Custodian notes (utility estimates, not private) recorded with this session's releases."""
    return st.session_state.setdefault(_NOTES, [])


def audits() -> list:
    """Audit results run in this session (for the session report)."""
    return st.session_state.setdefault(_AUDITS, [])


def readable_scopes(person) -> tuple[str, ...]:
    """The owners whose data sets ``person`` (a ``dpcore.access.Person``) may read in the ledger: a custodian their
    own scope; a reviewer the scopes the configuration or a custodian (in the database) granted them."""
    granted = get_ledger().reviewed_scopes(person.id) if person.id else ()
    return tuple(dict.fromkeys([*person.reviews, *granted]))


def set_current_dataset(label: str, fingerprint: str, key: str = "", scope: str = "", holding=None) -> None:
    """Name the data set the current page works on (shown in the sidebar).

    ``key`` is its ledger key in the custodian's ``scope``, once the release panel has worked it out: the data set
    is then remembered for the Ledger page's cap form (:func:`opened_datasets`), so that a cap can be set before
    its first release, after the page that opened it has been left. ``holding`` (a ``dpcore.ledger.Holding``: the
    persons its release reads) lets the sidebar and the accuracy panel show its most-charged person."""
    st.session_state[_CURRENT] = (label, fingerprint, key)
    st.session_state[_CURRENT_HOLDING] = holding
    if key:
        opened = st.session_state.setdefault(_OPENED, {})
        opened.pop((scope, key), None)  # re-inserted: newest last
        opened[(scope, key)] = label
        while len(opened) > OPENED_KEPT:
            opened.pop(next(iter(opened)))


def opened_datasets(scope: str) -> dict[str, str]:
    """Ledger key → name of the data sets this session opened in ``scope`` on a page with a release panel
    (the last :data:`OPENED_KEPT`, oldest first), whether or not anything was released on them."""
    return {key: label for (owner, key), label in st.session_state.get(_OPENED, {}).items() if owner == scope}


def current_dataset() -> tuple[str, str, str] | None:
    """``(label, fingerprint, ledger key or "")`` of the data set the page shown works on (forgotten when the page
    changes)."""
    return st.session_state.get(_CURRENT)


def current_holding():
    """The ``Holding`` of the current data set's release (``None`` until its release panel has keyed it)."""
    return st.session_state.get(_CURRENT_HOLDING) if current_dataset() else None


def standing_of(ledger: Ledger, holding):
    """``ledger.standing(holding)``, kept in this session until anything is charged or capped anywhere (the ledger's
    version): staging 10⁵ person digests on every ε move would cost a third of a second."""
    return session_memo("ledger_standing", (holding, ledger.version()), lambda: ledger.standing(holding))


def forget_current_dataset(*, redraw: bool = False) -> None:
    """No data set is current until the page shown names one (called when the page changes or an upload fails).

    ``redraw``: redraw the sidebar's status now (:func:`on_status_redraw`), for a page that stops early (``st.stop``
    drops what the entry point would draw after the page)."""
    st.session_state.pop(_CURRENT, None)
    st.session_state.pop(_CURRENT_HOLDING, None)
    if redraw and callable(st.session_state.get(_REDRAW)):
        st.session_state[_REDRAW]()


def on_status_redraw(redraw) -> None:
    """The entry point's function that redraws the sidebar's status in this run (kept in this session only)."""
    st.session_state[_REDRAW] = redraw


_MEMO = "_dp_memo_"


def session_memo(name: str, key, compute, *, keep: int = 1):
    """``compute()``, kept in this session for as long as ``key`` stays among the last ``keep`` keys of ``name``.

    For work on uploaded data (sweeps over ε, non-private fits, a preview at each ε the user visits): computed once
    per upload and configuration, reused while the user moves ε or other controls. It never leaves the session
    (uploads must not reach a cache shared with other sessions) and holds at most ``keep`` values per name, so
    memory stays bounded.
    """
    slot = _MEMO + name
    entries = list(st.session_state.get(slot, ()))  # (key, value), least recently used first
    for i, (held, value) in enumerate(entries):
        if held == key:
            st.session_state[slot] = [*entries[:i], *entries[i + 1:], (held, value)]
            return value
    kept = entries[len(entries) - keep + 1:] if keep > 1 else []
    st.session_state[slot] = kept  # drop the oldest value before computing the new one
    value = compute()
    st.session_state[slot] = [*kept, (key, value)]
    return value

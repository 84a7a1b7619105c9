"""Per-browser-session state: the privacy ledger, releases made, the current data set.

Everything lives in ``st.session_state`` — never in module globals, which a
Streamlit server shares between every visitor.
"""

from __future__ import annotations

import streamlit as st

from dpcore.accounting import Ledger

_LEDGER = "_dp_ledger"
_RELEASES = "_dp_releases"
_CURRENT = "_dp_current_dataset"
_AUDITS = "_dp_audits"
_NOTES = "_dp_release_notes"


def get_ledger() -> Ledger:
    """This session's ledger (created on first use)."""
    if _LEDGER not in st.session_state:
        st.session_state[_LEDGER] = Ledger()
    return st.session_state[_LEDGER]


def releases() -> list:
    """Every ``ReleaseBundle`` made in this session, oldest first."""
    return st.session_state.setdefault(_RELEASES, [])


def release_notes() -> list:
    """Custodian notes (utility estimates, not private) recorded with this session's releases."""
    return st.session_state.setdefault(_NOTES, [])


def audits() -> list:
    """Audit results run in this session (for the session report)."""
    return st.session_state.setdefault(_AUDITS, [])


def set_current_dataset(label: str, fingerprint: str) -> None:
    """Name the data set the current page works on (shown in the sidebar)."""
    st.session_state[_CURRENT] = (label, fingerprint)
    get_ledger().label(fingerprint, label)


def current_dataset() -> tuple[str, str] | None:
    return st.session_state.get(_CURRENT)


def forget_current_dataset() -> None:
    """No data set is current until the page shown names one (called when the page changes)."""
    st.session_state.pop(_CURRENT, None)

"""The plan-first steps every method shares: the held file is read only in the run its Release button starts.

Each method's module (``survival.py``) draws its own steps 1–3 (declare the public facts, explore on the proxy, lock)
and ends in :func:`release_held_file`. Every figure before that is drawn from a proxy that reads nobody.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import streamlit as st

from dpcore.access import VISITOR
from ui.errors import show_errors
from ui.identity import current_person
from ui.layout import literal, note

Cohort = TypeVar("Cohort")
Plan = TypeVar("Plan")


def unlock(key: str) -> None:
    """Back to exploring on plan-first path ``key``: the locked settings and any file read for them are dropped."""
    st.session_state.pop(f"_{key}_locked", None)
    forget_held_file(key)


def lock_controls(key: str, choose: Callable[[], Plan | None], words: Callable[[Plan], str], *,
                  read: str = "the private file") -> Plan | None:
    """Step 3 in the controls column of plan-first path ``key`` (its locked plan kept as ``_{key}_locked``): while
    unlocked, the settings (``choose()``; None when they cannot be used) and the Lock button; once locked, the
    locked settings in one line and the button to change them. The plan the figures show, or None."""
    locked_key = f"_{key}_locked"
    locked = st.session_state.get(locked_key)
    if locked is not None:
        st.success(literal("Locked: " + words(locked)), icon=":material/lock:")
        if st.button("Change the settings", key=f"{key}_unlock"):
            unlock(key)
            st.rerun()
        return locked
    plan = choose()
    if plan is not None and st.button("Lock these settings", key=f"{key}_lock", type="primary",
                                      help=f"Fixes every setting before {read} is read; the release uses exactly "
                                           "these."):
        st.session_state[locked_key] = plan
        st.rerun()
    return plan


def release_held_file(key: str, read: Callable[[bytes, str], Cohort], release: Callable[[Cohort], None]) -> None:
    """Step 4: the uploader holds the private file; ``read(bytes, name)`` runs only in the run the Release button
    starts (its ``InputError`` is shown by column or row and charges nothing), and ``release(cohort)`` draws the
    release panel for what it read, with the locked settings."""
    st.markdown("**4. Read your file and release**")
    if current_person().role == VISITOR:
        st.info("Releases are made by a data set's custodian, signed in as one.", icon=":material/lock:")
        return
    uploaded = st.file_uploader("The private CSV: held here, read only when you press Release", type=["csv"],
                                key=f"{key}_upload")
    kept_key = f"_{key}_cohort"
    if uploaded is None:
        st.session_state.pop(kept_key, None)
        return
    held = (uploaded.name, getattr(uploaded, "file_id", ""))  # the uploader's own labels, not the file's content
    kept = st.session_state.get(kept_key)
    if kept is not None and kept[0] != held:
        st.session_state.pop(kept_key, None)
        kept = None
    if kept is None:
        if not st.button("Release: read the file now", key=f"{key}_read", type="primary",
                         help="Reads the file for the first time, checks it against the declared facts, then asks "
                              "you to confirm the charge."):
            note("Nothing of the file has been read: no preview, no count, no check.")
            return
        with show_errors("The file cannot be released (nothing was charged)"):
            kept = (held, read(uploaded.getvalue(), uploaded.name))
            st.session_state[kept_key] = kept
        if kept is None:
            return
    release(kept[1])


def forget_held_file(key: str) -> None:
    """Back to exploring: a file read for the old settings is dropped with them."""
    st.session_state.pop(f"_{key}_cohort", None)

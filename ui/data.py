"""Uploading a CSV: bytes stay in this session's memory (kept per page until removed), errors are named, nothing is cached."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dpcore.ledger import table_fingerprint
from dpcore.access import VISITOR
from dpcore.validation import InputError, read_csv
from ui.identity import current_person
from ui.layout import literal


@dataclass(frozen=True)
class UploadedTable:
    frame: pd.DataFrame
    fingerprint: str
    name: str

    def __iter__(self):  # allows ``frame, fp, name = upload_csv(...)``
        return iter((self.frame, self.fingerprint, self.name))


def _kept(key: str) -> str:
    """Session-state key of the file kept for the uploader ``key``: ``(name, bytes)``."""
    return f"_dp_upload_{key}"


def _had_file(key: str) -> str:
    """Session-state key: the uploader ``key`` held a file in the last run that drew it."""
    return f"_dp_upload_shown_{key}"


def upload_csv(key: str, *, label: str = "Upload a CSV file", hint: str = "", help: str | None = None) -> UploadedTable | None:
    """File uploader → validated frame, or ``None`` (with the problem shown) when there is nothing usable.

    ``hint`` describes the expected file; it is shown while nothing is uploaded.

    A valid file is kept in this session (per uploader, so per page) until the user removes it (the
    uploader's ✕ or the Remove button) or uploads another, or the session ends: leaving the page and
    coming back, or switching the page's data source and back, finds it again. The bytes stay in this
    session's memory only: no disk, no log, no ``st.cache_data`` (which would share them with other
    sessions); at most one file of at most 20 MB per page (:data:`dpcore.validation.MAX_UPLOAD_BYTES`).
    They are parsed on each run. The ledger keys a release by the values it reads (``dpcore.ledger.keys``),
    so re-uploading the same people under any file name, format or order draws on the same budget.

    A visitor (signed out, or reaching the embedded default from another machine) may not upload: bundled data
    and teaching only.
    """
    if current_person().role == VISITOR:
        st.info("Uploads are for data custodians: sign in as one to analyse your own data. Bundled data sets and "
                "teaching mode are open to everyone.", icon=":material/lock:")
        return None
    drawn_before = key in st.session_state  # the uploader's state survives only the runs that draw it
    uploaded = st.file_uploader(
        label,
        type=["csv"],
        key=key,
        help=help
        or "Comma-separated, UTF-8, with a header row. The file stays in this browser session's memory only: it is "
        "never written to disk, logged, or shared with other sessions.",
    )
    removed = drawn_before and uploaded is None and st.session_state.get(_had_file(key), False)
    st.session_state[_had_file(key)] = uploaded is not None
    if uploaded is not None or removed:
        st.session_state.pop(_kept(key), None)
    if uploaded is not None:
        name, data = uploaded.name, uploaded.getvalue()
    elif _kept(key) in st.session_state:
        name, data = st.session_state[_kept(key)]
        note, remove = st.columns([4, 1], vertical_alignment="center")
        note.caption(literal(f"Using {name}, uploaded earlier in this session (kept in memory until you remove it "
                             "or the session ends)."))
        if remove.button("Remove the file", key=f"{key}_remove"):
            st.session_state.pop(_kept(key), None)
            st.rerun()
    else:
        if hint:
            st.info(hint)
        return None
    try:
        frame = read_csv(data)
    except InputError as err:
        st.error(literal(f"{name}: {err}"), icon=":material/warning:")
        return None
    st.session_state[_kept(key)] = (name, data)
    return UploadedTable(frame=frame, fingerprint=table_fingerprint(frame), name=name)

"""Uploading a CSV: bytes stay in this session's memory, errors are named, nothing is cached."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dpcore.accounting import table_fingerprint
from dpcore.validation import InputError, read_csv
from ui.layout import literal


@dataclass(frozen=True)
class UploadedTable:
    frame: pd.DataFrame
    fingerprint: str
    name: str

    def __iter__(self):  # allows ``frame, fp, name = upload_csv(...)``
        return iter((self.frame, self.fingerprint, self.name))


def upload_csv(key: str, *, label: str = "Upload a CSV file", hint: str = "", help: str | None = None) -> UploadedTable | None:
    """File uploader → validated frame, or ``None`` (with the problem shown) when there is nothing usable.

    ``hint`` describes the expected file; it is shown while nothing is uploaded.

    The bytes are parsed in memory for this run only: no disk, no log, no
    ``st.cache_data`` (which would share them with other sessions). The
    fingerprint keys the privacy ledger and depends on the table's content
    only, so re-uploading the same data (under any file name, re-saved with
    other line endings, column order or number format) draws on the same budget.
    """
    uploaded = st.file_uploader(
        label,
        type=["csv"],
        key=key,
        help=help
        or "Comma-separated, UTF-8, with a header row. The file stays in this browser session's memory only: it is "
        "never written to disk, logged, or shared with other sessions.",
    )
    if uploaded is None:
        if hint:
            st.info(hint)
        return None
    data = uploaded.getvalue()
    try:
        frame = read_csv(data)
    except InputError as err:
        st.error(literal(f"{uploaded.name}: {err}"), icon=":material/warning:")
        return None
    return UploadedTable(frame=frame, fingerprint=table_fingerprint(frame), name=uploaded.name)

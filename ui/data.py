"""Uploading a CSV: bytes stay in this session's memory (kept per page until removed), errors are named, nothing is cached."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dpcore.core import columns
from dpcore.access import VISITOR
from dpcore.ledger import Persons, table_fingerprint
from dpcore.core.persons import repeated_rows
from dpcore.core.validation import InputError, read_csv
from ui.identity import current_person, how_to_become
from ui.layout import literal
from ui.state import forget_current_dataset, session_memo

#: the person selector's option for "no person column"
WHOLE_ROW_OPTION = "(none: each whole row is one person)"


@dataclass(frozen=True)
class UploadedTable:
    """A validated upload: its frame (without the person column), content fingerprint, file name and persons."""

    frame: pd.DataFrame
    fingerprint: str
    name: str
    persons: Persons | None = None

    def __iter__(self):  # allows ``frame, fp, name = upload_csv(...)``
        return iter((self.frame, self.fingerprint, self.name))


def _kept(key: str) -> str:
    """Session-state key of the file kept for the uploader ``key``: ``(name, bytes)``."""
    return f"_dp_upload_{key}"


def _had_file(key: str) -> str:
    """Session-state key: the uploader ``key`` held a file in the last run that drew it."""
    return f"_dp_upload_shown_{key}"


def upload_csv(key: str, *, label: str = "Upload a CSV file", hint: str = "", help: str | None = None,
               rows_are_persons: bool = True) -> UploadedTable | None:
    """File uploader → validated frame, or ``None`` (with the problem shown) when there is nothing usable.

    ``hint`` describes the expected file; it is shown while nothing is uploaded.

    A valid file is kept in this session (per uploader, so per page) until the user removes it (the
    uploader's ✕ or the Remove button) or uploads another, or the session ends: leaving the page and
    coming back, or switching the page's data source and back, finds it again. The bytes stay in this
    session's memory only: no disk, no log, no ``st.cache_data`` (which would share them with other
    sessions); at most one file of at most 20 MB per page (:data:`dpcore.core.validation.MAX_UPLOAD_BYTES`).
    They are parsed on each run.

    With ``rows_are_persons`` (every page whose rows are people) the custodian names the **person column** (the
    unit of privacy; guessed by name) or none, and then each whole row is a person (:mod:`dpcore.ledger.keys`):
    the budget follows those persons whatever file, columns or units they come in. The person column is taken out
    of the frame the page sees, so it never becomes a feature, group or response.

    A visitor (signed out, or reaching the embedded default from another machine) may not upload: bundled data
    and teaching only.
    """
    if current_person().role == VISITOR:
        st.info(f"Uploads are for data custodians: to analyse your own data, {how_to_become('a custodian')}. "
                "Bundled data sets and "
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
        forget_current_dataset(redraw=True)  # no file: no data set is current (the page stops here)
        return None
    try:
        frame = read_csv(data)
    except InputError as err:
        st.error(literal(f"{name}: {err}"), icon=":material/warning:")
        forget_current_dataset(redraw=True)  # the sidebar must not go on naming the data set shown before
        return None
    st.session_state[_kept(key)] = (name, data)
    fp = table_fingerprint(frame)
    if not rows_are_persons:
        return UploadedTable(frame=frame, fingerprint=fp, name=name)
    chosen = _person_column(key, frame)
    distinct = chosen is None and _identical_rows_declared(key, frame)
    try:
        persons = session_memo(f"persons_{key}", (fp, chosen, distinct), lambda: Persons.of_column(
            frame[chosen], str(chosen), frame) if chosen is not None else Persons.of_rows(
            frame, identical_rows_are_different_people=distinct))
    except ValueError as err:
        advice = "." if chosen is None else ". Choose another person column, or none."
        st.error(literal(f"{name}: {err}{advice}"), icon=":material/warning:")
        forget_current_dataset(redraw=True)
        return None
    return UploadedTable(frame=frame if chosen is None else frame.drop(columns=[chosen]), fingerprint=fp, name=name,
                         persons=persons)


#: the keying rule and its limits when rows have no id (the person block, the confirm dialog, the release notes)
KEYING_RULE_WITHOUT_IDS = (
    "No person column: each whole row (every column) is one person, so choosing other columns, groups or "
    "sub-cohorts here never makes new people, and a re-export of most of an earlier file's rows (other column "
    "order, names or case) is recognised as the same people. The ledger **cannot** recognise these people in a "
    "file changed outside this app (days → months, an edited value) or in a file that shares only a minority "
    "of its rows with an earlier one: those would get a budget of their own. Add an id column to your file so "
    "that budgets follow the people.")


def _identical_rows_declared(key: str, frame: pd.DataFrame) -> bool:
    """Whether the custodian declares identical rows to be different people (asked only when some rows repeat)."""
    repeats = session_memo(f"repeats_{key}", table_fingerprint(frame), lambda: repeated_rows(frame))
    if not repeats:
        return False
    return st.checkbox(
        f"The {repeats:,} rows that repeat another row are different people", key=f"{key}_distinct_rows",
        help="Identical rows cannot be told apart. Read as one person, that person would be read several times by "
             "each release, so such files are refused unless you declare here that they are different people; "
             "the guarantee then rests on your declaration (the release notes say so). An id column avoids the "
             "question.")


def _person_column(key: str, frame: pd.DataFrame):
    """The custodian's person column (``None``: each whole row is a person), guessed by name and type."""
    guess = columns.guess(frame, "person", fallback=False)
    options = [WHOLE_ROW_OPTION, *frame.columns]
    chosen = st.selectbox(
        "Person column (the unit of privacy)", options, index=guess.index_in(options), key=f"{key}_person",
        format_func=str,
        help="Each person's privacy budget follows this identifier across every release, file, column choice and "
             "unit. Identifiers are never stored, logged or exported: the ledger keeps keyed digests of them.")
    if chosen == WHOLE_ROW_OPTION:
        st.markdown(KEYING_RULE_WITHOUT_IDS)
        return None
    why = f" (guessed: {guess.reason})" if chosen == guess.column else ""
    st.caption(literal(f"Persons are named by column '{chosen}'{why}; it is used for the privacy ledger only."))
    return chosen

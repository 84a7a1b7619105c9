"""Uploaded CSV → validated arrays, or an :class:`InputError` that says what is wrong.

Every message names the column, the row (1-based, as a spreadsheet shows
it, header = row 1) and the problem, because the person reading it is a
clinician looking at their own file, not at a stack trace. Nothing here
writes, logs or caches the data.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
MAX_UPLOAD_ROWS = 200_000
#: Columns an upload may have. The widest data a page takes is sparse learning's genomic features (the bundled GDSC
#: set has 677 and a response); 2,000 leaves room for a wider panel of one's own, while every later step that walks
#: the columns (the mapping widgets, the column guess, the ledger's digests) stays well under a second. A header
#: past it is refused before anything else reads the file, so even a 20 MB header of single-letter names (10⁷
#: columns) is named in well under a second.
MAX_UPLOAD_COLUMNS = 2_000


class InputError(ValueError):
    """Bad user input, with a message fit to show on the page as it is."""


@dataclass(frozen=True)
class Limits:
    max_bytes: int = MAX_UPLOAD_BYTES
    max_rows: int = MAX_UPLOAD_ROWS
    max_columns: int = MAX_UPLOAD_COLUMNS
    min_rows: int = 2


def _spreadsheet_row(index: int) -> int:
    """Row number as seen in a spreadsheet: header is row 1, first record row 2."""
    return int(index) + 2


def read_csv(data: bytes, *, limits: Limits = Limits()) -> pd.DataFrame:
    """Parse uploaded bytes into a frame, refusing anything ambiguous.

    Checks, in order: size, emptiness, text encoding (UTF-8 or UTF-8 with
    BOM), delimiter (a comma is expected; a file that parses into one
    column but contains ``;`` or tabs is named as using the wrong one),
    column count (:data:`MAX_UPLOAD_COLUMNS`, counted on the header line before any name is built), empty or
    duplicate column names, row count. Every check is linear in the file's size.
    """
    if len(data) > limits.max_bytes:
        raise InputError(
            f"The file is {len(data) / 1e6:.1f} MB; the limit is {limits.max_bytes / 1e6:.0f} MB."
        )
    if not data.strip():
        raise InputError("The file is empty.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            f"The file is not UTF-8 text (undecodable byte at position {err.start}). "
            "Save it as 'CSV UTF-8' and upload again."
        ) from None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header = lines[0]
    n_columns = _header_cells(header)
    if n_columns > limits.max_columns:  # before anything builds one object per name
        raise InputError(f"The header names {n_columns:,} columns; at most "
                         f"{limits.max_columns:,} are supported. Keep the columns the analysis needs and upload again.")
    try:
        header_cells = next(csv.reader([header]))
    except csv.Error as err:  # pragma: no cover - csv rarely fails on one line
        raise InputError(f"The header line cannot be read: {err}") from None
    if len(header_cells) == 1:
        for sep, name in ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")):
            if sep in header:
                raise InputError(
                    f"The file seems to use {name} as the delimiter; a comma-separated file is expected."
                )
    stripped = [c.strip() for c in header_cells]
    for position, name in enumerate(stripped, start=1):
        if not name:
            raise InputError(f"Column {position} of the header has no name.")
    dupes = sorted(name for name, count in Counter(stripped).items() if count > 1)
    if dupes:
        raise InputError(f"Duplicate column name(s) in the header: {', '.join(map(repr, dupes))}.")
    n_records = len(lines) - 1
    if n_records > limits.max_rows:
        raise InputError(f"The file has {n_records:,} rows; the limit is {limits.max_rows:,}.")
    if n_records < limits.min_rows:
        raise InputError(f"The file has {n_records} data row(s); at least {limits.min_rows} are needed.")
    _check_cells_per_row(text, len(header_cells))
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True,
                            index_col=False)
    except (pd.errors.ParserError, ValueError) as err:
        raise InputError(f"The file is not a well-formed CSV: {err}") from None
    frame.columns = stripped
    return frame


def _header_cells(header: str) -> int:
    """How many cells ``header`` has, read as the csv module does (a comma inside quotes separates nothing), without
    building them."""
    return _QUOTED.sub("", header).count(",") + 1


_QUOTED = re.compile(r'"[^"]*"')


def _check_cells_per_row(text: str, n_columns: int) -> None:
    """Every data row must have as many cells as the header has names.

    Otherwise pandas shifts the columns silently (one extra cell on every row turns the first
    column into row labels) or fills the gap with empty values.
    """
    records = (r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r))
    next(records)  # the header
    for i, record in enumerate(records):
        if len(record) != n_columns:
            hint = " (a trailing comma, or a comma inside an unquoted value?)" if len(record) > n_columns else ""
            cells = f"{len(record)} cell" + ("" if len(record) == 1 else "s")
            raise InputError(f"Row {_spreadsheet_row(i)} has {cells} but the header names "
                             f"{n_columns} columns{hint}.")


def require_columns(frame: pd.DataFrame, columns: Iterable[str]) -> None:
    """Raise naming every requested column that is absent."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"Missing column(s) {', '.join(map(repr, missing))}; the file has {', '.join(map(repr, frame.columns))}."
        )


def numeric_column(
    frame: pd.DataFrame,
    column: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    integer: bool = False,
    what: str = "value",
) -> np.ndarray:
    """A finite float (or int) array from ``column``; names the bad row, or counts them and names the first few.

    Refuses blanks, non-numbers, NaN and ±inf (explicitly, since pandas
    happily parses "inf"), values outside ``[minimum, maximum]`` and, when
    ``integer``, non-integers.
    """
    require_columns(frame, [column])
    raw = frame[column].astype(str).str.strip()
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    _refuse_rows(column, ~np.isfinite(values), lambda i: "empty" if raw.iloc[i] == "" else _quoted(raw.iloc[i]),
                 one=lambda i: f"the {what} " + ("is empty" if raw.iloc[i] == "" else
                                                 f"is {_quoted(raw.iloc[i])}, not a finite number"),
                 many=f"no finite {what}")

    def shown(i: int) -> str:
        return f"{values[i]:g}"

    below = values < minimum if minimum is not None else np.zeros(values.size, bool)
    above = values > maximum if maximum is not None else np.zeros(values.size, bool)
    low = "" if minimum is None else "negative" if minimum == 0 else f"below {minimum:g}"
    high = "" if maximum is None else f"above {maximum:g}"
    many = f"outside [{minimum:g}, {maximum:g}]" if low and high else low or high
    _refuse_rows(column, below | above, shown, many=f"a {what} {many}",
                 one=lambda i: f"the {what} {values[i]:g} is {low if below[i] else high}")
    if integer:
        _refuse_rows(column, values != np.round(values), shown,
                     one=lambda i: f"the {what} {values[i]:g} is not a whole number", many=f"a {what} that is not whole")
        return values.astype(np.int64)
    return values


#: Bad rows named by value in a message; the rest are counted.
FIRST_BAD_ROWS = 3


def _quoted(cell: str, limit: int = 40) -> str:
    return repr(cell if len(cell) <= limit else cell[:limit] + "…")


def _refuse_rows(column: str, bad: np.ndarray, describe, *, one, many: str) -> None:
    """Raise naming the bad rows of ``column``: the only one in full, else how many and the first few.

    ``describe(i)`` shows row ``i``'s cell; ``one(i)`` is the problem when row ``i`` is the only bad row
    and ``many`` the phrase after "rows have".
    """
    rows = np.flatnonzero(bad)
    if rows.size == 1:
        raise InputError(f"Column {column!r}, row {_spreadsheet_row(rows[0])}: {one(rows[0])}.")
    if rows.size:
        named = ", ".join(f"{_spreadsheet_row(i)} ({describe(i)})" for i in rows[:FIRST_BAD_ROWS])
        rest = f" and {rows.size - FIRST_BAD_ROWS:,} more" if rows.size > FIRST_BAD_ROWS else ""
        raise InputError(f"Column {column!r}: {rows.size:,} rows have {many}: rows {named}{rest}.")


def coded_column(frame: pd.DataFrame, column: str, allowed: Sequence[int], *, what: str = "code") -> np.ndarray:
    """Integer codes from ``column`` that must lie in the declared set ``allowed``."""
    codes = numeric_column(frame, column, integer=True, what=what)
    outside = ~np.isin(codes, np.asarray(allowed))
    if outside.any():
        i = int(np.argmax(outside))
        raise InputError(
            f"Column {column!r}, row {_spreadsheet_row(i)}: the {what} {codes[i]} is not one of the "
            f"declared codes {sorted(int(a) for a in allowed)}."
        )
    return codes


def role_code_column(frame: pd.DataFrame, column: str, allowed: Sequence[int], *, role: str) -> np.ndarray:
    """:func:`coded_column` for the column mapped to ``role`` (e.g. "event").

    When that column holds text, it is not a column of codes at all (typically the default mapping picked
    the wrong one): the message says so, names any column that does hold only the codes, or says that no
    such column was found, and lists the file's columns.
    """
    require_columns(frame, [column])
    raw = frame[column].astype(str).str.strip()
    text = raw.ne("") & pd.to_numeric(raw, errors="coerce").isna()
    if text.any():
        i = int(np.argmax(text.to_numpy()))
        codes = sorted(int(a) for a in allowed)
        candidates = [c for c in frame.columns if c != column and _holds_only(frame[c], codes)]
        found = (f"column(s) {', '.join(map(repr, candidates))} hold only such codes: choose one as the {role} column"
                 if candidates else f"no {role} column was found: no column holds only such codes")
        raise InputError(f"Column {column!r} holds text (row {_spreadsheet_row(i)}: {_quoted(raw.iloc[i])}), not "
                         f"{role} codes {codes}; {found}. The file's columns are "
                         f"{', '.join(map(repr, frame.columns))}.")
    return coded_column(frame, column, allowed, what=f"{role} code")


def _holds_only(values: pd.Series, codes: Sequence[int]) -> bool:
    numbers = pd.to_numeric(values.astype(str).str.strip(), errors="coerce")
    return bool(numbers.notna().all() and numbers.isin(codes).all())


def category_column(frame: pd.DataFrame, column: str, *, min_levels: int = 1, max_levels: int = 20) -> np.ndarray:
    """String labels from ``column``; refuses blanks and too few / too many distinct levels."""
    require_columns(frame, [column])
    labels = frame[column].astype(str).str.strip().to_numpy()
    blank = labels == ""
    if blank.any():
        i = int(np.argmax(blank))
        raise InputError(f"Column {column!r}, row {_spreadsheet_row(i)}: the group label is empty.")
    levels = np.unique(labels)
    if levels.size < min_levels:
        raise InputError(
            f"Column {column!r} has a single group ({levels[0]!r}); at least {min_levels} groups are needed to compare."
        )
    if levels.size > max_levels:
        raise InputError(f"Column {column!r} has {levels.size} distinct groups; at most {max_levels} are supported.")
    return labels


def declared_category_column(frame: pd.DataFrame, column: str, declared: Sequence[str]) -> np.ndarray:
    """Group labels from ``column`` that must all be among the user's *declared* (public) labels.

    Which groups exist is itself information about the records (a lone
    patient in a rare arm adds a label), so the set of groups must be
    declared up front, not read off the file; a row with any other label is
    refused by name.
    """
    declared = [str(d).strip() for d in declared if str(d).strip()]
    if len(set(declared)) < 2:
        raise InputError("Declare at least two distinct group labels (comma-separated), as fixed by the study design.")
    require_columns(frame, [column])
    labels = frame[column].astype(str).str.strip().to_numpy()
    outside = ~np.isin(labels, np.asarray(declared))
    if outside.any():
        i = int(np.argmax(outside))
        raise InputError(
            f"Column {column!r}, row {_spreadsheet_row(i)}: the group {labels[i]!r} is not one of the declared "
            f"groups {declared}."
        )
    return labels


def distinct_columns(*columns: str | None) -> None:
    """Refuse a mapping that uses one column for two roles."""
    chosen = [c for c in columns if c]
    dupes = sorted(name for name, count in Counter(chosen).items() if count > 1)
    if dupes:
        raise InputError(f"Column {dupes[0]!r} is mapped to more than one role.")

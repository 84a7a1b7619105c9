"""Who a record is: the persons of a data set, named by a person column, the whole row, or a documented rule.

A person is named by a person column (the unit of privacy: a patient id, a cell line's COSMIC id) or, without one,
by the whole uploaded row. Cells are compared canonically (:func:`canonical_cells`): Unicode NFKC, every Unicode
space stripped or collapsed, numbers as numbers (``7`` = ``7.0`` = ``07`` = ``+7`` = ``7e0``), text and ids
without case (``P001`` is ``p001``). The values one analysis reads never name a person.

A row is known by every key it can have: its id under the chosen person column, and its *content* (the whole row,
and the row without the person column), any column or row order. The ledger (:mod:`dpcore.ledger`) links the keys
seen on one row for good, so that every keying the app offers, and a re-export of the same people without their
id column, meet the same budget (the cross-file rule is :data:`RECOGNITION_SHARE`). Nothing here is stored. A
module of its own so that the bundled data sets (:mod:`dpcore.core.datasets`) can name their persons without depending
on the ledger.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

#: what names a person when no person column is given (:meth:`Persons.of_rows`)
WHOLE_ROW = "the whole row"

#: Across files, an upload's contents link to an earlier upload's persons only when at least this share of the
#: smaller one's distinct contents (of one kind: whole rows, or rows without the person column) is found in the
#: other: a re-export, a subset, a union with it, a file with a few values corrected, a file sharing at least half
#: its people. Measured by ``bench/bench_ledger_links.py`` on lifelines' cohorts (``docs/ledger.md``): a re-export
#: shares 0.97–1.00 (3 % of rows edited); two unrelated halves of one cohort share 0–0.23 on whole rows; only
#: files of two or three coarse columns share more (up to 0.89), and their rows cannot tell people apart (they
#: repeat rows, refused without an id column unless the rows are declared different people).
RECOGNITION_SHARE = 0.5

_SPACES = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]+")


def fingerprint(*parts: Any) -> str:
    """Short SHA-256 fingerprint of a data set (bytes, arrays, frames or strings); never stored, only keyed."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, (bytes, bytearray, memoryview)):
            digest.update(bytes(part))
        elif isinstance(part, np.ndarray):
            digest.update(str(part.dtype).encode() + str(part.shape).encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        elif hasattr(part, "to_csv"):
            digest.update(part.to_csv(index=False).encode())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def _as_series(column: Any) -> pd.Series:
    return column if isinstance(column, pd.Series) else pd.Series(np.asarray(column, dtype=object))


def legacy_cells(column: Any) -> pd.Series:
    """The canonical form of ledgers before keys were linked (numbers as floats, text stripped, case kept): looked
    up so that persons recorded then keep their spend, never used to create a key."""
    series = _as_series(column)
    number = pd.to_numeric(series, errors="coerce").astype(float) + 0.0  # -0.0 is 0.0
    text = series.astype(str).str.strip()
    return pd.Series(np.where(number.notna(), number.map(repr), "t:" + text), dtype=object)


def canonical_cells(column: Any) -> pd.Series:
    """One cell, one canonical text: NFKC, every Unicode space stripped at the ends and collapsed inside, numbers
    as floats (``07`` = ``+7`` = ``7e0`` = ``7.0``, after the spaces go), any other text case-folded."""
    series = _as_series(column)
    missing = series.isna().to_numpy()
    text = pd.Series([_SPACES.sub(" ", unicodedata.normalize("NFKC", str(v))).strip() for v in series],
                     index=series.index, dtype=object)
    text[missing] = ""
    number = pd.to_numeric(text.where(text != ""), errors="coerce").astype(float) + 0.0
    folded = text.str.casefold()
    return pd.Series(np.where(number.notna(), number.map(repr), "t:" + folded), dtype=object)


def _row_contents(cells: np.ndarray) -> np.ndarray:
    """A row's content, any column order: its canonical cells sorted and joined."""
    if cells.shape[1] == 0:
        return np.full(cells.shape[0], "", dtype=object)
    ordered = np.sort(cells.astype(str), axis=1)
    return np.array(["\x1f".join(row) for row in ordered], dtype=object)


def _aligned_rows(cells: np.ndarray) -> np.ndarray:
    """Each row's canonical cells in column order: identical rows are these (the content of :func:`_row_contents`,
    which forgets columns, may also coincide for rows whose values are permuted across columns: they are other
    people, kept as one record charged whenever either is read — sound, as each is read once per release)."""
    return np.array(["\x1f".join(row) for row in cells.astype(str)], dtype=object)


def _first_repeat(ids: np.ndarray) -> tuple[int, int] | None:
    repeated = pd.Series(ids).duplicated(keep=False).to_numpy()
    if not repeated.any():
        return None
    first = np.flatnonzero(repeated)[0]
    second = np.flatnonzero(ids == ids[first])[1]
    return int(first) + 1, int(second) + 1


@dataclass(frozen=True, eq=False)
class Persons:
    """The persons of a data set: each row's primary identifier, its other keys, and what the ledger may link.

    ``ids`` name each row's person (the person column's canonical cell, else the row's content); ``contents`` are
    each row's contents (the whole row; and the row without the person column when there is one), by which a
    re-export is recognised; ``origin`` fingerprints the upload whatever column names the persons (so every keying
    of one upload is one origin); ``legacy`` are the keys ledgers before linking gave the same rows (looked up,
    never created). ``fingerprint`` identifies the data set as named (its persons' identifiers); ``rows`` are the
    rows a release reads (``None``: all), set by :meth:`subset`; ``source`` says what names a person;
    ``identical_rows`` counts rows that repeat another row when the custodian declared them different people.
    """

    fingerprint: str
    ids: np.ndarray
    source: str
    rows: np.ndarray | None = None
    contents: tuple[np.ndarray, ...] = ()
    origin: str = ""
    legacy: np.ndarray | None = None
    identical_rows: int = 0

    @classmethod
    def of_column(cls, values: Any, name: str, frame: pd.DataFrame | None = None) -> "Persons":
        """Persons named by a person column (``P001`` = ``p001``; ``7`` = ``07``). Every row needs its own person:
        the methods' sensitivities bound what one *row* changes, so a person on two rows is refused. ``frame`` (the
        whole upload, person column included) gives the contents that link these persons to the same rows under
        any other keying."""
        ids = canonical_cells(values).to_numpy(dtype=object)
        missing = pd.isna(pd.Series(values)).to_numpy() | (ids == "t:")
        if missing.any():
            raise ValueError(f"the person column '{name}' is empty in row {int(np.flatnonzero(missing)[0]) + 1}: "
                             "every row needs its person")
        repeat = _first_repeat(ids)
        if repeat:
            raise ValueError(f"rows {repeat[0]} and {repeat[1]} have the same person in column '{name}' (ids are "
                             "compared without case, spaces or leading zeros): this dashboard's methods protect one "
                             "row per person")
        contents: tuple[np.ndarray, ...] = ()
        origin = ""
        if frame is not None and name in frame.columns:
            cells = _cells(frame)
            whole = _row_contents(cells)
            others = _row_contents(cells[:, [c != name for c in frame.columns]])
            contents, origin = (whole, others), _origin(whole)
        legacy = legacy_cells(values).to_numpy(dtype=object)
        return cls(fingerprint("persons", np.sort(ids.astype(str))), ids, f"column '{name}'", None, contents, origin,
                   legacy)

    @classmethod
    def of_rows(cls, frame: pd.DataFrame, *, identical_rows_are_different_people: bool = False) -> "Persons":
        """Each row is its own person, known by its content (every column canonicalised, any column order and
        names), so that choosing other columns, units or sub-cohorts inside the app never makes new people.

        Identical rows cannot be told apart: read as one person they would be read several times by one release.
        They are refused unless the custodian declares them different people; the ledger then keeps them as one
        record, charged once whenever any copy is read — each of them is read once per release, so that record's
        spend bounds each one's."""
        if frame.shape[1] == 0:
            raise ValueError("a table without columns has no persons")
        cells = _cells(frame)
        whole = _row_contents(cells)
        repeat = _first_repeat(_aligned_rows(cells))
        if repeat and not identical_rows_are_different_people:
            raise ValueError(
                f"rows {repeat[0]} and {repeat[1]} are identical and there is no person column: read as one person, "
                "that person would be read twice by every release. Choose a person column, or declare that "
                "identical rows are different people")
        identical = int(len(whole) - pd.Series(_aligned_rows(cells)).nunique())
        legacy = _row_contents(np.column_stack([legacy_cells(frame[c]).to_numpy(dtype=object)
                                                for c in frame.columns]))
        return cls(fingerprint("rows", np.sort(whole.astype(str))), whole, WHOLE_ROW, None, (whole,),
                   _origin(whole), legacy, identical)

    @classmethod
    def named(cls, namespace: str, ids: Sequence[Any], rule: str) -> "Persons":
        """Persons named by documented identifiers of a bundled set (``rule`` says which, for the release notes)."""
        canonical = np.array([f"{namespace}:{i}" for i in ids], dtype=object)
        return cls(fingerprint("named", namespace, np.sort(canonical.astype(str))), canonical, rule)

    @classmethod
    def cohort(cls, name: str, size: int) -> "Persons":
        """The ``size`` persons of a cohort the custodian declares by ``name`` (an FDR stream's p-values come from a
        cohort whose rows are not uploaded): every stream declared on the same name and size reads the same
        persons. The guarantee rests on the declaration, and the release notes say so."""
        label = canonical_cells([name]).iloc[0]
        if label == "t:" or not (isinstance(size, (int, np.integer)) and 0 < size <= 10_000_000):
            raise ValueError("a declared cohort needs a name and a size between 1 and 10,000,000 people")
        return cls.named(f"cohort:{label}", range(1, int(size) + 1), f"declared cohort '{name}' of {size:,} people")

    def subset(self, rows: Any) -> "Persons":
        """The same data set, read at ``rows`` (a boolean mask or indices into this one's rows)."""
        picked = np.arange(len(self.ids))[np.asarray(rows)] if self.rows is None else self.rows[np.asarray(rows)]
        return Persons(self.fingerprint, self.ids, self.source, picked, self.contents, self.origin, self.legacy,
                       self.identical_rows)

    def _chosen(self, values: np.ndarray) -> np.ndarray:
        return values if self.rows is None else values[self.rows]

    def read(self) -> np.ndarray:
        """The identifiers of the persons a release reads (distinct)."""
        return pd.unique(self._chosen(self.ids))

    def keyed_rows(self) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray | None]:
        """The rows a release reads: primary identifiers, contents, legacy keys (row-aligned)."""
        legacy = None if self.legacy is None else self._chosen(self.legacy)
        return self._chosen(self.ids), tuple(self._chosen(c) for c in self.contents), legacy

    def __len__(self) -> int:
        return len(self.read())

    def keying_note(self, *, exported: bool = False) -> str:
        """Who the persons are and what the ledger can and cannot recognise, in plain words (the confirm dialog
        and, ``exported``, the release notes): the guarantee per person rests on it. An exported note says nothing
        that depends on the rows (not how many repeat, nor whether any do)."""
        if self.source == WHOLE_ROW:
            text = ("Persons are this file's rows (no person column): compared canonically (any column order, names, "
                    "text case, spacing), so every choice made inside the app, and a re-export of most of this "
                    "file's rows, meet the same budget. The ledger cannot recognise these people in a file changed "
                    "outside the app (other units, edited values) or sharing only a minority of its rows with this "
                    "one; an id column fixes that.")
            if exported:
                text += (" Identical rows, if any, are accepted only when the custodian declares them different "
                         "people; the guarantee then rests on that declaration (each group of identical rows is "
                         "charged as one record whenever any copy is read).")
            elif self.identical_rows:
                text += (f" {self.identical_rows:,} rows repeat another row; the custodian declared them different "
                         "people, so the guarantee rests on that declaration (each group of identical rows is charged "
                         "as one record whenever any copy is read).")
            return text
        if self.source.startswith("column "):
            return (f"Persons are named by {self.source}, compared without case, spacing or leading zeros: the same "
                    "ids in any file meet the same budget, and the rows' contents link an id-less copy of this file "
                    "to them. Invented or re-numbered ids cannot be recognised.")
        if self.source.startswith("declared cohort"):
            return (f"The p-values come from a {self.source}: every stream declared on that cohort meets the same "
                    "budget, and the guarantee rests on the custodian's declaration of the cohort behind them.")
        return f"Persons are named by {self.source}."


def repeated_rows(frame: pd.DataFrame) -> int:
    """How many rows repeat an earlier row, compared canonically (the rows :meth:`Persons.of_rows` refuses)."""
    if frame.shape[1] == 0:
        return 0
    aligned = _aligned_rows(_cells(frame))
    return int(len(aligned) - pd.Series(aligned).nunique())


def _cells(frame: pd.DataFrame) -> np.ndarray:
    return np.column_stack([canonical_cells(frame[c]).to_numpy(dtype=object) for c in frame.columns])


def _origin(contents: np.ndarray) -> str:
    return fingerprint("origin", np.sort(contents.astype(str)))

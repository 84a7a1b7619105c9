"""Who a record is: the persons of a data set, named by a person column, the whole row, or a documented rule.

A person is named by a person column (the unit of privacy: a patient id, a cell line's COSMIC id) or, without one,
by the whole uploaded row (every column canonicalised: numbers as numbers, text stripped, any column or row order).
The values one analysis reads never name a person. The privacy ledger (:mod:`dpcore.ledger`) keys these identifiers
per custodian; nothing here is stored. A module of its own so that the bundled data sets (:mod:`dpcore.datasets`)
can name their persons without depending on the ledger.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd


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


def canonical_cells(column: Any) -> pd.Series:
    """Numbers as floats (72 = 72.0 = 7.2e1, whatever the column's dtype), anything else as stripped text."""
    series = pd.Series(np.asarray(column, dtype=object) if not isinstance(column, pd.Series) else column)
    number = pd.to_numeric(series, errors="coerce").astype(float) + 0.0  # -0.0 is 0.0
    text = series.astype(str).str.strip()
    return pd.Series(np.where(number.notna(), number.map(repr), "t:" + text), dtype=object)


#: what names a person when no person column is given (:meth:`Persons.of_rows`)
WHOLE_ROW = "the whole row"


@dataclass(frozen=True, eq=False)
class Persons:
    """The persons of a data set, one canonical identifier per row (row order kept; never stored as such).

    ``fingerprint`` identifies the data set (the multiset of its persons' identifiers, so any row order and, for
    whole rows, any column order give the same data set); ``ids`` name each row's person; ``rows`` are the rows a
    release reads (``None``: all), set by :meth:`subset` so that a sub-cohort stays a part of the same data set;
    ``source`` says what names a person (a column's name, :data:`WHOLE_ROW`, or a bundled set's documented rule).
    """

    fingerprint: str
    ids: np.ndarray
    source: str
    rows: np.ndarray | None = None

    @classmethod
    def of_column(cls, values: Any, name: str) -> "Persons":
        """Persons named by a person column (``72`` = ``72.0``; text stripped). Every row needs its own person:
        the methods' sensitivities bound what one *row* changes, so a person on two rows is refused."""
        ids = canonical_cells(values).to_numpy(dtype=object)
        missing = pd.isna(pd.Series(values)).to_numpy() | (ids == "t:")
        if missing.any():
            raise ValueError(f"the person column '{name}' is empty in row {int(np.flatnonzero(missing)[0]) + 1}: "
                             "every row needs its person")
        repeated = pd.Series(ids).duplicated(keep=False).to_numpy()
        if repeated.any():
            first, second = np.flatnonzero(repeated & (ids == ids[repeated][0]))[:2] + 1
            raise ValueError(f"rows {first} and {second} have the same person in column '{name}': this dashboard's "
                             "methods protect one row per person")
        return cls(fingerprint("persons", np.sort(ids.astype(str))), ids, f"column '{name}'")

    @classmethod
    def of_rows(cls, frame: pd.DataFrame) -> "Persons":
        """Each row is its own person: every column canonicalised and sorted within the row (any column order and
        names), so that choosing other columns, units or sub-cohorts inside the app never makes new people."""
        if frame.shape[1] == 0:
            raise ValueError("a table without columns has no persons")
        cells = np.column_stack([canonical_cells(frame[c]).to_numpy(dtype=object) for c in frame.columns])
        cells = np.sort(cells.astype(str), axis=1)
        ids = np.array(["\x1f".join(row) for row in cells], dtype=object)
        return cls(fingerprint("rows", np.sort(ids.astype(str))), ids, WHOLE_ROW)

    @classmethod
    def named(cls, namespace: str, ids: Sequence[Any], rule: str) -> "Persons":
        """Persons named by documented identifiers of a bundled set (``rule`` says which, for the release notes)."""
        canonical = np.array([f"{namespace}:{i}" for i in ids], dtype=object)
        return cls(fingerprint("named", namespace, np.sort(canonical.astype(str))), canonical, rule)

    def subset(self, rows: Any) -> "Persons":
        """The same data set, read at ``rows`` (a boolean mask or indices into this one's rows)."""
        picked = np.arange(len(self.ids))[np.asarray(rows)] if self.rows is None else self.rows[np.asarray(rows)]
        return Persons(self.fingerprint, self.ids, self.source, picked)

    def read(self) -> np.ndarray:
        """The identifiers of the persons a release reads (distinct)."""
        chosen = self.ids if self.rows is None else self.ids[self.rows]
        return pd.unique(chosen)

    def __len__(self) -> int:
        return len(self.read())



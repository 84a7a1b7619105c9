"""What every plan-first path shares: the held file is parsed, checked against the declared facts and keyed to its
people in one place, at release time.

A plan-first release's settings are fixed before any private row is read, so the only function of a method's plan
module that touches the file's bytes calls :func:`read_declared`; its checks are the upload checks of the method
pages (:func:`dpcore.core.validation.read_csv`, the person keying of :class:`~dpcore.ledger.Persons`) plus the declared
columns and the declared bound on the number of people.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from dpcore.ledger import Persons, table_fingerprint
from dpcore.core.validation import InputError, read_csv

#: how a plan-first release names the file it read
LABEL = "{name} (uploaded, plan first)"


@dataclass(frozen=True)
class DeclaredFile:
    """The private file as read at release time: its rows (without the person column), content fingerprint, label
    and persons (None when its rows are not the people charged)."""

    rows: pd.DataFrame
    fingerprint: str
    label: str
    persons: Persons | None


def check_columns(roles: dict[str, str]) -> None:
    """Each declared role (``"time column"`` → name) names a column, and no two roles share one."""
    given = [(what, name) for what, name in roles.items() if name]
    for i, (what, name) in enumerate(given):
        for other, same in given[:i]:
            if same == name:
                raise InputError(f"The {other} and the {what} are both {name!r}: each role needs its own column.")


def read_declared(data: bytes, name: str, *, columns: list[str], n_max: int, unit: str = "people",
                  person_column: str = "", identical_rows_are_different_people: bool = False,
                  keyed: bool = True) -> DeclaredFile:
    """Parse the file and check it against the declared facts (an ``InputError`` naming the column or row).

    ``unit``: what a row is, for the bound's message (``"hypotheses"`` for a p-value stream). ``keyed=False``: the
    rows are not the people charged (a stream's cohort is named apart), so no persons are keyed from them.
    """
    frame = read_csv(data)
    declared = [c for c in (*columns, person_column) if c]
    absent = [c for c in declared if c not in frame.columns]
    if absent:
        raise InputError(f"Column {absent[0]!r} was declared but is not in {name}.")
    if len(frame) > n_max:
        raise InputError(f"{name} has more rows than the declared {n_max:,} {unit} (row {n_max + 2} onwards; the "
                         f"header is row 1): declare the number of {unit}, or a bound on it, that holds.")
    persons = None
    if keyed:
        try:
            persons = (Persons.of_column(frame[person_column], person_column, frame) if person_column
                       else Persons.of_rows(frame,
                                            identical_rows_are_different_people=identical_rows_are_different_people))
        except ValueError as err:
            raise InputError(f"{name}: {err}.") from None
    rows = frame.drop(columns=[person_column]) if person_column else frame
    return DeclaredFile(rows, table_fingerprint(frame), LABEL.format(name=name), persons)

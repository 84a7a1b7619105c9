"""When two cells name the same person, both ways: what must merge and what must stay apart.

The rule (``dpcore.core.persons.canonical_cells``, ``docs/ledger.md``): Unicode NFKC, every Unicode space stripped at the
ends and collapsed inside, numbers compared as numbers, text compared without case. Cross-script look-alikes
(Cyrillic Р against Latin P) are not folded: NFKC keeps scripts apart, and an honest re-export does not change
script. Rows without an id column are the same person when their canonical cells agree in any column order.
"""

from __future__ import annotations

import pandas as pd
import pytest

from dpcore.core.persons import Persons, canonical_cells

SAME = [
    ("P001", "p001"), ("P001", " P001 "), ("P001", "P001\u00a0"), ("P001", "\u2003P001"), ("P001", "Ｐ００１"),
    ("P001", "P001\u200b"), ("Anne Marie", "anne  marie"), ("Anne Marie", "ANNE\u00a0MARIE"), ("7", "7.0"),
    ("7", "07"), ("7", "+7"), ("7", "7e0"), ("7", " 7"), ("7", "\u00a07"), ("-0", "0"), ("72", 72.0),
    ("Straße", "STRASSE"),
]
APART = [
    ("P001", "P01"), ("P001", "P0001"), ("7", "7.5"), ("7", "-7"), ("Anne Marie", "AnneMarie"), ("O1", "01"),
    ("P001", "Р001"),  # Cyrillic Р: another script is another identifier
    ("1,5", "1.5"), ("P001", "P001-a"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_ids_that_differ_only_in_case_spacing_width_or_number_format_are_one_person(a, b):
    cells = canonical_cells(pd.Series([a, b], dtype=object))
    assert cells[0] == cells[1]
    with pytest.raises(ValueError, match="rows 1 and 2 have the same person"):
        Persons.of_column(pd.Series([a, b], dtype=object), "id")


@pytest.mark.parametrize(("a", "b"), APART)
def test_ids_that_differ_in_a_character_or_value_are_other_people(a, b):
    cells = canonical_cells(pd.Series([a, b], dtype=object))
    assert cells[0] != cells[1]
    assert len(Persons.of_column(pd.Series([a, b], dtype=object), "id")) == 2


def test_rows_without_ids_are_one_person_in_any_column_order_case_or_spacing_and_apart_otherwise():
    frame = pd.DataFrame({"time": [5, 9], "sex": ["Male", "Female"], "arm": ["A", "B"]})
    reexport = pd.DataFrame({"ARM": ["b ", "a"], "Sex": ["FEMALE", "male"], "Time": ["9.0", "05"]})
    assert set(Persons.of_rows(frame).ids) == set(Persons.of_rows(reexport).ids)
    changed = frame.assign(time=[5, 10])
    assert set(Persons.of_rows(frame).ids) != set(Persons.of_rows(changed).ids)
    swapped = frame.assign(sex=["Female", "Male"])  # the same cells in other rows: other people
    assert set(Persons.of_rows(frame).ids).isdisjoint(Persons.of_rows(swapped).ids)


def test_rows_whose_values_are_permuted_across_columns_are_other_people_not_repeats():
    """Only rows identical column by column are refused as one person read twice; rows whose values are the same
    but in other columns are other people (their column-free contents coincide: kept as one record, charged
    whenever either is read)."""
    frame = pd.DataFrame({"a": [1, 2, 1], "b": [2, 1, 1]})
    persons = Persons.of_rows(frame)
    assert persons.identical_rows == 0 and len(persons.keyed_rows()[0]) == 3
    with pytest.raises(ValueError, match="rows 1 and 2 are identical"):
        Persons.of_rows(pd.DataFrame({"a": [1, 1], "b": [2, 2]}))

"""Who a row is: the identity rule of ``docs/ledger.md`` checked both ways (what must be one person, what must not).

Ids are compared canonically (case, surrounding spaces, leading zeros, ``7`` = ``7.0``); a row without an id is its
content in any column order; a repeated id or an undeclared identical row is refused; a subset of a subset reads the
rows it names; a declared cohort is as many persons as declared; keys depend on the scope and the server's secret;
and the release panel's memo of a holding never hands one subset's persons to another.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.ledger import Ledger, Persons
from dpcore.ledger.keys import person_digests

SECRET = b"p" * 32


def _digests(values) -> tuple[str, ...]:
    return person_digests(SECRET, Persons.of_column(pd.Series(values, dtype=object), "id"))


def test_ids_that_differ_only_by_case_or_spacing_are_one_person():
    assert _digests(["P001", "Q7"]) == _digests(["p001", " q7 "])


def test_number_ids_are_one_person_however_they_are_written():
    assert _digests(["7", "12"]) == _digests(["7.0", "012"]) == _digests(["+7", "1.2e1"])


def test_ids_that_differ_in_letters_or_digits_are_other_people():
    assert _digests(["P001"]) != _digests(["P002"])
    assert _digests(["7"]) != _digests(["17"])


@pytest.mark.parametrize("ids, rows", [(["a", "b", "c", "a"], (1, 4)), (["x", "y", "Y"], (2, 3)),
                                       (["1", "2", "01"], (1, 3))])
def test_one_repeated_id_among_distinct_ones_is_refused_with_its_rows(ids, rows):
    """A person on two rows is read twice: refused as soon as any id repeats (not only when every id does)."""
    with pytest.raises(ValueError, match=f"rows {rows[0]} and {rows[1]}"):
        Persons.of_column(pd.Series(ids), "id")


def test_identical_rows_without_an_id_are_refused_unless_declared_different_people():
    frame = pd.DataFrame({"time": [5, 9, 5, 3], "event": [1, 0, 1, 1]})
    with pytest.raises(ValueError, match="rows 1 and 3 are identical"):
        Persons.of_rows(frame)
    declared = Persons.of_rows(frame, identical_rows_are_different_people=True)
    assert declared.identical_rows == 1


def test_a_row_without_an_id_is_the_same_person_in_any_column_order():
    frame = pd.DataFrame({"time": [5, 9, 4], "event": [1, 0, 1], "arm": ["A", "B", "A"]})
    same = frame[["arm", "event", "time"]]
    assert person_digests(SECRET, Persons.of_rows(frame)) == person_digests(SECRET, Persons.of_rows(same))


def test_a_subset_of_a_subset_reads_the_rows_it_names():
    """``subset`` indexes into the subset it is called on, never into the full data set."""
    persons = Persons.of_column(pd.Series([f"P{i}" for i in range(10)]), "id")
    inner = persons.subset(np.arange(4, 10)).subset(np.array([0, 1]))
    assert list(inner.read()) == list(persons.subset(np.array([4, 5])).read())
    masked = persons.subset(np.arange(10) >= 6).subset(np.array([True, False, False, True]))
    assert list(masked.read()) == list(persons.subset(np.array([6, 9])).read())


def test_a_declared_cohort_is_as_many_persons_as_declared():
    """An FDR stream's declared cohort charges every one of its people: its size is part of the declaration."""
    ledger = Ledger(secret=SECRET)
    cohort = Persons.cohort("Trial A", 250)
    assert len(cohort) == 250
    record = ledger.charge(ledger.holding(cohort), "PAPRIKA discovery list", 1.0)
    assert record.persons == 250
    assert ledger.standing(ledger.holding(Persons.cohort("trial a", 300))).seen == 250


def test_keys_depend_on_the_custodian_scope_and_the_server_secret():
    """Scopes never meet, and without the secret a digest cannot be tested against a guessed id."""
    persons = Persons.of_column(pd.Series(["P001", "P002"]), "id")
    assert person_digests(SECRET, persons, "alice") != person_digests(SECRET, persons, "bob")
    assert person_digests(SECRET, persons) != person_digests(b"q" * 32, persons)
    assert person_digests(SECRET, persons) != person_digests(None, persons)


def _two_subsets_page():
    import numpy as np
    import streamlit as st

    from dpcore.ledger import Persons, RecordsRead
    from ui import get_ledger
    from ui.release import _holding

    persons = Persons.of_column(np.arange(40), "id")
    half = np.arange(40) < 20 if st.session_state.get("first", True) else np.arange(40) >= 20
    holding = _holding(get_ledger(), persons.subset(half), RecordsRead.of([np.arange(40)]), "fp", "local")
    st.session_state["persons"] = holding.persons


def test_the_release_panel_memo_never_gives_one_subset_the_persons_of_another():
    """The panel keeps a holding's digests for the session; a release on the other half of the same upload must
    read the other half's persons."""
    at = AppTest.from_function(_two_subsets_page, default_timeout=30).run()
    first = set(at.session_state["persons"])
    at.session_state["first"] = False
    at.run()
    second = set(at.session_state["persons"])
    assert len(first) == len(second) == 20 and not first & second


"""The cohort behind an online-FDR stream: its rows are hypotheses, and every person of the cohort is in every test.

The upload names the cohort its p-values came from, so that renaming a column, adding a label, appending a
hypothesis or a second stream of the same cohort meets the same budget (``privacy.md``): by default the cohort of
the custodian's previous FDR release; else one of their data sets (the persons its releases read are charged), or
a new cohort declared by name and size (the guarantee then rests on the declaration, said in the release notes).
"""

from __future__ import annotations

import streamlit as st

from dpcore.ledger import Holding, Persons
from ui.identity import current_person
from ui.layout import literal
from ui.state import get_ledger

#: the selector's option for a cohort not yet in the ledger
NEW_COHORT = "A new cohort: name it and give its size"
#: what an FDR release's method is called in the ledger (its previous cohort is the default)
FDR_METHODS = "discovery list"


def cohort_behind_stream(key: str) -> Holding | Persons | None:
    """The persons an FDR release on this stream charges: an earlier data set's (a :class:`Holding`) or a declared
    cohort's (:class:`Persons`); ``None`` while a new cohort is not yet named (previews stay free)."""
    person = current_person()
    ledger = get_ledger()
    scopes = (person.scope,)
    names = ledger.dataset_names(scopes)
    previous = [r.dataset for r in ledger.records(scopes=scopes) if r.method.endswith(FDR_METHODS) and r.persons]
    options = [*dict.fromkeys([*reversed(previous), *names]), NEW_COHORT]
    chosen = st.selectbox(
        "Cohort the p-values came from (the people charged)", options, key=key,
        format_func=lambda k: k if k == NEW_COHORT else names.get(k, k),
        help="Every person of the cohort takes part in every test of the stream, so a release charges all of "
             "them, whatever the file of p-values looks like. Choose the data set the tests were run on (or the "
             "cohort of an earlier stream), or declare a new cohort.")
    if chosen != NEW_COHORT:
        return ledger.dataset_holding(chosen, person.scope)
    left, right = st.columns([3, 1])
    name = left.text_input("Name of the cohort", key=f"{key}_name", max_chars=120,
                           help="Every stream declared on the same name and size charges the same people.")
    size = right.number_input("People in it", key=f"{key}_size", min_value=1, max_value=10_000_000, value=None,
                              step=1)
    if not name.strip() or size is None:
        st.info("Name the cohort and give its size to release (previews are free).", icon=":material/group:")
        return None
    try:
        return Persons.cohort(name, int(size))
    except ValueError as err:
        st.error(literal(str(err)), icon=":material/warning:")
        return None

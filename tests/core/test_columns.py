"""Default column mapping (dpcore.core.columns) on small synthetic tables shaped like common public ones.

The tables are the project's own: each copies only the header and the type of every column of a well-known
table (lifelines' rossi, waltons, gbsg2, lung, kidney transplant and larynx; scikit-learn's diabetes and
breast cancer), with a few made-up rows, and is read through the upload path's CSV reader.
"""

from __future__ import annotations

import pytest

from dpcore.core import columns
from dpcore.core.validation import read_csv
from tests.support.column_cases import SURVIVAL, TABLES


@pytest.mark.parametrize("name", list(SURVIVAL))
def test_survival_roles_on_survival_tables(name):
    frame = TABLES[name]
    roles = columns.survival_roles(frame)
    time, event, group, unit = SURVIVAL[name]
    assert (roles["time"].column, roles["event"].column, roles["group"].column) == (time, event, group)
    assert columns.time_unit(roles["time"].column) == unit
    text = columns.describe(roles.values())
    assert f"time = {time!r}" in text and f"event = {event!r}" in text
    assert all(g.reason.startswith(("named", "its name")) for g in roles.values() if g.column is not None)


@pytest.mark.parametrize("name", ["diabetes", "breast_cancer"])
def test_response_is_the_target_column(name):
    g = columns.guess(TABLES[name], "response")
    assert g.column == "target" and g.reason == "named 'target'"
    options = list(TABLES[name].columns)
    assert options[g.index_in(options)] == "target"


def test_p_values_and_truth_by_name_and_type():
    frame = read_csv(b"id,label,pval,truth\n1,a,0.01,1\n2,b,0.5,0\n")
    assert columns.guess(frame, "p_value").column == "pval"
    assert columns.guess(frame, "truth", exclude=["pval"]).column == "truth"
    # a p-value column must hold decimals: an integer id named 'p' is not one
    frame = read_csv(b"p,x\n1,0.2\n2,0.7\n")
    g = columns.guess(frame, "p_value")
    assert g.column == "x" and "no usual name" in g.reason


def test_type_must_fit_and_fallback_says_so():
    frame = read_csv(b"name,time,event\nann,12.5,1\nbob,3.0,0\n")
    assert columns.survival_roles(frame)["time"].column == "time"
    frame = read_csv(b"time,a,b\nsoon,1.5,1\nlate,2.5,0\n")  # 'time' is text here: not a time
    g = columns.guess(frame, "time")
    assert g.column == "a" and g.reason == "no usual name found: the first column of numbers"
    assert columns.guess(frame, "group", fallback=False).column is None
    assert columns.describe([columns.Guess("group", None, "none")]) == ""


def test_index_in_defaults_when_the_guess_is_not_offered():
    g = columns.Guess("time", "T", "named 'T'")
    assert g.index_in(["(none)", "a", "T"]) == 2 and g.index_in(["a", "b"], default=1) == 1


@pytest.mark.parametrize("name, unit", [("week", "weeks"), ("time_months", "months"), ("futime", None),
                                        ("Days", "days"), ("survival.yrs", "years"), (None, None)])
def test_time_unit_from_the_name(name, unit):
    assert columns.time_unit(name) == unit

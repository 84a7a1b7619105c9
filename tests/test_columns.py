"""Default column mapping (dpcore.columns) on small synthetic tables shaped like common public ones.

The tables are the project's own: each copies only the header and the type of every column of a well-known
table (lifelines' rossi, waltons, gbsg2, lung, kidney transplant and larynx; scikit-learn's diabetes and
breast cancer), with a few made-up rows, and is read through the upload path's CSV reader.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore import columns
from dpcore.validation import read_csv


def _table(header: str, row, n: int = 12, seed: int = 0) -> pd.DataFrame:
    """``n`` rows of ``row(rng, i)`` (a list of cells) under ``header``, through the upload reader."""
    rng = np.random.default_rng(seed)
    lines = [header] + [",".join(str(v) for v in row(rng, i)) for i in range(n)]
    return read_csv("\n".join(lines).encode())


TABLES = {
    "rossi": _table("week,arrest,fin,age,race,wexp,mar,paro,prio",
                    lambda r, i: [r.integers(1, 53), i % 2, (i // 2) % 2, r.integers(17, 45), i % 2, 1, 0, 1,
                                  r.integers(0, 10)]),
    "waltons": _table("T,E,group", lambda r, i: [float(r.integers(5, 76)), int(i % 3 > 0),
                                                 "miR-137" if i % 2 else "control"]),
    "gbsg2": _table("horTh,age,menostat,tsize,tgrade,pnodes,progrec,estrec,time,cens",
                    lambda r, i: ["yes" if i % 2 else "no", r.integers(30, 80), "Post", r.integers(5, 60), "II",
                                  r.integers(1, 20), r.integers(0, 300), r.integers(0, 300), r.integers(50, 2600),
                                  i % 2]),
    "lung": _table("inst,time,status,age,sex,ph.ecog,ph.karno,pat.karno,meal.cal,wt.loss",
                   lambda r, i: [float(r.integers(1, 30)), r.integers(5, 1000), i % 2, r.integers(40, 80),
                                 1 + i % 2, float(i % 3), 90.0, 80.0, "" if i == 3 else 1000.0, 5.0]),
    "kidney_transplant": _table("time,death,age,black_male,white_male,black_female",
                                lambda r, i: [r.integers(1, 3000), i % 2, r.integers(10, 70), 0, 1, 0]),
    "larynx": _table("time,age,death,Stage_II,Stage_III,Stage_IV",
                     lambda r, i: [round(float(r.uniform(0.1, 10)), 1), r.integers(40, 86), i % 2, 0, 1, 0]),
    "diabetes": _table("age,sex,bmi,bp,s1,s2,s3,s4,s5,s6,target",
                       lambda r, i: [*np.round(r.normal(0, 0.05, 10), 4), r.integers(25, 346)]),
    "breast_cancer": _table("mean radius,mean texture,mean perimeter,mean area,worst area,target",
                            lambda r, i: [*np.round(r.uniform(5, 30, 4), 2), round(float(r.uniform(180, 2501)), 1),
                                          i % 2]),
}

SURVIVAL = {  # table → (time, event, group, unit) the guess must give
    "rossi": ("week", "arrest", "fin", "weeks"),
    "waltons": ("T", "E", "group", None),
    "gbsg2": ("time", "cens", "horTh", None),
    "lung": ("time", "status", "sex", None),
    "kidney_transplant": ("time", "death", None, None),
    "larynx": ("time", "death", None, None),
}


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

"""Small synthetic tables shaped like common public ones, for column guessing and uploads.

Each copies only the header and the type of every column of a well-known table (lifelines' rossi, waltons, gbsg2,
lung, kidney transplant and larynx; scikit-learn's diabetes and breast cancer), with a few made-up rows, read
through the upload path's CSV reader.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore.core.validation import read_csv


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

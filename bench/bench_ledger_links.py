"""How often rows of unrelated cohorts coincide: the measurement behind the ledger's cross-file rule.

Contents (a row's canonical cells, any column order) link an upload to an earlier one's persons only when at least
``RECOGNITION_SHARE`` of the smaller upload is the same contents (:mod:`dpcore.ledger.links`). This bench measures,
on public survival cohorts that lifelines ships:

- *within*: the share of a cohort's rows that repeat another row (refused without an id column);
- *halves*: a cohort split at random into two halves, i.e. two unrelated cohorts from the same population with the
  same columns: the share of one half's contents found in the other (the coincidences the rule must not link);
- *(time, event) only*: the same on the two columns every survival file has, the worst case for coincidence;
- *re-export*: a random subset of half the rows, in another column order and case; and the whole file with 3 % of
  its rows edited: the shares the rule must recognise.

Run: ``python bench/bench_ledger_links.py`` (seconds); prints a Markdown table (``docs/ledger.md`` keeps it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from lifelines import datasets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dpcore.core.persons import RECOGNITION_SHARE, Persons, repeated_rows  # noqa: E402

COHORTS = {"rossi": ("load_rossi", "week", "arrest"), "gbsg2": ("load_gbsg2", "time", "cens"),
           "lung": ("load_lung", "time", "status"), "kidney_transplant": ("load_kidney_transplant", "time", "death"),
           "larynx": ("load_larynx", "time", "death"), "waltons": ("load_waltons", "T", "E"),
           "dd": ("load_dd", "duration", "observed")}


def _contents(frame: pd.DataFrame) -> set[str]:
    return set(Persons.of_rows(frame, identical_rows_are_different_people=True).ids)


def _shared(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """The share of the smaller side's distinct contents found in the other (what the rule compares)."""
    ca, cb = _contents(a), _contents(b)
    return len(ca & cb) / min(len(ca), len(cb))


def _edited(frame: pd.DataFrame, rng: np.random.Generator, share: float = 0.03) -> pd.DataFrame:
    """The same file with one cell of ``share`` of its rows changed (a correction made outside the app)."""
    edited = frame.copy()
    rows = rng.choice(len(frame), max(1, int(share * len(frame))), replace=False)
    column = edited.columns.get_loc(edited.select_dtypes("number").columns[0])
    edited.iloc[rows, column] = edited.iloc[rows, column] + 1000
    return edited


def measure(seed: int = 0, splits: int = 20) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for name, (loader, time, event) in COHORTS.items():
        frame = getattr(datasets, loader)().dropna()
        halves, pairs = [], []
        for _ in range(splits):
            order = rng.permutation(len(frame))
            a, b = frame.iloc[order[: len(frame) // 2]], frame.iloc[order[len(frame) // 2:]]
            halves.append(_shared(a, b))
            pairs.append(_shared(a[[time, event]], b[[time, event]]))
        subset = frame.iloc[rng.permutation(len(frame))[: len(frame) // 2]]
        export = subset[subset.columns[::-1]].rename(columns=str.upper)
        export = export.apply(lambda c: c.str.upper() if c.dtype == object else c)
        rows.append({"cohort": name, "rows": len(frame), "columns": frame.shape[1],
                     "within: rows repeating another": repeated_rows(frame) / len(frame),
                     "halves: shared (max of 20)": max(halves), "(time, event) halves: shared (max)": max(pairs),
                     "re-export of half: shared": _shared(export, frame),
                     "re-export, 3 % of rows edited: shared": _shared(_edited(frame, rng), frame)})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    table = measure()
    print(f"Recognition share: {RECOGNITION_SHARE}\n")
    print("| " + " | ".join(table.columns) + " |\n|" + " --- |" * table.shape[1])
    for row in table.itertuples(index=False):
        print("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row) + " |")

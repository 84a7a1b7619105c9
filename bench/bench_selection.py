"""Benchmark of the private choice of ε (dpcore.private_choice.selection) against the non-private smallest-ε finder.

On Kaplan–Meier releases (the survival page's finder: sup-norm error ≤ 0.1 — the page's default — or ≤ 0.02,
with probability ≥ 0.9, discrete
Laplace, on the ε slider's steps) for the bundled PBC cohort (418 people) and simulated cohorts of 2,000 and 10,000
(exponential event times, 30 % censored, public horizon of five years in three-month bins):

* the non-private finder's answer on the full rows (the first step whose estimate meets the target);
* the private choice at a cost of ε_sel = 0.2, 0.5 and 1: over 2,000 draws of its noisy maximum (the blocks' votes
  are computed once, as a release computes them), the share of choices equal to the non-private step, within one
  step, below it (an ε that misses the target on the full rows), and the median choice;
* the time of the votes against the non-private finder's simulation, in the same process.

    .venv/bin/python bench/bench_selection.py

Writes bench/results/selection.json and bench/results/selection.md.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore.private_choice import selection  # noqa: E402
from dpcore import survival as sv  # noqa: E402
from dpcore.core.datasets import load_survival  # noqa: E402
from dpcore.core.utility import smallest_epsilon  # noqa: E402
from ui.widgets import EPSILON_STEPS  # noqa: E402

GRID = np.array(EPSILON_STEPS)
TARGETS = (0.1, 0.02)  # the page's default bound on the sup-norm error, and a strict one
PROBABILITY = 0.9
FINDER_DRAWS = 200  # the page's trade-off curve
CHOICE_COSTS = (0.2, 0.5, 1.0)
CHOICES = 2000
OPTIONS = dict(estimator="km", kind="discrete_laplace")


def _cohort(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, sv.Grid]:
    rng = np.random.default_rng(seed)
    event_time = rng.exponential(3 * 365.0, n)
    censor_time = rng.exponential(7 * 365.0, n)
    time_ = np.minimum(event_time, censor_time)
    return time_, (event_time <= censor_time).astype(int), sv.make_grid(5 * 365.0, data_unit="days",
                                                                         grid_unit="months", width=3)


def _pbc() -> tuple[np.ndarray, np.ndarray, sv.Grid]:
    d = load_survival("pbc")
    return d.time, (d.event > 0).astype(int), sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit="months",
                                                            width=6)


def _simulator(time_, event, grid, rows=None):
    rows = np.arange(time_.size) if rows is None else rows
    counts = sv.count_matrix(time_[rows], event[rows], grid)
    return partial(sv.metric_draws, counts, "sup_error", **OPTIONS)


def measure(name: str, time_, event, grid, bound: float) -> dict:
    target = dict(threshold=bound, kind="probability", probability=PROBABILITY)
    n = int(time_.size)
    start = time.perf_counter()
    draws = _simulator(time_, event, grid)(GRID, FINDER_DRAWS, np.random.default_rng(0))
    finder = smallest_epsilon(GRID, draws, **target)
    finder_seconds = time.perf_counter() - start
    meets = selection.meets_target(draws, **target)
    step = int(np.argmax(meets)) if meets.any() else GRID.size  # GRID.size: no step meets it
    blocks = selection.block_count(n)
    start = time.perf_counter()
    judge = selection.block_judge(partial(_simulator, time_, event, grid), GRID, **target)
    counts = selection.votes(judge, n, GRID.size, blocks=blocks, seed=0).sum(axis=0)
    votes_seconds = time.perf_counter() - start
    row = {"cohort": name, "n": n, "bound": bound, "blocks": blocks, "finder ε (interpolated)": finder.epsilon,
           "finder step": float(GRID[step]) if step < GRID.size else None,
           "finder seconds": round(finder_seconds, 3), "votes seconds": round(votes_seconds, 3),
           "votes / finder time": round(votes_seconds / finder_seconds, 2), "choices": {}}
    for cost in CHOICE_COSTS:
        picks = selection.preview_choices(counts, blocks, cost, rng=np.random.default_rng(1), draws=CHOICES)
        chosen = np.where(picks < GRID.size, GRID[np.minimum(picks, GRID.size - 1)], np.nan)
        row["choices"][str(cost)] = {
            "same step": float(np.mean(picks == step)),
            "within one step": float(np.mean(np.abs(picks - step) <= 1)),
            "below (misses the target)": float(np.mean(picks < step)),
            "none chosen": float(np.mean(picks == GRID.size)),
            "median chosen ε": float(np.nanmedian(chosen)) if np.isfinite(chosen).any() else None,
        }
    return row


def main() -> None:
    rows = [measure(name, *data, bound) for bound in TARGETS for name, data in
            [("PBC (bundled)", _pbc())] + [(f"simulated, n = {n:,}", _cohort(n, seed=n)) for n in (2_000, 10_000)]]
    out = ROOT / "bench" / "results"
    (out / "selection.json").write_text(json.dumps({"machine": platform.platform(), "rows": rows}, indent=2))
    lines = ["# Private choice of ε against the non-private finder", "",
             "Kaplan–Meier, sup-norm error ≤ bound with probability ≥ 0.9, discrete Laplace, the ε slider's steps. "
             f"{CHOICES:,} draws of the noisy maximum per cost (`bench/bench_selection.py`).", "",
             "| cohort | n | bound | blocks | finder ε | finder step | ε_sel | same step | within one step | below | none | "
             "median choice | votes / finder time |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        for cost, c in r["choices"].items():
            finder = "none" if r["finder ε (interpolated)"] is None else f"{r['finder ε (interpolated)']:.3g}"
            lines.append(f"| {r['cohort']} | {r['n']:,} | {r['bound']:g} | {r['blocks']} | {finder} | {r['finder step']} | {cost} | "
                         f"{c['same step']:.2f} | {c['within one step']:.2f} | {c['below (misses the target)']:.2f} | "
                         f"{c['none chosen']:.2f} | {c['median chosen ε']} | {r['votes / finder time']} |")
    (out / "selection.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

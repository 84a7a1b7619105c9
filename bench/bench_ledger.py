"""Benchmark: checking and charging one release on 10⁵ and 10⁶ persons, SQLite and PostgreSQL.

For each back end and n: the persons' keyed digests (an upload's person column), then three releases through
``Ledger.charge`` — the first (everyone new), a second on everyone (one history moves), and one on a random half (a
history splits) — each timed wall-clock, with the growth of the process's peak resident memory during the charge. The baseline, in the
same run, is the release itself without the ledger: ``dpcore.survival.release`` on n (time, event) records at the
default grid. Targets: under 2 s at 10⁵ and under 10 s at 10⁶, on this two-core machine.

Run: ``.venv/bin/python bench/bench_ledger.py [postgresql://…]`` (without a URL, PostgreSQL is skipped, or read from
``DPCORE_TEST_POSTGRES_URL``); writes ``bench/results/ledger.{json,md}``.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import survival as sv  # noqa: E402
from dpcore.ledger import Budget, Persons  # noqa: E402
from dpcore.ledger.config import LedgerConfig, open_ledger  # noqa: E402

SIZES = (100_000, 1_000_000)
TARGETS = {100_000: 2.0, 1_000_000: 10.0}


def _timed(call):
    """(value, seconds, growth of the process's peak resident memory in MB during the call)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    value = call()
    seconds = time.perf_counter() - start
    return value, seconds, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


def _baseline(n: int, rng) -> float:
    """The release without the ledger: DP Kaplan–Meier on n records at the default monthly grid."""
    time_ = rng.exponential(400.0, n)
    event = rng.integers(0, 2, n)
    grid = sv.make_grid(730.0, data_unit="days", grid_unit="months")
    start = time.perf_counter()
    sv.release(time_, event, grid=grid, epsilon=1.0)
    return time.perf_counter() - start


def _run(backend: str, url: str, n: int, rng) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        if url:
            from tests.conftest import postgres_schema

            context = postgres_schema(url)
            url = context.__enter__()
        # PostgreSQL makes the deployment shared: its secret is given from outside the data folder
        ledger = open_ledger(LedgerConfig(data_dir=Path(folder), url=url, default_cap=Budget(10.0, 1e-3),
                                          secret=secrets.token_bytes(32) if url else b""))
        ids = pd.Series(rng.permutation(10 * n)[:n])
        persons = Persons.of_column(ids, "patient_id")
        holding, digest_s, _ = _timed(lambda: ledger.holding(persons))
        row = {"backend": backend, "n": n, "digests_s": digest_s}
        half = ledger.holding(persons.subset(rng.random(n) < 0.5))
        for name, target in (("first", holding), ("again", holding), ("half", half)):
            _, seconds, peak = _timed(lambda t=target: ledger.charge(t, "KM", 1.0))
            row[f"{name}_s"], row[f"{name}_peak_mb"] = seconds, peak
        _, row["standing_s"], _ = _timed(lambda: ledger.standing(holding))
        if backend == "PostgreSQL":
            context.__exit__(None, None, None)
        return row


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("DPCORE_TEST_POSTGRES_URL", "")
    rng = np.random.default_rng(0)
    rows = []
    for n in SIZES:
        base = _baseline(n, rng)
        for backend, backend_url in (("SQLite", ""), ("PostgreSQL", url)):
            if backend == "PostgreSQL" and not url:
                continue
            row = _run(backend, backend_url, n, rng)
            row["release_without_ledger_s"] = base
            row["worst_charge_with_digests_s"] = row["digests_s"] + max(row[f"{k}_s"] for k in ("first", "again", "half"))
            row["ratio"] = row["worst_charge_with_digests_s"] / base
            row["target_s"] = TARGETS[n]
            row["met"] = row["worst_charge_with_digests_s"] < TARGETS[n]
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = ROOT / "bench" / "results"
    (out / "ledger.json").write_text(json.dumps(rows, indent=1))
    lines = ["| back end | persons | digests (s) | first charge (s) | again (s) | half (s) | standing (s) | "
             "peak memory growth of a charge (MB) | release without ledger (s) | worst digests + charge (s) | "
             "× release | target (s) | met |", "|" + " --- |" * 13]
    for r in rows:
        peak = max(r[f"{k}_peak_mb"] for k in ("first", "again", "half"))
        lines.append(f"| {r['backend']} | {r['n']:,} | {r['digests_s']:.2f} | {r['first_s']:.2f} | {r['again_s']:.2f} "
                     f"| {r['half_s']:.2f} | {r['standing_s']:.2f} | {peak:.0f} | {r['release_without_ledger_s']:.3f} "
                     f"| {r['worst_charge_with_digests_s']:.2f} | {r['ratio']:.0f} | {r['target_s']:g} | "
                     f"{'yes' if r['met'] else 'NO'} |")
    (out / "ledger.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

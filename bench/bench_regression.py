"""Benchmark: the batched (ωx, ωy) threshold search vs a straightforward per-pair loop.

The full search is every pair of ``OMEGA_GRID`` (27 × 27 = 729) × 20 synthetic data sets × 20 noise
draws at n = 500, for d = 10 and d = 64. The reference loop (one ``numpy.linalg.solve`` per fit, plus
the same PSD repair and Spearman score) runs in the same process on a subsample of pairs and is scaled
to the full grid. Writes ``bench/results/regression.json`` and ``bench/results/regression.md``.

Run: ``.venv/bin/python bench/bench_regression.py`` (about two minutes on a 2-core machine).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from dpcore.regression import OMEGA_GRID  # noqa: E402
from dpcore.regression.tuning import threshold_search, threshold_search_loop  # noqa: E402

N = 500
SETS, DRAWS = 20, 20
PAIRS = OMEGA_GRID.size ** 2
SUBSAMPLE = {10: 6, 64: 3}  # pairs timed in the loop (scaled to PAIRS)


def bench(d: int) -> dict:
    t0 = time.perf_counter()
    res = threshold_search(N, d, epsilon=1.0, n_sets=SETS, n_draws=DRAWS, rng=0)
    t_batched = time.perf_counter() - t0
    k = SUBSAMPLE[d]
    gx = OMEGA_GRID[np.linspace(0, OMEGA_GRID.size - 1, k).astype(int)]
    t0 = time.perf_counter()
    threshold_search_loop(N, d, epsilon=1.0, n_sets=SETS, n_draws=DRAWS, rng=0, grid_x=gx, grid_y=[1.0])
    t_loop_sub = time.perf_counter() - t0
    t_loop = t_loop_sub * PAIRS / k
    return {"n": N, "d": d, "pairs": PAIRS, "data_sets": SETS, "draws": DRAWS, "fits": PAIRS * SETS * DRAWS,
            "batched_seconds": round(t_batched, 3), "loop_pairs_timed": k, "loop_seconds_timed": round(t_loop_sub, 3),
            "loop_seconds_scaled_to_all_pairs": round(t_loop, 1), "speedup": round(t_loop / t_batched, 1),
            "chosen": [res.omega_x, res.omega_y], "best_mean_rho": round(res.best_score, 4)}


def main() -> None:
    rows = [bench(10), bench(64)]
    meta = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
            "numpy": np.__version__, "load_average_1min": os.getloadavg()[0],
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "default")}
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "regression.json").write_text(json.dumps({"meta": meta, "results": rows}, indent=2))
    lines = ["# Threshold search benchmark (regression)", "",
             f"Machine: {meta['machine']}; numpy {meta['numpy']}; 1-min load average at the end "
             f"{meta['load_average_1min']:.1f} (other jobs share the CPUs); BLAS threads "
             f"{meta['OPENBLAS_NUM_THREADS']}.", "",
             "| d | fits | batched (s) | per-pair loop, scaled (s) | speed-up | chosen (ωx, ωy) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['d']} | {r['fits']:,} | {r['batched_seconds']:.2f} | "
                     f"{r['loop_seconds_scaled_to_all_pairs']:.0f} ({r['loop_pairs_timed']} pairs timed) | "
                     f"{r['speedup']:.0f}× | ({r['chosen'][0]:g}, {r['chosen'][1]:g}) |")
    (out / "regression.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

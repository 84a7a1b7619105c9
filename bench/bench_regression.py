"""Benchmark of the drug-sensitivity methods, in one run: the threshold search's speed and the release methods' utility.

1. **Speed**: the (ωx, ωy) threshold search as the page runs it (coarse to fine over the 27 × 27
   ``OMEGA_GRID``, 20 synthetic data sets × 20 noise draws at n = 500) against the straightforward per-pair loop
   (one ``numpy.linalg.solve`` per fit, the same PSD repair and Spearman score), timed on a subsample of pairs in
   the same process and scaled to the whole grid; the batched whole-grid search is timed too, and the
   coarse-to-fine choice must equal its choice. Target: ≥ 20×.
2. **Utility**: median held-out R² and mean Spearman ρ of every model over ε on diabetes (332 private
   patients, 110 held out, public per-feature ranges, 30 Monte-Carlo splits) and on bundled GDSC (d = 10,
   700 private cell lines, 100 held out, the 5 drugs with the most cell lines × 10 splits). Target: AdaSSP's median R²
   at ε = 10 at least half the non-private OLS fit's (AdaSSP at ε = 10⁶, the same pipeline without noise), and within
   0.02 of it at ε = 10⁶.

Writes ``bench/results/regression.json`` and ``bench/results/regression.md``.
Run: ``OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_regression.py`` (about five minutes on a 2-core machine).
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

from dpcore.core.datasets import load_gdsc  # noqa: E402
from dpcore.regression import OMEGA_GRID  # noqa: E402
from dpcore.regression.evaluation import monte_carlo_cv  # noqa: E402
from dpcore.regression.examples import diabetes_example  # noqa: E402
from dpcore.regression.tuning import threshold_search, threshold_search_loop  # noqa: E402

N = 500
SETS, DRAWS = 20, 20
PAIRS = OMEGA_GRID.size ** 2
SUBSAMPLE = {10: 6, 64: 3}  # pairs timed in the loop (scaled to PAIRS)
EPSILONS = (1.0, 2.0, 5.0, 10.0, 1e6)
SHOWN = ("non-private LR", "AdaSSP", "robust private LR", "private LR (no projection)", "functional mechanism",
         "output perturbation")


def speed(d: int) -> dict:
    t0 = time.perf_counter()
    res = threshold_search(N, d, epsilon=1.0, n_sets=SETS, n_draws=DRAWS, rng=0)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    whole = threshold_search(N, d, epsilon=1.0, n_sets=SETS, n_draws=DRAWS, rng=0, coarse_to_fine=False)
    t_whole = time.perf_counter() - t0
    k = SUBSAMPLE[d]
    gx = OMEGA_GRID[np.linspace(0, OMEGA_GRID.size - 1, k).astype(int)]
    t0 = time.perf_counter()
    threshold_search_loop(N, d, epsilon=1.0, n_sets=SETS, n_draws=DRAWS, rng=0, grid_x=gx, grid_y=[1.0])
    t_loop_sub = time.perf_counter() - t0
    t_loop = t_loop_sub * PAIRS / k
    return {"n": N, "d": d, "pairs": PAIRS, "pairs_scored": res.pairs_scored, "data_sets": SETS, "draws": DRAWS,
            "search_seconds": round(t_fast, 3), "whole_grid_seconds": round(t_whole, 3), "loop_pairs_timed": k,
            "loop_seconds_timed": round(t_loop_sub, 3), "loop_seconds_scaled_to_all_pairs": round(t_loop, 1),
            "speedup": round(t_loop / t_fast, 1), "whole_grid_speedup": round(t_loop / t_whole, 1),
            "chosen": [res.omega_x, res.omega_y], "whole_grid_chosen": [whole.omega_x, whole.omega_y],
            "same_choice": (res.omega_x, res.omega_y) == (whole.omega_x, whole.omega_y)}


def _summary(res) -> dict:
    """Median R², the share of splits with R² < −1 (a median hides predictions far off the response's scale) and
    mean ρ per model × ε (first size)."""
    return {name: {"r2_median": np.median(res.r2[res.model(name), 0], axis=-1).round(3).tolist(),
                   "r2_below_minus_1": (res.r2[res.model(name), 0] < -1).mean(-1).round(3).tolist(),
                   "rho_mean": res.rho[res.model(name), 0].mean(-1).round(3).tolist()} for name in res.models}


def utility() -> dict:
    ex = diabetes_example()
    t0 = time.perf_counter()
    diabetes = monte_carlo_cv(ex.X, ex.y, epsilons=EPSILONS, sizes=[332], repeats=30, n_test=110, n_nonprivate=0,
                              x_bounds=ex.x_bounds, y_bounds=ex.y_bounds, rng=0)
    g = load_gdsc()
    drugs = list(g.ic50.notna().sum().sort_values(ascending=False).index[:5])
    per_drug = []
    for k, drug in enumerate(drugs):
        X, y = g.drug_data(drug, 10)
        per_drug.append(_summary(monte_carlo_cv(X, y, epsilons=EPSILONS, sizes=[700], repeats=10, n_test=100,
                                                n_nonprivate=0, x_bounds=(0.0, 1.0), y_bounds=g.response_range,
                                                rng=k)))
    gdsc = {name: {m: np.mean([p[name][m] for p in per_drug], axis=0).round(3).tolist()
                   for m in ("r2_median", "r2_below_minus_1", "rho_mean")} for name in per_drug[0]}
    out = {"epsilons": list(EPSILONS), "diabetes": _summary(diabetes), "gdsc": gdsc, "gdsc_drugs": drugs,
           "seconds": round(time.perf_counter() - t0, 1)}
    ada = out["diabetes"]["AdaSSP"]["r2_median"]
    ols = ada[-1]
    out["target"] = {"adassp_r2_eps10": ada[3], "ols_r2": ols, "half_met": ada[3] >= 0.5 * ols,
                     "robust_r2_eps10": out["diabetes"]["robust private LR"]["r2_median"][3]}
    return out


def _table(title: str, block: dict) -> list[str]:
    head = " | ".join(f"ε = {e:g}" for e in EPSILONS)
    lines = [f"**{title}** — median held-out R² (mean Spearman ρ) [share of splits with R² < −1]", "",
             f"| model | {head} |", "| --- |" + " --- |" * len(EPSILONS)]
    for name in SHOWN:
        r2, bad, rho = (block[name][k] for k in ("r2_median", "r2_below_minus_1", "rho_mean"))
        lines.append(f"| {name} | " + " | ".join(f"{a:.3f} ({b:.3f}) [{c:.0%}]" for a, c, b in zip(r2, bad, rho))
                     + " |")
    return lines + [""]


def main() -> None:
    rows = [speed(10), speed(64)]
    util = utility()
    meta = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
            "numpy": np.__version__, "load_average_1min": os.getloadavg()[0],
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "default")}
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "regression.json").write_text(json.dumps({"meta": meta, "speed": rows, "utility": util}, indent=2))
    t = util["target"]
    lines = ["# Drug-sensitivity benchmark (threshold search speed; utility of the release methods)", "",
             f"Machine: {meta['machine']}; numpy {meta['numpy']}; 1-min load average at the end "
             f"{meta['load_average_1min']:.1f} (other jobs share the CPUs); BLAS threads "
             f"{meta['OPENBLAS_NUM_THREADS']}.", "",
             "| d | pairs scored | search (s) | whole grid, batched (s) | per-pair loop, scaled (s) | speed-up "
             "(whole grid) | chosen (ωx, ωy) | same as whole grid |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['d']} | {r['pairs_scored']} of {r['pairs']} | {r['search_seconds']:.2f} | "
                     f"{r['whole_grid_seconds']:.2f} | {r['loop_seconds_scaled_to_all_pairs']:.0f} "
                     f"({r['loop_pairs_timed']} pairs timed) | {r['speedup']:.0f}× ({r['whole_grid_speedup']:.0f}×) | "
                     f"({r['chosen'][0]:g}, {r['chosen'][1]:g}) | {'yes' if r['same_choice'] else 'NO'} |")
    lines += ["", *_table("Diabetes (332 private, 110 held out, public ranges, 30 splits)", util["diabetes"]),
              *_table("GDSC (d = 10, 700 private, 100 held out, 5 drugs × 10 splits)", util["gdsc"]),
              f"Target (diabetes, ε = 10): AdaSSP median R² {t['adassp_r2_eps10']:.3f} against half the non-private "
              f"OLS fit's {0.5 * t['ols_r2']:.3f} ({'met' if t['half_met'] else 'NOT met'}); robust private LR "
              f"{t['robust_r2_eps10']:.3f}. Utility runs took {util['seconds']:.0f} s."]
    (out / "regression.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

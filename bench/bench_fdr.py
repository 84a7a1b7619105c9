"""Benchmark: 100 runs × 800 hypotheses for all six online-FDR rules, dpcore.fdr vs a per-run Python loop.

Both paths run in this process on the same p-values (and, for PAPRIKA, the same noise), and the script
checks that they make the same decisions before timing. Target: ≥ 50× overall. Writes
bench/results/fdr.json and prints the ratios.

    .venv/bin/python bench/bench_fdr.py

``--frontier`` times the release path's power frontier instead (every cutoff × ε of a record count stacked in one
kernel call) against one ``run_paprika`` call per cell on the same streams, and writes bench/results/fdr_frontier.json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import fdr  # noqa: E402
from dpcore.fdr import reference as ref  # noqa: E402

R, T = 100, 800
S = fdr.Settings(epsilon=5.0)


def _times(fn, repeat: int) -> np.ndarray:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return np.array(times)


def _median(fn, repeat: int) -> float:
    return float(np.median(_times(fn, repeat)))


def main() -> dict:
    rng = np.random.default_rng(0)
    streams = fdr.simulate_bernoulli(R, T, pi1=0.05, rng=rng)
    p = streams.pvalues
    noise = fdr.draw_paprika_noise(R, T, epsilon=S.epsilon, eta=S.eta, cutoff=S.cutoff, rng=rng)
    shift_a = fdr.paprika_shift(S.epsilon, S.delta, S.eta, S.cutoff, T, S.shift)
    g16 = fdr.gamma_sequence("power", T, exponent=1.6)
    g14 = fdr.gamma_sequence("power", T, exponent=1.4)
    rows = list(map(list, p))

    def pap(ai):
        return lambda: fdr.run_paprika(p, alpha=S.alpha, epsilon=S.epsilon, delta=S.delta, eta=S.eta,
                                       cutoff=S.cutoff, lam=S.lam_paprika, shift=S.shift, ai=ai, noise=noise)

    def pap_loop(ai):
        g = g14 if ai else g16
        return lambda: [ref.paprika_loop(rows[r], g, alpha=S.alpha, lam=S.lam_paprika, cutoff=S.cutoff,
                                         shift_a=shift_a, z_alpha=list(noise.z_alpha[r]), z_test=list(noise.z_test[r]),
                                         ai=ai) for r in range(R)]

    cases = {
        "SAFFRON": (lambda: fdr.run_saffron(p, alpha=S.alpha, lam=S.lam_saffron),
                    lambda: [ref.saffron_loop(x, g16, alpha=S.alpha, lam=S.lam_saffron) for x in rows]),
        "SAFFRON AI": (lambda: fdr.run_saffron_ai(p, alpha=S.alpha),
                       lambda: [ref.saffron_ai_loop(x, g14, alpha=S.alpha) for x in rows]),
        "LORD++": (lambda: fdr.run_lord(p, alpha=S.alpha), lambda: [ref.lord_loop(x, g16, alpha=S.alpha) for x in rows]),
        "alpha-investing": (lambda: fdr.run_alpha_investing(p, alpha=S.alpha),
                            lambda: [ref.alpha_investing_loop(x, alpha=S.alpha) for x in rows]),
        "PAPRIKA": (pap(False), pap_loop(False)),
        "PAPRIKA AI": (pap(True), pap_loop(True)),
    }
    results = {}
    total_vec = total_loop = 0.0
    for name, (vec, loop) in cases.items():
        v_out, l_out = vec(), loop()  # also the warm-up: compiles (or loads) the kernels
        same = all(v_out.rejections[r].tolist() == l_out[r][0] for r in range(R))
        if not same:
            raise SystemExit(f"{name}: dpcore and loop decisions differ")
        tv_all = _times(vec, 15)
        tl_all = _times(loop, 5)
        tv, tl = float(np.median(tv_all)), float(np.median(tl_all))
        total_vec += tv
        total_loop += tl
        results[name] = dict(dpcore_ms=round(tv * 1e3, 2), loop_ms=round(tl * 1e3, 1), ratio=round(tl / tv, 1),
                             ratio_of_best=round(float(tl_all.min() / tv_all.min()), 1),
                             rejections_per_run=float(v_out.rejections.sum(axis=1).mean()))
        print(f"{name:16s} dpcore {tv * 1e3:8.1f} ms   per-run loop {tl * 1e3:9.1f} ms   ratio {tl / tv:6.1f}×")
    separate = total_loop / total_vec
    print(f"{'six, one by one':16s} dpcore {total_vec * 1e3:8.1f} ms   per-run loop {total_loop * 1e3:9.1f} ms   "
          f"ratio {separate:6.1f}×")
    # all six in one call (rules stacked on the run axis), as the page and the sweeps run them
    together = fdr.run_all(p, S, rng=np.random.default_rng(1))
    for name in cases:
        loop_rej = cases[name][1]()
        if name not in fdr.PRIVATE_METHODS:  # private rules drew other noise here; checked in tests/fdr/test_fdr.py
            assert all(together[name].rejections[r].tolist() == loop_rej[r][0] for r in range(R)), name
    t_all = _median(lambda: fdr.run_all(p, S, rng=np.random.default_rng(1)), 15)
    overall = total_loop / t_all
    print(f"{'six, one call':16s} dpcore {t_all * 1e3:8.1f} ms   per-run loop {total_loop * 1e3:9.1f} ms   "
          f"ratio {overall:6.1f}× (target ≥ 50×)")
    # scaling: 1000 runs (per-call overhead amortised)
    big = fdr.simulate_bernoulli(10 * R, T, pi1=0.05, rng=np.random.default_rng(3)).pvalues
    t_big = _median(lambda: fdr.run_all(big, S, rng=np.random.default_rng(1)), 3)
    scaled = 10 * total_loop / t_big
    print(f"{'six, 1000 runs':16s} dpcore {t_big * 1e3:8.1f} ms   per-run loop ≈ {10 * total_loop * 1e3:7.0f} ms "
          f"(10 × the 100-run loop)   ratio ≈ {scaled:6.1f}×")
    out = dict(runs=R, hypotheses=T, methods=results, overall_ratio=round(overall, 1), target_ratio=50,
               ratio_at_1000_runs=round(scaled, 1), all_six_1000_runs_ms=round(t_big * 1e3, 1),
               one_by_one_ratio=round(separate, 1), all_six_one_loop_ms=round(t_all * 1e3, 1),
               total_dpcore_ms=round(total_vec * 1e3, 1), total_loop_ms=round(total_loop * 1e3, 1),
               python=platform.python_version(), numpy=np.__version__, machine=platform.machine(),
               load_average=[round(x, 2) for x in os.getloadavg()], cpus=os.cpu_count(),
               note="median of 15 (dpcore) / 5 (loop) repeats in the same process (ratio_of_best: fastest vs "
                    "fastest); same p-values and noise; decisions checked equal")
    (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (ROOT / "bench" / "results" / "fdr.json").write_text(json.dumps(out, indent=2))
    return out


def frontier() -> dict:
    """The stacked power frontier vs one run_paprika call per (records, cutoff, ε) cell (same law, same streams)."""
    records, runs = (1000, 5000), fdr.FRONTIER_RUNS
    stacked = lambda: fdr.power_frontier(records=records)  # noqa: E731

    def per_cell():
        for n in records:
            s = fdr.simulate_bernoulli(runs, T, n=n, rng=np.random.default_rng([0, 28]))
            floor = fdr.design_floor(n, 0.75)
            eta = fdr.eta_binomial_exact(n, floor)
            for c in fdr.FRONTIER_CUTOFFS:
                for e in fdr.FRONTIER_EPSILONS:
                    res = fdr.run_paprika(s.pvalues, alpha=0.05, epsilon=e, delta=2.5e-4, eta=eta, cutoff=c,
                                          shift=fdr.STREAM, floor=floor, rng=np.random.default_rng(1))
                    fdr.metrics(res.rejections, s.truth)

    stacked(), per_cell()  # warm-up (compiles or loads the kernels)
    t_stacked, t_cells = _median(stacked, 7), _median(per_cell, 3)
    full = _median(lambda: fdr.power_frontier(), 3)
    cells = len(records) * len(fdr.FRONTIER_CUTOFFS) * len(fdr.FRONTIER_EPSILONS)
    print(f"frontier, {cells} cells × {runs} runs: stacked {t_stacked * 1e3:.0f} ms, one call per cell "
          f"{t_cells * 1e3:.0f} ms, ratio {t_cells / t_stacked:.1f}×; the page's whole frontier "
          f"({len(fdr.FRONTIER_RECORDS)} record counts) {full * 1e3:.0f} ms")
    out = dict(cells=cells, runs=runs, hypotheses=T, stacked_ms=round(t_stacked * 1e3, 1),
               per_cell_ms=round(t_cells * 1e3, 1), ratio=round(t_cells / t_stacked, 2),
               page_frontier_ms=round(full * 1e3, 1), load_average=[round(x, 2) for x in os.getloadavg()],
               note="median of 7 (stacked) / 3 (per cell) repeats in the same process")
    (ROOT / "bench" / "results" / "fdr_frontier.json").write_text(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    frontier() if "--frontier" in sys.argv else main()

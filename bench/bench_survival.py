"""Benchmark: private Kaplan–Meier + 200-draw noise band vs lifelines KaplanMeierFitter.fit (same data, same run).

n = 10^6 synthetic records (exponential times, ~30 % censored), a public grid of
1000 bins. "private" = count matrix → one noisy matrix (OpenDP release, or the
NumPy preview) → post-processing → KM with Greenwood log(−log) interval →
200-redraw noise-aware band. Baseline: lifelines ``KaplanMeierFitter().fit`` on
the raw times (non-private). Prints medians of ``--repeats`` runs and the ratio
(< 1 means faster than lifelines); writes ``bench/results/survival.json``.

    .venv/bin/python bench/bench_survival.py [--n 1000000] [--bins 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import survival as sv  # noqa: E402


def private_km(time_, event, grid, *, epsilon: float, release: bool, band_draws: int, rng):
    counts = sv.count_matrix(time_, event, grid)
    noise = sv.survival_noise(epsilon)
    noisy = sv.release_counts(counts, noise) if release else sv.noisy_counts(counts, noise, rng=rng)
    curve = sv.km(sv.postprocess(noisy))
    lo, hi = sv.noise_band(noisy, noise, draws=band_draws, rng=rng)
    return curve, lo, hi


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--bins", type=int, default=1000)
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "survival.json")
    args = parser.parse_args()

    from lifelines import KaplanMeierFitter

    rng = np.random.default_rng(0)
    t = rng.exponential(365.0, args.n)
    c = rng.exponential(900.0, args.n)
    time_ = np.minimum(t, c)
    event = (t <= c).astype(np.int64)
    horizon = float(np.ceil(np.quantile(time_, 0.99)))  # synthetic data: the benchmark's own public choice
    grid = sv.points_grid(horizon, args.bins)

    base = timed(lambda: KaplanMeierFitter().fit(time_, event), args.repeats)
    rel = timed(lambda: private_km(time_, event, grid, epsilon=1.0, release=True, band_draws=args.draws, rng=rng),
                args.repeats)
    pre = timed(lambda: private_km(time_, event, grid, epsilon=1.0, release=False, band_draws=args.draws, rng=rng),
                args.repeats)
    counts_only = timed(lambda: sv.count_matrix(time_, event, grid), args.repeats)
    result = {
        "n": args.n, "bins": args.bins, "band_draws": args.draws, "repeats": args.repeats,
        "lifelines_fit_s": base,
        "private_km_band_release_s": rel, "ratio_release_vs_lifelines": rel / base,
        "private_km_band_preview_s": pre, "ratio_preview_vs_lifelines": pre / base,
        "count_matrix_s": counts_only,
        "python": platform.python_version(), "machine": platform.machine(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"lifelines KaplanMeierFitter.fit (n={args.n:,}): {base * 1e3:8.1f} ms")
    print(f"private KM + {args.draws}-draw band, OpenDP release: {rel * 1e3:8.1f} ms  ratio {rel / base:.3f}")
    print(f"private KM + {args.draws}-draw band, NumPy preview : {pre * 1e3:8.1f} ms  ratio {pre / base:.3f}")
    print(f"  of which the count matrix (binning {args.n:,} records): {counts_only * 1e3:.1f} ms")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Benchmark of the private choice of clipping ranges (dpcore.private_bounds) against the non-private quantiles.

On scikit-learn's diabetes table (442 patients, a response and 10 features in raw units: the bundled numeric table
with the most columns on different scales; ``dpcore.regression.examples``), every column's range is chosen as the
regression page's upload control chooses it: coverage 98 % (the 1st and 99th percentiles), declared outer ranges
typed as a custodian who knows only orders of magnitude would (response 0 to 1,000, every feature 0 to 400),
1,001 candidates each, ε_bounds split over the 22 quantiles. Compared, in the same process:

* the non-private choice: each column's empirical 1st and 99th percentiles (``numpy.quantile``), read off the rows;
* the private choice at ε_bounds = 0.5, 1, 2, 5 and 20: 20 seeded choices each (the preview's law, the same as
  OpenDP's release path: ``tests/test_private_bounds.py``);
* for reference, the public domain-knowledge ranges of ``dpcore.regression.examples``.

Reported: the share of each column's values inside its range (mean over columns and choices), the median over
columns of the range's width against the non-private one, and the downstream regression's utility — AdaSSP (the
page's default) at release ε = 5 with the public centres and scales the ranges give (midpoints, half-ranges, σy =
range/6), median held-out R² and Spearman ρ over 5 splits (332 training, 110 held out) × 20 noise draws — as ratios
against the non-private choice's.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_private_bounds.py

Writes bench/results/private_bounds.md.
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import private_bounds as pb  # noqa: E402
from dpcore.regression import ADASSP, DEFAULT_PREP_SHARE, adassp_delta  # noqa: E402
from dpcore.regression.evaluation import preview_fit  # noqa: E402
from dpcore.regression.examples import diabetes_example  # noqa: E402

COVERAGES = (0.9, 0.98)
OUTER_RESPONSE, OUTER_FEATURES = (0.0, 1000.0), (0.0, 400.0)
EPS_BOUNDS = (1.0, 2.0, 5.0, 20.0)
CHOICES = 20
RELEASE_EPSILON = 5.0
SPLITS, DRAWS, N_TEST = 5, 20, 110


def _utility(X, y, lower, upper, splits) -> tuple[float, float]:
    """Median held-out R² and Spearman ρ of AdaSSP with the ranges' public centres and scales."""
    r2, rho = [], []
    for s, (train, test) in enumerate(splits):
        pv = preview_fit(X, y, private=train, public=np.array([], dtype=int), test=test,
                         x_bounds=(np.asarray(lower[1:]), np.asarray(upper[1:])), y_bounds=(lower[0], upper[0]),
                         x_centre="public", y_centre="dp", sigma_y="dp", eps_prep=DEFAULT_PREP_SHARE * RELEASE_EPSILON,
                         eps_stat=(1 - DEFAULT_PREP_SHARE) * RELEASE_EPSILON, rng=np.random.default_rng(100 + s), draws=DRAWS, method=ADASSP,
                         delta=adassp_delta(train.size))
        r2.append(pv.r2)
        rho.append(pv.rho)
    return float(np.median(np.concatenate(r2))), float(np.median(np.concatenate(rho)))


def _coverage(values, lower, upper) -> float:
    return float(((values >= np.asarray(lower)) & (values <= np.asarray(upper))).mean())


def main() -> None:
    data = diabetes_example()
    values = np.column_stack([data.y, data.X])
    k = values.shape[1]
    outer = [OUTER_RESPONSE] + [OUTER_FEATURES] * (k - 1)
    rng = np.random.default_rng(0)
    splits = []
    for _ in range(SPLITS):
        order = rng.permutation(values.shape[0])
        splits.append((order[N_TEST:], order[:N_TEST]))
    start = time.perf_counter()
    public_lo, public_hi = np.r_[data.y_bounds[0], data.x_bounds[0]], np.r_[data.y_bounds[1], data.x_bounds[1]]
    r2_pub, rho_pub = _utility(data.X, data.y, public_lo, public_hi, splits)
    lines = [
        "# Private choice of clipping ranges against the non-private quantiles",
        "",
        f"scikit-learn's diabetes table ({values.shape[0]} patients, a response and {k - 1} features), declared outer "
        f"ranges {OUTER_RESPONSE} for the response and {OUTER_FEATURES} for every feature, {pb.GRID_POINTS} candidates "
        f"each, ε_bounds split over {2 * k} quantiles; {CHOICES} seeded private choices per ε_bounds. Downstream: "
        f"AdaSSP at release ε = {RELEASE_EPSILON:g} (the page's default: δ = 1/n², DP response centre and σy with "
        f"{DEFAULT_PREP_SHARE:.0%} of it, feature centres and scales from the ranges), median over {SPLITS} splits × "
        f"{DRAWS} noise draws ({values.shape[0] - N_TEST} training, {N_TEST} held out). Ratios are against the "
        "non-private choice at the same coverage (numpy.quantile on the rows), run in the same process.",
        "",
        "| ranges | coverage of the values | median width ÷ non-private | held-out R² | R² ÷ non-private | "
        "Spearman ρ | ρ ÷ non-private |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for coverage in COVERAGES:
        lo_np, hi_np = (np.quantile(values, q, axis=0) for q in pb.levels(coverage))
        r2_np, rho_np = _utility(data.X, data.y, lo_np, hi_np, splits)
        lines.append(f"| non-private, coverage {coverage:.0%} | {_coverage(values, lo_np, hi_np):.3f} | 1 | "
                     f"{r2_np:.3f} | 1 | {rho_np:.3f} | 1 |")
        for eps in EPS_BOUNDS:
            lower, upper = pb.preview_ranges(values, outer, epsilon=eps, coverage=coverage,
                                             rng=np.random.default_rng(int(eps * 10)), draws=CHOICES)
            r2, rho = np.median([_utility(data.X, data.y, lo, hi, splits) for lo, hi in zip(lower, upper)], axis=0)
            share = np.mean([_coverage(values, lo, hi) for lo, hi in zip(lower, upper)])
            width = np.median((upper - lower) / (hi_np - lo_np))
            lines.append(f"| private, coverage {coverage:.0%}, ε_bounds = {eps:g} | {share:.3f} | {width:.2f} | "
                         f"{r2:.3f} | {r2 / r2_np:.2f} | {rho:.3f} | {rho / rho_np:.2f} |")
        lines.append(f"| public domain-knowledge ranges (reference) | {_coverage(values, public_lo, public_hi):.3f} | "
                     f"{np.median((public_hi - public_lo) / (hi_np - lo_np)):.2f} | {r2_pub:.3f} | "
                     f"{r2_pub / r2_np:.2f} | {rho_pub:.3f} | {rho_pub / rho_np:.2f} |")
    seconds = time.perf_counter() - start
    lines += [
        "",
        f"Run time {seconds:.0f} s on {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}. `OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_private_bounds.py`.",
    ]
    out = ROOT / "bench" / "results" / "private_bounds.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

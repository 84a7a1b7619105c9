"""Benchmark of the private choice of clipping ranges (dpcore.private_choice.private_bounds) against the non-private quantiles.

On scikit-learn's diabetes table (442 patients, a response and 10 features in raw units: the bundled numeric table
with the most columns on different scales; ``dpcore.regression.examples``), every column's range is chosen as the
regression page's upload control chooses it: coverage 98 % (the 1st and 99th percentiles), declared outer ranges
typed as a custodian who knows only orders of magnitude would (response 0 to 1,000, every feature 0 to 400),
1,001 candidates each, ε_bounds split over the 22 quantiles. Compared, in the same process:

* the non-private choice: each column's empirical 1st and 99th percentiles (``numpy.quantile``), read off the rows;
* the private choice at ε_bounds = 0.5, 1, 2, 5 and 20: 20 seeded choices each (the preview's law, the same as
  OpenDP's release path: ``tests/private_choice/test_private_bounds.py``);
* for reference, the public domain-knowledge ranges of ``dpcore.regression.examples``.

Reported: the share of each column's values inside its range (mean over columns and choices), the median over
columns of the range's width against the non-private one, and the downstream regression's utility — AdaSSP (the
page's default) at release ε = 5 with the public centres and scales the ranges give (midpoints, half-ranges, σy =
range/6), median held-out R² and Spearman ρ over 5 splits (332 training, 110 held out) × 20 noise draws — as ratios
against the non-private choice's.

The sparse page's bounds K and r (one quantile each of every row's largest |x| and of |y|) on an upload-like table:
the same 442 patients, their 10 features and 40 columns of public-seed noise (d = 50), every column z-scored as an
uploader might send it, the page's public 80/20 split (``sp.upload_split``), declared outer ranges the page's limits
(0.1 to 100), coverage 90 % and 98 %. Compared: the page's typed defaults (K = 1, r = 5), the non-private quantiles
and 20 seeded private choices per ε_bounds (0.1, 0.5, 1, 2, 5); downstream, the default peeling + private fit release
(s = 5, ε = 2 and 5, δ = 1/n², 50 noise draws per K and r): median held-out MSE, and the F1 overlap of its support
with the non-private model's (IGHT, clipped with the non-private bounds), as ratios against the non-private bounds'.

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

from dpcore.private_choice import private_bounds as pb  # noqa: E402
from dpcore import sparse as sp  # noqa: E402
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


SPARSE_NOISE_COLUMNS, SPARSE_S, SPARSE_EPSILONS, SPARSE_DRAWS = 40, 5, (2.0, 5.0), 50
SPARSE_LIMITS = (0.1, 100.0)  # the sparse page's K and r inputs' range: the declared outer range
SPARSE_EPS_BOUNDS = (0.1, 0.5, 1.0, 2.0, 5.0)
TYPED = (1.0, 5.0)  # the sparse page's defaults for K and r


def _sparse_table(data) -> tuple[np.ndarray, np.ndarray]:
    """Diabetes' 10 features and 40 noise columns (public seed), every column z-scored: an upload-like table."""
    noise = np.random.default_rng(1).normal(size=(data.X.shape[0], SPARSE_NOISE_COLUMNS))
    X = np.column_stack([data.X, noise])
    return (X - X.mean(axis=0)) / X.std(axis=0), (data.y - data.y.mean()) / data.y.std()


def _sparse_utility(X, y, bounds, eps: float, teacher_support) -> tuple[float, float]:
    """Median held-out MSE and support overlap (F1) with the non-private model of peeling + private fit."""
    train, test = sp.upload_split(len(y))
    K, r = bounds
    fit = sp.BATCH["peel"](X[train], y[train], sparsity=SPARSE_S, epsilons=[eps], delta=1.0 / train.size**2,
                           loss="linear", rng=np.random.default_rng(int(eps * 1000 + K * 7 + r)), draws=SPARSE_DRAWS,
                           K=K, r=r)
    coef, intercept = fit.coef[0], fit.details["intercept"][0]
    mse = sp.test_error(coef, X[test], y[test], "linear", intercept)
    overlap = sp.support_scores(coef, teacher_support)["f1"]
    return float(np.median(mse)), float(np.median(overlap))


def _sparse_lines(data) -> list[str]:
    X, y = _sparse_table(data)
    train, _ = sp.upload_split(len(y))
    values = pb.magnitudes(X[train], y[train])  # what the page's choice reads: the training rows
    outer = [SPARSE_LIMITS] * 2
    lines = [
        "",
        "## The sparse page's K and r",
        "",
        f"Diabetes' {data.X.shape[1]} features and {SPARSE_NOISE_COLUMNS} noise columns (d = {X.shape[1]}), every "
        f"column z-scored; {train.size} training rows (the page's public split), {len(y) - train.size} held out. "
        f"K and r: the coverage quantiles of each row's largest |x| and of |y| on the training rows, declared outer "
        f"range {SPARSE_LIMITS} for both, {pb.GRID_POINTS} candidates, ε_bounds split over 2 quantiles; "
        f"{CHOICES} seeded private choices per ε_bounds. Downstream: peeling + private fit (s = {SPARSE_S}, δ = 1/n², "
        f"{SPARSE_DRAWS} draws per K and r, median over choices of each choice's median). Ratios against the "
        "non-private quantiles at the same coverage, in the same process.",
        "",
        "| K and r | K ÷ non-private | r ÷ non-private | training rows inside both | "
        + " | ".join(f"MSE at ε = {e:g} | ÷ non-private | overlap F1 at ε = {e:g} | ÷ non-private"
                     for e in SPARSE_EPSILONS) + " |",
        "| --- | --- | --- | --- | " + " | ".join(["---"] * 4 * len(SPARSE_EPSILONS)) + " |",
    ]

    def row(title, choices, exact, reference, teachers) -> str:
        """One table row: K and r choices ``(c, 2)`` against the non-private ``exact`` and its utility."""
        choices = np.atleast_2d(choices)
        inside = np.mean([np.mean(np.all(values <= c, axis=1)) for c in choices])
        ratio = np.median(choices / exact, axis=0)
        cells = [title, f"{ratio[0]:.2f}", f"{ratio[1]:.2f}", f"{inside:.3f}"]
        for e, (mse_ref, f1_ref) in zip(SPARSE_EPSILONS, reference):
            mse, f1 = np.median([_sparse_utility(X, y, c, e, teachers) for c in choices], axis=0)
            cells += [f"{mse:.3f}", f"{mse / mse_ref:.2f}", f"{f1:.2f}", f"{f1 / f1_ref:.2f}"]
        return "| " + " | ".join(cells) + " |"

    for coverage in COVERAGES:
        exact = np.quantile(values, coverage, axis=0)
        p = sp.SparseParams(K=float(exact[0]), r=float(exact[1]))
        Xc, yc = sp.prepare(X[train], y[train], "linear", p)
        teachers = np.flatnonzero(sp.teacher_fit(Xc, yc, sparsity=SPARSE_S, lam=0.0, loss="linear", p=p))
        reference = [_sparse_utility(X, y, exact, e, teachers) for e in SPARSE_EPSILONS]
        lines.append(row(f"non-private, coverage {coverage:.0%} (K = {exact[0]:.2f}, r = {exact[1]:.2f})", exact,
                         exact, reference, teachers))
        for eps in SPARSE_EPS_BOUNDS:
            chosen = pb.preview_bounds(values, outer, epsilon=eps, coverage=coverage,
                                       rng=np.random.default_rng(int(eps * 100)), draws=CHOICES)
            lines.append(row(f"private, coverage {coverage:.0%}, ε_bounds = {eps:g}", chosen, exact, reference,
                             teachers))
        lines.append(row(f"typed page defaults K = {TYPED[0]:g}, r = {TYPED[1]:g}", np.array(TYPED), exact,
                         reference, teachers))
    return lines


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
    lines += _sparse_lines(data)
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

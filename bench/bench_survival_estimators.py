"""Benchmark: which post-processing of the noisy count matrix gives the most accurate DP Kaplan–Meier.

Every candidate (:data:`CANDIDATES`: a released statistic — the histogram of cells, Δ1 = 2, or the paper's matrix,
Δ1 = 4 with groups — and a rule of ``dpcore.survival.RISK_SETS``) gets the **same** discrete-Laplace draws per
statistic (the NumPy preview, equal in distribution to an OpenDP release) on every bundled survival set, at
ε ∈ {0.5, 1, 2, 5, 10}, on the page's default grid (``default_bin_width(horizon, unit, n=, epsilon=, n_groups=)``;
``--legacy-grid``: the manifest's unit, one bin each). Sets with a group comparison are released by groups, as the
page does by default;
the two competing-risk sets as one matrix. Measures, against lifelines' ``KaplanMeierFitter`` on the **raw**
times, read at every grid edge where at least 10 % of the group is still at risk:

- bias: the largest |mean of R releases − exact| over the read points;
- sup error: per release the largest |release − exact| over the read points; median and 90th percentile;
- coverage: per release the share of read points its own 95 % interval (``noise_band``, the released
  ``ci_lower``/``ci_upper``: a parametric bootstrap from the released counts with sampling error) covers;
  the median over releases, as the issue measures it, and over all (release, point) pairs; median coverage: the
  share of releases whose median interval (the interval inverted at 0.5) holds lifelines' median (as the grid
  edge closing its bin);
- log-rank (grouped sets, noise-aware variance): agreement of the decision at α = 0.05 with lifelines'
  ``logrank_test`` on the raw times, and the size under the null (group labels permuted: ``--null`` data sets,
  one release each, so the share of rejections at α = 0.05 has a binomial error), both on the table a release's
  test reads (``logrank_table``).

Writes ``bench/results/survival_estimators.{csv,md}``.

    .venv/bin/python bench/bench_survival_estimators.py [--draws 100] [--band-draws 100] [--null 2000] [--sets a,b]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import survival as sv  # noqa: E402
from dpcore.core.datasets import load_survival, manifest, survival_names  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
ALPHA = 0.05


def default_grid(d, n_groups: int, epsilon: float, legacy: bool) -> sv.Grid:
    """The page's default grid for this set at this ε (``legacy``: the manifest's unit, one bin each)."""
    if legacy:
        return sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)
    width, unit = sv.default_bin_width(d.horizon, d.time_unit, n=d.time.size, epsilon=epsilon, n_groups=n_groups)
    return sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=unit, width=width)


def exact_curves(time, event, group, groups, grid: sv.Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """lifelines' KM on the raw times at the grid edges (G, k+1), where ≥ 10 % of the group is at risk, and its
    median as the grid edge that closes the bin holding it (grid units; inf: not reached by the horizon)."""
    from lifelines import KaplanMeierFitter

    curves, read, medians = [], [], []
    for g in groups:
        mine = np.ones(time.size, bool) if group is None else (group == g)
        t, e = time[mine], event[mine] != 0
        kmf = KaplanMeierFitter().fit(t, e)
        curves.append(kmf.survival_function_at_times(grid.edges).to_numpy())
        at_risk = (t[None, :] >= grid.edges[:, None]).sum(1)
        read.append((at_risk >= 0.1 * t.size) & (grid.edges > 0))
        m = float(kmf.median_survival_time_)
        medians.append(grid.display[np.searchsorted(grid.edges, m)] if m <= grid.horizon else np.inf)
    return np.array(curves), np.array(read), np.array(medians)


def logrank_p(time, event, group, groups) -> float:
    from lifelines.statistics import logrank_test

    a, b = (group == groups[0]), (group == groups[1])
    return float(logrank_test(time[a], time[b], event[a] != 0, event[b] != 0).p_value)


#: The candidates: (released statistic, post-processing rule). The histogram (cells only, Δ1 = 2 with groups) with
#: each consistent rule, and the paper's matrix (r_1 noised too, Δ1 = 4 with groups) with every rule.
CANDIDATES: tuple[tuple[str, str], ...] = (
    ("histogram", "isotonic"), ("histogram", "bridge"),
    ("matrix", "isotonic"), ("matrix", "bridge"), ("matrix", "running"), ("matrix", "spec"))


def candidate_name(statistic: str, rule: str) -> str:
    return f"{statistic} + {rule}"


def candidate_rows(name: str, epsilon: float, draws: int, band_draws: int, n_null: int, legacy: bool,
                   rng: np.random.Generator) -> list[dict]:
    d = load_survival(name)
    groups = tuple(manifest()["survival"][name]["groups"]) or ("all",)
    group = d.group if len(groups) > 1 else None
    event = (np.asarray(d.event) != 0).astype(np.int64)
    grid = default_grid(d, len(groups), epsilon, legacy)
    exact, read, exact_median = exact_curves(d.time, event, group, groups, grid)
    lr = group is not None
    if lr:
        exact_p = logrank_p(d.time, event, group, groups)
        perm = [rng.permutation(group) for _ in range(n_null)]  # the null: labels permuted, one release each
    released = {}  # per statistic: the same draws for every rule
    for statistic in dict.fromkeys(s for s, _ in CANDIDATES):
        counts = sv.count_matrix(d.time, event, grid, group=group, groups=groups if lr else None, statistic=statistic)
        noise = sv.noise_for(counts, epsilon)
        null = None
        if lr:  # every permuted data set released once: independent draws, so the size has a binomial error
            permuted = [sv.count_matrix(d.time, event, grid, group=p, groups=groups, statistic=statistic)
                        for p in perm]
            null = sv.noisy_counts(permuted[0].from_vector(np.stack([c.vector() for c in permuted])), noise, rng=rng)
        released[statistic] = (noise, sv.noisy_counts(counts, noise, rng=rng, draws=draws), null)
    rows = []
    for statistic, rule in CANDIDATES:
        noise, noisy, null_noisy = released[statistic]
        est = sv.km(sv.postprocess(noisy, risk_set=rule)).estimate  # (R, G, k+1)
        err = np.where(read, np.abs(est - exact), 0.0)
        lo, hi = sv.noise_band(noisy, noise, draws=band_draws, rng=rng, risk_set=rule)
        covered = ((lo <= exact + 1e-9) & (exact <= hi + 1e-9) | ~read).sum((-1, -2)) - (~read).sum()
        _, m_lo, m_hi = sv.median_interval(est, lo, hi, grid.display)  # the released median's interval
        m_in = np.where(np.isinf(exact_median), np.isinf(m_hi), (m_lo <= exact_median) & (exact_median <= m_hi))
        row = {"data set": name, "n": d.time.size, "groups": len(groups), "bins": grid.k,
               "grid": sv.bin_width_text(grid.width, grid.grid_unit), "ε": epsilon,
               "candidate": candidate_name(statistic, rule),
               "bias": float(np.where(read, np.abs(est.mean(0) - exact), 0.0).max()),
               "sup error median": float(np.median(err.max((-1, -2)))),
               "sup error p90": float(np.quantile(err.max((-1, -2)), 0.9)),
               "coverage (median release)": float(np.median(covered / read.sum())),
               "coverage (all points)": float(covered.sum() / (read.sum() * draws)),
               "median coverage": float(m_in.mean())}
        if lr:
            nv = noise.std ** 2
            p = sv.logrank_test(sv.logrank_table(noisy, noise.std, risk_set=rule), noise_var=nv).p_value
            null_p = sv.logrank_test(sv.logrank_table(null_noisy, noise.std, risk_set=rule), noise_var=nv).p_value
            row.update({"exact log-rank p": exact_p,
                        "log-rank agreement": float(np.mean((p < ALPHA) == (exact_p < ALPHA))),
                        "log-rank size (null)": float(np.mean(null_p < ALPHA))})
        rows.append(row)
    return rows


def prefix_release_variances(cells_per_group=(12, 16, 28, 40, 80)) -> pd.DataFrame:
    """Exact noise variances (in units of the variance of one count at Δ1 = 2) of what a Kaplan–Meier curve of two
    groups needs — one bin's events, and the number at risk at the worst bin — for three releases of m cells per
    group: the histogram (Δ1 = 2; r_j the sum of the exits to come, both groups pinned to n), the paper's matrix
    (Δ1 = 4, so 4× the variance per count; the bridge pinned at both ends), and a binary-tree release of the
    histogram's prefix sums (every one of L = ⌈log2 m⌉ + 1 levels carries Δ1 = 2, so each node has L² the
    variance; a prefix sum adds up to ⌈log2 m⌉ nodes). All linear, so the variances are exact."""
    rows = []
    for m in cells_per_group:
        levels = int(np.ceil(np.log2(m))) + 1
        # histogram, two groups pinned together (2m cells, σ²(I − 11ᵀ/2m)): var of the suffix sum of p cells
        hist_r = max(p - p * p / (2 * m) for p in range(m + 1))
        matrix_r = 4 * max(p * (m + 1 - p) / (m + 1) for p in range(m + 1))  # bridge over m + 1 counts, 4σ² each
        rows.append({"cells per group m": m, "events of a bin: histogram": 1.0, "matrix": 4.0,
                     "tree": float(levels ** 2), "number at risk (worst bin): histogram": hist_r, "matrix ": matrix_r,
                     "tree ": float((levels - 1) * levels ** 2)})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(lines) + "\n"


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per candidate and ε: the worst set and the median set of each measure."""
    measures = {"bias": "max", "sup error median": "max", "sup error p90": "max",
                "coverage (median release)": "min", "coverage (all points)": "min", "median coverage": "min",
                "log-rank agreement": "min", "log-rank size (null)": "max"}
    out = []
    for (rule, eps), part in table.groupby(["candidate", "ε"], sort=False):
        row = {"candidate": rule, "ε": eps}
        for m, worst in measures.items():
            v = part[m].dropna()
            row[f"{m} ({worst})"] = float(getattr(v, worst)())
            row[f"{m} (median set)"] = float(v.median())
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--band-draws", type=int, default=100)
    parser.add_argument("--null", type=int, default=2000,
                        help="permuted data sets, one release each, for the log-rank size (binomial sd ≈ 0.005)")
    parser.add_argument("--sets", default="", help="comma-separated subset of the bundled sets")
    parser.add_argument("--epsilons", default=",".join(str(e) for e in EPSILONS))
    parser.add_argument("--legacy-grid", action="store_true", help="the manifest's grid instead of the default rule")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "survival_estimators")
    args = parser.parse_args()
    names = [s for s in args.sets.split(",") if s] or survival_names()
    seeds = np.random.SeedSequence(args.seed).spawn(len(names))
    rows = []
    for name, seed in zip(names, seeds):
        rng = np.random.default_rng(seed)
        for eps in (float(e) for e in args.epsilons.split(",")):
            rows += candidate_rows(name, eps, args.draws, args.band_draws, args.null, args.legacy_grid, rng)
            print(pd.DataFrame(rows[-len(CANDIDATES):]).drop(columns=["n", "groups"]).to_string(index=False),
                  flush=True)
    table = pd.DataFrame(rows)
    out = Path(str(args.out) + ("_legacy_grid" if args.legacy_grid else ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out.with_suffix(".csv"), index=False)
    summ = summary(table)
    out.with_suffix(".md").write_text("## Per set\n\n" + markdown(table) + "\n## Summary\n\n" + markdown(summ)
                                      + "\n## Noise variances of three releases (exact)\n\n"
                                      + markdown(prefix_release_variances()))
    print(summ.to_string(index=False))


if __name__ == "__main__":
    main()

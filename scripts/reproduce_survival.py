"""Reproduce the evaluation of Gondara & Wang (DP survival function estimation) on the bundled data.

Nine data sets (the paper's), ε ∈ {1, 2, 3}, R noise draws each (the paper
averaged 10 runs; default here 200), discrete Laplace noise on the paper's count matrix (``statistic="matrix"``:
the number at the start noised too, so Δ1 = 4 with groups; the dashboard's default histogram has Δ1 = 2).
Kaplan–Meier of the whole data set (one matrix, Δ1 = 2): mean sup-norm
error, integrated absolute error (in grid units), median error (spec
post-processing; also the sup error with the optional running-sum risk set); log-rank
test of the paper's group comparison (groups released together, Δ1 = 4):
share of draws whose decision at α = 0.05 agrees with the non-private test
(the spec's test, and the optional noise-aware variance).
The two competing-risk sets get the cumulative incidence of the event of
interest (sup error). Writes ``bench/results/survival_reproduction.{md,csv}``.

    .venv/bin/python scripts/reproduce_survival.py [--draws 200] [--seed 0] [--scheduler ADDRESS | --local-workers N]

One task per data set, each with its own child of one ``SeedSequence(seed)``: the tables are identical in
process, on local workers or on a Dask cluster (``dpcore.core.distributed``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore.core import distributed  # noqa: E402
from dpcore import survival as sv  # noqa: E402
from dpcore.core.datasets import load_survival, manifest  # noqa: E402

NINE = ["cancer", "gehan", "kidney", "leukemia", "mgus", "myeloid", "ovarian", "stanford", "veteran"]
COMPETING = ["pbc", "transplant"]
EPSILONS = [1.0, 2.0, 3.0]


def _grid(d):
    return sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)


def nine_rows(name: str, draws: int, seed: np.random.SeedSequence) -> list[dict]:
    """Kaplan–Meier and log-rank rows of one of the paper's nine data sets (one task)."""
    rng = np.random.default_rng(seed)
    d = load_survival(name)
    grid = _grid(d)
    groups = tuple(manifest()["survival"][name]["groups"])
    overall = sv.count_matrix(d.time, d.event, grid, statistic="matrix")
    grouped = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=groups, statistic="matrix")
    km_uc = sv.utility_curve(overall, EPSILONS, draws=draws, rng=rng, kind="discrete_laplace")
    lr_uc = sv.utility_curve(grouped, EPSILONS, draws=draws, rng=rng, kind="discrete_laplace")
    na_uc = sv.utility_curve(grouped, EPSILONS, draws=draws, rng=rng, kind="discrete_laplace",
                             noise_aware_logrank=True)
    run_uc = sv.utility_curve(overall, EPSILONS, draws=draws, rng=rng, kind="discrete_laplace", risk_set="running")
    return [{
        "data set": name, "n": d.time.size, "bins": grid.k, "unit": grid.grid_unit, "ε": eps,
        "sup error": km_uc.sup_error[i].mean(),
        "sup error q95": np.quantile(km_uc.sup_error[i], 0.95),
        "integrated error": km_uc.integrated_error[i].mean(),
        "median error": np.nanmean(km_uc.median_error[i]) if not np.isnan(km_uc.median_error[i]).all()
        else np.nan,
        "CI covers exact (share of grid)": km_uc.coverage[i].mean(),
        "sup error, running risk set": run_uc.sup_error[i].mean(),
        "log-rank agreement": lr_uc.logrank_agree[i].mean(),
        "log-rank agreement, noise-aware": na_uc.logrank_agree[i].mean(),
        "non-private p": lr_uc.exact_p_value,
        "private p (median)": np.median(lr_uc.p_value[i]),
    } for i, eps in enumerate(EPSILONS)]


def competing_rows(name: str, draws: int, seed: np.random.SeedSequence) -> list[dict]:
    """Cumulative-incidence rows of one competing-risk data set (one task)."""
    rng = np.random.default_rng(seed)
    d = load_survival(name)
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid, n_types=2, statistic="matrix")
    uc = sv.utility_curve(counts, EPSILONS, draws=draws, rng=rng, kind="discrete_laplace", estimator="cif",
                          event_type=1)
    return [{"data set": name, "n": d.time.size, "bins": grid.k, "ε": eps, "event of interest": d.event_labels[1],
             "CIF sup error": uc.sup_error[i].mean(), "CIF integrated error": uc.integrated_error[i].mean()}
            for i, eps in enumerate(EPSILONS)]


def run(draws: int = 200, seed: int = 0, executor: distributed.Executor | None = None,
        progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables; data set ``i`` of ``NINE + COMPETING`` draws from child ``i`` of ``SeedSequence(seed)``."""
    names = NINE + COMPETING
    seeds = distributed.spawn_seeds(seed, len(names))
    tasks = [(nine_rows if name in NINE else competing_rows, name, draws, child) for name, child in zip(names, seeds)]
    parts = (executor or distributed.Executor()).map(distributed.call, tasks, progress=progress)
    km = [row for part in parts[:len(NINE)] for row in part]
    cif = [row for part in parts[len(NINE):] for row in part]
    return pd.DataFrame(km), pd.DataFrame(cif)


RISK_SET_EPSILONS = [0.5, 1.0, 2.0]


def risk_set_rows(name: str, draws: int, seed: np.random.SeedSequence) -> list[dict]:
    """The two risk sets (free post-processing) on one bundled set: the same noisy draws through each.

    Two releases per ε: the whole data set as one matrix (Δ1 = 2), and the pooled curve of a release by groups
    (Δ1 = 4, what the page's headline shows when groups are compared).
    """
    rng = np.random.default_rng(seed)
    d = load_survival(name)
    grid = _grid(d)
    event = (np.asarray(d.event) != 0).astype(np.int64)
    groups = tuple(manifest()["survival"][name]["groups"])
    releases = {"one matrix": sv.count_matrix(d.time, event, grid, statistic="matrix")}
    if groups:
        releases["pooled from groups"] = sv.count_matrix(d.time, event, grid, group=d.group, groups=groups,
                                                         statistic="matrix")
    rows = []
    for release, counts in releases.items():
        exact = sv.km(sv.postprocess(counts.pooled())).estimate[0]
        for eps in RISK_SET_EPSILONS:
            noisy = sv.noisy_counts(counts, sv.noise_for(counts, eps), rng=rng, draws=draws).pooled()
            row = {"data set": name, "release": release, "bins": grid.k, "ε": eps}
            for risk_set in ("spec", "running"):
                diff = np.abs(sv.km(sv.postprocess(noisy, risk_set=risk_set)).estimate[:, 0] - exact)
                row[f"sup error, {risk_set}"] = diff.max(-1).mean()
                row[f"integrated error, {risk_set}"] = (diff[:, :-1] * np.diff(grid.display)).sum(-1).mean()
            rows.append(row)
    return rows


def risk_set_comparison(draws: int = 500, seed: int = 0, executor: distributed.Executor | None = None) -> pd.DataFrame:
    """Both risk sets on every bundled set (``docs/survival.md``, "Which risk set")."""
    names = NINE + COMPETING
    seeds = distributed.spawn_seeds(seed, len(names))
    parts = (executor or distributed.Executor()).map(
        distributed.call, [(risk_set_rows, name, draws, child) for name, child in zip(names, seeds)])
    return pd.DataFrame([row for part in parts for row in part])


def cancer_at_month_13(draws: int = 500, seed: int = 0) -> pd.DataFrame:
    """The issue's example: the page's default headline on Cancer (groups compared, pooled curve, ε = 1) at month
    13 — the true value, the page's seed-0 preview draw, and the mean and 5–95 % of ``draws`` draws per risk set."""
    d = load_survival("cancer")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=tuple(manifest()["survival"]["cancer"]["groups"]),
                             statistic="matrix")
    j = int(np.argmin(np.abs(grid.display - 13)))
    noise = sv.noise_for(counts, 1.0)
    page = sv.noisy_counts(counts, noise, rng=np.random.default_rng(0)).pooled()
    many = sv.noisy_counts(counts, noise, rng=np.random.default_rng(seed), draws=draws).pooled()
    rows = [{"curve": "non-private", "S(13 months)": sv.km(sv.postprocess(counts.pooled())).estimate[0, j]}]
    for risk_set in ("spec", "running"):
        S = sv.km(sv.postprocess(many, risk_set=risk_set)).estimate[:, 0, j]
        rows.append({"curve": f"private, {risk_set}: page's preview draw (seed 0)",
                     "S(13 months)": sv.km(sv.postprocess(page, risk_set=risk_set)).estimate[0, j]})
        rows.append({"curve": f"private, {risk_set}: mean [5 %, 95 %] of {draws} draws",
                     "S(13 months)": f"{S.mean():.3f} [{np.quantile(S, 0.05):.3f}, {np.quantile(S, 0.95):.3f}]"})
    return pd.DataFrame(rows)


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub-style markdown table (no tabulate dependency)."""
    def fmt(v):
        if isinstance(v, float):
            return "–" if np.isnan(v) else f"{v:.{digits}g}" if abs(v) < 1e-3 and v != 0 else f"{v:.{digits}f}"
        return str(v)
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    sep = "|" + "|".join(" --- " for _ in frame.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--risk-sets", action="store_true",
                        help="compare the two risk sets on every bundled set instead (bench/results/survival_risk_sets.md)")
    distributed.add_arguments(parser)
    args = parser.parse_args()
    if args.risk_sets:
        with distributed.executor(scheduler=args.scheduler, local_workers=args.local_workers) as ex:
            table = risk_set_comparison(args.draws, args.seed, ex)
        text = (f"# DP survival: which risk set\n\n{args.draws} discrete-Laplace draws per cell, seed {args.seed}; the "
                f"same draws through both risk sets; mean errors of the private Kaplan–Meier curve against the "
                f"non-private one (sup: probability; integrated: grid units).\n\n{markdown_table(table)}\n\n"
                f"## Cancer at month 13 (the page's default headline, ε = 1)\n\n"
                f"{markdown_table(cancer_at_month_13(args.draws, args.seed))}\n")
        args.out.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out / "survival_risk_sets.csv", index=False)
        (args.out / "survival_risk_sets.md").write_text(text)
        print(text)
        return
    with distributed.executor(scheduler=args.scheduler, local_workers=args.local_workers) as ex:
        km, cif = run(args.draws, args.seed, ex, progress=distributed.print_progress(f"survival reproduction {ex.where}"))
    args.out.mkdir(parents=True, exist_ok=True)
    km.to_csv(args.out / "survival_reproduction.csv", index=False)
    cif.to_csv(args.out / "survival_reproduction_cif.csv", index=False)
    text = (f"# DP survival: reproduction of the paper's evaluation\n\n"
            f"{args.draws} discrete-Laplace draws per cell, seed {args.seed}; errors of the private curve against the "
            f"non-private one on the same public grid (sup: probability; integrated and median: grid units).\n\n"
            f"## Kaplan–Meier (Δ1 = 2) and log-rank (groups together, Δ1 = 4)\n\n"
            f"{markdown_table(km)}\n\n## Cumulative incidence (competing risks, Δ1 = 2)\n\n"
            f"{markdown_table(cif)}\n")
    (args.out / "survival_reproduction.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()

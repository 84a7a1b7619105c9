"""Reproduce the paper's ρ-vs-private-size curves on the bundled GDSC subset.

Honkela et al. (2018), Fig. 2: Spearman's ρ on held-out cell lines vs the private training set size
at ε = 1 and 2 for five models, averaged over drugs and Monte-Carlo CV repeats (d = 10 features,
10 non-private cell lines). Differences from the paper, all deliberate:

* features are GDSC's binary mutation / copy-number calls in public frequency order (gene expression
  is not in the public gdsctools data), so every model — including the non-private one — is far
  weaker than with expression;
* the response centre and scale are DP estimates charged to the budget (5 % of ε), the feature
  centre is the public midpoint 0.5, where the paper used uncharged private means and s.d.s;
* thresholds are re-tuned for every (size, ε) by the free synthetic search (20 × 20, as the paper).

Writes ``bench/results/regression_reproduction[_TAG].csv`` and ``.md``.
Run: ``.venv/bin/python scripts/reproduce_regression.py [--drugs 30] [--repeats 10] [--scheduler ADDRESS |
--local-workers N]`` (a few minutes; each drug is one task seeded by its index, so the same numbers come out in
process or on a Dask cluster).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from dpcore.core import distributed  # noqa: E402
from dpcore.core.datasets import load_gdsc  # noqa: E402
from dpcore.regression import MODELS  # noqa: E402
from dpcore.regression.evaluation import monte_carlo_cv  # noqa: E402

SIZES = (100, 200, 300, 400, 500, 600, 700, 800)
EPSILONS = (1.0, 2.0)
N_TEST, N_PUBLIC, D = 100, 10, 10
PAPER = {  # the authors' published values at n_private = 800 (regression.md)
    ("robust private LR", 2.0): "≈ 0.215", ("robust private LR", 1.0): "≈ 0.183",
    ("non-private LR", 1.0): "≈ 0.251", ("non-private LR", 2.0): "≈ 0.251",
    ("output perturbation", 1.0): "≤ 0.08", ("output perturbation", 2.0): "≤ 0.08",
    ("functional mechanism", 1.0): "≈ 0", ("functional mechanism", 2.0): "≈ 0",
    ("private LR (no projection)", 1.0): "≈ 0", ("private LR (no projection)", 2.0): "≈ 0",
}


def _markdown(wide: pd.DataFrame) -> str:
    head = "| ε | model | " + " | ".join(str(c) for c in wide.columns) + " |"
    sep = "| --- | --- | " + " | ".join("---" for _ in wide.columns) + " |"
    body = [f"| {eps:g} | {model} | " + " | ".join(f"{v:.3f}" for v in row) + " |"
            for (eps, model), row in zip(wide.index, wide.to_numpy())]
    return "\n".join([head, sep] + body)


def drug_rho(task) -> np.ndarray:
    """Spearman ρ of every model for one drug, shape (models, sizes, eps, repeats) (one task)."""
    drug, priors, repeats, seed = task
    warnings.simplefilter("ignore", RuntimeWarning)
    g = load_gdsc()
    X, y = g.drug_data(drug, D)
    res = monte_carlo_cv(X, y, epsilons=EPSILONS, sizes=SIZES, repeats=repeats, n_test=N_TEST,
                         n_nonprivate=N_PUBLIC, x_bounds=(0.0, 1.0), y_bounds=g.response_range,
                         priors=priors, rng=seed)
    return res.rho


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drugs", type=int, default=30, help="number of drugs (those with the most cell lines)")
    ap.add_argument("--repeats", type=int, default=10, help="Monte-Carlo CV repeats per drug")
    ap.add_argument("--priors", choices=["on", "off"], default="on")
    ap.add_argument("--seed", type=int, default=2018)
    ap.add_argument("--tag", default="", help="suffix of the output files (e.g. 'fixed')")
    distributed.add_arguments(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    g = load_gdsc()
    counts = g.ic50.notna().sum()
    need = max(SIZES) + N_TEST + N_PUBLIC
    eligible = counts[counts >= need].sort_values(ascending=False)
    drugs = list(eligible.index[: args.drugs])
    t0 = time.perf_counter()
    tasks = [(drug, args.priors == "on", args.repeats, args.seed + i) for i, drug in enumerate(drugs)]
    with distributed.executor(scheduler=args.scheduler, local_workers=args.local_workers) as ex:
        rho = ex.map(drug_rho, tasks, progress=distributed.print_progress(f"GDSC reproduction {ex.where}"))
    for drug, r in zip(drugs, rho):
        print(f"{g.drug_label(drug)}: robust ρ@800,ε=2 = {r[1, -1, 1].mean():.3f}, non-private "
              f"{r[0, -1, 1].mean():.3f}", flush=True)
    rho = np.stack(rho)  # (drugs, models, sizes, eps, repeats)
    per_drug = rho.mean(-1)
    rows = []
    for m, name in enumerate(MODELS):
        for s, size in enumerate(SIZES):
            for e, eps in enumerate(EPSILONS):
                vals = per_drug[:, m, s, e]
                rows.append({"model": name, "n_private": size, "epsilon": eps, "rho_mean": vals.mean(),
                             "rho_se_over_drugs": vals.std(ddof=1) / np.sqrt(len(vals)), "drugs": len(drugs),
                             "repeats": args.repeats})
    table = pd.DataFrame(rows)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stem = "regression_reproduction" + (f"_{args.tag}" if args.tag else "")
    table.to_csv(out / f"{stem}.csv", index=False)
    elapsed = time.perf_counter() - t0
    wide = table.pivot_table(index=["epsilon", "model"], columns="n_private", values="rho_mean").round(3)
    lines = [f"# GDSC reproduction: Spearman ρ vs private size ({len(drugs)} drugs × {args.repeats} repeats, "
             f"d = {D}, {N_PUBLIC} non-private, test {N_TEST}, priors {args.priors}, {elapsed:.0f} s)", "",
             _markdown(wide), "", "## At n_private = 800, with the paper's values", "",
             "| model | ε | ours (± s.e. over drugs) | paper |", "| --- | --- | --- | --- |"]
    for name in MODELS:
        for eps in EPSILONS:
            r = table[(table.model == name) & (table.n_private == 800) & (table.epsilon == eps)].iloc[0]
            lines.append(f"| {name} | {eps:g} | {r.rho_mean:.3f} ± {r.rho_se_over_drugs:.3f} | "
                         f"{PAPER.get((name, eps), '')} |")
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

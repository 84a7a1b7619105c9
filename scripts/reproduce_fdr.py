"""Reproduce the PAPRIKA paper's simulation figures (fdr.md, "Simulations") with fresh data per run.

Writes tables (CSV + Markdown) and PNG figures to bench/results/fdr_reproduction/ (PNG export through
kaleido, pinned in requirements-test.txt, which drives a local Chrome/Chromium; BROWSER_PATH defaults to
/usr/bin/chromium when that exists). Three experiments, 100 runs × 800 hypotheses, α = 0.05,
δ = 2.5·10⁻⁴, s = 1:

1. Bernoulli (n = 1000, θ = 0.75), FDR and power vs π1 ∈ {0.01..0.05} at ε = 5, c = expected
   number of non-nulls (800·π1), as in the reference figure;
2. Bernoulli at π1 = 0.05, c = 40, vs ε ∈ {1, 3, 5, 10};
3. truncated exponential (θ = 1.8, correct standardisation), vs π1 at ε = 5.

Each private experiment runs with the paper's threshold rule (default, private) and the authors'
candidate-count rule (to compare with their published numbers).

    .venv/bin/python scripts/reproduce_fdr.py [--runs 100] [--scheduler ADDRESS | --local-workers N]

``--frontier`` instead writes the release path's power frontier (exact η at the design floor, proven shift; records
per test × cutoff × ε, PAPRIKA and PAPRIKA AI) as frontier.csv, frontier.md and frontier.png.

Each π1 (and the ε sweep) is one task with its own seed, so the tables are the same in process or on Dask.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore.core import distributed  # noqa: E402

from dpcore import fdr  # noqa: E402
from dpcore.fdr import figures as ff  # noqa: E402

OUT = ROOT / "bench" / "results" / "fdr_reproduction"
PI1 = (0.01, 0.02, 0.03, 0.04, 0.05)
EPS = (1.0, 3.0, 5.0, 10.0)
T = 800


def _label(tab: pd.DataFrame, rule: str) -> pd.DataFrame:
    """Name the threshold rule of the private methods (the non-private ones have no such choice)."""
    private = tab["method"].isin(fdr.PRIVATE_METHODS)
    suffix = " (authors' code rule)" if rule == "code" else " (paper rule)"
    tab.loc[private, "method"] = tab.loc[private, "method"] + suffix
    return tab


def _pi1_table(kind: str, i: int, runs: int, theta: float, settings: fdr.Settings, seed: int) -> pd.DataFrame:
    """Both threshold rules at ``PI1[i]`` (one task: its stream is seeded by ``(seed, i)``)."""
    pi1 = PI1[i]
    rng = np.random.default_rng([seed, i])
    sim = fdr.simulate_bernoulli if kind == "bernoulli" else fdr.simulate_truncexp
    streams = sim(runs, T, pi1=pi1, theta=theta, rng=rng)
    s = dataclasses.replace(settings, cutoff=max(1, round(T * pi1)))
    tables = []
    for rule in ("paper", "code"):
        methods = fdr.METHODS if rule == "paper" else fdr.PRIVATE_METHODS
        tab = fdr.sweep({pi1: streams}, methods, dataclasses.replace(s, rule=rule), rng=rng)
        tables.append(_label(tab, rule))
    return pd.concat(tables, ignore_index=True)


def _by_eps(runs: int, settings: fdr.Settings, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, 99])
    streams = fdr.simulate_bernoulli(runs, T, pi1=0.05, theta=0.75, rng=rng)
    tables = []
    for rule in ("paper", "code"):
        methods = fdr.METHODS if rule == "paper" else fdr.PRIVATE_METHODS
        tab = fdr.sweep({e: streams for e in EPS}, methods, dataclasses.replace(settings, rule=rule, cutoff=40),
                        rng=rng, epsilons={e: e for e in EPS})
        tables.append(_label(tab, rule))
    return pd.concat(tables, ignore_index=True)


def _save(name: str, table: pd.DataFrame, fig, title: str) -> None:
    table.to_csv(OUT / f"{name}.csv", index=False)
    fig.update_layout(title=dict(text=title, x=0.01, xanchor="left"), height=540, margin=dict(t=90, b=130))
    fig.write_image(OUT / f"{name}.png", width=1200, height=540, scale=1)


def _markdown(table: pd.DataFrame, x_name: str) -> str:
    t = table.copy()
    t["FDR"] = t.apply(lambda r: f"{r.FDR:.3f} ± {r.FDR_se:.3f}", axis=1)
    t["power"] = t.apply(lambda r: f"{r.power:.3f} ± {r.power_se:.3f}", axis=1)
    wide = t.pivot(index="method", columns="x", values=["power", "FDR"])
    wide.columns = [f"{m} @ {x_name}={x:g}" for m, x in wide.columns]
    header = "| method | " + " | ".join(wide.columns) + " |"
    rule = "|" + "---|" * (len(wide.columns) + 1)
    body = ["| " + " | ".join([str(i)] + [str(v) for v in row]) + " |" for i, row in zip(wide.index, wide.values)]
    return "\n".join([header, rule] + body)


def main(runs: int = 100, seed: int = 2024, executor: distributed.Executor | None = None) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    if "BROWSER_PATH" not in os.environ and Path("/usr/bin/chromium").exists():
        os.environ["BROWSER_PATH"] = "/usr/bin/chromium"  # kaleido finds Debian's Chromium through this
    base = fdr.Settings(alpha=0.05, epsilon=5.0, delta=2.5e-4, cutoff=40, shift=1.0)
    bound = base.alpha + base.delta * T
    t0 = time.perf_counter()
    md = ["# PAPRIKA reproduction (generated by scripts/reproduce_fdr.py)", "",
          f"{runs} runs × {T} hypotheses, fresh data per run, α = 0.05, δ = 2.5e-4, s = 1, γ ∝ j^-1.6 "
          "(j^-1.4 for the AI rules). Entries: mean ± 1 SE over runs.", ""]

    executor = executor or distributed.Executor()
    by_pi1 = [(_pi1_table, "bernoulli", i, runs, 0.75, base, seed) for i in range(len(PI1))]
    by_pi1_exp = [(_pi1_table, "truncexp", i, runs, 1.8, base, seed + 1) for i in range(len(PI1))]
    tables = executor.map(distributed.call, by_pi1 + [(_by_eps, runs, base, seed)] + by_pi1_exp,
                          progress=distributed.print_progress(f"PAPRIKA reproduction {executor.where}"))
    k = len(PI1)

    tab = pd.concat(tables[:k], ignore_index=True)
    _save("bernoulli_vs_pi1", tab, ff.sweep_figure(tab, x_title="π1", alpha=base.alpha, bound=bound),
          "Bernoulli (n = 1000, θ = 0.75), ε = 5, c = 800·π1")
    md += ["## 1. Bernoulli, ε = 5, c = 800·π1, vs π1", "", _markdown(tab, "π1"), ""]

    tab = tables[k]
    _save("bernoulli_vs_eps", tab, ff.sweep_figure(tab, x_title="ε", alpha=base.alpha, bound=bound, log_x=True),
          "Bernoulli (n = 1000, θ = 0.75), π1 = 0.05, c = 40, vs ε")
    md += ["## 2. Bernoulli, π1 = 0.05, c = 40, vs ε", "", _markdown(tab, "ε"), ""]

    tab = pd.concat(tables[k + 1:], ignore_index=True)
    _save("truncexp_vs_pi1", tab, ff.sweep_figure(tab, x_title="π1", alpha=base.alpha, bound=bound),
          "Truncated exponential (n = 1000, θ = 1.8), ε = 5, c = 800·π1")
    md += ["## 3. Truncated exponential (θ = 1.8), ε = 5, c = 800·π1, vs π1", "", _markdown(tab, "π1"), ""]

    md += [f"Total time: {time.perf_counter() - t0:.1f} s."]
    (OUT / "tables.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


def frontier(runs: int = 100, seed: int = 2024) -> None:
    """The release path's power frontier at the paper's stream (T = 800, π1 = 0.05, θ = 0.75, α = 0.05)."""
    OUT.mkdir(parents=True, exist_ok=True)
    if "BROWSER_PATH" not in os.environ and Path("/usr/bin/chromium").exists():
        os.environ["BROWSER_PATH"] = "/usr/bin/chromium"
    tables = [fdr.power_frontier(ai=ai, runs=runs, seed=seed).assign(method=name)
              for ai, name in ((False, "PAPRIKA"), (True, "PAPRIKA AI"))]
    tab = pd.concat(tables, ignore_index=True)
    md = ["# Power frontier of the release path (generated by scripts/reproduce_fdr.py --frontier)", "",
          f"{runs} runs × {T} hypotheses per cell, π1 = 0.05, θ = 0.75, α = 0.05, δ = 2.5e-4; exact binomial η at "
          "the design floor, the shift proven for the stream. Power (FDR) per records per test × ε.", ""]
    for name, t in zip(("PAPRIKA", "PAPRIKA AI"), tables):
        best = fdr.smallest_working(t)
        md += [f"## {name}", "", "Fewest records per test with power ≥ 0.8 at ε ≤ 5: " + (
            "none on the grid" if best is None else f"{int(best['records']):,} (c = {int(best['cutoff'])}, "
            f"ε = {best['epsilon']:g}, power {best['power']:.3f} ± {best['power_se']:.3f}, FDR {best['FDR']:.3f})"), ""]
        for c in fdr.FRONTIER_CUTOFFS:
            sub = t[t["cutoff"] == c].assign(cell=lambda d: [f"{p:.2f} ({q:.3f})" for p, q in zip(d.power, d.FDR)])
            wide = sub.pivot(index="records", columns="epsilon", values="cell")
            md += [f"c = {c}", "", "| n \\ ε | " + " | ".join(f"{e:g}" for e in wide.columns) + " |",
                   "|" + "---|" * (len(wide.columns) + 1)]
            md += [f"| {n:,} | " + " | ".join(row) + " |" for n, row in zip(wide.index, wide.values)] + [""]
    (OUT / "frontier.md").write_text("\n".join(md) + "\n")
    fig = ff.frontier_figure(tables[0], cutoff=40, target=fdr.TARGET_POWER, current=(5000, 5.0))
    _save("frontier", tables[0], fig, "PAPRIKA release path: power over records per test × ε (paper's stream)")
    tab.to_csv(OUT / "frontier.csv", index=False)  # both methods (_save wrote PAPRIKA's alone)
    print("\n".join(md[:8]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--frontier", action="store_true", help="the release path's power frontier instead")
    distributed.add_arguments(parser)
    args = parser.parse_args()
    if args.frontier:
        frontier(args.runs, args.seed)
    else:
        with distributed.executor(scheduler=args.scheduler, local_workers=args.local_workers) as ex:
            main(args.runs, args.seed, ex)

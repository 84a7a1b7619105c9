"""Reproduce the paper's comparison (Wang & Gu, AAAI 2020) on synthetic sparse linear regression.

Setting: n = 1000, d ∈ {1000, 5000}, plus n = 10⁴, d = 1000 to see where utility appears; s* = 10, ε ∈ {0.5, 1, 2, 5}, δ = 1/n², 20 repeats
(4 independent data sets × 5 independent noise draws each), five methods: non-private IGHT, knowledge
transfer (KT), DP-IGHT, DP Frank–Wolfe, two-stage. Also KT at c1 = 10 (the top of the paper's grid for
λ = c1·sqrt(s log d log(1/δ))/(nε)) and c1 = 1000, since λ was chosen by (non-private) cross-validation
in the paper. Also our remedy for the audit's support-flip violation, KT with a private support. Public bounds: K = 1 (features clipped), r = 5, B = s* = 10 (= ‖θ*‖1).

Writes ``bench/results/sparse_reproduction.csv`` (one row per method, d, ε with mean and standard error
of the ℓ2 error, support F1 and test MSE) and ``bench/results/sparse_reproduction.md`` (tables + verdict).
Run: ``.venv/bin/python scripts/reproduce_sparse.py [--scheduler ADDRESS | --local-workers N]`` (a few minutes
on 2 cores; each data set is one task, so the same numbers come out in process or on a Dask cluster).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore.core import distributed  # noqa: E402
from dpcore import sparse as sp  # noqa: E402

S_STAR, EPS = 10, np.array([0.5, 1.0, 2.0, 5.0])
SETTINGS = ((1000, 1000), (1000, 5000), (10_000, 1000))  # (n, d)
DATASETS, DRAWS = 4, 5
PARAMS = dict(K=1.0, r=5.0, B=10.0)
VARIANTS = [("nonprivate", "non-private IGHT", {}), ("kt", "KT (c1 = 100, default)", {}),
            ("kt", "KT (c1 = 10)", {"c1": 10.0}), ("kt", "KT (c1 = 1000)", {"c1": 1000.0}),
            ("dp_ight", "DP-IGHT", {}), ("frank_wolfe", "DP Frank–Wolfe", {}), ("two_stage", "two-stage", {}),
            ("kt_ps", "KT with private support (ours)", {})]


LOGISTIC_SETTINGS = ((1000, 1000), (10_000, 1000))
LOGISTIC_VARIANTS = [v for v in VARIANTS if v[0] in ("nonprivate", "kt", "dp_ight", "kt_ps")]


def dataset_rows(task) -> list[dict]:
    """Every variant on data set ``ds`` of one setting (one task: its seeds depend on the setting and ``ds`` only)."""
    n, d, loss, variants, ds = task
    rows = []
    delta = 1.0 / n**2
    data = sp.make_synthetic(n, d, S_STAR, noise=0.5, loss=loss, rng=np.random.default_rng(1000 * d + n + ds))
    for key, label, extra in variants:
        rng = np.random.default_rng(7 + ds)
        if key == "nonprivate":
            coef = sp.nonprivate_ight(data.X, data.y, sparsity=S_STAR, loss=loss, **PARAMS).coef
            coef = np.broadcast_to(coef, (EPS.size, DRAWS, d))
        else:
            coef = sp.BATCH[key](data.X, data.y, sparsity=S_STAR, epsilons=EPS, delta=delta, rng=rng,
                                 draws=DRAWS, loss=loss, **PARAMS, **extra).coef
        met = sp.metrics(coef, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=loss)
        for i, eps in enumerate(EPS):
            for r in range(DRAWS):
                rows.append({"loss": loss, "n": n, "d": d, "method": label, "epsilon": eps, "dataset": ds, "draw": r,
                             "l2_error": met["l2_error"][i, r], "f1": met["f1"][i, r],
                             "test_mse": met["test_error"][i, r]})
    return rows


def run(settings, executor: distributed.Executor | None = None, progress=None) -> pd.DataFrame:
    """Raw rows of every ``(n, d, loss, variants)`` setting, one task per data set."""
    tasks = [(n, d, loss, variants, ds) for n, d, loss, variants in settings for ds in range(DATASETS)]
    parts = (executor or distributed.Executor()).map(dataset_rows, tasks, progress=progress)
    return pd.DataFrame([row for part in parts for row in part])


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    g = raw.groupby(["loss", "n", "d", "method", "epsilon"], sort=False)
    out = g[["l2_error", "f1", "test_mse"]].mean()
    se = g[["l2_error", "f1", "test_mse"]].sem().add_suffix("_se")
    return pd.concat([out, se], axis=1).reset_index()


def verdict(summary: pd.DataFrame) -> list[str]:
    lines = []
    private = [v[1] for v in VARIANTS if v[0] not in ("nonprivate",)]
    for n, d in SETTINGS:
        for eps in EPS:
            sub = summary[(summary.loss == "linear") & (summary.n == n) & (summary.d == d) & (summary.epsilon == eps)
                          & summary.method.isin(private)]
            best = sub.loc[sub.l2_error.idxmin()]
            kt = sub[sub.method == "KT (c1 = 100, default)"].iloc[0]
            best_f1 = sub.loc[sub.f1.idxmax()]
            lines.append(f"n = {n}, d = {d}, ε = {eps:g}: lowest error {best.method} ({best.l2_error:.3f}); default KT "
                         f"{kt.l2_error:.3f}; best support F1 {best_f1.method} ({best_f1.f1:.2f}).")
    return lines


def table(summary: pd.DataFrame, n: int, d: int, metric: str, loss: str = "linear") -> str:
    sub = summary[(summary.loss == loss) & (summary.n == n) & (summary.d == d)]
    order = [v[1] for v in VARIANTS if v[1] in set(sub.method)]
    wide = sub.pivot(index="method", columns="epsilon", values=metric).reindex(order)
    err = sub.pivot(index="method", columns="epsilon", values=metric + "_se").reindex(wide.index)
    head = "| method | " + " | ".join(f"ε = {e:g}" for e in wide.columns) + " |"
    lines = [head, "|" + "---|" * (len(wide.columns) + 1)]
    for m in wide.index:
        lines.append(f"| {m} | " + " | ".join(f"{wide.loc[m, e]:.3f} ± {err.loc[m, e]:.3f}" for e in wide.columns)
                     + " |")
    return "\n".join(lines)


def main(executor: distributed.Executor) -> None:
    t0 = time.time()
    settings = ([(n, d, "linear", VARIANTS) for n, d in SETTINGS]
                + [(n, d, "logistic", LOGISTIC_VARIANTS) for n, d in LOGISTIC_SETTINGS])
    raw = run(settings, executor, progress=distributed.print_progress(f"sparse reproduction {executor.where}"))
    summary = summarise(raw)
    out = ROOT / "bench" / "results"
    summary.to_csv(out / "sparse_reproduction.csv", index=False)
    parts = [f"# Sparse linear regression: reproduction (s* = {S_STAR}, δ = 1/n², "
             f"{DATASETS * DRAWS} repeats = {DATASETS} data sets × {DRAWS} noise draws)\n",
             f"Public bounds K = 1, r = 5, B = 10; ± is the standard error over repeats. "
             f"Reference: the zero vector θ = 0 has ℓ2 error √s* = {np.sqrt(S_STAR):.3f} and test MSE ≈ "
             f"{S_STAR * 0.6 + 0.25:.1f}. Runtime {time.time() - t0:.0f} s.\n"]
    for n, d in SETTINGS:
        head = f"n = {n}, d = {d}"
        parts.append(f"\n## {head}: ℓ2 error ‖θ − θ*‖₂\n\n" + table(summary, n, d, "l2_error"))
        parts.append(f"\n\n## {head}: support F1\n\n" + table(summary, n, d, "f1"))
        parts.append(f"\n\n## {head}: test MSE (noise variance 0.25)\n\n" + table(summary, n, d, "test_mse"))
    for n, d in LOGISTIC_SETTINGS:
        head = f"Logistic, n = {n}, d = {d}"
        parts.append(f"\n\n## {head}: misclassification (test)\n\n" + table(summary, n, d, "test_mse", "logistic"))
        parts.append(f"\n\n## {head}: support F1\n\n" + table(summary, n, d, "f1", "logistic"))
    parts.append("\n\n## Who wins (linear)\n\n" + "\n".join(f"- {line}" for line in verdict(summary)))
    (out / "sparse_reproduction.md").write_text("\n".join(parts) + "\n")
    print("\n".join(parts))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    distributed.add_arguments(parser)
    args = parser.parse_args()
    with distributed.executor(scheduler=args.scheduler, local_workers=args.local_workers) as ex:
        main(ex)

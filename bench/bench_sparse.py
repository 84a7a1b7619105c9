"""Benchmark of the sparse methods: the issue-26 targets in one run, every method × ε, and wall-clock times.

Run: ``.venv/bin/python bench/bench_sparse.py [--quick]``. Writes ``bench/results/sparse.json`` and
``bench/results/sparse_methods.md`` (the table docs/sparse.md quotes). One BLAS thread (set below, before NumPy
loads): on a shared 2-core machine competing BLAS threads make these small mat-vecs many times slower.

1. **Targets**, synthetic data of the paper's size: n = 2000, d = 500, s* = 10, x ~ N(0, I) clipped
   to [−1, 1], θ* = ±1, Gaussian noise σ = 0.5, δ = 1/n², public K = 1, r = 5, B = 10. Median support F1 of the
   default release (peeling + private fit) ≥ 0.5 at ε = 2 and ≥ 0.8 at ε = 5 (linear); its logistic held-out
   accuracy within 0.05 of non-private IGHT at ε = 5. Medians over ``DATASETS`` data sets × ``DRAWS`` draws.
2. **Every method × ε ∈ {1, 2, 5, 10}** on the same draws: median F1, ℓ2 error, held-out error — including
   noisy iterative hard thresholding with peeling (Cai, Wang & Zhang 2021), the other sound full-data candidate,
   measured here to choose between them (``noisy_iht`` below: preview noise only, never released).
3. **Times** (median of a few runs, ratios in the same process): knowledge transfer against DP-IGHT at
   n = 10³, d = 10⁴ (target KT under 1 s), and the default release's preview and OpenDP release.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import sparse as sp  # noqa: E402
from dpcore.core.mechanisms import approx_dp_to_zcdp  # noqa: E402

N, D, S_STAR, NOISE = 2000, 500, 10, 0.5
EPSILONS = (1.0, 2.0, 5.0, 10.0)
PARAMS = dict(K=1.0, r=5.0, B=10.0)
DATASETS, DRAWS = 3, 10
#: methods of the table, in order (sp.BATCH keys, the non-private teacher, and the noisy-IHT candidate)
TABLE = ("peel", "noisy_iht", "kt_ps", "kt", "dp_ight", "frank_wolfe", "two_stage", "nonprivate")
LABELS = {**sp.METHOD_LABELS, "noisy_iht": "noisy IHT with peeling (Cai, Wang & Zhang 2021)"}


def _time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def timing(n: int = 1000, d: int = 10_000, s: int = 10, epsilon: float = 2.0, repeats: int = 3) -> dict:
    rng = np.random.default_rng(0)
    data = sp.make_synthetic(n, d, s, rng=rng, n_test=200)
    delta = 1.0 / n**2
    params = dict(B=float(s))
    kt_t, kt = _time(lambda: sp.knowledge_transfer(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta,
                                                   rng=rng, **params), repeats)
    dp_t, dp = _time(lambda: sp.dp_ight(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta, rng=rng,
                                        **params), repeats)
    np_t, _ = _time(lambda: sp.nonprivate_ight(data.X, data.y, sparsity=s, **params), repeats)
    peel_t, _ = _time(lambda: sp.peel_fit(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta, rng=rng,
                                          **params), repeats)
    ps_t, _ = _time(lambda: sp.knowledge_transfer_private_support(data.X, data.y, sparsity=s, epsilon=epsilon,
                                                                  delta=delta, rng=rng, **params), 1)
    rel_t, _ = _time(lambda: sp.release_sparse(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta,
                                               dataset="bench", variant="private_support", **params), 1)
    peel_rel_t, _ = _time(lambda: sp.release_sparse(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta,
                                                    dataset="bench", **params), 1)
    p = sp.SparseParams(**params)
    result = {
        "setting": {"n": n, "d": d, "s": s, "epsilon": epsilon, "delta": delta, "m": n, "T1": p.T1, "T2": p.T2,
                    "dp_T": p.dp_T, "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")},
        "seconds": {"knowledge_transfer": kt_t, "dp_ight": dp_t, "nonprivate_ight": np_t,
                    "kt_private_support": ps_t,
                    "release_with_opendp": rel_t, "peeling_preview": peel_t, "peeling_release_with_opendp": peel_rel_t},
        "ratio_kt_over_dp_ight": kt_t / dp_t,
        "target_kt_under_1s": kt_t < 1.0,
        "l2_error": {"knowledge_transfer": float(np.linalg.norm(kt.coef - data.theta)),
                     "dp_ight": float(np.linalg.norm(dp.coef - data.theta))},
    }
    return result




def noisy_iht(X, y, *, sparsity, epsilons, delta, loss="linear", rng=None, draws=1, T=None, **params):
    """Noisy IHT with peeling (Cai, Wang & Zhang 2021, Alg. 2/4), zCDP, preview noise: the comparison candidate.

    T = ⌈log n⌉ steps ``θ ← Peel_s(θ − η∇L(θ))`` with iterates projected onto the ℓ1 ball B. One record moves
    each gradient coordinate by ≤ ``Δ = 2K(KB + r)/n`` (linear) / ``2K/n`` (logistic) at every θ. Each step
    peels s coordinates of the gradient step (Gumbel top-s: ``ρ = sΔ_η²/(2β²)``, ``Δ_η = ηΔ``) and adds
    Gaussian noise to their s values (ℓ2 sensitivity ``√s·Δ_η``); ρ is split evenly over the T steps and
    between the two. Support, coefficients: ``(E, R, d)``.
    """
    p, rng, X, y, s, eps = sp.params._setup(X, y, sparsity, epsilons, delta, loss, rng, params)
    n, d = X.shape
    T = T or math.ceil(math.log(n))
    step = 0.5 / p.K**2 / (1.0 if loss == "linear" else 0.25)
    sens = step * 2.0 * p.gamma(loss) / n
    rho = np.array([approx_dp_to_zcdp(float(e), delta) for e in eps]) / (2 * T)
    beta = (sens * np.sqrt(s / (2 * rho)))[:, None, None]
    sigma = (math.sqrt(s) * sens / np.sqrt(2 * rho))[:, None, None]
    grad = sp.loss_gradient(X, y, loss)
    theta = np.zeros((eps.size, int(draws), d))
    for _ in range(T):
        u = theta - step * grad(theta)
        pick = np.argsort(-(np.abs(u) + beta * rng.gumbel(size=u.shape)), axis=-1)[..., :s]
        vals = np.take_along_axis(u, pick, axis=-1) + sigma * rng.standard_normal(pick.shape)
        theta = np.zeros_like(theta)
        np.put_along_axis(theta, pick, vals, axis=-1)
        theta = sp.project_l1_ball(theta, p.radius())
    return theta


def _fit(method, data, rng):
    """Coefficients (E, R, d) and intercepts (or None) of one method on one data set."""
    kw = dict(sparsity=S_STAR, epsilons=EPSILONS, delta=1.0 / N**2, loss=data.loss, rng=rng, draws=DRAWS, **PARAMS)
    if method == "nonprivate":
        coef = sp.nonprivate_ight(data.X, data.y, sparsity=S_STAR, loss=data.loss, **PARAMS).coef
        return np.broadcast_to(coef, (len(EPSILONS), DRAWS, D)), None
    if method == "noisy_iht":
        return noisy_iht(data.X, data.y, **kw), None
    fit = sp.BATCH[method](data.X, data.y, **kw)
    return fit.coef, fit.details.get("intercept")


def scores(datasets: int = DATASETS, methods=TABLE) -> dict:
    """Every method's metrics per (loss, ε) over ``datasets`` × ``DRAWS`` draws: medians, and the targets."""
    out: dict = {}
    for loss in sp.LOSSES:
        per_method: dict = {m: {k: [] for k in ("f1", "l2_error", "test_error")} for m in methods}
        for ds in range(datasets):
            data = sp.make_synthetic(N, D, S_STAR, loss=loss, noise=NOISE, rng=np.random.default_rng(100 + ds))
            for i, method in enumerate(methods):
                coef, intercept = _fit(method, data, np.random.default_rng(1000 * ds + i))
                met = sp.metrics(coef, theta=data.theta, X_test=data.X_test, y_test=data.y_test, loss=loss,
                                 intercept=intercept)
                for k in per_method[method]:
                    per_method[method][k].append(met[k])
        out[loss] = {m: {k: {f"{e:g}": float(np.median(np.concatenate(v, axis=1)[j])) for j, e in enumerate(EPSILONS)}
                         for k, v in vals.items()} for m, vals in per_method.items()}
    lin, log = out["linear"]["peel"], out["logistic"]
    out["targets"] = {
        "linear_f1_at_eps2": lin["f1"]["2"], "linear_f1_at_eps2_target": 0.5,
        "linear_f1_at_eps5": lin["f1"]["5"], "linear_f1_at_eps5_target": 0.8,
        "logistic_accuracy_at_eps5": 1 - log["peel"]["test_error"]["5"],
        "logistic_nonprivate_ight_accuracy": 1 - log["nonprivate"]["test_error"]["5"],
    }
    tg = out["targets"]
    tg["met"] = bool(tg["linear_f1_at_eps2"] >= 0.5 and tg["linear_f1_at_eps5"] >= 0.8
                     and tg["logistic_accuracy_at_eps5"] >= tg["logistic_nonprivate_ight_accuracy"] - 0.05)
    return out


def table(result: dict) -> str:
    """Markdown: every method × ε, F1 / ℓ2 error / held-out error (medians), both losses."""
    lines = [f"Synthetic n = {N}, d = {D}, s* = {S_STAR}, x ~ N(0, I) clipped to [−1, 1], θ* = ±1, noise σ = "
             f"{NOISE} (linear) or Bernoulli labels (logistic); δ = 1/n², K = 1, r = 5, B = 10; medians over "
             f"{result['datasets']} data sets × {DRAWS} noise draws. Held-out error: MSE (linear, noise variance "
             f"{NOISE**2:g}) or misclassification (logistic). One run of `bench/bench_sparse.py`."]
    for loss in sp.LOSSES:
        lines += ["", f"### {loss.capitalize()}: support F1 / ℓ2 error / held-out error", "",
                  "| method | " + " | ".join(f"ε = {e:g}" for e in EPSILONS) + " |",
                  "|---|" + "---|" * len(EPSILONS)]
        for m, vals in result[loss].items():
            cells = [" / ".join(f"{vals[k][f'{e:g}']:.2f}" for k in ("f1", "l2_error", "test_error"))
                     for e in EPSILONS]
            lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(quick: bool = False) -> dict:
    t0 = time.perf_counter()
    result = scores(1 if quick else DATASETS)
    result["datasets"] = 1 if quick else DATASETS
    result["seconds_scores"] = time.perf_counter() - t0
    result["timing"] = timing(repeats=1 if quick else 3)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one data set, one timing run (a smoke test)")
    res = main(parser.parse_args().quick)
    out = ROOT / "bench" / "results"
    (out / "sparse.json").write_text(json.dumps(res, indent=2))
    (out / "sparse_methods.md").write_text(table(res))
    print(table(res))
    tg, tm = res["targets"], res["timing"]["seconds"]
    print(f"targets: F1 {tg['linear_f1_at_eps2']:.2f} at ε = 2 (≥ 0.5), {tg['linear_f1_at_eps5']:.2f} at ε = 5 (≥ 0.8); "
          f"logistic accuracy {tg['logistic_accuracy_at_eps5']:.3f} vs non-private IGHT "
          f"{tg['logistic_nonprivate_ight_accuracy']:.3f} at ε = 5 (within 0.05) — met: {tg['met']}")
    print(f"times (n = 10³, d = 10⁴): KT {tm['knowledge_transfer']:.3f} s, DP-IGHT {tm['dp_ight']:.3f} s, "
          f"peeling preview {tm['peeling_preview']:.3f} s, peeling release {tm['peeling_release_with_opendp']:.3f} s")
    print(f"wrote bench/results/sparse.json and sparse_methods.md ({res['seconds_scores']:.0f} s for the scores)")

"""Benchmark: the full knowledge-transfer pipeline at n = 10³, d = 10⁴ against DP-IGHT on the same data.

Run: ``.venv/bin/python bench/bench_sparse.py``. Prints wall-clock times (median of a few runs) and the
ratio KT / DP-IGHT measured in the same process; target: KT under 1 s. Writes ``bench/results/sparse.json``.
One BLAS thread (set below, before NumPy loads): on a shared 2-core machine competing BLAS threads make
these small mat-vecs many times slower.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpcore import sparse as sp  # noqa: E402


def _time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def main(n: int = 1000, d: int = 10_000, s: int = 10, epsilon: float = 2.0, repeats: int = 3) -> dict:
    rng = np.random.default_rng(0)
    data = sp.make_synthetic(n, d, s, rng=rng, n_test=200)
    delta = 1.0 / n**2
    params = dict(B=float(s))
    kt_t, kt = _time(lambda: sp.knowledge_transfer(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta,
                                                   rng=rng, **params), repeats)
    dp_t, dp = _time(lambda: sp.dp_ight(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta, rng=rng,
                                        **params), repeats)
    np_t, _ = _time(lambda: sp.nonprivate_ight(data.X, data.y, sparsity=s, **params), repeats)
    ps_t, _ = _time(lambda: sp.knowledge_transfer_private_support(data.X, data.y, sparsity=s, epsilon=epsilon,
                                                                  delta=delta, rng=rng, **params), 1)
    rel_t, _ = _time(lambda: sp.release_sparse(data.X, data.y, sparsity=s, epsilon=epsilon, delta=delta,
                                               dataset="bench", **params), 1)
    p = sp.SparseParams(**params)
    result = {
        "setting": {"n": n, "d": d, "s": s, "epsilon": epsilon, "delta": delta, "m": n, "T1": p.T1, "T2": p.T2,
                    "dp_T": p.dp_T, "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")},
        "seconds": {"knowledge_transfer": kt_t, "dp_ight": dp_t, "nonprivate_ight": np_t,
                    "kt_private_support": ps_t,
                    "release_with_opendp": rel_t},
        "ratio_kt_over_dp_ight": kt_t / dp_t,
        "target_kt_under_1s": kt_t < 1.0,
        "l2_error": {"knowledge_transfer": float(np.linalg.norm(kt.coef - data.theta)),
                     "dp_ight": float(np.linalg.norm(dp.coef - data.theta))},
    }
    return result


if __name__ == "__main__":
    res = main()
    out = ROOT / "bench" / "results" / "sparse.json"
    out.write_text(json.dumps(res, indent=2))
    s = res["seconds"]
    print(f"n = {res['setting']['n']}, d = {res['setting']['d']}, s = {res['setting']['s']}, ε = {res['setting']['epsilon']}")
    print(f"knowledge transfer (teacher + m synthetic answers + student): {s['knowledge_transfer']:.3f} s")
    print(f"DP-IGHT ({res['setting']['dp_T']} noisy steps):                    {s['dp_ight']:.3f} s")
    print(f"non-private IGHT (teacher alone):                         {s['nonprivate_ight']:.3f} s")
    print(f"KT with private support (block LASSO votes dominate):    {s['kt_private_support']:.3f} s")
    print(f"release incl. {res['setting']['m']} OpenDP Gaussian draws:            {s['release_with_opendp']:.3f} s")
    print(f"ratio KT / DP-IGHT = {res['ratio_kt_over_dp_ight']:.2f}; KT under 1 s: {res['target_kt_under_1s']}")
    print(f"wrote {out.relative_to(ROOT)}")

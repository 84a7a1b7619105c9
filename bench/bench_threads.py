"""Four busy sessions at once against one: the latency of a slider move's work, per thread setting.

A Streamlit server runs each session's script in a thread of one process. Each "move" here is what an ε move on
the drug-sensitivity page computes for an upload of d = 64 features and no cached answer: the free threshold search
(``threshold_search`` at n = 300, d = 64, on 4 synthetic sets × 4 noise draws, a fresh ε every move so nothing is
reused). In one child process per setting, the same run times ``MOVES`` moves of one session alone (the named
baseline) and then four sessions moving at once (four threads, ``MOVES`` moves each); the figure of merit is the
**latency ratio** = median move latency with four sessions / median with one. Four sessions doing four times the
work on C cores cannot do better than 4 / C; the thread settings decide how far above that they land.

Settings, each in a fresh process (thread pools read their settings when they load):

* ``default``: every library's own default (as many threads as cores: the issue's 31 s case);
* ``before``: what ``app.py`` did before this change: one thread for the BLAS libraries loaded at start
  (``threadpool_limits(limits=1, user_api="blas")``; numpy's OpenBLAS), OpenMP, numba and libraries loaded later
  left at their defaults;
* ``after``: :func:`dpcore.core.threads.bound_threads` at the start of every run, as ``app.py`` now calls it.

Writes ``bench/results/threads.json`` and ``bench/results/threads.md``.
Run: ``.venv/bin/python bench/bench_threads.py`` (about two minutes on a 2-core machine).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results"
SETTINGS = ("default", "before", "after")
SESSIONS, MOVES = 4, 5
N, D, SETS, DRAWS = 300, 64, 4, 4
THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                   "DPCORE_SESSION_THREADS")


def _child(setting: str) -> dict:
    """One setting's run: one session's moves, then four sessions' at once (latencies in seconds)."""
    sys.path.insert(0, str(ROOT))
    import numpy  # noqa: F401  (Streamlit imports numpy before the app's script runs)

    if setting == "before":
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
    from dpcore.core.threads import bound_threads
    from dpcore.regression.tuning import threshold_search

    def start_of_run():  # what the entry point does at the start of each session's run
        if setting == "after":
            bound_threads()

    start_of_run()
    counter = iter(range(10_000))

    def move() -> float:
        epsilon = 1.0 + 0.01 * next(counter)  # a fresh ε: nothing cached
        start = time.perf_counter()
        threshold_search(N, D, epsilon=epsilon, n_sets=SETS, n_draws=DRAWS)
        return time.perf_counter() - start

    move()  # warm-up: imports, first calls
    alone = [move() for _ in range(MOVES)]
    together: list[float] = []

    def session():
        start_of_run()
        together.extend(move() for _ in range(MOVES))

    threads = [threading.Thread(target=session) for _ in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    from threadpoolctl import threadpool_info

    pools = sorted({f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info()})
    return {"alone": alone, "together": together, "pools": pools}


def main() -> None:
    env = {k: v for k, v in os.environ.items() if k not in THREAD_SETTINGS}
    results = {}
    for setting in SETTINGS:
        done = subprocess.run([sys.executable, __file__, "--child", setting], env=env, capture_output=True, text=True,
                              check=True)
        run = json.loads(done.stdout.strip().splitlines()[-1])
        one, four = statistics.median(run["alone"]), statistics.median(run["together"])
        results[setting] = {**run, "median_alone": one, "median_four": four, "ratio": four / one}
        print(f"{setting:8s} one session {one:.3f} s, four at once {four:.3f} s: ratio {four / one:.2f}  "
              f"({', '.join(run['pools'])})", flush=True)
    meta = {"cores": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine(),
            "load_average_at_end": os.getloadavg(), "move": f"threshold_search(n={N}, d={D}, n_sets={SETS}, "
                                                             f"n_draws={DRAWS}), a fresh ε per move",
            "sessions": SESSIONS, "moves_per_session": MOVES}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "threads.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    lines = ["# Four sessions at once against one (bench/bench_threads.py)", "",
             f"{meta['cores']} cores, load average at the end {', '.join(f'{v:.1f}' for v in meta['load_average_at_end'])}"
             f" (a machine shared with other work). Move: {meta['move']}.", "",
             "| setting | one session: median move (s) | four at once: median move (s) | latency ratio | thread pools |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {s} | {r['median_alone']:.3f} | {r['median_four']:.3f} | {r['ratio']:.2f} | {', '.join(r['pools'])} |"
              for s, r in results.items()]
    (OUT / "threads.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(_child(sys.argv[2])))
    else:
        main()

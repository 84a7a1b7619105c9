"""Benchmark: a 10⁶-run audit in process vs on a 2-worker Dask LocalCluster, and what 64 cores would give.

Two audited releases: knowledge transfer with private support (sparse, the support-flip pair) and PAPRIKA
(fdr, the SparseVector worst case), planted bug off, seed 0. For each: wall-clock time in process and on
2 single-threaded worker processes (results must be identical), the speed-up, the compute time of one
chunk, and the cost of one task on the cluster (round trip of an empty task, measured on the same
cluster). From these, the time of 10⁶–10⁸ runs on a 64-core cluster is extrapolated as
``Σ_phase ceil(chunks / cores) · (chunk compute + task cost)`` (pilot phase, then estimation phase).

Run: ``.venv/bin/python bench/bench_distributed.py``; writes ``bench/results/distributed.{json,md}``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import psutil  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from distributed import get_task_stream  # noqa: E402

from dpcore.core import distributed  # noqa: E402

from dpcore import registry  # noqa: E402
from dpcore.core.audit import audit_chunk, chunk_plan  # noqa: E402

N_RUNS = 1_000_000
WORKERS = 2
REPEATS = 5  # best of 5
CORES = 64
SCENARIOS = {  # label → (method key, start of the scenario's name)
    "KT with private support (sparse)": ("sparse", "KT with private support"),
    "PAPRIKA (fdr)": ("fdr", "SparseVector worst case"),
}


def _scenario(key: str, prefix: str):
    return next(s for s in registry.audit_scenarios(key, 1.0) if s.name.startswith(prefix))


def _timed(fn, repeats: int = 1):
    """Wall-clock times of ``repeats`` calls (the best is the least disturbed by other work) and the output."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return times, out


def _chunk_seconds(scenario, m: int) -> float:
    """Compute time of one chunk of ``m`` runs per neighbour (best of 5, in process)."""
    task = (partial(scenario.sampler, "A", False), partial(scenario.sampler, "B", False),
            np.random.SeedSequence(0), m, np.linspace(-1, 1, 32))
    return min(_timed(lambda: audit_chunk(task), REPEATS)[0])


def _predicted_seconds(n_runs: int, per_run: float, task_cost: float, cores: int) -> float:
    return sum(math.ceil(len(sizes) / cores) * (max(sizes) * per_run + task_cost) for sizes in chunk_plan(n_runs))


def _empty(_):
    return None


def _cpu_seconds() -> float:
    """CPU time this process has had (run on each worker to see how much CPU the machine gave it)."""
    times = psutil.Process().cpu_times()
    return times.user + times.system


def main() -> dict:
    load_before = os.getloadavg()
    rows = {}
    with distributed.executor(local_workers=WORKERS) as ex:
        ex.map(_empty, range(4))  # workers up and importing
        # task cost: round trip of empty tasks through the scheduler, per task, with both workers busy
        n_empty = 400
        t_empty, _ = _timed(lambda: ex.map(_empty, range(n_empty)))
        task_cost = t_empty[0] / n_empty * WORKERS
        for label, (key, prefix) in SCENARIOS.items():
            scenario = _scenario(key, prefix)
            scenario.run(N_RUNS, executor=ex)  # warm both workers (imports, compiled kernels, memory)
            scenario.run(200_000)
            times_here, times_there, busy, cpu_here, cpu_workers = [], [], 0.0, 0.0, 0.0
            for _ in range(REPEATS):  # alternate, so both see the same load from other work on the machine
                cpu0 = time.process_time()
                t, (here, _, _) = _timed(lambda: scenario.run(N_RUNS, seed=0))
                cpu_here += time.process_time() - cpu0
                times_here += t
                cpu0 = ex.client.run(_cpu_seconds)
                with get_task_stream(ex.client) as stream:
                    t, (there, _, _) = _timed(lambda: scenario.run(N_RUNS, seed=0, executor=ex))
                cpu_workers += sum(ex.client.run(_cpu_seconds).values()) - sum(cpu0.values())
                times_there += t
                busy += sum(s["stop"] - s["start"] for task in stream.data for s in task["startstops"]
                            if s["action"] == "compute")
            t_here, t_there = min(times_here), min(times_there)
            chunk = max(chunk_plan(N_RUNS)[1])
            t_chunk = _chunk_seconds(scenario, chunk)
            per_run = t_chunk / chunk
            rows[label] = {
                "scenario": f"{scenario.method}: {scenario.name}",
                "n_runs": N_RUNS,
                "identical_results": here == there,
                "epsilon_lower": here.epsilon_lower,
                "seconds_in_process": t_here,
                f"seconds_{WORKERS}_workers": t_there,
                "speed_up": t_here / t_there,
                # share of the workers' wall-clock time spent computing chunks (all REPEATS runs)
                "worker_utilisation": busy / (WORKERS * sum(times_there)),
                # CPU the machine gave: in process, per second of the run; workers, per second of chunk compute
                # (below 1 when other work on the shared machine took the cores)
                "cpu_share_in_process": cpu_here / sum(times_here),
                "cpu_share_workers": cpu_workers / busy,
                "chunks": [len(s) for s in chunk_plan(N_RUNS)],
                "estimation_chunk_runs": chunk,
                "chunk_compute_seconds": t_chunk,
                "task_overhead_share": task_cost / (t_chunk + task_cost),
                "predicted_seconds": {
                    f"{n:.0e}": {"1 core": _predicted_seconds(n, per_run, 0.0, 1),
                                 f"{WORKERS} cores": _predicted_seconds(n, per_run, task_cost, WORKERS),
                                 f"{CORES} cores": _predicted_seconds(n, per_run, task_cost, CORES)}
                    for n in (10**6, 10**7, 10**8)
                },
            }
            print(label, json.dumps(rows[label], indent=1), flush=True)
    result = {
        "setting": {"workers": WORKERS, "threads_per_worker": 1, "cores": os.cpu_count(),
                    "load_average_before": load_before, "load_average_after": os.getloadavg()},
        "task_cost_seconds": task_cost,
        "audits": rows,
    }
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "distributed.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "distributed.md").write_text(_markdown(result))
    return result


def _markdown(result: dict) -> str:
    s = result["setting"]
    lines = [
        "# Audits on Dask: in process vs a 2-worker LocalCluster (generated by bench/bench_distributed.py)", "",
        f"{s['cores']} cores, {s['workers']} single-threaded workers; load average before / after: "
        f"{s['load_average_before'][0]:.1f} / {s['load_average_after'][0]:.1f} (the machine is shared with other "
        "work, so the speed-up is a lower bound of what an idle machine gives). Task cost (round trip of an empty "
        f"task on the cluster): {result['task_cost_seconds'] * 1e3:.2f} ms. *CPU share*: CPU time each process "
        "got per second it was running a chunk — below 100 % the cores were taken by other work, and the "
        "measured speed-up says more about the machine than about the cluster; the predicted table below uses "
        "the chunk compute time measured in process instead.", "",
        "| audit (10⁶ runs per data set) | in process (s) | 2 workers (s) | speed-up | identical | chunks "
        "(pilot + estimation) | chunk compute (ms) | task overhead | worker utilisation | CPU share in process "
        "/ on workers |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, r in result["audits"].items():
        lines.append(f"| {label} | {r['seconds_in_process']:.2f} | {r['seconds_2_workers']:.2f} | "
                     f"{r['speed_up']:.2f}× | {'yes' if r['identical_results'] else 'NO'} | "
                     f"{' + '.join(map(str, r['chunks']))} | {r['chunk_compute_seconds'] * 1e3:.0f} | "
                     f"{r['task_overhead_share']:.1%} | {r['worker_utilisation']:.0%} | "
                     f"{r['cpu_share_in_process']:.0%} / {r['cpu_share_workers']:.0%} |")
    lines += ["", f"## Predicted from the measured chunk compute and task cost: {WORKERS} idle cores and a {CORES}-core "
              "cluster (seconds)", "",
              f"| audit | runs | 1 core | {WORKERS} cores | speed-up | {CORES} cores | speed-up |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, r in result["audits"].items():
        for n, p in r["predicted_seconds"].items():
            one, two, many = p["1 core"], p[f"{WORKERS} cores"], p[f"{CORES} cores"]
            lines.append(f"| {label} | {float(n):.0e} | {one:.1f} | {two:.1f} | {one / two:.2f}× | {many:.2f} | "
                         f"{one / many:.0f}× |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

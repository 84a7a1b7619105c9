"""Seeded Monte-Carlo work in process or on a Dask cluster, with the same results either way.

A *job* (an audit, a reproduction sweep) is a list of independent tasks.
Each task gets its own seed, spawned from one :class:`numpy.random.SeedSequence`
per job (:func:`spawn_seeds`), and how the job is cut into tasks depends only
on its size (:func:`split_runs`), never on where it runs. So a result is the
same whether its tasks ran in this process, on 2 local worker processes or on
50 remote workers, and a task that Dask re-runs after losing a worker gives
the same output again.

Where tasks run: ``Executor(client)`` runs them on a Dask ``Client`` you
hold; :func:`executor` opens (and closes) one

* on the scheduler at ``scheduler="tcp://host:8786"``, or at the address in
  the environment variable ``DPCORE_DASK_SCHEDULER`` when nothing else is
  given (start one with ``dask scheduler`` and ``dask worker ADDRESS``; the
  workers need this project's requirements and ``dpcore`` importable);
* on a ``LocalCluster`` of ``local_workers`` single-threaded processes;
* in this process otherwise (the default: no Dask import at all).

Task functions must be importable module-level functions (Dask pickles the
function and its arguments; closures in the arguments are fine, Dask uses
cloudpickle). ``progress`` callbacks receive the completed share of tasks as
they finish; an exception raised by the callback (Streamlit stops a script
this way when its user presses a cancel button) cancels the outstanding tasks.
"""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

#: environment variable holding the address of the Dask scheduler to use by default
SCHEDULER_ENV = "DPCORE_DASK_SCHEDULER"

#: runs per task: at least MIN_BLOCK (so the per-task cost of a few milliseconds stays under 5 % for the
#: cheapest audited release), at most MAX_BLOCK (bounded memory per task), and TARGET_BLOCKS tasks when the
#: runs allow (so two or more workers stay busy)
MIN_BLOCK = 10_000
MAX_BLOCK = 125_000
TARGET_BLOCKS = 16

Progress = Callable[[float], None]


def configured_scheduler() -> str | None:
    """The scheduler address from ``DPCORE_DASK_SCHEDULER``, or None when no cluster is configured."""
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    return address or None


def split_runs(n_runs: int, *, min_block: int = MIN_BLOCK, max_block: int = MAX_BLOCK,
               target: int = TARGET_BLOCKS) -> list[int]:
    """Cut ``n_runs`` into task sizes, as equal as possible; a function of ``n_runs`` (and the policy) only.

    The defaults suit audit runs (microseconds each); costlier draws (a whole release each) pass smaller
    blocks.
    """
    if n_runs < 1:
        raise ValueError("need at least one run")
    blocks = max(math.ceil(n_runs / max_block), min(target, max(1, n_runs // min_block)))
    base, extra = divmod(n_runs, blocks)
    return [base + 1] * extra + [base] * (blocks - extra)


def spawn_seeds(seed: int | np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds of one job seed (task ``i`` always gets child ``i``)."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return root.spawn(n)


class Executor:
    """Runs ``fn(item)`` for every item, in this process or on a Dask client, returning results in order."""

    def __init__(self, client=None):
        self.client = client

    @property
    def where(self) -> str:
        """Plain-language description of where tasks run (for progress lines and captions)."""
        if self.client is None:
            return "in process"
        workers = len(self.client.nthreads())
        return f"on the Dask cluster at {self.client.scheduler.address} ({workers} workers)"

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any], *, progress: Progress | None = None) -> list:
        items = list(items)
        if self.client is None:
            results = []
            for done, item in enumerate(items, start=1):
                results.append(fn(item))
                if progress is not None:
                    progress(done / len(items))
            return results
        return self._map_on_cluster(fn, items, progress)

    def _map_on_cluster(self, fn, items, progress):
        from distributed import as_completed

        # pure=False: two equal items are still two tasks (callers give each its own seed anyway)
        futures = self.client.map(fn, items, pure=False)
        try:
            for done, _ in enumerate(as_completed(futures), start=1):
                if progress is not None:
                    progress(done / len(futures))
            return self.client.gather(futures)
        finally:
            self.client.cancel([f for f in futures if not f.done()])


@contextmanager
def executor(*, scheduler: str | None = None, local_workers: int | None = None) -> Iterator[Executor]:
    """Where to run a job: a scheduler address, a LocalCluster, the configured scheduler, or in process.

    The client and cluster opened here are closed on exit (scripts must open it under
    ``if __name__ == "__main__":``, since local workers are started as new processes).
    """
    if scheduler and local_workers:
        raise ValueError("give a scheduler address or a number of local workers, not both")
    address = scheduler or (None if local_workers else configured_scheduler())
    if address is None and not local_workers:
        yield Executor()
        return
    from distributed import Client, LocalCluster

    cluster = None
    if address is None:
        cluster = LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    try:
        with Client(cluster if cluster is not None else address) as opened:
            yield Executor(opened)
    finally:
        if cluster is not None:
            cluster.close()


def call(task: tuple) -> Any:
    """``fn(*args)`` for a task ``(fn, *args)``: lets one :meth:`Executor.map` run tasks of several kinds."""
    fn, *args = task
    return fn(*args)


def add_arguments(parser) -> None:
    """``--scheduler ADDRESS`` and ``--local-workers N`` for command-line scripts."""
    group = parser.add_argument_group("where to run (results are the same everywhere)")
    group.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help=f"Dask scheduler address (default: ${SCHEDULER_ENV} if set, else in process)")
    group.add_argument("--local-workers", metavar="N", type=int, default=None,
                       help="start a LocalCluster with N worker processes for this run")


def print_progress(label: str) -> Progress:
    """A progress callback printing ``label: k % done`` lines (to stderr, so outputs stay as they were)."""
    def report(fraction: float) -> None:
        print(f"{label}: {fraction:.0%} of tasks done", file=sys.stderr, flush=True)

    return report

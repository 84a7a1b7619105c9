"""One thread per numerical library for each session, so that the sessions of one server share its cores.

A Streamlit server runs every session's script in a thread of one process. OpenBLAS (numpy's and scipy's, two
separate libraries), OpenMP (libgomp) and numba each start as many threads as the machine has cores, and with
several busy sessions those pools spin against each other: the regression threshold search for d = 64 took 1.8 s
on an idle machine and 31 s beside four busy processes with the default threads, 5.8 s with one thread per library.
The server's parallelism is its sessions, so each session's numerical work runs in one thread per
library (``bench/bench_threads.py`` measures four sessions at once against one). No Streamlit here: the entry point
calls :func:`bound_threads` at the start of every run.
"""

from __future__ import annotations

import os
import sys

from threadpoolctl import threadpool_limits

#: threads per numerical library for one session (``DPCORE_SESSION_THREADS`` changes it, e.g. for a server with one
#: session and many cores)
SESSION_THREADS = int(os.environ.get("DPCORE_SESSION_THREADS", "1"))
#: what OpenBLAS, OpenMP, MKL and numba read when they are loaded
_LOAD_TIME_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def bound_threads(threads: int = SESSION_THREADS) -> None:
    """At most ``threads`` threads per numerical library, for this process and the calling thread.

    Libraries loaded from now on start with ``threads`` (their environment settings); those loaded already
    (numpy's OpenBLAS is, with Streamlit) are limited through threadpoolctl, for every API (BLAS and OpenMP); numba's
    count is per calling thread, so it is set for the session's script thread that calls this.
    """
    numba = None
    if "numba" in sys.modules:
        # ``import`` waits while another session's thread is still importing numba; sys.modules alone would give
        # its partly initialised module, without ``set_num_threads`` yet (seen with sessions starting together)
        import numba
    for name in _LOAD_TIME_SETTINGS:
        if name == "NUMBA_NUM_THREADS" and numba is not None:
            continue  # numba re-reads it at every compilation and refuses a value other than its pool's size
        if os.environ.get(name) != str(threads):  # written once: setenv beside another thread's getenv is unsafe
            os.environ[name] = str(threads)
    threadpool_limits(limits=threads)
    if numba is not None:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))

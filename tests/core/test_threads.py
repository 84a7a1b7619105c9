"""Each session's numerical work runs in one thread per library: after the entry point has run, every
thread pool of the process — numpy's and scipy's OpenBLAS, OpenMP, numba (for any thread), and libraries loaded
only later — has one thread, so several busy sessions share the cores instead of spinning against each other.
``bench/bench_threads.py`` measures four sessions at once against one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, threading
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=120)
at.run()
assert not at.exception, [e.value for e in at.exception]
import scipy.linalg, sklearn.utils  # thread pools a page may load later (scipy's OpenBLAS, OpenMP)
import numba
from threadpoolctl import threadpool_info
seen = {}
thread = threading.Thread(target=lambda: seen.update(numba=numba.get_num_threads()))  # a session's fresh thread
thread.start(); thread.join()
print(json.dumps({"pools": [[i["internal_api"], i["filepath"], i["num_threads"]] for i in threadpool_info()],
                  "numba": seen["numba"]}))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="with one core every pool has one thread anyway")
def test_every_thread_pool_has_one_thread_after_the_entry_point_runs(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}
    env.update(PYTHONPATH=str(ROOT), DPCORE_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    apis = {api for api, _, _ in got["pools"]}
    assert {"openblas", "openmp"} <= apis, got  # the probe reached the pools it means to check
    assert [p for p in got["pools"] if p[2] != 1] == [] and got["numba"] == 1, got


RACE = """
import sys, threading, time
from dpcore.core.threads import bound_threads
errors = []
importer = threading.Thread(target=lambda: __import__("numba"))  # one session's first page imports numba
importer.start()
while "numba" not in sys.modules:  # another session's run starts while that import is under way
    time.sleep(0.0005)
try:
    bound_threads()
except Exception as err:
    errors.append(repr(err))
importer.join()
import numba
print(errors or ["ok", numba.get_num_threads()])
"""


def test_a_session_starting_while_another_imports_numba_waits_for_the_import():
    """Sessions run in threads of one server: a run that starts while another session's thread is importing numba
    must bound numba's threads once the import is done, not fail on the partly imported module (under load, 2 of 8
    first page visits showed this AttributeError)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    env.update(PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", RACE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "['ok', 1]", done.stdout

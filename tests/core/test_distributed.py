"""Monte-Carlo work on Dask gives the in-process result: audits and a reproduction setting, even when a worker dies."""

import json
import os
import signal
import sys
import time
from functools import partial
from pathlib import Path

import distributed as dask_distributed
import numpy as np
import pandas as pd
import pytest

from dpcore.core import distributed

from dpcore import registry
from dpcore.core.audit import run_audit

# the reproduction scripts are modules the workers import too: on the path before the cluster starts
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import reproduce_sparse  # noqa: E402
import reproduce_survival  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes, closed whatever the tests do."""
    local = dask_distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        with dask_distributed.Client(local) as client:
            yield client
    finally:
        local.close()


def test_split_depends_on_the_run_count_only_and_covers_every_run():
    for n in (100, 2_000, 99_999, 200_000, 1_000_000, 10**8):
        sizes = distributed.split_runs(n)
        assert sum(sizes) == n and max(sizes) - min(sizes) <= 1
        assert max(sizes) <= distributed.MAX_BLOCK
        assert min(sizes) >= min(n, distributed.MIN_BLOCK)
    assert len(distributed.split_runs(1_000_000)) == distributed.TARGET_BLOCKS
    assert len(distributed.split_runs(10**8)) == 800  # a cluster of hundreds of cores stays busy


def test_in_process_executor_reports_progress_in_order():
    seen = []
    out = distributed.Executor().map(lambda x: x * x, [1, 2, 3, 4], progress=seen.append)
    assert out == [1, 4, 9, 16] and seen == [0.25, 0.5, 0.75, 1.0]


def test_no_cluster_is_used_unless_configured(monkeypatch):
    monkeypatch.delenv(distributed.SCHEDULER_ENV, raising=False)
    with distributed.executor() as ex:
        assert ex.client is None and ex.where == "in process"
    monkeypatch.setenv(distributed.SCHEDULER_ENV, "  ")
    assert distributed.configured_scheduler() is None


def test_audit_result_is_plain_data():
    scenario = registry.audit_scenarios("fdr", 1.0)[0]
    result, _, _ = scenario.run(2_000, seed=1)
    record = json.loads(json.dumps(result.as_dict()))
    assert record["n_runs"] == 2_000 and record["subject"] == result.subject
    assert record["violation"] is result.violation and record["resolution"] == pytest.approx(result.resolution)


@pytest.mark.parametrize("key", ["sparse", "fdr"])
def test_audit_on_two_workers_equals_the_in_process_audit(cluster, key):
    scenario = registry.audit_scenarios(key, 1.0)[-1 if key == "sparse" else 0]
    here, a_here, b_here = scenario.run(150_000, planted_bug=True, seed=7)
    seen = []
    there, a_there, b_there = scenario.run(150_000, planted_bug=True, seed=7,
                                           executor=distributed.Executor(cluster), progress=seen.append)
    assert there == here and there.n_runs == 150_000
    np.testing.assert_array_equal(a_there, a_here)
    np.testing.assert_array_equal(b_there, b_here)
    assert seen[-1] == pytest.approx(1.0) and seen == sorted(seen)


def _slow_laplace(shift: float, rng: np.random.Generator, m: int) -> np.ndarray:
    time.sleep(0.1)  # long enough that tasks are still queued when a worker is killed
    return rng.laplace(shift, 1.0, m)


def test_audit_survives_a_killed_worker(cluster):
    sample_a, sample_b = partial(_slow_laplace, 0.0), partial(_slow_laplace, 1.0)
    kwargs = dict(n_runs=200_000, claimed_epsilon=1.0, seed=3)
    here, _, _ = run_audit(sample_a, sample_b, **kwargs)
    pids = cluster.run(os.getpid)
    killed = []

    def kill_one_worker_midway(fraction):
        if fraction > 0.3 and not killed:  # after the pilot, with estimation chunks running and queued
            victim = min(pids)
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)

    there, _, _ = run_audit(sample_a, sample_b, executor=distributed.Executor(cluster),
                            progress=kill_one_worker_midway, **kwargs)
    assert killed, "the worker was never killed"
    assert there == here and there.n_runs == 200_000
    cluster.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker for the next test


def test_reproduction_setting_on_two_workers_equals_in_process(cluster):
    settings = [(200, 40, "linear", reproduce_sparse.VARIANTS[:3])]
    here = reproduce_sparse.run(settings)
    there = reproduce_sparse.run(settings, distributed.Executor(cluster))
    assert len(here) == reproduce_sparse.DATASETS * 3 * reproduce_sparse.EPS.size * reproduce_sparse.DRAWS
    pd.testing.assert_frame_equal(there, here)


def test_survival_reproduction_on_two_workers_equals_in_process(cluster):
    """Every data set draws from its own child seed, so the tables do not depend on where they ran."""
    here = reproduce_survival.run(draws=5, seed=3)
    there = reproduce_survival.run(draws=5, seed=3, executor=distributed.Executor(cluster))
    assert len(here[0]) == 3 * len(reproduce_survival.NINE) and len(here[1]) == 3 * len(reproduce_survival.COMPETING)
    for a, b in zip(here, there):
        pd.testing.assert_frame_equal(b, a)


def test_audit_page_runs_on_the_configured_cluster(cluster, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv(distributed.SCHEDULER_ENV, cluster.scheduler.address)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app_pages" / "audit.py"), default_timeout=240)
    at.query_params.update({"method": "fdr", "eps": "1.0", "runs": "200000", "bug": "true"})
    at.run()
    assert "100,000,000" in at.select_slider(key="runs").options
    assert any("at most ε ≈" in c.value and cluster.scheduler.address in c.value for c in at.caption)
    at.button[0].click().run()
    assert not at.exception
    assert any("The data refute" in e.value for e in at.error)


def _noisy_error(grid: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """A stand-in metric: |Laplace(1/ε)| per ε and draw."""
    return np.abs(rng.laplace(0.0, 1.0 / grid[:, None], (grid.size, draws)))


def test_accuracy_first_draws_on_two_workers_equal_in_process(cluster):
    from dpcore.core.utility import simulate_draws

    grid = np.array([0.5, 1.0, 2.0, 4.0])
    here = simulate_draws(_noisy_error, grid, 1_000, seed=4)
    there = simulate_draws(_noisy_error, grid, 1_000, seed=4, executor=distributed.Executor(cluster))
    assert here.shape == (4, 1_000)
    np.testing.assert_array_equal(there, here)


def test_accuracy_first_refines_with_more_draws_in_process(monkeypatch):
    from streamlit.testing.v1 import AppTest

    def page():
        import numpy as np

        from ui.accuracy import accuracy_first

        def simulate(grid, draws, rng):
            return np.abs(rng.laplace(0.0, 1.0 / grid[:, None], (grid.size, draws)))

        grid = np.array([0.5, 1.0, 2.0, 4.0])
        accuracy_first(key="t", grid=grid, draws=simulate(grid, 50, np.random.default_rng(0)), metric_label="error",
                       default_threshold=0.5, simulate=simulate)

    monkeypatch.setenv(distributed.SCHEDULER_ENV, "tcp://127.0.0.1:1")  # private data: never sent there
    at = AppTest.from_function(page, default_timeout=60)
    at.run()
    assert not at.get("plotly_chart") and not at.caption  # closed: nothing computed or drawn
    at.session_state["t_open"] = True  # the user opens the expander
    at.run()
    assert len(at.get("plotly_chart")) == 1
    assert at.select_slider(key="t_refine_n").options == ["1,000", "5,000"]
    assert any("from 50 simulated releases" in c.value for c in at.caption)
    at.button(key="t_refine").click().run()
    assert not at.exception
    assert any("from 1000 simulated releases" in c.value for c in at.caption)


def test_a_link_that_sets_an_accuracy_target_opens_accuracy_first():
    from streamlit.testing.v1 import AppTest

    def page():
        import numpy as np

        from ui.accuracy import accuracy_first

        grid = np.array([0.5, 1.0, 2.0, 4.0])
        draws = np.abs(np.random.default_rng(0).laplace(0.0, 1.0 / grid[:, None], (grid.size, 50)))
        accuracy_first(key="t", grid=grid, draws=draws, metric_label="error", default_threshold=0.5)

    at = AppTest.from_function(page, default_timeout=60)
    at.query_params["t_thr"] = "0.3"
    at.run()
    assert not at.exception and at.number_input(key="t_thr").value == 0.3 and len(at.get("plotly_chart")) == 1

"""Public caches are bounded by bytes as well as entries, and share read-only values."""

from __future__ import annotations

import numpy as np
import pytest

from ui import cache


@pytest.fixture
def budget(monkeypatch):
    monkeypatch.setitem(cache.BUDGETS, "test", 10 * 8_000)  # ten arrays of 1,000 floats
    yield "test"
    cache._CACHES.pop("test", None)


def test_entries_leave_by_bytes_least_recently_used_first(budget):
    calls = []

    @cache.public_cache(budget, max_entries=100)
    def ones(seed: int, n: int = 1_000):
        calls.append(seed)
        return {"x": np.ones(n) * seed}

    for seed in range(12):
        ones(seed)
    assert cache.held_bytes()[budget] <= cache.BUDGETS[budget]
    ones(11)
    assert calls.count(11) == 1  # kept
    ones(0)
    assert calls.count(0) == 2  # left first
    ones(1, n=50_000)  # larger than the whole budget: computed, not kept
    assert cache.held_bytes()[budget] <= cache.BUDGETS[budget]
    with pytest.raises(ValueError, match="read-only"):
        ones(11)["x"][0] = 5.0  # a shared value cannot be changed by one session


def test_entries_leave_by_count_and_a_budget_has_one_owner(budget):
    @cache.public_cache(budget, max_entries=2)
    def square(x: int):
        return np.full(10, x * x)

    for x in range(5):
        square(x)
    assert len(cache._CACHES[budget][1]) == 2

    def other(x: int):
        return x

    with pytest.raises(ValueError, match="already belongs to"):
        cache.public_cache(budget, max_entries=2)(other)


def test_nbytes_counts_arrays_and_frames_once():
    import pandas as pd

    a = np.zeros(1_000)
    assert cache.nbytes((a, a, {"a": a})) < 2 * a.nbytes
    assert cache.nbytes(pd.DataFrame({"x": np.zeros(1_000)})) >= 8_000


def test_nbytes_counts_a_plotly_figure_by_its_content():
    import plotly.graph_objects as go

    small = go.Figure(go.Scatter(x=[0.0, 1.0], y=[0.0, 1.0]))
    large = go.Figure(go.Scatter(x=np.arange(50_000.0), y=np.arange(50_000.0), text=[f"p{i}" for i in range(50_000)]))
    assert cache.nbytes(large) > 400_000 > 20 * cache.nbytes(small)

"""The private preparation tested as code: ``dp_mean``, ``dp_sigma``, ``dp_column_mean`` and
``feature_bounds`` called on adversarial neighbours through their own calls.

A spy on :meth:`dpcore.core.mechanisms.Noise.sample` records what each call noised (the exact statistic) and the
mechanism it used; the statistic's change between neighbours must never exceed the sensitivity that mechanism
was calibrated for, the worst-case pairs must reach the bound the docstrings prove (so a smaller, wrong
sensitivity fails), and the scale must be that sensitivity over ε. Deterministic: no assertion reads the noise.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.core import mechanisms as M
from dpcore.regression import dp_column_mean, dp_mean, dp_sigma, feature_bounds, prepare


@pytest.fixture
def noised(monkeypatch):
    """``(noise, exact value)`` of every preview draw made while the test runs."""
    seen = []
    sample = M.Noise.sample

    def spy(self, value, **kw):
        seen.append((self, np.asarray(value, dtype=float)))
        return sample(self, value, **kw)

    monkeypatch.setattr(M.Noise, "sample", spy)
    return seen


def _pair(call, a, b, noised):
    """Run ``call`` on neighbours a and b; return (L1 change of the noised statistic, the sensitivity used)."""
    rng = np.random.default_rng(0)
    call(a, rng=rng)
    call(b, rng=rng)
    (na, va), (nb, vb) = noised[-2:]
    assert na == nb  # the mechanism depends on public inputs only (n, bounds, ε), never on the records
    assert na.scale == pytest.approx(na.sensitivity / na.epsilon)
    return float(np.abs(va - vb).sum()), na.sensitivity


def _neighbours(base: np.ndarray, i: int, record) -> tuple[np.ndarray, np.ndarray]:
    other = base.copy()
    other[i] = record
    return base, other


BOUNDS = (-3.0, 5.0)
N = 40


def test_dp_mean_sensitivity_is_reached_by_extreme_neighbours_and_never_exceeded(noised):
    rng = np.random.default_rng(1)
    call = lambda y, rng: dp_mean(y, BOUNDS, 0.5, rng=rng)
    lo, hi = BOUNDS
    worst = (hi - lo) / N
    # adversarial: one value at the lower bound replaced by one far beyond the upper (clipped to it)
    change, sens = _pair(call, *_neighbours(np.full(N, lo), 0, 1e9), noised)
    assert change == pytest.approx(worst) and sens == pytest.approx(worst)
    for _ in range(200):  # random neighbours, including values outside the bounds
        base = rng.uniform(-10, 10, N)
        change, sens = _pair(call, *_neighbours(base, int(rng.integers(N)), rng.uniform(-1e3, 1e3)), noised)
        assert change <= sens * (1 + 1e-12)


@pytest.mark.parametrize("centre", [-3.0, 0.0, 1.0, 4.5])
def test_dp_sigma_sensitivity_is_reached_by_extreme_neighbours_and_never_exceeded(noised, centre):
    rng = np.random.default_rng(2)
    call = lambda y, rng: dp_sigma(y, centre, BOUNDS, 0.5, rng=rng)
    lo, hi = BOUNDS
    worst = max(hi - centre, centre - lo) / N
    far = hi if hi - centre >= centre - lo else lo  # the bound farther from the centre
    change, sens = _pair(call, *_neighbours(np.full(N, centre), 0, far * 1e6), noised)
    assert change == pytest.approx(worst) and sens == pytest.approx(worst)
    for _ in range(100):
        base = rng.uniform(-10, 10, N)
        change, sens = _pair(call, *_neighbours(base, int(rng.integers(N)), rng.uniform(-1e3, 1e3)), noised)
        assert change <= sens * (1 + 1e-12)


@pytest.mark.parametrize("bounds", [(-1.0, 2.0), (np.array([-1.0, 0.0, 10.0]), np.array([1.0, 100.0, 12.0]))])
def test_dp_column_mean_sensitivity_is_reached_by_extreme_neighbours_and_never_exceeded(noised, bounds):
    rng = np.random.default_rng(3)
    d = 3
    call = lambda X, rng: dp_column_mean(X, bounds, 0.5, rng=rng)
    lo, hi = feature_bounds(bounds, d)
    worst = float(np.sum(hi - lo)) / N
    base = np.tile(lo, (N, 1))
    change, sens = _pair(call, *_neighbours(base, 5, hi + 1e6), noised)  # every feature from its min past its max
    assert change == pytest.approx(worst) and sens == pytest.approx(worst)
    for _ in range(100):
        X = rng.uniform(-200, 200, (N, d))
        change, sens = _pair(call, *_neighbours(X, int(rng.integers(N)), rng.uniform(-1e3, 1e3, d)), noised)
        assert change <= sens * (1 + 1e-12)


def test_feature_bounds_are_per_feature_copies_and_refuse_empty_ranges():
    lo, hi = feature_bounds((-1.0, 1.0), 4)
    assert lo.tolist() == [-1.0] * 4 and hi.tolist() == [1.0] * 4
    lo[0] = 99.0  # a copy: changing it cannot move the next call's bounds (a public constant must stay public)
    assert feature_bounds((-1.0, 1.0), 4)[0][0] == -1.0
    lo, hi = feature_bounds(([0.0, 5.0], [1.0, 6.0]), 2)
    assert lo.tolist() == [0.0, 5.0] and hi.tolist() == [1.0, 6.0]
    with pytest.raises(ValueError, match="feature 2"):
        feature_bounds(([0.0, 5.0], [1.0, 5.0]), 2)


def test_prepare_charges_each_dp_item_its_share_and_calls_the_dp_functions(noised):
    """``prepare`` splits ε equally over the DP items and noises exactly the statistics above (in that order)."""
    rng = np.random.default_rng(4)
    X, y = rng.uniform(-1, 1, (N, 3)), rng.uniform(*BOUNDS, N)
    prep = prepare(X, y, x_bounds=(-1.0, 1.0), y_bounds=BOUNDS, x_centre="dp", y_centre="dp", sigma_y="dp",
                   epsilon=0.9, rng=rng)
    assert [nz.epsilon for nz, _ in noised] == pytest.approx([0.3] * 3)
    assert [nz.sensitivity for nz, _ in noised] == pytest.approx(
        [3 * 2.0 / N, 8.0 / N, max(BOUNDS[1] - prep.y_centre, prep.y_centre - BOUNDS[0]) / N])
    assert prep.centre_sd == pytest.approx(np.sqrt(2) * 8.0 / (N * 0.3))
    assert prep.epsilon == pytest.approx(0.9)

"""Accuracy-first ε against closed forms."""

import math

import numpy as np
import pytest

from dpcore.core import mechanisms
from dpcore.core.utility import smallest_epsilon


def _laplace_count_errors(grid, sensitivity, draws, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([np.abs(mechanisms.laplace_noise(sensitivity, e).sample(0.0, rng=rng, draws=draws)) for e in grid])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_probability_target_matches_closed_form_within_stated_uncertainty(seed):
    # |Lap(Δ/ε)| ≤ a with probability 1 − exp(−aε/Δ) ≥ p  ⇔  ε ≥ −Δ ln(1 − p) / a
    sensitivity, a, p = 2.0, 5.0, 0.9
    truth = -sensitivity * math.log(1 - p) / a
    grid = np.geomspace(0.1, 10, 41)
    choice = smallest_epsilon(grid, _laplace_count_errors(grid, sensitivity, 4000, seed), threshold=a, probability=p)
    assert choice.met
    assert choice.epsilon_optimistic <= truth <= choice.epsilon_pessimistic
    assert choice.epsilon == pytest.approx(truth, rel=0.1)


def test_mean_target_matches_closed_form():
    # E|Lap(b)| = b = Δ/ε ≤ a  ⇔  ε ≥ Δ/a
    grid = np.geomspace(0.1, 10, 41)
    choice = smallest_epsilon(grid, _laplace_count_errors(grid, 1.0, 4000), threshold=0.5, kind="mean")
    assert choice.epsilon_optimistic <= 2.0 <= choice.epsilon_pessimistic
    assert choice.epsilon == pytest.approx(2.0, rel=0.08)


def test_larger_is_better_mean_target():
    grid = np.array([0.5, 1.0, 2.0, 4.0])
    power = np.repeat(np.array([[0.2], [0.5], [0.85], [0.95]]), 50, axis=1)
    choice = smallest_epsilon(grid, power, threshold=0.8, kind="mean", larger_is_better=True)
    # linear in log ε between 1 (0.5) and 2 (0.85): 0.8 is reached at 2^(0.3/0.35)
    assert choice.epsilon == pytest.approx(2 ** (0.3 / 0.35))


def test_unreachable_target_is_reported():
    grid = np.geomspace(0.1, 1, 5)
    choice = smallest_epsilon(grid, _laplace_count_errors(grid, 100.0, 200), threshold=0.01, probability=0.99)
    assert not choice.met
    assert "No ε up to 1" in choice.summary()


def test_shape_is_checked():
    with pytest.raises(ValueError, match="shape"):
        smallest_epsilon([1, 2], np.zeros((3, 10)), threshold=1)


def test_audit_figure_shows_discrete_and_continuous_summaries():
    from dpcore.core.audit import empirical_epsilon
    from dpcore.reporting.figures import audit_figure

    rng = np.random.default_rng(0)
    a, b = rng.binomial(1, 0.3, 5000), rng.binomial(1, 0.1, 5000)
    fig = audit_figure(a, b, empirical_epsilon(a, b, claimed_epsilon=1.0))
    assert [t.x for t in fig.data] == [("0", "1"), ("0", "1")]
    assert abs(fig.data[0].y[1] - a.mean()) < 1e-12
    c, d = rng.laplace(0, 1, 5000), rng.laplace(1, 1, 5000)
    fig = audit_figure(c, d, empirical_epsilon(c, d, claimed_epsilon=1.0))
    assert len(fig.data[0].x) == 60

"""The tight accountant never reports less than the noise drawn allows, whatever the sensitivity.

Each check recomputes the privacy loss independently of dpcore's events: k Gaussians of σ on a statistic of L2
sensitivity Δ compose exactly to one Gaussian of multiplier σ/(Δ√k), whose ε at δ has a closed form; a Laplace or
discrete Laplace of scale b at sensitivity Δ is (Δ/b)-DP and no less. A bound that is lower than these is a
privacy bug (the cap would let too much through), however it is reached (PLD, RDP or basic composition).
"""

from __future__ import annotations

import math

import pytest
from scipy import optimize

from dpcore import accounting as A
from dpcore.accounting.events import ApproxDP, DiscreteLaplace, Gaussian, Laplace
from dpcore.core.mechanisms import gaussian_privacy_loss_delta

DELTA = 1e-5


def _exact_gaussian_epsilon(multiplier: float, delta: float) -> float:
    return optimize.brentq(lambda e: gaussian_privacy_loss_delta(multiplier, e, 1.0) - delta, 0.0, 100.0)


@pytest.mark.parametrize("sigma, sensitivity, k", [(3.0, 2.0, 1), (3.0, 2.0, 4), (0.8, 0.5, 3), (12.0, 4.0, 2)])
def test_gaussian_histories_at_any_sensitivity_are_never_below_the_exact_epsilon(sigma, sensitivity, k):
    """The loss of a Gaussian depends on σ/Δ: the tight ε of k of them is the exact ε of multiplier σ/(Δ√k), up
    to the PLD's rounding up, never below it — by PLD and by RDP alike."""
    event = Gaussian.at_delta(sigma, sensitivity, 1e-6)
    exact = _exact_gaussian_epsilon(sigma / (sensitivity * math.sqrt(k)), DELTA)
    c = A.compose([event] * k, DELTA)
    assert exact - 1e-9 <= c.epsilon_tight <= exact + 0.01 * k
    assert c.epsilon_pld >= exact - 1e-9
    assert c.epsilon_rdp >= exact - 1e-9


@pytest.mark.parametrize("scale, sensitivity", [(4.0, 2.0), (1.0, 3.0), (10.0, 5.0)])
def test_a_laplace_release_costs_its_sensitivity_over_its_scale(scale, sensitivity):
    """Laplace of scale b at L1 sensitivity Δ is exactly (Δ/b)-DP: the tight ε at a small δ is close to Δ/b,
    never a figure for Δ = 1."""
    eps = sensitivity / scale
    tight = A.compose([Laplace(scale, sensitivity)], DELTA).epsilon_tight
    assert eps * 0.9 <= tight <= eps + 1e-9


@pytest.mark.parametrize("scale, sensitivity", [(4.0, 2), (2.0, 4), (6.0, 3)])
def test_a_discrete_laplace_release_costs_its_sensitivity_over_its_scale(scale, sensitivity):
    """Discrete Laplace counts of integer sensitivity Δ at scale b: the tight ε of one release at a small δ is
    close to Δ/b (a shift by Δ, not by 1)."""
    eps = sensitivity / scale
    tight = A.compose([DiscreteLaplace(scale, sensitivity)], DELTA).epsilon_tight
    assert eps * 0.9 <= tight <= eps + 1e-9


def test_an_approx_dp_event_whose_delta_exceeds_the_total_gives_no_guarantee():
    """An (ε, δ) event's ε holds only with its δ: composed at a smaller total δ there is no finite ε to report."""
    c = A.compose([ApproxDP(1.0, 1e-3)], DELTA)
    assert math.isinf(c.epsilon_tight)
    assert not c.basic_holds

"""Several survival releases on one budget: the plans compose within the total, Gaussian noise wins
from about five releases, and a Gaussian survival release is charged as the Gaussian it ran."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import accounting as A
from dpcore import survival as sv
from dpcore.survival.planning import discrete_laplace_share, gaussian_share, survival_plan
from dpcore.core.datasets import load_survival
from dpcore.core.mechanisms import analytic_gaussian_sigma


@pytest.mark.parametrize("releases", [1, 2, 5, 10, 20])
@pytest.mark.parametrize("total, delta", [(1.0, 1e-6), (3.0, 1e-5)])
def test_plans_compose_within_the_total_and_spend_nearly_all_of_it(releases, total, delta):
    eps_dl = discrete_laplace_share(releases, total, delta, 2.0)
    dl = A.compose([A.DiscreteLaplace(2.0 / eps_dl, 2.0)] * releases, delta)
    assert total - 5e-3 <= dl.epsilon_tight <= total  # the share is rounded down by 10⁻⁴ per release
    assert eps_dl >= total / releases  # never worse than basic composition
    g = gaussian_share(releases, total, delta)
    assert g.delta == pytest.approx(delta / releases)
    composed = A.compose([g] * releases, delta)
    assert total - 2e-3 <= composed.epsilon_tight <= total
    # k Gaussians of multiplier m√k are one Gaussian of multiplier m: the (total, δ) one, exactly
    assert g.sigma / math.sqrt(releases) == pytest.approx(analytic_gaussian_sigma(1.0, total, delta), rel=2e-4)


def test_gaussian_survival_release_is_charged_as_the_gaussian_it_ran():
    events = A.events_for_release("DP survival analysis", 0.33, 1e-7, params={"noise_kind": "gaussian"})
    (g,) = events
    assert isinstance(g, A.Gaussian) and (g.epsilon, g.delta) == (0.33, 1e-7)
    noise = sv.survival_noise(0.33, 2, kind="gaussian", delta=1e-7)
    assert noise.scale / noise.sensitivity == pytest.approx(g.sigma / g.sensitivity)
    ten = A.compose(events * 10, 1e-6)
    assert ten.epsilon_tight < 0.5 * ten.epsilon_basic  # ten of them cost far less than ten times one
    (dl,) = A.events_for_release("DP survival analysis", 1.0, 0.0, params={"sensitivity_l1": 2})
    assert isinstance(dl, A.DiscreteLaplace)


def test_survival_plan_on_a_cohort_prefers_discrete_laplace_for_one_release_and_gaussian_for_ten():
    d = load_survival("myeloid")
    w, unit = sv.default_bin_width(d.horizon, d.time_unit, n=d.time.size, epsilon=1.0, n_groups=2)
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=unit, width=w)
    counts = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=d.groups)
    plan = survival_plan(counts, 1.0, 1e-6, releases=(1, 10), draws=200, rng=np.random.default_rng(0))
    one, ten = plan.iloc[0], plan.iloc[1]
    assert one["less_noise"] == "discrete Laplace" and ten["less_noise"] == "Gaussian"
    assert one["dl_sup_error_median"] < one["gaussian_sup_error_median"]
    assert ten["gaussian_sup_error_median"] < ten["dl_sup_error_median"]
    assert ten["gaussian_sd_ratio"] == pytest.approx(0.668, abs=0.01)

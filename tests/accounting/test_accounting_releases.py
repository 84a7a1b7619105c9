"""events_for_release: per method, the events' basic composition is the charged (ε, δ), and each event is the
mechanism the release ran (its noise-to-sensitivity ratio from the method's own calibration). The sparse bundles draw
OpenDP noise, but only their public parameters are asserted: no assertion depends on a draw (no false alarm)."""

import math

import numpy as np
import pytest

from dpcore import accounting as A
from dpcore import regression as R
from dpcore import survival as sv
from dpcore.regression.adassp import adassp_noise
from dpcore.regression.mechanism import stat_noise
from dpcore.sparse import release_sparse

DELTA_TOTAL = 1e-3  # the deployment's default δ cap


def _basic(events):
    claims = [e.basic() for e in events]
    return math.fsum(c[0] for c in claims), math.fsum(c[1] for c in claims)


def _ratio(noise):
    return noise.scale / noise.sensitivity


@pytest.mark.parametrize("groups", [1, 3])
def test_survival_is_one_discrete_laplace_as_released(groups):
    noise = sv.survival_noise(1.0, groups, kind="discrete_laplace")  # what sv.release draws from
    events = A.events_for_release("DP survival analysis", 1.0, params={"sensitivity_l1": sv.sensitivity(groups)})
    assert events == [A.DiscreteLaplace(noise.scale, int(noise.sensitivity))]
    assert _basic(events) == pytest.approx((1.0, 0.0))
    by_groups = A.events_for_release("DP survival analysis", 1.0, params={"groups": [f"g{i}" for i in range(groups)]})
    assert by_groups == events  # without the stated sensitivity, the declared groups give it


def _page_parts(shares, keys, eps_stat, eps_prep):
    """The regression page's parts: the statistics' shares of ε_stat, then the DP centre and scale halves."""
    parts = {k: s * eps_stat for k, s in zip(keys, shares)}
    parts.update({"response centre": eps_prep / 2, "response scale": eps_prep / 2})
    return parts


def test_adassp_parts_are_the_three_analytic_gaussians_plus_laplace_preparation():
    eps_stat, eps_prep, delta = 2.0, 0.2, 1.0 / 500**2
    parts = _page_parts(R.ADASSP_SPLIT, ("λ_min", "XᵀX", "Xᵀy"), eps_stat, eps_prep)
    events = A.events_for_release(R.ADASSP, sum(parts.values()), delta, parts, {"method": R.ADASSP, "d": 5})
    gaussians = [e for e in events if isinstance(e, A.Gaussian)]
    released = adassp_noise(3.0, eps_stat, delta)  # By = 3: any By gives the same ratios
    assert [g.sigma / g.sensitivity for g in gaussians] == pytest.approx(
        [_ratio(n) for n in (released.lam_min, released.xx, released.xy)], rel=1e-9)
    assert [type(e) for e in events[3:]] == [A.Laplace, A.Laplace]
    assert _basic(events) == pytest.approx((eps_stat + eps_prep, delta))


def test_adassp_bundle_keys_are_recognised_too():
    parts = {f"{k} ({s:.0%})": s * 1.0 for k, s in zip(("λ_min", "XᵀX", "Xᵀy"), R.ADASSP_SPLIT)}
    events = A.events_for_release(R.ADASSP, 1.0, 1e-6, parts)
    assert all(isinstance(e, A.Gaussian) for e in events) and _basic(events) == pytest.approx((1.0, 1e-6))


def test_robust_regression_is_laplace_on_every_part():
    parts = _page_parts((0.35, 0.60, 0.05), ("nxx", "nxy", "nyy"), 1.0, 0.1)
    events = A.events_for_release(R.METHOD, sum(parts.values()), 0.0, parts)
    released = stat_noise(4, 0.5, 2.0, 1.0, (0.35, 0.60, 0.05))
    assert [_ratio(e) for e in events[:3]] == pytest.approx([_ratio(n) for n in (released.xx, released.xy,
                                                                                  released.yy)])
    assert all(isinstance(e, A.Laplace) for e in events) and _basic(events) == pytest.approx((1.1, 0.0))


@pytest.fixture(scope="module")
def sparse_data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 12))
    return X, X[:, :3] @ np.array([2.0, -1.5, 1.0]) + rng.normal(0, 0.3, 400)


@pytest.mark.parametrize("loss", ["linear", "logistic"])
def test_peeling_is_a_zcdp_group_of_selections_and_the_fit_gaussians(sparse_data, loss):
    X, y = sparse_data
    y = y if loss == "linear" else np.sign(y)
    bundle = release_sparse(X, y, sparsity=3, epsilon=2.0, delta=1e-6, loss=loss)
    pub = bundle.public_params
    [group] = A.events_for_release(bundle.method, bundle.epsilon, bundle.delta, bundle.parts, pub)
    assert isinstance(group, A.ZcdpGroup) and group.basic() == (bundle.epsilon, bundle.delta)
    selection, *fit = group.events
    assert (selection.count, selection.bounded_range) == (3, True)
    assert selection.epsilon == pytest.approx(2 * pub["score_sensitivity_linf"] / pub["gumbel_scale"], rel=1e-12)
    names = ["gram", "moment"] if loss == "linear" else ["gradient"] * pub["gradient_steps"]
    assert [g.sigma / g.sensitivity for g in fit] == pytest.approx(
        [pub[f"sigma_{k}"] / pub[f"l2_sensitivity_{k}"] for k in names], rel=1e-12)
    assert math.fsum(bundle.parts.values()) == pytest.approx(_basic([group])[0])
    # one release: the RDP (zCDP-like) figure recovers the release's own ε, the PLD is a valid bound beside it
    assert A.compose([group], bundle.delta).epsilon_tight <= bundle.epsilon


def test_kt_private_support_is_laplace_votes_and_an_analytic_gaussian(sparse_data):
    X, y = sparse_data
    bundle = release_sparse(X, y, sparsity=3, epsilon=2.0, delta=1e-6, variant="private_support")
    events = A.events_for_release(bundle.method, bundle.epsilon, bundle.delta, bundle.parts, bundle.public_params)
    votes, fit = events
    assert isinstance(votes, A.Laplace) and isinstance(fit, A.Gaussian)
    assert fit.sigma / fit.sensitivity == pytest.approx(
        bundle.derived_params["sigma"] / bundle.derived_params["l2_sensitivity"], rel=1e-9)
    assert _basic(events) == pytest.approx((bundle.epsilon, bundle.delta))


@pytest.mark.parametrize("method", ["PAPRIKA discovery list", "PAPRIKA AI discovery list", "a stated mechanism"])
def test_fdr_and_unknown_methods_are_one_approx_dp_event(method):
    events = A.events_for_release(method, 5.0, 1e-4)
    assert events == [A.ApproxDP(5.0, 1e-4)]
    assert A.compose(events, DELTA_TOTAL).epsilon_tight <= 5.0


def test_adassp_needs_its_three_parts():
    with pytest.raises(ValueError, match="AdaSSP"):
        A.events_for_release(R.ADASSP, 1.0, 1e-6, {"statistics": 1.0})

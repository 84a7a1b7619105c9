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


# ------------------------------------------------- one utility-curve type for every method


def _agrees_with_fields(curve, fields: dict):
    """``metric``/``mean`` give the method's own arrays, and ``metrics`` names exactly those."""
    from dpcore.core.utility import UtilityCurve

    assert isinstance(curve, UtilityCurve)
    assert set(curve.metrics) == set(fields)
    for name, values in fields.items():
        np.testing.assert_array_equal(curve.metric(name), np.asarray(values, dtype=float))
        assert curve.metric(name).shape == (curve.epsilons.size, np.shape(values)[1])
        np.testing.assert_allclose(curve.mean(name), np.asarray(values, dtype=float).mean(axis=1))
    with pytest.raises(KeyError):
        curve.metric("no such metric")


def test_survival_curve_is_a_utility_curve_with_its_noise_delta():
    from dpcore import survival as sv
    from dpcore.core.datasets import load_survival

    d = load_survival("cancer")
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)
    counts = sv.count_matrix(d.time, d.event, grid)
    uc = sv.utility_curve(counts, [0.5, 2.0], draws=8, rng=np.random.default_rng(1))
    assert isinstance(uc, sv.SurvivalUtilityCurve)
    np.testing.assert_array_equal(uc.epsilons, [0.5, 2.0])
    assert uc.delta == 0.0  # Laplace kinds: pure ε-DP
    _agrees_with_fields(uc, {n: getattr(uc, n) for n in ("sup_error", "integrated_error", "median_error",
                                                         "coverage")})  # one group: no log-rank metrics
    gauss = sv.utility_curve(counts, [0.5, 2.0], draws=4, rng=np.random.default_rng(1), kind="gaussian",
                             delta=1e-6)
    assert gauss.delta == 1e-6


def test_regression_curve_is_a_utility_curve_with_adassp_delta():
    from dpcore.regression.adassp import ADASSP
    from dpcore.regression.evaluation import RegressionUtilityCurve, utility_curve

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (500, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.standard_normal(500)
    options = dict(epsilons=[1.0, 4.0], n_private=300, repeats=4, x_bounds=(-1, 1), y_bounds=(-5, 5), rng=1,
                   omegas=lambda n, d, e, sp: (0.5, 1.0))
    curve = utility_curve(X, y, **options)
    assert isinstance(curve, RegressionUtilityCurve)
    np.testing.assert_array_equal(curve.epsilons, [1.0, 4.0])
    assert curve.delta == 0.0 and curve.label == "Spearman ρ"  # the robust private LR is pure ε-DP
    _agrees_with_fields(curve, {"rho": curve.values})
    ada = utility_curve(X, y, model=ADASSP, metric="mse", **options)
    assert ada.delta == pytest.approx(1 / 300**2)  # monte_carlo_cv's default δ for n private records
    _agrees_with_fields(ada, {"mse": ada.values})
    assert utility_curve(X, y, model=ADASSP, adassp_delta=1e-7, **options).delta == 1e-7


def test_sparse_curve_is_a_utility_curve_named_method_slash_metric():
    from dpcore import sparse as sp

    data = sp.make_synthetic(400, 40, 3, noise=0.1, rng=np.random.default_rng(3))
    curve = sp.utility_curve(data, sparsity=3, epsilons=[1.0, 4.0], delta=1e-6, repeats=3, methods=("peel", "kt"),
                             rng=np.random.default_rng(2))
    assert isinstance(curve, sp.SparseUtilityCurve)
    np.testing.assert_array_equal(curve.epsilons, [1.0, 4.0])
    assert curve.delta == 1e-6
    _agrees_with_fields(curve, {f"{m}/{k}": v for m in curve.methods for k, v in curve.values[m].items()})
    assert "peel/l2_error" in curve.metrics


def test_fdr_curve_is_a_utility_curve_with_paprika_delta():
    from dpcore import fdr

    rng = np.random.default_rng(9)
    s = fdr.simulate_bernoulli(10, 200, pi1=0.05, rng=rng)
    settings = fdr.Settings(delta=1e-3)
    curve = fdr.utility_curve(s.pvalues, s.truth, [1.0, 3.0], settings=settings, rng=rng)
    assert isinstance(curve, fdr.FdrUtilityCurve)
    np.testing.assert_array_equal(curve.epsilons, [1.0, 3.0])
    assert curve.delta == settings.delta == 1e-3
    _agrees_with_fields(curve, {n: getattr(curve, n) for n in ("fdp", "power", "n_rejections")})
    assert fdr.utility_curve(s.pvalues, s.truth, [1.0], rng=rng).delta == fdr.Settings().delta

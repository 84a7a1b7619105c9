"""Calibration and sampling of the shared mechanisms (preview and OpenDP release paths)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpcore.core import mechanisms as M


def _delta_by_integration(sigma: float, epsilon: float, sens: float) -> float:
    """Independent check: δ(ε) = ∫ max(0, p(x) − e^ε q(x)) dx for N(0,σ²) vs N(Δ,σ²)."""
    p = stats.norm(0.0, sigma).pdf
    q = stats.norm(sens, sigma).pdf
    # p > e^ε q  ⇔  x < Δ/2 − εσ²/Δ
    cut = sens / 2 - epsilon * sigma**2 / sens
    val, _ = integrate.quad(lambda x: p(x) - math.exp(epsilon) * q(x), cut - 40 * sigma, cut, epsabs=1e-14, limit=200)
    return val


def test_analytic_gaussian_known_value_and_textbook_gap():
    sigma = M.analytic_gaussian_sigma(1.0, 1.0, 1e-5)
    textbook = math.sqrt(2 * math.log(1.25 / 1e-5))
    assert sigma == pytest.approx(3.73, abs=0.01)
    assert textbook == pytest.approx(4.84, abs=0.01)
    assert sigma < textbook


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8])
def test_analytic_gaussian_is_tight_on_the_privacy_curve(epsilon, delta):
    sigma = M.analytic_gaussian_sigma(1.0, epsilon, delta)
    achieved = M.gaussian_privacy_loss_delta(sigma, epsilon, 1.0)
    assert achieved <= delta
    assert delta - achieved <= 1e-9
    # a slightly smaller σ must violate the curve: σ is the smallest that works
    assert M.gaussian_privacy_loss_delta(sigma * (1 - 1e-6), epsilon, 1.0) > delta
    assert _delta_by_integration(sigma, epsilon, 1.0) == pytest.approx(achieved, rel=1e-5, abs=1e-12)


def test_textbook_gaussian_fails_above_epsilon_one_where_analytic_holds():
    epsilon, delta = 10.0, 1e-5
    textbook = math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    assert M.gaussian_privacy_loss_delta(textbook, epsilon, 1.0) > delta
    assert M.gaussian_privacy_loss_delta(M.analytic_gaussian_sigma(1.0, epsilon, delta), epsilon, 1.0) <= delta


def test_gaussian_sigma_scales_linearly_with_sensitivity():
    assert M.analytic_gaussian_sigma(3.0, 1.0, 1e-6) == pytest.approx(3 * M.analytic_gaussian_sigma(1.0, 1.0, 1e-6), rel=1e-9)


@pytest.mark.parametrize("scale", [0.5, 2.0, 10.0])
def test_preview_samplers_have_the_calibrated_variance(scale):
    rng = np.random.default_rng(1)
    n = 400_000
    lap = M.laplace(0.0, scale, rng=rng, draws=n)
    assert lap.var() == pytest.approx(2 * scale**2, rel=0.02)
    dl = M.discrete_laplace(np.int64(0), scale, rng=rng, draws=n)
    q = math.exp(-1 / scale)
    assert dl.dtype == np.int64
    assert dl.var() == pytest.approx(2 * q / (1 - q) ** 2, rel=0.02)
    assert np.mean(dl == 0) == pytest.approx((1 - q) / (1 + q), abs=0.005)
    gs = M.gaussian(0.0, scale, rng=rng, draws=n)
    assert gs.var() == pytest.approx(scale**2, rel=0.02)


def test_noise_std_matches_empirical():
    rng = np.random.default_rng(2)
    for noise in (M.laplace_noise(2, 1.0), M.discrete_laplace_noise(2, 0.5), M.gaussian_noise(1, 1, 1e-5)):
        value = np.zeros(3, dtype=np.int64 if noise.kind == "discrete_laplace" else float)
        draws = noise.sample(value, rng=rng, draws=100_000)
        assert draws.shape == (100_000, 3)
        assert draws.std() == pytest.approx(noise.std, rel=0.02)


def test_draws_leading_axis_and_independence():
    rng = np.random.default_rng(3)
    out = M.laplace(np.arange(6.0).reshape(2, 3), 1.0, rng=rng, draws=5)
    assert out.shape == (5, 2, 3)
    assert not np.allclose(out[0], out[1])
    assert M.laplace(np.zeros(4), 1.0, rng=rng).shape == (4,)


def test_release_path_uses_opendp_with_the_right_law():
    """OS-seeded draws, so the tolerances carry the false-alarm budget: each is ≥ 5.6 standard errors of its
    statistic (sample variance of a Laplace-like law: sd ≈ σ²·√(5/n); sample sd of a Gaussian: σ/√(2n)), a
    two-sided false alarm of ≤ 2·10⁻⁸ each. A wrong law (noise halved: variance ÷ 4) is still far outside."""
    noise = M.discrete_laplace_noise(1, 1.0)
    out = noise.release(np.zeros(20_000, dtype=np.int64))
    q = math.exp(-1.0)
    assert out.dtype == np.int64
    assert out.var() == pytest.approx(2 * q / (1 - q) ** 2, rel=0.09)  # sd 0.0158 relative
    lap = M.laplace_noise(1, 0.5).release(np.full(5_000, 3.0))
    assert lap.mean() == pytest.approx(3.0, abs=0.23)  # sd 0.04
    assert lap.var() == pytest.approx(8.0, rel=0.18)  # sd 0.0316 relative
    gauss = M.gaussian_noise(1, 1, 1e-5).release(np.zeros((40, 50)))
    assert gauss.shape == (40, 50)
    assert gauss.std() == pytest.approx(3.7306, rel=0.09)  # sd 0.0158 relative


def test_release_is_not_reproducible_and_refuses_floats_for_counts():
    noise = M.laplace_noise(1, 1.0)
    assert not np.array_equal(noise.release(np.zeros(10)), noise.release(np.zeros(10)))
    with pytest.raises(TypeError):
        M.discrete_laplace_noise(1, 1.0).release(np.zeros(3))
    with pytest.raises(TypeError):
        noise.sample(np.zeros(3), rng=42, draws=2)


def test_report_noisy_max_picks_clear_winner_and_randomises_at_small_epsilon():
    rng = np.random.default_rng(4)
    scores = np.array([0.0, 0.0, 100.0, 0.0])
    assert (M.report_noisy_max(scores, 1.0, 1.0, rng=rng, draws=1000) == 2).all()
    picks = M.report_noisy_max(np.zeros(4), 1.0, 1.0, rng=rng, draws=40_000)
    assert np.bincount(picks, minlength=4) / 40_000 == pytest.approx([0.25] * 4, abs=0.015)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_invalid_budgets_are_refused(bad):
    with pytest.raises(ValueError):
        M.laplace_noise(1, bad)
    with pytest.raises(ValueError):
        M.gaussian_noise(1, bad, 1e-5)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 20.0), st.floats(1e-12, 0.1))
def test_zcdp_conversion_round_trips(epsilon, delta):
    rho = M.approx_dp_to_zcdp(epsilon, delta)
    assert M.zcdp_to_approx_dp(rho, delta) == pytest.approx(epsilon, rel=1e-9)


def test_gaussian_zcdp_sigma():
    assert M.gaussian_zcdp_sigma(2.0, 0.5) == pytest.approx(2.0)


def test_planted_bug_halves_the_scale():
    noise = M.laplace_noise(2, 1.0)
    assert noise.with_scale_factor(0.5).scale == pytest.approx(1.0)
    assert "Laplace" in noise.describe() and "Δ1 = 2" in noise.describe()


def test_sample_sweep_draws_each_calibration_with_its_own_scale():
    rng = np.random.default_rng(7)
    for make, value in ((M.laplace_noise, 0.0), (M.discrete_laplace_noise, np.int64(0)),
                        (lambda s, e: M.gaussian_noise(s, e, 1e-5), 0.0)):
        noises = [make(1.0, e) for e in (0.5, 2.0)]
        out = M.sample_sweep(np.full(3, value), noises, rng=rng, draws=100_000)
        assert out.shape == (2, 100_000, 3)
        for i, noise in enumerate(noises):
            assert out[i].std() == pytest.approx(noise.std, rel=0.02)
    with pytest.raises(ValueError, match="one noise kind"):
        M.sample_sweep(np.zeros(2), [M.laplace_noise(1, 1), M.gaussian_noise(1, 1, 1e-5)], rng=rng, draws=5)

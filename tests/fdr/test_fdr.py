"""Tests of dpcore.fdr: hand-computed α_t, equivalences, calibration, FDR/power, audit, release, uploads."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcore import fdr
from dpcore.fdr import core as fdr_core
from dpcore.fdr import reference as ref
from dpcore.reporting.release import ReleaseBundle
from dpcore.reporting.release_figures import figures_for
from dpcore.core.validation import InputError

# A short stream and a short γ (γ_1, γ_2, γ_3 = 0.5, 0.3, 0.2; γ_j = 0 after) for hand computation.
P_SHORT = np.array([0.001, 0.7, 0.3, 0.01, 0.9])
G_SHORT = np.array([0.0, 0.5, 0.3, 0.2, 0.0])
ALPHA = 0.1
#: η for release tests: a stated value (the exact binomial η with a floor would leave these short streams no power)
SENS = fdr.stated_sensitivity(0.0831)


def _paprika_inf(p, *, rule, ai=False, cutoff=5, lam=0.2):
    return fdr.run_paprika(np.atleast_2d(p), alpha=ALPHA, epsilon=math.inf, delta=1e-3, eta=0.1, cutoff=cutoff,
                           lam=lam, gamma=G_SHORT, ai=ai, rule=rule, rng=np.random.default_rng(0))


# ---------------------------------------------------------------- hand-computed α_t sequences


def test_saffron_hand_computed():
    # w0 = 0.025, (1-λ)α = 0.05, λ = 0.5. t=1: w0γ1; t=2: w0γ1 (C0+=1) + 0.025γ1; t=3: w0γ2 + 0.025γ2;
    # t=4: w0γ2 + 0.025γ2 (C1+ = 1); t=5: w0γ2 + 0.025γ2 + 0.05γ1 (τ2 = 4).
    res = fdr.run_saffron(P_SHORT[None], alpha=ALPHA, lam=0.5, gamma=G_SHORT)
    np.testing.assert_allclose(res.alpha[0], [0.0125, 0.025, 0.015, 0.015, 0.04])
    assert res.rejections[0].tolist() == [True, False, False, True, False]
    assert res.candidates[0].tolist() == [True, False, True, True, False]


def test_lord_hand_computed():
    # w0 = 0.01: t=1: 0.01γ1; t=2: 0.01γ2 + 0.09γ1; t=3: 0.01γ3 + 0.09γ2; t=4: 0.09γ3; t=5: 0.1γ1 (τ2 = 4).
    res = fdr.run_lord(P_SHORT[None], alpha=ALPHA, gamma=G_SHORT)
    np.testing.assert_allclose(res.alpha[0], [0.005, 0.048, 0.029, 0.018, 0.05])
    assert res.rejections[0].tolist() == [True, False, False, True, False]


def test_paprika_paper_rule_hand_computed():
    # w0 = (1-2λ)α/2 = 0.03, (1-2λ)α = 0.06, γ indexed by t − τ_j: wealth decays at every step,
    # so p_4 = 0.01 is NOT rejected (α_4 = 0.03γ3 = 0.006) although SAFFRON rejects it.
    res = _paprika_inf(P_SHORT, rule="paper")
    np.testing.assert_allclose(res.alpha[0], [0.015, 0.024, 0.015, 0.006, 0.0])
    assert res.rejections[0].tolist() == [True, False, False, False, False]


def test_paprika_code_rule_hand_computed():
    # Candidate clock: t=2: w0γ1 + 0.03γ1; t=3,4: w0γ2 + 0.03γ2; t=5: w0γ2 + 0.03γ2 + 0.06γ1.
    res = _paprika_inf(P_SHORT, rule="code")
    np.testing.assert_allclose(res.alpha[0], [0.015, 0.03, 0.018, 0.018, 0.048])
    assert res.rejections[0].tolist() == [True, False, False, True, False]


def test_paprika_ai_paper_rule_hand_computed():
    # w0 = α/2; s = 0.025, 0.04, 0.025, 0.01, 0 and α_t = s/(1+2s).
    res = _paprika_inf(P_SHORT, rule="paper", ai=True)
    s = np.array([0.025, 0.04, 0.025, 0.01, 0.0])
    np.testing.assert_allclose(res.alpha[0], s / (1 + 2 * s))
    assert res.rejections[0].tolist() == [True, False, False, False, False]


def test_cutoff_stops_at_exactly_c():
    # The code rule rejects at t = 1 and t = 4; with c = 1 only the first survives and the threshold
    # then carries no second-rejection term (α_5 = w0γ2 + 0.03γ2 = 0.018).
    res = _paprika_inf(P_SHORT, rule="code", cutoff=1)
    assert res.rejections[0].tolist() == [True, False, False, False, False]
    assert res.alpha[0, -1] == pytest.approx(0.018)
    rng = np.random.default_rng(3)
    streams = fdr.simulate_bernoulli(50, 800, pi1=0.2, rng=rng)
    for c in (1, 5, 40):
        r = fdr.run_paprika(streams.pvalues, alpha=0.2, epsilon=10.0, delta=2.5e-4, eta=0.0831, cutoff=c,
                            rng=rng, ai=True)
        counts = r.rejections.sum(axis=1)
        assert counts.max() == c  # reached (π1 = 0.2 gives ~160 non-nulls) and never exceeded


# ---------------------------------------------------------------- equivalences


def test_paprika_code_rule_without_noise_equals_saffron_with_2lambda():
    """Exact equivalence: PAPRIKA(ε = ∞ ⇒ no noise and A = 0, code rule, λ, c ≥ T) rejects exactly when
    SAFFRON with λ' = 2λ does, with the same α_t, as long as PAPRIKA's cap λ never binds: both use
    w0 = (1 − λ')α/2, wealth (1 − λ')α, candidates p < λ' and the candidate clock."""
    rng = np.random.default_rng(11)
    streams = fdr.simulate_bernoulli(40, 800, pi1=0.05, rng=rng)
    lam = 0.2
    pap = fdr.run_paprika(streams.pvalues, alpha=0.05, epsilon=math.inf, delta=2.5e-4, eta=0.0831, cutoff=800,
                          lam=lam, rule="code", rng=rng)
    saf = fdr.run_saffron(streams.pvalues, alpha=0.05, lam=2 * lam)
    assert pap.alpha.max() < lam  # the caps (λ vs 2λ) never bind
    np.testing.assert_array_equal(pap.rejections, saf.rejections)
    np.testing.assert_allclose(pap.alpha, saf.alpha, rtol=1e-12)
    assert pap.rejections.sum() > 100


def test_paprika_without_noise_is_the_rule_p_below_alpha_t():
    """ε = ∞ (A = 0, no noise), paper rule: R_t = C_t · 1{p_t < α_t} with α_t from the time clock —
    checked against the independent per-stream loop fed zero noise."""
    rng = np.random.default_rng(12)
    p = fdr.simulate_bernoulli(5, 300, pi1=0.1, rng=rng).pvalues
    g = fdr.gamma_sequence("power", 300)
    res = fdr.run_paprika(p, alpha=0.05, epsilon=math.inf, delta=2.5e-4, eta=0.08, cutoff=300, gamma=g,
                          rng=rng)
    for r in range(5):
        rej, alphas = ref.paprika_loop(p[r], g, alpha=0.05, lam=0.2, cutoff=300, shift_a=0.0,
                                       z_alpha=[0.0] * 301, z_test=[0.0] * 300)
        assert res.rejections[r].tolist() == rej
        np.testing.assert_allclose(res.alpha[r], alphas, rtol=1e-12)
        expected = (p[r] < 0.4) & (p[r] < res.alpha[r])
        np.testing.assert_array_equal(res.rejections[r], expected)


@pytest.mark.parametrize("ai", [False, True])
@pytest.mark.parametrize("rule", ["paper", "code"])
def test_paprika_matches_per_stream_loop_with_same_noise(ai, rule):
    rng = np.random.default_rng(5)
    p = fdr.simulate_bernoulli(12, 400, pi1=0.1, rng=rng).pvalues
    eps, eta, c, delta = 3.0, 0.0831, 10, 2.5e-4
    noise = fdr.draw_paprika_noise(12, 400, epsilon=eps, eta=eta, cutoff=c, rng=rng)
    g = fdr.gamma_sequence("power", 400, exponent=1.4 if ai else 1.6)
    res = fdr.run_paprika(p, alpha=0.05, epsilon=eps, delta=delta, eta=eta, cutoff=c, gamma=g, ai=ai, rule=rule,
                          noise=noise)
    A = fdr.paprika_shift(eps, delta, eta, c, 400)
    for r in range(12):
        rej, alphas = ref.paprika_loop(p[r], g, alpha=0.05, lam=0.2, cutoff=c, shift_a=A, z_alpha=noise.z_alpha[r],
                                       z_test=noise.z_test[r], ai=ai, rule=rule)
        assert res.rejections[r].tolist() == rej
        np.testing.assert_allclose(res.alpha[r], alphas, rtol=1e-12)
    assert res.rejections.sum() > 30


_EDGE_P = st.one_of(st.sampled_from([0.0, 1.0, 0.2, 0.4, 0.5, 1e-300, 1e-12]), st.floats(0.0, 1.0))


@settings(max_examples=150, deadline=None)
@given(p=st.lists(_EDGE_P, min_size=1, max_size=40), cutoff=st.integers(1, 6), ai=st.booleans(),
       rule=st.sampled_from(["paper", "code"]), eps=st.sampled_from([0.5, 3.0, math.inf]), seed=st.integers(0, 2**16))
def test_paprika_matches_the_loop_on_edge_case_streams(p, cutoff, ai, rule, eps, seed):
    """Property: ties with λ, 2λ and 0.5, p = 0 and 1, one-step streams, cutoff 1 — the compiled core and
    the independent loop agree on every decision and every α_t, given the same noise."""
    x = np.array([p])
    T = x.shape[1]
    noise = fdr.draw_paprika_noise(1, T, epsilon=eps, eta=0.1, cutoff=cutoff, rng=np.random.default_rng(seed))
    g = fdr.gamma_sequence("power", T, exponent=1.4 if ai else 1.6)
    res = fdr.run_paprika(x, alpha=0.2, epsilon=eps, delta=1e-3, eta=0.1, cutoff=cutoff, gamma=g, ai=ai, rule=rule,
                          noise=noise)
    A = fdr.paprika_shift(eps, 1e-3, 0.1, cutoff, T)
    rej, alphas = ref.paprika_loop(p, g, alpha=0.2, lam=0.2, cutoff=cutoff, shift_a=A, z_alpha=noise.z_alpha[0],
                                   z_test=noise.z_test[0], ai=ai, rule=rule)
    assert res.rejections[0].tolist() == rej
    np.testing.assert_allclose(res.alpha[0], alphas, rtol=1e-12)


@settings(max_examples=150, deadline=None)
@given(p=st.lists(_EDGE_P, min_size=1, max_size=40))
def test_nonprivate_rules_match_the_loops_on_edge_case_streams(p):
    x = np.array([p])
    T = x.shape[1]
    g16, g14 = fdr.gamma_sequence("power", T), fdr.gamma_sequence("power", T, exponent=1.4)
    cases = [
        (fdr.run_saffron(x, alpha=0.5, lam=0.5), ref.saffron_loop(p, g16, alpha=0.5, lam=0.5)),
        (fdr.run_lord(x, alpha=0.5), ref.lord_loop(p, g16, alpha=0.5)),
        (fdr.run_saffron_ai(x, alpha=0.5), ref.saffron_ai_loop(p, g14, alpha=0.5)),
        (fdr.run_alpha_investing(x, alpha=0.5), ref.alpha_investing_loop(p, alpha=0.5)),
    ]
    for res, (rej, alphas) in cases:
        assert res.rejections[0].tolist() == rej, res.method
        np.testing.assert_allclose(res.alpha[0], alphas, rtol=1e-12, err_msg=res.method)


def test_nonprivate_rules_match_per_stream_loops():
    rng = np.random.default_rng(6)
    p = fdr.simulate_bernoulli(6, 500, pi1=0.08, rng=rng).pvalues
    g16, g14 = fdr.gamma_sequence("power", 500), fdr.gamma_sequence("power", 500, exponent=1.4)
    cases = [
        (fdr.run_saffron(p, alpha=0.05), lambda q: ref.saffron_loop(q, g16, alpha=0.05, lam=0.5)),
        (fdr.run_lord(p, alpha=0.05), lambda q: ref.lord_loop(q, g16, alpha=0.05)),
        (fdr.run_saffron_ai(p, alpha=0.05), lambda q: ref.saffron_ai_loop(q, g14, alpha=0.05)),
        (fdr.run_alpha_investing(p, alpha=0.05), lambda q: ref.alpha_investing_loop(q, alpha=0.05)),
    ]
    for res, loop in cases:
        for r in range(6):
            rej, alphas = loop(list(p[r]))
            assert res.rejections[r].tolist() == rej, res.method
            np.testing.assert_allclose(res.alpha[r], alphas, rtol=1e-10, err_msg=res.method)


# ---------------------------------------------------------------- calibration


@pytest.mark.parametrize("eps, z_alpha, z_test, shift", [(1, 6.65, 13.30, 26.23), (3, 2.22, 4.43, 8.74),
                                                        (5, 1.33, 2.66, 5.25), (10, 0.665, 1.33, 2.62)])
def test_shift_and_noise_scales_match_spec_table(eps, z_alpha, z_test, shift):
    eta = math.sqrt(math.log(1000) / 1000)
    a, t = fdr.paprika_noise_scales(eps, eta, 40)
    assert a == pytest.approx(z_alpha, abs=0.006)
    assert t == pytest.approx(z_test, abs=0.006)
    assert fdr.paprika_shift(eps, 2.5e-4, eta, 40, 800, 1.0) == pytest.approx(shift, abs=0.006)
    # A is linear in the shift scale s; ε = ∞ gives no shift and no noise
    assert fdr.paprika_shift(eps, 2.5e-4, eta, 40, 800, 4.0) == pytest.approx(4 * shift, abs=0.03)
    assert fdr.paprika_shift(math.inf, 2.5e-4, eta, 40, 800) == 0.0


def test_shift_uses_the_other_branch_of_the_min_for_tiny_epsilon_and_long_horizon():
    # 1 − ((1−δ)e^{−ε})^{1/k} < δ when ε/k is tiny: then the min picks it, and A grows.
    eta, c = 0.08, 10
    d = 1e-2
    other = -math.expm1((math.log1p(-d) - 0.01) / 10_000)
    assert other < d
    expected = eta * c * math.log(2 / (3 * other)) / 0.01
    assert fdr.paprika_shift(0.01, d, eta, c, 10_000) == pytest.approx(expected)


def test_preview_noise_has_the_calibrated_scales():
    rng = np.random.default_rng(0)
    noise = fdr.draw_paprika_noise(4000, 50, epsilon=2.0, eta=0.1, cutoff=5, rng=rng)
    # Laplace(b): mean |Z| = b
    assert np.abs(noise.z_alpha).mean() == pytest.approx(2 * 0.1 * 5 / 2.0, rel=0.02)
    assert np.abs(noise.z_test).mean() == pytest.approx(4 * 0.1 * 5 / 2.0, rel=0.02)
    half = fdr.draw_paprika_noise(4000, 50, epsilon=2.0, eta=0.1, cutoff=5, rng=rng, scale_factor=0.5)
    assert np.abs(half.z_test).mean() == pytest.approx(0.5, rel=0.02)


def test_release_noise_comes_from_opendp_with_the_same_scales():
    noise = fdr.draw_paprika_noise(1, 3000, epsilon=2.0, eta=0.1, cutoff=5, rng=None)
    assert np.abs(noise.z_test).mean() == pytest.approx(1.0, rel=0.08)
    assert noise.z_alpha.shape == (1, 6)


# ---------------------------------------------------------------- sensitivity of log p


@settings(max_examples=200, deadline=None)
@given(st.floats(-700, 0), st.floats(-1, 1), st.floats(1e-300, 1e-3))
def test_floored_log_p_keeps_the_multiplicative_sensitivity(logp, move, floor):
    """|log p − log p'| ≤ η ⇒ |log max(p, μ) − log max(p', μ)| ≤ η (flooring is 1-Lipschitz in log p)."""
    eta = 0.0831
    p = math.exp(logp)
    q = min(1.0, math.exp(logp + move * eta))
    lp, lq = fdr.log_pvalues(np.array([p, q]), floor)
    assert abs(lp - lq) <= eta + 1e-12


def test_exact_binomial_sensitivity_bounds_every_adversarial_neighbour():
    """Replacing one record moves Σx by ≤ 1; the exact η above the floor bounds every such move, while the
    paper's η = sqrt(ln n / n) is exceeded for small p-values (an assumption, not a bound)."""
    n = 200
    tail = stats.binom.sf(np.arange(n + 1) - 1, n, 0.5)  # P(S ≥ k), independent of dpcore's table
    for floor in (1e-300, 1e-6, 0.05):
        eta = fdr.eta_binomial_exact(n, floor)
        logs = np.log(np.maximum(tail, floor))
        for k in range(n):  # neighbours: S = k vs S = k + 1 (the extreme move of one record)
            assert abs(logs[k] - logs[k + 1]) <= eta + 1e-12
    assert fdr.eta_binomial_exact(n, 1e-6) > fdr.eta_paper(n)
    assert fdr.eta_binomial_exact(n, 1e-6) > fdr.eta_binomial_exact(n, 0.05)


# ---------------------------------------------------------------- simulators


def test_bernoulli_pvalues_are_exact_binomial_tails():
    rng = np.random.default_rng(1)
    s = fdr.simulate_bernoulli(2, 30, pi1=0.5, n=100, rng=rng)
    for p in s.pvalues.ravel()[:10]:
        # recover Σx from the tail table and compare with scipy's exact test
        k = int(np.argmin(np.abs(fdr._binomial_tail_table(100) - p)))
        assert p == pytest.approx(stats.binomtest(k, 100, 0.5, alternative="greater").pvalue, rel=1e-9)


def test_truncated_exponential_null_pvalues_are_uniform():
    rng = np.random.default_rng(2)
    s = fdr.simulate_truncexp(4, 500, pi1=0.0, n=1000, rng=rng)
    null = s.pvalues.ravel()
    assert stats.kstest(null, "uniform").pvalue > 0.01
    # the authors' standardisation (divide by n σ0²) would pile null p-values near 0.5
    assert np.mean(null < 0.05) == pytest.approx(0.05, abs=0.02)
    alt = fdr.simulate_truncexp(2, 200, pi1=1.0, theta=1.8, rng=rng).pvalues
    assert np.all(alt < 1e-10)


def test_truncated_exponential_sums_equal_the_per_draw_inversion_formula():
    """The simulator's product-of-factors shortcut gives Σ −ln(1 − U(1 − e^{−1})) on the same uniforms
    (n = 1200 spans three product groups; chunk forces several buffer refills)."""
    n, theta = 1200, 1.8
    s = fdr.simulate_truncexp(5, 30, pi1=0.5, n=n, theta=theta, rng=np.random.default_rng(8), chunk=2 * 30 * n)
    rng = np.random.default_rng(8)
    truth = rng.random((5, 30)) < 0.5
    sums = (-np.log1p(-rng.random((5, 30, n)) * -math.expm1(-1.0))).sum(axis=2)
    z = (np.where(truth, theta * sums, sums) - n * fdr.TRUNCEXP_MU0) / (math.sqrt(n) * fdr.TRUNCEXP_SIGMA0)
    np.testing.assert_array_equal(s.truth, truth)
    np.testing.assert_allclose(s.pvalues, stats.norm.sf(z), rtol=1e-9)


def test_fresh_data_per_run():
    s = fdr.simulate_bernoulli(3, 200, pi1=0.05, rng=np.random.default_rng(0))
    assert not np.array_equal(s.pvalues[0], s.pvalues[1])


# ---------------------------------------------------------------- FDR and power


@pytest.fixture(scope="module")
def bernoulli_by_pi1():
    rng = np.random.default_rng(2024)
    return {pi1: fdr.simulate_bernoulli(100, 800, pi1=pi1, rng=rng) for pi1 in (0.01, 0.02, 0.03, 0.04, 0.05)}


def test_fdr_of_every_method_is_below_the_bound(bernoulli_by_pi1):
    s = fdr.Settings(epsilon=5.0)
    table = fdr.sweep(bernoulli_by_pi1, fdr.METHODS, s, rng=np.random.default_rng(7))
    bound = s.alpha + s.delta * 800
    assert len(table) == 30
    assert (table.FDR <= bound + 2 * table.FDR_se).all(), table
    # the non-private rules control at α itself (within 2 SE)
    nonpriv = table[~table.method.isin(fdr.PRIVATE_METHODS)]
    assert (nonpriv.FDR <= s.alpha + 2 * nonpriv.FDR_se + 0.01).all(), nonpriv
    assert (table.power > 0.5).all()


def test_paprika_ai_power_close_to_saffron_at_eps_10(bernoulli_by_pi1):
    table = fdr.sweep(bernoulli_by_pi1, ["SAFFRON", "PAPRIKA AI"], fdr.Settings(epsilon=10.0),
                      rng=np.random.default_rng(8))
    wide = table.pivot(index="x", columns="method", values="power")
    assert ((wide["SAFFRON"] - wide["PAPRIKA AI"]).abs() <= 0.1).all(), wide


def test_metrics_by_hand():
    rej = np.array([[True, True, False, False], [False, False, False, False]])
    truth = np.array([[True, False, True, False], [True, False, False, False]])
    m = fdr.metrics(rej, truth)
    np.testing.assert_allclose(m.fdp, [0.5, 0.0])
    np.testing.assert_allclose(m.power, [0.5, 0.0])
    assert m.fdr == pytest.approx(0.25)
    assert m.fdr_se == pytest.approx(np.std([0.5, 0.0], ddof=1) / math.sqrt(2))
    assert fdr.mfdr(rej, truth) == pytest.approx(0.5)
    np.testing.assert_allclose(fdr.fdr_bound(0.05, 2.5e-4, [0, 800]), [0.05, 0.25])


def test_utility_curve_shapes_and_trend():
    rng = np.random.default_rng(9)
    s = fdr.simulate_bernoulli(40, 800, pi1=0.05, rng=rng)
    curve = fdr.utility_curve(s.pvalues, s.truth, [1.0, 3.0, 10.0], rng=rng)
    assert curve.fdp.shape == curve.power.shape == (3, 40)
    fdr_mean = curve.fdp.mean(axis=1)
    assert fdr_mean[0] > fdr_mean[2] + 0.1  # plain PAPRIKA: FDR falls from ≈0.28 at ε=1 to ≈0.03 at ε=10
    assert curve.power.mean(axis=1)[2] > curve.power.mean(axis=1)[0]


# ---------------------------------------------------------------- one-call API


def test_one_call_functions_shapes():
    rng = np.random.default_rng(4)
    s = fdr.simulate_bernoulli(3, 200, pi1=0.1, rng=rng)
    rej, a = fdr.paprika(s.pvalues[0], alpha=0.05, epsilon=5, delta=2.5e-4, eta=0.0831, cutoff=20, rng=rng)
    assert rej.shape == a.shape == (200,) and rej.dtype == bool
    rej2, a2 = fdr.paprika(s.pvalues, alpha=0.05, epsilon=5, delta=2.5e-4, eta=0.0831, cutoff=20, rng=rng)
    assert rej2.shape == (3, 200)
    out = fdr.saffron(s.pvalues[0], alpha=0.05)
    assert out.rejections.shape == (200,) and out.rejections.sum() > 0
    assert fdr.saffron(s.pvalues, alpha=0.05).alpha.shape == (3, 200)
    with pytest.raises(ValueError):
        fdr.saffron([0.5, 1.2], alpha=0.05)
    with pytest.raises(ValueError):
        fdr.paprika(np.full(900, 0.5), alpha=0.05, epsilon=1, delta=1e-3, eta=0.1, cutoff=5, horizon=800, rng=rng)


def test_p_zero_is_floored_not_an_error():
    rej, _ = fdr.paprika([0.0, 0.5, 0.0], alpha=0.05, epsilon=5, delta=2.5e-4, eta=0.0831, cutoff=2,
                         rng=np.random.default_rng(0))
    assert rej[0]


# ---------------------------------------------------------------- uploads


def test_upload_validation_names_column_and_row():
    frame = pd.DataFrame({"p": ["0.01", "0.5", "1.3"], "truth": ["1", "0", "0"]})
    with pytest.raises(InputError, match=r"'p', row 4.*above 1"):
        fdr.pvalues_from_frame(frame, "p", "truth")
    frame = pd.DataFrame({"p": ["0.01", "0", "0.3"], "truth": ["1", "2", "0"]})
    with pytest.raises(InputError, match=r"'truth', row 3"):
        fdr.pvalues_from_frame(frame, "p", "truth")
    with pytest.raises(InputError, match="more than one role"):
        fdr.pvalues_from_frame(frame, "p", "p")
    p, truth = fdr.pvalues_from_frame(pd.DataFrame({"p": ["0.01", "0", "0.3"]}), "p")
    assert p.tolist() == [0.01, 0.0, 0.3] and truth is None


# ---------------------------------------------------------------- release and audit


def test_release_bundle_contains_only_the_rejection_set():
    rng = np.random.default_rng(10)
    s = fdr.simulate_bernoulli(1, 300, pi1=0.1, rng=rng)
    bundle = fdr.release(s.pvalues[0], alpha=0.05, epsilon=5.0, delta=2.5e-4, sensitivity=SENS, cutoff=20,
                         dataset="sim", fingerprint="abc")
    assert isinstance(bundle, ReleaseBundle)
    table = bundle.tables["rejections"]
    assert list(table.columns) == ["hypothesis", "rejected", "alpha_t"]
    assert table.rejected.sum() <= 20 and table.rejected.sum() > 0
    assert "p" not in " ".join(table.columns).split()
    assert '"epsilon": 5.0' in bundle.to_json()
    (figure,) = figures_for(bundle).values()  # the report's figure plots released values only: α_t and the discoveries
    released = set(np.round(table.alpha_t, 12))
    assert all(set(np.round(trace.y, 12)) <= released for trace in figure.data)
    with pytest.raises(ValueError):
        fdr.release(s.pvalues[0], alpha=0.05, epsilon=math.inf, delta=2.5e-4, sensitivity=SENS, cutoff=20)
    with pytest.raises(ValueError):
        fdr.release(s.pvalues, alpha=0.05, epsilon=1.0, delta=2.5e-4, sensitivity=SENS, cutoff=20)
    # the shift is the one proven for the whole stream (horizon = stream length), not the paper's s
    params = bundle.metadata()["public_parameters"]
    assert params["shift_A"] == pytest.approx(fdr.stream_shift(5.0, 2.5e-4, SENS.eta, 20, 300))


def test_release_refuses_an_eta_not_proven_for_the_test():
    """The paper's η = √(ln n / n) is not a bound for the binomial test (one record moves log p by
    more than η once p < 0.23 at n = 1000), so it is preview-only; a bare number says nothing of its basis."""
    p = fdr.simulate_bernoulli(1, 200, pi1=0.1, rng=np.random.default_rng(3)).pvalues[0]
    kw = dict(alpha=0.05, epsilon=3.0, delta=2.5e-4, cutoff=10)
    with pytest.raises(ValueError, match="not a bound proven"):
        fdr.release(p, sensitivity=fdr.paper_sensitivity(1000), **kw)
    with pytest.raises(TypeError, match="Sensitivity"):
        fdr.release(p, sensitivity=0.0831, **kw)
    # the claim behind the refusal: at n = 1000 one record moves log p by more than the paper's η below p ≈ 0.23
    tail = fdr._binomial_tail_table(1000)
    step = np.abs(np.diff(np.log(tail)))
    assert step[tail[1:] < 0.23].min() > fdr.eta_paper(1000) > step[tail[1:] > 0.24].max()


@pytest.mark.parametrize("sensitivity, rests_on_user", [(fdr.binomial_sensitivity(1000, 1e-6), False),
                                                        (fdr.stated_sensitivity(0.2), True)])
def test_release_notes_state_the_neighbour_model_and_the_basis_of_eta(sensitivity, rests_on_user):
    p = fdr.simulate_bernoulli(1, 200, pi1=0.1, rng=np.random.default_rng(3)).pvalues[0]
    bundle = fdr.release(p, alpha=0.05, epsilon=3.0, delta=2.5e-4, sensitivity=sensitivity, cutoff=10)
    notes = " ".join(bundle.notes)
    assert "Every test in the stream runs on the same records" in notes
    assert "move every log p-value" in notes and f"η = {sensitivity.eta:.4g}" in notes
    assert ("rests on the user-stated η" in notes) is rests_on_user
    assert ("exact sensitivity of the one-sided binomial" in notes) is not rests_on_user
    assert "δ/k" in notes  # the shift covers every boundary hypothesis
    params = bundle.metadata()["public_parameters"]
    assert params["eta_source"] == sensitivity.source and params["p_value_floor"] == sensitivity.floor


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_audit_scenarios_pass_correct_and_catch_bugs(eps):
    scenarios = fdr.audit_scenarios(eps)
    assert len(scenarios) == 3
    for sc in scenarios:
        ok, _, _ = sc.run(200_000, planted_bug=False, seed=1)
        bug, _, _ = sc.run(200_000, planted_bug=True, seed=2)
        assert not ok.violation, (sc.name, ok.describe())
        assert bug.violation, (sc.name, bug.describe())


def test_audit_neighbours_respect_the_sensitivity():
    for eps in (0.5, 2.0):
        for p_a, p_b in (fdr.svt_pair(eps), fdr.candidacy_pair(eps), fdr.boundary_pair(fdr.BOUNDARY_K)):
            diff = np.abs(np.log(p_a) - np.log(p_b))
            assert diff.max() <= fdr.AUDIT_ETA + 1e-12
            assert (p_a <= 1).all() and (p_b <= 1).all()
    p_a, p_b = fdr.svt_pair(1.0)
    assert (p_a < 0.4 * math.exp(-fdr.AUDIT_ETA)).all() and (p_b < 0.4).all()  # no candidacy flips
    p_a, p_b = fdr.candidacy_pair(1.0)
    assert (p_a[:-1] < 0.4).all() and (p_b[:-1] > 0.4).all()  # every one of the first 20 flips


def test_run_all_in_one_call_equals_separate_runs():
    """Stacking the rules on the run axis changes nothing: same decisions as one rule at a time with the
    same noise (the private rules' noise is drawn from the same generator in the same order)."""
    p = fdr.simulate_bernoulli(30, 400, pi1=0.05, rng=np.random.default_rng(13)).pvalues
    s = fdr.Settings(epsilon=3.0)
    together = fdr.run_all(p, s, rng=np.random.default_rng(1))
    rng = np.random.default_rng(1)
    for name in fdr.METHODS:
        alone = fdr.run_method(name, p, s, rng=rng)
        np.testing.assert_array_equal(together[name].rejections, alone.rejections, err_msg=name)
        np.testing.assert_allclose(together[name].alpha, alone.alpha, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("rule", ["paper", "code"])
def test_compiled_kernels_equal_their_python_source(monkeypatch, rule):
    """The numba kernels make the same decisions as their own source run by Python, where an
    out-of-bounds read (e.g. past the Z_α table at the cutoff) raises instead of reading garbage."""
    p = fdr.simulate_bernoulli(8, 60, pi1=0.3, rng=np.random.default_rng(21)).pvalues
    p[:, ::9] = 0.0
    s = fdr.Settings(epsilon=2.0, cutoff=3, rule=rule)
    compiled = fdr.run_all(p, s, rng=np.random.default_rng(2))
    monkeypatch.setattr(fdr_core, "_gamma_kernel", fdr_core._gamma_kernel.py_func)  # the core calls them
    monkeypatch.setattr(fdr_core, "_alpha_investing_kernel", fdr_core._alpha_investing_kernel.py_func)
    interpreted = fdr.run_all(p, s, rng=np.random.default_rng(2))
    for name in fdr.METHODS:
        np.testing.assert_array_equal(compiled[name].rejections, interpreted[name].rejections, err_msg=name)
        np.testing.assert_array_equal(compiled[name].candidates, interpreted[name].candidates, err_msg=name)
        np.testing.assert_allclose(compiled[name].alpha, interpreted[name].alpha, rtol=1e-12, err_msg=name)
    assert compiled["PAPRIKA"].rejections.sum(axis=1).max() == 3  # the cutoff is reached


def test_kernels_compile_without_a_writable_cache(monkeypatch):
    """A read-only install (no writable cache location) compiles per process instead of failing at import."""
    from numba.core import caching

    monkeypatch.setattr(caching.CacheImpl, "_locator_classes", [])
    with pytest.raises(RuntimeError, match="no locator"):  # what numba does on its own
        numba.njit(cache=True)(fdr._alpha_investing_kernel.py_func)
    kernel = fdr._compiled(fdr._alpha_investing_kernel.py_func)
    p = np.array([[0.001, 0.5, 0.002]])
    rej, alphas = np.zeros((1, 3), dtype=bool), np.empty((1, 3))
    kernel(p, 0.025, 0.05, rej, alphas)
    np.testing.assert_array_equal(rej, fdr.run_alpha_investing(p, alpha=0.05).rejections)


def test_core_refuses_noise_tables_too_small_for_the_cutoff():
    """The compiled kernel does not check bounds, so the wrapper must: Z_α needs a column per rejection."""
    p = np.full((2, 10), 0.001)
    noise = fdr.draw_paprika_noise(2, 10, epsilon=1.0, eta=0.1, cutoff=5, rng=np.random.default_rng(0))
    short = fdr.PaprikaNoise(noise.z_alpha[:, :3], noise.z_test)
    with pytest.raises(ValueError, match="z_alpha"):
        fdr.run_paprika(p, alpha=0.05, epsilon=1.0, delta=1e-3, eta=0.1, cutoff=5, noise=short)
    with pytest.raises(ValueError, match="z_test"):
        fdr.run_paprika(p, alpha=0.05, epsilon=1.0, delta=1e-3, eta=0.1, cutoff=5,
                        noise=fdr.PaprikaNoise(noise.z_alpha, noise.z_test[:, :4]))


def test_shift_below_theorem_4_breaks_the_delta_guarantee_at_small_epsilon():
    """Finding (documented in docs/fdr.md): with the experiments' shift s = 1, a candidacy flip is not covered
    by δ at small ε. On the candidacy pair at ε = 0.25, B can never reject its first 20 hypotheses (they are
    not candidates), yet A rejects one of them with probability ≈ 1 % ≫ δ = 2.5e-4, so P_A(E) ≤ e^ε P_B(E) + δ
    fails. With Theorem 4's s = 4 the same event stays below δ."""
    from dpcore.core.audit import clopper_pearson_lower, clopper_pearson_upper

    eps, runs = 0.25, 100_000
    for shift, violates in ((1.0, True), (4.0, False)):
        p_a, _ = fdr.candidacy_pair(eps, shift=shift)
        p = np.ascontiguousarray(np.broadcast_to(p_a, (runs, p_a.size)))
        res = fdr.run_paprika(p, alpha=fdr.AUDIT_ALPHA, epsilon=eps, delta=fdr.AUDIT_DELTA, eta=fdr.AUDIT_ETA,
                              cutoff=1, shift=shift, rng=np.random.default_rng(21))
        hits = int(res.rejections[:, :-1].any(axis=1).sum())
        if violates:
            assert clopper_pearson_lower(hits, runs, 0.001) > fdr.AUDIT_DELTA
        else:
            assert clopper_pearson_upper(hits, runs, 0.001) < fdr.AUDIT_DELTA


def _boundary_sampler(pair, eps, *, ai=False, eta=fdr.AUDIT_ETA):
    """P_A(any rejection) runs on a many-boundary pair, c = 40: the released calibration, or (planted bug) the old
    Theorem 4 shift s = 4 that today's code used."""
    return fdr._audit_sampler(pair, epsilon=eps, shift=fdr.STREAM, summary="any", bug="calibration", cutoff=40,
                              ai=ai, eta=eta)


def _binomial_pair(k=800, n=1000):
    """Reachable from real data: every test has S = 505 successes of n = 1000 in A and 504 in B (one person's record
    is in every test). p = P(Bin(n, ½) ≥ S): 0.388 (a candidate, < 2λ) in A, 0.412 (not a candidate) in B."""
    tail = fdr._binomial_tail_table(n)
    return np.full(k, tail[505]), np.full(k, tail[504])


def _pair_bound(p_a, eps, eta, *, ai=False, c=40):
    """The stream_shift proof's union bound for this pair: Σ_t (2/3)·exp(−x_t/b), x_t = A + log p_t − log α_t
    (α_t: levels of a stream with no rejection, the only ones before the first), b = 4ηc/ε. An upper bound on
    P_A(any rejection)."""
    k = p_a.size
    levels = fdr.run_paprika(np.ones((1, k)), alpha=fdr.AUDIT_ALPHA, epsilon=math.inf, delta=fdr.AUDIT_DELTA, eta=eta,
                             cutoff=c, ai=ai, rng=np.random.default_rng(0)).alpha[0]
    x = fdr.stream_shift(eps, fdr.AUDIT_DELTA, eta, c, k) + np.log(p_a) - np.log(levels)
    return float(np.sum(2 / 3 * np.exp(-x / (4 * eta * c / eps))))


def test_stream_shift_keeps_delta_with_many_boundary_hypotheses():
    """The reviewer's pair: 800 p-values just below 2λ in A, each times e^η in B (so B never
    rejects); c = 40, α = 0.05, ε = 3. (ε, δ)-DP needs P_A(any rejection) ≤ δ = 2.5e-4. Today's code (Theorem 4's
    shift s = 4, δ per boundary event) gives ≈ 0.011 = 43δ; the shift proven for the stream gives ≈ 1e-5.

    No flake: the proof's own bound for this pair is p0 ≈ 0.063δ; the test fails only if the 99.9 % Clopper–Pearson
    upper bound reaches δ, i.e. with ≥ h* hits, whose probability under p0 is computed here (≈ 1e-6 < 1e-4)."""
    from dpcore.core.audit import clopper_pearson_lower, clopper_pearson_upper

    eps, runs, delta = 3.0, 100_000, fdr.AUDIT_DELTA
    p_a, p_b = fdr.boundary_pair(800)
    assert np.abs(np.log(p_b) - np.log(p_a)).max() <= fdr.AUDIT_ETA + 1e-12 and (p_a < 0.4).all() and (p_b >= 0.4).all()
    p0 = _pair_bound(p_a, eps, fdr.AUDIT_ETA)
    h_star = next(h for h in range(runs) if clopper_pearson_upper(h, runs, 1e-3) >= delta)
    assert p0 < 0.1 * delta and stats.binom.sf(h_star - 1, runs, p0) < 1e-4
    sampler = _boundary_sampler((p_a, p_b), eps)
    hits = int(sampler("A", False, np.random.default_rng(31), runs).sum())
    assert clopper_pearson_upper(hits, runs, 1e-3) < delta, hits
    old = int(sampler("A", True, np.random.default_rng(32), 5_000).sum())  # today's calibration
    assert clopper_pearson_lower(old, 5_000, 1e-4) > 10 * delta, old
    assert sampler("B", False, np.random.default_rng(33), 1_000).sum() == 0


@pytest.mark.parametrize("case", ["binomial data, PAPRIKA", "2α_t boundary, PAPRIKA AI"])
def test_stream_shift_is_not_refuted_where_its_bound_is_nearly_tight(case):
    """The reachable binomial pair (n = 1000, S_t = 505 in A, 504 in B, exact η above μ = 1e-6; today's code:
    P_A ≈ 0.13) and PAPRIKA AI's worst case (p_t just below 2α_t in A, today's code: ≈ 0.15). Here the proof's bound
    is 0.46δ and 0.98δ (measured ≈ 0.6δ and 0.8δ), too close to δ to show P_A < δ with modest runs, so the test asks
    that the data do not refute P_A ≤ δ at confidence 1 − 1e-4 (a false alarm has probability ≤ 1e-4 by
    Clopper–Pearson when P_A ≤ δ, which the proof gives) — and that they refute today's calibration."""
    from dpcore.core.audit import clopper_pearson_lower

    eps, runs, delta = 3.0, 40_000, fdr.AUDIT_DELTA
    if case.startswith("binomial"):
        ai, eta = False, fdr.binomial_sensitivity(1000, 1e-6).eta
        pair = _binomial_pair()
    else:
        ai, eta = True, fdr.AUDIT_ETA
        pair = fdr.boundary_pair(800, ai=True)
    p_a, p_b = pair
    assert np.abs(np.log(p_b) - np.log(p_a)).max() <= eta + 1e-12
    assert _pair_bound(p_a, eps, eta, ai=ai) <= delta
    sampler = _boundary_sampler(pair, eps, ai=ai, eta=eta)
    hits = int(sampler("A", False, np.random.default_rng(41), runs).sum())
    assert clopper_pearson_lower(hits, runs, 1e-4) <= delta, hits
    old = int(sampler("A", True, np.random.default_rng(42), 5_000).sum())
    assert clopper_pearson_lower(old, 5_000, 1e-4) > 10 * delta, old
    assert sampler("B", False, np.random.default_rng(43), 1_000).sum() == 0  # B has no candidate


def test_stream_shift_formula_and_infinite_epsilon():
    eta, c, k, d = fdr.AUDIT_ETA, 40, 800, 2.5e-4
    for eps in (1.0, 3.0, 10.0):
        b = 4 * eta * c / eps
        assert fdr.stream_shift(eps, d, eta, c, k) == pytest.approx(b * math.log(2 * k / (3 * d)) + eta - math.log(2))
        # one step of the union bound: (2/3)·exp(−(A + ln 2 − η)/b) = δ/k
        x = fdr.stream_shift(eps, d, eta, c, k) + math.log(2) - eta
        assert 2 / 3 * math.exp(-x / b) == pytest.approx(d / k)
        assert fdr.shift_value(eps, d, eta, c, k, fdr.STREAM) > fdr.shift_value(eps, d, eta, c, k, 4.0)
    assert fdr.stream_shift(math.inf, d, eta, c, k) == 0.0
    # so the ε = ∞ equivalences hold under the released calibration too
    p = fdr.simulate_bernoulli(5, 200, pi1=0.1, rng=np.random.default_rng(6)).pvalues
    kw = dict(alpha=0.05, epsilon=math.inf, delta=d, eta=eta, cutoff=300, rng=np.random.default_rng(0))
    for ai in (False, True):
        proven, paper = (fdr.run_paprika(p, shift=s, ai=ai, **kw) for s in (fdr.STREAM, 1.0))
        np.testing.assert_array_equal(proven.rejections, paper.rejections)
    with pytest.raises(ValueError):
        fdr.stream_shift(1.0, 0.0, eta, c, k)


def test_shift_cost_table():
    s = fdr.simulate_bernoulli(40, 400, pi1=0.05, rng=np.random.default_rng(8))
    table = fdr.shift_cost(s.pvalues, s.truth, fdr.Settings(epsilon=1.0), rng=np.random.default_rng(9))
    assert list(table["shift"].unique()) == [fdr.shift_label(x) for x in fdr.COMPARED_SHIFTS]
    assert set(table["method"]) == set(fdr.PRIVATE_METHODS)
    power = table.set_index(["shift", "method"])["power"]
    a = table.groupby("shift", sort=False)["A"].first().to_numpy()
    assert a[0] > a[1] > a[2]  # proven > Theorem 4 > paper's experiments
    assert power[(fdr.shift_label(fdr.STREAM), "PAPRIKA")] <= power[(fdr.shift_label(4.0), "PAPRIKA")]


def test_figure_builders():
    from dpcore.fdr import figures as ff

    rng = np.random.default_rng(14)
    s = fdr.simulate_bernoulli(30, 300, pi1=0.1, rng=rng)
    st_ = fdr.Settings(cutoff=10)
    one = fdr.run_method("PAPRIKA", s.pvalues[:1], st_, rng=rng, keep_threshold=True).squeeze()
    base = fdr.run_method("SAFFRON", s.pvalues[:1], st_).squeeze()
    fig = ff.stream_figure(one, s.pvalues[0], truth=s.truth[0], nonprivate=base, cutoff=10)
    names = [t.name or "" for t in fig.data]
    # only the hypotheses PAPRIKA tested are points (p < 2λ); the rest are a shaded region and a count
    groups = [t for t in fig.data if (t.name or "").endswith("tested")]  # one trace per colour: nulls, non-nulls
    tested = SimpleNamespace(x=np.concatenate([np.asarray(t.x) for t in groups]),
                             y=np.concatenate([np.asarray(t.y) for t in groups]))
    stop = int(np.argmax(np.cumsum(one.rejections) >= 10)) + 1  # the 10th rejection: PAPRIKA tests nothing after it
    assert stop < s.pvalues.shape[1] and one.candidates[stop:].any()  # candidates after the cutoff exist here
    assert len(tested.x) == one.candidates[:stop].sum() and max(tested.x) <= stop
    assert (np.exp(-np.asarray(tested.y)) < 2 * st_.lam_paprika + 1e-12).all()  # y is −ln p
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.range[0] < np.log10(-np.log(2 * st_.lam_paprika))
    # the discoveries (p-values far below the nulls') and the nulls share one readable axis: a decade above the
    # highest line, the rest drawn at the top edge as ▲
    rejected = next(t for t in fig.data if (t.name or "").startswith("true discoveries"))
    assert max(rejected.y) <= 10 ** fig.layout.yaxis.range[1] and min(tested.y) >= 10 ** fig.layout.yaxis.range[0]
    legend = fig.layout.annotations[0].text
    assert f"{(~one.candidates[:stop]).sum()} not candidates" in legend and "true discoveries" in legend
    assert f"{s.pvalues.shape[1] - stop} after the cutoff: not tested" in legend
    strip = [sh for sh in fig.layout.shapes if sh.type == "rect"]
    assert len(strip) == 1 and strip[0].x0 == stop + 0.5
    assert not fig.layout.showlegend and fig.layout.margin.autoexpand is False
    def boundary(fig) -> np.ndarray:
        """The upper edge of the shaded region (one polygon: the step-shaped upper edge, then the axis' lower edge
        back), one value per hypothesis, as a p-value."""
        y = np.asarray(next(t for t in fig.data if (t.name or "") == "not candidates").y)
        return np.exp(-y[:y.size // 2][::2])

    assert np.allclose(boundary(fig), 2 * st_.lam_paprika)
    ai = fdr.run_method("PAPRIKA AI", s.pvalues[:1], st_, rng=rng, keep_threshold=True).squeeze()
    edge = boundary(ff.stream_figure(ai, s.pvalues[0]))
    assert np.allclose(edge, np.minimum(2 * ai.alpha, edge.max()))  # p < 2α_t (clipped at the axis' ends)
    assert any(n.startswith("true discoveries") for n in names) and any(n.startswith("false discoveries") for n in names)
    assert one.rejections.sum() == 10  # cutoff reached: the threshold is blanked afterwards
    thr = next(t for t in fig.data if (t.name or "").startswith("private threshold")).y
    assert np.isnan(thr[-1]) and np.isfinite(thr[0])
    fig2 = ff.stream_figure(one, s.pvalues[0], truth=None, nonprivate=None)
    assert any((t.name or "").startswith("rejections") for t in fig2.data)
    table = fdr.sweep({0.1: s}, fdr.METHODS, st_, rng=rng)
    assert len(ff.sweep_figure(table, x_title="π1", alpha=0.05, bound=0.125).data) == 12
    shuffled = pd.concat([table[table["method"].str.startswith("PAPRIKA")], table[~table["method"].str.startswith("PAPRIKA")]])
    shuffled.loc[shuffled["method"] == "PAPRIKA", "method"] = "PAPRIKA (authors' code rule)"
    legend = [t.name for t in ff.sweep_figure(shuffled, x_title="ε", alpha=0.05).data if t.showlegend]
    assert legend == ["SAFFRON", "SAFFRON AI", "LORD++", "alpha-investing", "PAPRIKA (authors' code rule)", "PAPRIKA AI"]
    curve = fdr.utility_curve(s.pvalues, s.truth, [1.0, 5.0], settings=st_, rng=rng)
    assert len(ff.utility_figure([curve], 5.0, alpha=0.05, bound=0.125).data) == 4
    assert len(ff.summary_figure(fdr.summary_table(list(fdr.run_all(s.pvalues, st_, rng=rng).values()), s.truth),
                                 alpha=0.05, bound=0.125).data) == 2


def test_the_floor_behind_an_exact_eta_is_applied_in_previews_and_releases():
    """η from eta_binomial_exact(n, μ) bounds |log p − log p'| only above μ: p-values below μ must be raised
    to μ, or one person could move log p by far more than η (privacy review finding)."""
    mu = 1e-6
    eta = fdr.eta_binomial_exact(1000, mu)
    tiny, small = np.full((1, 30), 1e-300), np.full((1, 30), 1e-7)  # both below μ: must be indistinguishable
    noise = fdr.draw_paprika_noise(1, 30, epsilon=1.0, eta=eta, cutoff=5, rng=np.random.default_rng(0))
    runs = [fdr.run_paprika(p, alpha=0.05, epsilon=1.0, delta=1e-4, eta=eta, cutoff=5, shift=4.0, noise=noise,
                            floor=mu, keep_threshold=True) for p in (tiny, small)]
    np.testing.assert_array_equal(runs[0].noisy_logp, runs[1].noisy_logp)
    np.testing.assert_array_equal(runs[0].rejections, runs[1].rejections)
    s = fdr.Settings(eta=eta, floor=mu, epsilon=1.0)
    a, b = (fdr.run_all(p, s, rng=np.random.default_rng(3))["PAPRIKA"].rejections for p in (tiny, small))
    np.testing.assert_array_equal(a, b)
    bundle = fdr.release(small[0], alpha=0.05, epsilon=1.0, delta=1e-4, sensitivity=fdr.binomial_sensitivity(1000, mu),
                         cutoff=5)
    assert bundle.metadata()["public_parameters"]["p_value_floor"] == mu

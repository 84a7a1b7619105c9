"""The attacker's view on pairs built from data for FDR (PAPRIKA) and sparse (peeling + private fit, KT with private
support): the pairs are true neighbours, their Monte-Carlo ROC stays inside the (ε, δ)-DP region, and planted bugs leave it.

False alarms: every region check uses a simultaneous Clopper–Pearson band at confidence 1 − 1e-5, so a correct
mechanism is flagged with probability below 1e-5 < 1e-4 per check (union bound over all of the curve's points is
inside :func:`dpcore.reporting.attack.empirical_roc`); the seeds are fixed, so each test is also deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from dpcore.reporting import attack

from dpcore import fdr
from dpcore import sparse as sp

STRICT = 1 - 1e-5


def _roc(scenario, draws, *, seed, bug=False):
    return attack.empirical_roc(*attack.scenario_scores(scenario, draws, seed=seed, planted_bug=bug),
                                confidence=STRICT)


# ---- FDR ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("move", list(fdr.MOVES))
def test_the_bundled_bernoulli_pair_replaces_one_record(move):
    """Every count moves by exactly one (clipped at 0..n), so every floored p-value moves within e^{±η} for the exact
    binomial η above the floor, and at least one moves by (nearly) all of it."""
    n, floor = 1000, 1e-6
    p_a = fdr.page_stream("bernoulli", 1, n=n).pvalues
    signs = fdr.move_signs(p_a.size, move, target=3)
    p_b = fdr.neighbour_stream(p_a, signs, test="binomial", n=n)
    tail = fdr._binomial_tail_table(n)
    s_a, s_b = (np.searchsorted(-tail, -p) for p in (p_a, p_b))
    np.testing.assert_array_equal(tail[s_a], p_a)
    assert np.all(np.abs(s_b - s_a) <= 1) and np.all((s_b - s_a == signs) | np.isin(s_a, (0, n)))
    eta = fdr.eta_binomial_exact(n, floor)
    moved = np.abs(np.log(np.maximum(p_b, floor)) - np.log(np.maximum(p_a, floor)))
    assert moved.max() <= eta + 1e-12
    sc = fdr.data_scenario(p_a, 1.0, test="binomial", move=move, target=3, n=n)
    assert f"exact binomial η = {eta:.4g}" in sc.neighbours


def test_the_truncexp_pair_moves_every_sum_by_the_record_range():
    """One person replaced across the public range [0, θ] moves every hypothesis' Σx by θ (not 1: non-null
    records reach θ), and every floored p-value by at most the exact z-test η for that range."""
    n, theta = 1000, 1.8
    p_a = fdr.page_stream("truncexp", 1, n=n, theta=theta).pvalues
    p_b = fdr.neighbour_stream(p_a, fdr.move_signs(p_a.size, "away"), test="ztest", n=n, record_range=theta)
    sums = [-special.ndtri(p) * math.sqrt(n) * fdr.TRUNCEXP_SIGMA0 for p in (p_a, p_b)]  # Σx − nμ0
    finite = (p_a > 1e-12) & (p_b < 1)  # far in the tails p rounds to 0 or 1 and Σx cannot be read back
    assert finite.sum() > 700
    np.testing.assert_allclose(sums[0][finite] - sums[1][finite], theta, rtol=1e-5)
    floor = 1e-6
    eta = fdr.eta_normal_tail_exact(theta / (math.sqrt(n) * fdr.TRUNCEXP_SIGMA0), floor)
    moved = np.abs(np.log(np.maximum(p_b, floor)) - np.log(np.maximum(p_a, floor)))
    assert moved.max() <= eta + 1e-12
    assert eta > fdr.eta_normal_tail_exact(1 / (math.sqrt(n) * fdr.TRUNCEXP_SIGMA0), floor)
    # the bound is attained: a p-value at the floor moved toward 1 by the full range
    at_floor = fdr.neighbour_stream(np.array([floor]), np.array([-1]), test="ztest", n=n, record_range=theta)
    np.testing.assert_allclose(np.log(at_floor[0] / floor), eta, rtol=1e-9)
    sc = fdr.data_scenario(p_a, 1.0, test="ztest", move="toward", n=n, record_range=theta)
    assert f"exact z-test η = {eta:.4g}" in sc.neighbours and "[0, 1.8]" in sc.neighbours


def test_the_page_stream_is_the_fdr_pages_run():
    """The attacker's view and the FDR page read the same streams (the page calls fdr.page_streams)."""
    first = fdr.simulate_bernoulli(1, 800, rng=np.random.default_rng([0, 50_000, 17, 0])).pvalues[0]
    rest = fdr.simulate_bernoulli(99, 800, rng=np.random.default_rng([0, 50_000, 17, 1])).pvalues
    np.testing.assert_array_equal(fdr.page_stream("bernoulli", 1).pvalues, first)
    np.testing.assert_array_equal(fdr.page_stream("bernoulli", 7).pvalues, rest[5])
    page = fdr.page_streams("bernoulli", 100)
    np.testing.assert_array_equal(page.pvalues, np.vstack([first, rest]))
    np.testing.assert_array_equal(fdr.page_streams("truncexp", 3, 50, theta=1.8).pvalues[2],
                                  fdr.page_stream("truncexp", 3, 3, 50, theta=1.8).pvalues)


def _svt_upload():
    """An uploaded stream one person can turn into the SparseVector worst case (c = 1, the shift as released): B makes
    the last hypothesis more and the 19 others less rejectable — the registry's pair, built here from A alone."""
    _, p = fdr.svt_pair(1.0, shift=fdr.STREAM)
    return fdr.data_scenario(p, 1.0, test="stated", eta=fdr.AUDIT_ETA, move="worst", target=p.size - 1, cutoff=1,
                             floor=fdr.P_FLOOR)


def _boundary_upload():
    """100 uploaded p-values just below 2λ; the person makes every one larger, so none is a candidate in B."""
    p, _ = fdr.boundary_pair(100, cutoff=40)
    return fdr.data_scenario(p, 1.0, test="stated", eta=fdr.AUDIT_ETA, move="away", cutoff=40, floor=fdr.P_FLOOR,
                             bug="calibration")


@pytest.mark.parametrize("build", [_svt_upload, _boundary_upload])
def test_fdr_data_pairs_stay_inside_the_region_and_planted_bugs_leave_it(build):
    scenario = build()
    assert "the guarantee for these p-values rests on that statement" in scenario.neighbours
    assert not _roc(scenario, 200_000, seed=11).outside_region(1.0, scenario.delta)
    assert _roc(scenario, 200_000, seed=12, bug=True).outside_region(1.0, scenario.delta)


def test_a_bundled_bernoulli_stream_stays_inside_the_region_where_paprika_rejects():
    p = fdr.page_stream("bernoulli", 1).pvalues
    scenario = fdr.data_scenario(p, 10.0, test="binomial", move="toward", cutoff=1)
    assert "rejects hypothes" in scenario.reveal and "no hypothesis on A" not in scenario.reveal
    assert not _roc(scenario, 50_000, seed=3).outside_region(10.0, scenario.delta)


def test_the_fdr_view_says_which_discovery_flips_without_noise():
    view = attack.attack_view(_svt_upload(), draws=2_000)
    assert "the discovery of hypothesis 20 flips" in view.reveal
    assert view.delta == fdr.AUDIT_DELTA and "1 if hypothesis 20 is rejected" in view.test


# ---- sparse ---------------------------------------------------------------------------------------------------


def _synthetic_pair(epsilon: float):
    data = sp.make_synthetic(500, 50, 5, rng=np.random.default_rng(0))
    return sp.data_scenario(data.X, data.y, index=0, alt_y=-5.0, sparsity=5, epsilon=epsilon, delta=1e-5, B=5.0)


def _flip_pair():
    """The support-flip data (two features each carried by 499 records): replacing the first record's feature 1 by
    feature 2 tips the non-private teacher's support."""
    (XA, yA), (XB, _), _, p = sp._kt_audit_pair("flip", "noise")
    order = np.r_[len(yA) - 1, np.arange(len(yA) - 1)]
    return sp.data_scenario(XA[order], yA[order], index=0, alt_y=float(yA[-1]), alt_x=XB[-1], sparsity=1,
                            epsilon=1.0, delta=1e-2, K=p.K, r=p.r, B=p.B, lam=p.lam, m=p.m, T1=p.T1,
                            synthetic_seed=p.synthetic_seed)


@pytest.mark.parametrize("epsilon", [1.0, 5.0])
def test_sparse_data_pair_stays_inside_the_region(epsilon):
    scenario = _synthetic_pair(epsilon)
    assert "record 1 with y = -5 and the same features" in scenario.neighbours
    assert "the largest change is" in scenario.reveal
    assert not _roc(scenario, 200_000, seed=5).outside_region(epsilon, scenario.delta)


def test_sparse_support_taken_non_privately_leaves_the_region():
    scenario = _flip_pair()
    assert "x1, x2 enter or leave the support" in scenario.reveal
    assert not _roc(scenario, 200_000, seed=7).outside_region(1.0, scenario.delta)
    assert _roc(scenario, 200_000, seed=8, bug=True).outside_region(1.0, scenario.delta)


def test_sparse_pair_with_features_zeroed_and_a_logistic_label_flip():
    data = sp.make_synthetic(300, 20, 3, loss="logistic", rng=np.random.default_rng(1))
    scenario = sp.data_scenario(data.X, data.y, index=4, alt_y=-data.y[4], alt_x=np.zeros(20), sparsity=3,
                                epsilon=2.0, delta=1e-5, loss="logistic")
    assert "features set to 0" in scenario.neighbours and "(logistic)" in scenario.neighbours
    view = attack.attack_view(scenario, draws=5_000)
    assert 0.5 <= float(view.empirical.accuracy) <= view.bound


# ---- sparse, the default release (peeling + private fit) -------------------------------------------------------


@pytest.mark.parametrize("loss", ["linear", "logistic"])
def test_the_peeling_pair_from_data_is_the_audit_pair_when_built_from_the_same_records(loss):
    """Built from the audit's own bound pair (the changed record last), the data scenario draws exactly the audit's
    statistic: one sampler, two entry points."""
    from dpcore.sparse.peeling_audit import _pair

    kind = "bound" if loss == "linear" else "bound-logistic"
    (XA, yA), (_, yB), s, _, p = _pair(kind)
    audit = next(sc for sc in sp.peel_audit_scenarios(1.0, 1e-2, "noise") if sc.neighbours.startswith("n = 1000, d = 20")
                 and ("logistic" in sc.name) == (loss == "logistic"))
    data = sp.peel_data_scenario(XA, yA, index=len(yA) - 1, alt_y=float(yB[-1]), sparsity=s, epsilon=1.0, delta=1e-2,
                                 loss=loss, K=p.K, r=p.r, fit_T=p.fit_T)
    for which in "AB":
        for bug in (False, True):
            np.testing.assert_allclose(data.sampler(which, bug, np.random.default_rng(3), 400),
                                       audit.sampler(which, bug, np.random.default_rng(3), 400))
    assert "every noise scale halved" in data.planted_bug_label


@pytest.mark.parametrize("epsilon", [1.0, 5.0])
def test_the_peeling_pair_from_data_stays_inside_the_region_and_says_what_moves(epsilon):
    data = sp.make_synthetic(500, 50, 5, rng=np.random.default_rng(0))
    scenario = sp.peel_data_scenario(data.X, data.y, index=0, alt_y=-5.0, sparsity=5, epsilon=epsilon, delta=1e-5)
    assert "record 1 with y = -5 and the same features" in scenario.neighbours
    assert "Peeling + private fit as released (linear)" in scenario.neighbours
    assert "right 100 % of the time" in scenario.reveal
    assert not _roc(scenario, 200_000, seed=11).outside_region(epsilon, scenario.delta)


def test_the_peeling_pair_with_a_record_that_tips_the_support_names_the_features():
    """Two features carried by 499 records each and one record that decides between them: without noise the
    attacker reads the support; with the release's noise the ROC stays inside the region."""
    n = 999
    X = np.zeros((n, 2))
    X[:499, 0], X[499:998, 1], X[998] = 1.0, 1.0, (1.0, 0.0)
    y = np.ones(n)
    scenario = sp.peel_data_scenario(X, y, index=998, alt_y=1.0, alt_x=np.array([0.0, 1.0]), sparsity=1,
                                     epsilon=1.0, delta=1e-5, K=1.0, r=1.0, feature_names=["gene a", "gene b"])
    assert "gene a, gene b enter or leave it" in scenario.reveal
    assert not _roc(scenario, 200_000, seed=12).outside_region(1.0, scenario.delta)


def test_the_logistic_peeling_pair_from_data_keeps_the_attacker_under_the_bound():
    data = sp.make_synthetic(300, 20, 3, loss="logistic", rng=np.random.default_rng(1))
    scenario = sp.peel_data_scenario(data.X, data.y, index=4, alt_y=-data.y[4], alt_x=np.zeros(20), sparsity=3,
                                     epsilon=2.0, delta=1e-5, loss="logistic")
    assert "features set to 0" in scenario.neighbours and "noisy gradient steps" in scenario.neighbours
    view = attack.attack_view(scenario, draws=5_000)
    assert 0.5 <= float(view.empirical.accuracy) <= view.bound


def test_the_peeling_pair_without_an_intercept_follows_the_page():
    """Data that carry their own constant feature (GDSC's '(intercept)') are fitted without a second intercept, as on
    the sparse page; the view says so and the ROC stays inside the region."""
    data = sp.make_synthetic(400, 30, 3, rng=np.random.default_rng(3))
    X = np.column_stack([np.ones(400), data.X])
    names = ["(intercept)", *(f"g{j}" for j in range(30))]
    scenario = sp.peel_data_scenario(X, data.y, index=2, alt_y=-3.0, sparsity=3, epsilon=1.0, delta=1e-5,
                                     feature_names=names, intercept=False, B=3.0)
    assert "without an intercept" in scenario.neighbours and "; intercept" not in scenario.reveal
    assert not _roc(scenario, 200_000, seed=13).outside_region(1.0, scenario.delta)


def test_the_peeling_sampler_draws_in_bounded_blocks(monkeypatch):
    """Memory: releases are simulated in blocks of at most SCORE_CELLS noisy scores (draws × d). Blocks of 7 draws
    return every draw, and the mean statistic agrees with one block within 5 standard errors (a false alarm has
    probability below 1e-6; seeds fixed)."""
    from dpcore.sparse import peeling_audit

    data = sp.make_synthetic(300, 20, 3, rng=np.random.default_rng(4))
    scenario = sp.peel_data_scenario(data.X, data.y, index=0, alt_y=-3.0, sparsity=3, epsilon=2.0, delta=1e-5, B=3.0)
    whole = scenario.sampler("A", False, np.random.default_rng(1), 20_000)
    monkeypatch.setattr(peeling_audit, "SCORE_CELLS", 7 * 20)
    blocks = scenario.sampler("A", False, np.random.default_rng(2), 20_000)
    assert blocks.shape == (20_000,) and np.all(np.isfinite(blocks))
    se = math.sqrt(whole.var() / whole.size + blocks.var() / blocks.size)
    assert abs(whole.mean() - blocks.mean()) <= 5 * se

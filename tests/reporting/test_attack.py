"""The attacker's view (dpcore.reporting.attack): the accuracy bound, exact ROCs against closed forms, Monte-Carlo ROCs
inside the (ε, δ)-DP region and planted bugs outside it.

Region checks use a simultaneous band at confidence 1 − 1e-5 (false alarm < 1e-4 per test) and fixed seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.reporting import attack

from dpcore import registry
from dpcore import regression as R
from dpcore import survival as sv
from dpcore.reporting.attack_figures import bound_figure, nonprivate_figure, roc_figure
from dpcore.core.datasets import load_survival
from dpcore.core.mechanisms import discrete_laplace_noise, laplace_noise
from dpcore.core.pairs import Block, NeighbourPair

STRICT = 1 - 1e-5


def _pair(noise, a, b) -> NeighbourPair:
    return NeighbourPair("test", "pair", "A vs B", (Block(noise, np.asarray(a), np.asarray(b)),), "")


def _survival_pair(epsilon: float = 1.0) -> NeighbourPair:
    d = load_survival("gehan")
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)
    return sv.survival_pair(d.time, d.event, grid, epsilon=epsilon, index=0, alt_time=0.95 * d.horizon,
                            alt_event=0, n_types=len(d.event_labels))


def _regression_pair(epsilon: float = 1.0) -> NeighbourPair:
    rng = np.random.default_rng(3)
    X, y = rng.uniform(-0.5, 0.5, (40, 2)), rng.uniform(-1, 1, 40)
    X[0], y[0] = (0.5, 0.5), 1.0
    return R.regression_pair(X, y, epsilon=epsilon, index=0, alt_x=(0.5, 0.5), alt_y=-1.0, bx=0.5, by=1.0)


# ---- the bound and the region -------------------------------------------------------------------------------


def test_max_accuracy_is_the_best_point_of_the_region():
    assert float(attack.max_accuracy(1.0)) == pytest.approx(math.e / (1 + math.e))
    eps = np.array([0.05, 0.3, 1.0, 3.0, 10.0])
    for delta in (0.0, 1e-3, 0.05):
        fpr = np.linspace(0, 1, 200_001)
        best = ((1 + attack.tpr_bound(fpr[None, :], eps[:, None], delta) - fpr) / 2).max(axis=1)
        closed = (np.exp(eps) + delta) / (1 + np.exp(eps))
        np.testing.assert_allclose(attack.max_accuracy(eps, delta), closed, rtol=1e-12)
        np.testing.assert_allclose(best, closed, atol=1e-5)  # tight: some allowed test reaches it


def test_region_contains_the_coin_flip_and_is_mirror_symmetric():
    fpr = np.linspace(0, 1, 101)
    hi, lo = attack.tpr_bound(fpr, 0.7, 1e-3), attack.tpr_floor(fpr, 0.7, 1e-3)
    assert np.all(lo <= fpr + 1e-15) and np.all(fpr <= hi + 1e-15)
    np.testing.assert_allclose(lo, 1 - hi[::-1])


def test_headline_in_words():
    assert attack.bound_sentence(1.0) == ("At ε = 1 an attacker who knows everyone else guesses right at most 73 % of "
                                          "the time, against 50 % by coin flip and 100 % without privacy.")
    assert "δ = 1e-05" in attack.bound_sentence(2.0, 1e-5)
    assert attack.percent(0.9999) == "more than 99.9 %" and attack.percent(0.995) == "99.5 %"
    assert attack.bound_sentence(10.0).startswith("At ε = 10 an attacker who knows everyone else may guess right "
                                                  "more than 99.9 % of the time (this ε barely limits them)")


# ---- exact ROCs ---------------------------------------------------------------------------------------------


def _vertices_roc(p_a: np.ndarray, p_b: np.ndarray, fpr: np.ndarray) -> np.ndarray:
    """Neyman–Pearson ROC from outcome probabilities, by sorting outcomes by likelihood ratio."""
    order = np.argsort(-(np.log(p_a) - np.log(p_b)), kind="stable")
    x, y = np.r_[0, np.cumsum(p_b[order])], np.r_[0, np.cumsum(p_a[order])]
    return np.interp(fpr, x / x[-1], y / y[-1])


@pytest.mark.parametrize("m", [1, 2, 4])
def test_exact_roc_of_laplace_counts_matches_the_binomial_closed_form(m):
    """m counts each moved by one under discrete Laplace(b): the count of coordinates on A's side is the
    likelihood ratio's sufficient statistic, Binomial(m, 1/(1+q)) under A and Binomial(m, q/(1+q)) under B."""
    eps = np.array([0.1, 0.5, 1.0, 2.0, 5.0])
    a, b = np.zeros(m + 3, dtype=np.int64), np.zeros(m + 3, dtype=np.int64)
    a[:m] = 1
    pair = _pair(discrete_laplace_noise(m, 1.0), a, b)
    fpr = np.linspace(0, 1, 501)
    roc = attack.exact_roc(pair, eps, fpr)
    k = np.arange(m + 1)
    for row, e in zip(roc.tpr, eps):
        q = math.exp(-e / m)
        closed = _vertices_roc(stats.binom.pmf(k, m, 1 / (1 + q)), stats.binom.pmf(k, m, q / (1 + q)), fpr)
        np.testing.assert_allclose(row, closed, atol=1e-12)


def test_exact_roc_with_larger_integer_shifts_matches_enumeration():
    noise = discrete_laplace_noise(4, 1.5)
    pair = _pair(noise, [10, 3, 7], [7, 3, 8])  # shifts 3 and 1
    fpr = np.linspace(0, 1, 301)
    exact = attack.exact_roc(pair, [1.5], fpr).tpr[0]
    y1, y2 = np.meshgrid(np.arange(-80, 100), np.arange(-90, 100), indexing="ij")
    q = math.exp(-1 / noise.scale)

    def pmf(centre):
        return ((1 - q) / (1 + q)) ** 2 * q ** (np.abs(y1 - centre[0]) + np.abs(y2 - centre[1]))

    np.testing.assert_allclose(exact, _vertices_roc(pmf((10, 7)).ravel(), pmf((7, 8)).ravel(), fpr), atol=1e-9)


def test_exact_roc_of_one_laplace_coordinate_matches_thresholds():
    noise = laplace_noise(2.0, 1.0)
    pair = _pair(noise, [1.3, 0.0], [0.0, 0.0])
    c = np.linspace(-8, 10, 400)
    fpr = stats.laplace.sf(c, 0.0, noise.scale)
    tpr = stats.laplace.sf(c, 1.3, noise.scale)
    roc = attack.exact_roc(pair, [1.0], fpr)
    np.testing.assert_allclose(roc.tpr[0], tpr, atol=1e-12)


def test_sensitivity_one_counts_reach_the_region_boundary():
    """Randomised response is optimal: one count moved by its full sensitivity traces tpr_bound exactly."""
    pair = _pair(discrete_laplace_noise(1, 1.0), [5], [4])
    eps = np.array([0.2, 1.0, 3.0])
    fpr = np.linspace(0, 1, 201)
    roc = attack.exact_roc(pair, eps, fpr)
    np.testing.assert_allclose(roc.tpr, attack.tpr_bound(fpr[None, :], eps[:, None]), atol=1e-12)


def test_exact_survival_rocs_stay_inside_the_region_over_an_epsilon_grid():
    eps = np.array([0.05, 0.1, 0.3, 1.0, 3.0, 10.0, 20.0])
    roc = attack.exact_roc(_survival_pair(), eps)
    assert np.all(roc.tpr <= attack.tpr_bound(roc.fpr, eps[:, None]) + 1e-12)
    assert np.all(np.diff(roc.accuracy) > 0)  # more ε, more for the attacker
    assert attack.exact_roc(_regression_pair(), [1.0]) is None  # several continuous coordinates: Monte-Carlo


# ---- Monte-Carlo ROCs inside the region; planted bugs outside -----------------------------------------------


def _registry(method: str, name_start: str):
    return next(s for s in registry.audit_scenarios(method, 1.0) if s.name.startswith(name_start))


@pytest.mark.parametrize("source", ["survival data", "regression data", "survival registry", "regression nxy"])
def test_empirical_roc_inside_the_region_and_a_planted_bug_outside(source):
    draws = 200_000
    if source.endswith("data"):
        pair = _survival_pair() if source.startswith("survival") else _regression_pair()
        good = attack.pair_scores(pair, draws, seed=11)
        bad = attack.pair_scores(pair.with_scale_factor(0.5), draws, seed=12)
    else:
        scenario = _registry(*(("survival", "record moved") if source.startswith("survival") else ("regression", "nxy")))
        good = attack.scenario_scores(scenario, draws, seed=11)
        bad = attack.scenario_scores(scenario, draws, seed=12, planted_bug=True)
    assert not attack.empirical_roc(*good, confidence=STRICT).outside_region(1.0)
    assert attack.empirical_roc(*bad, confidence=STRICT).outside_region(1.0)


@pytest.mark.parametrize("method", list(registry.METHODS))
def test_every_registry_pair_stays_inside_its_region(method):
    for scenario in registry.audit_scenarios(method, 1.0):
        a, b = attack.scenario_scores(scenario, 20_000, seed=5)
        roc = attack.empirical_roc(a, b, confidence=STRICT)
        assert not roc.outside_region(1.0, scenario.delta), scenario.name


def test_band_covers_the_exact_roc():
    pair = _survival_pair()
    exact = attack.exact_roc(pair, [1.0])
    roc = attack.empirical_roc(*attack.pair_scores(pair, 50_000, seed=2), confidence=0.999)
    (f_lo, f_hi), (t_lo, t_hi) = roc.fpr_band, roc.tpr_band
    at = lambda f: np.interp(f, exact.fpr[0], exact.tpr[0])  # the exact curve is increasing
    assert np.all(at(f_lo) <= t_hi + 1e-12) and np.all(at(f_hi) >= t_lo - 1e-12)
    assert abs(float(roc.accuracy) - float(exact.accuracy[0])) < 0.01


# ---- the attack without privacy, and the view -----------------------------------------------------------------


def test_survival_differencing_attack_reads_the_patient_off_the_counts():
    pair = _survival_pair()
    d = load_survival("gehan")
    assert f"{d.time.size - 1} patients they know" in pair.reveal and "was censored in" in pair.reveal
    assert not np.array_equal(pair.curves["A"], pair.curves["B"])
    assert len(pair.curves["x"]) == len(pair.curves["A"])


def test_regression_recovers_the_record_from_the_statistics():
    reveal = _regression_pair().reveal  # B is (0.5, 0.5, −1): the same record as (−0.5, −0.5, 1) up to sign
    assert "under A they recover ±(x = (0.5, 0.5), y = 1), under B ±(x = (-0.5, -0.5), y = 1) " in reveal


def test_view_and_figures():
    view = attack.attack_view(_survival_pair(), draws=5_000)
    assert view.exact is not None and view.headline().startswith("At ε = 1 an attacker")
    assert "exactly" in view.observed() and "73 %" in view.observed()
    assert "illustration" in view.subject and view.headline() in view.describe()
    names = {t.name for t in roc_figure(view).data}
    assert {"optimal attacker, exact", "coin flip", "without privacy"} <= names
    assert any(n.startswith("allowed by (ε = 1)") for n in names if n)
    fig = bound_figure(2.0, 1e-5)
    marker = fig.data[-1]
    assert marker.x[0] == 2.0 and marker.y[0] == pytest.approx(100 * float(attack.max_accuracy(2.0, 1e-5)))
    assert [t.name for t in nonprivate_figure(view.curves).data][-1] == "A − B: the last record"
    registry_view = attack.attack_view(_registry("fdr", "SparseVector"), draws=2_000, delta=0.0)
    assert registry_view.delta > 0 and registry_view.exact is None  # the mechanism's δ is kept


def test_a_registry_view_goes_into_the_report_labelled_as_an_illustration():
    from dpcore.reporting.report import html_report

    view = attack.attack_view(_registry("survival", "record moved"), draws=2_000)
    html = html_report([], audits=[view])
    assert "an illustration on a neighbouring pair" in html and "guesses right at most 73 %" in html


def test_fdr_views_say_which_discovery_flips_without_noise():
    """The attack without privacy on the FDR pairs is computed (the rule without noise on A and on B), not assumed."""
    svt, _, boundary = registry.audit_scenarios("fdr", 3.0)
    assert "rejects hypothesis 20 on A and hypothesis 1 on B" in svt.reveal and "hypothesis 1 flips" in svt.reveal
    assert "no hypothesis on A and no hypothesis on B" in boundary.reveal  # only the noise (δ) can separate them
    view = attack.attack_view(svt, draws=2_000, seed=0)
    assert view.reveal == svt.reveal

"""The black-box audit passes calibrated mechanisms and catches a planted bug."""

import numpy as np
import pytest
from scipy import stats

from dpcore.core import audit, mechanisms as M

N_RUNS = 400_000


def _neighbours(noise):
    if noise.kind == "discrete_laplace":
        a, b = np.int64(0), np.int64(int(noise.sensitivity))
    else:
        a, b = 0.0, float(noise.sensitivity)
    return (lambda rng, m: noise.sample(a, rng=rng, draws=m)), (lambda rng, m: noise.sample(b, rng=rng, draws=m))


MECHANISMS = {
    "laplace": lambda eps: M.laplace_noise(1.0, eps),
    "discrete_laplace": lambda eps: M.discrete_laplace_noise(2, eps),
    "gaussian": lambda eps: M.gaussian_noise(1.0, eps, 1e-5),
}


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("kind", list(MECHANISMS))
def test_calibrated_mechanism_passes_and_halved_noise_is_caught(kind, epsilon):
    noise = MECHANISMS[kind](epsilon)
    good, _, _ = audit.run_audit(*_neighbours(noise), n_runs=N_RUNS, claimed_epsilon=epsilon,
                                 delta=noise.delta, seed=11)
    assert not good.violation, good.describe()
    assert good.epsilon_lower > 0.3 * epsilon  # the audit is informative, not vacuous
    bad, _, _ = audit.run_audit(*_neighbours(noise.with_scale_factor(0.5)), n_runs=N_RUNS,
                                claimed_epsilon=epsilon, delta=noise.delta, seed=11)
    assert bad.violation, bad.describe()


def test_clopper_pearson_matches_scipy_exact_interval():
    n, alpha = 1000, 0.01
    for k in (0, 1, 37, 500, 999, 1000):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 2 * alpha, method="exact")
        assert audit.clopper_pearson_lower(k, n, alpha) == pytest.approx(ci.low, abs=1e-12)
        assert audit.clopper_pearson_upper(k, n, alpha) == pytest.approx(ci.high, abs=1e-12)


def test_identical_distributions_give_no_evidence():
    rng = np.random.default_rng(0)
    result = audit.empirical_epsilon(rng.normal(size=50_000), rng.normal(size=50_000), claimed_epsilon=0.01)
    assert result.epsilon_lower < 0.05
    assert not result.violation


def test_result_names_the_event_and_direction():
    rng = np.random.default_rng(5)
    result = audit.empirical_epsilon(rng.laplace(0, 0.5, 100_000), rng.laplace(1, 0.5, 100_000), claimed_epsilon=1.0)
    assert result.violation
    assert "likelier under" in result.event
    assert result.p_first_lower > result.p_second_upper


def test_audit_needs_matching_sample_sizes():
    with pytest.raises(ValueError):
        audit.empirical_epsilon(np.zeros(500), np.zeros(400), claimed_epsilon=1)


def test_scenario_runs_with_progress():
    noise = M.laplace_noise(1.0, 1.0)
    scenario = audit.AuditScenario(
        method="test", name="scalar count", neighbours="0 vs 1", summary="the value", claimed_epsilon=1.0, delta=0.0,
        sampler=lambda which, bug, rng, m: (noise.with_scale_factor(0.5) if bug else noise).sample(
            0.0 if which == "A" else 1.0, rng=rng, draws=m),
    )
    seen = []
    result, a, b = scenario.run(120_000, progress=seen.append)
    assert len(seen) == 1 + 10 and seen == sorted(seen) and seen[-1] == pytest.approx(1.0)  # 1 pilot, 10 estimation chunks
    assert a.shape == b.shape == (12_000,)  # the pilot summaries (10 % of the runs), for the figure
    assert result.n_runs == 120_000
    assert not result.violation
    assert scenario.run(120_000, planted_bug=True)[0].violation


def test_the_runs_limit_what_an_audit_can_show_and_the_result_says_so():
    """Perfectly separated outputs give about the largest bound N runs allow (a little more when few distinct
    values mean fewer events in the union bound); a claim near it is flagged as untestable instead of passing
    silently (an ε = 10 claim at 100k runs can never be refuted)."""
    from dpcore.core.audit import empirical_epsilon, max_detectable_epsilon

    n = 20_000
    separated = empirical_epsilon(np.zeros(n), np.ones(n), claimed_epsilon=1.0)
    assert max_detectable_epsilon(n) <= separated.epsilon_lower <= max_detectable_epsilon(n) + 0.5
    assert 7.0 < max_detectable_epsilon(100_000) < 9.5 < max_detectable_epsilon(1_000_000)
    untestable = empirical_epsilon(np.zeros(n), np.ones(n), claimed_epsilon=10.0)
    assert not untestable.violation and "can hardly be tested" in untestable.describe()
    testable = empirical_epsilon(np.zeros(n), np.arange(n) % 2, claimed_epsilon=1.0)
    assert "can hardly be tested" not in testable.describe()


def test_counts_from_chunks_add_up_to_the_counts_of_the_whole_sample():
    rng = np.random.default_rng(2)
    values = np.concatenate([rng.integers(0, 5, 1_000).astype(float), [np.nan]])
    thresholds = np.array([-1.0, 0.0, 2.5, 4.0])
    whole = audit.count_above(values, thresholds)
    assert list(whole) == [(values > t).sum() for t in thresholds]  # NaN is above no threshold, as with ">"
    assert list(whole) == list(audit.count_above(values[:300], thresholds) + audit.count_above(values[300:], thresholds))

"""Every registered method's worst-case scenarios: the true mechanism passes, the planted bug is caught."""

import pytest

from dpcore import registry

EPSILON = 1.0
RUNS = 200_000


def _scenarios():
    for key in registry.METHODS:
        for scenario in registry.audit_scenarios(key, EPSILON):
            yield pytest.param(scenario, id=f"{key}:{scenario.name}")


@pytest.mark.parametrize("scenario", list(_scenarios()))
def test_scenario_passes_and_planted_bug_is_caught(scenario):
    assert scenario.claimed_epsilon == pytest.approx(EPSILON)
    good, _, _ = scenario.run(RUNS, seed=3)
    assert not good.violation, good.describe()
    bad, _, _ = scenario.run(RUNS, planted_bug=True, seed=3)
    assert bad.violation, f"planted bug ({scenario.planted_bug_label}) not caught: {bad.describe()}"


def test_every_method_has_scenarios():
    for key in registry.METHODS:
        assert registry.audit_scenarios(key, EPSILON), key

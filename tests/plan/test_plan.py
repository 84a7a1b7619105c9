"""The plan-first path's library: declared facts are checked, the proxy follows them, the file is read and checked
only by ``read_private``, and a locked plan releases exactly its settings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dpcore import plan as pl
from dpcore.core.validation import InputError

FACTS = pl.SurvivalFacts("time", "event", 300, "months", 36.0, (12.0, 24.0), 0.3, "arm", ("A", "B"), "id")


def _csv(rows: list[tuple]) -> bytes:
    return ("id,time,event,arm\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n").encode()


def _cohort_rows(n: int = 120) -> list[tuple]:
    return [(f"P{i:03d}", 1 + (7 * i) % 40, i % 3 != 0 and 1 or 0, "AB"[i % 2]) for i in range(n)]


@pytest.mark.parametrize("change, words", [
    (dict(time_column=" "), "time column"),
    (dict(event_column="time"), "both 'time'"),
    (dict(person_column="arm"), "both 'arm'"),
    (dict(time_unit="fortnights"), "time unit"),
    (dict(n_max=1), "between 2"),
    (dict(horizon=0.0), "horizon"),
    (dict(horizon=float("nan")), "horizon"),
    (dict(censored=0.99), "share censored"),
    (dict(group_labels=("A",), medians=(12.0,)), "at least two distinct group labels"),
    (dict(group_labels=("A", "A")), "at least two distinct group labels"),
    (dict(medians=(12.0,)), "one expected median per group (2)"),
    (dict(medians=(12.0, -1.0)), "positive"),
    (dict(group_column=""), "without a group column"),
])
def test_facts_refuse_what_cannot_be_used_naming_the_field(change, words):
    with pytest.raises(InputError) as err:
        replace(FACTS, **change)
    assert words in str(err.value), str(err.value)


def test_facts_without_groups_pool_everyone():
    facts = pl.SurvivalFacts("t", "e", 50, "days", 365.0, (200.0,))
    assert facts.groups == ("all",)
    assert pl.simulate_proxy(facts).group is None


def test_proxy_follows_the_declared_medians_censoring_and_seed():
    facts = replace(FACTS, n_max=40_000, censored=0.0, horizon=500.0)
    proxy = pl.simulate_proxy(facts)
    assert proxy.time.size == 40_000 and proxy.groups == ("A", "B") and np.all(proxy.event == 1)
    for label, median in zip(facts.group_labels, facts.medians):
        times = proxy.time[proxy.group == label]
        assert times.size == 20_000  # equal shares per declared group
        assert abs(np.median(times) - median) < 0.05 * median  # ~6 standard errors of a sample median
    censored = pl.simulate_proxy(replace(facts, censored=0.3))
    assert abs(np.mean(censored.event == 0) - 0.3) < 0.02  # 0.3 ± ~9 standard errors
    again = pl.simulate_proxy(facts)
    assert np.array_equal(again.time, proxy.time)  # a public seed: the same proxy every time
    assert not np.array_equal(pl.simulate_proxy(replace(facts, seed=1)).time, proxy.time)


def test_read_private_checks_the_file_against_the_declared_facts():
    cohort = pl.read_private(_csv(_cohort_rows()), "trial.csv", FACTS)
    assert cohort.data.time.size == 120 and cohort.data.groups == ("A", "B")
    assert cohort.persons.source == "column 'id'" and cohort.label == "trial.csv (uploaded, plan first)"
    with pytest.raises(InputError, match="Column 'arm' was declared but is not in trial.csv"):
        pl.read_private(b"id,time,event\nP1,3,1\nP2,4,0\n", "trial.csv", FACTS)
    with pytest.raises(InputError, match=r"more rows than the declared 100 people \(row 102 onwards"):
        pl.read_private(_csv(_cohort_rows()), "trial.csv", replace(FACTS, n_max=100))
    rows = _cohort_rows()
    rows[4] = ("P004", 5, 3, "A")
    with pytest.raises(InputError, match="Column 'event', row 6"):  # the header is row 1
        pl.read_private(_csv(rows), "trial.csv", FACTS)
    rows = _cohort_rows()
    rows[7] = ("P004", *rows[7][1:])
    with pytest.raises(InputError, match="same person in column 'id'"):
        pl.read_private(_csv(rows), "trial.csv", FACTS)
    rows = _cohort_rows()
    rows[9] = (*rows[9][:3], "C")
    with pytest.raises(InputError, match="'C'"):
        pl.read_private(_csv(rows), "trial.csv", FACTS)


def test_a_locked_plan_releases_exactly_its_settings():
    plan = pl.SurvivalPlan(FACTS, 2.0, "months", 3)
    cohort = pl.read_private(_csv(_cohort_rows()), "trial.csv", FACTS)
    bundle = plan.release(cohort)
    assert bundle.epsilon == 2.0 and "kaplan_meier" in bundle.tables and "logrank" in bundle.tables
    assert plan.params()["grid"] == plan.grid().describe() and plan.grid().k == 12
    assert plan.params()["groups"] == ["A", "B"] and plan.params()["sensitivity_l1"] == 2
    pooled = replace(plan, compare=False)
    assert pooled.params()["groups"] == ["all"] and "logrank" not in pooled.release(cohort).tables

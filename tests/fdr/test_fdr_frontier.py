"""The release path's power frontier: records per test × cutoff × ε → power and FDR, with the exact η at
the design floor and the shift proven for the stream — nothing weakened to get power."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import fdr

SMALL = dict(records=(1000, 5000), cutoffs=(10, 40), T=400, runs=12)


def test_design_floor_is_a_power_of_ten_at_the_alternatives_median_pvalue():
    floors = [fdr.design_floor(n, 0.75) for n in fdr.FRONTIER_RECORDS]
    assert all(f == 10.0 ** round(math.log10(f)) for f in floors)
    assert all(a >= b for a, b in zip(floors, floors[1:]))  # more records: smaller p-values, lower floor
    assert floors[-1] == 1e-300  # the alternative's p-value underflows: the lowest floor a double allows
    n = 1000
    median_p = fdr._binomial_tail_table(n)[750]  # Bin(1000, 0.75) has median 750
    assert abs(math.log10(fdr.design_floor(n, 0.75)) - math.log10(median_p)) <= 0.5


def test_frontier_rows_use_the_release_paths_eta_and_shift():
    table = fdr.power_frontier(epsilons=(1.0, 5.0), **SMALL)
    assert len(table) == 2 * 2 * 2
    for _, row in table.iterrows():
        floor = fdr.design_floor(int(row["records"]), 0.75)
        assert row["floor"] == floor and row["eta"] == fdr.eta_binomial_exact(int(row["records"]), floor)
        assert row["shift_A"] == fdr.stream_shift(row["epsilon"], 2.5e-4, row["eta"], int(row["cutoff"]), SMALL["T"])
    assert (table["power"].between(0, 1)).all() and (table["FDR"].between(0, 1)).all()


def test_at_infinite_epsilon_the_frontier_is_paprika_without_noise():
    """The stacked rows (each with its own cutoff and noise scale) decide as one run_paprika call per cutoff."""
    table = fdr.power_frontier(epsilons=(math.inf,), **SMALL)
    for n in SMALL["records"]:
        s = fdr.simulate_bernoulli(SMALL["runs"], SMALL["T"], n=n, rng=np.random.default_rng([0, 28]))
        floor = fdr.design_floor(n, 0.75)
        for c in SMALL["cutoffs"]:
            res = fdr.run_paprika(s.pvalues, alpha=0.05, epsilon=math.inf, delta=2.5e-4,
                                  eta=fdr.eta_binomial_exact(n, floor), cutoff=c, shift=fdr.STREAM, floor=floor,
                                  rng=np.random.default_rng(1))
            m = fdr.metrics(res.rejections, s.truth)
            row = table[(table["records"] == n) & (table["cutoff"] == c)].iloc[0]
            assert row["power"] == pytest.approx(m.mean_power) and row["FDR"] == pytest.approx(m.fdr)


def test_power_approaches_the_noiseless_rule_as_epsilon_grows():
    table = fdr.power_frontier(records=(5000,), cutoffs=(40,), epsilons=(2.0, 5.0, 20.0, math.inf), T=400, runs=12)
    power = table.sort_values("epsilon")["power"].to_numpy()
    assert power[0] < 0.2 and abs(power[2] - power[3]) < 0.05 and power[3] > 0.9


def test_the_pages_releasable_configuration_is_the_fewest_records_that_work():
    """The page opens on n = 5,000, c = 40, ε = 5 (dpcore/fdr/session.py, RELEASABLE): at the paper's other
    settings the frontier (seeded, so deterministic) finds it the fewest records per test reaching power 0.8 at
    ε ≤ 5, and 4,000 records do not reach it with any cutoff."""
    table = fdr.power_frontier()
    best = fdr.smallest_working(table)
    assert (int(best["records"]), int(best["cutoff"]), best["epsilon"]) == (5000, 40, 5.0)
    assert best["power"] >= 0.8 and best["FDR"] <= 0.05
    fewer = table[(table["records"] < 5000) & (table["epsilon"] <= 5)]
    assert fewer["power"].max() < 0.8
    assert table["FDR"].max() <= 0.05 + 2.5e-4 * 800  # the guarantee's bound α + δT holds in every cell
    fewest = fdr.smallest_records_per_epsilon(table)
    assert fewest.set_index(["cutoff", "epsilon"]).loc[(40, 5.0), "records"] == 5000
    assert fewest[fewest["cutoff"] == 10]["records"].isna().all()  # c = 10 of ≈ 40 effects: power ≤ 0.25


def test_no_configuration_working_is_said_as_none():
    table = fdr.power_frontier(records=(200,), cutoffs=(40,), epsilons=(1.0,), T=200, runs=5)
    assert fdr.smallest_working(table) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1000, 2000, 5000]), st.sampled_from([0.5, 1.0, 5.0, 10.0]),
                          st.sampled_from([0.0, 0.5, 0.8, 0.9, float("nan")])), max_size=30))
def test_the_smallest_working_configuration_is_the_first_of_pandas_sort(rows):
    """Fewest records, then smallest ε, then highest power; ties keep the table's order (pandas' stable sort)."""
    table = pd.DataFrame(rows, columns=["records", "epsilon", "power"], dtype=float).assign(cutoff=np.arange(len(rows)))
    ok = table[(table["power"] >= fdr.TARGET_POWER) & (table["epsilon"] <= fdr.TARGET_EPSILON)]
    expected = None if ok.empty else ok.sort_values(["records", "epsilon", "power"], ascending=[True, True, False],
                                                      kind="stable").iloc[0]
    best = fdr.smallest_working(table)
    assert (best is None) == (expected is None)
    if best is not None:
        assert best["cutoff"] == expected["cutoff"]

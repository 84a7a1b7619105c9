"""Times declared recorded in whole units: the declarations a column can carry, the custodian's hint, and every
figure read through the same staircase as the tables and the median."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore import survival as sv
from dpcore.survival import figures as sf
from dpcore.survival import resolution as recorded

EDGES = np.array([0.0, 2, 4, 6])  # two-year bins, times recorded in whole years: a step inside every bin
S = np.array([1.0, 0.7, 0.45, 0.3])


def _table() -> pd.DataFrame:
    return sv.curve_table(EDGES, S[None], (S - 0.08)[None], np.minimum(S + 0.08, 1)[None], ("all",))


def _trace(fig, name: str):
    return next(t for t in fig.data if t.name == name)


def test_a_column_can_be_declared_recorded_only_in_whole_multiples_of_its_unit():
    assert recorded.whole_units("days") == ["days", "weeks"]  # a month is no whole number of days
    assert recorded.whole_units("months") == ["months", "years"]
    assert recorded.whole_units("years") == ["years"]
    assert recorded.declared_resolution("years", "months") == 12.0
    assert recorded.declared_resolution("weeks", "days") == 7.0
    assert recorded.declared_resolution(recorded.CONTINUOUS, "days") is None
    with pytest.raises(ValueError, match="whole months"):
        recorded.declared_resolution("months", "days")


def test_the_hint_proposes_the_coarsest_whole_unit_and_warns_when_a_declaration_does_not_hold():
    weeks = np.array([7.0, 14, 70, 0, 21])
    assert "whole weeks" in recorded.recorded_hint(weeks, "days", recorded.CONTINUOUS)
    assert "whole days" in recorded.recorded_hint(weeks + 1, "days", recorded.CONTINUOUS)
    assert recorded.recorded_hint(weeks + 0.5, "days", recorded.CONTINUOUS) is None
    assert recorded.recorded_hint(weeks, "days", "weeks") is None  # the declaration holds: nothing to say
    assert "not whole weeks" in recorded.recorded_hint(weeks + 1, "days", "weeks")


def test_the_page_figure_draws_the_declared_staircase_the_tables_read():
    """With a declared resolution the curve, its band and the binned curve drawn are ``survival_at`` at that
    resolution (flat between whole years, a riser at each), and the figure's median is the median table's."""
    table = _table()
    fig = sf.read_figure(table, binned=(EDGES, S), time_label="years", resolution=1.0)
    private = _trace(fig, "private (read between edges)")
    x, y = np.asarray(private.x, float), np.asarray(private.y, float)
    assert private.line.shape == "hv"
    assert set(np.arange(7.0)) <= set(x)  # a riser at every whole year, mid-bin ones too
    expected = sv.survival_at(table, x, resolution=1.0)
    np.testing.assert_allclose(y, expected["survival"])
    inside = (x >= 2) & (x < 3)
    assert np.ptp(y[inside]) == 0 and y[x == 3][0] < y[x == 2][0]  # flat, then the step at a whole year
    binned = _trace(fig, "non-private on the grid (binning alone)")
    np.testing.assert_allclose(np.asarray(binned.y, float), expected["survival"])
    shown_band = _trace(fig, "private: 95 % band (noise and sampling)")
    lo_hi = np.asarray(shown_band.y, float)
    bounds = np.r_[expected["ci_lower"], expected["ci_upper"]]
    assert set(np.round(lo_hi[np.isfinite(lo_hi)], 9)) == set(np.round(bounds, 9))  # drawn as steps: each twice
    median = sv.median_table(table, "years", resolution=1.0)["median_survival"].iloc[0]
    assert median == 4.0 and f"median {median:.3g}" in fig.layout.meta["summary"]


def test_without_a_declaration_the_figure_follows_the_constant_hazard_path():
    fig = sf.read_figure(_table(), time_label="years")
    private = _trace(fig, "private (read between edges)")
    x, y = np.asarray(private.x, float), np.asarray(private.y, float)
    assert private.line.shape in (None, "linear")
    np.testing.assert_allclose(y, sv.path(EDGES, S, x))
    assert np.ptp(y[(x >= 2) & (x < 3)]) > 0.05


def test_the_draws_and_groups_views_read_the_same_staircase():
    draws = np.stack([S, S * 0.95, S * 1.02])
    fig = sf.draws_figure(EDGES, draws, S, reference=(EDGES, S), resolution=1.0)
    mean = _trace(fig, "private: mean of draws")
    x = np.asarray(mean.x, float)
    np.testing.assert_allclose(np.asarray(mean.y, float), sv.path(EDGES, draws, np.floor(x)).mean(0))
    assert mean.line.shape == "hv"
    counts = sv.count_matrix(np.array([0.5, 1, 2, 3, 3, 4, 5, 6]), np.ones(8, int), sv.make_grid(
        6.0, data_unit="years", grid_unit="years", width=2), group=np.array(list("ABABABAB")), groups=("A", "B"))
    curves = sv.km(sv.postprocess(counts))
    fig = sf.groups_figure(curves, curves, resolution=1.0)
    for g, trace in enumerate(t for t in fig.data if str(t.name).endswith("(private)")):
        tx = np.asarray(trace.x, float)
        np.testing.assert_allclose(np.asarray(trace.y, float), sv.path(curves.times, curves.estimate[g],
                                                                       np.floor(tx)))


def test_binning_costs_little_on_whole_year_times_read_as_declared():
    """Whole-year times on a yearly grid: read as the declared staircase, the binned curve is within 0.01 of
    lifelines on the exact times (the life-table rule's half-censoring only); read by the constant-hazard path, the
    exact curve's steps at whole years are missed by 0.18."""
    rng = np.random.default_rng(5)
    time, event = np.ceil(rng.exponential(4, 600)), (rng.random(600) < 0.8).astype(int)
    grid = sv.make_grid(12.0, data_unit="years", grid_unit="years")
    exact = sv.km(sv.postprocess(sv.count_matrix(time, event, grid))).estimate[0]
    ref = sv.lifelines_reference(time, event, grid)[0]
    assert sv.costs(grid.display, exact, exact, ref, resolution=1.0)[0] < 0.015
    assert sv.costs(grid.display, exact, exact, ref)[0] > 0.1

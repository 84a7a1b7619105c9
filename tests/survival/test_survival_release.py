"""What a survival release reports: numbers at risk, whole non-negative counts, the median with
its noise-aware interval or "not reached", the recommended log-rank p-value; the default risk set; the default grid."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import survival as sv
from dpcore.core.datasets import load_survival, manifest, survival_names
from dpcore.reporting import figures
from dpcore.survival import figures as sf


def _grid(d):
    return sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)


def test_median_interval_inverts_the_band_and_says_not_reached():
    times = np.arange(5.0)
    S = np.array([1, 0.8, 0.6, 0.45, 0.3])
    lo, hi = S - 0.2, np.minimum(S + 0.2, 1)
    assert sv.median_interval(S, lo, hi, times) == (3.0, 2.0, 4.0)
    m = sv.median_interval(S, lo, np.ones(5), times)
    assert m[2] == np.inf
    assert sv.describe_median(*m, "months") == "3 months (95 % CI 2 to not reached)"
    flat = np.array([1, 0.9, 0.8, 0.7, 0.6])
    text = sv.describe_median(*sv.median_interval(flat, flat - 0.2, flat, times), "weeks")
    assert text == "not reached (95 % CI 3 to not reached)"


def _release(name: str, epsilon: float, grouped: bool = True):
    d = load_survival(name)
    groups = tuple(manifest()["survival"][name]["groups"]) or None
    return sv.release(d.time, d.event, grid=_grid(d), epsilon=epsilon, group=d.group if grouped and groups else None,
                      groups=groups if grouped else None, dataset=name, band_draws=50)


def test_release_counts_are_whole_and_non_negative_and_the_raw_ones_are_kept_apart():
    bundle = _release("gehan", 0.2)  # small ε on a small set: many noisy counts are negative
    counts, raw = bundle.tables["counts"], bundle.tables["counts_unclipped"]
    for col in ("at_risk", "events", "censored"):
        assert counts[col].dtype.kind == "i" and (counts[col] >= 0).all(), col
    assert (raw["censored"] < 0).any() or (raw["events"] < 0).any()  # what the mechanism gave, negatives included
    np.testing.assert_array_equal(counts["censored"], np.maximum(raw["censored"], 0))
    assert any("whole, non-negative" in note for note in bundle.notes)


def test_release_numbers_at_risk_per_group():
    bundle = _release("cancer", 1.0)
    risk, km = bundle.tables["numbers_at_risk"], bundle.tables["kaplan_meier"]
    assert list(risk["group"].unique()) == ["female", "male"]
    assert risk["at_risk"].dtype.kind == "i" and (risk["at_risk"] >= 0).all()
    for g, part in risk.groupby("group"):
        assert np.all(np.diff(part["at_risk"]) <= 0)  # the default risk set never grows (every count's fit is ≥ 0)
        km_part = km[km["group"] == g]["at_risk_start_of_bin"].to_numpy()[:-1]
        np.testing.assert_array_equal(part["at_risk"], km_part)


def test_release_median_and_recommended_logrank():
    bundle = _release("veteran", 1.0)
    median = bundle.tables["median"]
    assert {"median_survival", "ci_lower", "ci_upper", "reported"} <= set(median.columns)
    for row in median.itertuples():
        assert row.reported.startswith("not reached" if np.isnan(row.median_survival) else f"{row.median_survival:.3g}")
        if not np.isnan(row.ci_lower) and not np.isnan(row.median_survival):
            assert row.ci_lower <= row.median_survival
    lr = bundle.tables["logrank"]
    assert lr["recommended"].tolist() == [True, False] and "noise-aware" in lr["variance"][0]
    derived = bundle.derived_params
    assert derived["logrank_recommended"] == lr["variance"][0]
    assert derived["logrank_p_value"] == pytest.approx(lr["p_value"][0])
    assert set(derived["median_survival"]) == set(median["group"])
    assert any(note.startswith("Report the noise-aware p-value") for note in bundle.notes)


def test_median_not_reached_is_released_as_not_reached():
    rng = np.random.default_rng(3)
    n = 300
    time = rng.uniform(0, 400, n)
    event = (rng.random(n) < 0.1).astype(int)  # few events: the curve stays far above 0.5
    grid = sv.make_grid(365, data_unit="days", grid_unit="weeks", width=2)
    bundle = sv.release(time, event, grid=grid, epsilon=5.0, band_draws=50)
    row = bundle.tables["median"].iloc[0]
    assert np.isnan(row["median_survival"]) and row["reported"].startswith("not reached")
    assert "not reached" in bundle.derived_params["median_survival"]["all"]
    assert '"median_survival": null' in bundle.to_json()


def _raw_km(d, grid):
    """lifelines' KM on the raw times at the grid edges, and where ≥ 10 % are still at risk (the issue's reading)."""
    from lifelines import KaplanMeierFitter

    exact = KaplanMeierFitter().fit(d.time, d.event != 0).survival_function_at_times(grid.edges).to_numpy()
    return exact, ((d.time[None, :] >= grid.edges[:, None]).sum(1) >= 0.1 * d.time.size) & (grid.edges > 0)


def test_default_rule_is_less_biased_and_closer_than_the_papers_on_the_bundled_sets():
    """bench/bench_survival_estimators.py, small: 100 seeded draws per set at ε = 1, whole set (Δ1 = 2), default grid.

    Deterministic (fixed seeds), so never flaky; the margins are the bench's differences, which are many
    Monte-Carlo standard errors wide (sup error sd ≈ 0.05 per draw, so ≈ 0.005 for a mean of 100).
    """
    assert sv.DEFAULT_RISK_SET == "isotonic"
    bias, sup = {"spec": [], "isotonic": []}, {"spec": [], "isotonic": []}
    for i, name in enumerate(survival_names()):
        d = load_survival(name)
        width, unit = sv.default_bin_width(d.horizon, d.time_unit, n=d.time.size, epsilon=1.0)
        grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=unit, width=width)
        exact, read = _raw_km(d, grid)
        counts = sv.count_matrix(d.time, (np.asarray(d.event) != 0).astype(int), grid)
        noisy = sv.noisy_counts(counts, sv.survival_noise(1.0), rng=np.random.default_rng(i), draws=100)
        for rule in bias:
            est = sv.km(sv.postprocess(noisy, risk_set=rule)).estimate[:, 0]
            bias[rule].append(np.abs(est.mean(0) - exact)[read].max())
            sup[rule].append(np.abs(est - exact)[:, read].max(-1).mean())
    assert np.mean(bias["isotonic"]) < 0.6 * np.mean(bias["spec"]), bias
    assert np.mean(sup["isotonic"]) < np.mean(sup["spec"]), sup


@pytest.mark.parametrize("unit", ["days", "weeks", "months", "years"])
def test_default_grid_has_20_to_40_bins_from_the_horizon_alone(unit):
    for horizon_days in np.geomspace(25, 365.25 * 60, 80):
        horizon = horizon_days / {"days": 1, "weeks": 7, "months": 365.25 / 12, "years": 365.25}[unit]
        width, grid_unit = sv.default_bin_width(horizon, unit)
        grid = sv.make_grid(horizon, data_unit=unit, grid_unit=grid_unit, width=width)
        assert 20 <= grid.k <= 40, (horizon, unit, width, grid_unit, grid.k)
    assert sv.default_bin_width(365, "days") == (2, "weeks")  # not 365 one-day bins
    assert sv.default_bin_width(75, "days") == (2, "days")
    assert sv.make_grid(365, grid_unit="weeks", width=2).describe().startswith("27 bins of 2 weeks")


def test_km_figures_print_numbers_at_risk():
    d = load_survival("cancer")
    groups = tuple(manifest()["survival"]["cancer"]["groups"])
    counts = sv.count_matrix(d.time, d.event, _grid(d), group=d.group, groups=groups)
    noisy = sv.noisy_counts(counts, sv.survival_noise(1.0, 2), rng=np.random.default_rng(0))
    table, exact = sv.postprocess(noisy), sv.postprocess(counts)
    fig = sf.groups_figure(sv.km(table), sv.km(exact), at_risk=table.at_risk)
    texts = [a.text for a in fig.layout.annotations]
    assert texts[0].startswith("Number at risk (noisy") and "female" in texts and "male" in texts
    columns = figures.risk_columns(counts.grid.k)
    assert len(columns) <= figures.RISK_COLUMNS
    numbers = [int(t) for t in texts if t.isdigit()]
    assert len(numbers) == 2 * len(columns) and min(numbers) >= 0
    assert numbers[0] == round(table.at_risk[0, 0])
    assert list(fig.layout.xaxis.tickvals) == list(counts.grid.display[columns])
    pooled, pooled_exact = sv.postprocess(noisy.pooled()), sv.postprocess(counts.pooled())
    head = sf.headline_figure(sv.km(pooled), sv.km(pooled_exact), at_risk=pooled.at_risk[0],
                              exact_at_risk=pooled_exact.at_risk[0], legend=False)
    texts = [a.text for a in head.layout.annotations]
    assert {"Number at risk", "noisy", "true", str(int(pooled_exact.at_risk[0, 0]))} <= set(texts)
    assert head.layout.margin.b > 55  # room for the table under the axis


def test_the_release_report_prints_the_released_numbers_at_risk_under_its_curve():
    from dpcore.reporting.release_figures import figures_for

    gehan = load_survival("gehan")
    grid = sv.make_grid(gehan.horizon, data_unit=gehan.time_unit, grid_unit="weeks")
    bundle = sv.release(gehan.time, gehan.event, grid=grid, epsilon=1.0, group=gehan.group, groups=gehan.groups,
                        dataset="Gehan", band_draws=20)
    texts = [a.text for a in figures_for(bundle)["Kaplan–Meier (DP)"].layout.annotations]
    assert "Number at risk (noisy, released)" in texts
    released = bundle.tables["numbers_at_risk"]
    first = released.groupby("group", sort=False)["at_risk"].first()
    assert all(str(n) in texts for n in first)  # the first column: each group's released count at time 0


@pytest.mark.parametrize("name,estimator", [("myeloid", "km"), ("mgus", "km"), ("cancer", "na"),
                                            ("pbc", "cif"), ("transplant", "cif")])
def test_the_released_interval_covers_the_exact_curve_in_the_over_draws_view(name, estimator):
    """The "Over R draws" table measures the interval a release exports (noise + sampling), not only Greenwood's:
    on every one of 200 seeded preview releases at ε = 1 (the default grid), averaged over grid points. Seeded,
    so the figure is a fixed number, not a chance event."""
    d = load_survival(name)
    K = len(d.event_labels)
    counts = sv.count_matrix(d.time, d.event, _grid(d), group=d.group, groups=d.groups or None, n_types=K,
                             event_labels=d.event_labels)
    u = sv.utility(counts, 1.0, draws=200, rng=np.random.default_rng(3), estimator=estimator, kind="discrete_laplace")
    assert u.released_coverage.shape == (200,)
    assert u.released_coverage.mean() >= max(0.9, u.coverage.mean())
    rows = u.summary().set_index("measure")["mean"]
    assert rows["released 95 % interval (noise + sampling) covers exact"] == pytest.approx(u.released_coverage.mean())
    without = sv.utility(counts, 1.0, draws=20, rng=np.random.default_rng(3), estimator=estimator,
                         kind="discrete_laplace", interval_draws=0)
    assert without.released_coverage is None


def test_every_released_curve_carries_the_noise_aware_interval():
    """The tables of a release (``released_tables``, what ``release`` calls after its OpenDP draw), here on a
    seeded preview draw so that the figures are fixed."""
    d = load_survival("pbc")
    counts = sv.count_matrix(d.time, d.event, _grid(d), n_types=len(d.event_labels), event_labels=d.event_labels)
    noise = sv.noise_for(counts, 1.0)
    tables = sv.released_tables(sv.noisy_counts(counts, noise, rng=np.random.default_rng(1)), noise, band_draws=50,
                                rng=np.random.default_rng(2))
    for name, value in (("kaplan_meier", "survival"), ("nelson_aalen", "cumulative_hazard"),
                        ("cumulative_incidence", "incidence")):
        table = tables[name]
        assert {"ci_lower", "ci_upper", "greenwood_lower", "greenwood_upper"} <= set(table.columns), name
        # the noise-aware interval is at least as wide as sampling alone where the curve has moved
        moved = table[value].to_numpy() > 0.05 if value != "survival" else table[value].to_numpy() < 0.95
        width = (table["ci_upper"] - table["ci_lower"]).to_numpy()[moved]
        sampling = (table["greenwood_upper"] - table["greenwood_lower"]).to_numpy()[moved]
        with np.errstate(divide="ignore"):  # a point with no sampling width at all counts as wider
            assert np.nanmedian(width / sampling) > 1.0, name

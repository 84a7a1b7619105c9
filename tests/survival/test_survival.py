"""dpcore.survival: equality with lifelines at ε = ∞, sensitivity, post-processing, audit, release."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import import_outside_ci
from dpcore import survival as sv
from dpcore.core.datasets import load_survival, manifest, survival_names
from dpcore.core.validation import InputError

lifelines = import_outside_ci("lifelines")  # a skip outside CI, a failure under CI=true
from lifelines import AalenJohansenFitter, KaplanMeierFitter, NelsonAalenFitter  # noqa: E402
from lifelines.statistics import logrank_test as ll_logrank  # noqa: E402
from lifelines.statistics import multivariate_logrank_test  # noqa: E402

ALL = survival_names()


def _grid(d):
    return sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=d.default_grid_unit)


def _groups(name):
    return tuple(manifest()["survival"][name]["groups"]) or None


def _on_grid(series: pd.Series, grid: sv.Grid) -> tuple[np.ndarray, np.ndarray]:
    """lifelines values forward-filled onto the grid edges up to lifelines' last time."""
    upto = grid.edges <= series.index.max() + 1e-12
    vals = series.reindex(grid.edges[upto], method="ffill").to_numpy()
    return upto, vals


@pytest.mark.parametrize("name", ALL)
def test_km_and_ci_equal_lifelines(name):
    d = load_survival(name)
    grid = _grid(d)
    t, e = sv.binned_for_lifelines(d.time, d.event != 0, grid)
    kmf = KaplanMeierFitter().fit(t, e)
    res = sv.kaplan_meier(d.time, d.event, grid=grid, risk_set="running")  # the classical table (no life-table step)
    upto, S = _on_grid(kmf.survival_function_.iloc[:, 0], grid)
    assert upto.sum() >= 2
    np.testing.assert_allclose(res.survival[upto], S, rtol=0, atol=1e-10)
    ci = kmf.confidence_interval_
    _, lo = _on_grid(ci.iloc[:, 0], grid)
    _, hi = _on_grid(ci.iloc[:, 1], grid)
    np.testing.assert_allclose(res.ci_lower[upto], lo, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res.ci_upper[upto], hi, rtol=0, atol=1e-10)
    # median: lifelines' time is a bin right edge in data units; ours is read by the within-bin rule,
    # so it lies inside the bin that edge closes
    med = kmf.median_survival_time_
    if np.isinf(med):
        assert np.isinf(res.median)
    else:
        j = int(np.argmin(np.abs(grid.display - med / grid.step)))
        assert grid.display[j - 1] < res.median <= grid.display[j] + 1e-9


@pytest.mark.parametrize("name", ALL)
def test_nelson_aalen_equal_lifelines(name):
    d = load_survival(name)
    grid = _grid(d)
    t, e = sv.binned_for_lifelines(d.time, d.event != 0, grid)
    naf = NelsonAalenFitter(nelson_aalen_smoothing=False).fit(t, e)
    res = sv.nelson_aalen(d.time, d.event, grid=grid, risk_set="running")
    upto, H = _on_grid(naf.cumulative_hazard_.iloc[:, 0], grid)
    np.testing.assert_allclose(res.cumulative_hazard[upto], H, rtol=0, atol=1e-10)
    _, lo = _on_grid(naf.confidence_interval_.iloc[:, 0], grid)
    _, hi = _on_grid(naf.confidence_interval_.iloc[:, 1], grid)
    np.testing.assert_allclose(res.ci_lower[upto], lo, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res.ci_upper[upto], hi, rtol=0, atol=1e-10)
    _, var = _on_grid(naf._cumulative_sq, grid)
    np.testing.assert_allclose(res.variance[upto], var, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", [n for n in ALL if _groups(n)])
def test_logrank_equals_lifelines(name):
    d = load_survival(name)
    grid = _grid(d)
    t, e = sv.binned_for_lifelines(d.time, d.event != 0, grid)
    res = sv.logrank(d.time, d.event, d.group, grid=grid, groups=_groups(name))
    a, b = _groups(name)
    ia, ib = d.group == a, d.group == b
    ref = ll_logrank(t[ia], t[ib], e[ia], e[ib])
    assert res.statistic == pytest.approx(ref.test_statistic, abs=1e-10, rel=1e-10)
    assert res.p_value == pytest.approx(ref.p_value, abs=1e-10)


def test_multivariate_logrank_three_groups():
    rng = np.random.default_rng(3)
    n = 300
    g = rng.choice(["x", "y", "z"], n)
    t = rng.exponential(np.where(g == "x", 10, np.where(g == "y", 14, 20)))
    e = (rng.random(n) < 0.8).astype(int)
    grid = sv.make_grid(40, data_unit="days", grid_unit="days", width=2)
    bt, be = sv.binned_for_lifelines(t, e, grid)
    ref = multivariate_logrank_test(bt, g, be)
    res = sv.logrank(t, e, g, grid=grid)
    assert res.degrees_of_freedom == 2
    assert res.statistic == pytest.approx(ref.test_statistic, rel=1e-10)
    assert res.p_value == pytest.approx(ref.p_value, abs=1e-10)


@pytest.mark.parametrize("name", ["pbc", "transplant"])
def test_cumulative_incidence_formula_on_binned_competing_sets(name):
    """On the bundled competing-risk sets: F_1 + F_2 = 1 − S (all-cause KM) at every grid time."""
    d = load_survival(name)
    grid = _grid(d)
    f1 = sv.cumulative_incidence(d.time, d.event, grid=grid, event_type=1, n_types=2)
    f2 = sv.cumulative_incidence(d.time, d.event, grid=grid, event_type=2, n_types=2)
    s = sv.kaplan_meier(d.time, d.event, grid=grid)
    np.testing.assert_allclose(f1.incidence + f2.incidence, 1 - s.survival, atol=1e-12)
    assert np.all(np.diff(f1.incidence) >= -1e-15)


def test_cumulative_incidence_equals_aalen_johansen_untied():
    rng = np.random.default_rng(5)
    n = 150
    t = np.round(rng.exponential(30, n), 6)
    t = np.unique(t)[:n]  # untied
    n = t.size
    e = rng.choice([0, 1, 2], n, p=[0.3, 0.4, 0.3])
    rng.shuffle(t)
    # test-only grid with one subject per bin (edges at the data's own times; never do this for a release)
    edges = np.concatenate([[0.0], np.sort(t)])
    grid = sv.Grid(edges)
    res = sv.cumulative_incidence(t, e, grid=grid, event_type=1, n_types=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ajf = AalenJohansenFitter(calculate_variance=False).fit(t, e, event_of_interest=1)
    ref = ajf.cumulative_density_.iloc[:, 0]
    _, vals = _on_grid(ref, grid)
    np.testing.assert_allclose(res.incidence, vals, atol=1e-10)


# --------------------------------------------------------------------------
# Grid, counts, post-processing
# --------------------------------------------------------------------------


def test_binning_rules():
    grid = sv.make_grid(10.0, data_unit="days", grid_unit="days", width=5)
    assert grid.edges.tolist() == [0, 5, 10]
    c = sv.count_matrix([0, 5, 5.01, 10, 11, 3], [1, 1, 0, 1, 1, 0], grid)
    # time 0 → bin 1; 5 → bin 1 (right-closed); 11 > H → censored in last bin
    assert c.events[0, :, 0].tolist() == [2, 1]
    assert c.censored[0].tolist() == [1, 2]
    assert c.at_start.tolist() == [6]
    grid2 = sv.make_grid(1100, data_unit="days", grid_unit="months")
    assert grid2.edges[-1] == 1100 and grid2.k == 37


def test_postprocess_risk_set_uses_censorings_and_clips():
    grid = sv.Grid(np.arange(5.0))
    noisy = sv.Counts(np.array([10]), np.array([[[3], [-2], [20], [1]]]), np.array([[2, 1, 0, -1]]), grid)
    table = sv.postprocess(noisy, risk_set="spec")
    # r1 = 10; r2 = 10-3-2 = 5; r3 = 5-0-1 = 4; r4 = max(0, 4-20-0) = 0
    assert table.at_risk[0].tolist() == [10, 5, 4, 0]
    # events clipped at 0 and at the risk set
    assert table.deaths[0].tolist() == [3, 0, 4, 0]
    S = sv.km(table).estimate[0]
    np.testing.assert_allclose(S, [1, 0.7, 0.7, 0.0, 0.0])
    # the running sum subtracts the unclipped counts: r3 = 5-(-2)-1 = 6, kept at 5 (non-increasing)
    running = sv.postprocess(noisy, risk_set="running")
    assert running.at_risk[0].tolist() == [10, 5, 5, 0]
    assert running.deaths[0].tolist() == [3, 0, 5, 0]


def test_postprocess_proportional_type_clipping():
    grid = sv.Grid(np.arange(3.0))
    noisy = sv.Counts(np.array([4]), np.array([[[6, 2], [0, 0]]]), np.array([[0, 0]]), grid,
                      event_labels=("a", "b"))
    table = sv.postprocess(noisy, risk_set="running")
    np.testing.assert_allclose(table.events[0, 0], [3, 1])


def test_invalid_inputs_raise_named_errors():
    grid = sv.make_grid(10.0)
    with pytest.raises(InputError, match="non-negative"):
        sv.count_matrix([-1, 2], [1, 0], grid)
    with pytest.raises(InputError, match="event codes"):
        sv.count_matrix([1, 2], [1, 3], grid)
    with pytest.raises(InputError, match="declared groups"):
        sv.count_matrix([1, 2], [1, 0], grid, group=["a", "c"], groups=("a", "b"))
    with pytest.raises(InputError, match="horizon"):
        sv.make_grid(0.0)


def test_releases_refuse_group_labels_read_from_the_data():
    """Adversarial pair: B replaces one member of group "a" by the only member of a new group "z".

    With labels read off the data, A's release has two groups and B's three (a different table shape, seen
    with probability 1, so no ε covers it); releases therefore need the declared list, previews warn.
    """
    grid = sv.make_grid(10.0)
    t = np.array([1.0, 2, 3, 4, 5, 6])
    e = np.array([1, 0, 1, 1, 0, 1])
    g_a = np.array(["a", "b", "a", "b", "a", "b"])
    g_b = g_a.copy()
    g_b[0] = "z"
    with pytest.warns(sv.GroupLabelsFromDataWarning):
        shapes = {sv.count_matrix(t, e, grid, group=g).n_groups for g in (g_a, g_b)}
    assert shapes == {2, 3}  # what a release would reveal without declared labels
    for call in (
        lambda g: sv.release(t, e, grid=grid, epsilon=1.0, group=g),
        lambda g: sv.kaplan_meier(t, e, grid=grid, epsilon=1.0, group=g),
        lambda g: sv.nelson_aalen(t, e, grid=grid, epsilon=1.0, group=g),
        lambda g: sv.cumulative_incidence(t, e, grid=grid, epsilon=1.0, group=g),
        lambda g: sv.logrank(t, e, g, grid=grid, epsilon=1.0),
    ):
        with pytest.raises(InputError, match="declared list of group labels"):
            call(g_a)
    with pytest.warns(sv.GroupLabelsFromDataWarning):  # a seeded preview may infer labels, with a warning
        preview = sv.kaplan_meier(t, e, grid=grid, epsilon=1.0, group=g_a, rng=np.random.default_rng(0))
    assert preview.groups == ("a", "b")
    declared = sv.release(t, e, grid=grid, epsilon=1.0, group=g_b, groups=("a", "b", "z"))
    assert declared.public_params["groups"] == ["a", "b", "z"]


# --------------------------------------------------------------------------
# Sensitivity: random and adversarial neighbours
# --------------------------------------------------------------------------


def _l1(a: sv.Counts, b: sv.Counts) -> int:
    return int(np.abs(a.vector().astype(np.int64) - b.vector().astype(np.int64)).sum())


def _l2(a: sv.Counts, b: sv.Counts) -> float:
    return float(np.sqrt(((a.vector().astype(np.int64) - b.vector().astype(np.int64)) ** 2).sum()))


records = st.tuples(st.floats(0, 30, allow_nan=False), st.integers(0, 2), st.sampled_from(["a", "b", "c"]))


@settings(max_examples=150, deadline=None)
@given(data=st.lists(records, min_size=1, max_size=40), new=records, pos=st.integers(0, 1000),
       width=st.sampled_from([1.0, 3.0, 7.0]), statistic=st.sampled_from(list(sv.STATISTICS)))
def test_sensitivity_replace_one_random(data, new, pos, width, statistic):
    grid = sv.make_grid(20.0, data_unit="days", grid_unit="days", width=width)
    t, e, g = map(np.array, zip(*data))
    t2, e2, g2 = t.copy(), e.copy(), g.copy()
    i = pos % len(data)
    t2[i], e2[i], g2[i] = new
    groups = ("a", "b", "c")
    one = _l1(sv.count_matrix(t, e, grid, n_types=2, statistic=statistic),
              sv.count_matrix(t2, e2, grid, n_types=2, statistic=statistic))
    assert one <= sv.sensitivity(1, statistic=statistic)
    many = _l1(sv.count_matrix(t, e, grid, group=g, groups=groups, n_types=2, statistic=statistic),
               sv.count_matrix(t2, e2, grid, group=g2, groups=groups, n_types=2, statistic=statistic))
    assert many <= sv.sensitivity(3, statistic=statistic)
    many_l2 = _l2(sv.count_matrix(t, e, grid, group=g, groups=groups, n_types=2, statistic=statistic),
                  sv.count_matrix(t2, e2, grid, group=g2, groups=groups, n_types=2, statistic=statistic))
    assert many_l2 <= sv.l2_sensitivity(3, statistic=statistic) + 1e-12


@pytest.mark.parametrize("case", ["first-last", "event-censored", "between-groups", "beyond-horizon"])
def test_sensitivity_adversarial(case):
    """The default histogram moves by at most 2 whatever the groups; the paper's grouped matrix by 4 (attained by
    a person who changes group: both groups' r_1 move as well)."""
    grid = sv.make_grid(100.0, data_unit="days", grid_unit="days", width=10)
    t = np.array([5.0, 50, 95, 20, 0]); e = np.array([1, 0, 1, 1, 0]); g = np.array(["a", "b", "a", "b", "a"])
    t2, e2, g2 = t.copy(), e.copy(), g.copy()
    if case == "first-last":
        t2[0], e2[0] = 100.0, 0
    elif case == "event-censored":
        e2[2] = 0
    elif case == "between-groups":
        t2[0], e2[0], g2[0] = 99.0, 0, "b"
    else:
        t2[1], e2[1] = 1e9, 1  # far beyond the horizon: censored at H
    for statistic in sv.STATISTICS:
        single = _l1(sv.count_matrix(t, e, grid, statistic=statistic), sv.count_matrix(t2, e2, grid, statistic=statistic))
        grouped = _l1(sv.count_matrix(t, e, grid, group=g, groups=("a", "b"), statistic=statistic),
                      sv.count_matrix(t2, e2, grid, group=g2, groups=("a", "b"), statistic=statistic))
        assert single <= sv.sensitivity(1, statistic=statistic) == 2
        assert grouped <= sv.sensitivity(2, statistic=statistic) == (2 if statistic == "histogram" else 4)
        grouped_l2 = _l2(sv.count_matrix(t, e, grid, group=g, groups=("a", "b"), statistic=statistic),
                         sv.count_matrix(t2, e2, grid, group=g2, groups=("a", "b"), statistic=statistic))
        assert grouped_l2 <= sv.l2_sensitivity(2, statistic=statistic) + 1e-12  # Gaussian noise: the L2 bound
        assert sv.l2_sensitivity(2, statistic=statistic) == pytest.approx(np.sqrt(2) if statistic == "histogram" else 2)
        if case == "between-groups":
            assert grouped == sv.sensitivity(2, statistic=statistic)  # the bound is attained
            assert grouped_l2 == pytest.approx(sv.l2_sensitivity(2, statistic=statistic))
        if case == "first-last":
            assert single == 2


def test_add_remove_sensitivity():
    grid = sv.make_grid(10.0)
    t = np.array([1.0, 2, 3]); e = np.array([1, 0, 1]); g = np.array(["a", "b", "a"])
    for statistic, bound in (("matrix", 2), ("histogram", 1)):
        a = sv.count_matrix(t, e, grid, group=g, groups=("a", "b"), statistic=statistic)
        b = sv.count_matrix(t[:2], e[:2], grid, group=g[:2], groups=("a", "b"), statistic=statistic)
        assert _l1(a, b) <= sv.sensitivity(2, "add/remove-one", statistic=statistic) == bound


def test_noise_of_another_statistic_is_refused():
    """The histogram's noise (Δ1 = 2) on the paper's grouped matrix (Δ1 = 4) would halve its ε: refused."""
    grid = sv.make_grid(10.0)
    t = np.array([1.0, 2, 3]); e = np.array([1, 0, 1]); g = np.array(["a", "b", "a"])
    matrix = sv.count_matrix(t, e, grid, group=g, groups=("a", "b"), statistic="matrix")
    with pytest.raises(ValueError, match="Δ1 = 4"):
        sv.noisy_counts(matrix, sv.survival_noise(1.0, 2), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="Δ1 = 4"):
        sv.release_counts(matrix, sv.survival_noise(1.0, 2))
    assert sv.noise_for(matrix, 1.0).scale == 4.0
    with pytest.raises(ValueError, match="Δ2 = 2"):  # the Gaussian's check is on the L2 sensitivity
        sv.noisy_counts(matrix, sv.survival_noise(1.0, 2, kind="gaussian", delta=1e-6), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="needs 0 < δ < 1"):
        sv.noise_for(matrix, 1.0, kind="gaussian")


def test_histogram_release_pins_the_public_n():
    """The histogram's r_1 is the sum of each group's cells, and the post-processing pins all cells to n."""
    d = load_survival("veteran")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=d.groups)
    assert counts.statistic == "histogram" and counts.total == d.time.size
    assert counts.vector().shape == (2, grid.k * 2)  # cells only
    noisy = sv.noisy_counts(counts, sv.noise_for(counts, 20.0), rng=np.random.default_rng(3), draws=50)
    assert np.array_equal(noisy.at_start, noisy.events.sum((-1, -2)) + noisy.censored.sum(-1))
    table = sv.postprocess(noisy, risk_set="bridge")
    assert np.allclose(table.at_risk[..., 0].sum(-1), d.time.size)  # pinned: the groups' r_1 add up to n


# --------------------------------------------------------------------------
# Noise paths, utility, band
# --------------------------------------------------------------------------


def test_preview_is_vectorised_and_calibrated():
    d = load_survival("veteran")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid)
    noise = sv.survival_noise(1.0)
    assert noise.scale == 2.0 and noise.kind == "discrete_laplace"
    draws = sv.noisy_counts(counts, noise, rng=np.random.default_rng(0), draws=4000)
    assert draws.events.shape == (4000, 1, grid.k, 1)
    z = draws.vector() - counts.vector()
    assert np.issubdtype(z.dtype, np.integer)
    assert z.std() == pytest.approx(noise.std, rel=0.03)
    assert sv.survival_noise(1.0, 2, kind="laplace").scale == 2.0  # the histogram: Δ1 = 2 with groups too
    assert sv.survival_noise(1.0, 2, kind="laplace", statistic="matrix").scale == 4.0


def test_release_uses_opendp_and_integers():
    d = load_survival("gehan")
    counts = sv.count_matrix(d.time, d.event, _grid(d))
    out = sv.release_counts(counts, sv.survival_noise(1.0))
    assert np.issubdtype(out.events.dtype, np.integer)
    assert out.events.shape == counts.events.shape


def test_private_curve_converges_to_exact_at_large_epsilon():
    d = load_survival("myeloid")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid)
    u_small = sv.utility(counts, 0.2, rng=np.random.default_rng(1), draws=100)
    u_large = sv.utility(counts, 50.0, rng=np.random.default_rng(1), draws=100)
    assert u_large.sup_error.mean() < 0.05 < u_small.sup_error.mean()
    assert u_large.sup_error.shape == (100,)


def test_utility_curve_shapes_and_monotone_trend():
    d = load_survival("cancer")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=_groups("cancer"))
    eps = np.array([0.1, 1.0, 10.0, 100.0])
    uc = sv.utility_curve(counts, eps, draws=60, rng=np.random.default_rng(2))
    assert uc.sup_error.shape == (4, 60) and uc.logrank_agree.shape == (4, 60)
    m = uc.sup_error.mean(1)
    assert m[0] > m[1] > m[2] > m[3]
    assert uc.logrank_agree[-1].mean() > 0.9
    uc_d = sv.utility_curve(counts, eps, draws=30, rng=np.random.default_rng(2), kind="discrete_laplace")
    assert uc_d.integrated_error.shape == (4, 30)


@pytest.mark.parametrize("noise_aware", [False, True])
def test_utility_curve_in_steps_is_the_same_sweep(monkeypatch, noise_aware):
    """A sweep too large for one step (memory) is the same computation, ε after ε, on the same generator."""
    d = load_survival("cancer")
    counts = sv.count_matrix(d.time, d.event, _grid(d), group=d.group, groups=_groups("cancer"))
    eps = [0.2, 1.0, 5.0]
    options = dict(draws=20, estimator="km", kind="discrete_laplace", noise_aware_logrank=noise_aware)
    monkeypatch.setattr("dpcore.survival.monte_carlo.SWEEP_CELLS", 1)  # one ε per step
    stepped = sv.utility_curve(counts, eps, rng=np.random.default_rng(5), **options)
    rng = np.random.default_rng(5)
    one_by_one = [sv.utility_curve(counts, [e], rng=rng, **options) for e in eps]
    for name in ("sup_error", "integrated_error", "coverage", "p_value", "logrank_agree"):
        np.testing.assert_array_equal(getattr(stepped, name), np.concatenate([getattr(u, name) for u in one_by_one]))
    assert stepped.sup_error.shape == (3, 20) and stepped.exact_p_value == one_by_one[0].exact_p_value


def test_noise_band_covers_truth_more_often_than_greenwood():
    d = load_survival("myeloid")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid)
    exact = sv.km(sv.postprocess(counts)).estimate[0]
    noise = sv.survival_noise(1.0, kind="discrete_laplace")
    rng = np.random.default_rng(4)
    band_hits, gw_hits = [], []
    for _ in range(20):
        rel = sv.noisy_counts(counts, noise, rng=rng)
        cs = sv.km(sv.postprocess(rel))
        lo, hi = sv.noise_band(rel, noise, rng=rng, draws=200)
        band_hits.append(np.mean((lo[0] <= exact + 1e-12) & (exact <= hi[0] + 1e-12)))
        gw_hits.append(np.mean((cs.ci_lower[0] <= exact) & (exact <= cs.ci_upper[0])))
    assert np.mean(band_hits) > np.mean(gw_hits)
    assert np.mean(band_hits) > 0.8


def test_one_call_results_have_documented_attributes():
    d = load_survival("ovarian")
    grid = _grid(d)
    r = sv.kaplan_meier(d.time, d.event, grid=grid, epsilon=1.0, rng=np.random.default_rng(0))
    assert r.times.shape == r.survival.shape == r.ci_lower.shape == r.ci_upper.shape == (grid.k + 1,)
    assert np.all(np.diff(r.survival) <= 1e-15) and r.survival[0] == 1
    assert np.all((0 <= r.ci_lower) & (r.ci_lower <= r.survival + 1e-12) & (r.ci_upper <= 1))
    lr = sv.logrank(d.time, d.event, d.group, groups=d.groups, grid=grid, epsilon=1.0, rng=np.random.default_rng(0))
    assert 0 <= lr.p_value <= 1 and lr.statistic >= 0
    assert "preview" in lr.noise


# --------------------------------------------------------------------------
# Audit and release
# --------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_audit_passes_and_catches_halved_noise(epsilon):
    scenarios = sv.audit_scenarios(epsilon)
    assert len(scenarios) == 5  # three on the histogram, one on the paper's grouped matrix, one Gaussian
    for sc in scenarios:
        ok, _, _ = sc.run(60_000, seed=11)
        assert not ok.violation, (sc.name, ok.describe())
        bad, _, _ = sc.run(60_000, planted_bug=True, seed=12)
        assert bad.violation, (sc.name, bad.describe())


def test_release_bundle_contains_dp_values_only():
    d = load_survival("veteran")
    grid = _grid(d)
    bundle = sv.release(d.time, d.event, grid=grid, epsilon=1.0, group=d.group, groups=_groups("veteran"),
                        dataset="veteran", fingerprint="abc")
    assert bundle.epsilon == 1.0 and bundle.mechanisms
    assert set(bundle.tables) >= {"counts", "kaplan_meier", "nelson_aalen", "logrank"}
    payload = json.loads(bundle.to_json())
    assert payload["public_parameters"]["sensitivity_l1"] == 2  # the histogram, groups released together
    counts = bundle.tables["counts"]
    exact = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=_groups("veteran"))
    # the released counts are noisy: not all equal to the exact ones
    assert not np.array_equal(counts["events"].to_numpy(), exact.events[..., 0].ravel())
    assert bundle.to_zip()[:2] == b"PK"


def test_running_risk_set_equals_spec_on_exact_counts_and_reduces_bias_on_fine_grids():
    d = load_survival("mgus")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid)
    a, b = sv.postprocess(counts), sv.postprocess(counts, risk_set="running")
    np.testing.assert_array_equal(a.at_risk, b.at_risk)
    noisy = sv.noisy_counts(counts, sv.survival_noise(1.0), rng=np.random.default_rng(0), draws=50)
    run = sv.postprocess(noisy, risk_set="running").at_risk
    assert np.all(np.diff(run, axis=-1) <= 0) and np.all(run >= 0)
    u_spec = sv.utility(counts, 1.0, rng=np.random.default_rng(1), draws=100, kind="discrete_laplace",
                        risk_set="spec")
    u_run = sv.utility(counts, 1.0, rng=np.random.default_rng(1), draws=100, kind="discrete_laplace")  # default
    assert u_run.sup_error.mean() < 0.7 * u_spec.sup_error.mean()
    with pytest.raises(ValueError):
        sv.postprocess(counts, risk_set="other")


def test_noise_aware_logrank_controls_false_positives():
    """Two groups drawn from one distribution: the spec's private test rejects far too often at ε = 1;
    adding the noise variance brings the rejection rate back near α (and is lifelines' test at noise 0)."""
    rng = np.random.default_rng(8)
    n = 200
    t = rng.exponential(300, n)
    e = (rng.random(n) < 0.8).astype(int)
    g = np.where(np.arange(n) % 2 == 0, "a", "b")
    grid = sv.make_grid(1000, data_unit="days", grid_unit="months")
    counts = sv.count_matrix(t, e, grid, group=g, groups=("a", "b"))
    table = sv.postprocess(counts)
    assert sv.logrank_test(table, noise_var=0.0).statistic == pytest.approx(sv.logrank_test(table).statistic)
    noise = sv.survival_noise(1.0, 2)
    noisy = sv.postprocess(sv.noisy_counts(counts, noise, rng=np.random.default_rng(9), draws=400))
    plain = sv.logrank_test(noisy).p_value
    aware = sv.logrank_test(noisy, noise_var=noise.std**2).p_value
    assert sv.logrank_test(table).p_value > 0.2  # the sample itself shows no difference
    assert (plain < 0.05).mean() > 0.3
    assert (aware < 0.05).mean() < 0.15
    uc = sv.utility_curve(counts, [1.0, 3.0], draws=50, rng=np.random.default_rng(1), noise_aware_logrank=True)
    assert uc.p_value.shape == (2, 50)


def test_figures_build_with_expected_traces():
    from dpcore.survival import figures as sf

    d = load_survival("cancer")
    grid = _grid(d)
    counts = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=_groups("cancer"))
    noise = sv.survival_noise(1.0, 2)
    noisy = sv.noisy_counts(counts, noise, rng=np.random.default_rng(0))
    ex, pr = sv.km(sv.postprocess(counts.pooled())), sv.km(sv.postprocess(noisy.pooled()))
    band = sv.noise_band(noisy, noise, rng=np.random.default_rng(1), pool_groups=True)
    fig = sf.headline_figure(pr, ex, noise_band=band, title="pooled")
    names = {t.name for t in fig.data}
    assert {"non-private", "private (one preview draw)", "private: noise-aware band"} <= names
    assert all(t.line.shape == "hv" for t in fig.data if t.mode == "lines" and t.fill != "toself")
    assert sum(t.fill == "toself" for t in fig.data) == 2  # each band one step-shaped outline
    uc = sv.utility_curve(counts, [0.5, 1, 2], draws=20, rng=np.random.default_rng(2))
    ufig = sf.utility_figure(uc, 1.0)
    assert ufig.layout.xaxis.title.text == "ε (log scale)" and ufig.layout.xaxis3.type == "log"
    gfig = sf.groups_figure(sv.km(sv.postprocess(noisy)), sv.km(sv.postprocess(counts)), p_private=0.1,
                            p_exact=0.01)
    assert len(gfig.data) == 4
    many = sv.noisy_counts(counts.pooled(), sv.survival_noise(1.0), rng=np.random.default_rng(3), draws=40)
    dfig = sf.draws_figure(ex.times, sv.km(sv.postprocess(many)).estimate[:, 0], ex.estimate[0])
    assert len(dfig.data) == 4 and np.isnan(dfig.data[0].y).sum() == 30


def test_the_release_log_rank_reads_the_linear_counts_where_n_is_many_noise_sds():
    """logrank_table: the ordinary table on exact counts; the linear consistent counts ("bridge") where the public n
    is at least LOGRANK_LINEAR_MIN noise sds, the monotone fit below; other rules untouched."""
    d = load_survival("mgus")
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit="years", width=4)
    counts = sv.count_matrix(d.time, d.event, grid, group=d.group, groups=d.groups)
    exact = sv.logrank_table(counts, 0.0)
    np.testing.assert_allclose(exact.at_risk, sv.postprocess(counts).at_risk)
    noisy = sv.noisy_counts(counts, sv.survival_noise(1.0), rng=np.random.default_rng(0))
    limit = counts.total / sv.LOGRANK_LINEAR_MIN
    np.testing.assert_array_equal(sv.logrank_table(noisy, limit).at_risk,
                                  sv.postprocess(noisy, risk_set="bridge").at_risk)
    np.testing.assert_array_equal(sv.logrank_table(noisy, 1.01 * limit).at_risk, sv.postprocess(noisy).at_risk)
    np.testing.assert_array_equal(sv.logrank_table(noisy, 0.1, risk_set="spec").at_risk,
                                  sv.postprocess(noisy, risk_set="spec").at_risk)
    assert list(sv.linear_logrank(counts, np.array([[1.0], [limit * 2]])).ravel()) == [True, False]


def test_the_release_log_rank_keeps_its_size_on_mgus_where_the_monotone_fit_did_not():
    """2,000 permuted Mgus data sets (no difference between the groups), one ε = 2 release each, on the default
    grid: the release's test (linear counts) rejects 5.3 % at α = 0.05, on the monotone fit 7.4 %. Seeded, so
    fixed figures (each within a binomial sd of 0.005 of its true size)."""
    d = load_survival("mgus")
    w, unit = sv.default_bin_width(d.horizon, d.time_unit, n=d.time.size, epsilon=2.0, n_groups=2)
    grid = sv.make_grid(d.horizon, data_unit=d.time_unit, grid_unit=unit, width=w)
    rng = np.random.default_rng(12)
    event = (np.asarray(d.event) != 0).astype(np.int64)
    permuted = [sv.count_matrix(d.time, event, grid, group=rng.permutation(d.group), groups=d.groups)
                for _ in range(2000)]
    stacked = permuted[0].from_vector(np.stack([c.vector() for c in permuted]))
    noise = sv.noise_for(stacked, 2.0)
    noisy = sv.noisy_counts(stacked, noise, rng=rng)
    released = sv.logrank_test(sv.logrank_table(noisy, noise.std), noise_var=noise.std**2).p_value
    fitted = sv.logrank_test(sv.postprocess(noisy), noise_var=noise.std**2).p_value
    assert np.mean(released < 0.05) <= 0.06 < np.mean(fitted < 0.05)

"""Hazard ratios from a released histogram: the grouped Cox estimate, its honest interval, its privacy checks."""

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter, datasets

from dpcore import survival as sv
from dpcore.accounting.events import DiscreteLaplace, Gaussian
from dpcore.accounting import events_for_release
from dpcore.survival import hazard_ratio as hr
from dpcore.survival.cox import METHOD, DPCoxPHFitter, cox_noise, cut_at, lifelines_reference
from dpcore.survival.cox_audit import AUDIT_BUGS, audit_scenarios
from dpcore.core.validation import InputError

LIFELINES_COLUMNS = ["coef", "exp(coef)", "se(coef)", "exp(coef) lower 95%", "exp(coef) upper 95%", "z", "p"]


def _lung():
    lung = datasets.load_lung().dropna(subset=["time", "status", "sex"])
    return lung.assign(status=(lung["status"] == 1).astype(int) if lung["status"].max() == 1 else lung["status"])


def _cox(df, t, e, x, horizon):
    frame = pd.DataFrame({"T": np.minimum(df[t], horizon), "E": np.where(df[t] > horizon, 0, df[e]), "x": x})
    return CoxPHFitter().fit(frame, "T", "E").summary.loc["x"]


def test_grouped_estimate_approaches_cox_with_enough_intervals_and_a_rate_ratio_with_one():
    """The estimand: lung by sex (72 % events), exact counts. One interval gives a ratio of event rates (−0.32,
    cox.md), 40 intervals Cox's log HR (−0.53, Breslow ties against lifelines' Efron) with the same SE."""
    lung = datasets.load_lung()
    cox = _cox(lung, "time", "status", (lung["sex"] == 2).astype(float), 1100)
    got = {}
    for k in (1, 8, 40):
        counts = sv.count_matrix(lung["time"], lung["status"], sv.points_grid(1100, k),
                                 group=lung["sex"].astype(str), groups=("1", "2"))
        got[k] = hr.hazard_ratios(counts, None).summary().iloc[0]
    assert got[1]["coef"] == pytest.approx(-0.32, abs=0.01)
    assert abs(got[8]["coef"] - cox["coef"]) < 0.25 * cox["se(coef)"]
    assert abs(got[40]["coef"] - cox["coef"]) < 0.02
    assert got[40]["se(coef)"] == pytest.approx(cox["se(coef)"], rel=0.03)
    assert got[40]["se privacy"] == 0


def test_score_at_zero_is_the_grouped_logrank():
    """``U(0) = O − E`` with the risk set measured by person-time: the first Newton step's numerator."""
    rossi = datasets.load_rossi()
    counts = sv.count_matrix(rossi["week"], rossi["arrest"], sv.points_grid(52, 4), group=rossi["fin"].astype(str),
                             groups=("0", "1"))
    table = hr.table_from_counts(counts)
    y, d = table.exposure, table.events
    expected = (d.sum(-2, keepdims=True) * y / y.sum(-2, keepdims=True))[..., 1, :].sum()
    beta_one_step = (d[..., 1, :].sum() - expected)
    info0 = (d.sum(-2) * (y[..., 1, :] / y.sum(-2)) * (y[..., 0, :] / y.sum(-2))).sum()
    beta, _ = hr.profile_fit(d, y, hr.dummy_design(table.cells))
    assert np.sign(beta[0]) == np.sign(beta_one_step)
    assert beta[0] == pytest.approx(beta_one_step / info0, abs=0.02)  # small effect: one step is nearly the MLE


def test_fitter_has_lifelines_shape_and_matches_lifelines_without_noise():
    rossi = datasets.load_rossi()
    fitter = DPCoxPHFitter(epsilon=1e7, bounds={"fin": (0, 1), "wexp": (0, 1)}, horizon=52, intervals=26)
    fitter.fit(rossi, duration_col="week", event_col="arrest", rng=np.random.default_rng(0))
    assert list(fitter.summary.columns[:7]) == [c for c in LIFELINES_COLUMNS if "lower" not in c or "exp" in c][:3] + \
        ["coef lower 95%", "coef upper 95%", "exp(coef) lower 95%", "exp(coef) upper 95%"]
    assert set(LIFELINES_COLUMNS) <= set(fitter.summary.columns)
    reference = lifelines_reference(rossi, "week", "arrest", fitter)
    assert list(reference.columns) == LIFELINES_COLUMNS
    gap = (fitter.summary["coef"] - reference["coef"]).abs() / reference["se(coef)"]
    assert (gap < 0.05).all(), gap
    assert fitter.summary["se privacy"].max() < 1e-3


def test_stratified_fit_gives_each_stratum_its_own_baseline():
    """Stratified by parole: against lifelines' stratified Cox on the same rows, within a tenth of an SE."""
    rossi = datasets.load_rossi()
    fitter = DPCoxPHFitter(epsilon=1e7, bounds={"fin": (0, 1)}, horizon=52, intervals=26, strata={"paro": ("0", "1")})
    fitter.fit(rossi, "week", "arrest", rng=np.random.default_rng(0))
    reference = lifelines_reference(rossi, "week", "arrest", fitter)
    assert abs(fitter.summary.loc["fin", "coef"] - reference.loc["fin", "coef"]) < 0.1 * reference.loc["fin", "se(coef)"]


def test_interval_adds_privacy_to_sampling_and_significance_is_read_from_it():
    rossi = datasets.load_rossi()
    rows = {}
    for eps in (0.5, 5.0):
        s = DPCoxPHFitter(epsilon=eps, bounds={"fin": (0, 1)}, horizon=52).fit(
            rossi, "week", "arrest", rng=np.random.default_rng(1)).summary.loc["fin"]
        assert s["se(coef)"] ** 2 == pytest.approx(s["se sampling"] ** 2 + s["se privacy"] ** 2)
        assert np.exp(s["coef lower 95%"]) == pytest.approx(s["exp(coef) lower 95%"])
        assert (s["p"] < 0.05) == (s["exp(coef) upper 95%"] < 1 or s["exp(coef) lower 95%"] > 1)
        rows[eps] = s
    assert rows[0.5]["se privacy"] > 4 * rows[5.0]["se privacy"]  # privacy sd ∝ 1/ε (200 redraws: ± 10 %)


def test_categorical_levels_are_declared_and_missing_values_are_one_released_cell():
    df = pd.DataFrame({"T": [1, 2, 3, 4, 5, 6, 7, 8.0], "E": [1, 0, 1, 1, 0, 1, 0, 1],
                       "arm": ["a", "b", "c", "a", "b", None, "c", "a"]})
    fitter = DPCoxPHFitter(epsilon=1e7, bounds={"arm": ("a", "b", "c")}, horizon=10, intervals=2)
    fitter.fit(df, "T", "E", rng=np.random.default_rng(0))
    assert list(fitter.summary.index) == ["arm[b]", "arm[c]"]
    assert fitter.released_.sum() == len(df)  # n from the upload: the incomplete row is counted
    assert fitter.released_[-1] == 1
    with pytest.raises(InputError, match=r"'arm', row 4: the level 'c' is not one of the declared levels"):
        DPCoxPHFitter(epsilon=1, bounds={"arm": ("a", "b")}, horizon=10).fit(df, "T", "E")


def test_binary_values_outside_the_bounds_are_clipped_and_other_inputs_refused_by_name():
    df = pd.DataFrame({"T": [1.0, 2, 3, 4], "E": [1, 1, 0, 1], "x": [0, 1, 0, 1]})
    clipped = df.assign(x=[-3, 7, 0, 1])
    a = DPCoxPHFitter(epsilon=1, bounds={"x": (0, 1)}, horizon=5)._cells(df, "T", "E")
    b = DPCoxPHFitter(epsilon=1, bounds={"x": (0, 1)}, horizon=5)._cells(clipped, "T", "E")
    assert (a == b).all()
    with pytest.raises(InputError, match="row 4: the binary covariate is '0.5'"):
        DPCoxPHFitter(epsilon=1, bounds={"x": (0, 1)}, horizon=5).fit(df.assign(x=[0, 1, 0.5, 1]), "T", "E")
    with pytest.raises(InputError, match="'age' has the range \\(16, 50\\): the histogram fits a continuous covariate cut"):
        DPCoxPHFitter(epsilon=1, bounds={"age": (16, 50)}, horizon=5)
    with pytest.raises(InputError, match="Declare the horizon"):
        DPCoxPHFitter(epsilon=1, bounds={"x": (0, 1)})


# ---- sensitivity: cox.md test 1 on the released histogram -----------------------------------------------------


def _histogram(df, **kw):
    fitter = DPCoxPHFitter(epsilon=1.0, bounds={"x": (0, 1)}, horizon=10, intervals=3, **kw)
    return fitter._cells(df, "T", "E"), fitter


def _l1(df_a, df_b, **kw):
    (ia, fa), (ib, fb) = _histogram(df_a, **kw), _histogram(df_b, **kw)
    size = fa.design.size
    assert fa.noise == fb.noise  # the scale reads public inputs only: identical for both neighbours
    return np.abs(np.bincount(ia, minlength=size) - np.bincount(ib, minlength=size)).sum()


def _replace_last(df, **row):
    out = df.copy()
    out.iloc[-1] = pd.Series(row)
    return out


@pytest.mark.parametrize("pair", ["bounds-early", "risk-set-one", "all-lo-one-hi", "out-of-box", "missing"])
def test_worst_pairs_move_the_histogram_by_at_most_its_sensitivity(pair):
    base = pd.DataFrame({"T": [2.0, 3, 4, 5, 6, 7], "E": [1, 1, 1, 1, 1, 0], "x": [0.0, 0, 0, 0, 0, 0]})
    a = _replace_last(base, T=0.1, E=1, x=1.0)
    b = {"bounds-early": _replace_last(base, T=50.0, E=0, x=0.0),  # cox.md Theorem 1's pair
         "risk-set-one": _replace_last(base, T=9.5, E=0, x=1.0),
         "all-lo-one-hi": base,
         "out-of-box": _replace_last(base, T=0.1, E=1, x=9.0),
         "missing": _replace_last(base, T=0.1, E=1, x=np.nan)}[pair]
    if pair == "risk-set-one":  # the last event at a risk set of one against the same person censored
        a = _replace_last(base, T=9.5, E=1, x=1.0)
    moved = _l1(a, b)
    assert moved <= cox_noise(1.0).sensitivity
    assert moved == (0 if pair == "out-of-box" else 2)


def test_random_neighbours_with_ties_and_corners_never_exceed_the_sensitivity():
    """2,000 random replace-one pairs, n = 3…12, times on a coarse lattice (ties), x at the corners or outside."""
    rng = np.random.default_rng(7)
    worst = 0
    for _ in range(2000):
        n = int(rng.integers(3, 13))
        df = pd.DataFrame({"T": rng.integers(0, 14, n).astype(float), "E": rng.integers(0, 2, n),
                           "x": rng.choice([-1.0, 0.0, 1.0, 2.0], n)})
        other = df.copy()
        i = int(rng.integers(n))
        other.loc[i] = [float(rng.integers(0, 14)), int(rng.integers(0, 2)), float(rng.choice([0.0, 1.0, 3.0]))]
        worst = max(worst, _l1(df, other, strata=None))
    assert worst == 2


def test_a_covariate_cut_at_public_points_keeps_the_sensitivity():
    """One person replaced while crossing every cut point at once (lowest interval to highest, event to censoring,
    first time interval to past the horizon), and 500 random pairs: the histogram moves by at most 2, the noise
    reads public inputs only."""
    def cells(df):
        fitter = DPCoxPHFitter(epsilon=1.0, bounds={"x": cut_at(1, 2, 3)}, horizon=10, intervals=3)
        return np.bincount(fitter._cells(df, "T", "E"), minlength=fitter.design.size), fitter.noise

    base = pd.DataFrame({"T": [2.0, 3, 4, 5, 6, 7], "E": [1, 1, 1, 1, 1, 0], "x": [0.5, 1.5, 2.5, 3.5, 0.0, 9.0]})
    worst = _replace_last(base, T=0.1, E=1, x=-50.0), _replace_last(base, T=50.0, E=0, x=50.0)
    (ha, na), (hb, nb) = cells(worst[0]), cells(worst[1])
    assert na == nb and np.abs(ha - hb).sum() == 2
    rng = np.random.default_rng(3)
    for _ in range(500):
        n = int(rng.integers(3, 10))
        df = pd.DataFrame({"T": rng.integers(0, 14, n).astype(float), "E": rng.integers(0, 2, n),
                           "x": rng.choice([0.0, 1.0, 1.5, 2.0, 3.0, 7.0, np.nan], n)})
        other = df.copy()
        other.loc[int(rng.integers(n))] = [float(rng.integers(0, 14)), int(rng.integers(0, 2)),
                                           float(rng.choice([-1.0, 1.0, 2.5, 3.0, np.nan]))]
        assert np.abs(cells(df)[0] - cells(other)[0]).sum() <= 2


# ---- black-box audit: cox.md tests 2–3 ------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(3))
def test_audit_passes_the_release_and_catches_each_planted_bug(index):
    """Preview path, 100,000 runs, 99 % confidence, seeded (deterministic)."""
    scenario = audit_scenarios(1.0)[index]
    good, _, _ = scenario.run(100_000, seed=11)
    assert not good.violation, good.describe()
    bad, _, _ = scenario.run(100_000, planted_bug=True, seed=11)
    assert bad.violation, f"{scenario.planted_bug_label}: {bad.describe()}"
    assert scenario.planted_bug_label in AUDIT_BUGS.values()


def test_audit_on_the_opendp_release_path_catches_the_halved_noise():
    """OpenDP draws are not seeded: 1 − 10⁻⁵ confidence keeps a false alarm rarer than 1e-4 per run."""
    scenario = audit_scenarios(1.0)[0]
    good, _, _ = scenario.run(20_000, path="release", confidence=1 - 1e-5)
    assert not good.violation, good.describe()
    bad, _, _ = scenario.run(20_000, planted_bug=True, path="release", confidence=1 - 1e-5)
    assert bad.violation, bad.describe()


# ---- accounting and release ------------------------------------------------------------------------------------


def test_accounting_events_of_a_release_are_its_noise():
    rossi = datasets.load_rossi()
    bundle = DPCoxPHFitter(epsilon=1.5, bounds={"fin": (0, 1)}, horizon=52).fit(rossi, "week", "arrest").release_bundle()
    (event,) = events_for_release(METHOD, 1.5, 0.0, params=bundle.public_params)
    assert event == DiscreteLaplace(2 / 1.5, 2)
    assert event.basic() == pytest.approx((1.5, 0.0))
    gaussian = DPCoxPHFitter(epsilon=1.5, delta=1e-6, bounds={"fin": (0, 1)}, horizon=52)
    (g,) = events_for_release(METHOD, 1.5, 1e-6, params={"noise_kind": gaussian.noise.kind})
    assert isinstance(g, Gaussian) and g.basic() == pytest.approx((1.5, 1e-6))
    assert set(bundle.tables) >= {"hazard_ratios", "released_histogram", "per_interval_hazard_ratios"}
    assert bundle.tables["released_histogram"]["count"].sum() != 0


def test_preview_fit_cannot_be_exported():
    rossi = datasets.load_rossi()
    fitter = DPCoxPHFitter(epsilon=1, bounds={"fin": (0, 1)}, horizon=52).fit(
        rossi, "week", "arrest", rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="preview"):
        fitter.release_bundle()


# ---- proportional-hazards check --------------------------------------------------------------------------------


def test_per_interval_ratios_find_crossing_hazards_and_not_proportional_ones():
    """Exact counts: waltons' groups have hazards that diverge over time (a trend); rossi's `fin` has none."""
    waltons = datasets.load_waltons()
    w = DPCoxPHFitter(epsilon=1e7, bounds={"group": ("control", "miR-137")}, horizon=75, intervals=5)
    w.fit(waltons, "T", "E", rng=np.random.default_rng(0))
    rossi = datasets.load_rossi()
    r = DPCoxPHFitter(epsilon=1e7, bounds={"fin": (0, 1)}, horizon=52, intervals=4)
    r.fit(rossi, "week", "arrest", rng=np.random.default_rng(0))
    trend_w = w.proportional_hazards_check(rng=np.random.default_rng(0)).trend.iloc[0]
    trend_r = r.proportional_hazards_check(rng=np.random.default_rng(0))
    assert trend_w["p"] < 0.01, trend_w
    assert trend_r.trend.iloc[0]["p"] > 0.2
    assert len(trend_r.per_interval) == 4 and trend_r.per_interval["log_hr"].notna().all()


# ---- figures ---------------------------------------------------------------------------------------------------


def test_forest_and_check_figures_draw_the_private_and_the_reference_intervals():
    from dpcore.survival import figures as sf

    rossi = datasets.load_rossi()
    fitter = DPCoxPHFitter(epsilon=2, bounds={"fin": (0, 1)}, horizon=52, intervals=4).fit(
        rossi, "week", "arrest", rng=np.random.default_rng(0))
    forest = sf.forest_figure(fitter.summary, lifelines_reference(rossi, "week", "arrest", fitter), epsilon=2)
    private, reference = forest.data
    assert private.x[0] == pytest.approx(fitter.summary.loc["fin", "exp(coef)"])
    assert private.x[0] + private.error_x.array[0] == pytest.approx(fitter.summary.loc["fin", "exp(coef) upper 95%"])
    assert "lifelines" in reference.name
    check = fitter.proportional_hazards_check(rng=np.random.default_rng(0))
    assert len(sf.per_interval_figure(check.per_interval).data[0].x) == 4
    curve = pd.DataFrame({"epsilon": [1.0, 2.0], "median_abs_diff": [0.2, 0.1], "q90_abs_diff": [0.4, 0.2],
                          "share_significant": [0.3, 0.6]})
    assert len(sf.hazard_ratio_utility_figure(curve, chosen=1.0).data) == 3


def test_default_intervals_follow_public_inputs_only():
    from dpcore.survival.cox import default_intervals

    assert default_intervals(1.0, expected_event_share=0.08) == 1  # a trial designed for few events
    assert default_intervals(1.0) == 2 and default_intervals(5.0) == 4
    # with n: as many as keep 50/ε expected events per cell and interval (democracy durations: 16 at ε = 2)
    assert default_intervals(2.0, n=1808) == 16 and default_intervals(2.0, n=1808, expected_event_share=0.16) == 4
    assert default_intervals(0.5, n=228) == 2 and default_intervals(10.0, n=10**6) == 32
    assert DPCoxPHFitter(epsilon=2, bounds={"fin": (0, 1)}, horizon=52, n=1808).design.shape[2] == 16
    assert DPCoxPHFitter(epsilon=2, bounds={"g": ("a", "b", "c", "d")}, horizon=52, n=1808).design.shape[2] == 8
    rossi = datasets.load_rossi()
    assert DPCoxPHFitter(epsilon=1, bounds={"fin": (0, 1)}, horizon=52).design.shape[2] == 2
    fitted = DPCoxPHFitter(epsilon=1, bounds={"fin": (0, 1)}, horizon=52).fit(
        rossi.assign(arrest=0), "week", "arrest", rng=np.random.default_rng(0))
    assert fitted.design.shape[2] == 2  # the data (here: no events at all) never change the intervals


def test_stratified_hazard_ratio_is_post_processing_of_the_survival_release():
    """The survival page's histogram with groups declared as stratum × arm: one ratio across strata, each with its
    own baseline, against lifelines' stratified Cox; a noisy release gets a privacy SE from the noise's law."""
    rossi = datasets.load_rossi()
    labels = hr.stratified_labels(("0", "1"), ("0", "1"))
    group = rossi["paro"].astype(str) + hr.STRATUM_SEPARATOR + rossi["fin"].astype(str)
    counts = sv.count_matrix(rossi["week"], rossi["arrest"], sv.points_grid(52, 26), group=group, groups=labels)
    exact = hr.hazard_ratios(counts, None, strata=2).summary().iloc[0]
    frame = pd.DataFrame({"T": rossi["week"], "E": rossi["arrest"], "fin": rossi["fin"], "paro": rossi["paro"]})
    cox = CoxPHFitter().fit(frame, "T", "E", strata=["paro"]).summary.loc["fin"]
    assert abs(exact["coef"] - cox["coef"]) < 0.05 * cox["se(coef)"]
    noise = sv.noise_for(counts, 1.0)
    noisy = sv.noisy_counts(counts, noise, rng=np.random.default_rng(3))
    released = hr.hazard_ratios(noisy, noise, strata=2, every=13, rng=np.random.default_rng(4)).summary().iloc[0]
    assert released["se privacy"] > 0.05 and np.isfinite(released["coef"])


def test_the_interval_carries_the_monte_carlo_error_of_the_privacy_variance():
    """The privacy variance comes from B redraws: Student's t with Satterthwaite's degrees of freedom, wider than the
    normal interval for few redraws; without noise the normal one."""
    from scipy import stats

    fit = hr.HazardRatioFit(("x",), np.array([0.5]), np.array([[0.01]]), np.array([[0.03]]), privacy_df=9.0)
    assert fit.df[0] == pytest.approx(0.04 ** 2 * 9 / 0.03 ** 2)  # 16
    assert fit.half_width[0] == pytest.approx(stats.t.ppf(0.975, 16) * 0.2) and fit.half_width[0] > 1.96 * 0.2
    assert fit.p_value[0] == pytest.approx(2 * stats.t.sf(2.5, 16))
    row = fit.summary().iloc[0]
    assert row["coef lower 95%"] == pytest.approx(0.5 - fit.half_width[0]) and row["p"] == pytest.approx(fit.p_value[0])
    exact = hr.HazardRatioFit(("x",), np.array([0.5]), np.array([[0.01]]), np.zeros((1, 1)), privacy_df=9.0)
    assert exact.half_width[0] == pytest.approx(stats.norm.ppf(0.975) * 0.1)


def test_the_frontier_is_the_smallest_epsilon_from_which_an_effect_stays_significant():
    """A share that dips below 60 % at a larger ε does not count from before the dip; never reaching it is NaN; the
    rows may come in any order of ε."""
    from dpcore.survival.cox import significance_frontier

    shares = pd.DataFrame({"dips": [0.3, 0.7, 0.9, 1.0], "rises": [0.65, 0.5, 0.8, 0.95], "weak": [0, 0.1, 0.2, 0.59]},
                          index=[5.0, 1.0, 2.0, 10.0])
    got = significance_frontier(shares)
    assert got["dips"] == 10.0 and got["rises"] == 2.0 and np.isnan(got["weak"])


def test_private_fits_approach_the_grouped_model_as_epsilon_grows():
    """What the trade-off curve levels off at: the grouped model on the exact counts (its distance from Cox is the
    grouping's bias, not noise)."""
    rng = np.random.default_rng(4)
    n = 600
    x = rng.integers(0, 2, n)
    t, c = rng.exponential(1 / (0.02 * np.exp(0.7 * x))), rng.uniform(10, 120, n)
    df = pd.DataFrame({"T": np.minimum(t, c), "E": (t <= c).astype(int), "x": x})
    errors = []
    for eps in (0.5, 5.0, 1e6):
        fitter = DPCoxPHFitter(epsilon=eps, bounds={"x": (0, 1)}, horizon=100, intervals=4)
        grouped = fitter.grouped_reference(df, "T", "E")
        sims = fitter.simulate(df, "T", "E", draws=50, rng=np.random.default_rng(5), redraws=10)
        errors.append(float(np.median(np.abs(sims.coef[:, 0] - grouped[0]))))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-3, errors

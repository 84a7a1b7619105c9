"""AdaSSP (Wang 2018): sensitivities on adversarial neighbours, ε → ∞ is OLS, OpenDP release, audit, diabetes target."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.core import mechanisms
from dpcore.regression import linalg
from dpcore.regression.adassp import adassp, adassp_features, adassp_sensitivities
from dpcore.regression.audit import adassp_scenarios


def _stats(X, y):
    xx = X.T @ X
    return np.linalg.eigvalsh(xx)[0], linalg.triu_pack(xx), X.T @ y


def _unit_rows(rng, n, d):
    X = rng.standard_normal((n, d))
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0) * rng.uniform(0, 1, (n, 1))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.sampled_from(["random", "orthogonal", "flip", "extreme"]))
def test_sensitivities_hold_for_replace_one_neighbours(seed, d, kind):
    """Random and adversarial replace-one pairs (rows of norm ≤ 1, |y| ≤ By): every statistic moves ≤ its Δ2."""
    rng = np.random.default_rng(seed)
    by = 2.5
    X, y = _unit_rows(rng, 12, d), rng.uniform(-by, by, 12)
    X2, y2 = X.copy(), y.copy()
    if kind == "random":
        X2[0], y2[0] = _unit_rows(rng, 1, d)[0], rng.uniform(-by, by)
    elif kind == "orthogonal":  # two orthogonal unit rows: XᵀX's upper triangle moves by exactly √2 (d ≥ 2)
        X[0], X2[0] = np.eye(d)[0], np.eye(d)[-1]
    elif kind == "flip":  # the same unit row with its response flipped between ±By: Xᵀy moves by exactly 2By
        X[0] = X2[0] = np.ones(d) / math.sqrt(d)
        y[0], y2[0] = by, -by
    else:  # one record touching every output at once: a unit row at By replaced by its negative at −By
        X[0], X2[0] = np.ones(d) / math.sqrt(d), -np.ones(d) / math.sqrt(d)
        y[0], y2[0] = by, -by
    s_min, s_xx, s_xy = adassp_sensitivities(by)
    a, b = _stats(X, y), _stats(X2, y2)
    assert abs(a[0] - b[0]) <= s_min + 1e-9
    assert np.linalg.norm(a[1] - b[1]) <= s_xx + 1e-9
    assert np.linalg.norm(a[2] - b[2]) <= s_xy + 1e-9
    if kind == "orthogonal" and d >= 2:
        assert np.linalg.norm(a[1] - b[1]) == pytest.approx(s_xx)
    if kind == "flip":
        assert np.linalg.norm(a[2] - b[2]) == pytest.approx(s_xy)


def _problem(seed=0, n=300, d=4):
    rng = np.random.default_rng(seed)
    Xa = adassp_features(linalg_rows(rng.standard_normal((n, d))))
    y = Xa @ rng.standard_normal(d + 1) * 3 + 0.3 * rng.standard_normal(n)
    return Xa, y


def linalg_rows(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_infinite_epsilon_is_ordinary_least_squares_and_large_epsilon_approaches_it():
    Xa, y = _problem()
    ols = np.linalg.lstsq(Xa, y, rcond=None)[0]
    exact = adassp(Xa, y, epsilon=math.inf, delta=1e-6, by=math.inf)
    np.testing.assert_allclose(exact.coef, ols, atol=1e-9)
    by = float(np.abs(y).max())
    errs = [np.median(np.abs(adassp(Xa, y, epsilon=e, delta=1e-6, by=by, rng=np.random.default_rng(1),
                                    draws=50).coef - ols).max(-1)) for e in (1e3, 1e5, 1e7)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 1e-3 * np.abs(ols).max()


def test_release_draws_every_statistic_through_opendp(monkeypatch):
    calls = []
    real = mechanisms._opendp_release

    def spy(values, kind, scale):
        calls.append((kind, np.shape(values)))
        return real(values, kind, scale)

    monkeypatch.setattr(mechanisms, "_opendp_release", spy)
    Xa, y = _problem(n=100, d=3)
    fit = adassp(Xa, y, epsilon=2.0, delta=1e-6, by=5.0)
    assert [k for k, _ in calls] == ["gaussian"] * 3
    assert sorted(s for _, s in calls) == sorted([(), (10,), (4,)])
    assert fit.coef.shape == (4,) and np.all(np.isfinite(fit.coef)) and fit.lam >= 0


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_adassp_audit_passes_and_catches_the_planted_bug(epsilon):
    """100k runs per side at confidence 0.99 (the harness's default); seeds fixed, so the outcome is deterministic."""
    for k, sc in enumerate(adassp_scenarios(epsilon)):
        ok, _, _ = sc.run(100_000, seed=11 + k)
        assert not ok.violation, (sc.name, ok.describe())
        bad, _, _ = sc.run(100_000, planted_bug=True, seed=101 + k)
        assert bad.violation, (sc.name, sc.planted_bug_label, bad.describe())


def test_diabetes_target_with_public_ranges():
    """The default release's target on real data with public ranges (442 patients, 110 held out, 332 private): AdaSSP's median
    held-out R² at ε = 10 is at least half the non-private OLS fit's, and within 0.02 of it at ε = 10⁶."""
    from dpcore.regression.evaluation import monte_carlo_cv
    from dpcore.regression.examples import diabetes_example

    ex = diabetes_example()
    res = monte_carlo_cv(ex.X, ex.y, epsilons=[10.0, 1e6], sizes=[332], repeats=20, n_test=110, n_nonprivate=0,
                         x_bounds=ex.x_bounds, y_bounds=ex.y_bounds, rng=0,
                         omegas=lambda n, d, e, sp: (0.1, 1.4) if e < 100 else (16.0, 16.0))  # the search's choices
    ada = np.median(res.r2[res.model("AdaSSP"), 0], axis=-1)
    ols = ada[1]  # ε = 10⁶: the same pipeline without noise to 1e-5
    assert ols > 0.4
    assert ada[0] >= 0.5 * ols, ada
    robust = np.median(res.r2[res.model("robust private LR"), 0], axis=-1)
    assert robust[0] > 0.0 and abs(robust[1] - np.median(res.r2[0, 0, 1])) < 0.02  # on the response's scale


def _diabetes_split(seed=0):
    from dpcore.regression.examples import diabetes_example

    ex = diabetes_example()
    perm = np.random.default_rng(seed).permutation(ex.y.size)
    return ex, perm[:110], perm[110:]


def test_release_bundle_charges_delta_and_separates_derived_values(monkeypatch):
    """The page's default release: OpenDP Gaussian noise on the three statistics (Laplace for the DP centre and
    scale), ε parts summing to the total, δ = 1/n², DP-derived values apart from the public inputs, and a
    coefficients table with an intercept row and a noise standard deviation per coefficient."""
    from dpcore import regression as R

    calls = []
    real = mechanisms._opendp_release
    monkeypatch.setattr(mechanisms, "_opendp_release",
                        lambda values, kind, scale: calls.append(kind) or real(values, kind, scale))
    ex, _, train = _diabetes_split()
    X, y = ex.X[train], ex.y[train]
    prep = R.prepare(X, y, x_bounds=ex.x_bounds, y_bounds=ex.y_bounds, epsilon=1.0, release=True)
    bundle = R.release_adassp(X, y, prep=prep, epsilon=9.0, delta=R.adassp_delta(y.size), public=None,
                              feature_names=ex.names, unit="patient")
    assert sorted(calls) == ["gaussian"] * 3 + ["laplace"] * 2
    assert bundle.epsilon == pytest.approx(10.0) and bundle.delta == pytest.approx(1.0 / y.size**2)
    assert math.fsum(bundle.parts.values()) == pytest.approx(10.0)
    assert bundle.unit == "patient" and bundle.method == R.ADASSP
    assert {"response centre", "σy", "By", "ridge λ (from the noisy λ_min)"} <= set(bundle.derived_params)
    assert not {"response centre", "σy", "By"} & set(bundle.public_params)
    coef = bundle.tables["coefficients"]
    assert list(coef["feature"]) == list(ex.names) + [R.INTERCEPT]
    assert np.all(coef["noise_sd"] > 0) and np.all(np.isfinite(coef["coefficient"]))
    # the intercept is on the response's scale: within the public range
    assert ex.y_bounds[0] < coef["coefficient"].iloc[-1] < ex.y_bounds[1]


def test_robust_release_lists_dp_centre_as_derived_and_has_intercept_and_posterior_sd():
    from dpcore import regression as R

    ex, _, train = _diabetes_split()
    X, y = ex.X[train], ex.y[train]
    prep = R.prepare(X, y, x_bounds=ex.x_bounds, y_bounds=ex.y_bounds, epsilon=1.0, release=True)
    bundle = R.release(X, y, prep=prep, epsilon=9.0, omega_x=0.1, omega_y=1.4, public=None, unit="patient")
    assert {"response centre", "σy", "By"} <= set(bundle.derived_params)
    assert "response centre" not in bundle.public_params and bundle.public_params["Bx"] > 0
    coef = bundle.tables["coefficients"]
    assert coef["feature"].iloc[-1] == R.INTERCEPT and coef["coefficient"].iloc[-1] == prep.y_centre
    assert coef["posterior_sd"].iloc[-1] == pytest.approx(prep.centre_sd) and np.all(coef["posterior_sd"] > 0)
    public_prep = R.prepare(X, y, x_bounds=ex.x_bounds, y_bounds=ex.y_bounds, y_centre="public", sigma_y="public")
    public_bundle = R.release(X, y, prep=public_prep, epsilon=9.0, omega_x=0.1, omega_y=1.4, public=None)
    assert public_bundle.derived_params == {} and public_bundle.tables["coefficients"]["posterior_sd"].iloc[-1] == 0


def test_page_default_preview_reaches_least_squares_as_epsilon_grows():
    """ε → ∞ with the page's defaults (DP centre and scale on 10 % of ε, By = ωy(ε) σy): the AdaSSP preview's held-out
    R² reaches the non-private OLS fit's within 0.002, its coefficients come within 1 % of OLS's largest at ε = 10⁸, and more ε
    brings them closer (the clipping of y relaxes as √ε, so no bias is left)."""
    from dpcore.regression.adassp import ADASSP
    from dpcore.regression.evaluation import preview_fit

    ex, test, train = _diabetes_split()
    errs = []
    for eps in (1e4, 1e6, 1e8):
        pv = preview_fit(ex.X, ex.y, private=train, public=np.array([], int), test=test, x_bounds=ex.x_bounds,
                            y_bounds=ex.y_bounds, x_centre="public", y_centre="dp", sigma_y="dp", eps_prep=0.1 * eps,
                            eps_stat=0.9 * eps, delta=1.0 / train.size**2, rng=np.random.default_rng(3), draws=40,
                         method=ADASSP)
        errs.append(np.median(np.abs(pv.coef - pv.coef_nonprivate).max(-1)) / np.abs(pv.coef_nonprivate).max())
    ols = np.linalg.lstsq(adassp_features(pv.prep.transform(ex.X[train])) * math.sqrt(2.0),
                          ex.y[train] - ex.y[train].mean(), rcond=None)[0]
    np.testing.assert_allclose(pv.coef_nonprivate, ols[:-1], rtol=1e-8, atol=1e-8)  # the reference is OLS
    assert abs(np.median(pv.r2) - pv.r2_nonprivate) < 0.002 and pv.r2_nonprivate > 0.4
    assert errs[0] > errs[1] > errs[2] and errs[2] < 0.01, errs  # analytic Gaussian σ falls as ~1/√ε at large ε

"""The paper's model reproduces the paper: robust private LR with fixed precisions λ = λ0 = 1 and
the priors off takes no ridge anywhere (preview, CV, one fit), equal to the spec's closed form on the same noisy
statistics; the ridge of the noise's scale is the labelled default with the Gamma priors only, and the paper's method
is one click away on the page."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.support.page_views import unfold_settings

from dpcore.regression import estimator, evaluation
from dpcore.regression.estimator import robust_private_lr

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "regression.py")
N, D = 300, 6


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, D))
    X = X - X.mean(0)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = X @ rng.standard_normal(D) + rng.standard_normal(N)
    return X, y - y.mean()


def _huge_ridge(scale):
    return 1e6 * np.ones_like(np.asarray(scale, dtype=float))


def test_paper_mode_posterior_is_the_closed_form_without_ridge():
    X, y = _data()
    fit = robust_private_lr(X, y, epsilon=2.0, bx=0.2, by=2.0, priors=False, rng=np.random.default_rng(1))
    w, v = np.linalg.eigh(fit.noisy_stats.nxx)  # the spec: Λ* = λ0 I + λ nxx (nxx made PSD), μ* = Λ*^{-1} λ nxy
    closed = v @ ((v.T @ fit.noisy_stats.nxy) / (1.0 + np.clip(w, 0.0, None)))
    np.testing.assert_allclose(fit.coef, closed, rtol=1e-10, atol=1e-12)
    with mock.patch.object(estimator, "noise_ridge", _huge_ridge):  # no ridge reaches the paper's mode
        again = robust_private_lr(X, y, epsilon=2.0, bx=0.2, by=2.0, priors=False, rng=np.random.default_rng(1))
        vb = robust_private_lr(X, y, epsilon=2.0, bx=0.2, by=2.0, priors=True, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(again.coef, fit.coef)
    plain = robust_private_lr(X, y, epsilon=2.0, bx=0.2, by=2.0, priors=True, rng=np.random.default_rng(1))
    assert not np.allclose(vb.coef, plain.coef)  # the default (priors) does use the ridge


def test_paper_mode_cv_and_preview_take_no_ridge():
    X, y = _data(2)
    cv = dict(epsilons=[1.0, 4.0], sizes=[200], repeats=3, n_test=50, x_bounds=(-1.0, 1.0), y_bounds=(-5.0, 5.0),
              x_centre=None, y_centre=0.0, sigma_y=1.0, omegas=lambda n, d, e, p: (0.5, 1.0))
    rows = np.arange(N)
    pv = dict(private=rows[:200], public=rows[:0], test=rows[200:], x_bounds=(-1.0, 1.0), y_bounds=(-5.0, 5.0),
              x_centre=None, y_centre=0.0, sigma_y=1.0, eps_prep=0.0, eps_stat=2.0, draws=5, omegas=(0.5, 1.0))
    for priors, same in ((False, True), (True, False)):
        base_cv = evaluation.monte_carlo_cv(X, y, priors=priors, rng=3, **cv).rho
        base_pv = evaluation.preview_fit(X, y, priors=priors, rng=np.random.default_rng(4), **pv).coef
        with mock.patch.object(evaluation, "noise_ridge", _huge_ridge):
            ridged_cv = evaluation.monte_carlo_cv(X, y, priors=priors, rng=3, **cv).rho
            ridged_pv = evaluation.preview_fit(X, y, priors=priors, rng=np.random.default_rng(4), **pv).coef
        assert np.array_equal(base_cv, ridged_cv, equal_nan=True) == same
        assert np.array_equal(base_pv, ridged_pv) == same


def test_the_papers_method_is_one_click_away_and_the_ridge_is_labelled():
    at = AppTest.from_file(PAGE, default_timeout=180)
    unfold_settings(at, "regression")
    at.run()
    assert not at.exception, at.exception
    assert at.radio(key="rg_method").value == "adassp" and at.toggle(key="rg_priors").value is True
    priors = at.toggle(key="rg_priors")  # a short label that fits; its help says it is not the paper's model
    assert "ridge" in priors.label and "not the paper" in priors.help and "the paper's model" in priors.help
    assert "robust private LR (Honkela et al.)" in at.radio(key="rg_method").options
    at.button(key="rg_paper").click().run()
    assert not at.exception, at.exception
    assert at.radio(key="rg_method").value == "robust" and at.toggle(key="rg_priors").value is False
    assert at.query_params.get("rg_method") == "robust" and at.query_params.get("rg_priors") == "false"

"""dpcore.regression.session: the drug-sensitivity page's computation without Streamlit (seed streams, preview,
CV runs, the release's charged parts) and the notebook's use of the same seed streams."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import regression as R
from dpcore.notebooks import RegressionConfig
from dpcore.notebooks.regression import cells
from dpcore.regression import page_text as T
from dpcore.regression import session as S


def _settings(**kw) -> S.Settings:
    base = dict(n_test=40, n_priv=120, method=R.ADASSP, priors=True, y_centre="dp", sigma_y="dp", prep_share=0.05,
                seed=3, split=R.DEFAULT_SPLIT)
    return S.Settings(**{**base, **kw})


@pytest.fixture(scope="module")
def src() -> S.Source:
    return S.synthetic_source(300, 4, 1.0, 1, 10)


def test_seed_streams_are_the_page_s_offsets():
    """The split and preview, and the CV over ε, draw from the preview seed itself; the CV over sizes from the next
    integer (the page's numbers before the streams were named)."""
    assert [S.stream(7, name) for name in ("preview", "sweep", "sizes")] == [7, 7, 8]
    with pytest.raises(KeyError):
        S.stream(7, "utility")


def test_cv_runs_seed_each_run_from_its_stream():
    s = _settings(n_priv=300)
    by_eps, by_size = S.cv_runs(s, epsilon=2.0, repeats=5, over_sizes=True)
    assert (by_eps["epsilons"], by_eps["sizes"], by_eps["seed"]) == (S.EPS_SWEEP, (300,), S.stream(3, "sweep"))
    assert (by_size["epsilons"], by_size["seed"]) == ((2.0,), S.stream(3, "sizes"))
    assert by_size["sizes"] == S.cv_sizes(300) and by_size["sizes"][-1] == 300
    assert all(v >= 20 and v % 10 == 0 for v in by_size["sizes"])
    assert S.cv_runs(s, epsilon=2.0, repeats=5, over_sizes=False) == [by_eps]


def test_preview_splits_with_the_preview_stream(src):
    """The split is a permutation of the private records by the generator seeded from stream "preview", and the
    preview is reproducible from the seed alone."""
    s = _settings()
    run = S.preview(src, s, epsilon=1.0, omegas=(0.1, 0.5))
    rest = np.flatnonzero(~src.public)
    perm = rest[np.random.default_rng(S.stream(s.seed, "preview")).permutation(rest.size)]
    np.testing.assert_array_equal(run.test, perm[:40])
    np.testing.assert_array_equal(run.priv, perm[40:160])
    assert not set(run.test) & set(np.flatnonzero(src.public))
    again = S.preview(src, s, epsilon=1.0, omegas=(0.1, 0.5))
    np.testing.assert_array_equal(run.fit.rho, again.fit.rho)
    assert run.fit.rho.size == S.PREVIEW_DRAWS
    other = S.preview(src, _settings(seed=4), epsilon=1.0, omegas=(0.1, 0.5))
    assert not np.array_equal(run.test, other.test)


@pytest.mark.parametrize("method,yc", [(R.ADASSP, "dp"), (R.METHOD, "dp"), (R.METHOD, "public"), (R.ADASSP, "public")])
def test_charged_parts_add_up_to_epsilon(method, yc):
    s = _settings(method=method, y_centre=yc, sigma_y=yc, prep_share=0.1 if yc == "dp" else 0.0)
    parts = S.charged_parts(s, 2.0)
    assert S.total_epsilon(parts) == pytest.approx(2.0, abs=1e-12)
    assert ("response centre" in parts) == (yc == "dp") and ("nxx" in parts) == (method == R.METHOD)
    assert s.budget(2.0)[0] == (pytest.approx(0.2) if yc == "dp" else 0.0)
    assert s.delta == (0.0 if method == R.METHOD else R.adassp_delta(120))


def test_an_upload_is_blocked_until_its_unit_and_ranges_are_given(src):
    kw = dict(name="mine.csv", fp="f", X=src.X, y=src.y, public=np.zeros(src.y.size, bool), response="y",
              features=("a", "b", "c", "d"), mark=None, x_bounds=(-1.0, 1.0), y_bounds=src.y_bounds, persons=None)
    blocked = S.upload_source(unit="", confirmed=False, **kw)
    assert blocked.blocked == ("Before a release, name the unit of privacy and confirm the public ranges (above the "
                               "charts).") and blocked.unit == "one row (not named yet)"
    with pytest.raises(ValueError, match="name the unit"):
        S.release(blocked, _settings(), epsilon=1.0, priv=np.arange(100), omegas=(0.1, 0.5), tuning=None)
    ready = S.upload_source(unit="patient", confirmed=True, **kw)
    assert ready.blocked is None and ready.unit == "one patient" and ready.ids[0] == "row 2"
    bundle = S.release(ready, _settings(), epsilon=1.0, priv=np.arange(100), omegas=(0.1, 0.5), tuning=None)
    assert bundle.method == R.ADASSP and bundle.unit == "patient" and math.isclose(bundle.epsilon, 1.0)


def test_the_notebook_draws_from_the_same_named_streams():
    config = RegressionConfig(source="synthetic", epsilon=1.0, seed=5, n_test=40, n_private=120, omegas=(0.1, 0.5),
                              split=R.DEFAULT_SPLIT)
    code = "\n".join(c.code for c in cells(config))
    assert "from dpcore.regression.session import stream" in code
    assert "np.random.default_rng(stream(SEED, 'preview'))" in code and "rng=stream(SEED, 'sweep')" in code


def test_the_answer_says_how_close_the_private_model_comes():
    class Fit:
        rho, rho_nonprivate = np.array([0.1, 0.2, 0.3]), 0.4

    rho, rho_np, verdict = S.answer(Fit)
    assert (rho, rho_np) == (0.2, 0.4) and "less well" in verdict
    assert "about as well" in T.verdict(0.95, 0.4) and "does not predict" in T.verdict(float("nan"), -0.1)

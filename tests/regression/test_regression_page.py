"""AppTest for the drug-sensitivity page: GDSC, ε change, views (only the open one computed), links, synthetic,
manual ω, bad split, uploads, release."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, chart_keys, unfold_settings
from tests.support.pages import ok, regression_release, regression_upload
from tests.support.uploads import FakeUpload, diabetes_like_csv

from dpcore.regression import session as S

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "regression.py")
ADASSP, ROBUST = "adassp", "robust"  # the method radio's values
#: the page's default number of features (with its default drug: the bundled pair whose non-private model predicts
#: held-out cell lines best, docs/regression.md)
D = 48


def _noised(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**What is noised"))


#: the ε fragment's views (``ui.view_switch``, key ``rg_view``) and the charts each one draws
VIEWS = {
    "Predicted vs observed": {"rg_headline"},
    "Noise draws": {"rg_draws"},
    "Coefficients": {"rg_coef"},
    "ρ over ε and size (CV)": {"rg_curves"},
    "Smallest ε for a target": {"rg_acc_fig"},  # accuracy first, on the CV's ε sweep
    "Clipping thresholds": {"rg_heat"},
    "Budget split": {"rg_ternary"},
}
CV = "ρ over ε and size (CV)"


def _charts(at: AppTest) -> set[str]:
    return set(chart_keys(at))


def _view(at: AppTest, label: str) -> AppTest:
    at.session_state["rg_view"] = label
    return at.run()


def _robust(at: AppTest) -> AppTest:
    """Switch the release method to robust private LR (the paper's; AdaSSP is the default)."""
    return at.radio(key="rg_method").set_value(ROBUST).run()


def test_gdsc_page_opens_on_the_adassp_release():
    """The default release is AdaSSP: (ε, δ = 1/n²) charged, coefficients with an intercept row and noise SDs, the
    DP centre / σy / By among the values derived from DP outputs, the robust fit one click away."""
    at = AppTest.from_file(PAGE, default_timeout=180)
    unfold_settings(at, "regression")
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    at.run()
    ok(at)
    assert at.radio(key="rg_method").value == ADASSP and "(AdaSSP" in _noised(at) and "Xᵀy" in _noised(at)
    assert not any(s.key == "rg_p1" for s in at.slider)  # the robust fit's split is not AdaSSP's
    bundle = regression_release(at)
    n = bundle.public_params["n_private"]
    assert bundle.method == "AdaSSP" and bundle.epsilon == 1.0 and bundle.delta == pytest.approx(1.0 / n**2)
    coef = bundle.tables["coefficients"]
    assert len(coef) == D + 1 and coef["feature"].iloc[-1] == "(intercept)" and (coef["noise_sd"] > 0).all()
    assert {"response centre", "σy", "By"} <= set(bundle.derived_params) and bundle.unit == "private cell line"
    assert any("source file's columns" in note and "1 pM to 1 M" in note for note in bundle.notes)
    _robust(at)
    ok(at)
    assert "(robust private LR" in _noised(at) and at.slider(key="rg_p1").value == 0.35


def test_gdsc_page_renders_reacts_to_epsilon_and_releases():
    at = AppTest.from_file(PAGE, default_timeout=180)
    unfold_settings(at, "regression")
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    at.run()
    _robust(at)
    ok(at)
    assert _charts(at) == {"rg_headline"}  # the first view only
    before = _noised(at)
    assert "DP mean (charged)" in before and "centre/scale took ε = 0.1" in before
    at.select_slider(key="eps").set_value(2.0).run()
    ok(at)
    assert "centre/scale took ε = 0.2" in _noised(at)
    at.radio(key="rg_tmode").set_value("manual").run()
    at.select_slider(key="rg_wx").set_value(0.5).run()
    ok(at)
    assert f"±Bx = {0.5 / math.sqrt(D):.3g}" in _noised(at)
    bundle = regression_release(at)
    assert bundle.epsilon == 2.0 and bundle.delta == 0 and "coefficients" in bundle.tables
    assert len(bundle.tables["coefficients"]) == D + 1  # the features and the intercept
    assert (bundle.public_params["omega_x"], bundle.public_params["omega_y"]) == (0.5, 0.5)  # chosen above the views
    assert bundle.public_params["threshold tuning"] == {"source": "manual ω (public)"}
    # the utility note (internal) is the preview's, whichever view is open
    note = at.session_state["_release_last_regression_note"]
    assert "over 200 simulated releases" in note.text and "Spearman ρ" in note.text
    # the fixed public rule's cell lines are named in the notes as not protected
    k = bundle.public_params["n_public_added_without_noise"]
    assert 0 < k <= 10 and "NOT protected" in bundle.notes[0] and "fixed public rule" in bundle.notes[0]
    assert bundle.notes[1].count("COSMIC ") == k and "one private cell line" in bundle.statement


def test_only_the_open_view_is_computed_and_drawn():
    """Each view draws its own charts and no other; the CV runs only while a view that shows it is open (and then,
    in the background, for the neighbouring repeats)."""
    import threading

    from dpcore.regression import evaluation

    calls, background = [], []
    native = evaluation.monte_carlo_cv

    def counted(*args, **kwargs):
        warm = threading.current_thread().name.startswith("head-start")
        (background if warm else calls).append(kwargs["repeats"])
        return native(*args, **kwargs)

    with mock.patch.object(evaluation, "monte_carlo_cv", counted):
        at = AppTest.from_file(PAGE, default_timeout=300)
        unfold_settings(at, "regression")
        at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
        at.query_params["rg_seed"] = "4321"  # settings no other test caches
        at.query_params["rg_method"] = ROBUST  # its split slider is moved below
        at.run()
        at.select_slider(key="eps").set_value(0.7).run()  # a new ε on the first view: no CV
        ok(at)
        assert _charts(at) == {"rg_headline"} and calls == []
        assert not any(c.value.startswith("Monte-Carlo CV") for c in at.caption)
        for label, keys in VIEWS.items():
            _view(at, label)
            ok(at)
            assert _charts(at) == keys, label
        assert calls == [10, 10]  # the CV view: over ε and over sizes (the target view reuses the first)
        assert set(background) <= {5, 20}  # the neighbouring repeats, warmed
        _view(at, CV)
        at.select_slider(key="rg_R").set_value(20).run()
        ok(at)
        assert set(calls[2:]) <= {20} and _charts(at) == VIEWS[CV]
        assert any(c.value.startswith("Monte-Carlo CV: 20 random splits") for c in at.caption)
        done = len(calls)
        _view(at, "Predicted vs observed")
        at.select_slider(key="eps").set_value(1.5).run()  # moving ε with another view open: no CV
        at.slider(key="rg_p1").set_value(0.3).run()  # nor the budget split
        ok(at)
        assert len(calls) == done and _charts(at) == {"rg_headline"}


def test_links_reproduce_the_configuration_whatever_view_is_open():
    """A link's values hold for controls drawn in a view that is not open yet, survive switching views, and stay
    in the URL while their view is closed."""
    at = AppTest.from_file(PAGE, default_timeout=300)
    unfold_settings(at, "regression")
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    for key, value in {"eps": "2", "rg_method": ROBUST, "rg_p1": "0.3", "rg_p2": "0.6", "rg_R": "20", "rg_tmode": "manual",
                       "rg_wx": "0.5", "rg_models": ["non-private LR", "robust private LR"]}.items():
        at.query_params[key] = value
    at.run()
    ok(at)
    assert at.select_slider(key="eps").value == 2.0 and at.slider(key="rg_p1").value == 0.3
    assert at.select_slider(key="rg_wx").value == 0.5 and f"±Bx = {0.5 / math.sqrt(D):.3g}" in _noised(at)
    assert at.query_params["rg_R"] in ("20", ["20"])  # not drawn (its view is closed), still in the link
    _view(at, CV)
    ok(at)
    assert at.select_slider(key="rg_R").value == 20
    assert at.multiselect(key="rg_models").value == ["non-private LR", "robust private LR"]
    assert any(c.value.startswith("Monte-Carlo CV: 20 random splits") for c in at.caption)
    at.select_slider(key="rg_R").set_value(5).run()
    _view(at, "Budget split")
    at.slider(key="rg_p1").set_value(0.25).run()
    ok(at)
    assert at.query_params["rg_R"] in ("5", ["5"]) and at.query_params["rg_p1"] in ("0.25", ["0.25"])
    _view(at, CV)
    ok(at)
    assert at.select_slider(key="rg_R").value == 5 and at.slider(key="rg_p1").value == 0.25
    assert any(c.value.startswith("Monte-Carlo CV: 5 random splits") for c in at.caption)


def _box_labels(at: AppTest) -> list[str]:
    """The expanders' labels as a reader sees them (Markdown escapes are invisible)."""
    return [e.label.replace("\\", "") for e in at.expander]


def test_a_link_carries_the_synthetic_generator_and_its_settings_folded_or_open():
    """The generator's settings are link-bound like the rest: folded (not drawn), the page uses the link's values,
    lists them in the settings' label and keeps them in the URL; opened, the inputs show them."""
    at = AppTest.from_file(PAGE, default_timeout=300)
    link = {"rg_src": "synthetic", "rg_syn_n": "400", "rg_syn_d": "6", "rg_syn_s": "0.5", "rg_syn_seed": "7"}
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    ok(at)
    assert not [w for w in at.number_input if w.key.startswith("rg_syn_")]  # folded: not drawn
    summary = "n 400, d 6, noise sd 0.5, data seed 7"
    assert any(summary in label for label in _box_labels(at)), _box_labels(at)
    assert all(at.query_params[key] in (value, [value]) for key, value in link.items())
    unfold_settings(at, "regression")
    at.run()
    ok(at)
    shown = {key: at.number_input(key=key).value for key in ("rg_syn_n", "rg_syn_d", "rg_syn_s", "rg_syn_seed")}
    assert shown == {"rg_syn_n": 400, "rg_syn_d": 6, "rg_syn_s": 0.5, "rg_syn_seed": 7}
    assert any(summary in label for label in _box_labels(at))


def test_cv_view_controls_survive_hostile_links():
    """The CV view's URL-bound controls, which the hostile-link test of the whole app does not reach (closed
    view), take any text a link can carry."""
    for value in ("", "inf", "1e999", "-1", "[x](https://evil.example)", "9" * 10_000):
        at = AppTest.from_file(PAGE, default_timeout=300)
        unfold_settings(at, "regression")
        at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
        for key in ("rg_R", "rg_models", "rg_acc_kind", "rg_acc_thr", "rg_acc_prob", "rg_view"):
            at.query_params[key] = value
        at.run()
        _view(at, CV)
        assert not at.exception, (value, at.exception)
        assert at.select_slider(key="rg_R").value in (5, 10, 20, 50)
        assert all("evil.example" not in c.value for c in at.caption)


def test_full_reruns_do_not_rewrite_size_sliders_through_the_state(caplog):
    """Streamlit warns when a widget with a default also had its value set through the state in the same run
    (logged once per process); following an unchanged default used to do that on every full rerun."""
    from streamlit.elements.lib import policies

    at = AppTest.from_file(PAGE, default_timeout=180)

    unfold_settings(at, "regression")

    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    at.run()
    with mock.patch.object(policies, "_shown_default_value_warning", False), \
            mock.patch.object(policies.runtime, "exists", lambda: True), caplog.at_level("WARNING"):
        at.toggle(key="rg_priors").set_value(False).run()
        at.toggle(key="rg_priors").set_value(True).run()
    ok(at)
    assert not [r for r in caplog.records if "set via the Session State API" in r.getMessage()]


def test_synthetic_public_centring_and_bad_split():
    at = AppTest.from_file(PAGE, default_timeout=180)
    unfold_settings(at, "regression")
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    at.run()
    at.radio(key="rg_src").set_value("synthetic").run()
    _robust(at)
    at.number_input(key="rg_syn_n").set_value(400).run()
    at.radio(key="rg_yc").set_value("public").run()
    at.radio(key="rg_sy").set_value("public").run()
    at.toggle(key="rg_priors").set_value(False).run()
    ok(at)
    text = _noised(at)
    assert "public midpoint" in text and "took ε" not in text
    _view(at, "Coefficients")
    ok(at)
    assert _charts(at) == {"rg_coef"} and any(c.value.startswith("Synthetic data: the true β") for c in at.caption)
    _view(at, "Budget split")
    at.button(key="rg_split_btn").click().run()
    ok(at)
    assert any("Best split" in c.value for c in at.caption)
    _view(at, "Clipping thresholds")
    at.button(key="rg_full_btn").click().run()
    ok(at)
    assert any("20 synthetic data sets × 20 noise draws" in c.value for c in at.caption)
    assert at.button(key="rg_full_btn").disabled  # done for these settings
    at.slider(key="rg_p1").set_value(0.6).run()  # p2's range follows: the split cannot become invalid
    ok(at)
    assert at.slider(key="rg_p2").max == pytest.approx(0.35) and at.slider(key="rg_p2").value <= 0.35 + 1e-9
    assert any("p3 → nyy = 0.05" in c.value for c in at.caption) and not at.error


def test_upload_errors_are_named_and_good_upload_runs():
    at = AppTest.from_file(PAGE, default_timeout=60)
    unfold_settings(at, "regression")
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    at.run()
    at.radio(key="rg_src").set_value("upload").run()
    assert not at.exception and any("Upload a CSV" in i.value for i in at.info)

    at = regression_upload(b"y,a,b\n1,0,1\n2,x,0\n" + b"".join(b"%d,0,1\n" % (i + 3) for i in range(40)),
                      rg_ycol="y", rg_xcols=["a", "b"])  # distinct rows: identical ones would be one person
    assert not at.exception
    assert any("'a'" in e.value and "row 3" in e.value for e in at.error), [e.value for e in at.error]

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 4))
    y = X @ np.array([1.0, -1.0, 0.5, 0.0]) + rng.normal(0, 1, 300)
    rows = ["resp,g1,g2,g3,g4"] + [f"{v:.3f}," + ",".join(map(str, r)) for v, r in zip(y, X)]
    at = regression_upload("\n".join(rows).encode(), rg_ycol="resp", rg_xcols=["g1", "g2", "g3", "g4"])
    ok(at)
    assert "the 5 of Xᵀy" in _noised(at)  # AdaSSP: four features and the intercept
    assert not any(b.label.startswith("Compute the curves") for b in at.button)  # its view is closed
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload("\n".join(rows).encode(), "mine.csv")):
        _view(at, CV)
        assert any(b.label.startswith("Compute the curves") for b in at.button)
        at.button(key="rg_curves_btn").click().run()
    ok(at)
    assert any(c.value.startswith("Monte-Carlo CV") for c in at.caption)


def test_small_uploads_get_a_message_not_a_crash():
    """Too few records get one message with one minimum (60, said once); 60 work (fewer than 84 used to make a
    slider's min equal its max)."""
    rng = np.random.default_rng(3)
    for n, works in ((3, False), (30, False), (59, False), (60, True)):
        X = rng.integers(0, 2, size=(n, 2))
        rows = ["resp,g1,g2"] + [f"{v:.3f},{a},{b}" for v, (a, b) in zip(rng.normal(size=n), X)]
        at = regression_upload("\n".join(rows).encode(), rg_ycol="resp")
        assert not at.exception, at.exception
        if works:
            ok(at)
        else:
            errors = [e.value for e in at.error]
            assert len(errors) == 1 and "at least 60 records" in errors[0] and f"has {n} rows" in errors[0], errors


def _released_minus_noised(rows: list[str], **select) -> np.ndarray:
    """Release with the page's defaults on an upload; return what entered the statistics without noise.

    ``StatNoise.release`` is wrapped to record the exact statistics it noises and to add no noise, so
    ``released − recorded`` is exactly the part of (nxx, nxy, nyy) that bypassed the mechanism.
    """
    from dpcore import regression as R

    seen = []

    def record(self, s):
        seen.append(s)
        return s

    with mock.patch.object(R.StatNoise, "release", record):
        at = regression_upload("\n".join(rows).encode(), **select)
        with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload("\n".join(rows).encode(), "mine.csv")):
            at.button(key="release_button_regression").click().run()
            at.button(key="release_confirm_regression").click().run()  # the confirmation dialog
    ok(at)
    bundle = at.session_state["_release_last_regression"]
    nxy = bundle.tables["noisy_nxy"]["nxy"].to_numpy()
    nyy = float(bundle.tables["noisy_nyy"]["value"].iloc[0])
    return np.concatenate([nxy - seen[-1].nxy, [nyy - float(seen[-1].nyy)]])


def test_upload_rows_never_enter_a_release_without_noise():
    """Adversarial pair: two uploads differing in the one row the old page drew as "public" by default.

    The old page took 10 of the uploaded rows (those at positions n_test … n_test + 9 of the preview seed's
    permutation) and added them to the released statistics without noise, so a change in one of them moved the
    release with no noise at all. Uploads have no public rows unless the user marks them: whatever the
    mechanism did not noise must be the same for both files (here, nothing).
    """
    rng = np.random.default_rng(5)
    n = 300
    X = rng.integers(0, 2, size=(n, 4))
    y = X @ np.array([1.0, -1.0, 0.5, 0.0]) + rng.normal(0, 1, n)
    n_test = max(20, min(100, n // 4))  # the page's default test size
    row = int(np.random.default_rng(0).permutation(n)[n_test])  # the old default's first "public" row
    outs = []
    for value in (12.9, -9.9):  # the same record with its response at either end of the public range
        y2 = y.copy()
        y2[row] = value
        rows = ["resp,g1,g2,g3,g4"] + [f"{v:.6f}," + ",".join(map(str, r)) for v, r in zip(y2, X)]
        outs.append(_released_minus_noised(rows, rg_ycol="resp", rg_xcols=["g1", "g2", "g3", "g4"], rg_method=ROBUST))
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-9)
    np.testing.assert_allclose(outs[0], 0.0, atol=1e-9)


def test_upload_rows_marked_public_are_listed_in_the_release():
    rng = np.random.default_rng(6)
    n = 200
    X = rng.integers(0, 2, size=(n, 3))
    y = X @ np.array([1.0, -1.0, 0.5]) + rng.normal(0, 1, n)
    mark = (np.arange(n) < 7).astype(int)
    rows = ["resp,g1,g2,g3,open"] + [f"{v:.6f}," + ",".join(map(str, r)) + f",{m}" for v, r, m in zip(y, X, mark)]
    data = "\n".join(rows).encode()
    at = regression_upload(data, rg_ycol="resp", rg_xcols=["g1", "g2", "g3"])
    ok(at)
    assert "public records are added" not in _noised(at)  # none unless marked
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        at.selectbox(key="rg_pubcol").set_value("open").run()
        ok(at)
        assert "7 public records are added without noise" in _noised(at)
        bundle = regression_release(at)
    assert bundle.notes[1] == "Public cell lines (not protected): " + ", ".join(f"row {i}" for i in range(2, 9)) + "."
    assert "marked 1 in column 'open' by the user" in bundle.notes[0]
    assert bundle.public_params["n_private"] + 7 + at.slider(key="rg_ntest").value <= n


def test_moving_p1_never_blanks_the_page():
    """p1 from 0.35 to 0.40 with p2 = 0.60 used to leave p3 = 0 and blank everything below; now p2 follows
    (at most 0.95 − p1) and the open view stays."""
    at = AppTest.from_file(PAGE, default_timeout=180)
    unfold_settings(at, "regression")
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    at.run()
    _robust(at)
    _view(at, "Budget split")
    at.slider(key="rg_p1").set_value(0.4).run()
    ok(at)
    assert not at.error and at.slider(key="rg_p2").value == pytest.approx(0.55)
    assert at.session_state["rg_view"] == "Budget split" and _charts(at) == {"rg_ternary"}


def _editor_key(features: list[str], lo: float = 0.0, hi: float = 1.0) -> str:
    """The page's key of the ranges table for these features and default rule (``_ranges_key``)."""
    return "rg_xranges_" + hashlib.sha256(repr((features, lo, hi)).encode()).hexdigest()[:16]


def test_upload_features_ranges_and_unit_of_privacy():
    """The response is guessed ('target') and every other column is a feature, also after the response
    changes; each feature gets its own public range in an editable table (default: the public rule typed above, never
    the data), a bad range names its feature; the unit of privacy is the user's, and a release waits for it and for
    the ranges' confirmation."""
    data = diabetes_like_csv()
    at = regression_upload(data, unit=None, confirmed=False)
    ok(at)
    assert at.selectbox(key="rg_ycol").value == "target"
    assert at.multiselect(key="rg_xcols").value == ["age", "bmi", "chol"]
    assert any(":small[Unit of privacy: one row" in m.value and "not named yet" in m.value for m in at.markdown)
    button = at.button(key="release_button_regression")
    assert button.disabled and any("name the unit of privacy and confirm the public ranges" in c.value
                                   for c in [*at.caption, *at.markdown, *at.warning, *at.info])
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        at.selectbox(key="rg_ycol").set_value("chol").run()  # a new response: the old one becomes a feature
        ok(at)
        assert at.multiselect(key="rg_xcols").value == ["age", "bmi", "target"]
        at.selectbox(key="rg_ycol").set_value("target").run()
        at.number_input(key="rg_ylo").set_value(0.0).run()
        at.number_input(key="rg_yhi").set_value(400.0).run()
        # the default rule (0 to 1 for every feature) is the user's to change, one row at a time
        at.session_state[_editor_key(['age', 'bmi', 'chol'])] = {"edited_rows": {0: {"lower": 18.0, "upper": 90.0},
                                                              1: {"lower": 15.0, "upper": 50.0},
                                                              2: {"lower": 80.0, "upper": 350.0}},
                                             "added_rows": [], "deleted_rows": []}
        at.run()
        ok(at)
        assert "public midpoints of the per-feature ranges" in _noised(at)
        at.session_state[_editor_key(['age', 'bmi', 'chol'])] = {"edited_rows": {1: {"lower": 50.0, "upper": 15.0}},
                                             "added_rows": [], "deleted_rows": []}
        at.run()
        assert any("'bmi'" in e.value and "larger than the minimum" in e.value for e in at.error), at.error
        at.session_state[_editor_key(['age', 'bmi', 'chol'])] = {"edited_rows": {0: {"lower": 18.0, "upper": 90.0},
                                                              1: {"lower": 15.0, "upper": 50.0},
                                                              2: {"lower": 80.0, "upper": 350.0}},
                                             "added_rows": [], "deleted_rows": []}
        at.text_input(key="rg_unit").set_value("patient")
        at.checkbox(key="rg_ranges_ok").check()
        at.run()
        ok(at)
        assert any("Unit of privacy: one patient" in m.value for m in at.markdown)
        bundle = regression_release(at)
    assert bundle.unit == "patient" and "one patient" in bundle.statement
    assert bundle.public_params["feature centre"] == [54.0, 32.5, 215.0]  # midpoints of the ranges typed


def test_curves_computed_on_one_response_are_not_shown_for_another():
    """The curves over ε on an upload belong to the response and features they read: choosing another response
    column of the same file asks for them again rather than showing the first response's."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(300, 3))
    first, second = X @ np.array([1.0, -1.0, 0.5]) + rng.normal(0, 1, 300), rng.normal(0, 1, 300)
    rows = ["r1,r2,g1,g2,g3"] + [f"{a:.3f},{b:.3f}," + ",".join(map(str, r)) for a, b, r in zip(first, second, X)]
    data = "\n".join(rows).encode()
    at = regression_upload(data, rg_ycol="r1", rg_xcols=["g1", "g2", "g3"])
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        _view(at, CV)
        at.button(key="rg_curves_btn").click().run()
        assert any(c.value.startswith("Monte-Carlo CV") for c in at.caption)
        at.selectbox(key="rg_ycol").set_value("r2").run()
    ok(at)
    assert any(b.label.startswith("Compute the curves") for b in at.button)
    assert not any(c.value.startswith("Monte-Carlo CV") for c in at.caption)


def test_previews_are_computed_once_per_epsilon_kept_for_an_upload_and_shared_for_public_data():
    """Moving ε back to a value just shown costs no preview: an upload's are kept in its session (its last few ε),
    a public data set's in the process-wide cache every session reads."""
    at = regression_upload(diabetes_like_csv(), rg_ycol="target")
    with mock.patch.object(S, "preview", wraps=S.preview) as made:
        for eps in (2.0, 1.0, 2.0, 1.0):
            at.select_slider(key="eps").set_value(eps).run()
            ok(at)
    # ε = 1 was drawn on opening, ε = 2 once (a head start left by the bundled data the page opened on may still
    # compute ε steps around 1 in the background: only ε = 1 and 2 are counted)
    assert len([c for c in made.call_args_list if c.kwargs["epsilon"] in (1.0, 2.0)]) == 1
    assert len(at.session_state["_dp_memo_rg_preview"]) == 2
    with mock.patch.object(S, "preview", wraps=S.preview) as made:
        for _ in range(2):  # two sessions on the bundled (public) data at the same settings
            ok(AppTest.from_file(PAGE, default_timeout=180).run())
    # (a head start may compute the neighbouring ε in the background: only ε = 1 is counted)
    assert len([c for c in made.call_args_list if c.kwargs["epsilon"] == 1.0]) <= 1

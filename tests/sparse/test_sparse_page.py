"""AppTest for the sparse-learning page: ε change, data sources, logistic, upload errors, release, view tabs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, chart_keys as _charts, chart_spec, open_view, unfold_settings
from tests.support.pages import ok, sparse_upload
from tests.support.uploads import FakeUpload

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "sparse.py")


def _app(**query) -> AppTest:
    """The page with a link's query (synthetic data unless the link names a source: the page opens on GDSC)."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    unfold_settings(at, "sparse")
    at.session_state[DETAILS["sparse"]] = True  # the details at ε, unfolded
    for k, v in {"sp_src": "synthetic", **query}.items():
        at.query_params[k] = v
    at.run()
    ok(at)
    return at


def _plain(text: str) -> str:
    """Text as read on screen: without the escapes and word joiners ``ui.layout.literal`` puts into names."""
    return text.replace("\u2060", "").replace("\\", "")


def _noised(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**What is noised"))


def _view(at: AppTest, label: str) -> AppTest:
    ok(open_view(at, "sp_view", label))
    return at


def test_page_renders_and_reacts_to_epsilon():
    at = _app(sp_n="500", sp_d="200", sp_R="5")
    assert _charts(at) == ["sp_stem"]  # the first view only
    # the first screen shows the release, which the paper's knowledge-transfer caveat is not about
    assert not any("Caveat found by our audit" in w.value for w in at.warning)
    before = _noised(at)
    at.select_slider(key="eps").set_value(5.0).run()
    ok(at)
    after = _noised(at)
    assert before != after and "ε = 5" in after
    table = _view(at, "Utility over the draws").dataframe[0].value
    assert {"method", "‖θ − θ*‖₂", "support F1"} <= set(table.columns)
    assert len(table) == 7
    assert any("Caveat found by our audit" in w.value for w in at.warning)  # beside the knowledge-transfer results
    at.multiselect(key="sp_methods").set_value(["peel", "dp_ight"]).run()
    ok(at)
    assert not any("Caveat found by our audit" in w.value for w in at.warning)  # only where it applies


def test_first_screen_answers_in_words_and_the_figure_compares_the_release_with_the_non_private_model():
    """The answer line gives the held-out error private vs non-private and how many of the non-private model's
    features the private one keeps; the figure's legend names the non-private model and the private release (and
    the truth on synthetic data), not seven methods."""
    at = _app(sp_n="500", sp_d="200", sp_R="5")
    (line,) = [_plain(m.value) for m in at.markdown if _plain(m.value).startswith("**Held-out prediction error")]
    assert "private **" in line and "non-private" in line and "of the non-private model's 5 features" in line
    legend = [t["name"] for t in chart_spec(at, "sp_stem")["data"] if t.get("showlegend", True)]
    assert legend == ["true coefficients (simulated)", "non-private model", "private release (peeling + private fit)"]
    weak, strong = _app(sp_n="500", sp_d="200", sp_R="5", eps="0.1"), _app(sp_n="500", sp_d="200", sp_R="5", eps="10")
    kept = [float(re.search(r"keeps ([0-9.]+) of", _plain(m.value)).group(1))
            for a in (weak, strong) for m in a.markdown if "features on average" in m.value]
    assert kept[0] < kept[1] == 5.0  # the default shows a trade-off: ε = 10 finds the support that ε = 0.1 misses


def test_gdsc_linear_and_logistic():
    at = _app(sp_src="gdsc", sp_gd="100", sp_R="5")
    stem = chart_spec(at, "sp_stem")
    assert any(str(t).startswith(("(intercept)", "TP53", "loss_", "gain_")) or "_mut" in str(t)
               for t in stem["layout"]["xaxis"]["ticktext"])  # real feature names on the axis
    assert any("sensitive" in m.value or "public centre" in m.value for m in at.markdown)  # a note (ui.note)
    at.radio(key="sp_loss").set_value("logistic").run()
    ok(at)
    assert any("sensitive (+1)" in m.value for m in at.markdown)
    cols = set(_view(at, "Utility over the draws").dataframe[0].value.columns)
    assert "misclassification" in cols and "overlap with teacher (F1)" in cols


def test_methods_can_be_deselected():
    at = _app(sp_n="200", sp_d="50", sp_R="5")
    at.multiselect(key="sp_methods").set_value(["kt", "dp_ight"]).run()
    ok(at)
    assert set(_view(at, "Utility over the draws").dataframe[0].value.method) == {"teacher (non-private)", "knowledge transfer (student)", "DP-IGHT"}


def test_release_charges_and_exports():
    at = _app(sp_n="200", sp_d="50", sp_R="5")
    at.button(key="release_button_sparse").click().run()
    at.button(key="release_confirm_sparse").click().run()  # the confirmation dialog
    ok(at)
    assert any("Released Sparse regression: peeling + private fit" in s.value for s in at.success)
    bundle = at.session_state["_release_last_sparse"]
    assert set(bundle.tables) == {"coefficients", "noisy_gram", "noisy_moment"}
    assert bundle.tables["coefficients"].feature.iloc[0] == "(intercept)"
    assert bundle.delta == 1.0 / 200**2 and bundle.epsilon == 2.0
    assert bundle.parts == {"support selection (Gumbel top-s)": 1.0, "fit on the support (Gaussian)": 1.0}
    ledger = at.session_state["_dp_ledger"]  # synthetic data: recorded at its cost, nobody real charged
    (record,) = ledger.records(ledger.dataset_key(bundle.fingerprint))
    assert record.epsilon == 2.0 and record.persons == -1


def test_kt_with_private_support_stays_releasable_as_a_comparison():
    at = _app(sp_n="200", sp_d="50", sp_R="5", sp_release="kt_ps")
    at.button(key="release_button_sparse").click().run()
    at.button(key="release_confirm_sparse").click().run()
    ok(at)
    bundle = at.session_state["_release_last_sparse"]
    assert set(bundle.tables) == {"coefficients", "synthetic_responses", "noisy_votes"}
    assert len(bundle.tables["synthetic_responses"]) == 200  # m = n


def test_upload_runs_and_bad_upload_is_named():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 8))
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(8)])
    frame.insert(0, "y", X[:, 0] - X[:, 3])
    at = sparse_upload(frame.to_csv(index=False).encode())
    ok(at)
    assert _charts(at) == ["sp_stem"]
    import streamlit as st
    from unittest import mock

    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(frame.to_csv(index=False).encode(),
                                                                            "mine.csv")):
        assert _charts(_view(at, "Convergence")) == ["sp_conv"]
        _view(at, "Privacy–utility over ε")
    assert any("press to run" in c.value for c in at.caption)  # uploads: the ε sweep waits for a button
    bad = frame.astype(object)
    bad.loc[5, "g2"] = "n/a"
    at = sparse_upload(bad.to_csv(index=False).encode())
    assert not at.exception
    assert any("Column 'g2', row 7" in e.value for e in at.error), [e.value for e in at.error]


def test_small_upload_runs():
    """12 records: the default number of synthetic points (m = n) lies below the widget's minimum 50."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 4))
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(4)])
    frame.insert(0, "y", X[:, 0])
    at = sparse_upload(frame.to_csv(index=False).encode())
    ok(at)


def test_upload_parsing_errors_are_named():
    frame = pd.DataFrame({"y": ["1.0", "2.0", "x"] + ["1"] * 20, "g1": np.arange(23), "g2": np.arange(23) % 2})
    from dpcore import sparse as sp
    from dpcore.core.validation import InputError

    try:
        sp.sparse_from_frame(frame, "y", ["g1", "g2"])
    except InputError as err:
        assert "Column 'y', row 4" in str(err)
    else:  # pragma: no cover
        raise AssertionError("bad response value accepted")
    try:
        sp.sparse_from_frame(frame.assign(y="1"), "y", ["g1"])
    except InputError as err:
        assert "at least two feature columns" in str(err)
    try:
        sp.sparse_from_frame(frame.assign(y="3"), "y", ["g1", "g2"], loss="logistic")
    except InputError as err:
        assert "not 0/1" in str(err)
    X, y = sp.sparse_from_frame(frame.assign(y=[str(v) for v in range(23)]), "y", ["g1", "g2"], loss="logistic",
                                threshold=5.0)
    assert X.shape == (23, 2) and set(y) == {1.0, -1.0}


def test_logistic_upload_with_one_class_or_a_bad_threshold_is_named():
    from dpcore import sparse as sp
    from dpcore.core.validation import InputError

    frame = pd.DataFrame({"y": np.linspace(1, 5, 30), "g1": np.arange(30) % 3, "g2": np.arange(30) % 2})
    with pytest.raises(InputError, match="falls in one class at the threshold 0"):
        sp.sparse_from_frame(frame.astype(str), "y", ["g1", "g2"], loss="logistic", threshold=0.0)
    import streamlit as st
    from unittest import mock

    at = AppTest.from_file(PAGE, default_timeout=120)

    unfold_settings(at, "sparse")

    at.session_state[DETAILS["sparse"]] = True  # the details at ε, unfolded
    at.query_params["sp_src"] = "upload"
    at.query_params["sp_loss"] = "logistic"
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(frame.to_csv(index=False).encode(), "m.csv")):
        at.run()
        at.text_input(key="sp_uthr").input("abc").run()
    assert not at.exception
    assert any("threshold 'abc' is not a number" in e.value for e in at.error), [e.value for e in at.error]


def test_large_settings_put_the_sweep_behind_a_button():
    at = _app(sp_R="50")
    _view(at, "Privacy–utility over ε")
    assert any("press to run" in c.value for c in at.caption)
    assert not _charts(at)


def test_controls_with_derived_defaults_follow_them_so_links_reproduce_the_page():
    """s and B default to s*, m to n: after changing s* and n, the page must match a fresh page opened from
    the link (which omits values equal to their defaults); a value the user chose stays."""
    at = _app()
    at.number_input(key="sp_sstar").set_value(8).run()
    at.select_slider(key="sp_n").set_value(500).run()
    ok(at)
    fresh = _app(sp_sstar="8", sp_n="500")
    for key in ("sp_s", "sp_B", "sp_m"):
        assert at.number_input(key=key).value == fresh.number_input(key=key).value, key
    assert at.number_input(key="sp_s").value == 8
    at.number_input(key="sp_s").set_value(3).run()  # chosen by the user: s* no longer moves it
    at.number_input(key="sp_sstar").set_value(6).run()
    assert at.number_input(key="sp_s").value == 3 and at.number_input(key="sp_B").value == 6


def test_lambda_rule_is_a_labelled_option_bound_to_the_link():
    """The balanced λ rule is the default; the paper's rule opens from a link."""
    at = _app(sp_n="500", sp_d="200", sp_R="5")
    assert at.radio(key="sp_lamrule").value == "balanced"
    assert any("noise-free version" in i.value for i in _view(at, "Privacy–utility over ε").info)  # methods whose limit is not the teacher
    paper = _app(sp_n="500", sp_d="200", sp_R="5", sp_lamrule="paper")
    assert paper.radio(key="sp_lamrule").value == "paper"
    assert _noised(paper) != _noised(at)


def test_only_the_open_view_is_computed_and_drawn():
    """The live part's views are tabs: a move of ε computes and draws the open one only (convergence paths and the
    sweep over ε wait for their tab); each tab draws its own charts and nothing else's."""
    from unittest import mock

    from dpcore import sparse as sp

    calls = []
    paths, sweep = sp.convergence, sp.utility_curve
    with mock.patch.object(sp, "convergence", lambda *a, **k: calls.append("paths") or paths(*a, **k)), \
            mock.patch.object(sp, "utility_curve", lambda *a, **k: calls.append("sweep") or sweep(*a, **k)):
        at = _app(sp_n="200", sp_d="50", sp_R="5", sp_seed="11")  # a seed no other test caches
        assert _charts(at) == ["sp_stem"] and not at.dataframe
        at.select_slider(key="eps").set_value(5.0).run()
        at.select_slider(key="sp_delta").set_value("1e-8").run()
        ok(at)
        assert _charts(at) == ["sp_stem"] and calls == []
        assert not any("Lines: mean over" in c.value for c in at.caption)
        for view, charts, computed in [("Utility over the draws", [], []),
                                       ("Convergence", ["sp_conv"], ["paths"]),
                                       ("Privacy–utility over ε", ["sp_err", "sp_f1"], ["paths", "sweep"])]:
            _view(at, view)
            assert _charts(at) == charts, view
            assert len(at.dataframe) == (view == "Utility over the draws"), view
            assert calls == computed, view
        at.select_slider(key="eps").set_value(7.0).run()  # the sweep does not depend on ε: not computed again
        ok(at)
        assert calls == ["paths", "sweep"] and _charts(at) == ["sp_err", "sp_f1"]  # accuracy first: closed
        assert any("do not depend on the chosen ε" in c.value for c in at.caption)
        _view(at, "Coefficients")
        assert _charts(at) == ["sp_stem"] and "ε = 7" in _noised(at)


LIVE_LINK = dict(sp_n="200", sp_d="50", sp_R="20", sp_delta="1e-8", sp_seed="3", eps="5")


def test_links_reproduce_the_live_controls_in_every_view_and_the_release_charges_their_epsilon_and_delta():
    """ε, δ, the repeats and the seed sit in the live part: a link still sets them, they keep their values and the
    link while views are switched, the same link gives the same (seeded) preview, and Release charges (ε, δ)."""
    at = _app(**LIVE_LINK)
    assert at.select_slider(key="eps").value == 5.0 and at.select_slider(key="sp_delta").value == "1e-8"
    assert at.select_slider(key="sp_R").value == 20 and at.number_input(key="sp_seed").value == 3
    assert "ε = 5, δ = 1e-08" in _noised(at)
    stem = chart_spec(at, "sp_stem")
    for view in ("Utility over the draws", "Convergence", "Privacy–utility over ε", "Coefficients"):
        _view(at, view)
        assert {k: float(at.query_params[k]) for k in LIVE_LINK} == {k: float(v) for k, v in LIVE_LINK.items()}, view
        assert at.select_slider(key="sp_delta").value == "1e-8" and at.select_slider(key="sp_R").value == 20
    assert chart_spec(at, "sp_stem") == stem
    table = _view(at, "Utility over the draws").dataframe[0].value
    assert any(s.value.startswith("Utility over 20 noise draws at ε = 5") for s in at.header)
    again = _view(_app(**LIVE_LINK), "Utility over the draws")
    pd.testing.assert_frame_equal(again.dataframe[0].value, table)  # seeded: the link shows the same preview
    at.button(key="release_button_sparse").click().run()
    at.button(key="release_confirm_sparse").click().run()
    ok(at)
    bundle = at.session_state["_release_last_sparse"]
    assert (bundle.epsilon, bundle.delta) == (5.0, 1e-8)
    ledger = at.session_state["_dp_ledger"]
    record = ledger.records(ledger.dataset_key(bundle.fingerprint))[-1]
    assert (record.epsilon, record.delta) == (5.0, 1e-8)
    at.select_slider(key="sp_delta").set_value("1/n²").run()  # the default δ = 1/n² leaves the link
    ok(at)
    assert "sp_delta" not in at.query_params and "δ = 2.5e-05" in _noised(at)


def test_the_next_step_of_each_slider_is_computed_ahead():
    """After a run on public data, the previews one step away on ε, δ and the repeats are computed in a background
    thread: the first move of each slider then fits nothing (the same cached, seeded preview a link would show)."""
    import threading
    import time
    from unittest import mock

    from dpcore import sparse as sp

    at = _app(sp_n="200", sp_d="50", sp_R="5", sp_seed="23")  # a seed no other test caches
    fits = []

    def counted(fit):
        def run(*args, **kwargs):
            if not threading.current_thread().name.startswith("head-start"):
                fits.append(fit.__name__)
            return fit(*args, **kwargs)
        return run

    from ui import cache

    def ahead() -> set:
        with cache._LOCK:
            keys = [args for args, _ in cache._CACHES["sparse previews"][1]]
        return {(a[3], a[4], a[6]) for a in keys if a[0] == "fits" and a[7] == 23}

    wanted = {(3.0, 1 / 200**2, 5), (2.0, 1e-5, 5), (2.0, 1 / 200**2, 10)}  # ε, δ and the repeats one step on
    deadline = time.monotonic() + 120  # a thread at the lowest priority: slow on a busy machine
    while not wanted <= ahead() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert wanted <= ahead()
    with mock.patch.dict(sp.BATCH, {m: counted(f) for m, f in sp.BATCH.items()}):
        for key, step, back in (("eps", 3.0, 2.0), ("sp_delta", "1e-5", "1/n²"), ("sp_R", 10, 5)):
            fits.clear()  # a step back may miss: the cache keeps the last 32 previews, other tests' included
            at.select_slider(key=key).set_value(step).run()
            ok(at)
            assert fits == [], key
            at.select_slider(key=key).set_value(back).run()
    fresh = _app(sp_n="200", sp_d="50", sp_R="5", sp_seed="23", eps="3")
    at.select_slider(key="eps").set_value(3.0).run()
    assert chart_spec(at, "sp_stem") == chart_spec(fresh, "sp_stem")


# ---- the default release, a bundled public data set, uploads that never go silently wrong -------------


def test_page_opens_on_bundled_gdsc_with_the_peeling_release():
    at = AppTest.from_file(PAGE, default_timeout=120)
    unfold_settings(at, "sparse")
    at.session_state[DETAILS["sparse"]] = True  # the details at ε, unfolded
    at.run()
    ok(at)
    assert at.selectbox(key="sp_src").value == "gdsc" and at.radio(key="sp_release").value == "peel"
    assert "**What is noised (peeling + private fit):**" in _noised(at)
    assert "and an intercept" not in _noised(at)  # GDSC carries its own '(intercept)' feature: not fitted twice
    assert not any("outside the public bound" in w.value for w in at.warning)  # binary features within K = 1


def _breast_cancer_like(rng, n=150, wide=0) -> pd.DataFrame:
    """Shaped like scikit-learn's breast cancer: raw measurements far beyond K = 1, the 0/1 target last."""
    frame = pd.DataFrame({"mean radius": rng.normal(14, 3.5, n), "mean area": rng.normal(650, 350, n).clip(140, 2501),
                          "mean smoothness": rng.normal(0.1, 0.015, n)})
    for j in range(wide):
        frame[f"gene_{j}"] = rng.normal(size=n)
    frame.loc[0, "mean area"] = 2501.0  # breast cancer's largest area
    frame["target"] = (frame["mean radius"] + rng.normal(0, 2, n) < 14).astype(int)
    return frame


def test_upload_guesses_the_response_keeps_every_feature_and_warns_about_clipping():
    at = sparse_upload(_breast_cancer_like(np.random.default_rng(3)).to_csv(index=False).encode())
    ok(at)
    assert at.selectbox(key="sp_ycol").value == "target"
    assert any("Guessed: named 'target'" in _plain(c.value) for c in at.caption)
    assert at.multiselect(key="sp_xcols").value == ["mean radius", "mean area", "mean smoothness"]
    assert any("Features used: 3 of the 3 columns" in _plain(c.value) for c in at.caption)
    (warning,) = [_plain(w.value) for w in at.warning if "outside the public bound" in w.value]
    assert "are clipped" in warning and "mean area (up to 2,501)" in warning and "Standardise" in warning
    share = float(warning.split("%")[0])
    assert 60 < share <= 100  # every area and radius value, not the smoothness


def test_changing_the_response_hands_the_old_one_back_to_the_features():
    frame = _breast_cancer_like(np.random.default_rng(4))
    import streamlit as st
    from unittest import mock

    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(frame.to_csv(index=False).encode(),
                                                                            "bc.csv")):
        at = sparse_upload(frame.to_csv(index=False).encode())
        at.selectbox(key="sp_ycol").set_value("mean radius").run()
    ok(at)
    assert at.multiselect(key="sp_xcols").value == ["mean area", "mean smoothness", "target"]


def test_wide_upload_says_how_many_features_are_used_and_which():
    at = sparse_upload(_breast_cancer_like(np.random.default_rng(5), wide=120).to_csv(index=False).encode())
    ok(at)
    assert len(at.multiselect(key="sp_xcols").value) == 50
    assert any("123 candidate feature columns; the first 50" in i.value for i in at.info)
    (used,) = [_plain(c.value) for c in at.caption if c.value.startswith("Features used")]
    assert "50 of the 123 columns" in used and "mean radius" in used and "(10 more)" in used


def test_logistic_release_on_an_upload_has_an_intercept():
    frame = _breast_cancer_like(np.random.default_rng(6))
    import streamlit as st
    from unittest import mock

    at = AppTest.from_file(PAGE, default_timeout=120)

    unfold_settings(at, "sparse")

    at.session_state[DETAILS["sparse"]] = True  # the details at ε, unfolded
    at.query_params.update({"sp_src": "upload", "sp_loss": "logistic", "sp_R": "5", "sp_s": "2", "eps": "10"})
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(frame.to_csv(index=False).encode(),
                                                                            "bc.csv")):
        at.run()
        at.button(key="release_button_sparse").click().run()
        at.button(key="release_confirm_sparse").click().run()
    ok(at)
    coef = at.session_state["_release_last_sparse"].tables["coefficients"]
    assert coef.feature.iloc[0] == "(intercept)" and len(coef) == 3
    assert set(coef.feature[1:]) <= {"mean radius", "mean area", "mean smoothness"}


def test_every_series_on_the_coefficient_chart_has_its_own_colour():
    """The default release (peeling + private fit) once had no colour of its own and took the next palette colour,
    DP-IGHT's orange: two methods read as one. Each series of the stem chart (the non-private model, the release
    of either variant) has a colour of its own, every stem is drawn in its series' colour, and real data show no
    truth θ*."""
    for release in ("peel", "kt_ps"):
        at = _app(sp_src="gdsc", sp_gd="100", sp_R="5", sp_release=release)
        ok(at)
        spec = chart_spec(at, "sp_stem")
        dots = {t["name"]: t["marker"]["color"] for t in spec["data"] if t["type"] == "scatter"}
        bars = next(t for t in spec["data"] if t["type"] == "bar")
        assert set(bars["marker"]["color"]) == set(dots.values())  # every stem is drawn in its series' colour
        assert len(set(dots.values())) == len(dots) == 2, dots
        assert "non-private model" in dots and any(release_label in name for name in dots
                                                   for release_label in ("peeling + private fit", "KT with private support"))
        assert not any("true" in name for name in dots) and not any("truth" in h.value for h in at.header)

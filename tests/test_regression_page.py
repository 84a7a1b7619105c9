"""AppTest for the drug-sensitivity page: GDSC, ε change, synthetic, manual ω, bad split, uploads, release."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "regression.py")


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _noised(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**What is noised"))


def test_gdsc_page_renders_reacts_to_epsilon_and_releases():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    _ok(at)
    assert len(at.get("plotly_chart")) >= 6
    before = _noised(at)
    assert "DP mean (charged)" in before and "centre/scale took ε = 0.05" in before
    at.select_slider(key="eps").set_value(2.0).run()
    _ok(at)
    assert "centre/scale took ε = 0.1" in _noised(at)
    at.radio(key="rg_tmode").set_value("manual").run()
    at.select_slider(key="rg_wx").set_value(0.5).run()
    _ok(at)
    assert "±Bx = 0.158" in _noised(at)  # 0.5 / √10
    at.button(key="release_button_regression").click().run()
    at.button(key="release_confirm_regression").click().run()  # the confirmation dialog
    _ok(at)
    bundle = at.session_state["_release_last_regression"]
    assert bundle.epsilon == 2.0 and "coefficients" in bundle.tables
    assert len(bundle.tables["coefficients"]) == 10
    # the fixed public rule's cell lines are named in the notes as not protected
    k = bundle.public_params["n_public_added_without_noise"]
    assert 0 < k <= 10 and "NOT protected" in bundle.notes[0] and "fixed public rule" in bundle.notes[0]
    assert bundle.notes[1].count("COSMIC ") == k and "one private cell line" in bundle.statement


def test_synthetic_public_centring_and_bad_split():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    at.radio(key="rg_src").set_value("synthetic").run()
    at.number_input(key="rg_syn_n").set_value(400).run()
    at.radio(key="rg_yc").set_value("public").run()
    at.radio(key="rg_sy").set_value("public").run()
    at.toggle(key="rg_priors").set_value(False).run()
    _ok(at)
    text = _noised(at)
    assert "public midpoint" in text and "took ε" not in text
    assert len(at.get("plotly_chart")) >= 7  # coefficient chart with the true β
    at.button(key="rg_split_btn").click().run()
    _ok(at)
    assert any("Best split" in c.value for c in at.caption)
    at.button(key="rg_full_btn").click().run()
    _ok(at)
    assert any("20 synthetic data sets × 20 noise draws" in c.value for c in at.caption)
    at.slider(key="rg_p1").set_value(0.6).run()
    at.slider(key="rg_p2").set_value(0.6).run()
    assert not at.exception
    assert any("p3" in e.value for e in at.error)


class _FakeUpload:
    def __init__(self, data: bytes, name: str):
        self._data, self.name = data, name

    def getvalue(self) -> bytes:
        return self._data


def _with_upload(data: bytes, **select) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    at.radio(key="rg_src").set_value("upload")
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _FakeUpload(data, "mine.csv")):
        at.run()
        for key, value in select.items():
            (at.selectbox if key == "rg_ycol" else at.multiselect)(key=key).set_value(value)
        at.run()
        return at


def test_upload_errors_are_named_and_good_upload_runs():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    at.radio(key="rg_src").set_value("upload").run()
    assert not at.exception and any("Upload a CSV" in i.value for i in at.info)

    at = _with_upload(b"y,a,b\n1,0,1\n2,x,0\n" + b"1,0,1\n" * 40, rg_ycol="y", rg_xcols=["a", "b"])
    assert not at.exception
    assert any("'a'" in e.value and "row 3" in e.value for e in at.error), [e.value for e in at.error]

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 4))
    y = X @ np.array([1.0, -1.0, 0.5, 0.0]) + rng.normal(0, 1, 300)
    rows = ["resp,g1,g2,g3,g4"] + [f"{v:.3f}," + ",".join(map(str, r)) for v, r in zip(y, X)]
    at = _with_upload("\n".join(rows).encode(), rg_ycol="resp", rg_xcols=["g1", "g2", "g3", "g4"])
    _ok(at)
    assert "4 entries of nxy" in _noised(at)
    assert any(b.label.startswith("Compute the curves") for b in at.button)
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _FakeUpload("\n".join(rows).encode(), "mine.csv")):
        at.button(key="rg_curves_btn").click().run()
    _ok(at)
    assert any(c.value.startswith("Monte-Carlo CV") for c in at.caption)


def test_small_uploads_get_a_message_not_a_crash():
    """Too few records get one message with one minimum (60, said once); 60 work (fewer than 84 used to make a
    slider's min equal its max)."""
    rng = np.random.default_rng(3)
    for n, ok in ((3, False), (30, False), (59, False), (60, True)):
        X = rng.integers(0, 2, size=(n, 2))
        rows = ["resp,g1,g2"] + [f"{v:.3f},{a},{b}" for v, (a, b) in zip(rng.normal(size=n), X)]
        at = _with_upload("\n".join(rows).encode(), rg_ycol="resp")
        assert not at.exception, at.exception
        if ok:
            _ok(at)
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
        at = _with_upload("\n".join(rows).encode(), **select)
        with mock.patch.object(st, "file_uploader", lambda *a, **k: _FakeUpload("\n".join(rows).encode(), "mine.csv")):
            at.button(key="release_button_regression").click().run()
            at.button(key="release_confirm_regression").click().run()  # the confirmation dialog
    _ok(at)
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
        rows = ["resp,g1,g2,g3,g4"] + [f"{v:.3f}," + ",".join(map(str, r)) for v, r in zip(y2, X)]
        outs.append(_released_minus_noised(rows, rg_ycol="resp", rg_xcols=["g1", "g2", "g3", "g4"]))
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-9)
    np.testing.assert_allclose(outs[0], 0.0, atol=1e-9)


def test_upload_rows_marked_public_are_listed_in_the_release():
    rng = np.random.default_rng(6)
    n = 200
    X = rng.integers(0, 2, size=(n, 3))
    y = X @ np.array([1.0, -1.0, 0.5]) + rng.normal(0, 1, n)
    mark = (np.arange(n) < 7).astype(int)
    rows = ["resp,g1,g2,g3,open"] + [f"{v:.3f}," + ",".join(map(str, r)) + f",{m}" for v, r, m in zip(y, X, mark)]
    data = "\n".join(rows).encode()
    at = _with_upload(data, rg_ycol="resp", rg_xcols=["g1", "g2", "g3"])
    _ok(at)
    assert "public records are added" not in _noised(at)  # none unless marked
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _FakeUpload(data, "mine.csv")):
        at.selectbox(key="rg_pubcol").set_value("open").run()
        _ok(at)
        assert "7 public records are added without noise" in _noised(at)
        at.button(key="release_button_regression").click().run()
        at.button(key="release_confirm_regression").click().run()  # the confirmation dialog
    _ok(at)
    bundle = at.session_state["_release_last_regression"]
    assert bundle.notes[1] == "Public cell lines (not protected): " + ", ".join(f"row {i}" for i in range(2, 9)) + "."
    assert "marked 1 in column 'open' by the user" in bundle.notes[0]
    assert bundle.public_params["n_private"] + 7 + at.slider(key="rg_ntest").value <= n

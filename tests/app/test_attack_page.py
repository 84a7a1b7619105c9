"""The audit page's attacker's view built from data, for FDR and sparse (AppTest): bundled data and an upload."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "audit.py")


def _page(**params) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.query_params.update({"eps": "1.0", "atk_pair": "data", "atk_R": "5000", **params})
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> str:
    """Markdown and captions, with literal()'s escapes removed."""
    text = "\n".join(m.value for m in at.markdown) + "\n".join(c.value for c in at.caption)
    return text.replace("\\", "").replace("\u2060", "")


def _has_roc(at: AppTest) -> bool:
    return any("false-positive rate" in str(chart.proto.spec) for chart in at.get("plotly_chart"))


@pytest.mark.parametrize("params, expected", [
    ({"method": "fdr"}, "exact binomial η = 0.3107"),
    ({"method": "fdr", "atk_fsrc": "truncexp", "atk_move": "toward"}, "exact z-test η"),
    ({"method": "sparse"}, "record 1 with y = 5 and the same features. Peeling + private fit as released (linear)"),
    ({"method": "sparse", "atk_srel": "kt_ps"}, "record 1 with y = 5 and the same features. KT with private support"),
    ({"method": "sparse", "atk_ssrc": "gdsc", "atk_loss": "logistic", "atk_rec": "3"}, "GDSC"),
])
def test_attacker_view_from_bundled_data(params, expected):
    at = _page(**params)
    text = _texts(at)
    assert "an attacker who knows everyone else guesses right at most 73 %" in text
    assert "**Without privacy.**" in text and "**With privacy.**" in text and expected in text, text[-3000:]
    assert _has_roc(at)
    assert not [e.value for e in at.error]


def test_attacker_view_from_uploaded_p_values():
    at = _page(method="fdr", atk_fsrc="upload")
    rng = np.random.default_rng(0)
    p = np.r_[rng.uniform(0, 1e-4, 5), rng.uniform(0, 1, 45)]
    at.file_uploader(key="atk_fdr_upload").upload("p [x](y).csv", ("p\n" + "\n".join(f"{v:.6g}" for v in p)).encode(),
                                                  "text/csv").run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "the guarantee for these p-values rests on that statement" in text, text[-2000:]
    assert "A: the stream as it is (50 p-values, uploaded)" in text
    assert _has_roc(at)


def test_attacker_view_from_an_uploaded_sparse_table():
    at = _page(method="sparse", atk_ssrc="upload")
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (120, 6))
    y = 2 * X[:, 0] - X[:, 3] + 0.1 * rng.standard_normal(120)
    rows = "\n".join(",".join(f"{v:.4f}" for v in (yi, *xi)) for yi, xi in zip(y, X))
    at.file_uploader(key="atk_sp_upload").upload("mine.csv", ("y,g1,g2,g3,g4,g5,g6\n" + rows).encode(),
                                                 "text/csv").run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "A: the data set as it is (n = 120, d = 6" in text, text[-2000:]
    assert _has_roc(at)


def test_a_long_uploaded_stream_gets_fewer_draws():
    """Memory stays bounded: releases × stream length is capped (ui.attacker_pairs.FDR_CELLS)."""
    at = _page(method="fdr", atk_fsrc="upload")
    p = np.random.default_rng(2).uniform(0, 1, 50_000)
    at.file_uploader(key="atk_fdr_upload").upload("long.csv", ("p\n" + "\n".join(f"{v:.5f}" for v in p)).encode(),
                                                  "text/csv").run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "Long stream (50,000 hypotheses): 400 simulated releases per data set" in text
    assert "over 400 seeded releases per data set" in text


def test_the_claims_delta_follows_the_pair_until_the_user_moves_it():
    """A pair calibrated with δ > 0 opens at its δ, also after a pair with δ = 0 (the slider used to keep 0, e.g.
    after an upload); a δ the user chose stays."""
    at = _page(method="regression", atk_pair="registry", atk_scn="whole fit (total ε)")
    assert at.select_slider(key="adelta").value == 0.0
    at.selectbox(key="atk_scn").set_value("AdaSSP whole fit (total ε, δ)").run()
    assert not at.exception
    assert at.select_slider(key="adelta").value == 0.001
    at.select_slider(key="adelta").set_value(0.01).run()
    at.selectbox(key="atk_scn").set_value("whole fit (total ε)").run()
    assert at.select_slider(key="adelta").value == 0.01

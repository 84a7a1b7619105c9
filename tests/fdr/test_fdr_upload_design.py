"""An upload's floor μ comes from its public design (records per test and a stated alternative), and the page says
what power a release of it can reach before any release. Seeded: every run is deterministic."""

from __future__ import annotations

import math
from pathlib import Path
from unittest import mock

import numpy as np
import streamlit as st
from scipy import stats
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, unfold_settings

from dpcore import fdr

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "fdr.py")
N, THETA = 5000, 0.75


def _release_path_power(p: np.ndarray, truth: np.ndarray, floor: float, epsilon: float) -> float:
    """Mean power of PAPRIKA as released (exact η above ``floor``, the proven shift, the paper's rule), preview noise."""
    s = fdr.Settings(epsilon=epsilon, eta=fdr.eta_binomial_exact(N, floor), floor=floor, shift=fdr.STREAM)
    rej = fdr.run_method("PAPRIKA", p, s, rng=np.random.default_rng(3)).rejections
    return float(np.nanmean(fdr.fdp_power(rej, truth)[1]))


def test_the_design_floor_gives_a_strong_binomial_upload_power_where_the_constant_gave_none():
    streams = fdr.simulate_bernoulli(10, 800, pi1=0.05, n=N, theta=THETA, rng=np.random.default_rng(7))
    floor = fdr.design_floor(N, THETA)  # what the page now defaults to for this design
    assert floor < 1e-6
    assert _release_path_power(streams.pvalues, streams.truth, floor, 20.0) > 0.5
    assert _release_path_power(streams.pvalues, streams.truth, 1e-6, 20.0) == 0.0  # the old constant default
    saffron = fdr.run_method("SAFFRON", streams.pvalues, fdr.Settings()).rejections
    assert np.nanmean(fdr.fdp_power(saffron, streams.truth)[1]) > 0.8


def test_the_exact_eta_holds_at_the_design_floor():
    """η is the largest step of log max(p, μ) between neighbouring counts: one record moves the count by one."""
    floor = fdr.design_floor(N, THETA)
    eta = fdr.eta_binomial_exact(N, floor)
    k = np.arange(N + 1)
    log_p = np.maximum(stats.binom.logsf(k - 1, N, 0.5), math.log(floor))  # log P(Bin ≥ k), floored
    steps = np.abs(np.diff(log_p))
    assert steps.max() <= eta + 1e-9 and steps.max() >= eta - 1e-6


def _upload(p: np.ndarray) -> bytes:
    return ("p\n" + "\n".join(f"{v:.15g}" for v in p) + "\n").encode()


def _run(data: bytes, **query) -> AppTest:
    class _Upload:
        name = "stream.csv"

        def getvalue(self):
            return data

    at = AppTest.from_file(PAGE, default_timeout=180)

    unfold_settings(at, "fdr")

    at.session_state[DETAILS["fdr"]] = True  # the details at ε, unfolded
    at.query_params.update({"fdr_src": "upload", "fdr_etahow": "binomial", "fdr_nup": str(N), **query})
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload()):
        at.run()
    assert not at.exception, at.exception
    return at


def _reach(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "What a release of this upload can reach" in m.value)


def test_upload_page_defaults_the_floor_from_the_design_and_says_what_power_a_release_reaches():
    rng = np.random.default_rng(11)
    effects = rng.random(300) < 0.05
    strong = stats.binom.sf(rng.binomial(N, np.where(effects, THETA, 0.5)) - 1, N, 0.5)
    at = _run(_upload(strong), eps="20")
    design_exp = round(-math.log10(fdr.design_floor(N, THETA)))
    assert at.number_input(key="fdr_floor").value == design_exp  # not the old constant 6
    text = _reach(at)
    assert f"n = {N:,} records per test" in text and "θ = 0.75" in text and "T = 300" in text
    power = float(text.split("at ε = 20 power ")[1].split(" ")[0])
    assert power > 0.5, text
    assert not at.error, [e.value for e in at.error]  # the p-values are exact tail values: releasable
    # the floor is public: another upload with the same design gets the same floor, whatever its p-values
    nulls = stats.binom.sf(rng.binomial(N, 0.5, size=300) - 1, N, 0.5)
    assert _run(_upload(nulls), eps="20").number_input(key="fdr_floor").value == design_exp
    # a weaker stated alternative moves the floor (and says what it can reach)
    weak = _run(_upload(strong), eps="20", fdr_thup="0.55")
    assert weak.number_input(key="fdr_floor").value == round(-math.log10(fdr.design_floor(N, 0.55)))
    assert "What a release of this upload can reach" in _reach(weak)


def test_an_upload_without_a_design_is_told_how_to_get_the_power_statement():
    at = _run(_upload(np.linspace(0.001, 1, 200)), fdr_etahow="stated")
    assert "choose the exact binomial η" in _reach(at)

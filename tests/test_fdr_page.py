"""AppTest of the online-FDR page: renders, reacts to ε in the URL, releases and charges the ledger."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "fdr.py")


def _page(**query):
    at = AppTest.from_file(PAGE, default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def _noise_text(at) -> str:
    return next(m.value for m in at.markdown if "Noise at these settings" in m.value)


def test_default_page_renders_all_figures_and_six_methods():
    at = _page()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) >= 4
    assert any("share of non-nulls" in s.value for s in at.subheader)  # both sweeps, no toggle
    summary = at.dataframe[0].value
    assert list(summary["method"]) == ["SAFFRON", "SAFFRON AI", "LORD++", "alpha-investing", "PAPRIKA", "PAPRIKA AI"]
    assert all(float(v.split(" ± ")[0]) > 0.5 for v in summary["power ± SE"])
    assert all(float(v.split(" ± ")[0]) <= 0.25 for v in summary["FDR ± SE"])
    labels = [m.label for m in at.metric]
    assert "PAPRIKA discoveries" in labels and "SAFFRON discoveries" in labels
    text = _noise_text(at)
    assert "Laplace(1.33)" in text and "Laplace(2.66)" in text  # fdr.md's table at ε = 5, c = 40


def test_epsilon_from_the_url_changes_the_noise():
    at = _page(eps="1")
    assert not at.exception, at.exception
    text = _noise_text(at)
    assert "Laplace(6.65)" in text and "A = 26.2" in text


def test_truncated_exponential_and_code_rule_render():
    at = _page(fdr_src="truncexp", fdr_rule="code", fdr_view="PAPRIKA AI", fdr_R="20")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Releases always use the paper" in c.value for c in at.caption)


def test_release_with_the_papers_shift_is_blocked_and_costs_nothing():
    at = _page(fdr_R="20")
    button = at.button(key="release_button_fdr")
    assert button.disabled
    assert any("Set the shift scale s to 4" in i.value for i in at.info)
    assert at.session_state["_dp_ledger"].summary() == []  # (fdr.release refuses s < 4 too: test_fdr.py)


def test_release_charges_the_ledger_and_exports_only_the_rejection_set():
    at = _page(fdr_R="20", fdr_s="4.0")
    assert not at.button(key="release_button_fdr").disabled
    at.button(key="release_button_fdr").click().run()
    at.button(key="release_confirm_fdr").click().run()  # the confirmation dialog
    assert not at.exception, at.exception
    assert any("Released PAPRIKA" in s.value for s in at.success)
    ledger = at.session_state["_dp_ledger"]
    assert ledger.summary()[0]["ε spent"] == 5.0
    bundle = at.session_state["_release_last_fdr"]
    assert list(bundle.tables["rejections"].columns) == ["hypothesis", "rejected", "alpha_t"]


def test_upload_source_without_a_file_explains_the_format():
    at = _page(fdr_src="upload")
    assert not at.exception
    assert any("column of p-values" in i.value for i in at.info)


def test_upload_whose_truth_has_no_true_effect_shows_no_nan():
    """Power is undefined without true effects: the page says so instead of printing nan or a fake 0."""
    from unittest import mock

    import streamlit as st

    class _Upload:
        name = "nulls.csv"

        def getvalue(self):
            rng = np.random.default_rng(4)
            return ("p,truth\n" + "\n".join(f"{p:.6f},0" for p in rng.random(200)) + "\n").encode()

    at = AppTest.from_file(PAGE, default_timeout=180)
    at.query_params["fdr_src"] = "upload"
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload()):
        at.run()
        at.selectbox(key="fdr_tcol").set_value("truth").run()
    assert not at.exception, at.exception
    texts = [m.value for m in at.metric] + [str(v) for v in at.dataframe[0].value["power ± SE"]]
    assert any("no true effects" in t for t in texts) and not any("nan" in t for t in texts)


def test_a_vacuous_fdr_bound_is_called_so():
    at = _page(fdr_T="1600", fdr_delta="0.001", fdr_R="20")
    assert not at.exception, at.exception
    text = next(m.value for m in at.markdown if "Noise at these settings" in m.value)
    assert "above 1 and so says nothing" in text, text


def test_the_one_stream_does_not_change_with_the_number_of_runs():
    def discoveries(R):
        at = _page(fdr_R=R)
        assert not at.exception, at.exception
        return [m.value for m in at.metric if "discoveries" in m.label]

    assert discoveries("20") == discoveries("200")

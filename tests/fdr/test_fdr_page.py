"""AppTest of the online-FDR page: renders, reacts to ε in the URL, releases and charges the ledger; its views are
tabs of which only the open one is computed and drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, chart_keys as _charts, unfold_settings
from ui.cohort import NEW_COHORT

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "fdr.py")
#: The paper's experiments (n = 1000, η = √(ln n / n), s = 1): the page opens on a releasable configuration instead
PAPER = dict(fdr_n="1000", fdr_etahow="paper", fdr_s="1.0")


def _page(view=None, **query):
    at = AppTest.from_file(PAGE, default_timeout=180)
    unfold_settings(at, "fdr")
    at.session_state[DETAILS["fdr"]] = True  # the details at ε, unfolded
    for k, v in query.items():
        at.query_params[k] = v
    if view is not None:
        at.session_state["fdr_view"] = view
    return at.run()


def _open(at, view):
    at.session_state["fdr_view"] = view
    return at.run()


def _noise_text(at) -> str:
    return next(m.value for m in at.markdown if "Noise at these settings" in m.value)


def test_default_page_draws_only_the_open_view_and_each_view_its_own_chart():
    at = _page(**PAPER)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert list(at.button_group(key="fdr_view").options) == ["One stream", "All methods over runs", "FDR and power vs π1",
                                          "FDR and power vs ε", "Power frontier"]
    assert _charts(at) == ["fdr_fig_stream"]  # the other views are not computed
    assert not at.dataframe
    (answer,) = [m.value for m in at.markdown if m.value.startswith("**Real effects found")]  # the first screen's
    assert "private **" in answer and "non-private" in answer and "PAPRIKA against SAFFRON" in answer  # one line
    text = _noise_text(at)
    assert "Laplace(1.33)" in text and "Laplace(2.66)" in text  # fdr.md's table at ε = 5, c = 40
    assert any("only the open one is computed" in c.value for c in [*at.caption, *at.markdown])  # the preview note

    _open(at, "All methods over runs")
    assert not at.exception, at.exception
    assert _charts(at) == ["fdr_fig_summary"] and not any("discoveries" in m.label for m in at.metric)
    summary = at.dataframe[0].value
    assert list(summary["method"]) == ["SAFFRON", "SAFFRON AI", "LORD++", "alpha-investing", "PAPRIKA", "PAPRIKA AI"]
    assert all(float(v.split(" ± ")[0]) > 0.5 for v in summary["power ± SE"])
    assert all(float(v.split(" ± ")[0]) <= 0.25 for v in summary["FDR ± SE"])
    _open(at, "FDR and power vs π1")
    assert _charts(at) == ["fdr_fig_pi1"] and any("share of non-nulls" in s.value for s in at.header)
    _open(at, "FDR and power vs ε")
    assert _charts(at) == ["fdr_fig_eps"]  # the sweep over ε (accuracy first: closed until opened)
    assert not at.exception, at.exception
    assert "Laplace(1.33)" in _noise_text(at)  # the settings and ε stay above every view


def test_only_the_open_view_is_computed(monkeypatch):
    """Moving ε with the stream open must not run the six methods over all runs, the π1 sweep or the ε sweep."""
    at = _page(fdr_seed="4321", **PAPER)  # a configuration no other test caches
    calls = []
    from dpcore import fdr

    for name in ("summary_table", "sweep", "utility_curve", "shift_cost"):
        original = getattr(fdr, name)
        monkeypatch.setattr(fdr, name, lambda *a, _o=original, _n=name, **k: (calls.append(_n), _o(*a, **k))[1])
    at.select_slider(key="eps").set_value(7.0).run()
    assert not at.exception, at.exception
    assert "Laplace(0.95)" in _noise_text(at)
    assert calls == []
    _open(at, "All methods over runs")
    assert {"summary_table", "shift_cost"} <= set(calls) and "sweep" not in calls and "utility_curve" not in calls


def test_a_link_reproduces_the_settings_and_moving_them_updates_it():
    at = _page(eps="1", fdr_alpha="0.1", fdr_c="20", fdr_method="PAPRIKA AI", fdr_n="1000")
    assert not at.exception, at.exception
    assert at.select_slider(key="fdr_alpha").value == 0.1 and at.select_slider(key="fdr_c").value == 20
    assert at.radio(key="fdr_method").value == "PAPRIKA AI" and at.select_slider(key="eps").value == 1.0
    assert any("One stream: PAPRIKA AI vs SAFFRON AI" in s.value for s in at.header)
    text = _noise_text(at)
    assert "(1, 0.00025)-DP" in text and "FDR ≤ α + δT = 0.3" in text
    at.select_slider(key="fdr_c").set_value(80).run()
    at.select_slider(key="fdr_alpha").set_value(0.02).run()
    _open(at, "FDR and power vs ε")  # switching views keeps every value, and the link
    assert not at.exception, at.exception
    assert at.select_slider(key="fdr_c").value == 80 and at.select_slider(key="eps").value == 1.0
    assert dict(at.query_params) == {"eps": "1.0", "fdr_alpha": "0.02", "fdr_c": "80", "fdr_method": "PAPRIKA AI",
                                     "fdr_n": "1000"}
    again = _page(**dict(at.query_params))
    assert _noise_text(again) == _noise_text(at)


def test_an_old_link_with_the_private_method_in_fdr_view_still_opens_it():
    """Before the view tabs, ?fdr_view= chose PAPRIKA or PAPRIKA AI; that key now names the open tab."""
    at = _page(fdr_view="PAPRIKA AI")
    assert not at.exception, at.exception
    assert at.radio(key="fdr_method").value == "PAPRIKA AI"
    assert at.query_params["fdr_method"] == "PAPRIKA AI" and "fdr_view" not in at.query_params
    assert _charts(at) == ["fdr_fig_stream"]


def test_hostile_links_on_the_epsilon_view():
    """The accuracy-first controls are drawn on the ε view only (tests/app/test_hostile_links.py opens the default view)."""
    at = _page("FDR and power vs ε", fdr_acc_thr="1e309", fdr_acc_kind="[x](https://evil.example)",
               fdr_acc_prob="-inf")
    assert not at.exception, at.exception
    notes = [c.value for c in at.caption if c.value.startswith("Link:")]
    assert len(notes) == 3 and all("evil.example" not in n for n in notes), notes


def test_epsilon_from_the_url_changes_the_noise():
    at = _page(eps="1", **PAPER)
    assert not at.exception, at.exception
    text = _noise_text(at)
    assert "Laplace(6.65)" in text and "A = 26.2" in text


def test_truncated_exponential_and_code_rule_render():
    at = _page(fdr_src="truncexp", fdr_rule="code", fdr_method="PAPRIKA AI", fdr_R="20")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Releases always use the paper" in c.value for c in at.caption)


def _release_reason(at) -> str:
    return " ".join(i.value for i in at.info if i.icon == ":material/lock:")


@pytest.mark.parametrize("query, reasons", [
    (PAPER, ["Set the shift to 'proven for the stream", "not a bound proven"]),  # the paper's s = 1 and η
    ({"fdr_s": "4.0"}, ["Set the shift to"]),  # Theorem 4's s = 4: δ per boundary event
    ({"fdr_etahow": "paper"}, ["not a bound proven"]),  # the paper's η
    ({"fdr_src": "truncexp"}, ["No η is proven for the truncated-exponential"]),
])
def test_release_is_blocked_without_the_proven_shift_and_eta(query, reasons):
    at = _page(fdr_R="20", **query)
    assert not at.exception, at.exception
    assert at.button(key="release_button_fdr").disabled
    text = _release_reason(at)
    assert all(r in text for r in reasons), text
    if query.get("fdr_etahow") == "paper":  # the paper's η is a preview with a plain warning
        assert any("Preview only" in w.value for w in at.warning)
    assert at.session_state["_dp_ledger"].summary() == []  # (fdr.release refuses them too: test_fdr.py)


def test_release_charges_the_ledger_and_exports_only_the_rejection_set():
    at = _page(fdr_R="20", fdr_s="stream", fdr_etahow="binomial")
    assert not at.button(key="release_button_fdr").disabled
    at.button(key="release_button_fdr").click().run()
    at.button(key="release_confirm_fdr").click().run()  # the confirmation dialog
    assert not at.exception, at.exception
    assert any("Released PAPRIKA" in s.value for s in at.success)
    ledger = at.session_state["_dp_ledger"]  # a simulated stream: recorded, nobody real read or charged
    assert ledger.summary()[0]["releases"] == 1 and ledger.summary()[0]["ε spent"] == 0.0
    bundle = at.session_state["_release_last_fdr"]
    assert any("reads no real person and charges nobody" in n for n in bundle.notes)
    assert list(bundle.tables["rejections"].columns) == ["hypothesis", "rejected", "alpha_t"]
    notes = " ".join(bundle.notes)
    assert "Every test in the stream runs on the same records" in notes and "exact sensitivity" in notes
    # the custodian's utility note is computed for the release although the view over runs was never opened
    note = at.session_state["_release_last_fdr_note"]
    assert note is not None and "PAPRIKA at ε = 5 over 20 simulated streams: FDR" in note.text


def test_the_release_uses_the_settings_and_epsilon_of_the_fragment():
    at = _page(fdr_R="20", fdr_s="stream", fdr_etahow="binomial", eps="2", fdr_delta="1e-05", fdr_c="10",
               fdr_method="PAPRIKA AI")
    at.select_slider(key="eps").set_value(3.0).run()
    at.button(key="release_button_fdr").click().run()
    at.button(key="release_confirm_fdr").click().run()
    assert not at.exception, at.exception
    (record,) = at.session_state["_dp_ledger"].records()  # recorded at the fragment's (ε, δ); nobody charged
    assert record.epsilon == 3.0 and record.delta == 1e-05
    bundle = at.session_state["_release_last_fdr"]
    assert bundle.method.startswith("PAPRIKA AI") and bundle.epsilon == 3.0 and bundle.delta == 1e-05


def test_the_power_cost_of_the_proven_shift_is_shown():
    at = _page("All methods over runs", fdr_R="20")
    assert not at.exception, at.exception
    cost = next(d.value for d in at.dataframe if "A (log p)" in d.value.columns)
    assert list(cost["shift"].unique()) == ["proven for the stream (δ/k)", "s = 4 (Theorem 4)", "s = 1 (paper's experiments)"]
    assert list(cost["method"].unique()) == ["PAPRIKA", "PAPRIKA AI"]


def test_an_uploaded_stream_releases_only_with_an_eta_the_user_states():
    """The stated η needs an explicit statement (a box the link cannot tick), and the release notes
    say that the guarantee rests on it; the paper's η stays preview-only for uploads too."""
    from unittest import mock

    import streamlit as st

    class _Upload:
        name = "stream.csv"

        def getvalue(self):
            rng = np.random.default_rng(5)
            return ("p\n" + "\n".join(f"{p:.3e}" for p in np.where(rng.random(300) < 0.1, 1e-12, rng.random(300)))
                    + "\n").encode()

    at = AppTest.from_file(PAGE, default_timeout=180)

    unfold_settings(at, "fdr")

    at.session_state[DETAILS["fdr"]] = True  # the details at ε, unfolded
    at.query_params.update(fdr_src="upload", fdr_s="stream", fdr_eta_confirm="True")
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload()):
        at.run()
        assert not at.exception, at.exception
        assert at.button(key="release_button_fdr").disabled and "Tick the box" in _release_reason(at)
        at.checkbox(key="fdr_eta_confirm").check().run()
        assert at.button(key="release_button_fdr").disabled and "Name the cohort" in _release_reason(at)
        _declare_cohort(at)
        assert not at.button(key="release_button_fdr").disabled, _release_reason(at)
        at.button(key="release_button_fdr").click().run()
        at.button(key="release_confirm_fdr").click().run()  # the confirmation dialog
        assert not at.exception, at.exception
        notes = " ".join(at.session_state["_release_last_fdr"].notes)
        assert "rests on the user-stated η = 0.0831" in notes and "Every test in the stream runs on the same" in notes
        at.radio(key="fdr_etahow").set_value("paper").run()
        assert at.button(key="release_button_fdr").disabled and "not a bound proven" in _release_reason(at)


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

    unfold_settings(at, "fdr")

    at.session_state[DETAILS["fdr"]] = True  # the details at ε, unfolded
    at.query_params["fdr_src"] = "upload"
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload()):
        at.run()
        at.selectbox(key="fdr_tcol").set_value("truth").run()
        texts = [m.value for m in at.metric]  # the one-stream view
        _open(at, "All methods over runs")
    assert not at.exception, at.exception
    texts += [str(v) for v in at.dataframe[0].value["power ± SE"]]
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


# ---------------------------------------------------------------- a releasable configuration, the frontier


def _release_path_line(at) -> str:
    """The release-path paragraph (the second of the noise line's element)."""
    return next(part for m in at.markdown for part in m.value.split("\n\n") if part.startswith("**Release path**"))


def test_the_page_opens_on_a_releasable_configuration_with_power():
    at = _page()
    assert not at.exception, at.exception
    assert at.radio(key="fdr_etahow").value == "binomial" and at.select_slider(key="fdr_n").value == 5000
    assert not at.button(key="release_button_fdr").disabled, _release_reason(at)
    assert not any("Preview only" in w.value for w in at.warning)  # exact η, proven shift: nothing to warn about
    line = _release_path_line(at)
    power = float(line.split("its power is ")[1].split(" ")[0])
    assert power >= 0.8, line
    assert "fewest records per test reaching power ≥ 0.8 at ε ≤ 5 is **5,000**" in line
    answer = next(m.value for m in at.markdown if m.value.startswith("**Real effects found"))
    power_here = float(answer.split("private **")[1].split("%")[0]) / 100  # the answer line's private power
    assert power_here >= 0.7  # the first stream's own power (one stream, so a little below the mean)
    _open(at, "Power frontier")
    assert not at.exception, at.exception
    assert _charts(at) == ["fdr_fig_frontier"]
    assert any("The largest FDR of any cell is" in m.value for m in at.markdown)


def test_the_papers_settings_are_one_click_away_and_back():
    at = _page()
    at.button(key="fdr_paper").click().run()
    assert not at.exception, at.exception
    assert at.select_slider(key="fdr_n").value == 1000 and at.radio(key="fdr_etahow").value == "paper"
    assert at.select_slider(key="fdr_s").value == 1.0
    assert "Laplace(1.33)" in _noise_text(at) and "A = 5.25" in _noise_text(at)  # fdr.md's worked values at ε = 5
    assert at.button(key="release_button_fdr").disabled
    assert "its power is 0.00" in _release_path_line(at)  # the release path has no power at the paper's n
    at.button(key="fdr_releasable").click().run()
    assert not at.exception, at.exception
    assert at.select_slider(key="fdr_n").value == 5000 and at.radio(key="fdr_etahow").value == "binomial"
    assert at.number_input(key="fdr_floor").value == 286  # the design floor for n = 5000, θ = 0.75
    assert not at.button(key="release_button_fdr").disabled


def test_the_frontier_is_explained_off_the_bernoulli_design():
    at = _page("Power frontier", fdr_src="truncexp", fdr_R="20")
    assert not at.exception, at.exception
    assert any("Bernoulli simulation" in i.value for i in at.info) and "fdr_fig_frontier" not in _charts(at)


# ---------------------------------------------------------------- uploads


def _upload_page(csv: str, **query):
    """The page with ``csv`` as the uploaded file (the file uploader replaced), still patched for further runs."""
    from unittest import mock

    import streamlit as st

    class _Upload:
        name = "stream.csv"

        def getvalue(self):
            return csv.encode()

    at = AppTest.from_file(PAGE, default_timeout=180)

    unfold_settings(at, "fdr")

    at.session_state[DETAILS["fdr"]] = True  # the details at ε, unfolded
    at.query_params.update(fdr_src="upload", **query)
    patch = mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload())
    patch.start()
    try:
        at.run()
        _declare_cohort(at)
    finally:
        patch.stop()
    return at, patch


def _declare_cohort(at, name: str = "Trial A", size: int = 1000) -> None:
    """Name the cohort the uploaded p-values came from (a release charges its people)."""
    if at.exception or not any(box.key == "fdr_cohort" for box in at.selectbox):
        return
    at.selectbox(key="fdr_cohort").set_value(NEW_COHORT).run()
    at.text_input(key="fdr_cohort_name").input(name).run()
    at.number_input(key="fdr_cohort_size").set_value(size).run()


def _sums(T=300, n=1000, seed=2):
    rng = np.random.default_rng(seed)
    return rng.binomial(n, np.where(rng.random(T) < 0.1, 0.75, 0.5))


def test_ztest_pvalues_cannot_carry_the_exact_binomial_eta():
    """The review's upload: z-test p-values with 'exact one-sided binomial test', n = 1000 were released as proven."""
    from scipy import stats

    p = stats.norm.sf((_sums() - 500) / np.sqrt(250))
    at, _ = _upload_page("p\n" + "\n".join(repr(float(v)) for v in p) + "\n", fdr_etahow="binomial")
    assert not at.exception, at.exception
    errors = [e.value.replace("\\", "").replace("\u2060", "") for e in at.error]  # shown literally: unescape
    assert any("Column 'p', row 2: p = " in e and "is not a one-sided binomial tail value" in e for e in errors), errors
    assert at.button(key="release_button_fdr").disabled
    assert "Choose 'a value I state'" in _release_reason(at)


def test_true_binomial_pvalues_release_with_the_exact_eta_and_name_the_hypotheses():
    from scipy import stats

    s = _sums()
    p = stats.binom.sf(s - 1, 1000, 0.5)
    rows = "\n".join(f"{float(v)!r},gene_{i}" for i, v in enumerate(p))
    at, patch = _upload_page("p,name\n" + rows + "\n", fdr_etahow="binomial", fdr_floor="58", fdr_lcol="name",
                             fdr_c="10", eps="10")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert not at.button(key="release_button_fdr").disabled, _release_reason(at)
    named = [c.value for c in at.caption if "by hypothesis label" in c.value]
    assert named and "gene\\_" in named[0]  # cell text shown literally (the underscore escaped)
    patch.start()
    try:
        at.button(key="release_button_fdr").click().run()
        at.button(key="release_confirm_fdr").click().run()
    finally:
        patch.stop()
    assert not at.exception, at.exception
    bundle = at.session_state["_release_last_fdr"]
    table = bundle.tables["rejections"]
    assert list(table.columns) == ["hypothesis", "label", "rejected", "alpha_t"]
    assert table["label"].tolist() == [f"gene_{i}" for i in range(len(p))]
    assert "n_rejections" in bundle.derived_params and "n_rejections" not in bundle.public_params


def test_zero_pvalues_are_counted_when_they_are_raised_to_the_floor():
    p = np.random.default_rng(3).random(200)
    p[[4, 9, 10]] = 0.0
    at, _ = _upload_page("p\n" + "\n".join(repr(float(v)) for v in p) + "\n")
    assert not at.exception, at.exception
    notes = [i.value for i in at.info if "below the floor" in i.value]
    assert notes and "3 p-values" in notes[0] and "3 of them equal to 0" in notes[0] and "row 6" in notes[0], notes


def test_a_label_column_from_a_hostile_file_is_shown_literally():
    p = np.random.default_rng(3).random(100)
    p[:5] = 1e-15
    rows = "\n".join(f"{float(v)!r},[click](https://evil.example)" for v in p)
    at, _ = _upload_page("p,label\n" + rows + "\n", fdr_lcol="label", fdr_eta="0.01", eps="10")
    assert not at.exception, at.exception
    named = [c.value for c in at.caption if "by hypothesis label" in c.value]
    assert named and "\\[click\\]" in named[0] and "](https" not in named[0], named


def test_the_power_frontier_of_the_neighbouring_alphas_is_computed_ahead():
    """Moving α waits for a new power frontier (~0.4 s): after a run the page starts the frontiers one α step either
    side in the background (public inputs only), so the move finds them in the shared cache."""
    import time

    from ui import cache

    _page()
    alphas = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not {0.02, 0.1} <= alphas:
        time.sleep(0.2)
        with cache._LOCK:
            alphas = {key[0][3] for key in cache._CACHES["fdr frontiers"][1]}
    assert {0.02, 0.05, 0.1} <= alphas


def test_choosing_another_p_value_column_redraws_the_sweep_over_epsilon():
    """The same file, another column as the p-values: the sweep over ε (kept in the session while ε moves) follows
    the column chosen, not the previous one."""
    from unittest import mock

    import streamlit as st

    from tests.support.page_views import chart_spec

    rng = np.random.default_rng(5)
    truth = (np.arange(300) % 4 == 0).astype(int)
    strong, weak = np.where(truth, rng.random(300) ** 8, rng.random(300)), rng.random(300)
    csv = "p1,p2,truth\n" + "\n".join(f"{a:.6g},{b:.6g},{t}" for a, b, t in zip(strong, weak, truth)) + "\n"

    class _Upload:
        name = "two.csv"

        def getvalue(self):
            return csv.encode()

    at = AppTest.from_file(PAGE, default_timeout=180)

    unfold_settings(at, "fdr")

    at.session_state[DETAILS["fdr"]] = True  # the details at ε, unfolded
    at.query_params.update(fdr_src="upload", fdr_pcol="p1", fdr_tcol="truth")
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload()):
        at.run()
        _declare_cohort(at)
        at.session_state["fdr_view"] = "FDR and power vs ε"
        at.run()
        first = chart_spec(at, "fdr_fig_eps")
        at.selectbox(key="fdr_pcol").set_value("p2").run()
        second = chart_spec(at, "fdr_fig_eps")
    assert not at.exception, at.exception
    assert first["data"] != second["data"]

"""AppTest for the survival page: ε change, data set switch, estimators, upload errors, release, view tabs."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, chart_keys as _charts, chart_spec, open_view, unfold_settings
from tests.support.pages import ok, survival_upload

from dpcore import survival as sv
from dpcore.core.validation import InputError, read_csv

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "survival.py")
HEADLINE, DRAWS, GROUPS = "Private vs non-private", "Over R noise draws", "Groups and log-rank"


def _app(details: bool = True) -> AppTest:
    """The page on its defaults; ``details``: with the details at ε unfolded (a click: they are drawn only open)."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    unfold_settings(at, "survival")
    at.session_state[DETAILS["survival"]] = details
    at.run()
    ok(at)
    return at


def test_the_details_at_epsilon_are_folded_and_drawn_only_when_opened():
    """Folded by default, the details (what was noised, the summary table, the downloads) are neither computed nor
    sent; a choice made in them (the read times) is kept while they are folded, and the release uses it."""
    at = _app(details=False)
    assert not any(m.value.startswith("**What is noised") for m in at.markdown) and not at.table
    assert not at.get("download_button") and at.button(key="release_button_survival")
    assert any(m.value.startswith(":small[Unit of privacy") for m in at.markdown)  # outside the fold
    at.session_state[DETAILS["survival"]] = True
    at.run()
    ok(at)
    assert any(m.value.startswith("**What is noised") for m in at.markdown) and at.table
    at.text_input(key="sv_years").set_value("1").run()  # the default reads 1 and 2 years (5 is past the horizon)
    at.session_state[DETAILS["survival"]] = False
    at.run()
    at.select_slider(key="eps").set_value(2.0).run()
    ok(at)
    assert not at.table and at.query_params["sv_years"] == "1"
    at.button(key="release_button_survival").click().run()
    at.button(key="release_confirm_survival").click().run()
    ok(at)
    read = pd.DataFrame(at.session_state["_release_last_survival"].tables["survival_at_times"])
    assert read["time"].nunique() == 1


def _view(at: AppTest, label: str) -> AppTest:
    ok(open_view(at, "sv_view", label))
    return at


def test_page_renders_and_reacts_to_epsilon_and_dataset():
    at = _app()
    assert any("each count ±" in m.value for m in at.markdown)
    _view(at, GROUPS)
    assert any(m.value.startswith("Log-rank χ²") for m in at.markdown)
    before = next(m.value for m in at.markdown if m.value.startswith("**What is noised"))
    at.select_slider(key="eps").set_value(5.0).run()
    ok(at)
    after = next(m.value for m in at.markdown if m.value.startswith("**What is noised"))
    assert before != after and "ε = 5" in after
    at.selectbox(key="sv_data").set_value("pbc").run()
    ok(at)
    assert "cumulative incidence (competing risks)" in at.radio(key="sv_est").options
    at.radio(key="sv_est").set_value("cif").run()
    ok(at)
    at.radio(key="sv_est").set_value("na").run()
    ok(at)
    at.selectbox(key="sv_data").set_value("gehan").run()
    at.toggle(key="sv_cmp").set_value(False).run()
    ok(at)
    assert not any(m.value.startswith("Log-rank χ²") for m in at.markdown)
    at.radio(key="sv_rs").set_value("running").run()
    ok(at)
    at.toggle(key="sv_cmp").set_value(True).run()
    at.toggle(key="sv_aware").set_value(True).run()
    _view(at, GROUPS)  # without groups the groups view was gone: the page fell back to the first view
    assert any("noise-aware" in m.value for m in at.markdown if m.value.startswith("Log-rank"))
    ok(at)
    at.selectbox(key="sv_unit").set_value("days").run()
    ok(at)


def test_release_button_charges_and_exports():
    at = _app()
    at.selectbox(key="sv_data").set_value("ovarian").run()
    at.button(key="release_button_survival").click().run()
    at.button(key="release_confirm_survival").click().run()  # the confirmation dialog
    ok(at)
    assert any("Released DP survival analysis" in s.value for s in at.success)
    bundle = at.session_state["_release_last_survival"]
    assert "kaplan_meier" in bundle.tables and bundle.epsilon == 1.0


def test_settings_chosen_then_folded_away_reach_the_page_and_the_release():
    """A folded settings box draws no control; what was chosen in it before it was folded still drives the page and
    the release (the band rule and the seed are read where the controls are not drawn)."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[DETAILS["survival"]] = True
    at.run()
    assert not any(r.key == "sv_band" for r in at.radio) and not any(n.key == "sv_seed" for n in at.number_input)
    unfold_settings(at, "survival").run()
    at.radio(key="sv_band").set_value("envelope").run()
    at.number_input(key="sv_seed").set_value(7).run()
    at.session_state["sv_settings"] = False  # folded again
    at.run()
    at.run()  # Streamlit has dropped the controls' widget state by now
    assert not any(r.key == "sv_band" for r in at.radio)
    assert at.query_params["sv_band"] == "envelope" and at.query_params["sv_seed"] == "7"
    assert "envelope" in at.expander(key="sv_settings").label  # the folded box's label lists the choice
    at.button(key="release_button_survival").click().run()
    at.button(key="release_confirm_survival").click().run()
    ok(at)
    bundle = at.session_state["_release_last_survival"]
    assert bundle.public_params["band_between_edges"] == "envelope"


def test_upload_without_file_explains_format():
    at = AppTest.from_file(PAGE, default_timeout=90)
    unfold_settings(at, "survival")
    at.run()
    at.radio(key="sv_src").set_value("upload").run()
    assert not at.exception
    assert any("Upload a CSV" in i.value for i in at.info)


def test_upload_bad_csv_shows_named_error():
    at = survival_upload(b"time;event\n1;0\n2;1\n")
    assert not at.exception
    assert any("semicolons" in e.value for e in at.error)
    at = survival_upload(b"t,e,arm\n1,0,A\n-2,1,B\n3,1,A\n", sv_tcol="t", sv_ecol="e")
    assert not at.exception
    assert any("'t'" in e.value and "row 3" in e.value and "negative" in e.value for e in at.error)
    at = survival_upload(b"t,e,arm\n1,0,A\n2,2,B\n3,1,A\n", sv_tcol="t", sv_ecol="e")
    assert any("'e'" in e.value and "not one of the declared codes" in e.value for e in at.error)


def test_upload_good_csv_runs_with_groups_and_competing_codes():
    rng = np.random.default_rng(0)
    n = 120
    rows = ["days,status,arm"] + [f"{rng.exponential(200):.4f},{rng.integers(0, 3)},{'AB'[i % 2]}" for i in range(n)]
    at = survival_upload("\n".join(rows).encode(), group_labels="A, B", sv_tcol="days", sv_ecol="status",
                      sv_gcol="arm", sv_k=2, view=GROUPS)
    ok(at)
    assert any(m.value.startswith("Log-rank χ²") for m in at.markdown)
    assert "cumulative incidence (competing risks)" in at.radio(key="sv_est").options


def test_survival_from_frame_errors_are_named():
    frame = read_csv(b"t,e,g\n1,0,a\n2,1,a\n3,1,rare\n")
    with pytest.raises(InputError, match="Declare the group labels"):
        sv.survival_from_frame(frame, time_col="t", event_col="e", group_col="g")
    with pytest.raises(InputError, match="at least two distinct group labels"):
        sv.survival_from_frame(frame, time_col="t", event_col="e", group_col="g", group_labels=["a"])
    with pytest.raises(InputError, match=r"Column 'g', row 4: the group 'rare' is not one of the declared groups"):
        sv.survival_from_frame(frame, time_col="t", event_col="e", group_col="g", group_labels=["a", "b"])
    declared = sv.survival_from_frame(frame.iloc[:2], time_col="t", event_col="e", group_col="g",
                                      group_labels=["a", "b"])
    assert declared.groups == ("a", "b")  # the declared set, even when a group has no rows
    with pytest.raises(InputError, match="more than one role"):
        sv.survival_from_frame(frame, time_col="t", event_col="t")
    m = sv.survival_from_frame(frame.iloc[:2], time_col="t", event_col="e")
    assert m.event.tolist() == [0, 1] and m.group is None


def test_switching_data_sets_resets_the_grid_controls_and_the_link():
    """A new data set brings its own public horizon and grid unit; the old ones also leave the URL (else
    the URL-bound widgets would bring them straight back and the link would stop reproducing the page)."""
    fresh = AppTest.from_file(PAGE, default_timeout=90)
    unfold_settings(fresh, "survival")
    fresh.query_params["sv_data"] = "gehan"
    fresh.run()
    gehan = (fresh.number_input(key="sv_hor").value, fresh.selectbox(key="sv_unit").value)
    at = AppTest.from_file(PAGE, default_timeout=90)  # Cancer (days), with a link's horizon and unit
    unfold_settings(at, "survival")
    at.query_params["sv_hor"] = "700"
    at.query_params["sv_unit"] = "weeks"
    at.run()
    ok(at)
    assert at.number_input(key="sv_hor").value == 700 and at.selectbox(key="sv_unit").value == "weeks"
    at.selectbox(key="sv_data").set_value("gehan").run()
    ok(at)
    assert (at.number_input(key="sv_hor").value, at.selectbox(key="sv_unit").value) == gehan
    assert "sv_hor" not in at.query_params and "sv_unit" not in at.query_params



@pytest.mark.parametrize("horizon", ["5000", "100000"])
def test_too_fine_grids_get_one_consistent_limit(horizon):
    at = AppTest.from_file(PAGE, default_timeout=90)
    unfold_settings(at, "survival")
    at.query_params["sv_unit"] = "days"
    at.query_params["sv_hor"] = horizon
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] and all("at most 2,000 bins" in e.value for e in at.error)


def test_accuracy_first_refines_the_survival_estimate_with_more_draws():
    """The page hands accuracy-first its simulator (bundled data: public, may run on a cluster)."""
    at = _app()
    at.session_state["sv_acc_open"] = True  # the user opens the expander (computed only while open)
    at.run()
    at.button(key="sv_acc_refine").click().run()
    ok(at)
    assert any("from 1000 simulated releases per ε" in c.value for c in at.caption), [c.value for c in at.caption]


def test_only_the_open_view_is_computed_and_drawn():
    """The ε section's views are a view switch: only the open one is computed and drawn, so a slider move redraws one
    chart. The trade-off curve over ε below is independent of the views."""
    with mock.patch.object(sv, "utility", wraps=sv.utility) as utility, \
            mock.patch.object(sv, "bootstrap_curves", wraps=sv.bootstrap_curves) as band:
        at = _app()
        assert list(at.button_group(key="sv_view").options) == [HEADLINE, DRAWS, GROUPS]
        assert _charts(at) == ["sv_headline", "sv_curve"]  # accuracy first: closed
        at.select_slider(key="eps").set_value(2.0).run()
        ok(at)
        assert utility.call_count == 0 and band.call_count == 2  # the headline's band redraws, nothing of the draws
        _view(at, DRAWS)
        assert _charts(at) == ["sv_draws", "sv_curve"] and band.call_count == 2  # accuracy first: closed
        assert utility.call_count == 1 and utility.call_args.kwargs["draws"] == 200
        assert any("Mean and 5–95 % of 200 preview releases" in c.value for c in at.caption)
        at.select_slider(key="sv_R").set_value(50).run()
        ok(at)
        assert utility.call_args.kwargs["draws"] == 50 and at.query_params["sv_R"] == "50"
        assert any(s.value == "Utility over 50 noise draws" for s in at.subheader)
        _view(at, GROUPS)
        assert _charts(at) == ["sv_groups", "sv_curve"]  # accuracy first: closed
        assert "sv_R" not in at.session_state  # not drawn in this view …
        _view(at, DRAWS)
        assert at.select_slider(key="sv_R").value == 50  # … but it keeps its value
        assert at.query_params["sv_R"] == "50"


def test_headline_names_its_lines_in_a_legend_and_answers_in_one_line():
    """The headline chart names its private and non-private lines in a legend drawn as text (Plotly's legend costs
    a layout pass on every move), not in a caption of many words; the answer line gives both medians."""
    at = _app()
    spec = chart_spec(at, "sv_headline")
    assert spec["layout"]["showlegend"] is False
    legend = " ".join(a.get("text", "") for a in spec["layout"]["annotations"] if "━" in a.get("text", ""))
    assert "private (one preview draw)" in legend and "non-private" in legend, legend
    under_chart = next(t.value for t in [*at.caption, *at.markdown] if "The private curve is one" in t.value)
    assert len(under_chart.split()) <= 50, under_chart
    answer = next(m.value for m in at.markdown if m.value.startswith("**Median survival")).replace("\\", "")
    assert "private **" in answer and "months (95 % CI" in answer and "· non-private" in answer, answer


def test_headline_reads_the_curve_between_edges_beside_lifelines_and_prices_the_grid():
    """The Kaplan–Meier headline is drawn by the within-bin rule (not steps), lifelines on the exact times
    is the reference, the grid's and the noise's costs are shown apart, and the median, survival at 1, 2 and 5
    years and the restricted mean are quoted with intervals."""
    at = _app()
    spec = chart_spec(at, "sv_headline")
    names = {t.get("name"): t for t in spec["data"]}
    assert names["private (read between edges)"]["line"]["shape"] == "linear"
    assert "non-private: lifelines on the exact times" in names
    text = " ".join(m.value for m in at.markdown)
    assert "binning alone" in text and "noise" in text and "lifelines on the exact times" in text
    summary = at.table[0].value
    assert any("survival at" in str(i) for i in summary.index) and any("restricted mean" in str(i) for i in summary.index)


def test_release_note_reads_the_trade_off_curve_at_epsilon():
    """The custodian's note quotes the utility at the chosen ε from the trade-off curve's draws (no simulation of
    its own per ε move), with the number of draws it rests on."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    unfold_settings(at, "survival")
    at.query_params["eps"] = "2"
    at.query_params["sv_Rc"] = "50"
    at.run()
    ok(at)
    assert at.select_slider(key="sv_Rc").value == 50
    with mock.patch.object(sv, "utility", side_effect=AssertionError("no per-move simulation for the note")):
        at.button(key="release_button_survival").click().run()
        at.button(key="release_confirm_survival").click().run()
    ok(at)
    note = at.session_state["_release_last_survival_note"]
    assert note.text.startswith("Over 50 simulated releases at ε = 2 (the privacy–utility curve's draws at this ε)")
    assert "sup-norm error" in note.text and "integrated absolute error" in note.text and "log-rank" in note.text
    assert at.session_state["_release_last_survival"].epsilon == 2.0


def test_links_reproduce_the_views_controls():
    """``?sv_R=`` (draws of the utility view, drawn only in its tab) and ``?sv_Rc=`` (draws per ε of the curve)."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    unfold_settings(at, "survival")
    at.query_params.update({"sv_R": "500", "sv_Rc": "100", "eps": "0.5", "sv_data": "gehan"})
    at.session_state[DETAILS["survival"]] = True
    at.session_state["sv_acc_open"] = True  # accuracy first, computed only while open, reads the curve's draws
    at.run()
    ok(at)
    assert at.select_slider(key="sv_Rc").value == 100 and at.select_slider(key="eps").value == 0.5
    assert any("from 100 simulated releases per ε" in c.value for c in at.caption)
    assert at.query_params["sv_R"] == "500"  # kept while its view is closed
    _view(at, DRAWS)
    assert at.select_slider(key="sv_R").value == 500
    assert any(s.value == "Utility over 500 noise draws" for s in at.subheader)
    assert "ε = 0.5" in next(m.value for m in at.markdown if m.value.startswith("**What is noised"))
    at.select_slider(key="sv_Rc").set_value(200).run()  # back to the default: leaves the link
    ok(at)
    assert "sv_Rc" not in at.query_params and at.query_params["sv_R"] == "500"


def test_gaussian_noise_is_offered_charged_as_a_gaussian_and_planned_against_discrete_laplace():
    """Gaussian noise on the survival counts, with its δ; the release is charged (ε, δ) with the Gaussian's
    event (tight accounting), and the plan measures both noises for several releases on one budget."""
    from dpcore import accounting
    from ui import state

    at = _app()
    at.radio(key="sv_noise").set_value("gaussian").run()
    ok(at)
    assert at.selectbox(key="sv_delta").value == 1e-6
    noised = next(m.value for m in at.markdown if m.value.startswith("**What is noised"))
    assert "Gaussian noise, σ = " in noised and "Δ2 = 1.41" in noised
    at.toggle(key="sv_plan").set_value(True).run()
    ok(at)
    plan = next(t for t in at.table if "less noise" in t.value.columns).value
    assert list(plan.index) == [1, 2, 5, 10, 20]
    assert list(plan["less noise"]) == ["discrete Laplace"] * 2 + ["Gaussian"] * 3  # k = 5: 0.95 of the sd
    at.button(key="release_button_survival").click().run()
    at.button(key="release_confirm_survival").click().run()
    ok(at)
    bundle = at.session_state["_release_last_survival"]
    assert (bundle.epsilon, bundle.delta) == (1.0, 1e-6) and bundle.public_params["noise_kind"] == "gaussian"
    (record,) = at.session_state[state._LEDGER].records()
    (event,) = accounting.events_from_json(record.events)
    assert isinstance(event, accounting.Gaussian) and (record.epsilon, record.delta) == (1.0, 1e-6)


def test_groups_view_reads_between_edges_and_quotes_differences():
    at = _view(_app(), GROUPS)
    spec = chart_spec(at, "sv_groups")
    private = [t for t in spec["data"] if str(t.get("name", "")).endswith("(private)")]
    assert private and all(t["line"]["shape"] == "linear" for t in private)
    table = at.table[0].value
    measures = " ".join(str(i) for i in table.index)
    assert "median survival" in measures and "restricted mean" in measures

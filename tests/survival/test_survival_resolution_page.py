"""AppTest: the survival page's declaration that times were recorded in whole units — in the folded settings, from
a link with a safe fallback, proposed to the custodian only as text, and carried into the figure and the release."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, chart_spec, unfold_settings
from tests.support.pages import ok, survival_upload

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "survival.py")


def _release(at: AppTest):
    at.button(key="release_button_survival").click().run()
    at.button(key="release_confirm_survival").click().run()
    ok(at)
    return at.session_state["_release_last_survival"]


def test_a_link_declares_whole_days_into_the_settings_the_figure_and_the_release():
    at = AppTest.from_file(PAGE, default_timeout=120)
    unfold_settings(at, "survival")
    at.session_state[DETAILS["survival"]] = True  # the details at ε, unfolded
    at.query_params.update({"sv_data": "veteran", "sv_whole": "days", "sv_cmp": "false"})
    at.run()
    ok(at)
    assert at.selectbox(key="sv_whole").value == "days"
    assert "times in whole days" in at.expander[0].label  # the folded group's label says the declaration
    private = next(t for t in chart_spec(at, "sv_headline")["data"] if t.get("name") == "private (read between edges)")
    assert private["line"]["shape"] == "hv"  # the staircase the tables read
    assert any("staircase of times declared recorded in whole days" in m.value for m in at.markdown)
    bundle = _release(at)
    assert bundle.public_params["times_recorded_in_whole"] == "1 days (declared by the custodian)"
    assert any("rests on that declaration" in note for note in bundle.notes)


def test_a_link_value_the_column_cannot_carry_falls_back_to_continuous_with_a_note():
    at = AppTest.from_file(PAGE, default_timeout=120)
    unfold_settings(at, "survival")
    at.session_state[DETAILS["survival"]] = True  # the details at ε, unfolded
    at.query_params.update({"sv_data": "veteran", "sv_whole": "months<b>"})  # days cannot be whole months
    at.run()
    ok(at)
    assert at.selectbox(key="sv_whole").value == "continuous"
    assert any(c.value.startswith("Link:") and "sv_whole" not in c.value for c in at.caption)
    bundle = _release(at)
    assert bundle.public_params["times_recorded_in_whole"] is None
    assert not any("declaration" in note for note in bundle.notes)


def test_an_upload_in_whole_years_is_proposed_the_declaration_but_never_given_it():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"patient_id": np.arange(400), "years": np.ceil(rng.exponential(4, 400)),
                          "event": (rng.random(400) < 0.7).astype(int)})  # one person a row, named by the id
    at = survival_upload(frame.to_csv(index=False).encode(), sv_tunit="years")
    ok(at)
    assert at.selectbox(key="sv_whole").value == "continuous"  # not set from the data
    assert any("whole number of years" in c.value for c in at.caption)
    private = next(t for t in chart_spec(at, "sv_headline")["data"] if t.get("name") == "private (read between edges)")
    assert private["line"].get("shape", "linear") == "linear"


def test_a_declaration_the_times_do_not_fit_is_flagged_outside_the_fold():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"patient_id": np.arange(300), "months": np.round(rng.exponential(30, 300), 1),
                          "status": rng.integers(0, 2, 300)})
    at = survival_upload(frame.to_csv(index=False).encode(), sv_tunit="months")
    at.selectbox(key="sv_whole").set_value("years").run()
    ok(at)
    assert any("not whole years" in w.value for w in at.warning)

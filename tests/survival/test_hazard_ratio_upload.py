"""AppTest: on an upload the hazard-ratio section stratifies by a column and adjusts for declared covariates.

The upload is synthetic (240 people, two arms, two sites, sex, stage and a continuous age); the file uploader is
replaced as in ``tests/survival/test_survival_page.py``. Every number is compared with the fitter or lifelines called directly.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest

from dpcore.survival.cox import DPCoxPHFitter, cut_at, group_frame, lifelines_reference
from tests.support.page_views import chart_spec
from tests.support.notebooks import trace
from tests.support.hazard_ratio import TRIAL, hazard_ratio_upload, stratify_and_adjust
from tests.support.pages import ok


def _direct(strata: bool = True, covariates: bool = True) -> tuple[DPCoxPHFitter, pd.DataFrame]:
    extra = TRIAL[["sex", "site"]] if covariates else TRIAL[["site"]]
    df = group_frame(TRIAL["time"], TRIAL["event"], TRIAL["arm"], extra, names=("time", "event", "arm"))
    fitter = DPCoxPHFitter(epsilon=1.0, bounds={"arm": ("A", "B"), **({"sex": (0, 1)} if covariates else {})},
                           strata={"site": ("north", "south")} if strata else None, horizon=365.0, intervals=2)
    return fitter.fit(df, "time", "event", rng=np.random.default_rng(0)), df


def test_a_stratified_adjusted_fit_is_the_fitters_with_the_same_seed():
    with hazard_ratio_upload() as at:
        stratify_and_adjust(at)
    fitter, df = _direct()
    shown = chart_spec(at, "hr_forest")
    np.testing.assert_allclose(trace(shown, "private", "x"), fitter.summary["exp(coef)"], rtol=1e-12)
    assert shown["layout"]["yaxis"]["ticktext"] == ["arm[B]", "sex"]
    reference = lifelines_reference(df, "time", "event", fitter)
    np.testing.assert_allclose(trace(shown, "lifelines", "x"), reference["exp(coef)"], rtol=1e-12)
    assert any("strata 'site': north, south; 'sex': binary (0, 1)" in c.value.replace("\\", "") for c in at.caption)


def test_the_reference_follows_the_strata_and_covariates_chosen():
    """lifelines' fit is kept while ε moves, keyed by everything it reads: a key of the file alone would show the
    stratified fit after the strata are dropped, and no row for a covariate added."""
    with hazard_ratio_upload() as at:
        at.selectbox(key="hr_strata").set_value("site").run()
        at.text_input(key="hr_strata_levels:site").set_value("north, south").run()
        stratified = trace(chart_spec(at, "hr_forest"), "lifelines", "x")
        at.multiselect(key="hr_adjust").set_value(["sex"]).run()
        adjusted = trace(chart_spec(at, "hr_forest"), "lifelines", "x")
        at.selectbox(key="hr_strata").set_value("(none)").run()
        plain = trace(chart_spec(at, "hr_forest"), "lifelines", "x")
    ok(at)
    for got, (strata, covariates) in [(stratified, (True, False)), (adjusted, (True, True)), (plain, (False, True))]:
        fitter, df = _direct(strata, covariates)
        np.testing.assert_allclose(got, lifelines_reference(df, "time", "event", fitter)["exp(coef)"], rtol=1e-12)


def test_a_continuous_covariate_cut_at_public_points_is_the_fitters_with_the_same_seed():
    """Age cut at 40 and 65 (typed, never read off the file): the forest shows one hazard ratio per interval
    against the lowest, equal to the fitter's with ``cut_at(40, 65)`` and the same seed; lifelines fits the same
    intervals; the release lists the cut points."""
    with hazard_ratio_upload(hr_adjust="age") as at:
        at.selectbox(key="hr_coding:age").set_value("continuous").run()
        assert any("Declare the levels (or cut points) of 'age'" in i.value.replace("\\", "") for i in at.info)
        at.text_input(key="hr_cuts:age").set_value("40, 65").run()
    ok(at)
    df = group_frame(TRIAL["time"], TRIAL["event"], TRIAL["arm"], TRIAL[["age"]], names=("time", "event", "arm"))
    fitter = DPCoxPHFitter(epsilon=1.0, bounds={"arm": ("A", "B"), "age": cut_at(40, 65)}, horizon=365.0,
                           intervals=2).fit(df, "time", "event", rng=np.random.default_rng(0))
    shown = chart_spec(at, "hr_forest")
    assert shown["layout"]["yaxis"]["ticktext"] == ["arm[B]", "age[40 to under 65]", "age[65 or more]"]
    np.testing.assert_allclose(trace(shown, "private", "x"), fitter.summary["exp(coef)"], rtol=1e-12)
    reference = lifelines_reference(df, "time", "event", fitter)
    np.testing.assert_allclose(trace(shown, "lifelines", "x"), reference["exp(coef)"], rtol=1e-12)
    assert fitter.public_params()["covariates"]["age"] == {"cut_points": [40.0, 65.0],
                                                          "levels": ["under 40", "40 to under 65", "65 or more"]}


@pytest.mark.parametrize("typed, says", [("65, 40", "increasing order"), ("forty", "must be numbers")])
def test_cut_points_out_of_order_or_not_numbers_are_refused_by_name(typed, says):
    with hazard_ratio_upload(hr_adjust="age") as at:
        at.selectbox(key="hr_coding:age").set_value("continuous").run()
        at.text_input(key="hr_cuts:age").set_value(typed).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert says in errors and "'age'" in errors, errors
    assert not any(m.value.startswith("**Hazard ratio") for m in at.markdown)


def test_a_level_not_declared_names_its_column_and_row():
    with hazard_ratio_upload(hr_adjust="stage") as at:
        at.selectbox(key="hr_coding:stage").set_value("categorical").run()
        at.text_input(key="hr_levels:stage").set_value("I, II").run()  # 'III' is not declared
    assert not at.exception, [e.value for e in at.exception]
    row = int(np.argmax(TRIAL["stage"].to_numpy() == "III")) + 2  # the CSV's line: the header is line 1
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert f"Column 'stage', row {row}: the level 'III' is not one of the declared levels" in errors, errors


def test_a_column_in_two_roles_is_refused():
    with hazard_ratio_upload(hr_strata="arm") as at:
        at.text_input(key="hr_strata_levels:arm").set_value("A, B").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("'arm' is mapped to more than one role" in e.value.replace("\\", "") for e in at.error)


def test_missing_covariates_are_complete_cases_with_the_uploads_n():
    holed = TRIAL.assign(sex=TRIAL["sex"].astype(object))
    holed.loc[::10, "sex"] = None
    with hazard_ratio_upload(holed, hr_adjust="sex") as at:
        ok(at)
    df = group_frame(holed["time"], holed["event"], holed["arm"], holed[["sex"]], names=("time", "event", "arm"))
    fitter = DPCoxPHFitter(epsilon=1.0, bounds={"arm": ("A", "B"), "sex": (0, 1)}, horizon=365.0, intervals=2)
    fitter.fit(df, "time", "event", rng=np.random.default_rng(0))
    assert fitter.n == len(holed)
    np.testing.assert_allclose(trace(chart_spec(at, "hr_forest"), "private", "x"), fitter.summary["exp(coef)"],
                               rtol=1e-12)


def test_the_release_is_charged_to_the_uploads_persons_and_lists_strata_and_covariates():
    import ui.release

    with hazard_ratio_upload() as at, mock.patch.object(ui.release, "_release", wraps=ui.release._release) as release:
        stratify_and_adjust(at)
        at.button(key="release_button_hazard_ratio").click().run()
        at.button(key="release_confirm_hazard_ratio").click().run()
    ok(at)
    charged = release.call_args.kwargs
    assert charged["key"] == "hazard_ratio" and len(charged["persons"].ids) == len(TRIAL)
    assert len(charged["dataset"].persons) == len(TRIAL)
    assert charged["ledger"].spent_basic(charged["dataset"])[0] == pytest.approx(1.0)
    params = at.session_state["_release_last_hazard_ratio"].public_params
    assert params["covariates"] == {"arm": ["A", "B"], "sex": "binary (0, 1), clipped"}
    assert params["strata_column"] == "site" and params["strata"] == ["north", "south"] and params["n"] == len(TRIAL)
    assert charged["params"] == params  # the panel's params are the fitter's public_params()

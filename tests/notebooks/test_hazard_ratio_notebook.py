"""The hazard-ratio section's notebook runs in a fresh kernel and prints the section's own preview; its release
carries the script; a hostile column name stays a string."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest

from dpcore import notebooks
from tests.support.page_views import chart_spec
from tests.support.notebooks import HOSTILE, ROOT, page_downloads, run_notebook, string_constants, trace


def test_hazard_ratio_notebook_prints_the_sections_preview():
    at, files = page_downloads("survival.py", {"sv_data": "veteran", "sv_seed": "3", "hr_on": "true",
                                               "hr_eps": "2.0", "hr_k": "4"})
    assert "hazard-ratio-preview.ipynb" in files and "hazard-ratio-preview.py" in files
    shown = chart_spec(at, "hr_forest")
    got = run_notebook(files["hazard-ratio-preview.ipynb"],
                       "import json; print(json.dumps({'hr': private['exp(coef)'].tolist(), "
                       "'lower': private['exp(coef) lower 95%'].tolist(), 'eps': EPSILON, 'seed': SEED, "
                       "'k': INTERVALS, 'release': MAKE_RELEASE}))")
    assert (got["eps"], got["seed"], got["k"], got["release"]) == (2.0, 3, 4, False)
    np.testing.assert_allclose(got["hr"], trace(shown, "private", "x"), rtol=1e-12, atol=0)
    page_trace = next(t for t in shown["data"] if t.get("name", "").startswith("private"))
    np.testing.assert_allclose(np.asarray(got["hr"]) - got["lower"], page_trace["error_x"]["arrayminus"],
                               rtol=1e-9, atol=1e-12)


def test_hazard_ratio_release_carries_its_script():
    at, _ = page_downloads("survival.py", {"sv_data": "ovarian", "hr_on": "true"})
    at.button(key="release_button_hazard_ratio").click().run()
    at.button(key="release_confirm_hazard_ratio").click().run()
    assert not at.exception, [e.value for e in at.exception]
    script = at.session_state["_release_last_hazard_ratio"].script
    assert "DPCoxPHFitter(" in script and "'ovarian'" in script
    ast.parse(script)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_column_name_stays_a_string(name):
    config = notebooks.HazardRatioConfig(dataset=None, levels=(name, "b"), horizon=12.0, intervals=2, epsilon=1.0,
                                         seed=0, time_col=name, event_col=name + "e", group_col=name + "g",
                                         group_labels=(name, "b"))
    tree = ast.parse(notebooks.script(config))
    assert not {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & {"os", "pwned", "alert"}
    assert name in string_constants(tree)


def test_the_script_runs_and_releases_only_when_switched_on(tmp_path):
    config = notebooks.HazardRatioConfig(dataset="veteran", levels=("standard", "test"), horizon=1000.0,
                                         intervals=2, epsilon=1.0, seed=0, utility_draws=20, redraws=20)
    script = tmp_path / "hazard_ratio.py"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    script.write_text(notebooks.script(config))
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert {p.name for p in tmp_path.iterdir()} == {"hazard_ratio.py", "forest.html", "per_interval.html"}
    script.write_text(notebooks.script(config).replace("MAKE_RELEASE = False", "MAKE_RELEASE = True"))
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert (tmp_path / "hazard-ratio-release.zip").read_bytes()[:2] == b"PK"


def _adjust_for_sex_and_age_cut(at) -> None:
    at.multiselect(key="hr_adjust").set_value(["sex", "age"]).run()
    at.selectbox(key="hr_coding:age").set_value("continuous").run()
    at.text_input(key="hr_cuts:age").set_value("40, 65").run()


@pytest.mark.parametrize("declare, names", [
    ("stratify_and_adjust", ["arm[B]", "sex"]),
    ("age_cut", ["arm[B]", "sex", "age[40 to under 65]", "age[65 or more]"])])
def test_an_uploads_notebook_fits_the_declared_strata_and_covariates(tmp_path, declare, names):
    """Stratified by site and adjusted for sex, or adjusted for sex and for age cut at public points, on an upload:
    the notebook, run on the same CSV, prints the page's private and lifelines hazard ratios (every coefficient)."""
    from tests.support.hazard_ratio import TRIAL, hazard_ratio_upload, stratify_and_adjust
    from tests.support.page_views import captured_downloads

    csv = tmp_path / "trial.csv"
    TRIAL.to_csv(csv, index=False)
    with captured_downloads() as files, hazard_ratio_upload() as at:
        (stratify_and_adjust if declare == "stratify_and_adjust" else _adjust_for_sex_and_age_cut)(at)
    notebook = files["hazard-ratio-preview.ipynb"]().replace("your_data.csv", str(csv))
    got = run_notebook(notebook, "import json; print(json.dumps({'hr': private['exp(coef)'].tolist(), "
                                 "'names': list(private.index), 'ref': nonprivate['exp(coef)'].tolist()}))")
    shown = chart_spec(at, "hr_forest")
    assert got["names"] == names
    np.testing.assert_allclose(got["hr"], trace(shown, "private", "x"), rtol=1e-12, atol=0)
    np.testing.assert_allclose(got["ref"], trace(shown, "lifelines", "x"), rtol=1e-12, atol=0)

"""Generated notebooks and scripts: they run in a fresh kernel, print the page's own numbers, and no name escapes.

The page tests run a method page in AppTest, take the notebook its download button would hand out (the deferred
callable Streamlit registers for the button), execute it top to bottom with nbclient in a fresh kernel on the
bundled data, and compare its preview with the figure the page drew for the same configuration and seed.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from dpcore import notebooks
from tests.support.page_views import chart_spec

from tests.support.notebooks import (HOSTILE, ROOT, figure_values, page_downloads, run_notebook, string_constants,
                                     trace)

# ---- every page's notebook reproduces its preview --------------------------------------------------------------


@pytest.mark.parametrize("noise", [{}, {"sv_noise": "gaussian", "sv_delta": "1e-07"}])
def test_survival_notebook_prints_the_pages_preview(noise):
    at, files = page_downloads("survival.py", {"sv_data": "veteran", "eps": "2.0", "sv_seed": "3", **noise})
    assert set(files) == {"survival-preview.ipynb", "survival-preview.py"}
    spec = chart_spec(at, "sv_headline")  # the curve is drawn solid, then faded where few are at risk
    solid, faded = trace(spec, "private (one preview draw)"), trace(spec, "private (one preview draw), few")
    shown = np.where(np.isnan(solid), faded, solid)
    got = run_notebook(files["survival-preview.ipynb"],
                       "import json; print(json.dumps({'private': private.estimate[0].tolist(), "
                       "'eps': EPSILON, 'seed': SEED, 'release': MAKE_RELEASE}))")
    assert (got["eps"], got["seed"], got["release"]) == (2.0, 3, False)
    np.testing.assert_allclose(got["private"], shown, rtol=0, atol=1e-12)


def test_survival_notebook_reads_the_curve_as_the_page_does_with_whole_days_declared():
    """Times declared recorded in whole days: the notebook draws the page's staircase and releases with the
    declaration, the read times, the restricted mean's horizon and the band rule the page would release with."""
    at, files = page_downloads("survival.py", {"sv_data": "veteran", "eps": "2.0", "sv_seed": "3", "sv_cmp": "false",
                                               "sv_whole": "days"})
    spec = chart_spec(at, "sv_headline")
    got = run_notebook(files["survival-preview.ipynb"],
                       "import json; print(json.dumps({'traces': {t.name: np.asarray(t.y, float).tolist() "
                       "for t in headline.data if t.y is not None}, 'resolution': RESOLUTION, 'band': BAND_RULE}))")
    assert (got["resolution"], got["band"]) == (1.0, "half")
    drawn = {t["name"]: figure_values(t["y"]) for t in spec["data"] if t.get("y") is not None and t.get("name")}
    private = next(name for name in drawn if name.startswith("private"))
    np.testing.assert_allclose(got["traces"][private], drawn[private], rtol=0, atol=1e-12)
    assert "time_resolution=RESOLUTION" in files["survival-preview.py"]


def test_regression_notebook_prints_the_pages_preview():
    at, files = page_downloads("regression.py", {"rg_src": "gdsc", "eps": "2.0", "rg_seed": "5", "rg_npriv": "300",
                                                 "rg_R": "5"})
    shown = chart_spec(at, "rg_headline")
    got = run_notebook(files["regression-preview.ipynb"],
                       "import json; print(json.dumps({'observed': y[test].tolist(), 'private': pv.pred[0].tolist(), "
                       "'nonprivate': pv.pred_nonprivate.tolist(), 'eps': EPSILON, 'seed': SEED}))")
    assert (got["eps"], got["seed"]) == (2.0, 5)
    np.testing.assert_allclose(got["observed"], trace(shown, "private preview", "x"), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["private"], trace(shown, "private preview"), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["nonprivate"], trace(shown, "non-private"), rtol=1e-12, atol=1e-12)


def test_sparse_notebook_prints_the_pages_preview():
    at, files = page_downloads("sparse.py", {"sp_src": "synthetic", "sp_n": "500", "sp_d": "100", "eps": "2.0",
                                             "sp_seed": "4", "sp_R": "5"})
    shown = chart_spec(at, "sp_stem")["data"]
    got = run_notebook(files["sparse-preview.ipynb"],
                       "import json; print(json.dumps({'traces': [np.asarray(t.y, float).tolist() for t in headline.data],"
                       " 'eps': EPSILON, 'seed': SEED}))")
    # the stems, then the dots of the truth, the non-private model and the release
    assert (got["eps"], got["seed"]) == (2.0, 4) and len(got["traces"]) == len(shown) == 4
    assert len(figure_values(shown[0]["y"])) > 10  # three vectors' coefficients
    for mine, page in zip(got["traces"], shown):
        np.testing.assert_allclose(mine, figure_values(page["y"]), rtol=1e-12, atol=1e-12)


def test_fdr_notebook_prints_the_pages_preview():
    at, files = page_downloads("fdr.py", {"fdr_src": "bernoulli", "fdr_R": "20", "eps": "7.0", "fdr_seed": "2"})
    shown = chart_spec(at, "fdr_fig_stream")["data"]
    got = run_notebook(files["fdr-preview.ipynb"],
                       "import json; print(json.dumps({'traces': [np.asarray(t.y, float).tolist() for t in stream.data "
                       "if t.y is not None], 'eps': EPSILON, 'seed': SEED, 'found': int(one.rejections.sum())}))")
    assert (got["eps"], got["seed"]) == (7.0, 2) and got["found"] > 0
    page = [figure_values(t["y"]) for t in shown if "y" in t]
    assert len(got["traces"]) == len(page) > 2
    for mine, theirs in zip(got["traces"], page):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


# ---- nothing from a name gets out of its string ---------------------------------------------------------------


def hostile_configs(name: str) -> list:
    return [notebooks.SurvivalConfig(dataset=None, horizon=12.0, grid_unit="months", epsilon=1.0, seed=0,
                                     compare=True, time_col=name, event_col=name + "e", group_col=name + "g",
                                     group_labels=(name, "b")),
            notebooks.RegressionConfig(source="upload", epsilon=1.0, seed=0, n_test=20, n_private=40, omegas=(0.1, 0.5),
                                       split=(0.35, 0.6, 0.05), response=name, features=(name + "1", "b"),
                                       public_col=name + "p"),
            notebooks.SparseConfig(source="upload", loss="logistic", sparsity=3, epsilon=1.0, delta=1e-6, seed=0,
                                   repeats=5, methods=("kt",), response=name, features=(name, name + "2")),
            notebooks.FdrConfig(source="upload", epsilon=1.0, seed=0, p_col=name, truth_col=name + "t",
                                eta_from="stated")]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_column_name_stays_a_string_literal(name):
    for config in hostile_configs(name):
        nb = nbformat.reads(notebooks.notebook(config), as_version=4)
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        for source in [*code, notebooks.script(config)]:
            tree = ast.parse(source)  # the code still parses, whatever the name
            names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            assert not names & {"os", "pwned", "alert"}
        assert name in string_constants(ast.parse("\n".join(code)))  # the name arrives intact, as one string
        assert name in string_constants(ast.parse(notebooks.script(config)))
        markdown = "".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert name.strip() not in markdown and "your_data.csv" not in markdown


def test_literal_refuses_what_is_not_a_plain_value():
    for bad in (float("nan"), float("inf"), object(), {"a": 1}, b"bytes"):
        with pytest.raises((TypeError, ValueError)):
            notebooks.literal(bad)
    assert notebooks.literal(np.float64(0.5)) == "0.5" and notebooks.literal((1, "a")) == "(1, 'a')"


@pytest.mark.parametrize("noise", [{}, {"kind": "gaussian", "delta": 1e-6}])
def test_the_script_runs_and_its_release_is_off_until_switched_on(tmp_path, noise):
    """The .py form runs as a program: figures to HTML, no release; switched on, it charges and saves one (a
    Gaussian release charged with its noise, so the ledger composes it as the Gaussian it is)."""
    config = notebooks.SurvivalConfig(dataset="gehan", horizon=35.0, grid_unit="weeks", epsilon=1.0, seed=0,
                                      sweep=(1.0, 10.0), sweep_draws=20, **noise)
    assert "params={'noise_kind': RELEASED_NOISE}" in notebooks.script(config)
    script = tmp_path / "survival.py"
    script.write_text(notebooks.script(config))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert {p.name for p in tmp_path.iterdir()} == {"survival.py", "headline.html", "utility.html"}
    script.write_text(notebooks.script(config).replace("MAKE_RELEASE = False", "MAKE_RELEASE = True"))
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert (tmp_path / "survival-release.zip").read_bytes()[:2] == b"PK"


@pytest.mark.parametrize("variant, method, called", [
    ("peel", "Sparse regression: peeling + private fit", "variant='peeling'"),
    ("kt_ps", "Sparse regression by knowledge transfer (private support)", "variant='private_support'")])
def test_the_sparse_script_releases_and_charges_the_variant_the_page_releases(variant, method, called):
    """A knowledge-transfer release's ``reproduce.py`` must not re-release (and charge) peeling instead."""
    config = notebooks.SparseConfig(source="synthetic", loss="linear", sparsity=3, epsilon=1.0, delta=1e-6, seed=0,
                                    repeats=2, methods=("nonprivate", variant), variant=variant, n=200, d=20)
    text = notebooks.script(config)
    assert called in text and f"ledger.charge(dataset, {method!r}" in text
    assert f"released = {variant!r}" in text

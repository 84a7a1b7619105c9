"""Regression and sparse release ZIPs carry figures for a paper, drawn from released values only.

A predicted-vs-observed plot needs the private records' responses, which no release holds (and which are not DP),
so a regression release draws its released coefficients with ±2 of their released standard deviations; a sparse
release draws its released support and coefficients as stems over the public d features. Every number a figure
shows is checked against the release's own tables."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from dpcore.reporting.figure_export import chromium_path
from dpcore.reporting.release_figures import figures_for
from tests.support.figure_cases import plain
from tests.support.release_cases import RELEASES

REGRESSION = ("robust private LR", "AdaSSP")
SPARSE = ("sparse peeling", "sparse peeling (logistic)", "sparse KT with private support")


@pytest.fixture(scope="module")
def bundles():
    return {name: RELEASES[name]() for name in REGRESSION + SPARSE}


def _only_figure(bundle) -> go.Figure:
    figures = figures_for(bundle)
    assert len(figures) == 1, list(figures)
    fig = next(iter(figures.values()))
    assert plain(go.Figure(fig.to_dict()).to_dict()) == plain(fig.to_dict())  # valid Plotly as it stands
    return fig


@pytest.mark.parametrize("name", REGRESSION)
def test_a_regression_release_draws_its_released_coefficients_and_their_spread(bundles, name):
    bundle = bundles[name]
    fig = _only_figure(bundle)
    table = bundle.tables["coefficients"]
    features = table[table["feature"] != "(intercept)"]
    sd = features["posterior_sd" if "posterior_sd" in table else "noise_sd"].to_numpy()
    (trace,) = fig.data
    np.testing.assert_array_equal(trace.x, features["coefficient"].to_numpy()[::-1])
    np.testing.assert_array_equal(trace.error_x.array, 2 * sd[::-1])
    assert list(trace.y) == [n.replace("<", "&lt;").replace(">", "&gt;") for n in features["feature"][::-1]]


@pytest.mark.parametrize("name", SPARSE)
def test_a_sparse_release_draws_its_released_support_and_coefficients(bundles, name):
    bundle = bundles[name]
    fig = _only_figure(bundle)
    table = bundle.tables["coefficients"]
    released = table[table["index"] >= 0]
    dots = fig.data[1]  # the stems' dots: one per released coefficient
    np.testing.assert_array_equal(np.sort(np.asarray(dots.y, float)), np.sort(released["coefficient"].to_numpy()))
    assert sorted(dots.customdata) == sorted(n.replace("<", "&lt;").replace(">", "&gt;") for n in released["feature"])


@pytest.mark.skipif(not Path(chromium_path()).is_file(), reason="no Chromium at /usr/bin/chromium")
@pytest.mark.parametrize("name", ["AdaSSP", "sparse peeling"])
def test_the_zip_holds_the_figure_files(bundles, name):
    with zipfile.ZipFile(io.BytesIO(bundles[name].to_zip())) as archive:
        files = {n for n in archive.namelist() if n.startswith("figures/")}
    stem = "figures/released-coefficients" if name == "AdaSSP" else "figures/coefficients"
    # the drawings, and beside them the figure's text alternative: its summary and its plotted numbers
    assert files == {f"{stem}.png", f"{stem}.svg", f"{stem}.pdf", f"{stem}.txt", f"{stem}-plotted-values.csv"}

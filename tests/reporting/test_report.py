"""The HTML report is self-contained, contains DP values only, and renders offline."""

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dpcore.core.audit import empirical_epsilon
from dpcore.reporting.release import ReleaseBundle
from dpcore.reporting.report import CustodianNote, html_report, internal_notes_html


def _bundle(values):
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=values, mode="lines", name="DP curve"))
    return ReleaseBundle(
        method="DP Kaplan–Meier", dataset="Gehan (bundled)", fingerprint="abc", epsilon=1.0, delta=0.0,
        mechanisms=("discrete Laplace noise, b = 2 (Δ1 = 2, ε = 1)",), public_params={"grid unit": "weeks"},
        tables={"survival": pd.DataFrame({"time": [1, 2, 3], "S": values})}, figures={"DP survival curve": fig},
    )


def test_report_is_self_contained_and_holds_dp_values_only():
    rng = np.random.default_rng(0)
    audit = empirical_epsilon(rng.laplace(0, 1, 5000), rng.laplace(1, 1, 5000), claimed_epsilon=1.0)
    report = html_report([_bundle([0.9, 0.7, 0.4])], audits=[audit])
    assert "plotly.js v" in report  # the library is inlined; the Chromium test checks no request leaves
    assert "(1, 0)-differentially private" in report
    assert "Privacy audit" in report and "claimed (ε = 1, δ = 0)" in report and "synthetic" in report
    assert report.count("plotly.js v") <= 2  # the library is inlined once, not per figure


def test_custodian_notes_never_enter_the_shareable_report():
    """A note computed on the private data without noise lives in its own file, labelled internal at both ends."""
    import inspect

    assert "custodian_notes" not in inspect.signature(html_report).parameters
    note = CustodianNote("Utility", "sup error 0.0517 against the exact curve")
    internal = internal_notes_html([note])
    assert "sup error 0.0517" in internal
    assert internal.count("INTERNAL — NOT DIFFERENTIALLY PRIVATE") == 2
    assert "sup error 0.0517" not in html_report([_bundle([0.9, 0.7, 0.4])])


def test_session_totals_are_per_data_set():
    import dataclasses

    other = dataclasses.replace(_bundle([0.8, 0.6, 0.5]), dataset="trial.csv (uploaded)", epsilon=0.5, delta=1e-6)
    report = html_report([_bundle([0.9, 0.7, 0.4]), _bundle([0.9, 0.6, 0.4]), other])
    assert "Gehan (bundled): <b>ε = 2, δ = 0</b>" in report
    assert "trial.csv (uploaded): <b>ε = 0.5, δ = 1e-06</b>" in report


def test_zip_contains_json_csv_and_report():
    import io
    import json
    import zipfile

    archive = zipfile.ZipFile(io.BytesIO(_bundle([0.9, 0.8, 0.5]).to_zip()))
    names = sorted(archive.namelist())
    assert [n for n in names if not n.startswith("figures/")] == ["release.json", "report.html", "survival.csv"]
    assert names != ["release.json", "report.html", "survival.csv"]  # and the figures for a paper (or why not)
    meta = json.loads(archive.read("release.json"))
    assert meta["epsilon"] == 1.0 and meta["neighbouring_relation"] == "replace-one"
    assert meta["noise_source"].startswith("OpenDP")
    assert meta["tables"]["survival"][2]["S"] == 0.5


@pytest.mark.browser
def test_session_report_of_real_releases_renders_offline_in_chromium(chromium_page, tmp_path, page_screenshot):
    from dpcore.core import datasets
    from dpcore import fdr, survival

    gehan = datasets.load_survival("gehan")
    grid = survival.make_grid(gehan.horizon, data_unit=gehan.time_unit, grid_unit="weeks")
    km = survival.release(gehan.time, gehan.event, grid=grid, epsilon=1.0, group=gehan.group, groups=gehan.groups, dataset="Gehan",
                          band_draws=50)
    stream = fdr.simulate_bernoulli(1, 300, pi1=0.1, rng=np.random.default_rng(1))
    discoveries = fdr.release(stream.pvalues[0], alpha=0.05, epsilon=5.0, delta=2.5e-4,
                              sensitivity=fdr.stated_sensitivity(0.0831), cutoff=20)
    path = tmp_path / "report.html"
    path.write_text(html_report([km, discoveries], title="Session privacy report"), encoding="utf-8")
    requests = []
    chromium_page.route(re.compile(r"^https?://"), lambda route: (requests.append(route.request.url), route.abort()))
    chromium_page.goto(path.as_uri())
    chromium_page.wait_for_selector(".plotly-graph-div .main-svg", timeout=30_000)
    assert requests == []
    assert chromium_page.get_by_text("Contains differentially private values and public parameters only").count() == 1
    page_screenshot(chromium_page, "report")

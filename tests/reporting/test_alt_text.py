"""Every figure reads out as a sentence with its numbers, and its plotted numbers come as tables.

``dpcore.reporting.alt_text`` derives both from the figure alone (a builder may state its own summary and attach tables it
prints, such as the numbers at risk); pages expose the summary to assistive technology (``ui.chart``,
``ui.live_chart``) and the tables in a "Figure data" box.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from dpcore.reporting import alt_text
from dpcore.reporting.figures import add_trace, base_layout, new_spec, to_figure
from dpcore.survival import figures as sf
from tests.support.figure_cases import _curves, cases, rng_fixed

CASES = cases()


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_figure_has_a_one_line_summary_with_numbers(case):
    fig = CASES[case]()
    text = alt_text.summary(fig)
    assert "\n" not in text and "<" not in text.replace("<b>", "").replace("<A>", "").replace("<x>", "")
    assert re.search(r"\d", text), text  # the numbers that matter, not only names
    assert len(text) < 2_000


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_figure_has_its_numbers_as_a_table(case):
    tables = alt_text.tables(CASES[case]())
    assert tables and all(len(t) for t in tables.values())
    plotted = tables[alt_text.PLOTTED]
    assert {"series"} < set(plotted.columns)


def test_the_automatic_summary_names_title_axes_and_series_with_their_values():
    spec = new_spec()
    add_trace(spec, dict(type="scatter", x=[0, 1, 2], y=[1.0, 0.75, 0.5], mode="lines", name="private"))
    add_trace(spec, dict(type="bar", x=["a", "b"], y=[3.0, 4.0], name="counts"))
    base_layout(spec, title="Survival", x_title="time (months)", y_title="S(t)")
    text = alt_text.summary(to_figure(spec))
    assert text == ("Survival (x: time (months), 0 to 2; y: S(t)). private: from 1 to 0.5; counts: a 3, b 4.")


def test_a_summary_changes_with_the_numbers():
    """The check can fail: the same figure with other values reads differently."""
    def fig(last):
        spec = new_spec()
        add_trace(spec, dict(type="scatter", x=[0, 1], y=[1.0, last], mode="lines", name="curve"))
        return to_figure(spec)
    assert alt_text.summary(fig(0.5)) != alt_text.summary(fig(0.25))


def test_a_builder_states_its_own_summary_the_survival_median():
    private, exact = _curves(rng_fixed(1)), _curves(rng_fixed(2))
    fig = sf.headline_figure(private, exact, time_label="time (months)")
    t = private.times
    median = lambda y: f"{t[np.flatnonzero(y <= 0.5)[0]]:.3g}"  # noqa: E731
    assert alt_text.summary(fig) == (f"Kaplan–Meier survival, private vs non-private, time (months) 0 to {t[-1]:g}; "
                                     f"median {median(private.estimate[0])} vs {median(exact.estimate[0])}")


def test_the_numbers_at_risk_are_a_real_table_equal_to_the_printed_rows():
    private, exact = _curves(rng_fixed(1)), _curves(rng_fixed(2))
    k = private.times.size - 1
    noisy, true = np.linspace(300, 12.4, k), np.linspace(290, 10, k)
    fig = sf.headline_figure(private, exact, at_risk=noisy, exact_at_risk=true)
    table = alt_text.tables(fig)["Number at risk"]
    assert list(table.columns) == ["time", "noisy", "true"]
    printed = [a["text"] for a in fig.to_dict()["layout"]["annotations"] if a.get("xref") == "x"]
    assert [str(v) for v in table["noisy"]] + [str(v) for v in table["true"]] == printed


def test_names_from_the_data_read_as_typed():
    spec = new_spec()
    add_trace(spec, dict(type="scatter", x=[0, 1], y=[1, 2], mode="lines", name="arm &lt;A&gt;"))  # plot_text
    fig = to_figure(spec)
    assert "arm <A>: from 1 to 2" in alt_text.summary(fig)
    assert alt_text.tables(fig)[alt_text.PLOTTED]["series"].tolist() == ["arm <A>", "arm <A>"]


def test_points_not_drawn_are_not_in_the_table():
    spec = new_spec()
    add_trace(spec, dict(type="scatter", x=[0, 1, 2], y=[1.0, np.nan, 0.5], mode="lines", name="solid part"))
    table = alt_text.tables(to_figure(spec))[alt_text.PLOTTED]
    pd.testing.assert_frame_equal(table.reset_index(drop=True),
                                  pd.DataFrame({"series": ["solid part"] * 2, "x": [0, 2], "y": [1.0, 0.5]}))


def test_a_live_chart_carries_its_summary_beside_the_figure():
    from ui.live_chart import figure_json, payload

    fig = CASES["survival.draws_figure"]()
    sent = json.loads(payload(fig))
    assert sent.pop("summary") == alt_text.summary(fig)
    assert sent == json.loads(figure_json(fig))

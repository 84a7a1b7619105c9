"""Names from the data (group labels, column and feature names) reach Plotly figures as literal text.

Plotly renders ``<a href>`` in names, titles and tick labels as a clickable link, so an uploaded column named
like a link would put one on the page. Every figure that shows data-derived names escapes them.
"""

import json

import numpy as np
import pandas as pd

from dpcore import survival as sv
from dpcore.reporting.figures import coefficient_figure, plot_text
from dpcore.regression.figures import coefficient_bars, predicted_vs_observed
from dpcore.reporting.release_figures import survival_release_figure
from dpcore.survival.figures import groups_figure

HOSTILE = '<a href="http://attacker.example/x">verify</a><b>'


def _assert_literal(fig):
    text = json.dumps(fig.to_plotly_json(), default=str)
    assert "<a " not in text and "<b>" not in text
    assert "&lt;a href=" in text  # the name is there, as typed


def test_plot_text_escapes_markup_only():
    assert plot_text("<a href='x'>y</a>") == "&lt;a href='x'&gt;y&lt;/a&gt;"
    assert plot_text("ln IC50 & dose") == "ln IC50 &amp; dose"
    assert plot_text(3) == "3"


def test_survival_group_labels_are_literal():
    grid = sv.make_grid(10.0)
    counts = sv.count_matrix([1.0, 2, 3, 4], [1, 0, 1, 1], grid, group=[HOSTILE, "b", HOSTILE, "b"],
                             groups=(HOSTILE, "b"))
    table = sv.postprocess(counts)
    curves = sv.curve_for(table, "km")
    _assert_literal(groups_figure(curves, curves))
    km = pd.DataFrame({"group": [HOSTILE] * 2, "time": [0.0, 1.0], "survival": [1.0, 0.8], "ci_lower": [1.0, 0.6],
                       "ci_upper": [1.0, 0.9]})
    _assert_literal(survival_release_figure(km, "days"))


def test_column_and_feature_names_are_literal():
    _assert_literal(coefficient_bars([HOSTILE, "x2"], [1.0, 2.0], np.array([1.0, 2.0]), [0.5, 1.5], [1.5, 2.5]))
    _assert_literal(predicted_vs_observed([1.0, 2.0], [1.0, 2.0], [1.0, 2.0], rho_private=1.0, rho_nonprivate=1.0,
                                          y_label=HOSTILE))
    _assert_literal(coefficient_figure({"KT": np.array([1.0, 0.0])}, feature_names=[HOSTILE, "x2"]))

"""Figures say what a reader sees: labels that stay on the figure, axes named in plain words, and an empty panel
that says why it is empty."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.reporting import attack_figures as AF
from dpcore.reporting import figures as F
from dpcore.reporting.attack import max_accuracy
from dpcore.fdr import figures as ff
from dpcore.reporting.release_figures import REGRESSION_AXIS, _regression, fdr_release_figure
from tests.support.figure_cases import _stream, rng_fixed


@pytest.mark.parametrize("epsilon", [0.05, 0.1, 1.0, 4.0, 10.0, 20.0])
def test_the_attackers_chance_label_stays_inside_the_figure(epsilon):
    """The percentage beside the chosen ε: below its point near 100 % (above it ran into the plot's top edge and was
    hidden), right of it near the axis' left end, never clipped; the chosen-ε label to the left near the right end."""
    spec = AF.bound_figure(epsilon).to_dict()
    (label,) = [t for t in spec["data"] if t.get("mode") == "markers+text"]
    high = max_accuracy(epsilon, 0.0) > 0.85
    assert label["textposition"].startswith("bottom" if high else "top") and label["cliponaxis"] is False
    assert label["textposition"].endswith("right" if epsilon < 0.2 else "left")
    (chosen,) = [a for a in spec["layout"]["annotations"] if a["text"].startswith("chosen ε")]
    assert chosen["xanchor"] == ("right" if epsilon > 5 else "left")


def test_a_stream_without_discoveries_says_so():
    private, p, truth, base = _stream(rng_fixed(15))
    none = private.__class__(private.method, np.zeros_like(private.rejections), private.alpha, private.candidates,
                             log_threshold=private.log_threshold, params=private.params)
    for fig in (ff.stream_figure(none, p, truth=truth), fdr_release_figure(np.zeros(5, bool), np.full(5, 1e-3))):
        texts = [a["text"] for a in fig.to_dict()["layout"].get("annotations", [])]
        assert any(t.startswith("No discoveries: none of the") for t in texts), texts
    with_some = fdr_release_figure(np.array([0, 1, 0, 0, 0], bool), np.full(5, 1e-3)).to_dict()["layout"]
    assert not any(a["text"].startswith("No discoveries") for a in with_some.get("annotations", []))


def test_coefficient_axes_name_what_a_reader_sees():
    bundle = type("Bundle", (), {"method": "AdaSSP", "tables": {"coefficients": pd.DataFrame(
        {"feature": ["age", "(intercept)"], "coefficient": [0.5, 1.0], "posterior_sd": [0.1, 0.1]})}})()
    axis = _regression(bundle)["Released coefficients"].layout.xaxis.title.text
    assert axis == REGRESSION_AXIS and "prepared" not in axis and "half its public range" in axis
    stems = F.coefficient_figure({"released": np.r_[1.0, 0.0]}).layout.xaxis.title.text
    assert "union" not in stems and "non-zero coefficient" in stems

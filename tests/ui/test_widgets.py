"""URL-bound widgets: a value from a link is matched as a number and snapped into the page's range, with a note."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.widgets import EPSILON_STEPS, _option_from_text

FDR_PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "fdr.py")


@pytest.mark.parametrize(
    "raw, options, expected, noted",
    [
        ("4", [1.0, 2.0, 4.0], 4.0, False),  # ?s=4 finds 4.0
        ("4.0", [1.0, 2.0, 4.0], 4.0, False),
        ("survival", ["home", "survival"], "survival", False),
        ("0.1", [0.3, 0.5, 1.0], 0.3, True),  # below the page's range: nearest, said
        ("3", [1.0, 2.0, 5.0], 2.0, True),  # log scale: 3 is nearer 2 than 5 (ratio 1.5 vs 1.67)
        ("abc", [1.0, 2.0], 1.0, True),  # not a number: the default, said
        ("nan", [1.0, 2.0], 1.0, True),
        ("bogus", ["a", "b"], "a", True),
    ],
)
def test_option_from_link_text(raw, options, expected, noted):
    option, note = _option_from_text(raw, options, options[0])
    assert option == expected and type(option) is type(expected)
    assert (note is not None) == noted


def test_links_with_whole_numbers_and_out_of_range_epsilon_on_the_fdr_page():
    at = AppTest.from_file(FDR_PAGE, default_timeout=120)
    at.query_params["fdr_s"] = "4"
    at.query_params["eps"] = "0.1"  # the FDR page offers ε ≥ 0.3
    at.query_params["fdr_R"] = "20"
    at.run()
    assert not at.exception, at.exception
    assert at.select_slider(key="fdr_s").value == 4.0
    assert "Set the shift to" in at.info[-1].value  # s = 4 from the link is matched, and is not releasable
    assert at.select_slider(key="eps").value == 0.3
    assert any("nearest value offered here is 0.3" in c.value.replace("\\", "") for c in at.caption)
    assert min(EPSILON_STEPS) < 0.3

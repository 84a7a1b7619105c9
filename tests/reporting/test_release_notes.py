"""The custodian's utility estimate is kept as an internal note, never in the export or the shareable report."""

import html
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.reporting.report import html_report, internal_notes_html

PAGES = Path(__file__).resolve().parents[2] / "app_pages"


@pytest.mark.parametrize("page, query, expected", [
    ("survival.py", {"sv_data": "gehan", "sv_R": "50"}, "sup-norm error"),
    ("fdr.py", {"fdr_R": "20", "fdr_s": "stream", "fdr_etahow": "binomial"}, "FDR"),
    ("sparse.py", {"sp_src": "synthetic", "sp_n": "200", "sp_d": "50", "sp_R": "5"}, "support F1"),
])
def test_release_records_a_labelled_utility_note(page, query, expected):
    at = AppTest.from_file(str(PAGES / page), default_timeout=240)
    at.query_params.update(query)
    at.run()
    key = page.removesuffix(".py")
    at.button(key=f"release_button_{key}").click().run()
    at.button(key=f"release_confirm_{key}").click().run()  # the confirmation dialog
    assert not at.exception
    (note,) = at.session_state["_dp_release_notes"]
    assert expected in note.text and "estimated on the custodian's data" in note.title
    bundle = at.session_state[f"_release_last_{key}"]
    assert note.text not in bundle.to_json()  # the shareable export never carries it
    assert note.text not in html_report([bundle])  # nor the report that goes with it
    internal = internal_notes_html([note])
    assert "NOT DIFFERENTIALLY PRIVATE" in internal and html.escape(note.text) in internal
    assert not at.toggle(key=f"internal_{key}").value  # offered only when asked for

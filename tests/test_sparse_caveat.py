"""The knowledge-transfer audit caveat is shown where it applies: with the paper's knowledge transfer's results."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "sparse.py")


def _caveats(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "Caveat found by our audit" in w.value]


def test_the_caveat_shows_with_knowledge_transfer_and_not_without_it():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.run()
    assert not at.exception, at.exception
    assert "kt" in at.multiselect(key="sp_methods").value and len(_caveats(at)) == 1
    at.multiselect(key="sp_methods").set_value(["peel", "kt_ps", "nonprivate"]).run()
    assert not at.exception, at.exception
    assert _caveats(at) == []

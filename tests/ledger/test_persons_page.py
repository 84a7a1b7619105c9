"""What the upload page says about who the persons are: identical rows refused or declared, and the keying rule.

Through the survival page (AppTest; the file uploader replaced): a file with a repeated row and no person column is
refused naming the rows; declared different people, it is analysed with every row, and the confirm dialog and the
release notes say what the ledger can and cannot recognise and that the guarantee rests on the declaration.
"""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "survival.py")


class _Upload:
    name = "repeated.csv"

    def getvalue(self) -> bytes:
        rng = np.random.default_rng(4)
        rows = [f"{t},{e},{a}" for t, e, a in zip(rng.integers(1, 900, 150), rng.integers(0, 2, 150),
                                                   rng.integers(30, 90, 150))]
        return ("time,status,age\n" + "\n".join(rows + [rows[6], rows[6]]) + "\n").encode()


def _texts(at: AppTest) -> str:
    return " ".join(str(e.value) for kind in (at.markdown, at.error, at.info, at.caption) for e in kind)


def test_repeated_rows_without_ids_are_refused_until_declared_and_the_release_says_so():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.radio(key="sv_src").set_value("upload")
    with mock.patch.object(st, "file_uploader", lambda *a, **k: _Upload()):
        at.run()
        assert not at.exception, at.exception
        errors = " ".join(e.value for e in at.error).replace("\\", "")
        assert "rows 7 and 151 are identical and there is no person column" in errors, errors
        assert "cannot" in _texts(at) and "an id column" in _texts(at).lower()
        at.checkbox(key="sv_upload_distinct_rows").check().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert "It reads 152 people" in _texts(at) or "reads 152" in _texts(at), _texts(at)
        at.button(key="release_button_survival").click().run()
        dialog = _texts(at)
        assert "declared them different people" in dialog and "cannot recognise these people" in dialog
        at.button(key="release_confirm_survival").click().run()
        assert not at.exception, at.exception
    notes = " ".join(at.session_state["_release_last_survival"].notes)
    assert "rests on that declaration" in notes and "an id column fixes that" in notes
    assert "rows repeat another row" not in notes  # nothing exported counts the repeated rows

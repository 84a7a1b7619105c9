"""Method pages run in AppTest the way a user drives them: an upload mapped, a release confirmed."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.support.page_views import DETAILS, open_view, unfold_settings
from tests.support.uploads import FakeUpload

PAGES = Path(__file__).resolve().parents[2] / "app_pages"
SURVIVAL_PAGE, REGRESSION_PAGE, SPARSE_PAGE = (str(PAGES / f"{name}.py") for name in ("survival", "regression", "sparse"))


def ok(at: AppTest) -> AppTest:
    """``at`` after checking it shows no exception and no error."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def survival_upload(data: bytes, name: str = "mine.csv", group_labels: str | None = None, view: str | None = None,
                 **params) -> AppTest:
    """Run the page in upload mode with ``st.file_uploader`` returning ``data`` (AppTest cannot upload)."""
    at = AppTest.from_file(SURVIVAL_PAGE, default_timeout=90)
    at.session_state[DETAILS["survival"]] = True  # the details at ε, unfolded
    unfold_settings(at, "survival")
    at.run()
    if view:
        at.session_state["sv_view"] = view
    at.radio(key="sv_src").set_value("upload")
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, name)):
        at.run()
        for key, value in params.items():
            at.selectbox(key=key).set_value(value) if key != "sv_k" else at.number_input(key=key).set_value(value)
        at.run()
        if group_labels is not None:  # declared, never read off: until then the page pools everyone
            assert any("declare its labels" in i.value for i in at.info), [i.value for i in at.info]
            at.text_input(key="sv_glabels").set_value(group_labels).run()
            if view:  # the groups view exists once the groups do
                open_view(at, "sv_view", view)
    return at


def regression_upload(data: bytes, unit: str | None = "cell line", confirmed: bool = True, **select) -> AppTest:
    """The page on an uploaded file; ``select`` sets the response (``rg_ycol``), the features (``rg_xcols``) and the
    method (``rg_method``); the unit of privacy and the ranges' confirmation are given unless None / False."""
    at = AppTest.from_file(REGRESSION_PAGE, default_timeout=180)
    at.session_state[DETAILS["regression"]] = True  # the details at ε, unfolded
    unfold_settings(at, "regression")
    at.run()
    at.radio(key="rg_src").set_value("upload")
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        at.run()
        for key, value in select.items():
            {"rg_ycol": at.selectbox, "rg_method": at.radio}.get(key, at.multiselect)(key=key).set_value(value)
        if unit is not None:
            at.text_input(key="rg_unit").set_value(unit)
        if confirmed:
            at.checkbox(key="rg_ranges_ok").check()
        at.run()
        return at


def regression_release(at: AppTest):
    at.button(key="release_button_regression").click().run()
    at.button(key="release_confirm_regression").click().run()  # the confirmation dialog
    ok(at)
    return at.session_state["_release_last_regression"]


def sparse_upload(data: bytes) -> AppTest:
    """The sparse page on an uploaded file, with 5 preview draws."""
    at = AppTest.from_file(SPARSE_PAGE, default_timeout=120)
    at.session_state[DETAILS["sparse"]] = True  # the details at ε, unfolded
    unfold_settings(at, "sparse")
    at.query_params["sp_src"] = "upload"
    at.query_params["sp_R"] = "5"
    with mock.patch.object(st, "file_uploader", lambda *a, **k: FakeUpload(data, "mine.csv")):
        at.run()
    return at


def toy_release_page(mode: str = "ok"):
    """A page with one release panel (run by ``AppTest.from_function``) (ε = 1 on "Toy (bundled)"); ``mode`` "fail" makes drawing fail."""
    import pandas as pd
    import streamlit as st

    from dpcore.ledger import CHARGED
    from dpcore.reporting.release import ReleaseBundle
    from ui import get_ledger, release_panel

    def make_bundle():
        (record,) = [r for r in get_ledger().records() if r.status == CHARGED]  # charged before anything is drawn
        st.session_state["charged_before_drawing"] = record.id
        if st.session_state.get("mode") == "fail":
            raise RuntimeError("sampler crashed")
        return ReleaseBundle(method="Toy counts", dataset="Toy (bundled)", fingerprint="toy", epsilon=1.0, delta=0.0,
                             mechanisms=("discrete Laplace, b = 1",), public_params={"bins": 2},
                             tables={"counts": pd.DataFrame({"bin": [1, 2], "noisy count": [3, 5]})})

    release_panel(key="toy", dataset_label="Toy (bundled)", fingerprint="toy", method="Toy counts", epsilon=1.0,
                  params={"bins": 2}, make_bundle=make_bundle)

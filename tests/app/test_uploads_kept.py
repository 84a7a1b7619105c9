"""Uploads stay for the session, per page, until removed; the sidebar names the data set of the page shown."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
CSV = b"time,event,arm\n" + b"\n".join(f"{t},{t % 2},{'AB'[t % 2]}".encode() for t in range(1, 41))
NAME = "[my](https://evil.example) trial.csv"  # a file name is anyone's text: shown as typed, never a link


def _sidebar(at: AppTest) -> str:
    return " ".join(c.value for c in [*at.sidebar.caption, *at.sidebar.markdown])


def _survival_with_upload() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("app_pages/survival.py")
    at.query_params["sv_src"] = "upload"
    at.run()
    at.file_uploader(key="sv_upload").upload(NAME, CSV, "text/csv").run()
    assert not at.exception, at.exception
    return at


def _uses_upload(at: AppTest) -> bool:
    return any(w.key == "sv_tcol" for w in at.selectbox)  # the upload's column mapping is drawn


def test_upload_is_kept_across_pages_and_the_sidebar_follows_the_page():
    at = _survival_with_upload()
    assert _uses_upload(at)
    sidebar = _sidebar(at)
    assert r"\[my\]\(https:" in sidebar and "://" not in sidebar  # escaped, and no autolink
    assert "[my](https://evil.example) trial.csv (uploaded)" in sidebar.replace("\\", "").replace("\u2060", "")

    at.switch_page("app_pages/home.py").run()
    assert not at.exception
    assert "evil" not in _sidebar(at) and "none chosen yet" in _sidebar(at)  # home works on no data set

    at.switch_page("app_pages/survival.py").run()
    assert not at.exception, at.exception
    assert at.radio(key="sv_src").value == "upload" and _uses_upload(at)  # the upload is still there
    assert any("uploaded earlier in this session" in c.value for c in [*at.caption, *at.markdown])
    assert "trial" in _sidebar(at)

    at.button(key="sv_upload_remove").click().run()  # removed on request
    assert not _uses_upload(at) and any("Upload a CSV" in i.value for i in at.info)


def test_upload_survives_a_switch_of_data_source_and_the_uploader_cross_removes_it():
    at = _survival_with_upload()
    at.radio(key="sv_src").set_value("bundled").run()
    assert "trial" not in _sidebar(at)
    at.radio(key="sv_src").set_value("upload").run()
    assert _uses_upload(at) and "trial" in _sidebar(at)

    at.file_uploader(key="sv_upload").upload("again.csv", CSV, "text/csv").run()
    assert "again" in _sidebar(at) and "trial" not in _sidebar(at)
    at.file_uploader(key="sv_upload").set_value(None).run()  # the uploader's ✕
    assert not _uses_upload(at)
    at.radio(key="sv_src").set_value("bundled").run()
    at.radio(key="sv_src").set_value("upload").run()
    assert not _uses_upload(at)  # stays removed


def test_each_page_keeps_its_own_upload():
    at = _survival_with_upload()
    at.switch_page("app_pages/fdr.py")
    at.query_params.clear()
    at.query_params["fdr_src"] = "upload"
    at.run()
    assert not at.exception
    assert at.file_uploader(key="fdr_upload") is not None and "trial" not in _sidebar(at)
    at.switch_page("app_pages/survival.py").run()
    assert _uses_upload(at)

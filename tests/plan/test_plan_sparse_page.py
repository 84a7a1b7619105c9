"""AppTest of the plan-first page's sparse-regression path: declare → explore on the proxy → lock → upload → Release.

The file's bytes are read only when Release is pressed (the uploader's ``getvalue`` and the parser are counted),
and the release is charged in the ledger with its settings "fixed before the private rows were read", under the
sparse page's method name, parts and δ. A file that does not match the declared facts is refused at Release with a
named error, and nothing is charged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import FIXED
from tests.support.page_views import chart_keys, open_view
from tests.support.pages import ok
from tests.support.uploads import FakeUpload
from ui.first_screen import PLAN_FIRST_LABEL
from ui.plan_first.sparse import VIEWS
from ui.state import DEFAULT_DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "app_pages" / "plan_first.py")
FEATURES = [f"g{j + 1}" for j in range(6)]
N = 70  # under the declared bound of 80; the release reads the page's 80 % split: 56 people


def _file() -> bytes:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, len(FEATURES))).clip(-1, 1).round(3)
    y = (2 * X[:, 0] - X[:, 2] + 0.3 * rng.normal(size=N)).round(3)
    rows = [",".join(map(str, [f"P{i:03d}", y[i], *X[i]])) for i in range(N)]
    return ("id,y," + ",".join(FEATURES) + "\n" + "\n".join(rows) + "\n").encode()


GOOD = _file()


def _upload(data: bytes) -> FakeUpload:
    return FakeUpload(data, "genes.csv")


def _declared_and_locked() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["plan_method"] = "sparse"
    ok(at.run())
    assert not chart_keys(at)  # nothing to draw before the facts are declared
    for key, value in {"plan_sp_response": "y", "plan_sp_features": ", ".join(FEATURES),
                       "plan_sp_person": "id"}.items():
        at.text_input(key=key).set_value(value)
    at.number_input(key="plan_sp_n").set_value(80)
    at.number_input(key="plan_sp_sstar").set_value(2)
    (declare,) = [b for b in at.button if b.label == "Declare these facts"]
    ok(declare.click().run())
    ok(open_view(at, "plan_sp_view", VIEWS[0]))  # the sparse page's views, drawn on the proxy
    assert chart_keys(at) == ["plan_sp_stem"], chart_keys(at)
    ok(open_view(at, "plan_sp_view", VIEWS[1]))
    assert not chart_keys(at) and len(at.dataframe) == 1
    assert list(at.dataframe[0].value["model"]) == ["non-private IGHT (teacher)", "peeling + private fit"]
    ok(open_view(at, "plan_sp_view", VIEWS[2]))
    assert chart_keys(at) == ["plan_sp_l2_error", "plan_sp_f1"], chart_keys(at)
    at.select_slider(key="eps").set_value(3.0).run()
    at.number_input(key="plan_sp_s").set_value(2).run()
    ok(at.button(key="plan_sp_lock").click().run())
    assert any("Locked: ε = 3" in s.value and "s = 2" in s.value for s in at.success), [s.value for s in at.success]
    return at


def _records():
    return open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()


def test_the_file_is_read_only_when_release_is_pressed_and_the_release_is_fixed_before_reading(monkeypatch, parses):
    at = _declared_and_locked()
    upload = _upload(GOOD)
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: upload)
    ok(at.run())
    open_view(at, "plan_sp_view", VIEWS[0])  # exploring on with the file held
    ok(at.run())
    assert upload.reads == 0 and parses == []  # held, never opened: no preview, no count, no check
    assert not [m.value for m in at.markdown if f"{N}" in m.value]  # nothing says how many rows it has
    ok(at.button(key="plan_sp_read").click().run())
    assert upload.reads == 1 and len(parses) == 1
    ok(at.button(key="release_button_plan_sparse").click().run())
    ok(at.button(key="release_confirm_plan_sparse").click().run())
    assert upload.reads == 1 and len(parses) == 1  # read once, at Release
    bundle = at.session_state["_release_last_plan_sparse"]
    assert bundle.method == "Sparse regression: peeling + private fit" and bundle.epsilon == 3.0
    assert bundle.delta == 1 / 80**2 and bundle.public_params["sparsity"] == 2  # δ = 1/n² on the declared bound
    assert bundle.settings_choice.how == FIXED and bundle.settings_choice.viewed == ()  # no private view listed
    assert "fixed before the private rows were read" in bundle.statement
    assert "EPSILON, DELTA, SPARSITY, SEED, REPEATS = 3.0" in bundle.script and "'g6'" in bundle.script
    (record,) = _records()
    assert record.settings_choice().how == FIXED and record.settings_choice().label == (
        "fixed before the private rows were read")
    assert (record.epsilon, record.delta, record.persons) == (3.0, 1 / 80**2, 56)


def test_a_file_that_breaks_the_declared_facts_is_refused_at_release_and_charges_nothing(monkeypatch, parses):
    at = _declared_and_locked()
    lines = GOOD.decode().splitlines()
    cells = lines[5].split(",")
    cells[3] = "n/a"  # row 6 of the file (the header is row 1), column g2
    bad = "\n".join([*lines[:5], ",".join(cells), *lines[6:]]).encode() + b"\n"
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(bad))
    ok(at.run())
    at.button(key="plan_sp_read").click().run()
    assert not at.exception
    assert any("Column 'g2', row 6" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.button(key="plan_sp_read").disabled and "_release_last_plan_sparse" not in at.session_state
    assert not _records()


def test_changing_the_settings_drops_the_file_read_for_the_old_ones(monkeypatch, parses):
    at = _declared_and_locked()
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: _upload(GOOD))
    at.run()
    ok(at.button(key="plan_sp_read").click().run())
    assert len(parses) == 1 and "_plan_sp_cohort" in at.session_state
    ok(at.button(key="plan_sp_unlock").click().run())
    assert "_plan_sp_cohort" not in at.session_state and not [b for b in at.button if b.key == "plan_sp_read"]


def test_the_sparse_page_offers_the_plan_first_path_where_a_csv_is_uploaded():
    at = AppTest.from_file(str(ROOT / "app_pages" / "sparse.py"), default_timeout=120)
    at.query_params["sp_src"] = "upload"
    ok(at.run())
    assert any(c.value.startswith(PLAN_FIRST_LABEL) for c in at.caption), [c.value for c in at.caption]

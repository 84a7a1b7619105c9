"""AppTest of the plan-first page's online-FDR path: declare → explore on the proxy → lock → upload → Release.

The uploaded p-values are read only when Release is pressed (the uploader's ``getvalue`` and the parser are
counted), and the release is charged to the declared cohort with its settings "fixed before the private rows were
read" and the η statement in its notes. A stream that does not match the declared facts is refused at Release with
a named error, and nothing is charged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore import fdr
from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.provenance import FIXED
from tests.support.page_views import chart_keys, open_view
from tests.support.pages import ok
from tests.support.uploads import FakeUpload
from ui.plan_first.fdr import VIEWS
from ui.state import DEFAULT_DATA_DIR

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "plan_first.py")
RECORDS, T = 200, 50
_rng = np.random.default_rng(11)
P = fdr._binomial_tail_table(RECORDS)[_rng.binomial(RECORDS, np.where(_rng.random(T) < 0.2, 0.85, 0.5))]
GOOD = ("pval,drug\n" + "\n".join(f"{v:.17g},D{i}" for i, v in enumerate(P)) + "\n").encode()


def _declared_and_locked() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["plan_method"] = "fdr"
    ok(at.run())
    assert not chart_keys(at)  # nothing to draw before the facts are declared
    at.text_input(key="plan_fdr_p").set_value("pval")
    at.text_input(key="plan_fdr_label").set_value("drug")
    at.number_input(key="plan_fdr_T").set_value(60)  # a bound: the file has 50
    at.number_input(key="plan_fdr_n").set_value(RECORDS)
    at.number_input(key="plan_fdr_pi1").set_value(0.2)
    at.number_input(key="plan_fdr_signal").set_value(0.85)
    ok(next(b for b in at.button if b.label == "Declare these facts").click().run())
    for view in VIEWS:  # every main view of the FDR page, drawn on the proxy
        ok(open_view(at, "plan_fdr_view", view))
        assert len(chart_keys(at)) == 1, (view, chart_keys(at))
    assert any("Simulated stream: 60 hypotheses, 20% true signals" in m.value for m in at.markdown), \
        [m.value for m in at.markdown]
    at.select_slider(key="eps").set_value(3.0).run()
    at.radio(key="plan_fdr_method").set_value("PAPRIKA AI").run()
    ok(at.button(key="plan_fdr_lock").click().run())
    assert any("Locked: PAPRIKA AI · ε = 3" in s.value for s in at.success), [s.value for s in at.success]
    return at


def _records():
    return open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR)).records()


def _name_the_cohort(at: AppTest) -> AppTest:
    at.text_input(key="plan_fdr_cohort_name").set_value("Trial 7")
    at.number_input(key="plan_fdr_cohort_size").set_value(400)
    return ok(at.run())


def test_the_stream_is_read_only_when_release_is_pressed_and_the_release_is_fixed_before_reading(monkeypatch,
                                                                                                  parses):
    at = _declared_and_locked()
    upload = FakeUpload(GOOD)
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: upload)
    ok(at.run())
    open_view(at, "plan_fdr_view", VIEWS[1])  # exploring on with the file held
    ok(at.run())
    assert upload.reads == 0 and parses == []  # held, never opened: no preview, no count, no check
    ok(at.button(key="plan_fdr_read").click().run())
    assert upload.reads == 1 and len(parses) == 1
    assert at.button(key="release_button_plan_fdr").disabled  # no cohort named yet: nobody to charge
    _name_the_cohort(at)
    ok(at.button(key="release_button_plan_fdr").click().run())
    ok(at.button(key="release_confirm_plan_fdr").click().run())
    assert upload.reads == 1 and len(parses) == 1  # read once, at Release
    bundle = at.session_state["_release_last_plan_fdr"]
    assert (bundle.method, bundle.epsilon, bundle.delta) == ("PAPRIKA AI", 3.0, 2.5e-4)
    assert bundle.settings_choice.how == FIXED and bundle.settings_choice.viewed == ()  # no private view
    assert "fixed before the private rows were read" in bundle.statement
    eta = fdr.binomial_sensitivity(RECORDS, fdr.design_floor(RECORDS, 0.75))
    assert eta.basis in bundle.notes and bundle.public_params["eta"] == eta.eta  # the η statement, as on the FDR page
    assert list(bundle.tables["rejections"]["label"][:2]) == ["D0", "D1"] and len(bundle.tables["rejections"]) == T
    assert "'pval'" in bundle.script and "EPSILON, METHOD = 3.0, 'PAPRIKA AI'" in bundle.script  # its reproduce.py
    (record,) = _records()
    assert record.settings_choice().how == FIXED and record.settings_choice().label == (
        "fixed before the private rows were read")
    assert record.method == "PAPRIKA AI discovery list" and record.epsilon == 3.0 and record.persons == 400
    assert record.params["T"] == T and record.params["eta_source"] == "binomial"


def test_a_stream_that_breaks_the_declared_facts_is_refused_at_release_and_charges_nothing(monkeypatch, parses):
    at = _declared_and_locked()
    bad = GOOD.replace(f"\n{P[3]:.17g},D3\n".encode(), b"\n0.3,D3\n")  # no binomial tail value for 200 records
    assert bad != GOOD
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: FakeUpload(bad))
    ok(at.run())
    at.button(key="plan_fdr_read").click().run()
    assert not at.exception
    assert any("Column 'pval', row 5" in e.value for e in at.error), [e.value for e in at.error]
    assert not [b for b in at.button if b.key == "release_button_plan_fdr"] and not _records()
    assert "_release_last_plan_fdr" not in at.session_state


def test_changing_the_settings_drops_the_stream_read_for_the_old_ones(monkeypatch, parses):
    at = _declared_and_locked()
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: FakeUpload(GOOD))
    at.run()
    ok(at.button(key="plan_fdr_read").click().run())
    assert len(parses) == 1
    ok(at.button(key="plan_fdr_unlock").click().run())
    assert "_plan_fdr_cohort" not in at.session_state and not [b for b in at.button if b.key == "plan_fdr_read"]


def test_a_stated_eta_must_be_vouched_for_before_the_facts_are_declared_and_then_has_no_floor():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["plan_method"] = "fdr"
    ok(at.run())
    at.radio(key="plan_fdr_etahow").set_value("stated")
    at.button[0].click().run()
    assert any("Tick the statement under the stated η" in e.value for e in at.error), [e.value for e in at.error]
    assert not chart_keys(at)
    at.number_input(key="plan_fdr_T").set_value(40)
    at.checkbox(key="plan_fdr_eta_confirm").check()
    ok(at.button[0].click().run())
    assert chart_keys(at) == ["plan_fdr_stream"] and not [n for n in at.number_input if n.key == "plan_fdr_floor"]
    ok(at.button(key="plan_fdr_lock").click().run())
    assert any("η = 0.0831 (stated" in s.value.replace("\\", "") for s in at.success), [s.value for s in at.success]

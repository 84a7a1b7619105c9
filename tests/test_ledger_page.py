"""Ledger page: releases listed, caps set and enforced, session report offered."""

from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from dpcore.ledger import Budget, Ledger
from dpcore.release import ReleaseBundle
from dpcore.report import html_report

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "ledger.py")


def _bundle():
    return ReleaseBundle(
        method="DP counts", dataset="Gehan (bundled)", fingerprint="fp1", epsilon=0.5, delta=0.0,
        mechanisms=("discrete Laplace noise, b = 4 (Δ1 = 2, ε = 0.5)",), public_params={"grid": "weeks"},
        tables={"counts": pd.DataFrame({"bin": [1, 2], "noisy count": [3, 5]})},
    )


def test_empty_ledger_explains_itself():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    assert not at.exception
    assert any("No release yet" in i.value for i in at.info)


def test_releases_totals_cap_and_report():
    ledger = Ledger()
    ledger.label("fp1", "Gehan (bundled)")
    ledger.charge("fp1", "DP counts", 0.5, params={"grid": "weeks"})
    ledger.charge("fp1", "DP counts", 0.25)
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["_dp_ledger"] = ledger
    at.session_state["_dp_releases"] = [_bundle()]
    at.run()
    assert not at.exception
    releases, per_person, totals = at.dataframe
    assert len(releases.value) == 2 and "grid=weeks" in releases.value["parameters"].iloc[0]
    assert totals.value["ε spent"].iloc[0] == 0.75
    assert totals.value["ε spent (tight)"].iloc[0] == "not used"  # no cap: nothing is checked at a δ
    # a cap below what is spent is refused with a message
    at.number_input(key="cap_eps").set_value(0.5)
    at.button[0].click().run()
    assert any("already spent" in e.value for e in at.error)
    at.number_input(key="cap_eps").set_value(1.0)
    at.number_input(key="cap_delta").set_value(1e-3)
    at.button[0].click().run()
    assert ledger.budget("fp1") == Budget(1.0, 1e-3)
    assert any("Cap for Gehan \\(bundled\\)" in s.value for s in at.success)  # names print as typed
    # the cap has a δ: the tight ε it is checked on, beside basic composition's 0.75
    (totals,) = [t.value for t in at.dataframe if "ε spent (tight)" in t.value]
    assert totals["ε spent"].iloc[0] == 0.75 and float(totals["ε spent (tight)"].iloc[0]) < 0.75


def test_default_delta_cap_can_be_set_after_a_delta_release():
    """The δ cap field defaults above what is already spent (an FDR release spends δ = 2.5e-4)."""
    ledger = Ledger()
    ledger.label("fp2", "stream_*1*.csv")
    ledger.charge("fp2", "PAPRIKA", 5.0, 2.5e-4)
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["_dp_ledger"] = ledger
    at.session_state["_dp_releases"] = [_bundle()]
    at.run()
    at.number_input(key="cap_eps").set_value(10.0)
    at.button[0].click().run()
    assert not at.error, [e.value for e in at.error]
    assert ledger.budget("fp2").delta == 5e-4


def test_every_gdsc_analysis_draws_on_one_budget():
    """Any drug, any number of features, either page: the same cell lines, so the same ledger entry."""
    root = Path(__file__).resolve().parent.parent / "app_pages"
    keys = set()
    for page, params in (("regression.py", {}), ("regression.py", {"rg_d": "11"}),
                         ("sparse.py", {"sp_src": "gdsc"}), ("sparse.py", {"sp_src": "gdsc", "sp_loss": "logistic"})):
        at = AppTest.from_file(str(root / page), default_timeout=120)
        for k, v in params.items():
            at.query_params[k] = v
        at.run()
        assert not at.exception, at.exception
        keys.add(at.session_state["_dp_current_dataset"][1])
    assert len(keys) == 1


def test_a_cap_shows_in_the_totals_at_once_and_audits_alone_make_a_report():
    from dpcore import registry

    scenario = registry.audit_scenarios("survival", 1.0)[0]
    planted, _, _ = scenario.run(2_000, planted_bug=True, seed=0)
    ledger = Ledger()
    ledger.label("fp3", "Cancer (bundled)")
    ledger.charge("fp3", "DP survival analysis", 1.0)
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["_dp_ledger"] = ledger
    at.session_state["_dp_audits"] = [planted]
    at.run()
    totals = at.dataframe[2].value
    assert totals["ε cap"].iloc[0] == "no cap"
    at.number_input(key="cap_eps").set_value(1.5)
    at.button[0].click().run()
    assert at.dataframe[2].value["ε cap"].iloc[0] == "1.5"  # same run, not the next one
    assert any("0 release(s) and 1 audit(s)" in c.value for c in at.caption)  # audits alone make a report
    report = html_report([], audits=[planted])
    assert "Privacy audit — survival" in report and "deliberately planted bug" in report


def test_per_person_spend_is_shown_and_hostile_names_are_escaped_for_spreadsheets():
    """Issue 42 §3: the distribution of spend per person against the cap, tight and basic side by side; issue 44 §3:
    a data set named like a formula reaches the tables' CSV download escaped."""
    import numpy as np

    from dpcore.ledger import Persons
    from dpcore.ledger.config import LedgerConfig, open_ledger
    from ui.state import DEFAULT_DATA_DIR

    ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
    persons = Persons.of_column(np.arange(40), "id")
    ledger.charge(ledger.holding(persons), "KM", 1.0, label="=HYPERLINK(\"x\")")
    ledger.charge(ledger.holding(persons.subset(np.arange(40) < 10)), "KM", 2.0)
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    assert not at.exception
    releases, per_person, totals = at.dataframe
    assert releases.value["data set"].iloc[0] == "'=HYPERLINK(\"x\")" and totals.value["data set"].iloc[0][0] == "'"
    table = per_person.value.sort_values("ε (basic)")
    assert table["persons"].tolist() == [30, 10] and table["ε (basic)"].tolist() == [1.0, 3.0]
    assert (table["ε (as checked)"] <= table["ε (basic)"] + 1e-9).all()
    text = " ".join(m.value for m in at.markdown)
    assert "**40** persons read by releases" in text and "nobody is over it" in text
    assert any(c.proto.spec for c in at.get("plotly_chart"))  # the histogram against the cap

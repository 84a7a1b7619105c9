"""Ledger page: releases listed, caps set and enforced, session report offered."""

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.ledger import Budget, Ledger
from dpcore.reporting.release import ReleaseBundle
from dpcore.reporting.report import html_report

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "ledger.py")


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
    root = Path(__file__).resolve().parents[2] / "app_pages"
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
    """The distribution of spend per person against the cap, tight and basic side by side;
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


# -- who sees what: a visitor, reviewers with and without a grant, and a second custodian --------------------------
ALICE, BOB = "alice@hospital.example", "bob@hospital.example"
SHARED_ACCESS = """
[access]
identify_by = "email"
custodians = ["alice@hospital.example", "bob@hospital.example"]
[access.reviewers]
"rita@hospital.example" = ["alice@hospital.example"]
"olaf@hospital.example" = []
"""
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "0123456789abcdef" * 2,
        "client_id": "dp-dashboard", "client_secret": "not-used-here",
        "server_metadata_url": "https://sso.hospital.example/.well-known/openid-configuration"}
COHORTS = ("alice-cohort.csv", "bob-cohort.csv")


def _signed_in(email: str) -> dict:
    return {"is_logged_in": True, "iss": "https://sso.hospital.example", "sub": f"sub-{email}", "email": email,
            "email_verified": True, "name": email.split("@")[0].title()}


@pytest.fixture
def shared_ledger(monkeypatch):
    """A deployment with sign-in: Alice released twice on 30 people, Bob once on 20 (ids overlapping hers)."""
    import os

    from conftest import SHARED_SECRET

    from dpcore.ledger import Persons
    from dpcore.ledger.config import LedgerConfig, open_ledger
    from ui.state import DEFAULT_DATA_DIR

    monkeypatch.setenv("DPCORE_LEDGER_SECRET", SHARED_SECRET.hex())
    data_dir = Path(os.environ["DPCORE_DATA_DIR"])
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "dpcore.toml").write_text(SHARED_ACCESS)
    ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR, sign_in=True))

    def cohort(first: int, n: int):
        return Persons.of_column(pd.Series([f"P{first + i:04d}" for i in range(n)]), "patient_id")

    alice, bob = ledger.holding(cohort(0, 30), ALICE), ledger.holding(cohort(10, 20), BOB)
    ledger.charge(alice, "DP survival analysis", 1.0, label=COHORTS[0], actor=ALICE)
    ledger.charge(alice, "DP survival analysis", 0.5, label=COHORTS[0], actor=ALICE)
    ledger.charge(bob, "DP regression", 2.0, label=COHORTS[1], actor=BOB)
    return ledger


def _ledger_page_as(user: dict) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.secrets["auth"] = AUTH
    at.user = user
    at.run()
    assert not at.exception
    return at


def _shown(at: AppTest) -> str:
    """Every text the page shows: headings, text, notes, tables' cells and the choices its select boxes offer."""
    parts = [e.value for kind in (at.header, at.subheader, at.markdown, at.caption, at.info, at.success,
                                  at.warning, at.error) for e in kind]
    parts += [table.value.to_string() for table in at.dataframe]
    parts += [str(option) for box in at.selectbox for option in box.options]
    return "\n".join(parts)


def _can_change_anything(at: AppTest) -> bool:
    """Whether the page offers a cap form or a grant of read access."""
    return bool(at.number_input) or any(b.label in ("Set cap", "Grant read access") for b in at.button)


@pytest.mark.parametrize("who", ["signed out", "signed in without a role"])
def test_a_visitor_sees_no_ledger_at_all(shared_ledger, who):
    """A visitor is told how to get access and sees nothing of any custodian's ledger: no data set, release or count
    of people, and no control."""
    user = {"is_logged_in": False} if who == "signed out" else _signed_in("eve@hospital.example")
    at = _ledger_page_as(user)
    shown = _shown(at)
    assert "The ledger is shown to data custodians" in shown
    assert not any(name in shown for name in COHORTS) and "persons read" not in shown
    assert not any("method" in table.value.columns for table in at.dataframe)
    assert not _can_change_anything(at)


def test_a_reviewer_without_a_grant_sees_no_ledger(shared_ledger):
    at = _ledger_page_as(_signed_in("olaf@hospital.example"))
    shown = _shown(at)
    assert "No release yet on the data sets granted to you" in shown
    assert not any(name in shown for name in COHORTS) and "persons read" not in shown
    assert not any("method" in table.value.columns for table in at.dataframe)
    assert not _can_change_anything(at)


@pytest.mark.parametrize("reviewer", ["granted on the Ledger page", "granted in the configuration"])
def test_a_reviewer_reads_exactly_the_ledger_granted_and_changes_nothing(shared_ledger, reviewer):
    """Olaf once Alice grants him on the page, Rita by the configuration: Alice's releases and her 30 people, nothing
    of Bob's, and no cap form or grant."""
    if reviewer == "granted on the Ledger page":
        shared_ledger.grant_review(ALICE, "olaf@hospital.example", actor=ALICE)
        email = "olaf@hospital.example"
    else:
        email = "rita@hospital.example"
    at = _ledger_page_as(_signed_in(email))
    shown = _shown(at)
    releases = next(t.value for t in at.dataframe if "method" in t.value.columns)
    assert releases["data set"].tolist() == [COHORTS[0]] * 2 and releases["ε"].tolist() == [1.0, 0.5]
    assert "**30** persons read by releases" in shown
    assert COHORTS[0] in shown and COHORTS[1] not in shown
    assert not _can_change_anything(at)


@pytest.mark.parametrize("custodian, own, other, releases, persons", [
    (BOB, COHORTS[1], COHORTS[0], [2.0], 20), (ALICE, COHORTS[0], COHORTS[1], [1.0, 0.5], 30)])
def test_a_custodian_sees_and_caps_only_their_own_data_sets(shared_ledger, custodian, own, other, releases,
                                                             persons):
    """Each of two custodians sees their own releases and people, offers caps on their own data sets only, and sees
    nothing of the other's (not even that it exists)."""
    at = _ledger_page_as(_signed_in(custodian))
    shown = _shown(at)
    table = next(t.value for t in at.dataframe if "method" in t.value.columns)
    assert table["data set"].tolist() == [own] * len(releases) and table["ε"].tolist() == releases
    assert f"**{persons}** persons read by releases" in shown
    assert own in shown and other not in shown
    assert all(own in str(option) for option in at.selectbox(key="cap_dataset").options)
    assert any(b.label == "Grant read access" for b in at.button)


def test_a_reviewer_reads_how_each_release_s_settings_were_chosen(shared_ledger):
    """Each release's "settings chosen" beside it, and the key saying what each way means for the guarantee."""
    from dpcore.provenance import CHANGED, NON_PRIVATE_ANSWER, PRIVATE_PREVIEWS, SettingsChoice

    tuned = SettingsChoice(CHANGED, ("ε", "grid"), (PRIVATE_PREVIEWS, NON_PRIVATE_ANSWER))
    (holding,) = {shared_ledger.dataset_holding(r.dataset, ALICE) for r in shared_ledger.records()
                  if r.actor == ALICE}
    shared_ledger.charge(holding, "DP survival analysis", 0.25, actor=ALICE, settings=tuned)
    shared_ledger.grant_review(ALICE, "olaf@hospital.example", actor=ALICE)
    at = _ledger_page_as(_signed_in("olaf@hospital.example"))
    table = next(t.value for t in at.dataframe if "method" in t.value.columns)
    assert table["settings chosen"].tolist() == ["not recorded", "not recorded", tuned.label]
    key = next(c.value for c in at.caption if c.value.startswith("Settings chosen — "))
    assert "“changed after previews that read the private rows”: The proved (ε, δ) assumes" in key


def test_audits_table_shows_minutes_and_names_each_audit_newest_first():
    """Kept audits read as "2026-12-06 13:05", never raw ISO timestamps, newest first, each under its name."""
    ledger = Ledger()
    ledger.record_audit("survival: discrete Laplace, worst-case pair", {"claimed_epsilon": 1.0, "epsilon_lower": 0.94,
                                                                         "n_runs": 20_000, "violation": False})
    ledger.record_audit("FDR: PAPRIKA, planted bug", {"claimed_epsilon": 1.0, "epsilon_lower": 3.2, "n_runs": 20_000,
                                                      "planted_bug": True, "violation": True})
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["_dp_ledger"] = ledger
    at.run()
    assert not at.exception
    (audits,) = [t.value for t in at.dataframe if "audit" in t.value.columns]
    assert list(audits["audit"]) == ["FDR: PAPRIKA, planted bug", "survival: discrete Laplace, worst-case pair"]
    assert audits["time (UTC)"].str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d").all(), audits["time (UTC)"].tolist()
    assert list(audits["refuted"]) == [True, False]

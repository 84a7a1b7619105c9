"""Audit page (AppTest): for every method, the planted bug is flagged and the correct mechanism is not."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore import registry

PAGE = str(Path(__file__).resolve().parents[2] / "app_pages" / "audit.py")


def _run(method: str, bug: bool) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.query_params.update({"method": method, "eps": "1.0", "runs": "200000", "bug": "true" if bug else "false"})
    at.run()
    assert not at.exception
    at.button[0].click().run()
    assert not at.exception
    return at


@pytest.mark.parametrize("method", list(registry.METHODS))
def test_audit_page_flags_only_the_planted_bug(method):
    correct = _run(method, bug=False)
    assert any("no violation found" in s.value for s in correct.success), [e.value for e in correct.error]
    broken = _run(method, bug=True)
    assert any("The data refute" in e.value for e in broken.error), [s.value for s in broken.success]


def test_audit_page_url_controls_are_read():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update({"method": "survival", "eps": "2.0", "runs": "50000"})
    at.run()
    assert at.selectbox(key="method").value == "survival"
    assert at.select_slider(key="eps").value == 2.0
    assert at.select_slider(key="runs").value == 50_000


def test_known_violation_is_listed_and_refuted():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.query_params.update({"method": "sparse", "eps": "1.0", "runs": "100000"})
    at.run()
    options = at.selectbox(key="scenario").options
    flagged = [o for o in options if o.startswith("Known violation")]
    assert flagged, options
    at.selectbox(key="scenario").set_value(flagged[0]).run()
    assert any("breaks the method" in w.value for w in at.warning)
    at.button[0].click().run()
    assert any("The data refute" in e.value for e in at.error)


def test_audits_are_kept_in_the_ledger_database_and_listed_on_the_ledger_page():
    """A long audit is cited later: its result outlives the session, in the same database as the releases."""
    _run("survival", bug=True)
    ledger_page = AppTest.from_file(str(Path(PAGE).with_name("ledger.py")), default_timeout=60)
    ledger_page.run()
    assert not ledger_page.exception
    (kept,) = [d for d in ledger_page.dataframe if "empirical ε lower bound" in d.value.columns]
    row = kept.value.iloc[0]
    assert row["planted bug"] and row["refuted"] and row["runs"] == 200_000
    assert "Survival" in row["audit"]


def _subheaders(at: AppTest) -> list[str]:
    """The page's section and subsection headings (h2 and h3)."""
    return [s.value for s in [*at.header, *at.subheader]]


def test_only_the_open_tab_is_computed_and_a_link_to_the_attackers_view_opens_it():
    attacker = "What ε means for one patient: the attacker's view"
    plain = AppTest.from_file(PAGE, default_timeout=120)
    plain.query_params.update({"method": "survival", "eps": "1.0"})
    plain.run()
    assert not plain.exception
    assert plain.select_slider(key="runs") is not None and attacker not in _subheaders(plain)
    plain.session_state["audit_view"] = "Attacker's view"  # the user opens the other tab
    plain.run()
    assert attacker in _subheaders(plain)
    assert all(s.key != "runs" for s in plain.select_slider)  # the audit's controls are not drawn meanwhile
    linked = AppTest.from_file(PAGE, default_timeout=120)
    linked.query_params.update({"method": "survival", "eps": "1.0", "adelta": "1e-05"})
    linked.run()
    assert not linked.exception and attacker in _subheaders(linked)


def test_a_result_says_plainly_that_it_is_out_of_date_when_epsilon_moves_after_the_run():
    """An audit runs at one claimed ε: after a move of ε its result stays on screen, headed by a warning naming the ε
    it is for and the ε set now; back at the ε it was run at, the warning goes."""
    at = _run("survival", bug=False)
    assert not any("Out of date" in w.value for w in at.warning)
    at.select_slider(key="eps").set_value(3.0).run()
    assert not at.exception
    (stale,) = [w.value for w in at.warning if "Out of date" in w.value]
    assert "for claimed ε = 1" in stale and "the claimed ε is now 3, not 1" in stale and "Run audit" in stale
    assert any(m.label == "Claimed ε" and m.value == "1" for m in at.metric)  # the result itself is not relabelled
    at.select_slider(key="eps").set_value(1.0).run()
    assert not any("Out of date" in w.value for w in at.warning)

"""App shell: the home page renders and the sidebar shows the session's ledger."""

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.ledger import Ledger, Persons
from dpcore.ledger.config import LedgerConfig, open_ledger
from dpcore.regression import ADASSP, ADASSP_SPLIT
from ui.layout import literal
from ui.state import DEFAULT_DATA_DIR


def _app():
    return AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60)


def test_home_renders_without_exceptions():
    at = _app().run()
    assert not at.exception
    assert at.title[0].value.startswith("Privacy–utility trade-offs")
    text = " ".join(m.value for m in at.markdown)
    assert "ε (epsilon)" in text and "Preview versus release" in " ".join(s.value for s in at.header)


def test_home_starts_with_the_pages_and_its_epsilon_slider_moves_the_bound():
    """The links to the method pages come first (they sat some 1,300 px down), and the chart of what ε means for
    one patient has its own ε slider: moving it changes the sentence and the chart's marked ε."""
    from dpcore.reporting.attack import bound_sentence

    at = _app().run()
    assert [h.value for h in at.header][0] == "Start here"
    assert bound_sentence(1.0) in " ".join(m.value for m in at.markdown)
    at.select_slider(key="eps").set_value(5.0).run()
    assert not at.exception
    assert bound_sentence(5.0) in " ".join(m.value for m in at.markdown)


def test_sidebar_ledger_shows_a_release_recorded_through_the_api():
    ledger = Ledger()
    ledger.label("abc123", "Gehan (bundled)")
    ledger.charge("abc123", "DP Kaplan–Meier", 0.7)
    at = _app()
    at.session_state["_dp_ledger"] = ledger
    at.run()
    assert not at.exception
    text = " ".join(m.value for m in at.sidebar.markdown)
    assert r"**Gehan \(bundled\)**" in text and "ε 0.7 spent · 1 release" in text  # escaped: prints as typed


@pytest.mark.parametrize("accountant", ["tight", "basic"])
def test_sidebar_shows_the_figure_the_cap_is_checked_on_with_basic_composition_beside_it(monkeypatch, accountant):
    """Ten AdaSSP releases (three analytic Gaussians each, ε 1, δ 10⁻⁶) under the default cap (ε 10,
    δ 10⁻³) cost a person ε ≈ 1.3 by tight accounting, 10 by basic composition: the sidebar shows the first against
    the cap and the second beside it; with DPCORE_ACCOUNTANT=basic the cap is checked on the sums, shown alone."""
    monkeypatch.setenv("DPCORE_ACCOUNTANT", accountant)
    ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
    holding = ledger.holding(Persons.of_column(pd.Series(range(40)), "id"))
    parts = dict(zip(("λ_min", "XᵀX", "Xᵀy"), ADASSP_SPLIT))
    for _ in range(10):
        ledger.charge(holding, ADASSP, 1.0, 1e-6, parts=parts, label="cohort_[1].csv")
    at = _app()
    at.session_state["_dp_current_dataset"] = ("cohort_[1].csv", "fp", holding.key)  # as a method page names it
    at.session_state["_dp_current_holding"] = holding
    at.run()
    assert not at.exception
    current = " ".join(m.value for m in at.sidebar.markdown)  # a note: small, in the body colour (ui.note)
    listed = " ".join(m.value for m in at.sidebar.markdown)
    assert f"**{literal('cohort_[1].csv')}**" in listed  # the name prints as typed
    if accountant == "basic":
        assert "Its most-charged person has spent ε 10 of 10, δ 1e-05; 40 of its 40 people were read before." in current
        assert "most-charged person: ε 10 of 10, δ 1e-05 spent · 10 releases" in listed
        assert "tight" not in current + listed
        return
    tight = ledger.spent(holding)[0]
    assert 1.2 < tight < 1.5  # docs/accounting.md: ten regressions cost about 1.4 at δ 10⁻³
    both = f"ε {tight:.3g} of 10 (their ε add up to 10)"
    assert f"Its most-charged person has spent {both}; 40 of its 40 people were read before." in current
    assert f"most-charged person: {both} spent · 10 releases" in listed


def test_sidebar_says_one_person_in_words_never_one_people():
    """A cohort of one (an FDR stream's declared cohort can be one person) reads "its one person", not "1 people"."""
    ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
    holding = ledger.holding(Persons.of_column(pd.Series(["p1"]), "id"))
    at = _app()
    at.session_state["_dp_current_dataset"] = ("one.csv", "fp", holding.key)
    at.session_state["_dp_current_holding"] = holding
    at.run()
    assert not at.exception
    current = " ".join(m.value for m in at.sidebar.markdown)  # a note: small, in the body colour (ui.note)
    assert "its one person was not read before." in current and "1 people" not in current, current

def test_teaching_mode_is_bound_to_the_url():
    at = _app()
    at.query_params["teach"] = "true"
    at.run()
    assert at.sidebar.toggle[0].value is True


def test_sidebar_keeps_the_ledger_when_a_page_stops_early():
    """A page waiting for an upload calls st.stop(), which drops anything drawn after it."""
    at = _app()
    at.query_params["sv_src"] = "upload"
    at.switch_page("app_pages/survival.py").run()
    assert not at.exception
    assert any("Upload a CSV" in i.value for i in at.info)  # the page did stop, waiting for the file
    assert "Privacy ledger (your data sets, all sessions)" in " ".join(m.value for m in at.sidebar.markdown)


def test_an_in_app_link_to_a_configuration_keeps_its_epsilon():
    """The attacker panel's link opens the audit page at the panel's ε; the marker is read once and dropped."""
    from ui.widgets import LINKED

    at = _app()
    at.switch_page("app_pages/fdr.py").run()
    at.query_params.update({"eps": "2", "method": "fdr", LINKED: "1"})
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception
    assert at.select_slider(key="eps").value == 2.0
    assert LINKED not in at.query_params


def test_each_page_opens_at_its_own_epsilon():
    """The ε widget key is shared by all pages (one URL parameter); a value chosen on one page must not carry
    over into the next page's preview and Release button."""
    at = _app()
    at.switch_page("app_pages/fdr.py").run()
    assert at.select_slider(key="eps").value == 5.0
    at.select_slider(key="eps").set_value(10.0).run()
    at.switch_page("app_pages/survival.py").run()
    assert not at.exception
    assert at.select_slider(key="eps").value == 1.0  # survival's default, not FDR's 10


def test_a_data_set_opened_on_a_method_page_can_be_capped_before_its_first_release():
    """The page switch forgets the current data set (the sidebar names the page's own), but the Ledger page's cap
    form still offers the data sets this session opened, newest first, so a custodian can cap one before releasing."""
    ledger = Ledger()
    at = _app()
    at.session_state["_dp_ledger"] = ledger
    at.switch_page("app_pages/survival.py").run()
    at.switch_page("app_pages/fdr.py").run()
    assert not at.exception
    at.switch_page("app_pages/ledger.py").run()
    assert not at.exception
    labels = at.selectbox(key="cap_dataset").options  # as shown: "name · key 1a2b3c4d"
    assert len(labels) == 2 and not ledger.records()
    assert labels[0].startswith("Simulated Bernoulli stream") and "(bundled)" in labels[1], labels  # FDR's: newest
    at.selectbox(key="cap_dataset").select_index(1)
    at.number_input(key="cap_eps").set_value(2.0)
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert ledger.budget(at.selectbox(key="cap_dataset").value).epsilon == 2.0
    at.switch_page("app_pages/survival.py").run()  # the release panel now counts against the cap
    assert "left for everyone read: ε = 2" in " ".join(m.value for m in at.markdown)

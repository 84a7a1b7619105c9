"""App shell: the home page renders and the sidebar shows the session's ledger."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcore.ledger import Ledger


def _app():
    return AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)


def test_home_renders_without_exceptions():
    at = _app().run()
    assert not at.exception
    assert at.title[0].value.startswith("Privacy–utility trade-offs")
    text = " ".join(m.value for m in at.markdown)
    assert "ε (epsilon)" in text and "Preview versus release" in " ".join(s.value for s in at.subheader)


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

"""Sign-in in the app shell (AppTest): the embedded default needs none; with ``[auth]`` secrets the account panel
names the person and role, visitors are admitted only where allowed, mistakes stop every page, and a change of
identity keeps nothing of the previous one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
ISSUER = "https://sso.hospital.example/realms/clinical"
AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "0123456789abcdef0123456789abcdef",
    "client_id": "dp-dashboard",
    "client_secret": "not-used-here",
    "server_metadata_url": f"{ISSUER}/.well-known/openid-configuration",
}
ACCESS = """
[access]
identify_by = "email"
custodians = ["alice@hospital.example"]
[access.reviewers]
"rita@hospital.example" = ["alice@hospital.example"]
"""


@pytest.fixture(autouse=True)
def _shared_secret(monkeypatch):
    """Sign-in makes a deployment shared: its ledger's secret comes from the environment, not the data folder."""
    from conftest import SHARED_SECRET

    monkeypatch.setenv("DPCORE_LEDGER_SECRET", SHARED_SECRET.hex())


def write_config(text: str) -> None:
    """The deployment's TOML file, where the ledger reads it (the test's private DPCORE_DATA_DIR)."""
    data_dir = Path(os.environ["DPCORE_DATA_DIR"])
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "dpcore.toml").write_text(text)


def signed_in(email: str, name: str) -> dict:
    return {"is_logged_in": True, "iss": ISSUER, "sub": f"sub-{email}", "email": email, "email_verified": True,
            "name": name}


def app(*, auth: bool = True, user: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if auth:
        at.secrets["auth"] = AUTH
    at.user = user if user is not None else {"is_logged_in": False}
    return at


def sidebar_text(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.sidebar.markdown, *at.sidebar.caption])


def identity_script():
    import streamlit as st

    from ui.identity import current_person

    st.session_state["person"] = current_person()


def person_for(user: dict, *, auth: bool = True):
    at = AppTest.from_function(identity_script, default_timeout=30)
    if auth:
        at.secrets["auth"] = AUTH
    at.user = user
    at.run()
    assert not at.exception
    return at.session_state["person"]


def test_the_embedded_default_is_the_one_local_custodian_without_any_sign_in():
    from ui.identity import Person

    assert person_for({"email": "test@example.com"}, auth=False) == Person(
        "local", "Local custodian", "custodian", "local", ("local",))
    at = app(auth=False).run()
    assert not at.exception and at.title[0].value.startswith("Privacy–utility trade-offs")
    assert "Account" not in sidebar_text(at) and not [b for b in at.sidebar.button if "Sign" in b.label]


def test_a_signed_out_visitor_sees_the_teaching_pages_and_a_sign_in_button():
    at = app().run()
    assert not at.exception and at.title[0].value.startswith("Privacy–utility trade-offs")
    text = sidebar_text(at)
    assert "Not signed in" in text and "Visitor: bundled data and teaching only" in text
    assert [b.label for b in at.sidebar.button] == ["Sign in"]
    assert person_for({"is_logged_in": False}).role == "visitor"


def test_signed_in_people_see_their_name_and_role_as_plain_text():
    write_config(ACCESS)
    at = app(user=signed_in("alice@hospital.example", "Alice *Ames* [x](y)")).run()
    assert not at.exception
    text = sidebar_text(at)
    assert r"Alice \*Ames\* \[x\]\(y\)" in text and "Custodian: uploads, releases and caps" in text
    assert [b.label for b in at.sidebar.button] == ["Sign out"]
    rita = app(user=signed_in("rita@hospital.example", "Rita")).run()
    assert "Reviewer: reads the ledger and reports granted to you" in sidebar_text(rita)
    eve = app(user=signed_in("eve@hospital.example", "Eve")).run()
    assert "Visitor" in sidebar_text(eve) and "eve" in sidebar_text(eve)  # her id, to ask for a role
    assert person_for(signed_in("alice@hospital.example", "Alice")).scope == "alice@hospital.example"
    write_config(ACCESS + '[access.groups.oncology]\nmembers = ["carol@hospital.example"]\n')
    carol = app(user=signed_in("carol@hospital.example", "Carol")).run()
    assert "Custodian: uploads, releases and caps of the data sets of group oncology" in sidebar_text(carol)


def test_a_deployment_without_visitors_shows_them_nothing_but_the_sign_in_panel():
    write_config(ACCESS.replace("[access]\n", "[access]\nallow_visitors = false\n"))
    for user, message in [({"is_logged_in": False}, "sign in (sidebar) to continue"),
                          (signed_in("eve@hospital.example", "Eve"), "no role here")]:
        at = app(user=user).run()
        assert not at.exception and not at.title  # the page did not run
        assert message in at.info[0].value
    at = app(user=signed_in("alice@hospital.example", "Alice")).run()
    assert at.title[0].value.startswith("Privacy–utility trade-offs")


@pytest.mark.parametrize("auth, config, problem", [
    (False, ACCESS, "sign-in is not configured"),
    (True, ACCESS.replace('"email"', '"mail"'), "identify_by must be one of"),
    (True, "[access\n", "access configuration"),
])
def test_a_mistake_in_the_access_configuration_stops_every_page(auth, config, problem):
    write_config(config)
    at = app(auth=auth, user=signed_in("alice@hospital.example", "Alice")).run()
    assert not at.exception and not at.title
    assert problem in at.error[0].value.replace("\\", "")  # shown escaped, as typed
    assert person_for(signed_in("alice@hospital.example", "Alice"), auth=auth).role == "visitor"


def test_signing_out_keeps_nothing_of_the_previous_identity():
    write_config(ACCESS)
    at = app(user=signed_in("alice@hospital.example", "Alice")).run()
    at.session_state["_dp_releases"] = ["alice's release"]
    at.sidebar.button[0].click().run()
    assert not at.exception
    assert at.user == {"is_logged_in": False}
    assert "_dp_releases" not in at.session_state
    at.run()  # the browser comes back signed out
    assert [b.label for b in at.sidebar.button] == ["Sign in"]


def test_a_changed_identity_in_a_running_session_drops_its_state():
    write_config(ACCESS)
    at = app(user=signed_in("alice@hospital.example", "Alice")).run()
    at.session_state["_dp_releases"] = ["alice's release"]
    at.run()
    assert "_dp_releases" in at.session_state  # the same person keeps their session
    at.user = signed_in("rita@hospital.example", "Rita")
    at.run()
    assert not at.exception and "_dp_releases" not in at.session_state


def test_a_named_provider_gets_its_own_sign_in_button():
    at = app()
    provider = {key: AUTH[key] for key in ("client_id", "client_secret", "server_metadata_url")}
    at.secrets["auth"] = {"redirect_uri": AUTH["redirect_uri"], "cookie_secret": AUTH["cookie_secret"],
                          "hospital": provider}
    at.run()
    assert not at.exception and [b.label for b in at.sidebar.button] == ["Sign in with hospital"]


def test_a_reviewer_granted_on_the_ledger_page_is_a_reviewer_even_without_visitors():
    """A grant stored in the ledger makes its reviewer a reviewer, as a configured one — shown as one,
    reading the granting custodian's ledger, and let in where the deployment admits no visitors."""
    from dpcore.ledger.config import LedgerConfig, open_ledger
    from ui.state import DEFAULT_DATA_DIR

    write_config(ACCESS.replace("[access]\n", "[access]\nallow_visitors = false\n"))
    ledger = open_ledger(LedgerConfig.from_env(DEFAULT_DATA_DIR))
    vera = signed_in("vera@hospital.example", "Vera")
    assert person_for(vera).role == "visitor"  # before the grant: no role
    ledger.grant_review("alice@hospital.example", "vera@hospital.example", actor="alice@hospital.example")
    person = person_for(vera)
    assert (person.role, person.reviews) == ("reviewer", ("alice@hospital.example",))
    at = app(user=vera).run()
    assert not at.exception and at.title[0].value.startswith("Privacy–utility trade-offs")  # let in
    text = sidebar_text(at)
    assert "Reviewer: reads the ledger and reports granted to you" in text and "Visitor" not in text
    assert "sign in" not in " ".join(i.value for i in at.info).lower()


def test_visitors_are_told_what_they_can_actually_do():
    """The embedded default has no sign-in, so a remote visitor is not told to sign in; a signed-in
    person without a role is told to ask for one."""

    def script():
        import streamlit as st

        from ui.identity import how_to_become

        st.session_state["advice"] = how_to_become("a custodian")

    bare = AppTest.from_function(script, default_timeout=30).run()
    assert "no sign-in" in bare.session_state["advice"] and "sign in (sidebar)" not in bare.session_state["advice"]
    eve = AppTest.from_function(script, default_timeout=30)
    eve.secrets["auth"] = AUTH
    eve.user = signed_in("eve@hospital.example", "Eve")
    assert "no role here" in eve.run().session_state["advice"]
    out = AppTest.from_function(script, default_timeout=30)
    out.secrets["auth"] = AUTH
    out.user = {"is_logged_in": False}
    assert "sign in (sidebar)" in out.run().session_state["advice"]

"""Who this session acts for: the embedded default's local custodian, or a person signed in with OpenID Connect.

Sign-in is configured by the ``[auth]`` section of Streamlit's secrets (``.streamlit/secrets.toml``; see
``.streamlit/secrets.toml.example``) and roles by the ``[access]`` table of the deployment's TOML file
(:mod:`dpcore.access`). Without ``[auth]`` nobody signs in and every session is the one local custodian.
Mistakes fail closed: an ``[access]`` table without ``[auth]``, or one that does not parse, stops every page
with a message for the administrator.
"""

from __future__ import annotations

import ipaddress

import streamlit as st

from dpcore.access import (
    CUSTODIAN,
    GROUP_PREFIX,
    LOCAL,
    REVIEWER,
    SIGNED_OUT,
    VISITOR,
    AccessConfig,
    Person,
    config_path,
)
from ui.layout import literal
from ui.state import DEFAULT_DATA_DIR, get_ledger

__all__ = ["Person", "account_panel", "current_person", "sign_in_configured"]

#: the identity this session's state belongs to; when it changes, the state is dropped
_IDENTITY = "_dp_identity"
_ROLE_TEXT = {
    CUSTODIAN: "Custodian: uploads, releases and caps of your own data sets",
    REVIEWER: "Reviewer: reads the ledger and reports granted to you; no releases",
    VISITOR: "Visitor: bundled data and teaching only",
}


def sign_in_configured() -> bool:
    """True when Streamlit's ``[auth]`` secrets are configured (a shared deployment with sign-in)."""
    try:
        return bool(st.secrets.get("auth"))
    except FileNotFoundError:  # no secrets file at all: the embedded default
        return False


@st.cache_resource(show_spinner=False, max_entries=4)
def _access_table(text: str) -> AccessConfig:
    """The parsed ``[access]`` table of the file's current text (an edit takes effect at once; errors are not
    cached)."""
    return AccessConfig.from_text(text)


def _access() -> AccessConfig:
    path = config_path(DEFAULT_DATA_DIR)
    return _access_table(path.read_text(encoding="utf-8") if path.is_file() else "")


def _on_this_machine() -> bool:
    """Whether the browser connects from this machine: the embedded default's one local custodian. Another
    machine reaching a server without sign-in (started with ``--server.address 0.0.0.0``) is a visitor, so that
    nobody but the person at this machine can upload or see its ledger (a proxy on this machine must configure
    sign-in instead: its visitors all look local)."""
    return is_local_address(st.context.ip_address)


def is_local_address(address: str | None) -> bool:
    """A loopback address, or none at all (Streamlit gives none for localhost; AppTest gives a stand-in object)."""
    if not isinstance(address, str):
        return True
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _resolve() -> tuple[Person, str]:
    """The session's person, and what is wrong with the deployment's access configuration ("" if nothing)."""
    try:
        access = _access()
    except (ValueError, TypeError, OSError) as err:  # TOMLDecodeError is a ValueError
        return SIGNED_OUT, f"The access configuration ([access] in {config_path(DEFAULT_DATA_DIR).name}): {err}"
    if not sign_in_configured():
        if access.present:
            return SIGNED_OUT, ("The configuration has an [access] table but sign-in is not configured "
                                "(no [auth] secrets): nobody can be told apart, so nothing is shown.")
        return (LOCAL if _on_this_machine() else SIGNED_OUT), ""
    user = st.user.to_dict()
    if not user.get("is_logged_in"):
        return SIGNED_OUT, ""
    person = access.person(user)
    if person.role == VISITOR and person.id:  # a reviewer granted on the Ledger page is a reviewer, as a configured one
        granted = get_ledger().reviewed_scopes(person.id)
        if granted:
            return Person(person.id, person.name, REVIEWER, "", granted), ""
    return person, ""


def how_to_become(what: str) -> str:
    """What a visitor can do to get ``what`` (e.g. "a custodian"), told truthfully: the embedded default has no
    sign-in (only the person at the server's machine is its custodian); a signed-in person without a role needs one
    from the administrator; a signed-out person can sign in."""
    if not sign_in_configured():
        return (f"this server has no sign-in and makes only the person at its own machine {what}: open it there, "
                "or ask for a shared deployment with sign-in")
    if st.user.to_dict().get("is_logged_in"):
        return f"your account has no role here: ask the deployment's administrator to make you {what} (your id is " \
               "in the sidebar)"
    return f"sign in (sidebar) as {what}"


def current_person() -> Person:
    """Who this session acts for. A change of identity (sign-out, a changed grant) drops this session's state:
    releases, uploads, notes and the current data set of the previous identity are not kept."""
    person, _ = _resolve()
    identity = (person.id, person.role, person.scope, person.reviews)
    if st.session_state.get(_IDENTITY, identity) != identity:
        st.session_state.clear()
    st.session_state[_IDENTITY] = identity
    return person


def _providers() -> list[str | None]:
    """The ``[auth]`` providers to offer: the unnamed default, or each named ``[auth.<name>]`` section."""
    auth = st.secrets.get("auth", {})
    if "client_id" in auth:
        return [None]
    return [name for name, section in auth.items() if hasattr(section, "get") and "client_id" in section]


def account_panel() -> None:
    """Sidebar: who is signed in and their role, Sign in / Sign out (only when sign-in is configured).

    Where the deployment admits no visitors, or its access configuration has a problem, the main area says so
    and the page stops here. Call it before ``navigation.run()``, outside any ``with st.sidebar`` block.
    """
    person, problem = _resolve()
    if problem:
        st.error(literal(problem), icon=":material/gpp_bad:")
        st.stop()
    if not sign_in_configured():
        return
    current_person()  # drops the state of a previous identity
    signed_in = bool(st.user.to_dict().get("is_logged_in"))
    with st.sidebar:
        st.markdown("**Account**")
        role = _ROLE_TEXT[person.role]
        if person.scope.startswith(GROUP_PREFIX):  # a group's members share its data sets and budgets
            group = person.scope.removeprefix(GROUP_PREFIX)
            role = role.replace("your own data sets", f"the data sets of group {literal(group)}")
        st.caption(f"{literal(person.name)}  \n{role}")
        if person.id:
            st.caption(f"Your id: {literal(person.id)}")
        if signed_in:
            if st.button("Sign out", icon=":material/logout:", key="_dp_sign_out"):
                st.session_state.clear()
                st.logout()
                st.stop()  # the browser is sent to sign out (a rerun here would cancel that)
        else:
            for provider in _providers():
                label = "Sign in" if provider is None else f"Sign in with {literal(provider)}"
                if st.button(label, icon=":material/login:", key=f"_dp_sign_in_{provider}"):
                    st.login(provider)
    if person.role == VISITOR and not _access().allow_visitors:
        st.info("This deployment is for its custodians and reviewers: sign in (sidebar) to continue."
                if not signed_in else "Your account has no role here: ask the deployment's administrator for "
                "one, and send them your id (sidebar).", icon=":material/lock:")
        st.stop()

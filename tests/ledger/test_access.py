"""The ``[access]`` table: who is a custodian, reviewer or visitor, and which budget scope each acts for."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcore import access
from dpcore.access import CUSTODIAN, REVIEWER, VISITOR, AccessConfig, Person

ISSUER = "https://login.hospital.example/v2.0"
HOSPITAL = tomllib.loads("""
[access]
identify_by = "email"
custodians = ["Alice@Hospital.example", "bob@hospital.example"]
[access.groups.oncology]
members = ["carol@hospital.example", "dave@hospital.example"]
[access.reviewers]
"rita@hospital.example" = ["alice@hospital.example", "group:oncology"]
""")["access"]


def claims(email: str, **extra) -> dict:
    """An ID token's claims for ``email``, verified by the provider unless ``extra`` says otherwise."""
    return {"iss": ISSUER, "sub": f"sub-{email}", "email": email, "email_verified": True,
            "name": email.split("@")[0].title(), **extra}


def test_custodians_own_their_scope_and_group_members_share_the_group_scope():
    config = AccessConfig.from_table(HOSPITAL)
    alice = config.person(claims("alice@hospital.example"))
    assert alice == Person("alice@hospital.example", "Alice", CUSTODIAN, "alice@hospital.example",
                           ("alice@hospital.example",))
    assert config.person(claims("bob@hospital.example")).scope == "bob@hospital.example"
    carol, dave = (config.person(claims(f"{n}@hospital.example")) for n in ("carol", "dave"))
    assert carol.scope == dave.scope == "group:oncology"
    assert carol.role == dave.role == CUSTODIAN and carol.reviews == ("group:oncology",)


def test_reviewers_read_what_is_granted_and_spend_nothing():
    rita = AccessConfig.from_table(HOSPITAL).person(claims("rita@hospital.example"))
    assert (rita.role, rita.scope, rita.reviews) == (REVIEWER, "", ("alice@hospital.example", "group:oncology"))


def test_unknown_people_are_visitors_unless_the_table_makes_everyone_a_custodian():
    config = AccessConfig.from_table(HOSPITAL)
    eve = config.person(claims("eve@hospital.example"))
    assert (eve.id, eve.role, eve.scope, eve.reviews) == ("eve@hospital.example", VISITOR, "", ())
    open_config = AccessConfig.from_table({**HOSPITAL, "signed_in_role": "custodian"})
    eve = open_config.person(claims("eve@hospital.example"))
    assert (eve.role, eve.scope) == (CUSTODIAN, "eve@hospital.example")
    assert open_config.person(claims("rita@hospital.example")).role == REVIEWER  # a named role still wins


def test_an_unverified_email_identifies_nobody():
    config = AccessConfig.from_table(HOSPITAL)
    mallory = config.person(claims("alice@hospital.example", email_verified=False))
    assert (mallory.id, mallory.role, mallory.scope) == ("", VISITOR, "")
    assert config.person(claims("alice@hospital.example", email_verified=True)).role == CUSTODIAN
    assert config.person({"iss": ISSUER, "sub": "x", "email": "group:oncology", "email_verified": True}).role == VISITOR


@pytest.mark.parametrize("verified", ["missing", False, None, "true", "True", 1, "yes", [True]])
def test_an_email_identifies_someone_only_when_the_token_says_email_verified_true(verified):
    """identify_by = "email" trusts the address only on an explicit JSON true: a token without the claim (a provider
    that does not vouch for addresses), or with false, a string or a number, identifies nobody and gets no role."""
    config = AccessConfig.from_table(HOSPITAL)
    token = claims("alice@hospital.example")
    if verified == "missing":
        del token["email_verified"]
    else:
        token["email_verified"] = verified
    assert config.identify(token) == ""
    assert config.person(token) == Person("", "Alice", VISITOR, "", ())
    token["email_verified"] = True
    assert config.identify(token) == "alice@hospital.example"
    assert config.person(token).role == CUSTODIAN


def test_subject_identity_does_not_depend_on_email_verified():
    """identify_by = "subject" reads the issuer and subject only: an unverified e-mail claim changes nothing."""
    subject_id = f"{ISSUER}#sub-alice@hospital.example"
    config = AccessConfig.from_table({"custodians": [subject_id]})
    for verified in ("missing", False, True):
        token = claims("alice@hospital.example")
        if verified == "missing":
            del token["email_verified"]
        else:
            token["email_verified"] = verified
        assert (config.identify(token), config.person(token).role) == (subject_id, CUSTODIAN)


def test_subject_ids_join_issuer_and_subject():
    alice_id = f"{ISSUER}#00u1alice"
    config = AccessConfig.from_table({"custodians": [alice_id]})
    alice = config.person({"iss": ISSUER, "sub": "00u1alice", "email": "alice@hospital.example"})
    assert (alice.id, alice.role, alice.scope) == (alice_id, CUSTODIAN, alice_id)
    # the same subject from another issuer is someone else
    assert config.person({"iss": "https://elsewhere.example", "sub": "00u1alice"}).role == VISITOR
    assert config.person({"iss": ISSUER}).id == ""


def test_visitors_are_admitted_only_where_the_table_allows():
    closed = AccessConfig.from_table({**HOSPITAL, "allow_visitors": False})
    assert not closed.admits(access.SIGNED_OUT)
    assert not closed.admits(closed.person(claims("eve@hospital.example")))
    assert closed.admits(closed.person(claims("rita@hospital.example")))
    assert AccessConfig.from_table(HOSPITAL).admits(access.SIGNED_OUT)


@pytest.mark.parametrize("table, problem", [
    ({"custodian": []}, "unknown key 'custodian'"),
    ({"signed_in_role": "reviewer"}, "signed_in_role must be one of"),
    ({"allow_visitors": "yes"}, "allow_visitors must be true or false"),
    ({"custodians": ["alice"]}, "not an id of the form"),
    ({"identify_by": "email", "custodians": ["alice"]}, "not an email address"),
    ({"identify_by": "email", "groups": {"a": {"members": ["x@h.example"]}, "b": {"members": ["X@h.example"]}}},
     "in two groups"),
    ({"identify_by": "email", "groups": {"a b": {"members": []}}}, "group name"),
    ({"identify_by": "email", "groups": {"a": {"members": [], "cap": 3}}}, "exactly one key"),
    ({"identify_by": "email", "custodians": ["r@h.example"], "reviewers": {"r@h.example": []}}, "one role"),
    ({"identify_by": "email", "reviewers": {"r@h.example": ["group:nope"]}}, "no group named"),
    ({"identify_by": "email", "groups": {"a": {"members": ["x@h.example"]}},
      "reviewers": {"r@h.example": ["x@h.example"]}}, "grant the group"),
])
def test_mistakes_in_the_table_are_errors_that_name_the_problem(table, problem):
    with pytest.raises((ValueError, TypeError), match=problem):
        AccessConfig.from_table(table)


def test_the_table_is_read_from_the_ledgers_configuration_file(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "dpcore.toml").write_text('[ledger]\ndefault_epsilon_cap = 5.0\n[access]\nallow_visitors = false\n')
    path = access.config_path(data_dir, {})
    assert path == data_dir / "dpcore.toml"
    assert AccessConfig.from_file(path) == AccessConfig(present=True, allow_visitors=False)
    other = tmp_path / "other.toml"
    assert access.config_path(data_dir, {"DPCORE_CONFIG": str(other)}) == other
    assert AccessConfig.from_file(other) == AccessConfig()  # no file: no table
    other.write_text("[ledger]\n")
    assert not AccessConfig.from_file(other).present


EMAILS = st.sampled_from([f"{n}@h.example" for n in ("a", "b", "c", "d", "e", "f")])


@given(custodians=st.lists(EMAILS, unique=True), members=st.lists(EMAILS, unique=True), everyone=st.booleans())
def test_two_people_share_a_scope_only_through_a_group_and_only_custodians_have_one(custodians, members, everyone):
    config = AccessConfig.from_table({
        "identify_by": "email", "custodians": custodians, "groups": {"g": {"members": members}},
        "signed_in_role": "custodian" if everyone else "visitor"})
    people = [config.person(claims(f"{n}@h.example")) for n in ("a", "b", "c", "d", "e", "f")]
    for person in people:
        assert bool(person.scope) == (person.role == CUSTODIAN)
        assert person.reviews == ((person.scope,) if person.scope else ())
        assert person.scope in ("", person.id, "group:g")
        assert (person.scope == "group:g") == (person.id in members)
    scopes = [p.scope for p in people if p.scope and p.scope != "group:g"]
    assert len(scopes) == len(set(scopes))

"""Who may spend and read which budget: the ``[access]`` table of the deployment's TOML configuration.

The embedded default (``make run`` without ``[auth]`` secrets) has no sign-in: the person at this machine (a
loopback connection) is the one local custodian (:data:`LOCAL`), a browser on another machine a visitor, and this
table must be absent. A shared deployment signs people in with Streamlit's
OpenID Connect login (``st.login``); the ``[auth]`` secrets name the identity provider and this table, in the
same file as ``[ledger]`` (``DPCORE_CONFIG``, default ``DPCORE_DATA_DIR/dpcore.toml``), names the roles::

    [access]
    identify_by = "email"        # or "subject" (default): the issuer and subject of the ID token
    allow_visitors = true        # people without a role may open the bundled data and teaching pages
    signed_in_role = "visitor"   # role of a signed-in person the table does not name ("visitor" or "custodian")
    custodians = ["alice@hospital.example"]          # each owns the data sets they upload: their own budget

    [access.groups.oncology]     # custodians sharing one budget, scope "group:oncology"
    members = ["carol@hospital.example", "dave@hospital.example"]

    [access.reviewers]           # read the ledger and reports of the scopes listed; never release or change caps
    "rita@hospital.example" = ["alice@hospital.example", "group:oncology"]
    "olaf@hospital.example" = []  # a reviewer whom custodians grant on the Ledger page (kept in the ledger database)

Roles. A *custodian* uploads data, makes releases, sets caps and reads the history of one budget scope: their
own id, or ``group:<name>`` when a group lists them (a group's members share every data set and budget).
A *reviewer* reads the ledger and reports of the scopes granted to them, here or by a custodian on the Ledger page
(a grant stored in the ledger database, which takes effect for people this table makes reviewers or custodians).
A *visitor* (signed out, or signed in without a role) sees the bundled data and teaching material only; with
``allow_visitors = false`` they see the sign-in panel only.

Identity. With ``identify_by = "subject"`` a person's id is ``<iss>#<sub>`` from the ID token: stable and never
reassigned, but opaque (the sidebar shows each signed-in person their id, to send to the administrator). With
``"email"`` it is the lower-cased ``email`` claim; use it only with a provider that controls the addresses (a
hospital's directory); only a token whose ``email_verified`` claim is present and true identifies anyone (a token
without the claim, or with false or any other value, identifies nobody). A person's id is also their budget scope,
so changing ``identify_by`` or moving a person into a group gives them a fresh scope: their earlier data sets stay
with the old one.

Mistakes fail closed: an unknown key or role, a person in two groups, a person both custodian and reviewer, a
grant of an unknown group or of a group member's own id (grant the group) are errors, and the app shows the
error instead of any page.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CONFIG_FILE = "dpcore.toml"
CUSTODIAN, REVIEWER, VISITOR = "custodian", "reviewer", "visitor"
GROUP_PREFIX = "group:"
_EMAIL = re.compile(r"[^\s:@#]+@[^\s:@#]+")
_GROUP_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_KEYS = {"identify_by", "allow_visitors", "signed_in_role", "custodians", "groups", "reviewers"}


@dataclass(frozen=True)
class Person:
    """Who a session acts for: the role's rights, the budget scope it spends, the scopes it may read."""

    id: str  # "local" (embedded default), "<iss>#<sub>" or an email (signed in), "" (signed out)
    name: str  # display name: plain text, never Markdown
    role: str  # CUSTODIAN | REVIEWER | VISITOR
    scope: str  # the budget a custodian acts for: their id, "group:<name>" or "local"; "" otherwise
    reviews: tuple[str, ...]  # scopes whose ledger and reports this person may read


#: the embedded default's one person: no sign-in, every data set in the "local" scope
LOCAL = Person("local", "Local custodian", CUSTODIAN, "local", ("local",))
#: a signed-out visitor of a deployment with sign-in
SIGNED_OUT = Person("", "Not signed in", VISITOR, "", ())


def config_path(default_dir: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The deployment's TOML file: ``DPCORE_CONFIG``, else ``dpcore.toml`` in the data directory."""
    data_dir = Path(environ.get("DPCORE_DATA_DIR") or default_dir).expanduser()
    return Path(environ.get("DPCORE_CONFIG") or data_dir / CONFIG_FILE).expanduser()


@dataclass(frozen=True)
class AccessConfig:
    """The parsed ``[access]`` table (see the module docstring); ``present`` is False when there is none."""

    present: bool = False
    identify_by: str = "subject"
    allow_visitors: bool = True
    signed_in_role: str = VISITOR
    custodians: frozenset[str] = frozenset()
    groups: Mapping[str, frozenset[str]] = field(default_factory=dict)
    reviewers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_file(cls, path: Path) -> AccessConfig:
        """The ``[access]`` table of ``path`` (absent file: no table)."""
        return cls.from_text(path.read_text(encoding="utf-8")) if path.is_file() else cls()

    @classmethod
    def from_text(cls, text: str) -> AccessConfig:
        """The ``[access]`` table of a TOML document (none: no table)."""
        document = tomllib.loads(text)
        return cls.from_table(document["access"]) if "access" in document else cls()

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> AccessConfig:
        """Validate and parse an ``[access]`` table; a ValueError (TypeError for a value of the wrong type) names
        the first problem."""
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise ValueError(f"[access] has unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
        identify_by = _choice(table, "identify_by", ("subject", "email"))
        signed_in_role = _choice(table, "signed_in_role", (VISITOR, CUSTODIAN))
        allow_visitors = table.get("allow_visitors", True)
        if not isinstance(allow_visitors, bool):
            raise TypeError("[access] allow_visitors must be true or false")
        ids = _Ids(identify_by)
        custodians = frozenset(ids.parse(table.get("custodians", []), "[access] custodians"))
        groups = _groups(table.get("groups", {}), ids)
        reviewers = _reviewers(table.get("reviewers", {}), ids, groups, custodians)
        return cls(True, identify_by, allow_visitors, signed_in_role, custodians, groups, reviewers)

    def identify(self, claims: Mapping[str, Any]) -> str:
        """A signed-in person's id from their ID token's claims ("" when the claims identify nobody)."""
        if self.identify_by == "email":
            email = str(claims.get("email") or "").strip().lower()
            # only a provider's explicit JSON true vouches for the address: a missing claim, false, "true" or 1 do not
            if claims.get("email_verified") is not True or not _EMAIL.fullmatch(email):
                return ""
            return email
        issuer, subject = str(claims.get("iss") or ""), str(claims.get("sub") or "")
        return f"{issuer}#{subject}" if issuer and subject else ""

    def person(self, claims: Mapping[str, Any]) -> Person:
        """The signed-in person the claims describe, with the role and scopes this table gives them."""
        person_id = self.identify(claims)
        name = str(claims.get("name") or claims.get("preferred_username") or claims.get("email") or person_id
                   or "Unidentified")
        if not person_id:
            return Person("", name, VISITOR, "", ())
        group = next((g for g, members in self.groups.items() if person_id in members), None)
        if group is not None:
            scope = GROUP_PREFIX + group
            return Person(person_id, name, CUSTODIAN, scope, (scope,))
        if person_id in self.reviewers:
            return Person(person_id, name, REVIEWER, "", self.reviewers[person_id])
        if person_id in self.custodians or self.signed_in_role == CUSTODIAN:
            return Person(person_id, name, CUSTODIAN, person_id, (person_id,))
        return Person(person_id, name, VISITOR, "", ())

    def admits(self, person: Person) -> bool:
        """Whether ``person`` may open the pages at all (visitors only where the deployment allows them)."""
        return person.role != VISITOR or self.allow_visitors


def _choice(table: Mapping[str, Any], key: str, options: tuple[str, ...]) -> str:
    value = table.get(key, options[0])
    if value not in options:
        raise ValueError(f"[access] {key} must be one of {', '.join(repr(o) for o in options)}, not {value!r}")
    return value


@dataclass(frozen=True)
class _Ids:
    """Checks that the ids the table names have the form ``identify_by`` gives signed-in people."""

    identify_by: str

    def parse(self, values: Any, where: str) -> list[str]:
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ValueError(f"{where} must be a list of strings")
        return [self.check(value, where) for value in values]

    def check(self, value: str, where: str) -> str:
        if self.identify_by == "email":
            if not _EMAIL.fullmatch(value.strip()):
                raise ValueError(f"{where}: {value!r} is not an email address (identify_by = \"email\")")
            return value.strip().lower()
        issuer, hash_sign, subject = value.partition("#")
        if not (issuer and hash_sign and subject):
            raise ValueError(f"{where}: {value!r} is not an id of the form \"<issuer>#<subject>\" "
                             "(identify_by = \"subject\"; the sidebar shows a signed-in person their id)")
        return value


def _groups(table: Any, ids: _Ids) -> dict[str, frozenset[str]]:
    if not isinstance(table, Mapping):
        raise TypeError("[access.groups] must be a table of groups")
    groups: dict[str, frozenset[str]] = {}
    seen: dict[str, str] = {}
    for name, group in table.items():
        if not _GROUP_NAME.fullmatch(name):
            raise ValueError(f"[access.groups] {name!r}: a group name uses letters, digits, '_', '.' and '-' only")
        if not isinstance(group, Mapping) or set(group) != {"members"}:
            raise ValueError(f"[access.groups.{name}] must have exactly one key, members")
        members = ids.parse(group["members"], f"[access.groups.{name}] members")
        for member in members:
            if member in seen:
                raise ValueError(f"{member!r} is in two groups ({seen[member]}, {name}): one person, one budget")
            seen[member] = name
        groups[name] = frozenset(members)
    return groups


def _reviewers(table: Any, ids: _Ids, groups: Mapping[str, frozenset[str]],
               custodians: frozenset[str]) -> dict[str, tuple[str, ...]]:
    if not isinstance(table, Mapping):
        raise TypeError("[access.reviewers] must be a table: reviewer id = [scopes they read]")
    in_group = {member: name for name, members in groups.items() for member in members}
    reviewers: dict[str, tuple[str, ...]] = {}
    for raw_id, scopes in table.items():
        reviewer = ids.check(raw_id, "[access.reviewers]")
        if reviewer in custodians or reviewer in in_group:
            raise ValueError(f"{reviewer!r} is both a custodian and a reviewer: give them one role")
        if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
            raise ValueError(f"[access.reviewers] {raw_id!r} must be a list of scopes")
        granted = []
        for scope in scopes:
            if scope.startswith(GROUP_PREFIX):
                if scope[len(GROUP_PREFIX):] not in groups:
                    raise ValueError(f"[access.reviewers] {raw_id!r}: no group named {scope!r}")
            else:
                scope = ids.check(scope, f"[access.reviewers] {raw_id!r}")
                if scope in in_group:
                    raise ValueError(f"[access.reviewers] {raw_id!r}: {scope!r} acts for "
                                     f"group:{in_group[scope]}; grant the group")
            granted.append(scope)
        reviewers[reviewer] = tuple(dict.fromkeys(granted))
    return reviewers

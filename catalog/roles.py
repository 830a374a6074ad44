"""Roles and privileges: who may log in, who owns what, who may do what.

As in PostgreSQL:

* a role owns what it creates; the owner has every privilege on it and is
  the only one (with superusers) who may alter, drop or GRANT on it;
* superusers pass every privilege check;
* an object's ACL is ``None`` until the first GRANT or REVOKE: the owner has
  every privilege and, for procedures, PUBLIC may EXECUTE;
* privileges are the letters of ``aclitem``: r SELECT, a INSERT, w UPDATE,
  d DELETE, D TRUNCATE, X EXECUTE.

Roles are named, not numbered, in owners and ACLs; ``ALTER ROLE ... RENAME``
rewrites them (``Catalog.with_role_renamed``). Pure data, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from catalog import errors

BOOTSTRAP_SUPERUSER_OID: Final = 10
DATABASE_OWNER_OID: Final = 6171
BOOTSTRAP_SUPERUSER: Final = "postgres"
DATABASE_OWNER: Final = "pg_database_owner"
PUBLIC_GRANTEE: Final = ""
"""How an ACL names PUBLIC (every role), as ``aclitem`` prints it."""

TABLE_PRIVILEGES: Final = {"SELECT": "r", "INSERT": "a", "UPDATE": "w", "DELETE": "d",
                           "TRUNCATE": "D"}
PROCEDURE_PRIVILEGES: Final = {"EXECUTE": "X"}
PRIVILEGE_NAMES: Final = {letter: name for names in (TABLE_PRIVILEGES, PROCEDURE_PRIVILEGES)
                          for name, letter in names.items()}
_LETTER_ORDER: Final = "arwdDX"

Acl = tuple[tuple[str, str], ...]
"""(grantee role name, or PUBLIC_GRANTEE; privilege letters) pairs."""


@dataclass(frozen=True, slots=True)
class Role:
    """A row of pg_authid."""

    oid: int
    name: str
    superuser: bool = False
    login: bool = False
    createrole: bool = False
    createdb: bool = False
    password: str | None = None
    """The stored verifier, never the password: ``SCRAM-SHA-256$...`` or
    ``md5...`` (PostgreSQL's rolpassword forms)."""
    connection_limit: int = -1


SYSTEM_ROLES: Final = (
    Role(BOOTSTRAP_SUPERUSER_OID, BOOTSTRAP_SUPERUSER, superuser=True, login=True,
         createrole=True, createdb=True),
    Role(DATABASE_OWNER_OID, DATABASE_OWNER),
)
"""The roles every catalog starts with: the bootstrap superuser and, as in
PostgreSQL 15, pg_database_owner (the owner of schema public)."""


def default_acl(owner: str, kind: str) -> Acl:
    """What a ``None`` ACL means: the owner may do everything, and PUBLIC may
    execute procedures."""
    if kind == "procedure":
        return ((owner, "X"), (PUBLIC_GRANTEE, "X"))
    return ((owner, "arwdD"),)


def _ordered(letters: str) -> str:
    return "".join(letter for letter in _LETTER_ORDER if letter in letters)


def granted(acl: Acl, grantee: str, letters: str) -> Acl:
    """``acl`` with ``letters`` added for ``grantee``."""
    entries = dict(acl)
    entries[grantee] = _ordered(entries.get(grantee, "") + letters)
    return tuple(entries.items())


def revoked(acl: Acl, grantee: str, letters: str) -> Acl:
    """``acl`` without ``letters`` for ``grantee`` (entries left empty go)."""
    entries = dict(acl)
    remaining = "".join(c for c in entries.get(grantee, "") if c not in letters)
    if remaining:
        entries[grantee] = remaining
    else:
        entries.pop(grantee, None)
    return tuple(entries.items())


def privileges_of(acl: Acl, role: str) -> str:
    """The letters ``role`` holds through its own entry and PUBLIC's."""
    return "".join(letters for grantee, letters in acl
                   if grantee in (role, PUBLIC_GRANTEE))


def acl_items(acl: Acl | None, owner: str) -> list[str] | None:
    """The ACL as pg_class.relacl / pg_proc.proacl print it
    (``alice=r/postgres``, ``=X/postgres`` for PUBLIC); None when default."""
    if acl is None:
        return None
    return [f"{_quoted_role(grantee)}={letters}/{_quoted_role(owner)}"
            for grantee, letters in acl]


def _quoted_role(name: str) -> str:
    if name == "" or (name.replace("_", "a").isalnum() and name == name.lower()):
        return name
    return '"' + name.replace('"', '""') + '"'


def permission_denied(kind: str, name: str) -> errors.InsufficientPrivilege:
    return errors.InsufficientPrivilege(f"permission denied for {kind} {name}")


def must_own(kind: str, name: str) -> errors.InsufficientPrivilege:
    return errors.InsufficientPrivilege(f"must be owner of {kind} {name}")

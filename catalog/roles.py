"""Roles: who may log in, and who is a member of whom.

As in PostgreSQL:

* a role owns what it creates; a role has the privileges of the roles it is
  a member of (every role inherits), ownership included;
* superusers pass every privilege check and are members of every role;
* what each role may do with an object is in the object's ACL
  (``catalog.acl``).

Roles are named, not numbered, in owners, ACLs and memberships; ``ALTER
ROLE ... RENAME`` rewrites them (``Catalog.with_role_renamed``). Pure data,
no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from catalog import errors

BOOTSTRAP_SUPERUSER_OID: Final = 10
DATABASE_OWNER_OID: Final = 6171
BOOTSTRAP_SUPERUSER: Final = "postgres"
DATABASE_OWNER: Final = "pg_database_owner"
CURRENT_USER: Final = "\0CURRENT_USER"
SESSION_USER: Final = "\0SESSION_USER"
"""How a statement names the current or the session user where it could name
a role (CURRENT_ROLE is CURRENT_USER); no role name holds a NUL."""


def dropped_role(oid: int) -> str:
    """What a session calls its own role once it is dropped: a name no
    role can have, so nothing is granted to it."""
    return f"\0{oid}"


def check_role_name(name: str) -> str:
    """``name``, unless it is a ``dropped_role``'s (42704, as PostgreSQL
    fails to find the name of the OID)."""
    if name.startswith("\0"):
        raise errors.UndefinedObject(f"invalid role OID: {name[1:]}")
    return name


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


@dataclass(frozen=True, slots=True)
class Membership:
    """A row of pg_auth_members: ``member`` is a member of ``role`` (and,
    as every role inherits, has its privileges)."""

    role: str
    member: str
    grantor: str
    admin: bool = False
    """WITH ADMIN OPTION: the member may grant and revoke the role."""


def permission_denied(kind: str, name: str) -> errors.InsufficientPrivilege:
    return errors.InsufficientPrivilege(f"permission denied for {kind} {name}")


def must_own(kind: str, name: str) -> errors.InsufficientPrivilege:
    return errors.InsufficientPrivilege(f"must be owner of {kind} {name}")

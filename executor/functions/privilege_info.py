"""What a role may do, asked from SQL: pg_has_role().

Answers come from the catalog of the running statement, for its current
role unless a role is named, exactly as the privilege checks decide.
"""

from __future__ import annotations

import json
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.acl import PUBLIC_GRANTEE, AclItem
from catalog.schema import Catalog
from catalog.sqltypes import BOOL, OID, TEXT, SqlType
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()

_ROLE_PRIVILEGES = {"USAGE": "usage", "MEMBER": "member",
                    "USAGE WITH GRANT OPTION": "admin", "USAGE WITH ADMIN OPTION": "admin",
                    "MEMBER WITH GRANT OPTION": "admin", "MEMBER WITH ADMIN OPTION": "admin"}


def _role(catalog: Catalog, value: Any) -> str | None:
    """A role given by name or OID (None: no role has that OID, as
    PostgreSQL answers NULL then)."""
    if isinstance(value, int):
        return catalog.role_name(value)
    name = str(value)
    if name not in catalog.roles:
        raise errors.UndefinedObject(f'role "{name}" does not exist')
    return name


def _modes(privilege: str) -> set[str]:
    modes = set()
    for part in privilege.split(","):
        mode = _ROLE_PRIVILEGES.get(" ".join(part.upper().split()))
        if mode is None:
            raise errors.InvalidParameterValue(f'unrecognized privilege type: "{part.strip()}"')
        modes.add(mode)
    return modes


@FUNCTIONS.runtime("pg_has_role", BOOL, TEXT, TEXT, TEXT, min_args=2, max_args=3)
def _pg_has_role(runtime: Runtime) -> Function:
    def pg_has_role(*args: Any) -> int | None:
        if any(arg is None for arg in args):
            return None
        context = runtime.context()
        catalog = context.catalog
        *asking, granted, privilege = args
        role = _role(catalog, asking[0]) if asking else context.user
        target = _role(catalog, granted)
        if role is None or target is None:
            return None
        checks = {"usage": catalog.has_privileges_of, "member": catalog.has_privileges_of,
                  "admin": catalog.is_admin_of}
        return int(any(checks[mode](role, target) for mode in _modes(str(privilege))))
    return pg_has_role


_DEFAULT_PRIVILEGES = {"c": ("", ""), "r": ("", "arwdDxt"), "s": ("", "rwU"),
                       "d": ("Tc", "CTc"), "f": ("X", "X"), "l": ("U", "U"), "L": ("", "rw"),
                       "n": ("", "UC"), "t": ("", "C"), "F": ("", "U"), "S": ("", "U"),
                       "T": ("U", "U")}
"""acldefault(): by object type, the privileges of PUBLIC and of the owner."""


@FUNCTIONS.runtime("acldefault", SqlType(t.TYPES[t.ACLITEM].array_oid), SqlType(t.CHAR), OID,
                   min_args=2, max_args=2)
def _acldefault(runtime: Runtime) -> Function:
    """The privileges an object of a kind has before any GRANT or REVOKE."""
    def acldefault(kind: Any, owner: Any) -> str | None:
        if kind is None or owner is None:
            return None
        privileges = _DEFAULT_PRIVILEGES.get(str(kind))
        if privileges is None:
            raise errors.InternalError(f"unrecognized objtype abbreviation: {kind}")
        name = runtime.context().catalog.role_name(int(owner)) or str(owner)
        public, owned = privileges
        items = [AclItem(PUBLIC_GRANTEE, name, public)] if public else []
        items += [AclItem(name, name, owned)] if owned else []
        return json.dumps([item.text() for item in items])
    return acldefault

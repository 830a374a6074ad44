"""GRANT and REVOKE of roles: who is a member of whom (pg_auth_members).

As in PostgreSQL 15: superusers grant any role; roles with CREATEROLE any
role but a superuser; others the roles they hold WITH ADMIN OPTION. Grants
that would make a role a member of itself (through others too) are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog import errors
from catalog.roles import DATABASE_OWNER, Membership, Role
from catalog.schema import Catalog
from executor.ddl.relations import DdlResult


@dataclass(frozen=True, slots=True)
class GrantRoles:
    roles: tuple[str, ...]
    members: tuple[str, ...]
    """Role names (CURRENT_USER and the like already resolved)."""
    revoke: bool = False
    admin: bool = False
    """GRANT: WITH ADMIN OPTION; REVOKE: ADMIN OPTION FOR."""
    grantor: str | None = None
    """GRANTED BY (None: the role running the statement)."""


def _may_grant(catalog: Catalog, acting: str, role: Role) -> None:
    manager = catalog.roles.get(acting)
    if role.superuser:
        if not catalog.is_superuser(acting):
            raise errors.InsufficientPrivilege("must be superuser to alter superusers")
    elif not (manager is not None and manager.createrole) and not catalog.is_admin_of(
            acting, role.name):
        raise errors.InsufficientPrivilege(f'must have admin option on role "{role.name}"')


def apply_membership(spec: GrantRoles, catalog: Catalog, acting: str) -> DdlResult:
    """Apply ``spec`` on behalf of the role ``acting``."""
    for name in (*spec.members, *spec.roles):
        if name not in catalog.roles:
            raise errors.UndefinedObject(f'role "{name}" does not exist')
    grantor = spec.grantor or acting
    notices: list[str] = []
    warnings: list[tuple[str, str]] = []
    for name in spec.roles:
        role = catalog.roles[name]
        _may_grant(catalog, acting, role)
        if name == DATABASE_OWNER and not spec.revoke:
            raise errors.InternalError(f'role "{name}" cannot have explicit members')
        if grantor != acting and not catalog.is_superuser(acting):
            raise errors.InsufficientPrivilege("must be superuser to set grantor")
        for member in spec.members:
            existing = catalog.memberships.get((name, member))
            if spec.revoke:
                if existing is None:
                    warnings.append(("01000", f'role "{member}" is not a member of role '
                                              f'"{name}"'))
                elif spec.admin:
                    catalog = catalog.with_membership(Membership(name, member, existing.grantor))
                else:
                    catalog = catalog.without_membership(name, member)
                continue
            if member == DATABASE_OWNER:
                raise errors.InternalError(f'role "{member}" cannot be a member of any role')
            if member == name or member in catalog.member_of(name):
                raise errors.InvalidGrantOperation(
                    f'role "{name}" is a member of role "{member}"')
            if existing is not None and (existing.admin or not spec.admin):
                notices.append(f'role "{member}" is already a member of role "{name}"')
                continue
            catalog = catalog.with_membership(Membership(name, member, grantor, spec.admin))
    return DdlResult(catalog, "REVOKE ROLE" if spec.revoke else "GRANT ROLE", notices,
                     warnings=warnings)

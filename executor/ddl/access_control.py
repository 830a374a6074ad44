"""CREATE / ALTER / DROP ROLE, and where GRANT and REVOKE go
(``grants``: privileges, ``memberships``): changes of the catalog only.

The rules are PostgreSQL's: superusers may do anything; roles with
CREATEROLE manage the roles that are not superusers; every role may change
its own password. A role that owns objects, or holds or granted privileges,
cannot be dropped; the session user and the current user cannot be renamed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from catalog import errors
from catalog.roles import BOOTSTRAP_SUPERUSER, CURRENT_USER, SESSION_USER, SYSTEM_ROLES, Role
from catalog.schema import Catalog
from executor.ddl.grants import GrantPrivileges, apply_grant
from executor.ddl.memberships import GrantRoles, apply_membership
from executor.ddl.relations import DdlResult

_SYSTEM_ROLE_NAMES = frozenset(r.name for r in SYSTEM_ROLES)


@dataclass(frozen=True, slots=True)
class RoleAttributes:
    """What CREATE/ALTER ROLE sets; None leaves an attribute as it is."""

    superuser: bool | None = None
    login: bool | None = None
    createrole: bool | None = None
    createdb: bool | None = None
    password: str | None = None
    """The password as given; the session stores its verifier instead."""
    set_password: bool = False
    """PASSWORD was given (with ``password`` None: PASSWORD NULL)."""
    connection_limit: int | None = None


@dataclass(frozen=True, slots=True)
class CreateRole:
    name: str
    attributes: RoleAttributes
    in_roles: tuple[str, ...] = ()
    """IN ROLE: the roles it becomes a member of."""
    members: tuple[str, ...] = ()
    """ROLE: the roles that become its members."""
    admins: tuple[str, ...] = ()
    """ADMIN: the roles that become its members WITH ADMIN OPTION."""


@dataclass(frozen=True, slots=True)
class AlterRole:
    name: str
    attributes: RoleAttributes = RoleAttributes()
    rename: str | None = None


@dataclass(frozen=True, slots=True)
class DropRoles:
    names: tuple[str, ...]
    if_exists: bool = False


RoleSpec = CreateRole | AlterRole | DropRoles | GrantPrivileges | GrantRoles
ROLE_SPECS = (CreateRole, AlterRole, DropRoles, GrantPrivileges, GrantRoles)


def with_roles_resolved(spec: RoleSpec, acting: str, session_user: str) -> RoleSpec:
    """``spec`` with CURRENT_USER (CURRENT_ROLE) and SESSION_USER replaced
    by the names of the roles they stand for in the session running it."""
    names = {CURRENT_USER: acting, SESSION_USER: session_user}

    def resolved(specs: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(names.get(name, name) for name in specs)

    if isinstance(spec, AlterRole):
        return replace(spec, name=names.get(spec.name, spec.name))
    if isinstance(spec, GrantRoles | GrantPrivileges):
        grantor = names.get(spec.grantor, spec.grantor) if spec.grantor is not None else None
        if isinstance(spec, GrantRoles):
            return replace(spec, members=resolved(spec.members), grantor=grantor)
        return replace(spec, grantees=resolved(spec.grantees), grantor=grantor)
    return spec


def apply_role(spec: RoleSpec, catalog: Catalog, acting: str, session_user: str) -> DdlResult:
    """Apply ``spec`` (``with_roles_resolved``) on behalf of the role
    ``acting``, in a session of ``session_user``."""
    if isinstance(spec, CreateRole):
        return _create(spec, catalog, acting)
    if isinstance(spec, AlterRole):
        return _alter(spec, catalog, acting, session_user)
    if isinstance(spec, DropRoles):
        return _drop(spec, catalog, acting, session_user)
    if isinstance(spec, GrantRoles):
        return apply_membership(spec, catalog, acting)
    return apply_grant(spec, catalog, acting)


def _check_reserved(name: str) -> None:
    if name in ("public", "none") or name.startswith("pg_"):
        raise errors.ReservedName(f'role name "{name}" is reserved',
                                  detail=None if name in ("public", "none") else
                                  'Role names starting with "pg_" are reserved.')


def _check_new_name(name: str, catalog: Catalog) -> None:
    _check_reserved(name)
    if name in catalog.roles:
        raise errors.DuplicateObject(f'role "{name}" already exists')


def _with_attributes(role: Role, attributes: RoleAttributes) -> Role:
    changes = {key: getattr(attributes, key)
               for key in ("superuser", "login", "createrole", "createdb", "connection_limit")
               if getattr(attributes, key) is not None}
    if attributes.set_password:
        changes["password"] = attributes.password
    return replace(role, **changes)


def _create(spec: CreateRole, catalog: Catalog, acting: str) -> DdlResult:
    manager = catalog.roles.get(acting)
    if manager is None or not (manager.superuser or manager.createrole):
        raise errors.InsufficientPrivilege("permission denied to create role")
    if spec.attributes.superuser and not manager.superuser:
        raise errors.InsufficientPrivilege("must be superuser to create superusers")
    _check_new_name(spec.name, catalog)
    catalog, oid = catalog.allocate_oids()
    role = _with_attributes(Role(oid, spec.name), spec.attributes)
    catalog = catalog.with_role(role)
    notices: list[str] = []
    for grant in (GrantRoles(spec.in_roles, (spec.name,)),
                  GrantRoles((spec.name,), spec.admins, admin=True),
                  GrantRoles((spec.name,), spec.members)):
        if grant.roles and grant.members:
            result = apply_membership(grant, catalog, acting)
            catalog = result.catalog
            notices += result.notices
    return DdlResult(catalog, "CREATE ROLE", notices)


def _existing(catalog: Catalog, name: str) -> Role:
    role = catalog.roles.get(name)
    if role is None:
        raise errors.UndefinedObject(f'role "{name}" does not exist')
    return role


def _may_manage(catalog: Catalog, acting: str, target: Role) -> bool:
    manager = catalog.roles.get(acting)
    if manager is None:
        return False
    return manager.superuser or (manager.createrole and not target.superuser)


def _alter(spec: AlterRole, catalog: Catalog, acting: str, session_user: str) -> DdlResult:
    role = _existing(catalog, spec.name)
    if spec.rename is not None:
        return _rename(role, spec.rename, catalog, acting, session_user)
    attributes = spec.attributes
    only_password = attributes == RoleAttributes(password=attributes.password,
                                                 set_password=attributes.set_password)
    own_password = role.name == acting and only_password
    if not own_password and not _may_manage(catalog, acting, role):
        raise errors.InsufficientPrivilege(f'permission denied to alter role "{role.name}"')
    if attributes.superuser is not None and not catalog.is_superuser(acting):
        raise errors.InsufficientPrivilege("must be superuser to change the superuser attribute")
    if role.name == BOOTSTRAP_SUPERUSER and attributes.superuser is False:
        raise errors.FeatureNotSupported("permission denied: bootstrap user must be superuser")
    return DdlResult(catalog.with_role(_with_attributes(role, attributes)), "ALTER ROLE")


def _rename(role: Role, name: str, catalog: Catalog, acting: str, session_user: str
            ) -> DdlResult:
    """ALTER ROLE ... RENAME TO, checked in PostgreSQL's order. Sessions
    know their roles by OID and go on under the new name."""
    if role.name == session_user:
        raise errors.FeatureNotSupported("session user cannot be renamed")
    if role.name == acting:
        raise errors.FeatureNotSupported("current user cannot be renamed")
    _check_reserved(role.name)
    if role.name == BOOTSTRAP_SUPERUSER:
        raise errors.FeatureNotSupported(f'role "{role.name}" cannot be renamed')
    _check_new_name(name, catalog)
    if role.superuser and not catalog.is_superuser(acting):
        raise errors.InsufficientPrivilege("must be superuser to rename superusers")
    if not _may_manage(catalog, acting, role):
        raise errors.InsufficientPrivilege("permission denied to rename role")
    notices = []
    renamed = replace(role, name=name)
    if role.password is not None and role.password.startswith("md5"):
        renamed = replace(renamed, password=None)  # the MD5 hash is salted with the name
        notices.append("MD5 password cleared because of role rename")
    return DdlResult(catalog.with_role_renamed(role.name, renamed), "ALTER ROLE", notices)


def _drop(spec: DropRoles, catalog: Catalog, acting: str, session_user: str) -> DdlResult:
    notices = []
    for name in spec.names:
        role = catalog.roles.get(name)
        if role is None:
            if not spec.if_exists:
                raise errors.UndefinedObject(f'role "{name}" does not exist')
            notices.append(f'role "{name}" does not exist, skipping')
            continue
        if name == acting:
            raise errors.ObjectInUse("current user cannot be dropped")
        if name == session_user:
            raise errors.ObjectInUse("session user cannot be dropped")
        if name in _SYSTEM_ROLE_NAMES:
            raise errors.DependentObjectsStillExist(
                f'cannot drop role {name} because it is required by the database system')
        if not _may_manage(catalog, acting, role):
            raise errors.InsufficientPrivilege(
                "must be superuser to drop superusers" if role.superuser
                else "permission denied to drop role")
        dependents = catalog.owned_by(name)
        if dependents:
            raise errors.DependentObjectsStillExist(
                f'role "{name}" cannot be dropped because some objects depend on it',
                detail="\n".join(dependents))
        catalog = catalog.without_role(name)
    return DdlResult(catalog, "DROP ROLE", notices)

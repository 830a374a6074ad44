"""CREATE / ALTER / DROP ROLE, GRANT and REVOKE: changes of the catalog only.

The rules are PostgreSQL's: superusers may do anything; roles with
CREATEROLE manage the roles that are not superusers; every role may change
its own password; only an object's owner (or a superuser) grants and revokes
privileges on it. A role that owns objects, or holds privileges, cannot be
dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from catalog import errors
from catalog.dataflow import Procedure
from catalog.roles import (
    BOOTSTRAP_SUPERUSER,
    SYSTEM_ROLES,
    Role,
    default_acl,
    granted,
    permission_denied,
    revoked,
)
from catalog.schema import Catalog, Relation
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


@dataclass(frozen=True, slots=True)
class AlterRole:
    name: str
    attributes: RoleAttributes = RoleAttributes()
    rename: str | None = None


@dataclass(frozen=True, slots=True)
class DropRoles:
    names: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True, slots=True)
class GrantPrivileges:
    kind: str
    """'table' (any relation) or 'procedure'."""
    objects: tuple[tuple[str, str], ...]
    letters: str
    grantees: tuple[str, ...]
    """Role names; '' is PUBLIC."""
    revoke: bool = False


RoleSpec = CreateRole | AlterRole | DropRoles | GrantPrivileges
ROLE_SPECS = (CreateRole, AlterRole, DropRoles, GrantPrivileges)


def apply_role(spec: RoleSpec, catalog: Catalog, acting: str) -> DdlResult:
    """Apply ``spec`` on behalf of the role ``acting``."""
    if isinstance(spec, CreateRole):
        return _create(spec, catalog, acting)
    if isinstance(spec, AlterRole):
        return _alter(spec, catalog, acting)
    if isinstance(spec, DropRoles):
        return _drop(spec, catalog, acting)
    return _grant(spec, catalog, acting)


def _check_new_name(name: str, catalog: Catalog) -> None:
    if name == "public" or name.startswith("pg_"):
        raise errors.ReservedName(f'role name "{name}" is reserved',
                                  detail=None if name == "public" else
                                  'Role names starting with "pg_" are reserved.')
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
    return DdlResult(catalog.with_role(role), "CREATE ROLE")


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


def _alter(spec: AlterRole, catalog: Catalog, acting: str) -> DdlResult:
    role = _existing(catalog, spec.name)
    attributes = spec.attributes
    only_password = attributes == RoleAttributes(password=attributes.password,
                                                 set_password=attributes.set_password)
    own_password = role.name == acting and only_password and spec.rename is None
    if not own_password and not _may_manage(catalog, acting, role):
        raise errors.InsufficientPrivilege(f'permission denied to alter role "{role.name}"')
    if attributes.superuser is not None and not catalog.is_superuser(acting):
        raise errors.InsufficientPrivilege("must be superuser to change the superuser attribute")
    if role.name == BOOTSTRAP_SUPERUSER and attributes.superuser is False:
        raise errors.FeatureNotSupported("permission denied: bootstrap user must be superuser")
    if spec.rename is None:
        return DdlResult(catalog.with_role(_with_attributes(role, attributes)), "ALTER ROLE")
    if role.name in _SYSTEM_ROLE_NAMES:
        raise errors.FeatureNotSupported(f'role "{role.name}" cannot be renamed')
    if role.name == acting:
        raise errors.FeatureNotSupported("current user cannot be renamed")
    _check_new_name(spec.rename, catalog)
    notices = []
    renamed = replace(role, name=spec.rename)
    if role.password is not None and role.password.startswith("md5"):
        renamed = replace(renamed, password=None)  # the MD5 hash is salted with the name
        notices.append("MD5 password cleared because of role rename")
    return DdlResult(catalog.with_role_renamed(role.name, renamed), "ALTER ROLE", notices)


def _drop(spec: DropRoles, catalog: Catalog, acting: str) -> DdlResult:
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


def _grant(spec: GrantPrivileges, catalog: Catalog, acting: str) -> DdlResult:
    for grantee in spec.grantees:
        if grantee:
            _existing(catalog, grantee)
    change = revoked if spec.revoke else granted
    for schema, name in spec.objects:
        target: Procedure | Relation = (catalog.procedures[(schema, name)]
                                        if spec.kind == "procedure"
                                        else catalog.relation(name, schema))
        kind = "procedure" if isinstance(target, Procedure) else target.kind_name
        if acting != target.owner and not catalog.is_superuser(acting):
            raise permission_denied(kind, name)
        acl = target.acl if target.acl is not None else default_acl(target.owner, kind)
        for grantee in spec.grantees:
            acl = change(acl, grantee, spec.letters)
        catalog = (catalog.with_procedure(replace(target, acl=acl))
                   if isinstance(target, Procedure)
                   else catalog.with_relation(replace(target, acl=acl)))
    return DdlResult(catalog, "REVOKE" if spec.revoke else "GRANT")

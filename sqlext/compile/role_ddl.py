"""Role and privilege statements: parse trees to ``executor.ddl.access_control`` specs.

Passwords never reach the catalog or the command log: the session turns
them into verifiers (``password_stored``) before the change is applied, and
logs the statement rewritten with the verifier, which
PostgreSQL accepts in place of a password too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from sqlglot import exp

from catalog import acl as acls
from catalog import errors
from catalog.acl import PRIVILEGE_LETTERS, PUBLIC_GRANTEE
from catalog.roles import CURRENT_USER, SESSION_USER
from catalog.schema import Catalog
from executor.ddl.access_control import (
    AlterRole,
    CreateRole,
    DropRoles,
    GrantPrivileges,
    GrantRoles,
    RoleAttributes,
    RoleSpec,
)
from sqlext.sql import nodes as x
from sqlext.translate.translator import Translator
from wire.auth import ScramVerifier, md5_password_hash

_VERIFIER = re.compile(r"^(SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+"
                       r"|md5[0-9a-f]{32})$")
_FLAGS = ("superuser", "login", "createrole", "createdb")


def compile_role_statement(node: x.RoleDdl, translator: Translator) -> RoleSpec:
    """``node`` as a spec; ``translator`` looks the objects up (as its role)."""
    catalog = translator.catalog
    if isinstance(node, x.CreateRole):
        options = dict(node.args["options"])
        if node.args.get("user"):
            options.setdefault("login", True)
        return CreateRole(node.name, _attributes(options),
                          *(tuple(options.get(key) or ()) for key in ("in_role", "role", "admin")))
    if isinstance(node, x.AlterRole):
        return AlterRole(node.name, _attributes(node.args.get("options") or {}),
                         node.args.get("rename"))
    if isinstance(node, x.DropRole):
        return DropRoles(tuple(node.expressions), bool(node.args.get("exists")))
    if isinstance(node, x.GrantRoles):
        members = _role_specs(node.args["grantees"], catalog)
        return GrantRoles(tuple(node.expressions), members, bool(node.args.get("revoke")),
                          bool(node.args.get("admin")), node.args.get("granted_by"))
    assert isinstance(node, x.GrantPrivileges)
    return _grant(node, translator)


def _attributes(options: dict[str, object]) -> RoleAttributes:
    limit = options.get("connection_limit")
    if isinstance(limit, int) and limit < -1:
        raise errors.InvalidParameterValue(f"invalid connection limit: {limit}")
    password = options.get("password") or None  # '' clears the password, as in PostgreSQL
    return RoleAttributes(
        **{flag: bool(options[flag]) for flag in _FLAGS if flag in options},
        password=str(password) if password is not None else None,
        set_password="password" in options,
        connection_limit=limit if isinstance(limit, int) else None)


_KINDS = {"table": "relation", "procedure": "procedure", "schema": "schema"}


def _role_specs(specs: list[str], catalog: Catalog) -> tuple[str, ...]:
    """Grantees and members: the roles named must exist (42704)."""
    for name in specs:
        if name not in (PUBLIC_GRANTEE, CURRENT_USER, SESSION_USER) and name not in catalog.roles:
            raise errors.UndefinedObject(f'role "{name}" does not exist')
    return tuple(specs)


def _grant(node: x.GrantPrivileges, translator: Translator) -> GrantPrivileges:
    """In PostgreSQL's order: the objects, the grantees, then the privileges."""
    catalog = translator.catalog
    kind = _KINDS[node.args["kind"]]
    if node.args.get("schemas"):
        objects = _in_schemas(kind, node.args["schemas"], catalog)
    elif kind == "schema":
        objects = [(_existing_schema(name, catalog), "") for name in node.expressions]
    else:
        objects = [_grant_object(kind, table, translator) for table in node.expressions]
    grantees = _role_specs(node.args["grantees"], catalog)
    everything = acls.ALL_PRIVILEGES[kind]
    privileges = ""
    for name, named_columns in node.args["privileges"]:
        if named_columns is not None:
            if kind != "relation":
                raise errors.InvalidGrantOperation(
                    "column privileges are only valid for relations")
            continue
        letters = everything if name == "ALL" else _letter(name)
        # USAGE is a sequence's privilege, refused below for other relations
        if any(c not in everything for c in letters) and not (
                kind == "relation" and letters == "U"):
            raise errors.InvalidGrantOperation(f"invalid privilege type {name} for {kind}")
        privileges += letters
    if "U" in privileges and kind == "relation":
        raise errors.InvalidGrantOperation("invalid privilege type USAGE for table")
    columns: dict[str, str] = {}
    for name, named_columns in node.args["privileges"]:
        on_column = acls.ALL_PRIVILEGES["column"] if name == "ALL" else _letter(name)
        if named_columns is not None and on_column not in acls.ALL_PRIVILEGES["column"]:
            raise errors.InvalidGrantOperation(f"invalid privilege type {name} for column")
        for column in named_columns or ():
            columns[column] = acls.ordered(columns.get(column, "") + on_column)
    return GrantPrivileges(kind, tuple(objects), acls.ordered(privileges), grantees,
                           tuple(columns.items()), bool(node.args.get("revoke")),
                           bool(node.args.get("option")), bool(node.args.get("cascade")),
                           any(name == "ALL" for name, _ in node.args["privileges"]),
                           node.args.get("granted_by"))


def _letter(name: str) -> str:
    letter = PRIVILEGE_LETTERS.get(name)
    if letter is None:
        raise errors.SqlSyntaxError(f'unrecognized privilege type "{name}"')
    return letter


def _existing_schema(name: str, catalog: Catalog) -> str:
    if name not in catalog.schemas:
        raise errors.InvalidSchemaName(f'schema "{name}" does not exist')
    return name


def _in_schemas(kind: str, schemas: Iterable[str], catalog: Catalog) -> list[tuple[str, str]]:
    objects = []
    for schema in schemas:
        _existing_schema(schema, catalog)
        if kind == "procedure":
            objects += sorted(key for key in catalog.procedures if key[0] == schema)
        else:
            objects += sorted((r.schema, r.name) for r in catalog.relations.values()
                              if r.schema == schema and r.kind != "i")
    return objects


def _grant_object(kind: str, table: exp.Table, translator: Translator) -> tuple[str, str]:
    catalog, search_path = translator.catalog, translator.search_path
    translator.check_schema(table)
    schema = table.text("db") or None
    if kind == "procedure":
        procedure = catalog.find_procedure(table.name, schema, search_path)
        if procedure is None:
            raise errors.UndefinedFunction(f"procedure {table.name} does not exist")
        return procedure.schema, procedure.name
    relation = catalog.find_relation(table.name, schema, search_path)
    if relation is None:
        if catalog.find_sequence(table.name, schema, search_path) is not None:
            raise errors.FeatureNotSupported("privileges on sequences are not supported")
        raise errors.UndefinedTable(f'relation "{table.name}" does not exist')
    if relation.kind == "i":
        raise errors.WrongObjectType(f'"{relation.name}" is an index')
    return relation.schema, relation.name


def password_stored(spec: RoleSpec, encryption: str) -> tuple[RoleSpec, str | None]:
    """A role change as it is applied and logged: with its password replaced
    by the verifier to store (``encryption``: the session's
    password_encryption), and the statement to log instead of the one
    received (None: log that one)."""
    stored = _with_verifier(spec, encryption)
    return stored, _logged_sql(stored)


def _with_verifier(spec: RoleSpec, encryption: str) -> RoleSpec:
    if not isinstance(spec, CreateRole | AlterRole):
        return spec
    role_name = spec.name
    password = spec.attributes.password
    if password is None or _VERIFIER.match(password):
        return spec
    verifier = (md5_password_hash(role_name, password) if encryption == "md5"
                else ScramVerifier.from_password(password).text())
    return replace(spec, attributes=replace(spec.attributes, password=verifier))


def _logged_sql(spec: RoleSpec) -> str | None:
    if not isinstance(spec, CreateRole | AlterRole) or not spec.attributes.set_password:
        return None
    attributes = spec.attributes
    options = [("" if value else "NO") + flag.upper() for flag in _FLAGS
               if (value := getattr(attributes, flag)) is not None]
    if attributes.connection_limit is not None:
        options.append(f"CONNECTION LIMIT {attributes.connection_limit}")
    stored = attributes.password
    options.append("PASSWORD NULL" if stored is None else f"PASSWORD '{stored}'")
    if isinstance(spec, CreateRole):
        for keywords, names in (("IN ROLE", spec.in_roles), ("ROLE", spec.members),
                                ("ADMIN", spec.admins)):
            if names:
                options.append(f"{keywords} {', '.join(map(_quoted, names))}")
    verb = "CREATE" if isinstance(spec, CreateRole) else "ALTER"
    return f'{verb} ROLE {_quoted(spec.name)} WITH {" ".join(options)}'


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'

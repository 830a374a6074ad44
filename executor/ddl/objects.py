"""Changes to existing objects of any kind, as pg_dump's output makes them:
COMMENT ON, ALTER ... OWNER TO, ALTER SEQUENCE ... OWNED BY and ALTER
TABLE ... ADD GENERATED AS IDENTITY.

Each checks PostgreSQL's rules itself (who may make it, what must hold
first) and returns the new catalog; none touches the stored rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from catalog import acl as acls
from catalog import errors
from catalog import types as t
from catalog.roles import CURRENT_USER, SESSION_USER
from catalog.schema import Catalog, Relation, Sequence
from executor.ddl.relations import ColumnSpec, DdlResult, nextval_default, owned_sequence

_RELATION_KINDS = {"table": ("r",), "view": ("v",), "materialized view": ("m",),
                   "index": ("i",)}
"""What COMMENT ON and ALTER ... OWNER TO of a kind accept (ALTER TABLE any relation)."""


@dataclass(frozen=True, slots=True)
class SetComment:
    kind: str
    """table, view, materialized view, index, sequence, column or schema."""
    schema: str | None
    name: str
    column: str | None = None
    text: str | None = None
    """None (or empty): the comment goes."""


@dataclass(frozen=True, slots=True)
class ChangeOwner:
    kind: str
    """table (any relation or sequence), view, materialized view, sequence,
    index or schema."""
    schema: str | None
    name: str
    owner: str
    """A role name, or ``catalog.roles.CURRENT_USER`` / ``SESSION_USER``."""


@dataclass(frozen=True, slots=True)
class SequenceOwnedBy:
    schema: str | None
    name: str
    table: tuple[str | None, str] | None
    """The table whose column owns the sequence (None: OWNED BY NONE)."""
    column: str | None = None


@dataclass(frozen=True, slots=True)
class AddIdentity:
    schema: str | None
    table: str
    column: str
    always: bool
    sequence: str | None = None
    """The sequence's name (None: ``table_column_seq``), in the table's schema."""
    start: int | None = None
    increment: int | None = None


ObjectSpec = SetComment | ChangeOwner | SequenceOwnedBy | AddIdentity
OBJECT_SPECS = (SetComment, ChangeOwner, SequenceOwnedBy, AddIdentity)


def apply_object(spec: ObjectSpec, catalog: Catalog, role: str, session_user: str
                 ) -> DdlResult:
    """Apply ``spec`` as ``role`` (in a session of ``session_user``)."""
    if isinstance(spec, SetComment):
        return _set_comment(spec, catalog, role)
    if isinstance(spec, ChangeOwner):
        owner = {CURRENT_USER: role, SESSION_USER: session_user}.get(spec.owner, spec.owner)
        return _change_owner(spec, owner, catalog, role)
    if isinstance(spec, SequenceOwnedBy):
        return _owned_by(spec, catalog, role)
    return _add_identity(spec, catalog, role)


def _relation(catalog: Catalog, schema: str | None, name: str, kind: str) -> Relation:
    relation = catalog.relation(name, schema)
    kinds = _RELATION_KINDS.get(kind)
    if kinds is not None and relation.kind not in kinds and kind != "table":
        raise errors.WrongObjectType(f'"{name}" is not a {kind}')
    return relation


def _sequence(catalog: Catalog, schema: str | None, name: str) -> Sequence:
    sequence = catalog.find_sequence(name, schema) if schema else None
    if sequence is None:
        if schema is not None and catalog.find_relation(name, schema) is not None:
            raise errors.WrongObjectType(f'"{name}" is not a sequence')
        raise errors.UndefinedTable(f'relation "{name}" does not exist')
    return sequence


def _set_comment(spec: SetComment, catalog: Catalog, role: str) -> DdlResult:
    text = spec.text or None
    if spec.kind == "schema":
        schema = catalog.schemas.get(spec.name)
        if schema is None:
            raise errors.InvalidSchemaName(f'schema "{spec.name}" does not exist')
        catalog.require_owner(role, schema.owner, "schema", spec.name)
        return DdlResult(catalog.with_schema(spec.name, replace(schema, comment=text)),
                         "COMMENT")
    if spec.kind == "sequence":
        sequence = _sequence(catalog, spec.schema, spec.name)
        catalog.require_owner(role, sequence.owner, "sequence", sequence.name)
        return DdlResult(catalog.with_sequence(replace(sequence, comment=text)), "COMMENT")
    relation = _relation(catalog, spec.schema, spec.name,
                         "table" if spec.kind == "column" else spec.kind)
    if spec.kind == "table" and relation.kind != "r":
        raise errors.WrongObjectType(f'"{spec.name}" is not a table')
    catalog.require_owner(role, relation.owner, relation.kind_name, relation.name)
    if spec.column is None:
        return DdlResult(catalog.with_relation(replace(relation, comment=text)), "COMMENT")
    relation.column(spec.column)
    columns = tuple(replace(c, comment=text) if c.name == spec.column else c
                    for c in relation.columns)
    return DdlResult(catalog.with_relation(replace(relation, columns=columns)), "COMMENT")


def _may_give(catalog: Catalog, role: str, owner: str, new_owner: str, kind: str,
              name: str) -> None:
    """ALTER ... OWNER TO: the owner (or a superuser) gives an object to a
    role it is a member of."""
    if catalog.is_superuser(role):
        return
    catalog.require_owner(role, owner, kind, name)
    if not catalog.has_privileges_of(role, new_owner):
        raise errors.InsufficientPrivilege(f'must be able to SET ROLE "{new_owner}"')


def _change_owner(spec: ChangeOwner, owner: str, catalog: Catalog, role: str) -> DdlResult:
    tag = f"ALTER {spec.kind.upper()}"
    if owner not in catalog.roles:
        raise errors.UndefinedObject(f'role "{owner}" does not exist')
    if spec.kind == "schema":
        schema = catalog.schemas.get(spec.name)
        if schema is None:
            raise errors.InvalidSchemaName(f'schema "{spec.name}" does not exist')
        if schema.owner != owner:
            if not catalog.is_superuser(role):
                raise errors.InsufficientPrivilege(
                    "permission denied for database sqlext",
                    hint="Only superusers create, drop and give away schemas.")
            schema = replace(schema, owner=owner,
                             acl=acls.renamed(schema.acl, schema.owner, owner))
            catalog = catalog.with_schema(spec.name, schema)
        return DdlResult(catalog, tag)
    if spec.schema is not None and catalog.find_relation(spec.name, spec.schema) is None and (
            spec.kind in ("table", "sequence")):
        sequence = _sequence(catalog, spec.schema, spec.name)
        if sequence.owner != owner:
            _may_give(catalog, role, sequence.owner, owner, "sequence", sequence.name)
            catalog = catalog.with_sequence(replace(sequence, owner=owner))
        return DdlResult(catalog, tag)
    if spec.kind == "sequence":
        raise errors.WrongObjectType(f'"{spec.name}" is not a sequence')
    relation = _relation(catalog, spec.schema, spec.name, spec.kind)
    if relation.kind == "i":
        return DdlResult(catalog, tag, warnings=[(
            "01000", f'cannot change owner of index "{relation.name}"')])
    if relation.owner == owner:
        return DdlResult(catalog, tag)
    _may_give(catalog, role, relation.owner, owner, relation.kind_name, relation.name)
    if not catalog.is_superuser(role):
        catalog.require_schema(owner, relation.schema, "C")
    given = [replace(relation, owner=owner, acl=acls.renamed(relation.acl, relation.owner, owner))]
    given += [replace(index, owner=owner) for index in catalog.indexes_of(relation)]
    catalog = catalog.with_relations(given)
    for sequence in catalog.sequences.values():
        if sequence.schema == relation.schema and sequence.owned_by is not None and (
                sequence.owned_by[0] == relation.name):
            catalog = catalog.with_sequence(replace(sequence, owner=owner))
    return DdlResult(catalog, tag)


def _owned_by(spec: SequenceOwnedBy, catalog: Catalog, role: str) -> DdlResult:
    sequence = _sequence(catalog, spec.schema, spec.name)
    catalog.require_owner(role, sequence.owner, "sequence", sequence.name)
    if spec.table is None:
        return DdlResult(catalog.with_sequence(replace(sequence, owned_by=None)),
                         "ALTER SEQUENCE")
    table = catalog.relation(spec.table[1], spec.table[0])
    if table.kind not in ("r", "v") or table.stream is not None or table.window is not None:
        raise errors.WrongObjectType(
            f'sequence cannot be owned by relation "{table.name}"',
            detail=f'This operation is not supported for {table.kind_name}s.')
    if table.owner != sequence.owner:
        raise errors.ObjectNotInPrerequisiteState(
            "sequence must have same owner as table it is linked to")
    if table.schema != sequence.schema:
        raise errors.ObjectNotInPrerequisiteState(
            "sequence must be in same schema as table it is linked to")
    column = table.column(spec.column or "")
    return DdlResult(catalog.with_sequence(replace(sequence, owned_by=(table.name, column.name))),
                     "ALTER SEQUENCE")


def _add_identity(spec: AddIdentity, catalog: Catalog, role: str) -> DdlResult:
    table = catalog.relation(spec.table, spec.schema)
    if table.kind != "r" or table.stream is not None or table.window is not None:
        raise errors.WrongObjectType(f'"{table.name}" is not a table')
    catalog.require_owner(role, table.owner, "table", table.name)
    column = table.column(spec.column)
    where = f'column "{column.name}" of relation "{table.name}"'
    if column.type_oid not in (t.INT2, t.INT4, t.INT8):
        raise errors.InvalidParameterValue(
            "identity column type must be smallint, integer, or bigint")
    if column.identity:
        raise errors.ObjectNotInPrerequisiteState(f"{where} is already an identity column")
    if column.default is not None:
        raise errors.ObjectNotInPrerequisiteState(f"{where} already has a default value")
    if not column.not_null:
        raise errors.ObjectNotInPrerequisiteState(
            f"{where} must be declared NOT NULL before identity can be added")
    increment = spec.increment or 1
    start = spec.start if spec.start is not None else (1 if increment > 0 else -1)
    name = spec.sequence or f"{table.name}_{column.name}_seq"
    if catalog.find_relation(name, table.schema) or catalog.find_sequence(name, table.schema):
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    catalog, oid = catalog.allocate_oids()
    sequence = owned_sequence(oid, table.schema, table.name, ColumnSpec(
        column.name, column.type_oid, start=start, increment=increment), name)
    default = nextval_default(sequence)
    columns = tuple(replace(c, default=default, identity="a" if spec.always else "d")
                    if c.name == column.name else c for c in table.columns)
    catalog = catalog.with_relation(replace(table, columns=columns))
    return DdlResult(catalog.with_sequence(replace(sequence, owner=table.owner)), "ALTER TABLE")

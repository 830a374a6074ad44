"""Schema objects and the catalog that holds them.

Everything here is immutable: a DDL statement produces a new ``Catalog``
(copy-on-write of the changed entries). A transaction that changes the schema
works on its own catalog value and publishes it at COMMIT; ROLLBACK simply
forgets it. No I/O happens here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final

from catalog import acl as acls
from catalog import errors
from catalog import types as t
from catalog.acl import PUBLIC_GRANTEE, Acl, AclItem
from catalog.dataflow import Procedure, StreamOptions, Trigger, WindowSpec
from catalog.extension import Extension
from catalog.matviews import Matview
from catalog.pickling import restore_fields
from catalog.roles import (
    BOOTSTRAP_SUPERUSER,
    BOOTSTRAP_SUPERUSER_OID,
    DATABASE_OWNER,
    SYSTEM_ROLES,
    Membership,
    Role,
    must_own,
    permission_denied,
)
from catalog.sqltypes import SqlType

PG_CATALOG: Final = "pg_catalog"
PUBLIC: Final = "public"
INFORMATION_SCHEMA: Final = "information_schema"

FIRST_USER_OID: Final = 16384
"""PostgreSQL's FirstNormalObjectId: user objects get OIDs from here."""

RELKIND_NAMES: Final = {"r": "table", "v": "view", "m": "materialized view", "i": "index",
                        "S": "sequence"}
"""pg_class.relkind as messages name it."""

NAMESPACE_OIDS: Final = {PG_CATALOG: 11, PUBLIC: 2200, INFORMATION_SCHEMA: 13000}


@dataclass(frozen=True, slots=True)
class Schema:
    """A row of pg_namespace (its name is the key it is kept under)."""

    oid: int
    owner: str = BOOTSTRAP_SUPERUSER
    acl: Acl | None = None
    """USAGE and CREATE granted (None: only the owner's, see ``catalog.acl``)."""
    comment: str | None = None
    """COMMENT ON SCHEMA (pg_description)."""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)


def _system_schema(oid: int, owner: str, comment: str | None = None) -> Schema:
    """As initdb makes them: the owner may do everything, anyone may look in."""
    return Schema(oid, owner, (AclItem(owner, owner, "UC"), AclItem(PUBLIC_GRANTEE, owner, "U")),
                  comment)


SYSTEM_SCHEMAS: Final = {
    PG_CATALOG: _system_schema(NAMESPACE_OIDS[PG_CATALOG], BOOTSTRAP_SUPERUSER),
    PUBLIC: _system_schema(NAMESPACE_OIDS[PUBLIC], DATABASE_OWNER, "standard public schema"),
    INFORMATION_SCHEMA: _system_schema(NAMESPACE_OIDS[INFORMATION_SCHEMA], BOOTSTRAP_SUPERUSER),
}
"""The schemas of a fresh PostgreSQL 15 database: public belongs to
pg_database_owner, so only the database owner (and superusers) create in it."""

_VERSIONS: Final = itertools.count(1)
"""Every catalog value gets a version no other value has (plans are cached
by it), even when two transactions change the same committed catalog."""


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type_oid: int
    typmod: int = -1
    not_null: bool = False
    default: str | None = None
    """The default expression as PostgreSQL SQL text (what pg_get_expr shows)."""
    acl: Acl = ()
    """Privileges granted on this column alone (pg_attribute.attacl)."""
    identity: str = ""
    """pg_attribute.attidentity: 'a' GENERATED ALWAYS, 'd' BY DEFAULT AS
    IDENTITY, '' for other columns."""
    comment: str | None = None
    """COMMENT ON COLUMN (pg_description)."""

    @property
    def declared_default(self) -> str | None:
        """The default PostgreSQL shows: an identity column's values come
        from its sequence (``default`` is the nextval() that makes them), it
        has no default."""
        return None if self.identity else self.default

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)


@dataclass(frozen=True, slots=True)
class Constraint:
    name: str
    kind: str
    """pg_constraint.contype: 'p' primary key, 'u' unique, 'c' check, 'f' foreign key."""
    columns: tuple[str, ...] = ()
    check: str | None = None
    """CHECK expression as PostgreSQL SQL text."""
    ref_table: tuple[str, str] | None = None
    """Foreign key target (schema, name)."""
    ref_columns: tuple[str, ...] = ()
    index_name: str | None = None
    """The index enforcing a primary key or unique constraint."""
    oid: int = 0
    on_delete: str | None = None
    on_update: str | None = None
    """Foreign keys: the referential actions (CASCADE, SET NULL...)."""


@dataclass(frozen=True, slots=True)
class ViewRule:
    """The ``_RETURN`` rule of a view or materialized view (pg_rewrite), and
    what its query reads (the rule's pg_depend rows of deptype 'n').

    PostgreSQL binds a view to what it reads by OID: the relations and the
    columns it uses cannot be dropped while it exists (``catalog.dependencies``),
    and renaming them leaves it working."""

    oid: int
    reads: tuple[tuple[int, tuple[str, ...]], ...]
    """(OID of a relation the query reads, the columns of it the query
    uses), in the order the query names them; no columns: the query reads
    the relation as a whole (``count(*)``)."""

    def columns_read(self, oid: int) -> tuple[str, ...] | None:
        """The columns of relation ``oid`` the query uses (None: it does not read it)."""
        return next((columns for read, columns in self.reads if read == oid), None)


@dataclass(frozen=True, slots=True)
class Relation:
    """A table, view, index or sequence (a row of pg_class)."""

    oid: int
    schema: str
    name: str
    kind: str
    """pg_class.relkind: 'r' table, 'v' view, 'm' materialized view, 'i' index,
    'S' sequence."""
    physical: str
    """How the storage engine names it (tables, views and indexes)."""
    columns: tuple[Column, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    definition: str | None = None
    """Views: the SELECT; indexes: the CREATE INDEX statement (without the
    WHERE of a partial index: ``predicate``)."""
    index_table: str | None = None
    """Indexes: the name of the indexed table (same schema)."""
    index_columns: tuple[str, ...] = ()
    unique: bool = False
    primary: bool = False
    owner: str = "postgres"
    stream: StreamOptions | None = None
    """Set for streams (stored like tables, with a hidden batch_id column)."""
    window: WindowSpec | None = None
    """Set for windows (filled from their stream, read-only to clients)."""
    matview: Matview | None = None
    """Set for materialized views: how the view is kept up to date."""
    acl: Acl | None = None
    """Privileges granted (None: only the owner's, see ``catalog.acl``)."""
    rule: ViewRule | None = None
    """Views and materialized views: what the query reads. (None for those
    in snapshots written before dependencies were recorded.)"""
    predicate: str | None = None
    """Partial indexes: the WHERE condition as pg_get_expr prints it (pg_index.indpred)."""
    row_type: int = 0
    """Tables, views, materialized views: the OID of their row type in
    pg_type (its array type's is one less); 0 for those made before row
    types were recorded."""
    comment: str | None = None
    """COMMENT ON TABLE, VIEW, INDEX... (pg_description)."""
    partition_key: str | None = None
    """PARTITION BY HASH (column): the column whose hash places the rows on
    the nodes of a cluster (``catalog.partitioning``)."""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)
        object.__setattr__(self, "acl", acls.upgraded(self.acl, self.owner, "relation"))

    @property
    def kind_name(self) -> str:
        """What messages call it: table, stream, window, view..."""
        if self.window is not None:
            return "window"
        if self.stream is not None:
            return "stream"
        return RELKIND_NAMES.get(self.kind, "relation")

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise errors.UndefinedColumn(
            f'column "{name}" of relation "{self.name}" does not exist'
        )

    def column_number(self, name: str) -> int:
        for number, column in enumerate(self.columns, start=1):
            if column.name == name:
                return number
        return 0

    @property
    def primary_key(self) -> Constraint | None:
        for constraint in self.constraints:
            if constraint.kind == "p":
                return constraint
        return None


SEQUENCE_COLUMNS: Final = (("last_value", SqlType(t.INT8)), ("log_cnt", SqlType(t.INT8)),
                           ("is_called", SqlType(t.BOOL)))
"""The one row a sequence shows when read as a relation."""


@dataclass(frozen=True, slots=True)
class Sequence:
    oid: int
    schema: str
    name: str
    start: int = 1
    increment: int = 1
    owned_by: tuple[str, str] | None = None
    """(table, column) for serial columns: dropped with the table."""
    owner: str = BOOTSTRAP_SUPERUSER
    comment: str | None = None
    """COMMENT ON SEQUENCE (pg_description)."""
    type_oid: int = 0
    """smallint, integer or bigint (0, in older snapshots: see
    ``catalog.introspection.sequence_type``)."""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)


@dataclass(frozen=True, slots=True)
class Catalog:
    """One consistent version of the schema."""

    version: int = 0
    schemas: Mapping[str, Schema] = field(
        default_factory=lambda: MappingProxyType(dict(SYSTEM_SCHEMAS))
    )
    relations: Mapping[tuple[str, str], Relation] = field(
        default_factory=lambda: MappingProxyType({})
    )
    sequences: Mapping[tuple[str, str], Sequence] = field(
        default_factory=lambda: MappingProxyType({})
    )
    procedures: Mapping[tuple[str, str], Procedure] = field(
        default_factory=lambda: MappingProxyType({})
    )
    triggers: Mapping[tuple[str, str], Trigger] = field(
        default_factory=lambda: MappingProxyType({})
    )
    roles: Mapping[str, Role] = field(
        default_factory=lambda: MappingProxyType({r.name: r for r in SYSTEM_ROLES})
    )
    memberships: Mapping[tuple[str, str], Membership] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """(role, member) -> who made ``member`` a member of ``role``."""
    next_oid: int = FIRST_USER_OID
    extension: Extension | None = None
    """The extension sqlext, once the database has a dataflow (``catalog.extension``)."""
    _by_oid: dict[int, Relation] = field(init=False, repr=False, compare=False)
    _roles_by_oid: dict[int, Role] = field(init=False, repr=False, compare=False)
    _member_of: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    """Role -> every role it is a member of, directly or not, nearest first
    (filled as asked)."""
    _triggers_by_target: dict[tuple[str, str], list[Trigger]] = field(
        init=False, repr=False, compare=False)
    _procedures_by_stream: dict[int, tuple[Trigger, ...]] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Indexes for the lookups the dataflow makes on every batch."""
        by_target: dict[tuple[str, str], list[Trigger]] = {}
        for trigger in sorted(self.triggers.values(), key=lambda t: t.name):
            by_target.setdefault(trigger.target, []).append(trigger)
        by_oid = {r.oid: r for r in self.relations.values()}
        by_stream = {
            relation.oid: tuple(t for t in by_target.get(key, ()) if t.procedure)
            for key, relation in self.relations.items() if relation.stream is not None}
        object.__setattr__(self, "_by_oid", by_oid)
        object.__setattr__(self, "_roles_by_oid", {r.oid: r for r in self.roles.values()})
        object.__setattr__(self, "_member_of", {})
        object.__setattr__(self, "_triggers_by_target", by_target)
        object.__setattr__(self, "_procedures_by_stream", by_stream)

    # --- lookups ------------------------------------------------------------

    def find_relation(
        self, name: str, schema: str | None = None, search_path: Iterable[str] = (PUBLIC,)
    ) -> Relation | None:
        if schema is not None:
            if schema not in self.schemas:
                raise errors.InvalidSchemaName(f'schema "{schema}" does not exist')
            return self.relations.get((schema, name))
        for candidate in (PG_CATALOG, *search_path):
            relation = self.relations.get((candidate, name))
            if relation is not None:
                return relation
        return None

    def relation(
        self, name: str, schema: str | None = None, search_path: Iterable[str] = (PUBLIC,)
    ) -> Relation:
        relation = self.find_relation(name, schema, search_path)
        if relation is None:
            shown = f"{schema}.{name}" if schema else name
            raise errors.UndefinedTable(f'relation "{shown}" does not exist')
        return relation

    def relation_by_oid(self, oid: int) -> Relation | None:
        return self._by_oid.get(oid)

    def find_sequence(
        self, name: str, schema: str | None = None, search_path: Iterable[str] = (PUBLIC,)
    ) -> Sequence | None:
        for candidate in (schema,) if schema else search_path:
            sequence = self.sequences.get((candidate, name))
            if sequence is not None:
                return sequence
        return None

    def indexes_of(self, relation: Relation) -> Iterator[Relation]:
        for candidate in self.relations.values():
            if (candidate.kind == "i" and candidate.schema == relation.schema
                    and candidate.index_table == relation.name):
                yield candidate

    def find_procedure(self, name: str, schema: str | None = None,
                       search_path: Iterable[str] = (PUBLIC,)) -> Procedure | None:
        for candidate in (schema,) if schema else search_path:
            procedure = self.procedures.get((candidate, name))
            if procedure is not None:
                return procedure
        return None

    def triggers_on(self, relation: Relation) -> list[Trigger]:
        """Triggers firing on ``relation``, in name order (the order they run)."""
        return list(self._triggers_by_target.get((relation.schema, relation.name), ()))

    def procedure_triggers_on(self, stream_oid: int) -> tuple[Trigger, ...]:
        """The PE triggers on the stream with this OID, in name order: each
        starts one TE of its procedure per batch."""
        return self._procedures_by_stream.get(stream_oid, ())

    def windows_on(self, stream: Relation) -> list[Relation]:
        key = (stream.schema, stream.name)
        return sorted((r for r in self.relations.values()
                       if r.window is not None and r.window.stream == key),
                      key=lambda r: r.name)

    # --- roles and privileges ---------------------------------------------------

    def role_oid(self, name: str) -> int:
        """The OID of a role (of the bootstrap superuser for one since dropped)."""
        role = self.roles.get(name)
        return role.oid if role is not None else BOOTSTRAP_SUPERUSER_OID

    def role_by_oid(self, oid: int) -> Role | None:
        return self._roles_by_oid.get(oid)

    def role_name(self, oid: int) -> str | None:
        role = self._roles_by_oid.get(oid)
        return role.name if role is not None else None

    def is_superuser(self, role: str) -> bool:
        found = self.roles.get(role)
        return found is not None and found.superuser

    def member_of(self, role: str) -> tuple[str, ...]:
        """The roles ``role`` is a member of, directly or through others,
        nearest first (PostgreSQL's ``roles_is_member_of``, without itself)."""
        found = self._member_of.get(role)
        if found is None:
            parents: dict[str, list[str]] = {}
            for granted, member in sorted(self.memberships):
                parents.setdefault(member, []).append(granted)
            reached = [role]
            for current in reached:
                reached.extend(p for p in parents.get(current, ()) if p not in reached)
            found = tuple(reached[1:])
            self._member_of[role] = found
        return found

    def has_privileges_of(self, role: str, other: str) -> bool:
        """Whether ``role`` has the privileges of ``other``: it is ``other``,
        a member of it, or a superuser (``has_privs_of_role``)."""
        return role == other or self.is_superuser(role) or other in self.member_of(role)

    def is_admin_of(self, role: str, granted: str) -> bool:
        """Whether ``role`` may grant and revoke membership in ``granted``:
        a superuser, or a member of it (directly or not) with ADMIN OPTION."""
        if self.is_superuser(role):
            return True
        return any(m.admin for member in (role, *self.member_of(role))
                   if (m := self.memberships.get((granted, member))) is not None)

    def holder(self, role: str) -> acls.Holds:
        return lambda other: self.has_privileges_of(role, other)

    def privileges(self, role: str, acl: Acl | None, kind: str, owner: str
                   ) -> tuple[str, str]:
        """The privileges and grant options ``role`` holds on an object
        (superusers: all of them)."""
        everything = acls.ALL_PRIVILEGES[kind]
        if self.is_superuser(role):
            return everything, everything
        return acls.mask(acls.effective(acl, kind, owner), owner, self.holder(role), everything)

    def holds(self, role: str, owner: str, acl: Acl | None, kind: str, letters: str) -> bool:
        """Whether ``role`` holds every privilege in ``letters`` on an object
        of ``owner`` with ``acl`` (``kind``: see ``catalog.acl.ALL_PRIVILEGES``)."""
        held, _ = self.privileges(role, acl, kind, owner)
        return all(letter in held for letter in letters)

    def column_privileges(self, role: str, relation: Relation, column: Column) -> str:
        """What ``role`` may do with one column, granted on the column alone."""
        return self.privileges(role, column.acl, "column", relation.owner)[0]

    def require(self, role: str, relation: Relation, letters: str) -> None:
        """Raise 42501 unless ``role`` may use ``relation`` that way."""
        if not self.holds(role, relation.owner, relation.acl, "relation", letters):
            raise permission_denied(relation.kind_name, relation.name)

    def require_columns(self, role: str, relation: Relation, letter: str,
                        columns: Iterable[str]) -> None:
        """Raise 42501 unless ``role`` may use ``relation`` that way, or at
        least each of ``columns`` (with none named: any one column), as
        PostgreSQL checks a statement's columns."""
        if not self.holds(role, relation.owner, relation.acl, "relation", letter):
            self._require_on_columns(role, relation, letter, tuple(columns))

    def require_access(self, role: str, relation: Relation, letters: str,
                       columns: Mapping[str, tuple[str, ...]]) -> None:
        """Raise 42501 unless ``role`` holds ``letters`` on ``relation``;
        SELECT, INSERT and UPDATE held on the ``columns`` used do as well."""
        held, _ = self.privileges(role, relation.acl, "relation", relation.owner)
        for letter in letters:
            if letter in held:
                continue
            if letter not in "raw":
                raise permission_denied(relation.kind_name, relation.name)
            self._require_on_columns(role, relation, letter, columns.get(letter, ()))

    def _require_on_columns(self, role: str, relation: Relation, letter: str,
                            columns: tuple[str, ...]) -> None:
        by_name = {column.name: column for column in relation.columns}
        held = [name in by_name and letter in self.column_privileges(role, relation,
                                                                     by_name[name])
                for name in columns] or [letter in self.column_privileges(role, relation, c)
                                         for c in relation.columns]
        if not (all(held) if columns else any(held)):
            raise permission_denied(relation.kind_name, relation.name)

    def require_execute(self, role: str, procedure: Procedure) -> None:
        if not self.holds(role, procedure.owner, procedure.acl, "procedure", "X"):
            raise permission_denied("procedure", procedure.name)

    def require_owner(self, role: str, owner: str, kind: str, name: str) -> None:
        """Raise 42501 unless ``role`` has the owner's privileges."""
        if not self.has_privileges_of(role, owner):
            raise must_own(kind, name)

    def may_use_schema(self, role: str, name: str, letter: str = "U") -> bool:
        """Whether ``role`` has USAGE (or ``letter``: CREATE) on an existing schema."""
        schema = self.schemas[name]
        return self.holds(role, schema.owner, schema.acl, "schema", letter)

    def require_schema(self, role: str, name: str, letter: str = "U") -> None:
        """Raise 42501 unless ``role`` may look up (or create) objects in a schema."""
        if name in self.schemas and not self.may_use_schema(role, name, letter):
            raise permission_denied("schema", name)

    def owned_by(self, role: str) -> list[str]:
        """What depends on ``role`` (objects it owns, privileges it holds or
        granted), as DROP ROLE's detail lists it."""
        found: list[str] = []
        for name, schema in self.schemas.items():
            if schema.owner == role and name not in SYSTEM_SCHEMAS:
                found.append(f"owner of schema {name}")
            elif role in acls.names(schema.acl):
                found.append(f"privileges for schema {name}")
        for relation in self.user_relations():
            if relation.kind == "i":
                continue
            kind = relation.kind_name
            if relation.owner == role:
                found.append(f"owner of {kind} {relation.name}")
                continue
            if role in acls.names(relation.acl):
                found.append(f"privileges for {kind} {relation.name}")
            found.extend(f"privileges for column {column.name} of {kind} {relation.name}"
                         for column in relation.columns if role in acls.names(column.acl))
        for procedure in self.procedures.values():
            if procedure.owner == role:
                found.append(f"owner of procedure {procedure.name}")
            elif role in acls.names(procedure.acl):
                found.append(f"privileges for procedure {procedure.name}")
        return found

    def user_relations(self) -> Iterator[Relation]:
        return (r for r in self.relations.values() if r.schema != PG_CATALOG
                and r.schema != INFORMATION_SCHEMA)

    # --- changes (each returns a new Catalog) ---------------------------------

    def allocate_oids(self, count: int = 1) -> tuple[Catalog, int]:
        """Reserve ``count`` OIDs; returns the new catalog and the first OID."""
        return replace(self, next_oid=self.next_oid + count,
                       version=next(_VERSIONS)), self.next_oid

    def _changed(self, field_name: str, put: Mapping[object, object] = MappingProxyType({}),
                 remove: Iterable[object] = ()) -> Catalog:
        """A copy with entries put into and removed from one of the maps."""
        entries = dict(getattr(self, field_name))
        entries.update(put)
        for key in remove:
            entries.pop(key, None)
        return replace(self, **{field_name: MappingProxyType(entries)},  # type: ignore[arg-type]
                       version=next(_VERSIONS))

    def with_relation(self, relation: Relation) -> Catalog:
        return self.with_relations([relation])

    def with_relations(self, added: Iterable[Relation]) -> Catalog:
        return self._changed("relations", {(r.schema, r.name): r for r in added})

    def without_relation(self, schema: str, name: str) -> Catalog:
        return self._changed("relations", remove=[(schema, name)])

    def with_sequence(self, sequence: Sequence) -> Catalog:
        return self._changed("sequences", {(sequence.schema, sequence.name): sequence})

    def without_sequence(self, schema: str, name: str) -> Catalog:
        return self._changed("sequences", remove=[(schema, name)])

    def with_procedure(self, procedure: Procedure) -> Catalog:
        return self._changed("procedures", {(procedure.schema, procedure.name): procedure})

    def without_procedure(self, schema: str, name: str) -> Catalog:
        return self._changed("procedures", remove=[(schema, name)])

    def with_trigger(self, trigger: Trigger) -> Catalog:
        return self._changed("triggers", {(trigger.schema, trigger.name): trigger})

    def without_trigger(self, schema: str, name: str) -> Catalog:
        return self._changed("triggers", remove=[(schema, name)])

    def without_triggers_on(self, relation: Relation) -> Catalog:
        """``relation`` is dropped: its triggers go with it."""
        return self._changed("triggers", remove=[(t.schema, t.name)
                                                 for t in self.triggers_on(relation)])

    def with_role(self, role: Role) -> Catalog:
        return self._changed("roles", {role.name: role})

    def with_role_renamed(self, old: str, role: Role) -> Catalog:
        """``role`` (formerly ``old``) under its new name, in the role map and
        in every owner, ACL and membership that named it."""
        new = role.name

        def owner(name: str) -> str:
            return new if name == old else name

        def columns(relation: Relation) -> tuple[Column, ...]:
            return tuple(replace(c, acl=acls.renamed(c.acl, old, new) or ())
                         for c in relation.columns)

        def names_it(owned: Relation | Procedure) -> bool:
            return owned.owner == old or old in acls.names(owned.acl) or (
                isinstance(owned, Relation) and any(old in acls.names(c.acl)
                                                    for c in owned.columns))

        relations = [replace(r, owner=owner(r.owner), acl=acls.renamed(r.acl, old, new),
                             columns=columns(r))
                     for r in self.user_relations() if names_it(r)]
        procedures = {key: replace(p, owner=owner(p.owner), acl=acls.renamed(p.acl, old, new))
                      for key, p in self.procedures.items() if names_it(p)}
        schemas = {name: replace(s, owner=owner(s.owner), acl=acls.renamed(s.acl, old, new))
                   for name, s in self.schemas.items()}
        memberships = [replace(m, role=owner(m.role), member=owner(m.member),
                               grantor=owner(m.grantor)) for m in self.memberships.values()]
        renamed = self.with_relations(relations)._changed("procedures", procedures)
        renamed = renamed._changed("schemas", schemas)
        renamed = replace(renamed, memberships=MappingProxyType(
            {(m.role, m.member): m for m in memberships}))
        return renamed._changed("roles", {role.name: role}, remove=[old])

    def without_role(self, name: str) -> Catalog:
        """The role gone, and its memberships with it (nothing else may name
        it; memberships it granted stay, as in PostgreSQL)."""
        kept = {key: m for key, m in self.memberships.items() if name not in (m.role, m.member)}
        return replace(self._changed("roles", remove=[name]),
                       memberships=MappingProxyType(kept))

    def with_membership(self, membership: Membership) -> Catalog:
        return self._changed("memberships", {(membership.role, membership.member): membership})

    def without_membership(self, role: str, member: str) -> Catalog:
        return self._changed("memberships", remove=[(role, member)])

    def with_extension(self, extension: Extension | None) -> Catalog:
        return replace(self, extension=extension, version=next(_VERSIONS))

    def with_schema(self, name: str, schema: Schema) -> Catalog:
        return self._changed("schemas", {name: schema})

    def without_schema(self, name: str) -> Catalog:
        return self._changed("schemas", remove=[name])

    # --- persistence (snapshots) ---------------------------------------------

    def user_objects(self) -> dict[str, object]:
        """Everything DDL made, as plain values (what a snapshot keeps; the
        system relations are built anew at start-up)."""
        return {
            "schemas": dict(self.schemas),
            "relations": list(self.user_relations()),
            "sequences": list(self.sequences.values()),
            "procedures": list(self.procedures.values()),
            "triggers": list(self.triggers.values()),
            "roles": list(self.roles.values()),
            "memberships": list(self.memberships.values()),
            "next_oid": self.next_oid,
            "extension": self.extension,
        }

    def with_user_objects(self, objects: Mapping[str, object]) -> Catalog:
        """This (system-only) catalog plus the objects ``user_objects`` listed."""

        def keyed(name: str) -> MappingProxyType[tuple[str, str], object]:
            values = objects[name]
            assert isinstance(values, list)
            return MappingProxyType({(v.schema, v.name): v for v in values})

        relations = dict(self.relations)
        relations.update(keyed("relations"))
        schemas = objects["schemas"]
        next_oid = objects["next_oid"]
        roles = objects.get("roles", list(self.roles.values()))  # older snapshots have none
        memberships = objects.get("memberships", [])
        assert isinstance(schemas, dict) and isinstance(next_oid, int)
        assert isinstance(roles, list) and isinstance(memberships, list)
        return replace(self, version=next(_VERSIONS), schemas=MappingProxyType(
                           {name: _schema(name, value) for name, value in schemas.items()}),
                       relations=MappingProxyType(relations),
                       sequences=keyed("sequences"),  # type: ignore[arg-type]
                       procedures=keyed("procedures"),  # type: ignore[arg-type]
                       triggers=keyed("triggers"),  # type: ignore[arg-type]
                       roles=MappingProxyType({r.name: r for r in roles}),
                       memberships=MappingProxyType({(m.role, m.member): m for m in memberships}),
                       next_oid=next_oid,
                       extension=objects.get("extension"))  # type: ignore[arg-type]


def _schema(name: str, kept: object) -> Schema:
    """A schema as a snapshot keeps it (older ones kept only its OID)."""
    if isinstance(kept, Schema):
        return kept
    assert isinstance(kept, int)
    return SYSTEM_SCHEMAS.get(name, Schema(kept))

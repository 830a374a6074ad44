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

from catalog import errors
from catalog.dataflow import Procedure, StreamOptions, Trigger, WindowSpec
from catalog.matviews import Matview
from catalog.pickling import restore_fields
from catalog.roles import (
    BOOTSTRAP_SUPERUSER_OID,
    SYSTEM_ROLES,
    Acl,
    Role,
    default_acl,
    must_own,
    permission_denied,
    privileges_of,
)

PG_CATALOG: Final = "pg_catalog"
PUBLIC: Final = "public"
INFORMATION_SCHEMA: Final = "information_schema"

FIRST_USER_OID: Final = 16384
"""PostgreSQL's FirstNormalObjectId: user objects get OIDs from here."""

RELKIND_NAMES: Final = {"r": "table", "v": "view", "m": "materialized view", "i": "index",
                        "S": "sequence"}
"""pg_class.relkind as messages name it."""

NAMESPACE_OIDS: Final = {PG_CATALOG: 11, PUBLIC: 2200, INFORMATION_SCHEMA: 13000}

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
    """Views: the SELECT; indexes: the CREATE INDEX statement."""
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
    """Privileges granted (None: only the owner's, see ``catalog.roles``)."""
    rule: ViewRule | None = None
    """Views and materialized views: what the query reads. (None for those
    in snapshots written before dependencies were recorded.)"""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)

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


@dataclass(frozen=True, slots=True)
class Sequence:
    oid: int
    schema: str
    name: str
    start: int = 1
    increment: int = 1
    owned_by: tuple[str, str] | None = None
    """(table, column) for serial columns: dropped with the table."""


@dataclass(frozen=True, slots=True)
class Catalog:
    """One consistent version of the schema."""

    version: int = 0
    schemas: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType(dict(NAMESPACE_OIDS))
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
    next_oid: int = FIRST_USER_OID
    _by_oid: dict[int, Relation] = field(init=False, repr=False, compare=False)
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

    def role_oid(self, name: str) -> int:
        """The OID of a role (of the bootstrap superuser for one since dropped)."""
        role = self.roles.get(name)
        return role.oid if role is not None else BOOTSTRAP_SUPERUSER_OID

    def role_name(self, oid: int) -> str | None:
        return next((r.name for r in self.roles.values() if r.oid == oid), None)

    def is_superuser(self, role: str) -> bool:
        found = self.roles.get(role)
        return found is not None and found.superuser

    def holds(self, role: str, owner: str, acl: Acl | None, kind: str, letters: str) -> bool:
        """Whether ``role`` holds every privilege in ``letters`` on an object
        of ``owner`` with ``acl`` (``kind``: 'procedure' or a relation's)."""
        if self.is_superuser(role):
            return True
        held = privileges_of(acl if acl is not None else default_acl(owner, kind), role)
        return all(letter in held for letter in letters)

    def require(self, role: str, relation: Relation, letters: str) -> None:
        """Raise 42501 unless ``role`` may use ``relation`` that way."""
        if not self.holds(role, relation.owner, relation.acl, relation.kind_name, letters):
            raise permission_denied(relation.kind_name, relation.name)

    def require_execute(self, role: str, procedure: Procedure) -> None:
        if not self.holds(role, procedure.owner, procedure.acl, "procedure", "X"):
            raise permission_denied("procedure", procedure.name)

    def require_owner(self, role: str, owner: str, kind: str, name: str) -> None:
        """Raise 42501 unless ``role`` owns the object or is a superuser."""
        if role != owner and not self.is_superuser(role):
            raise must_own(kind, name)

    def owned_by(self, role: str) -> list[str]:
        """What depends on ``role`` (owned objects, privileges granted to
        it), as DROP ROLE's detail lists it."""
        found: list[str] = []
        for relation in self.user_relations():
            if relation.kind == "i":
                continue
            if relation.owner == role:
                found.append(f"owner of {relation.kind_name} {relation.name}")
            elif relation.acl is not None and role in dict(relation.acl):
                found.append(f"privileges for {relation.kind_name} {relation.name}")
        for procedure in self.procedures.values():
            if procedure.owner == role:
                found.append(f"owner of procedure {procedure.name}")
            elif procedure.acl is not None and role in dict(procedure.acl):
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
        in every owner and ACL that named it."""

        def rename(acl: Acl | None) -> Acl | None:
            if acl is None:
                return None
            return tuple((role.name if grantee == old else grantee, letters)
                         for grantee, letters in acl)

        relations = [replace(r, owner=role.name if r.owner == old else r.owner,
                             acl=rename(r.acl))
                     for r in self.user_relations() if r.owner == old or r.acl]
        procedures = {key: replace(p, owner=role.name if p.owner == old else p.owner,
                                   acl=rename(p.acl))
                      for key, p in self.procedures.items() if p.owner == old or p.acl}
        renamed = self.with_relations(relations)._changed("procedures", procedures)
        return renamed._changed("roles", {role.name: role}, remove=[old])

    def without_role(self, name: str) -> Catalog:
        return self._changed("roles", remove=[name])

    def with_schema(self, name: str, oid: int) -> Catalog:
        return self._changed("schemas", {name: oid})

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
            "next_oid": self.next_oid,
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
        assert isinstance(schemas, dict) and isinstance(next_oid, int)
        assert isinstance(roles, list)
        return replace(self, version=next(_VERSIONS), schemas=MappingProxyType(dict(schemas)),
                       relations=MappingProxyType(relations),
                       sequences=keyed("sequences"),  # type: ignore[arg-type]
                       procedures=keyed("procedures"),  # type: ignore[arg-type]
                       triggers=keyed("triggers"),  # type: ignore[arg-type]
                       roles=MappingProxyType({r.name: r for r in roles}),
                       next_oid=next_oid)

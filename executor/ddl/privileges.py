"""Who may make a schema change, and who owns what it creates.

One place for the rules, checked before a change is applied (the apply
functions then report missing objects as usual):

* naming an object needs USAGE on its schema, creating one CREATE on the
  schema it goes in;
* dropping, altering, refreshing, indexing an object, or hanging a window or
  trigger on it, is for its owner (and the roles that have the owner's
  privileges, superusers among them);
* TRUNCATE needs the TRUNCATE privilege, a foreign key REFERENCES on the
  columns it references;
* a view's query needs SELECT on everything it reads, and a PE trigger
  EXECUTE on its procedure;
* schemas are created and dropped by superusers only: as in a fresh
  PostgreSQL database, where only the database owner may create schemas;
* LANGUAGE python procedures run inside the server: superusers only, as an
  untrusted language in PostgreSQL;
* whatever a statement creates is owned by the role that ran it.
"""

from __future__ import annotations

from dataclasses import replace

from catalog import errors
from catalog.dataflow import Procedure
from catalog.schema import Catalog, Relation, Schema, Sequence
from executor.ddl import dataflow_objects, relations

Spec = relations.DdlSpec | dataflow_objects.DataflowSpec
Named = list[tuple[str | None, str, str]]
"""Relations a change names: (schema if known, name, privileges needed)."""


def check(spec: Spec, catalog: Catalog, role: str) -> None:
    """Raise 42501 unless ``role`` may apply ``spec`` to ``catalog``."""
    if catalog.is_superuser(role):
        return
    if isinstance(spec, relations.CreateSchema) or (
            isinstance(spec, relations.Drop) and spec.kind == "schema"):
        raise errors.InsufficientPrivilege("permission denied for database sqlext",
                                           hint="Only superusers create and drop schemas.")
    if isinstance(spec, dataflow_objects.CreateProcedure) and spec.language == "python":
        raise errors.InsufficientPrivilege(
            "permission denied for language python",
            hint="Python procedures run inside the server: only superusers create them.")
    named = _named(spec, catalog)
    for schema, _, _ in named:
        if schema:
            catalog.require_schema(role, schema)
    for relation, letters in _found(named, catalog):
        if letters:
            catalog.require(role, relation, letters)
        else:
            catalog.require_owner(role, relation.owner, relation.kind_name, relation.name)
    created = _created_in(spec)
    if created is not None:
        catalog.require_schema(role, created, "C")
    added = spec.add_constraints if isinstance(spec, relations.AlterTable) else ()
    if isinstance(spec, relations.CreateTable) and catalog.find_relation(
            spec.name, spec.schema) is None:  # else it is 42P07 first
        added = spec.constraints
    for constraint in added:
        if constraint.ref_table is not None:
            _require_references(catalog, role, constraint)
    for procedure in _procedures_used(spec, catalog):
        catalog.require_schema(role, procedure.schema)
        if isinstance(spec, dataflow_objects.CreateTrigger):
            catalog.require_execute(role, procedure)
        else:
            catalog.require_owner(role, procedure.owner, "procedure", procedure.name)


def _created_in(spec: Spec) -> str | None:
    """The schema an object the change creates goes in."""
    if isinstance(spec, relations.CreateTable | relations.CreateView | relations.CreateMatview
                  | relations.CreateSequence | relations.CreateIndex
                  | dataflow_objects.CreateProcedure | dataflow_objects.CreateWindow):
        return spec.schema
    return None


def _require_references(catalog: Catalog, role: str, constraint: relations.ConstraintSpec
                        ) -> None:
    assert constraint.ref_table is not None
    schema, name = constraint.ref_table
    referenced = catalog.find_relation(name, schema)
    if referenced is not None:
        catalog.require_schema(role, schema)
        catalog.require_columns(role, referenced, "x", constraint.ref_columns)


def _procedures_used(spec: Spec, catalog: Catalog) -> list[Procedure]:
    """Procedures a change names: a PE trigger's (EXECUTE needed), those
    dropped or replaced (ownership needed)."""
    keys: list[tuple[str, str]] = []
    if isinstance(spec, dataflow_objects.CreateTrigger) and spec.procedure is not None:
        keys = [spec.procedure]
    elif isinstance(spec, dataflow_objects.DropDataflow) and spec.kind == "procedure":
        keys = list(spec.names)
    elif isinstance(spec, dataflow_objects.CreateProcedure) and spec.replace:
        keys = [(spec.schema, spec.name)]
    return [procedure for key in keys if (procedure := catalog.procedures.get(key)) is not None]


def _named(spec: Spec, catalog: Catalog) -> Named:
    """The relations a change names: (schema if known, name, privilege
    letters needed; '' for ownership)."""
    named: Named = []
    if isinstance(spec, relations.Drop):
        named = [(schema, name, "") for schema, name in spec.names]
    elif isinstance(spec, dataflow_objects.DropDataflow) and spec.kind in ("stream", "window"):
        named = [(schema or None, name, "") for schema, name in spec.names]
    elif isinstance(spec, dataflow_objects.DropDataflow) and spec.kind == "trigger":
        named = [(trigger.target[0], trigger.target[1], "")
                 for key in spec.names if (trigger := catalog.triggers.get(key)) is not None]
    elif isinstance(spec, relations.Truncate):
        named = [(schema, name, "D") for schema, name in spec.tables]
    elif isinstance(spec, relations.AlterTable | relations.RefreshMatview):
        named = [(spec.schema, spec.name, "")]
    elif isinstance(spec, relations.CreateIndex):
        named = [(spec.schema, spec.table, "")]
    elif isinstance(spec, dataflow_objects.CreateWindow):
        named = [(*spec.spec.stream, "")]
    elif isinstance(spec, dataflow_objects.CreateTrigger):
        named = [(*spec.target, "")]
    elif isinstance(spec, relations.CreateView):
        named = [(schema, name, "r") for schema, name in spec.reads]
        if spec.replace:
            named.append((spec.schema, spec.name, ""))
    elif isinstance(spec, relations.CreateMatview):
        named = [(schema, name, "r") for schema, name in spec.matview.sources]
    return named


def _found(named: Named, catalog: Catalog) -> list[tuple[Relation, str]]:
    """The named relations that exist, with the privileges needed on them."""
    found = []
    for schema, name, letters in named:
        if schema is not None and schema not in catalog.schemas:
            continue
        relation = catalog.find_relation(name, schema)
        if relation is not None:
            found.append((relation, letters))
    return found


def _sequence_owner(before: Catalog, after: Catalog, sequence: Sequence, role: str) -> str:
    """A new sequence belongs to its creator, or (an identity column added
    to an existing table) to the owner of the table it belongs to."""
    if sequence.owned_by is not None:
        table = after.find_relation(sequence.owned_by[0], sequence.schema)
        if table is not None and before.relation_by_oid(table.oid) is not None:
            return table.owner
    return role


def owned_by_creator(before: Catalog, after: Catalog, role: str) -> Catalog:
    """``after`` with the schemas, relations, sequences and procedures a change
    created owned by ``role`` (the apply functions make them with the default
    owner)."""
    owned = [replace(r, owner=role) for r in after.relations.values()
             if before.relation_by_oid(r.oid) is None and r.owner != role]
    procedures = [replace(p, owner=role) for key, p in after.procedures.items()
                  if key not in before.procedures and p.owner != role]
    schemas: dict[str, Schema] = {name: replace(s, owner=role) for name, s in after.schemas.items()
                                  if name not in before.schemas and s.owner != role}
    for key, sequence in after.sequences.items():
        if key not in before.sequences and sequence.owner != _sequence_owner(
                before, after, sequence, role):
            after = after.with_sequence(replace(
                sequence, owner=_sequence_owner(before, after, sequence, role)))
    if owned:
        after = after.with_relations(owned)
    for procedure in procedures:
        after = after.with_procedure(procedure)
    for name, schema in schemas.items():
        after = after.with_schema(name, schema)
    return after

"""Who may make a schema change, and who owns what it creates.

One place for the rules, checked before a change is applied (the apply
functions then report missing objects as usual):

* dropping, altering, refreshing, indexing an object, or hanging a window or
  trigger on it, is for its owner (and superusers);
* TRUNCATE needs the TRUNCATE privilege;
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
from catalog.schema import Catalog, Relation
from executor.ddl import dataflow_objects, relations

Spec = relations.DdlSpec | dataflow_objects.DataflowSpec


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
    for relation, letters in _relations_used(spec, catalog):
        if letters:
            catalog.require(role, relation, letters)
        else:
            catalog.require_owner(role, relation.owner, relation.kind_name, relation.name)
    if isinstance(spec, dataflow_objects.CreateTrigger) and spec.procedure is not None:
        procedure = catalog.procedures.get(spec.procedure)
        if procedure is not None:
            catalog.require_execute(role, procedure)
    if isinstance(spec, dataflow_objects.DropDataflow) and spec.kind == "procedure":
        for key in spec.names:
            procedure = catalog.procedures.get(key)
            if procedure is not None:
                catalog.require_owner(role, procedure.owner, "procedure", procedure.name)
    if isinstance(spec, dataflow_objects.CreateProcedure) and spec.replace:
        existing = catalog.procedures.get((spec.schema, spec.name))
        if existing is not None:
            catalog.require_owner(role, existing.owner, "procedure", existing.name)


def _relations_used(spec: relations.DdlSpec | dataflow_objects.DataflowSpec, catalog: Catalog
                    ) -> list[tuple[Relation, str]]:
    """(relation, privilege letters) pairs; '' means ownership is needed."""
    named: list[tuple[str | None, str, str]] = []
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
    found = []
    for schema, name, letters in named:
        if schema is not None and schema not in catalog.schemas:
            continue
        relation = catalog.find_relation(name, schema)
        if relation is not None:
            found.append((relation, letters))
    return found


def owned_by_creator(before: Catalog, after: Catalog, role: str) -> Catalog:
    """``after`` with the relations and procedures a change created owned by
    ``role`` (the apply functions make them with the default owner)."""
    owned = [replace(r, owner=role) for r in after.relations.values()
             if before.relation_by_oid(r.oid) is None and r.owner != role]
    procedures = [replace(p, owner=role) for key, p in after.procedures.items()
                  if key not in before.procedures and p.owner != role]
    if owned:
        after = after.with_relations(owned)
    for procedure in procedures:
        after = after.with_procedure(procedure)
    return after

"""Applying any schema change as a role: the one place DDL is routed.

Each family of specs has its own apply function (``relations``, ``drops``,
``alter_table``, ``dataflow_objects``, ``access_control``, ``drop_schema``,
``objects``, ``extension``);
``privileges`` decides first whether the role may make the change, and
afterwards what it created becomes the role's.
"""

from __future__ import annotations

from catalog.schema import Catalog
from executor.ddl import privileges, relations
from executor.ddl.access_control import ROLE_SPECS, RoleSpec, apply_role
from executor.ddl.alter_table import alter_table
from executor.ddl.create_extension import CreateExtension, create_extension
from executor.ddl.dataflow_objects import DATAFLOW_SPECS, DataflowSpec, apply_dataflow
from executor.ddl.drop_schema import drop_schemas
from executor.ddl.drops import apply_drop
from executor.ddl.objects import OBJECT_SPECS, ObjectSpec, apply_object
from storage.sqlite import Database

DdlSpec = relations.DdlSpec | DataflowSpec | RoleSpec | ObjectSpec | CreateExtension
"""Every schema change the compiler produces."""


def apply_as(role: str, spec: DdlSpec, catalog: Catalog, database: Database,
             session_user: str | None = None) -> relations.DdlResult:
    """Apply ``spec`` to ``catalog`` (and ``database``) inside the running
    transaction, as ``role`` (the current role of a session of
    ``session_user``: the same role unless it changed with SET ROLE)."""
    if isinstance(spec, ROLE_SPECS):
        return apply_role(spec, catalog, role, session_user or role)
    if isinstance(spec, OBJECT_SPECS):
        return apply_object(spec, catalog, role, session_user or role)
    if isinstance(spec, CreateExtension):
        return create_extension(spec, catalog, database, role)
    privileges.check(spec, catalog, role)
    if isinstance(spec, DATAFLOW_SPECS):
        result = apply_dataflow(spec, catalog, database)
    elif isinstance(spec, relations.Drop):
        drop = drop_schemas if spec.kind == "schema" else apply_drop
        result = drop(spec, catalog, database)
    elif isinstance(spec, relations.AlterTable):
        result = alter_table(spec, catalog, database)
    else:
        result = relations.apply(spec, catalog, database)
    result.catalog = privileges.owned_by_creator(catalog, result.catalog, role)
    return result

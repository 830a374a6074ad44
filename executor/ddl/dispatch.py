"""Applying any schema change as a role: the one place DDL is routed.

Each family of specs has its own apply function (``tables``, ``dataflow``,
``roles``, ``schemas``); ``privileges`` decides first whether the role may
make the change, and afterwards what it created becomes the role's.
"""

from __future__ import annotations

from catalog.schema import Catalog
from executor.ddl import privileges, tables
from executor.ddl.dataflow import DATAFLOW_SPECS, DataflowSpec, apply_dataflow
from executor.ddl.roles import ROLE_SPECS, RoleSpec, apply_role
from executor.ddl.schemas import drop_schemas
from storage.sqlite import Database

DdlSpec = tables.DdlSpec | DataflowSpec | RoleSpec
"""Every schema change the compiler produces."""


def apply_as(role: str, spec: DdlSpec, catalog: Catalog, database: Database
             ) -> tables.DdlResult:
    """Apply ``spec`` to ``catalog`` (and ``database``) inside the running
    transaction, as ``role``."""
    if isinstance(spec, ROLE_SPECS):
        return apply_role(spec, catalog, role)
    privileges.check(spec, catalog, role)
    if isinstance(spec, DATAFLOW_SPECS):
        result = apply_dataflow(spec, catalog, database)
    elif isinstance(spec, tables.Drop) and spec.kind == "schema":
        result = drop_schemas(spec, catalog, database)
    else:
        result = tables.apply(spec, catalog, database)
    result.catalog = privileges.owned_by_creator(catalog, result.catalog, role)
    return result

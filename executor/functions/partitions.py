"""Partitioned relations: the owner check every stored row passes
(``executor.ddl.partitioned``), and ``pg_get_partkeydef``."""

from __future__ import annotations

from typing import Any

from catalog.introspection import quote_identifier
from catalog.partitioning import partition_of
from catalog.sqltypes import OID, TEXT
from executor.ddl.partitioned import OWNS, misrouted
from executor.functions.catalog_info import oid_argument
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()

@FUNCTIONS.internal(OWNS, 2, runtime=True)
def _owns(runtime: Runtime) -> Function:
    executor = runtime.executor

    def owns(key: Any, relation_oid: int) -> int:
        placement = executor.placement
        if placement.owns(key):
            return 1
        relation = executor.context.catalog.relation_by_oid(relation_oid)
        assert relation is not None  # the CHECK is on this relation's table
        raise misrouted(relation, key, partition_of(key, placement.count), placement)
    return owns


@FUNCTIONS.runtime("pg_get_partkeydef", TEXT, OID, min_args=1, max_args=1,
                   sqlite="sqlext_get_partkeydef")
def _get_partkeydef(runtime: Runtime) -> Function:
    """``HASH (key)`` for a partitioned relation, NULL for any other."""
    def get_partkeydef(relation_oid: Any) -> str | None:
        oid = oid_argument(relation_oid)
        relation = runtime.context().catalog.relation_by_oid(oid) if oid is not None else None
        if relation is None or relation.partition_key is None:
            return None
        return f"HASH ({quote_identifier(relation.partition_key)})"
    return get_partkeydef

"""Relations declared ``PARTITION BY HASH (key)``: the
owner check the storage engine runs on every row.

Such a relation carries a CHECK constraint in SQLite that calls
``sqlext_partition_owns(key, relation OID)`` (``executor.functions.partitions``),
so every path that stores a row (INSERT, COPY, UPDATE of the key, procedures
and triggers) is checked by the storage engine itself, and a row another
partition owns is refused, naming the owner (``catalog.partitioning``).
"""

from __future__ import annotations

from typing import Any, Final

from catalog import errors
from catalog.partitioning import Placement
from catalog.schema import Relation
from executor import codecs
from storage.sqlite import quoted

OWNS: Final = "sqlext_partition_owns"
"""Its SQLite name, in every partitioned table's stored DDL: never rename it."""
OWNER_CONSTRAINT: Final = "sqlext_partition"
"""The name of the CHECK constraint in SQLite (not in pg_constraint: in
PostgreSQL a hash-partitioned table has no such constraint either)."""


def owner_check(relation_oid: int, key: str) -> str:
    """The CHECK clause of a partitioned table's SQLite DDL."""
    return f"CONSTRAINT {quoted(OWNER_CONSTRAINT)} CHECK ({OWNS}({quoted(key)}, {relation_oid}))"


def misrouted(relation: Relation, key: Any, owner: int, placement: Placement
              ) -> errors.SqlError:
    return errors.CheckViolation(
        f'row for relation "{relation.name}" belongs to partition {owner} of '
        f"{placement.count}, not to this node (partition {placement.index} of "
        f"{placement.count})",
        detail=f"Partition key of the failing row contains ({relation.partition_key}) = "
               f"({_shown(relation, key)}).",
        hint=f"Send it to the node that serves partition {owner}/{placement.count}, or "
             "write through a client that routes rows by key (the sqlext Spark data "
             'source\'s "cluster" option).',
        schema=relation.schema, table=relation.name)


def _shown(relation: Relation, key: Any) -> str:
    """The key as PostgreSQL's DETAIL prints it: its type's text output
    (NULL is null)."""
    if key is None:
        return "null"
    column = relation.column(relation.partition_key or "")
    return codecs.text_encoder(column.type_oid, column.typmod)(key).decode()

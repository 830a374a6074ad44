"""LOCK TABLE's rules: what can be locked, and which privileges allow a mode.

sqlext has no row or table locks: one serial executor runs every
transaction's writes, and a transaction that takes it holds off all others
until it ends. LOCK TABLE takes it (``Utilities._lock``); what is checked
first is what PostgreSQL checks (``LockTableAclCheck``, the relation kinds
``RangeVarCallbackForLockTable`` accepts).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from catalog import errors
from catalog.schema import RELKIND_NAMES, Catalog, Relation

_INSERT_MODES = frozenset({"ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE"})


def lock_privileges(mode: str) -> str:
    """The privileges (letters) any one of which allows taking ``mode``:
    UPDATE, DELETE or TRUNCATE any mode, INSERT up to ROW EXCLUSIVE, SELECT
    ACCESS SHARE."""
    return "wdD" + ("a" if mode in _INSERT_MODES else "") + ("r" if mode == "ACCESS SHARE"
                                                             else "")


def lockable_relation(catalog: Catalog, name: exp.Table, search_path: Iterable[str]
                      ) -> Relation:
    """The table or view LOCK names (42809 for other kinds of relation)."""
    relation = catalog.find_relation(name.name, name.db or None, search_path)
    if relation is None:
        sequence = catalog.find_sequence(name.name, name.db or None, tuple(search_path))
        if sequence is not None:
            raise _not_lockable(name.name, "sequences")
        raise errors.UndefinedTable(f'relation "{name.sql(dialect="postgres")}" does not exist')
    if relation.kind not in ("r", "v"):
        raise _not_lockable(relation.name, RELKIND_NAMES.get(relation.kind, "relation") + "s")
    return relation


def _not_lockable(name: str, kinds: str) -> errors.SqlError:
    return errors.WrongObjectType(f'cannot lock relation "{name}"',
                                  detail=f"This operation is not supported for {kinds}.")

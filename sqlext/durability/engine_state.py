"""The engine state a snapshot keeps besides the SQLite tables.

The catalog (schema objects made by DDL), batch counters and accepted
client batch ids, the streams' readers, sequence positions and the TEs
still waiting to run,
pickled as plain values and catalog dataclasses. Loading refuses any other
class, so a snapshot file can only ever produce data.
"""

from __future__ import annotations

import io
import pickle
import re
from dataclasses import replace
from typing import Any, Final

from catalog.introspection import quote_identifier
from catalog.schema import Relation
from executor.batches import StreamCounters
from executor.core import Executor
from executor.streaming.scheduler import Scheduler

STATE_VERSION: Final = 6
"""2: the windows' counters are part of the state (1 kept them in a table).
3: ACL items name their grantors and grant options, schemas have owners and
ACLs, columns ACLs, roles memberships, views and materialized views their
rules (what they depend on). Older catalog values are upgraded as they load
(``catalog.acl.upgraded``, ``Catalog.with_user_objects``); views of older
snapshots have no rule (``catalog.dependencies`` falls back to a
materialized view's sources). Later version 3 snapshots also hold partial
indexes' conditions and relations' row types.
4: the extension sqlext (``catalog.extension``), comments, identity columns,
sequences' owners and types (older values load with their defaults); a
relation's comment is where version 5 keeps a partial index's condition.
5: both: a relation's condition and row type, then its comment; defaults
name the sequences they bind in full (older ones, by OID, are rewritten
as they load).
6: the streams' readers (``sqlext_hold_stream()``; older snapshots have none)."""
_ALLOWED_MODULES: Final = ("catalog.schema", "catalog.dataflow", "catalog.matviews",
                            "catalog.roles", "catalog.acl", "catalog.extension")


class StateError(Exception):
    pass


class _CatalogOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module in _ALLOWED_MODULES:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a snapshot may not contain {module}.{name}")


def capture(executor: Executor, scheduler: Scheduler, lsn: int) -> bytes:
    counters = {oid: (c.last_batch, c.skipped, [list(r) for r in c.accepted])
                for oid, c in executor.batches.streams.items()}
    state = {
        "version": STATE_VERSION,
        "lsn": lsn,
        "catalog": executor.catalog.user_objects(),
        "batches": counters,
        "readers": executor.readers.state({r.oid for r in executor.catalog.relations.values()
                                           if r.stream is not None}),
        "sequences": dict(executor.sequences),
        "scheduler": scheduler.state(),
        "windows": scheduler.windows.state({r.oid for r in executor.catalog.relations.values()
                                            if r.window is not None}),
    }
    return pickle.dumps(state, protocol=5)


def _comment_moved(relation: Relation) -> Relation:
    """A relation of a version 4 snapshot: its comment was kept where a
    partial index's condition is now."""
    return replace(relation, predicate=None, comment=relation.predicate)


_BOUND_BY_OID = re.compile(r"'(\d+)'::regclass")
"""How defaults before version 5 named a sequence (``nextval('16390'::regclass)``)."""


def _named_defaults(objects: dict[str, Any]) -> list[Relation]:
    """The relations of an older snapshot with their defaults naming the
    sequences (and relations) they bind in full, as they are kept now."""
    names = {o.oid: f"{quote_identifier(o.schema)}.{quote_identifier(o.name)}"
             for o in (*objects["sequences"], *objects["relations"])}

    def named(found: re.Match[str]) -> str:
        name = names.get(int(found.group(1)))
        return found.group(0) if name is None else "'" + name.replace("'", "''") + "'::regclass"

    return [replace(r, columns=tuple(
        replace(c, default=_BOUND_BY_OID.sub(named, c.default)) if c.default else c
        for c in r.columns)) for r in objects["relations"]]


def restore(executor: Executor, scheduler: Scheduler, data: bytes) -> int:
    """Put the state back; returns the LSN it covers."""
    try:
        state = _CatalogOnly(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, AttributeError, ValueError) as exc:
        raise StateError(f"engine state unreadable: {exc}") from exc
    if not isinstance(state, dict) or state.get("version") not in range(1, STATE_VERSION + 1):
        raise StateError(f"engine state version {state.get('version')!r}; this server "
                         f"reads version {STATE_VERSION}")
    objects = state["catalog"]
    if state["version"] == 4:
        objects = {**objects, "relations": [_comment_moved(r) for r in objects["relations"]]}
    if state["version"] < 5:
        objects = {**objects, "relations": _named_defaults(objects)}
    executor.catalog = executor.catalog.with_user_objects(objects)
    executor.batches.streams = {
        oid: StreamCounters(last, skipped, [list(r) for r in accepted])
        for oid, (last, skipped, accepted) in state["batches"].items()}
    executor.readers.restore(state.get("readers", {}))
    executor.sequences = dict(state["sequences"])
    scheduler.restore(state["scheduler"])
    scheduler.windows.restore(state.get("windows"))
    return int(state["lsn"])

"""PostgreSQL's implicit casts between the types sqlext knows (pg_cast rows
with castcontext 'i'), and the common type of several values as
select_common_type (parse_coerce.c) finds it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from catalog import types as t
from catalog.sqltypes import TEXT, SqlType

_INTEGERS: Final = frozenset({t.INT2, t.INT4, t.INT8})
_REGS: Final = frozenset({t.REGPROC, t.REGCLASS, t.REGTYPE, t.REGNAMESPACE})

_IMPLICIT: Final[dict[int, frozenset[int]]] = {
    t.INT2: frozenset({t.INT4, t.INT8, t.FLOAT4, t.FLOAT8, t.NUMERIC, t.OID}) | _REGS,
    t.INT4: frozenset({t.INT8, t.FLOAT4, t.FLOAT8, t.NUMERIC, t.OID}) | _REGS,
    t.INT8: frozenset({t.FLOAT4, t.FLOAT8, t.NUMERIC, t.OID}) | _REGS,
    t.OID: _REGS,
    t.NUMERIC: frozenset({t.FLOAT4, t.FLOAT8}),
    t.FLOAT4: frozenset({t.FLOAT8}),
    t.DATE: frozenset({t.TIMESTAMP, t.TIMESTAMPTZ}),
    t.TIMESTAMP: frozenset({t.TIMESTAMPTZ}),
    t.TIME: frozenset({t.INTERVAL}),
    t.TEXT: frozenset({t.NAME, t.BPCHAR, t.VARCHAR, t.REGCLASS}),
    t.VARCHAR: frozenset({t.TEXT, t.NAME, t.BPCHAR, t.REGCLASS}),
    t.BPCHAR: frozenset({t.TEXT, t.NAME, t.VARCHAR}),
    t.NAME: frozenset({t.TEXT}),
    t.CHAR: frozenset({t.TEXT}),
    t.CIDR: frozenset({t.INET}),
    **{reg: frozenset({t.OID}) for reg in _REGS},
}
"""pg_cast's implicit casts (each type also reaches itself)."""


def reaches(source: SqlType, target: SqlType) -> bool:
    """Whether an argument of type ``source`` may be passed as ``target``
    (an array as an array whose elements its elements reach)."""
    if source.is_unknown or source.oid == target.oid or target.oid in _IMPLICIT.get(
            source.oid, frozenset()):
        return True
    elements = t.array_element(source.oid), t.array_element(target.oid)
    return all(elements) and reaches(SqlType(elements[0]), SqlType(elements[1]))


def _preferred(oid: int) -> bool:
    found = t.TYPES.get(oid)
    return found is not None and found.preferred


def common_type(types: Sequence[SqlType]) -> SqlType | None:
    """The type values of ``types`` meet in (text if all are unknown), or
    None when two are of different categories (select_common_type): the
    first known type, replaced by a later one of its category it casts to
    implicitly (and not back) unless it is the category's preferred type."""
    chosen: SqlType | None = None
    for found in types:
        if found.is_unknown or (chosen is not None and found.oid == chosen.oid):
            continue
        if chosen is None:
            chosen = SqlType(found.oid)
        elif found.category != chosen.category:
            return None
        elif not _preferred(chosen.oid) and reaches(chosen, found) and not reaches(found, chosen):
            chosen = SqlType(found.oid)
    return TEXT if chosen is None else chosen

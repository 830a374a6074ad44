"""Types of SQL expressions as (type OID, typmod) pairs, and PostgreSQL's
rules for combining them.

They are catalog vocabulary: the translator types expressions with them and
the function declarations (``executor.functions``) state their signatures
in them. How a type written in SQL becomes one is
``sqlext.translate.type_names``.

A bare string literal has type ``unknown`` until its context decides (the
column it is compared with, inserted into or cast to), as in PostgreSQL.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from catalog import errors
from catalog import types as t


class SqlType(NamedTuple):
    oid: int
    typmod: int = -1

    @property
    def is_unknown(self) -> bool:
        return self.oid == t.UNKNOWN

    @property
    def category(self) -> str:
        pg_type = t.TYPES.get(self.oid)
        return pg_type.category if pg_type else "X"


UNKNOWN: Final = SqlType(t.UNKNOWN)
TEXT: Final = SqlType(t.TEXT)
BOOL: Final = SqlType(t.BOOL)
INT2: Final = SqlType(t.INT2)
INT4: Final = SqlType(t.INT4)
INT8: Final = SqlType(t.INT8)
FLOAT8: Final = SqlType(t.FLOAT8)
NUMERIC: Final = SqlType(t.NUMERIC)
OID: Final = SqlType(t.OID)
NAME: Final = SqlType(t.NAME)
DATE: Final = SqlType(t.DATE)
TIMESTAMP: Final = SqlType(t.TIMESTAMP)
TIMESTAMPTZ: Final = SqlType(t.TIMESTAMPTZ)
INTERVAL: Final = SqlType(t.INTERVAL)
BYTEA: Final = SqlType(t.BYTEA)
VOID: Final = SqlType(t.VOID)
ANYELEMENT: Final = SqlType(t.ANYELEMENT)
ANYARRAY: Final = SqlType(t.ANYARRAY)
ANYNONARRAY: Final = SqlType(t.ANYNONARRAY)
ANYCOMPATIBLE: Final = SqlType(t.ANYCOMPATIBLE)
ANYCOMPATIBLEARRAY: Final = SqlType(t.ANYCOMPATIBLEARRAY)

NUMERIC_RANK: Final = {t.INT2: 1, t.INT4: 2, t.INT8: 3, t.OID: 3, t.NUMERIC: 4,
                       t.FLOAT4: 5, t.FLOAT8: 6}
STRING_TYPES: Final = frozenset({t.TEXT, t.VARCHAR, t.BPCHAR, t.NAME, t.CHAR, t.UNKNOWN})
DATETIME_TYPES: Final = frozenset({t.DATE, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ})


_DATETIMES = frozenset({t.DATE, t.TIMESTAMP, t.TIMESTAMPTZ})
_OID_ALIASES = frozenset({t.OID, t.REGPROC, t.REGCLASS, t.REGTYPE, t.REGNAMESPACE})
"""oid and the reg types: each converts to the others implicitly, so a mixture
takes the first one's type (PostgreSQL's select_common_type)."""


def check_matchable(types: list[SqlType], construct: str) -> None:
    """COALESCE, GREATEST, LEAST, JOIN ... USING, set operations: the known
    types must make one (numbers, strings, or dates and timestamps); any
    other mixture is 42804, as in PostgreSQL, not values stored under
    another type's name."""
    known = [found for found in types if not found.is_unknown]
    first = known[0] if known else UNKNOWN
    for found in known[1:]:
        if not (found.oid == first.oid or (is_numeric(found) and is_numeric(first))
                or (is_string(found) and is_string(first))
                or (found.oid in _DATETIMES and first.oid in _DATETIMES)
                or (found.oid in _OID_ALIASES and first.oid in _OID_ALIASES)):
            raise errors.DatatypeMismatch(
                f"{construct} types {t.format_type(first.oid)} and "
                f"{t.format_type(found.oid)} cannot be matched")


def is_numeric(sql_type: SqlType) -> bool:
    return sql_type.oid in NUMERIC_RANK


def is_string(sql_type: SqlType) -> bool:
    return sql_type.oid in STRING_TYPES


def common_type(types: list[SqlType]) -> SqlType:
    """The type of UNION branches, CASE results, COALESCE arguments...
    (PostgreSQL's select_common_type, simplified: unknowns yield to known
    types, numerics widen, anything else mixed becomes text)."""
    known = [candidate for candidate in types if not candidate.is_unknown]
    if not known:
        return TEXT if types else UNKNOWN
    first = known[0]
    if all(candidate == first for candidate in known):
        return first
    if all(candidate.oid == first.oid for candidate in known):
        return SqlType(first.oid)
    if all(candidate.oid in _OID_ALIASES for candidate in known):
        return SqlType(first.oid)
    if all(is_numeric(candidate) for candidate in known):
        return SqlType(max((c.oid for c in known), key=NUMERIC_RANK.__getitem__))
    if all(is_string(candidate) for candidate in known):
        return TEXT
    if {c.oid for c in known} <= {t.TIMESTAMP, t.TIMESTAMPTZ, t.DATE}:
        return TIMESTAMPTZ if any(c.oid == t.TIMESTAMPTZ for c in known) else TIMESTAMP
    return first


def arithmetic_type(left: SqlType, right: SqlType) -> SqlType:
    """Result of + - * / % between two numbers."""
    if left.is_unknown:
        left = right if is_numeric(right) else NUMERIC
    if right.is_unknown:
        right = left
    if is_numeric(left) and is_numeric(right):
        winner = max(left.oid, right.oid, key=NUMERIC_RANK.__getitem__)
        if winner in (t.INT2, t.INT4) and t.INT4 in (left.oid, right.oid):
            return INT4
        if winner == t.OID:
            return INT8
        return SqlType(winner)
    return left

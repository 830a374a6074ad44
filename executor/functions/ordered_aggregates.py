"""Aggregates whose result depends on the order of their rows: calls with
ORDER BY or DISTINCT inside (``string_agg(x, ',' ORDER BY y)``) and the
ordered-set aggregates (``percentile_cont(0.5) WITHIN GROUP (ORDER BY x)``,
the hypothetical ``rank(3) WITHIN GROUP (ORDER BY x)``).

SQLite 3.40 has no ORDER BY inside aggregate calls, so the translator makes
such a call ``sqlext_sorted(spec, direct..., columns...)``: an aggregate that
keeps its rows and at the end sorts them as SQLite's ORDER BY sorts values
(NULLs where the call says, then numbers, text, blobs), keeps one of each
group of equal rows for DISTINCT and computes the aggregate ``spec`` names
(``KINDS``) over the first ``inputs`` columns. ``spec`` is the constant
``SortedCall.text()``. Direct arguments (the fraction of percentile_cont,
the hypothetical row of rank) are the same in every row of a group.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import FLOAT8, SqlType
from executor import codecs
from executor.functions import json_aggregates as js
from executor.functions.declare import Declarations
from executor.functions.math_functions import is_nan

FUNCTIONS = Declarations()

Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class SortKey:
    column: int
    """Which of a row's columns (counted after the direct arguments)."""
    descending: bool = False
    nulls_first: bool = False


@dataclass(frozen=True, slots=True)
class SortedCall:
    """What ``sqlext_sorted`` computes for one call."""

    kind: str
    """The aggregate (a key of ``KINDS``)."""
    direct: int
    """How many direct arguments precede a row's columns."""
    inputs: int
    """How many of the columns the aggregate takes (the others are sort keys)."""
    keys: tuple[SortKey, ...]
    distinct: tuple[int, ...] = ()
    """DISTINCT: the columns that make rows equal (all among the keys)."""

    def text(self) -> str:
        keys = ",".join(f"{key.column}{'d' if key.descending else 'a'}"
                        f"{'f' if key.nulls_first else 'l'}" for key in self.keys)
        distinct = ",".join(map(str, self.distinct))
        return f"{self.kind}:{self.direct}:{self.inputs}:{keys}:{distinct}"

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def parse(text: str) -> SortedCall:
        kind, direct, inputs, keys, distinct = text.split(":")
        return SortedCall(kind, int(direct), int(inputs), tuple(
            SortKey(int(key[:-2]), key[-2] == "d", key[-1] == "f")
            for key in keys.split(",") if key),
            tuple(int(column) for column in distinct.split(",") if column))


def _order(value: Any) -> tuple[int, Any]:
    """Where SQLite's ORDER BY puts a non-NULL value: numbers, then text
    (code point order, as BINARY), then blobs."""
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    return (2, bytes(value))


def _sort_value(value: Any, nulls_high: bool) -> tuple[Any, ...]:
    if value is None:
        return (1,) if nulls_high else (-1,)
    return (0, _order(value))


def _nulls_high(key: SortKey) -> bool:
    """Whether NULLs sort above all values (in ascending terms)."""
    return key.nulls_first == key.descending


def sort_rows(rows: Sequence[Row], keys: Sequence[SortKey]) -> list[Row]:
    ordered = list(rows)
    for key in reversed(keys):  # stable sorts, least significant key first
        high = _nulls_high(key)
        ordered.sort(key=lambda row, column=key.column: _sort_value(row[column], high),
                     reverse=key.descending)
    return ordered


def _compare(row: Row, hypothetical: Row, keys: Sequence[SortKey]) -> int:
    """-1, 0 or 1 as ``row`` sorts before, with or after the row whose key
    values are ``hypothetical`` (one per key)."""
    for key, value in zip(keys, hypothetical, strict=True):
        high = _nulls_high(key)
        mine, theirs = _sort_value(row[key.column], high), _sort_value(value, high)
        if mine != theirs:
            before = mine < theirs
            return -1 if before != key.descending else 1
    return 0


def _distinct(rows: list[Row], columns: Sequence[int]) -> list[Row]:
    """One of each run of rows equal in ``columns`` (rows are sorted)."""
    kept: list[Row] = []
    previous: tuple[Any, ...] | None = None
    for row in rows:
        identity = tuple(_sort_value(row[column], True) for column in columns)
        if identity != previous:
            kept.append(row)
            previous = identity
    return kept


# --- ordered-set aggregates -------------------------------------------------------------

def _float(value: Any) -> float:
    return math.nan if is_nan(value) else float(value)


def _stored_float(value: float) -> Any:
    return "NaN" if math.isnan(value) else value


def _fraction(value: Any) -> float | None:
    if value is None:
        return None
    fraction = _float(value)
    if not 0 <= fraction <= 1:  # NaN too
        raise errors.NumericValueOutOfRange(
            f"percentile value {fraction:g} is not between 0 and 1")
    return fraction


def _values(rows: Sequence[Row]) -> list[Any]:
    return [row[0] for row in rows if row[0] is not None]


def _continuous(values: list[Any], fraction: float | None) -> Any:
    if fraction is None:
        return None
    position = fraction * (len(values) - 1)
    first, second = math.floor(position), math.ceil(position)
    low = _float(values[first])
    if first == second:
        return _stored_float(low)
    high = _float(values[second])
    return _stored_float(low + (position - first) * (high - low))


def _discrete(values: list[Any], fraction: float | None) -> Any:
    if fraction is None:
        return None
    return values[max(math.ceil(fraction * len(values)), 1) - 1]


def _percentile(pick: Callable[[list[Any], float | None], Any]) -> Callable[
        [Row, Sequence[Row]], Any]:
    def single(direct: Row, rows: Sequence[Row]) -> Any:
        fraction = _fraction(direct[0])
        values = _values(rows)
        return pick(values, fraction) if values else None

    return single


def _percentiles(pick: Callable[[list[Any], float | None], Any]) -> Callable[
        [Row, Sequence[Row]], Any]:
    """The array forms: one result per fraction."""
    def multiple(direct: Row, rows: Sequence[Row]) -> Any:
        if direct[0] is None:
            return None
        fractions = [_fraction(value) for value in json.loads(direct[0])]
        values = _values(rows)
        return codecs.dump_array([pick(values, f) for f in fractions]) if values else None

    return multiple


def _mode(direct: Row, rows: Sequence[Row]) -> Any:
    """The most frequent value; of equally frequent ones the first in order."""
    best, best_count = None, 0
    current, count = None, 0
    for value in _values(rows):
        if count and _order(value) == _order(current):
            count += 1
        else:
            current, count = value, 1
        if count > best_count:
            best, best_count = current, count
    return best


def _hypothetical(rank: Callable[[list[int], int], Any]) -> Callable[
        [Row, Sequence[Row], Sequence[SortKey]], Any]:
    """rank and friends of the hypothetical row ``direct``: ``rank`` gets each
    row's position relative to it (-1 before, 0 peer, 1 after) and the rows."""
    def compute(direct: Row, rows: Sequence[Row], keys: Sequence[SortKey]) -> Any:
        return rank([_compare(row, direct, keys) for row in rows], len(rows))

    return compute


def _dense_rank(direct: Row, rows: Sequence[Row], keys: Sequence[SortKey]) -> Any:
    before = [row for row in rows if _compare(row, direct, keys) < 0]
    return 1 + len(_distinct(sort_rows(before, keys), range(len(keys))))


def _result(kind: Callable[[Sequence[Row]], Any]) -> Callable[[Row, Sequence[Row]], Any]:
    """An aggregate that has no direct arguments."""
    return lambda direct, rows: kind(rows)


def _string_agg(rows: Sequence[Row]) -> Any:
    """Rows of (value, delimiter): each value after the first follows its
    own row's delimiter; NULL values are left out."""
    parts: list[str] = []
    for value, delimiter in rows:
        if value is None:
            continue
        if parts and delimiter is not None:
            parts.append(delimiter)
        parts.append(value)
    return "".join(parts) if parts else None


def _array_agg(rows: Sequence[Row]) -> Any:
    return codecs.dump_array([value for (value,) in rows]) if rows else None


KINDS: Final[dict[str, Callable[[Row, Sequence[Row]], Any]]] = {
    "string_agg": _result(_string_agg),
    "array_agg": _result(_array_agg),
    "json_agg": _result(js.json_agg_text),
    "jsonb_agg": _result(js.jsonb_agg_text),
    "json_object_agg": _result(js.json_object_agg_text),
    "jsonb_object_agg": _result(js.jsonb_object_agg_text),
    "percentile_cont": _percentile(_continuous),
    "percentile_cont_multi": _percentiles(_continuous),
    "percentile_disc": _percentile(_discrete),
    "percentile_disc_multi": _percentiles(_discrete),
    "mode": _mode,
}
"""Aggregates of (direct arguments, sorted rows)."""

HYPOTHETICAL: Final[dict[str, Callable[[Row, Sequence[Row], Sequence[SortKey]], Any]]] = {
    "rank": _hypothetical(lambda positions, count: 1 + sum(p < 0 for p in positions)),
    "dense_rank": _dense_rank,
    "percent_rank": _hypothetical(
        lambda positions, count: sum(p < 0 for p in positions) / count if count else 0.0),
    "cume_dist": _hypothetical(
        lambda positions, count: (sum(p <= 0 for p in positions) + 1) / (count + 1)),
}
"""The hypothetical-set aggregates, which compare the rows with the direct
arguments under the sort keys."""


@FUNCTIONS.internal_aggregate("sqlext_sorted", -1)
class _Sorted:
    """``sqlext_sorted(spec, direct..., columns...)``."""

    def __init__(self) -> None:
        self.call: SortedCall | None = None
        self.direct: Row = ()
        self.rows: list[Row] = []

    def step(self, spec: str, *values: Any) -> None:
        if self.call is None:
            self.call = SortedCall.parse(spec)
            self.direct = values[:self.call.direct]
        self.rows.append(values[self.call.direct:])

    def finalize(self) -> Any:
        call = self.call
        if call is None:
            return None
        rows = sort_rows(self.rows, call.keys)
        if call.distinct:
            rows = _distinct(rows, call.distinct)
        hypothetical = HYPOTHETICAL.get(call.kind)
        if hypothetical is not None:
            return hypothetical(self.direct, rows, call.keys)
        return KINDS[call.kind](self.direct, [row[:call.inputs] for row in rows])


@FUNCTIONS.internal("sqlext_check_fraction", 1)
def _check_fraction(value: Any) -> None:
    """NULL, or the error for a fraction out of range: percentile_cont and
    percentile_disc check it even when a group has no rows."""
    _fraction(value)


def _percentile_cont_type(types: list[SqlType]) -> SqlType:
    return SqlType(t.array_of(t.FLOAT8)) if t.element_of(types[0].oid) else FLOAT8


def _percentile_disc_type(types: list[SqlType]) -> SqlType:
    element = SqlType(types[-1].oid)
    if t.element_of(types[0].oid):
        return SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))
    return element


FUNCTIONS.aggregate("percentile_cont", _percentile_cont_type, "sqlext_sorted", FLOAT8,
                    FLOAT8, min_args=2, max_args=2, ordered_set=True)
FUNCTIONS.aggregate("percentile_disc", _percentile_disc_type, "sqlext_sorted", FLOAT8, None,
                    min_args=2, max_args=2, ordered_set=True)
FUNCTIONS.aggregate("mode", lambda types: SqlType(types[-1].oid),
                    "sqlext_sorted", None, min_args=1, max_args=1, ordered_set=True)

"""A many-row run of a single-row INSERT, a group of rows per statement.

COPY FROM and a batch of pipelined INSERTs run one INSERT per row of
parameters. SQLite then spends more time starting and resetting the
statement than storing the row: a 3-column row into a table with a primary
key costs 0.85 us with ``executemany``, 0.35 us as one of the 100 rows of
one VALUES list. So a plan whose row is parameters only (``ValuesRow``)
runs a group of rows at a time through one INSERT with that many rows of
parameters (up to 100; the last group of a run takes the rows left).

One statement per row stays the reference: the executor runs a group in a
savepoint, and a group that fails or raises a notice is rolled back with
what it changed outside SQLite and run again a row at a time
(``Executor.run_plan_each``), so which row failed and how, which rows before
it are in, and where a notice falls are those of one statement per row.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice
from typing import Any, Final, Protocol, runtime_checkable

from executor.plans import ValuesRow

GROUP_ROWS: Final = 100
"""Rows per statement: past ~100, a longer VALUES list saves little more
(0.30 us a row at 500) and costs more to prepare."""


@runtime_checkable
class ColumnarRows(Protocol):
    """Rows kept as columns (COPY's): a group's values are taken a column at
    a time, without making a tuple per row."""

    columns: list[list[Any]]

    def __len__(self) -> int: ...


def group_size(bindings: int, variable_limit: int) -> int:
    """Rows per group for rows of ``bindings`` values: as many as SQLite
    may bind in one statement, up to GROUP_ROWS (below 2: no groups)."""
    return min(GROUP_ROWS, variable_limit // max(bindings, 1))


@functools.lru_cache(maxsize=256)
def grouped_sql(row: ValuesRow, bindings: int, size: int) -> str:
    """The INSERT of ``size`` rows: the row's parameters numbered on by
    ``bindings`` for each row after the first."""
    return row.head + ", ".join(
        "(" + ", ".join(f"?{number + offset}" for number in row.params) + ")"
        for offset in range(0, size * bindings, bindings))


def groups(rows: Iterable[Sequence[Any]], size: int, bindings: int
           ) -> Iterator[tuple[list[Any], Iterable[Sequence[Any]]]]:
    """The rows ``size`` at a time (the last group may be smaller), each
    group as the values its INSERT binds (the first ``bindings`` of each
    row, row after row) and as rows; a group of one row has no values."""
    if isinstance(rows, ColumnarRows) and len(rows.columns) >= bindings:
        yield from _column_groups(rows, size, bindings)
        return
    remaining = iter(rows)
    while group := list(islice(remaining, size)):
        values = list(chain.from_iterable(group)) if len(group) > 1 else []
        if len(values) != len(group) * bindings and values:
            values = list(chain.from_iterable(row[:bindings] for row in group))
        yield values, group


def _column_groups(rows: ColumnarRows, size: int, bindings: int
                   ) -> Iterator[tuple[list[Any], Iterable[Sequence[Any]]]]:
    columns = rows.columns[:bindings]
    for start in range(0, len(rows), size):
        count = min(size, len(rows) - start)
        values: list[Any] = [None] * (count * bindings if count > 1 else 0)
        if count > 1:
            for index, column in enumerate(columns):
                values[index::bindings] = column[start:start + count]
        yield values, zip(*(column[start:start + count] for column in columns), strict=True)

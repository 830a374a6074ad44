"""A many-row run of a single-row INSERT, a group of rows per statement.

COPY FROM and a batch of pipelined INSERTs run one INSERT per row of
parameters. SQLite then spends more time starting and resetting the
statement than storing the row: a 3-column row into a table with a primary
key costs 0.85 us with ``executemany``, 0.35 us as one of the 100 rows of
one VALUES list, 0.30 us as one of 500. So a plan whose row is parameters
only (``ValuesRow``) runs a group of rows at a time through one INSERT with
that many rows of parameters: groups of 256 rows, then of the largest power
of two that the rows left fill (so a plan has a few statement texts, not
one per length of run), the last few rows one at a time.

One statement per row stays the reference: the executor runs a group in a
savepoint, and a group that fails or raises a notice is rolled back with
what it changed outside SQLite and run again a row at a time
(``Executor.run_plan_each``), so which row failed and how, which rows before
it are in, and where a notice falls are those of one statement per row.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any, Final

from executor.plans import ValuesRow

GROUP_ROWS: Final = 256
"""The most rows per statement (pgjdbc sends 256 rows between Syncs)."""
SMALLEST_GROUP: Final = 8
"""Fewer rows than this go one statement each: a group's savepoint costs
two statements."""


def columns_of(rows: Sequence[Sequence[Any]]) -> Sequence[Sequence[Any]] | None:
    """The columns of rows kept as columns (COPY's, a batch's:
    ``wire.column_rows.ColumnRows``), else None: a group's values are then
    taken a column at a time, without making a tuple per row. (An attribute
    looked up, not a runtime Protocol check, which costs ~25 us.)"""
    return getattr(rows, "columns", None)


def group_size(bindings: int, variable_limit: int) -> int:
    """The most rows per group for rows of ``bindings`` values: as many as
    SQLite may bind in one statement, up to GROUP_ROWS, as a power of two
    (below SMALLEST_GROUP: no groups)."""
    rows = min(GROUP_ROWS, variable_limit // max(bindings, 1))
    return 1 << (rows.bit_length() - 1) if rows > 0 else 0


@functools.lru_cache(maxsize=256)
def grouped_sql(row: ValuesRow, bindings: int, size: int) -> str:
    """The INSERT of ``size`` rows: the row's parameters numbered on by
    ``bindings`` for each row after the first."""
    return row.head + ", ".join(
        "(" + ", ".join(f"?{number + offset}" for number in row.params) + ")"
        for offset in range(0, size * bindings, bindings))


def groups(rows: Sequence[Sequence[Any]], largest: int, bindings: int
           ) -> Iterator[tuple[list[Any], Sequence[Sequence[Any]] | Iterator[Sequence[Any]]]]:
    """The rows a group at a time (``largest`` rows, then the largest power
    of two the rows left fill), each as the values its INSERT binds (the
    first ``bindings`` of each row, row after row) and as rows; last, the
    rows too few for a group, with no values."""
    columns = columns_of(rows)
    columns = columns[:bindings] if columns is not None and len(columns) >= bindings else None
    start, count = 0, len(rows)
    while start < count:
        left = count - start
        size = min(largest, 1 << (left.bit_length() - 1))
        grouped = size >= SMALLEST_GROUP
        if not grouped:
            size = left
        values: list[Any] = []
        if columns is not None:
            if grouped:
                values = [None] * (size * bindings)
                for index, column in enumerate(columns):
                    values[index::bindings] = column[start:start + size]
            group: Sequence[Sequence[Any]] | Iterator[Sequence[Any]] = zip(
                *(column[start:start + size] for column in columns), strict=True)
        else:
            group = [row[:bindings] for row in rows[start:start + size]]
            if grouped:
                values = list(chain.from_iterable(group))
        yield values, group
        start += size

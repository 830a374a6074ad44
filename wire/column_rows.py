"""Many rows of values kept as one list per column.

A run of pipelined Binds is cut into one list of values per parameter, the
column decoders decode a list at a time, and the rows then go a group at a
time into SQLite and a column at a time into the command log; COPY FROM
keeps its rows the same way. So rows stay columns: a tuple per row is made
only where one is asked for (iterating makes each when it is needed, and
zip reuses it while nobody keeps it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any, overload


class ColumnRows(Sequence[tuple[Any, ...]]):
    """``count`` rows as ``columns`` (each of ``count`` values; none for
    rows of no values)."""

    def __init__(self, columns: list[list[Any]], count: int = 0) -> None:
        self.columns = columns
        self.count = count

    @classmethod
    def empty(cls, width: int) -> ColumnRows:
        return cls([[] for _ in range(width)])

    def extend(self, columns: Sequence[Sequence[Any]], count: int) -> None:
        for column, values in zip(self.columns, columns, strict=True):
            column += values
        self.count += count

    def append(self, row: Sequence[Any]) -> None:
        self.extend([[value] for value in row], 1)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return zip(*self.columns, strict=True) if self.columns else repeat((), self.count)

    def __len__(self) -> int:
        return self.count

    @overload
    def __getitem__(self, index: int) -> tuple[Any, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> ColumnRows: ...

    def __getitem__(self, index: int | slice) -> tuple[Any, ...] | ColumnRows:
        if isinstance(index, slice):
            return ColumnRows([column[index] for column in self.columns],
                              len(range(self.count)[index]))
        return tuple(column[index] for column in self.columns) if self.columns else ()

"""FETCH and MOVE on a SQL cursor: where a direction and a count take it,
and which rows it passes on the way (PostgreSQL's ``DoPortalRunFetch``).

Positions number the rows from 1; 0 is before the first row and, once the
query has no more rows, ``end + 1`` is after the last. A cursor declared
SCROLL keeps the rows it has read (as stored), so it can go back to
them; any other reads forward only, as PostgreSQL's NO SCROLL cursors: a
move that needs a row already passed is 55000.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from catalog import errors

Reader = Callable[[int | None], list[Any]]
"""Up to that many more rows of the cursor's query (None: all the rest);
fewer means there are no more."""


@dataclass(slots=True)
class CursorMotion:
    scroll: bool
    position: int = 0
    end: int | None = None
    """The number of rows, once the query has given its last."""
    read: int = 0
    """Rows taken from the query so far."""
    kept: list[Any] = field(default_factory=list)
    """The rows read so far (SCROLL cursors only)."""

    def fetch(self, direction: str, count: int | None, reader: Reader,
              move: bool) -> tuple[list[Any], int]:
        """The rows FETCH returns (none for MOVE) and the count its tag shows."""
        if direction == "next":
            direction, count = "forward", 1
        elif direction == "prior":
            direction, count = "backward", 1
        elif direction in ("first", "last"):
            direction, count = "absolute", 1 if direction == "first" else -1
        if direction in ("forward", "backward") and count is not None and count < 0:
            direction, count = ("backward" if direction == "forward" else "forward"), -count
        if count == 0 and direction != "absolute":
            return self._current(reader, move)
        if direction == "forward":
            rows = self._forward(count, reader)
        elif direction == "backward":
            rows = self._backward(count)
        else:
            assert count is not None
            rows = self._absolute(count if direction == "absolute" else self.position + count,
                                  count < 0 and direction == "absolute", reader)
        return ([] if move else rows), len(rows)

    def _refuse(self) -> None:
        raise errors.ObjectNotInPrerequisiteState(
            "cursor can only scan forward",
            hint="Declare it with SCROLL option to enable backward scan.")

    def _take(self, count: int | None, reader: Reader) -> list[Any]:
        """The query's next ``count`` rows (None: all)."""
        if self.end is not None or count == 0:
            return []
        rows = reader(count)
        self.read += len(rows)
        if count is None or len(rows) < count:
            self.end = self.read
        if self.scroll:
            self.kept.extend(rows)
        return rows

    def _from(self, start: int, count: int | None, reader: Reader) -> list[Any]:
        """Up to ``count`` rows (None: all) from position ``start`` on."""
        if start <= self.read:
            if not self.scroll:
                self._refuse()
            stop = None if count is None else start - 1 + count
            rows = self.kept[start - 1:stop]
            if count is not None:
                count -= len(rows)
                if count == 0:
                    return rows
            return rows + self._take(count, reader)
        skipped = start - self.read - 1
        more = self._take(None if count is None else skipped + count, reader)
        return more[skipped:]

    def _current(self, reader: Reader, move: bool) -> tuple[list[Any], int]:
        """FETCH 0 / RELATIVE 0: the row the cursor is on, if any."""
        on_row = self.position >= 1 and (self.end is None or self.position <= self.end)
        if move or not on_row:
            return [], int(on_row)
        rows = self._from(self.position, 1, reader)
        return rows, len(rows)

    def _forward(self, count: int | None, reader: Reader) -> list[Any]:
        rows = self._from(self.position + 1, count, reader)
        if count is not None and len(rows) == count:
            self.position += count
        else:
            assert self.end is not None
            self.position = self.end + 1
        return rows

    def _backward(self, count: int | None) -> list[Any]:
        if not self.scroll:
            self._refuse()
        last = self.position - 1  # the first row back (the last one after the end)
        start = 0 if count is None else max(last - count, 0)
        rows = self.kept[start:last][::-1] if last >= 1 else []
        self.position = 0 if count is None else max(self.position - count, 0)
        return rows

    def _absolute(self, target: int, from_end: bool, reader: Reader) -> list[Any]:
        """ABSOLUTE n (``from_end``: n < 0) or RELATIVE n as the position it aims at."""
        if from_end:
            if not self.scroll:
                self._refuse()
            self._take(None, reader)
            assert self.end is not None
            target += self.end + 1
        elif not self.scroll and target <= self.position and not (
                target == 0 and self.position == 0):
            self._refuse()  # back, or again to where it is (but at the start)
        if target <= 0:
            self.position = 0
            return []
        rows = self._from(target, 1, reader)
        if rows:
            self.position = target
        else:
            assert self.end is not None
            self.position = self.end + 1
        return rows

"""Aggregates that keep their rows and compute the result from all of them.

SQLite calls ``step`` for each row and ``finalize`` once at the end; as a
window function it also calls ``inverse`` for the row leaving the frame
(always the oldest, so the rows are a deque) and ``value`` for the current
frame. A subclass says what its rows make (``result``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Sequence
from typing import Any


class Collector(ABC):
    """An aggregate over the rows (argument tuples) it was given."""

    def __init__(self) -> None:
        self.rows: deque[tuple[Any, ...]] = deque()

    def step(self, *row: Any) -> None:
        self.rows.append(row)

    def inverse(self, *row: Any) -> None:
        self.rows.popleft()

    def value(self) -> Any:
        return self.result(self.rows)

    def finalize(self) -> Any:
        return self.result(self.rows)

    @abstractmethod
    def result(self, rows: Sequence[tuple[Any, ...]]) -> Any:
        """The aggregate of ``rows`` (SQL NULL for none, as a rule)."""

"""Rows packed into one JSON value and read back exactly.

SQLite has no LATERAL: what a FROM item computes per row of the items before
it (and what set-returning functions in a select list compute per row) is
made by a scalar subquery, which ``sqlext_pack`` folds into a JSON array of
rows; json_each() turns it back into rows and ``sqlext_field`` reads their
values (``sqlext.translate.lateral`` writes the SQL). The values come back as
they were stored: floats keep every digit and blobs their bytes, which
SQLite's own json_group_array() would not keep.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from executor.functions.declare import Declarations

FUNCTIONS = Declarations()


def _encode(value: Any) -> Any:
    """A storage value as JSON: blobs and infinities as one-key objects."""
    if isinstance(value, bytes):
        return {"x": value.hex()}
    if isinstance(value, float) and math.isinf(value):
        return {"i": 1 if value > 0 else -1}
    return value


def _decode(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "x" in value:
        return bytes.fromhex(value["x"])
    return math.inf if value["i"] > 0 else -math.inf


@FUNCTIONS.internal_aggregate("sqlext_pack", -1)
class _Pack:
    """The rows an aggregate sees, in order, as one JSON array of arrays."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []

    def step(self, *values: Any) -> None:
        self.rows.append([_encode(value) for value in values])

    def finalize(self) -> str:
        return json.dumps(self.rows, ensure_ascii=False, separators=(",", ":"))


@functools.lru_cache(maxsize=1024)
def _row(packed: str) -> list[Any]:
    loaded: list[Any] = json.loads(packed)
    return loaded


@FUNCTIONS.internal("sqlext_field", 2)
def _field(packed: Any, index: int) -> Any:
    """Value ``index`` of a packed row (json_each's ``value``); NULL for the
    row a LEFT JOIN makes up."""
    if packed is None:
        return None
    return _decode(_row(packed)[index])

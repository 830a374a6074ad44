"""json_agg, jsonb_agg, json_object_agg and jsonb_object_agg.

Their arguments arrive as JSON text already (the translator wraps values of
other types in ``sqlext_json_build``), so the aggregates only lay the
elements out as PostgreSQL does: json keeps its own spacing (``[1, 2]``,
``{ "k" : v }``, and a line break between rows or arrays), jsonb is
normalised (``{"k": v}``, keys sorted, the last of repeated keys kept).
Each is a window function too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.sqltypes import SqlType
from executor import codecs
from executor.functions.collecting import Collector
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()

_JSON = SqlType(t.JSON)
_JSONB = SqlType(t.JSONB)
_JSONB_IN = codecs.text_decoder(t.JSONB)


def json_agg_text(rows: Sequence[tuple[Any, ...]]) -> str | None:
    """Rows of (whether the values are arrays or rows, JSON text)."""
    if not rows:
        return None
    parts = ["["]
    for index, (structured, value) in enumerate(rows):
        if index:
            parts.append(", ")
            if structured and value is not None:
                parts.append("\n ")
        parts.append("null" if value is None else value)
    parts.append("]")
    return "".join(parts)


def jsonb_agg_text(rows: Sequence[tuple[Any, ...]]) -> str | None:
    """Rows of (JSON text,)."""
    if not rows:
        return None
    return _JSONB_IN("[" + ", ".join("null" if value is None else value
                                     for (value,) in rows) + "]")


def _members(rows: Sequence[tuple[Any, ...]], separator: str) -> list[str]:
    """``key separator value`` for rows of (key as a JSON string, JSON text)."""
    members = []
    for key, value in rows:
        if key is None:
            raise errors.InvalidParameterValue("field name must not be null")
        members.append(key + separator + ("null" if value is None else value))
    return members


def json_object_agg_text(rows: Sequence[tuple[Any, ...]]) -> str | None:
    if not rows:
        return None
    return "{ " + ", ".join(_members(rows, " : ")) + " }"


def jsonb_object_agg_text(rows: Sequence[tuple[Any, ...]]) -> str | None:
    if not rows:
        return None
    return _JSONB_IN("{" + ", ".join(_members(rows, ": ")) + "}")


class _JsonAgg(Collector):
    def result(self, rows: Sequence[tuple[Any, ...]]) -> Any:
        return json_agg_text(rows)


class _JsonbAgg(Collector):
    def result(self, rows: Sequence[tuple[Any, ...]]) -> Any:
        return jsonb_agg_text(rows)


class _JsonObjectAgg(Collector):
    def result(self, rows: Sequence[tuple[Any, ...]]) -> Any:
        return json_object_agg_text(rows)


class _JsonbObjectAgg(Collector):
    def result(self, rows: Sequence[tuple[Any, ...]]) -> Any:
        return jsonb_object_agg_text(rows)


FUNCTIONS.aggregate("json_agg", _JSON, _JsonAgg, None, sqlite_args=2)
FUNCTIONS.aggregate("jsonb_agg", _JSONB, _JsonbAgg, None)
FUNCTIONS.aggregate("json_object_agg", _JSON, _JsonObjectAgg, None, None, min_args=2,
                    max_args=2, sqlite_args=2)
FUNCTIONS.aggregate("jsonb_object_agg", _JSONB, _JsonbObjectAgg, None, None, min_args=2,
                    max_args=2, sqlite_args=2)

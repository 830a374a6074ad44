"""Composite (record) values: held as JSON objects, typed by their shape.

Functions returning records (``information_schema._pg_expandarray``) produce
``json_object(...)``; ``(value).field`` becomes ``json_extract``. A record's
SqlType has OID ``record`` and a typmod that numbers its shape (the field
names and types), registered here once per process.
"""

from __future__ import annotations

from catalog import errors
from catalog import types as t
from catalog.sqltypes import SqlType

_RECORD_SHAPES: list[tuple[tuple[str, SqlType], ...]] = []


def record_type(fields: tuple[tuple[str, SqlType], ...]) -> SqlType:
    """The type of a composite value with these fields. Records are held as
    JSON objects; the typmod numbers the shape (field names and types)."""
    if fields not in _RECORD_SHAPES:
        _RECORD_SHAPES.append(fields)
    return SqlType(t.RECORD, _RECORD_SHAPES.index(fields))


def record_fields(value_type: SqlType) -> tuple[tuple[str, SqlType], ...]:
    """The fields of a record type made by ``record_type`` (none for other types)."""
    if value_type.oid != t.RECORD or not 0 <= value_type.typmod < len(_RECORD_SHAPES):
        return ()
    return _RECORD_SHAPES[value_type.typmod]


def record_field(record: SqlType, name: str) -> SqlType:
    fields = record_fields(record)
    if not fields:
        raise errors.WrongObjectType(f"column notation .{name} applied to a value that is "
                                     "not a composite type")
    for field, field_type in fields:
        if field == name:
            return field_type
    raise errors.UndefinedColumn(f'could not identify column "{name}" in record data type')


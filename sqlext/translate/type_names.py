"""Type names written in SQL (casts, column definitions) as ``SqlType`` values."""

from __future__ import annotations

from typing import Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.schema import PG_CATALOG
from catalog.sqltypes import SqlType

_DTYPE: Final[dict[exp.DataType.Type, int]] = {
    exp.DataType.Type.INT: t.INT4,
    exp.DataType.Type.SMALLINT: t.INT2,
    exp.DataType.Type.TINYINT: t.INT2,
    exp.DataType.Type.BIGINT: t.INT8,
    exp.DataType.Type.SERIAL: t.INT4,
    exp.DataType.Type.SMALLSERIAL: t.INT2,
    exp.DataType.Type.BIGSERIAL: t.INT8,
    exp.DataType.Type.FLOAT: t.FLOAT4,
    exp.DataType.Type.DOUBLE: t.FLOAT8,
    exp.DataType.Type.DECIMAL: t.NUMERIC,
    exp.DataType.Type.TEXT: t.TEXT,
    exp.DataType.Type.VARCHAR: t.VARCHAR,
    exp.DataType.Type.CHAR: t.BPCHAR,
    exp.DataType.Type.BPCHAR: t.BPCHAR,
    exp.DataType.Type.NAME: t.NAME,
    exp.DataType.Type.BOOLEAN: t.BOOL,
    exp.DataType.Type.VARBINARY: t.BYTEA,
    exp.DataType.Type.DATE: t.DATE,
    exp.DataType.Type.TIME: t.TIME,
    exp.DataType.Type.TIMESTAMP: t.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ: t.TIMESTAMPTZ,
    exp.DataType.Type.INTERVAL: t.INTERVAL,
    exp.DataType.Type.UUID: t.UUID,
    exp.DataType.Type.INET: t.INET,
    exp.DataType.Type.JSON: t.JSON,
    exp.DataType.Type.JSONB: t.JSONB,
}

SERIAL_TYPES: Final = frozenset(
    {exp.DataType.Type.SERIAL, exp.DataType.Type.SMALLSERIAL, exp.DataType.Type.BIGSERIAL}
)


def _int_param(node: exp.Expression) -> int:
    value = node.this if isinstance(node, exp.DataTypeParam) else node
    try:
        return int(value.name)
    except (TypeError, ValueError) as exc:
        raise errors.SqlSyntaxError(f"invalid type modifier {node.sql()}") from exc


def _name_parts(name: exp.Expression) -> tuple[list[str], list[bool]]:
    """The words of a type name as PostgreSQL reads them (a quoted one keeps
    its case), and which were quoted."""
    parts = list(name.flatten()) if isinstance(name, exp.Dot) else [name]
    quoted = [isinstance(part, exp.Identifier) and part.quoted for part in parts]
    words = [part.name if quote else part.name.lower()
             for part, quote in zip(parts, quoted, strict=True)]
    return words, quoted


def written_type_name(node: exp.Expression) -> str | None:
    """The last word of a type written by name (``"pg_catalog"."_int4"`` is
    ``_int4``): the name PostgreSQL gives a column cast to it. None for the
    types sqlglot knows by keyword."""
    while isinstance(node, exp.DataType) and node.this == exp.DataType.Type.ARRAY:
        node = node.expressions[0]
    kind = node.args.get("kind") if isinstance(node, exp.DataType) else None
    if not isinstance(node, exp.DataType) or node.this != exp.DataType.Type.USERDEFINED or (
            not isinstance(kind, exp.Expression)):
        return None
    return _name_parts(kind)[0][-1]


def _named_type(name: exp.Expression) -> int:
    """The OID of a type named by an identifier, possibly qualified by
    ``pg_catalog`` and quoted (``"pg_catalog"."_int4"``, as asyncpg writes
    type names): a quoted name keeps its case, and is never an alias."""
    words, quoted = _name_parts(name)
    if len(words) == 1 and not quoted[0]:
        return t.lookup_name(words[-1]).oid
    found = t.BY_NAME.get(words[-1]) if words[:-1] in ([], [PG_CATALOG]) else None
    if found is None:
        raise errors.UndefinedObject(f'type "{".".join(words)}" does not exist')
    return found.oid


def resolve_type(node: exp.Expression) -> SqlType:
    """The SqlType written in a cast or column definition."""
    if isinstance(node, exp.ObjectIdentifier):
        return SqlType(t.lookup_name(node.name).oid)
    if not isinstance(node, exp.DataType):
        return SqlType(t.lookup_name(node.sql(dialect="postgres")).oid)
    dtype = node.this
    params = node.expressions
    if dtype == exp.DataType.Type.ARRAY:
        if not params:
            raise errors.FeatureNotSupported("arrays without an element type are not supported")
        element = resolve_type(params[0])
        array_oid = t.array_of(element.oid)
        if not array_oid:
            raise errors.UndefinedObject(f'type "{params[0].sql()}[]" does not exist')
        return SqlType(array_oid, element.typmod)
    if dtype == exp.DataType.Type.USERDEFINED:
        kind = node.args.get("kind")
        oid: int | None = (_named_type(kind) if isinstance(kind, exp.Expression)
                           else t.lookup_name(str(kind or node.sql(dialect="postgres"))).oid)
    else:
        oid = _DTYPE.get(dtype)
    if oid is None:
        raise errors.FeatureNotSupported(
            f'type "{node.sql(dialect="postgres").lower()}" is not supported'
        )
    return SqlType(oid, _typmod(oid, params, char=dtype == exp.DataType.Type.CHAR))


def _typmod(oid: int, params: list[exp.Expression], char: bool) -> int:
    """The type modifier written after a type name (``numeric(10,2)``); a
    bare ``char`` is ``char(1)``."""
    typmod = -1
    if oid == t.NUMERIC and params:
        precision = _int_param(params[0])
        scale = _int_param(params[1]) if len(params) > 1 else 0
        if not 1 <= precision <= 1000:
            raise errors.InvalidParameterValue(
                f"NUMERIC precision {precision} must be between 1 and 1000"
            )
        if not -1000 <= scale <= 1000:
            raise errors.InvalidParameterValue(
                f"NUMERIC scale {scale} must be between -1000 and 1000")
        typmod = t.numeric_typmod(precision, scale)
    elif oid in (t.VARCHAR, t.BPCHAR):
        if params:
            typmod = t.char_typmod(_int_param(params[0]))
        elif oid == t.BPCHAR and char:
            typmod = t.char_typmod(1)
    elif oid in (t.TIMESTAMP, t.TIMESTAMPTZ, t.TIME) and params:
        typmod = _int_param(params[0])
    return typmod

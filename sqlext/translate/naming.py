"""What PostgreSQL calls result columns, and where names stand in the text."""

from __future__ import annotations

from sqlglot import exp

from catalog import types as t
from sqlext.translate.type_names import resolve_type, written_type_name

_SPECIAL_NAMES: dict[type[exp.Expression], str] = {
    exp.StrPosition: "position", exp.Substring: "substring", exp.GroupConcat: "string_agg",
    exp.Extract: "extract", exp.Pow: "?column?", exp.Unnest: "unnest",
    exp.AtTimeZone: "timezone", exp.MatchAgainst: "?column?",
}


def _named_by_operand(cast: exp.Cast) -> bool:
    """Whether a cast's column name comes from what it casts (a column, a
    function) rather than from its type; a cast of a cast of a constant takes
    the outer type's name, as PostgreSQL's FigureColname does."""
    argument = cast.this
    while isinstance(argument, exp.Paren):
        argument = argument.this
    if isinstance(argument, exp.Cast):
        return _named_by_operand(argument)
    return output_name(argument) != "?column?"


def output_name(node: exp.Expression) -> str:
    """PostgreSQL's name for a result column (FigureColname)."""
    if isinstance(node, exp.Alias):
        return node.alias
    inner = node
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if isinstance(inner, exp.Column):
        return inner.name
    if isinstance(inner, exp.Cast):
        if _named_by_operand(inner):
            return output_name(inner.this)
        written = written_type_name(inner.args["to"])
        if written is not None:
            return written
        oid = resolve_type(inner.args["to"]).oid
        return t.TYPES[t.array_element(oid) or oid].name  # 'x'::inet[] is named inet
    if isinstance(inner, exp.Anonymous):
        return inner.name.lower().rpartition(".")[2]
    if isinstance(inner, exp.Dot) and isinstance(inner.expression, exp.Func):
        return output_name(inner.expression)  # pg_catalog.set_config(...)
    if isinstance(inner, exp.Dot) and isinstance(inner.expression, exp.Identifier):
        return inner.expression.name  # (record).field
    if isinstance(inner, exp.Bracket | exp.Filter | exp.WithinGroup):
        return output_name(inner.this)
    if isinstance(inner, exp.Trim):
        return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(
            str(inner.args.get("position") or "").upper(), "btrim")
    if isinstance(inner, exp.Window):
        return output_name(inner.this)
    if isinstance(inner, exp.Case):
        return "case"
    if isinstance(inner, exp.Array):
        return "array"
    if isinstance(inner, exp.Exists):
        return "exists"
    if isinstance(inner, exp.Coalesce):
        return "coalesce"
    if isinstance(inner, exp.CurrentTimestamp):
        return "current_timestamp"
    if isinstance(inner, exp.CurrentDate):
        return "current_date"
    if isinstance(inner, exp.CurrentUser):
        return "current_user"
    if isinstance(inner, exp.CurrentSchema):
        return "current_schema"
    if isinstance(inner, exp.Interval):
        return "interval"
    if isinstance(inner, exp.Subquery) and isinstance(inner.this, exp.Select):
        projections = inner.this.expressions
        if projections:
            return output_name(projections[0])
    named = _SPECIAL_NAMES.get(type(inner))
    if named is not None:
        return named
    if isinstance(inner, exp.Func) and not isinstance(inner, exp.Binary):
        return inner.sql_name().lower()
    return "?column?"


def source_position(node: exp.Expression | None) -> int | None:
    """1-based position of a name or an operator in the statement text
    (error positions), where the parser recorded one."""
    meta = node.meta if node is not None and node.meta else {}
    start = meta.get("start")
    return start + 1 if isinstance(start, int) else None

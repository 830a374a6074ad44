"""PostgreSQL 15's keywords that an identifier must be quoted to be, and
quoting identifiers as PostgreSQL does (ruleutils.c's quote_identifier,
behind quote_ident() and format()'s %I)."""

from __future__ import annotations

from typing import Final

QUOTED_KEYWORDS: Final = frozenset({
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric",
    "authorization", "between", "bigint", "binary", "bit", "boolean", "both", "case", "cast",
    "char", "character", "check", "coalesce", "collate", "collation", "column", "concurrently",
    "constraint", "create", "cross", "current_catalog", "current_date", "current_role",
    "current_schema", "current_time", "current_timestamp", "current_user", "dec", "decimal",
    "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "exists",
    "extract", "false", "fetch", "float", "for", "foreign", "freeze", "from", "full", "grant",
    "greatest", "group", "grouping", "having", "ilike", "in", "initially", "inner", "inout",
    "int", "integer", "intersect", "interval", "into", "is", "isnull", "join", "lateral",
    "leading", "least", "left", "like", "limit", "localtime", "localtimestamp", "national",
    "natural", "nchar", "none", "normalize", "not", "notnull", "null", "nullif", "numeric",
    "offset", "on", "only", "or", "order", "out", "outer", "overlaps", "overlay", "placing",
    "position", "precision", "primary", "real", "references", "returning", "right", "row",
    "select", "session_user", "setof", "similar", "smallint", "some", "substring", "symmetric",
    "table", "tablesample", "then", "time", "timestamp", "to", "trailing", "treat", "trim",
    "true", "union", "unique", "user", "using", "values", "varchar", "variadic", "verbose",
    "when", "where", "window", "with", "xmlattributes", "xmlconcat", "xmlelement", "xmlexists",
    "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable",
})
"""The reserved, column-name and type-or-function-name keywords
(``SELECT word FROM pg_get_keywords() WHERE catcode <> 'U'``)."""

_LEADING: Final = frozenset("abcdefghijklmnopqrstuvwxyz_")
_FOLLOWING: Final = _LEADING | frozenset("0123456789")


def quote_identifier(name: str) -> str:
    """``name`` as SQL must spell it: unchanged if it is lower-case letters,
    digits and underscores not starting with a digit, and no keyword that
    needs quoting; else in double quotes, inner ones doubled."""
    if name and name[0] in _LEADING and all(c in _FOLLOWING for c in name) and (
            name not in QUOTED_KEYWORDS):
        return name
    return '"' + name.replace('"', '""') + '"'

"""What PostgreSQL's catalog shows of an object that the object does not
hold as such: a view's text, an index's key columns, a serial sequence's
type and column. The catalog information functions
(``executor.functions.catalog_info``) and the pg_catalog rows
(``executor.pg_catalog``) both derive them from here, so they agree."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from catalog import types as t
from catalog.schema import Catalog, Relation, Sequence
from catalog.system import KNOWN_OIDS

_INDEX_KEYS = " USING btree ("


_KEYWORDS: Final = frozenset({
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
    "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable"})
"""PostgreSQL 15's keywords that are not unreserved (``pg_get_keywords()``):
quote_ident quotes them."""


def quote_identifier(name: str) -> str:
    """``name`` as PostgreSQL prints it in a definition (quote_ident): quoted
    unless it is a lower-case identifier and no keyword that needs quotes."""
    plain = name.isidentifier() and name == name.lower() and name.isascii()
    return name if plain and name not in _KEYWORDS else '"' + name.replace('"', '""') + '"'


def name_parts(text: str) -> list[str] | None:
    """A possibly qualified, possibly quoted name as PostgreSQL reads it
    (unquoted parts fold to lower case); None if it is not one."""
    parts: list[str] = []
    rest = text.strip()
    while True:
        if rest.startswith('"'):
            end = rest.find('"', 1)
            while end != -1 and rest[end + 1:end + 2] == '"':
                end = rest.find('"', end + 2)
            if end == -1:
                return None
            parts.append(rest[1:end].replace('""', '"'))
            rest = rest[end + 1:]
        else:
            word, dot, after = rest.partition(".")
            if not word.strip():
                return None
            parts.append(word.strip().lower())
            rest = dot + after
        if not rest:
            return parts
        if not rest.startswith("."):
            return None
        rest = rest[1:]


def show_reg_constants(expression: str, name_of: Callable[[int], str | None]) -> str:
    """A stored expression (a column default) as it is shown: its regclass
    constants are kept as OIDs (``nextval('16390'::regclass)``), bound to
    the relation as PostgreSQL binds them, and print as ``name_of`` names
    the relation (a number where there is none)."""
    shown: list[str] = []
    position = 0
    while (start := expression.find("'", position)) != -1:
        end = start + 1
        while (end := expression.find("'", end)) != -1 and expression[end + 1:end + 2] == "'":
            end += 2
        if end == -1:
            break
        content = expression[start + 1:end]
        name = name_of(int(content)) if content.isdigit() and expression.startswith(
            "::regclass", end + 1) else None
        shown.append(expression[position:start + 1])
        shown.append(content if name is None else name.replace("'", "''"))
        position = end
    shown.append(expression[position:])
    return "".join(shown)


def bound_oids(expression: str) -> list[int]:
    """The OIDs of the relations a stored expression binds (its regclass
    constants, ``show_reg_constants``)."""
    found: list[int] = []

    def collect(oid: int) -> None:
        found.append(oid)

    show_reg_constants(expression, collect)
    return found


def index_keys(index: Relation) -> list[tuple[str, bool]]:
    """An index's key columns as its definition spells them (quoted where
    needed), each with whether it is descending."""
    definition = index.definition or ""
    _, found, keys = definition.partition(_INDEX_KEYS)
    if not found:
        return [(quote_identifier(column), False) for column in index.index_columns]
    parts: list[str] = []
    current, quoted = "", False
    for character in keys.removesuffix(")"):
        if character == '"':
            quoted = not quoted
        if character == "," and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    parts.append(current.strip())
    return [(part.removesuffix(" DESC"), part.endswith(" DESC")) for part in parts]


SEQUENCE_MAX = {t.INT2: 2**15 - 1, t.INT4: 2**31 - 1, t.INT8: 2**63 - 1}


def owner_column(sequence: Sequence, catalog: Catalog) -> tuple[Relation, int] | None:
    """The table and column number a serial column's sequence belongs to."""
    if sequence.owned_by is None:
        return None
    table = catalog.find_relation(sequence.owned_by[0], sequence.schema)
    if table is None:
        return None
    return table, table.column_number(sequence.owned_by[1])


def sequence_type(sequence: Sequence, catalog: Catalog) -> int:
    """The sequence's type (as declared; in snapshots that did not record
    it, a serial column's sequence has the column's type, others bigint)."""
    if sequence.type_oid:
        return sequence.type_oid
    owner = owner_column(sequence, catalog)
    if owner is None or not owner[1]:
        return t.INT8
    table, number = owner
    type_oid = table.columns[number - 1].type_oid
    return type_oid if type_oid in SEQUENCE_MAX else t.INT8


def descriptions(catalog: Catalog) -> Iterator[tuple[tuple[int, int, int], str]]:
    """The comments of the catalog's objects, as pg_description keys them:
    (object OID, OID of its catalog, column number or 0) -> comment."""
    namespace, relation_class = KNOWN_OIDS["pg_namespace"], KNOWN_OIDS["pg_class"]
    for schema in catalog.schemas.values():
        if schema.comment is not None:
            yield (schema.oid, namespace, 0), schema.comment
    for relation in catalog.relations.values():
        if relation.comment is not None:
            yield (relation.oid, relation_class, 0), relation.comment
        for number, column in enumerate(relation.columns, start=1):
            if column.comment is not None:
                yield (relation.oid, relation_class, number), column.comment
    for sequence in catalog.sequences.values():
        if sequence.comment is not None:
            yield (sequence.oid, relation_class, 0), sequence.comment

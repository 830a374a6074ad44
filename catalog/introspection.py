"""What PostgreSQL's catalog shows of an object that the object does not
hold as such: a view's text, an index's key columns, a serial sequence's
type and column. The catalog information functions
(``executor.functions.catalog_info``) and the pg_catalog rows
(``executor.pg_catalog``) both derive them from here, so they agree."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from catalog import types as t
from catalog.keywords import RESERVED
from catalog.schema import Catalog, Relation, Sequence
from catalog.system import KNOWN_OIDS

_INDEX_KEYS = " USING btree ("


_PLAIN_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")


def quote_identifier(name: str) -> str:
    """``name`` as PostgreSQL prints it in a definition: quoted unless it is
    a lower-case identifier and no key word (unreserved ones aside)."""
    if _PLAIN_IDENTIFIER.fullmatch(name) and name not in RESERVED:
        return name
    return '"' + name.replace('"', '""') + '"'


def index_definition(index: Relation) -> str | None:
    """An index's CREATE INDEX as pg_get_indexdef prints it."""
    if index.definition is None or index.predicate is None:
        return index.definition
    return f"{index.definition} WHERE {index.predicate}"


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


QUOTED = re.compile(r"'((?:[^']|'')*)'(::regclass)?|\"(?:[^\"]|\"\")*\"")
"""A string constant (and whether it is a regclass) or a quoted name."""


def _regclass_name(found: re.Match[str]) -> list[str] | None:
    """[schema, name] of a regclass constant ``QUOTED`` found (None for
    other constants and quoted names)."""
    parts = name_parts(found.group(1).replace("''", "'")) if found.group(2) else None
    return parts if parts is not None and len(parts) == 2 else None


def shown_expression(text: str, visible: Callable[[str, str], bool]) -> str:
    """A kept expression (defaults, index predicates: PostgreSQL's text with
    relations named in full in their regclass constants) as pg_get_expr
    shows it: a relation unqualified where ``visible(schema, name)``."""
    def shown(found: re.Match[str]) -> str:
        parts = _regclass_name(found)
        if parts is None or not visible(*parts):
            return found.group(0)
        return "'" + quote_identifier(parts[1]).replace("'", "''") + "'::regclass"
    return QUOTED.sub(shown, text)


def bound_names(text: str) -> Iterator[tuple[str, str]]:
    """(schema, name) of each relation a kept expression binds (names in
    full in a regclass constant): pg_depend records them."""
    for found in QUOTED.finditer(text):
        parts = _regclass_name(found)
        if parts is not None:
            yield parts[0], parts[1]

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

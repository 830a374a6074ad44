"""A view's query as the catalog keeps it and as pg_get_viewdef shows it.

PostgreSQL binds a view to the relations its query reads when the view is
made, and prints the query back naming each relation with its schema
unless the search path of the moment finds it without one (pg_dump, whose
search path is empty, gets every name qualified). sqlext keeps the query's
text with every relation name schema-qualified (``bound_query``) and leaves
the schemas out when showing it (``shown_query``), touching nothing else of
the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.tokens import Token, TokenType

from catalog.schema import PUBLIC, Catalog, Relation


def _relations(tree: exp.Expression) -> Iterable[exp.Table]:
    """The names of stored relations in a query (not its CTEs, not functions)."""
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier) and not (
                not table.db and table.name in ctes):
            yield table


def _text(tree: exp.Expression) -> str:
    return tree.sql(dialect="postgres", normalize_functions=False)


def bound_query(query: exp.Expression, catalog: Catalog, search_path: tuple[str, ...]) -> str:
    """The text of a view's query with each relation it reads named with its
    schema, as the search path finds them now."""
    bound = query.copy()
    for table in _relations(bound):
        if not table.db:
            relation = catalog.find_relation(table.name, None, search_path)
            if relation is not None:
                table.set("db", exp.to_identifier(relation.schema))
    return _text(bound)


def _name(token: Token) -> str | None:
    """The name a token spells (None: it spells no name)."""
    if token.token_type in (TokenType.VAR, TokenType.IDENTIFIER) or token.text.isidentifier():
        return token.text
    return None


def shown_query(definition: str, visible: Callable[[str, str], bool]) -> str:
    """A stored query with the schema left out of each two-part name
    ``schema.relation`` that ``visible(schema, relation)`` says the search
    path finds (a two-part name that is no relation's is left alone)."""
    tokens = Postgres().tokenize(definition)
    cuts: list[tuple[int, int]] = []
    for index in range(len(tokens) - 2):
        schema, dot, name = tokens[index:index + 3]
        qualified = dot.token_type == TokenType.DOT and (
            index == 0 or tokens[index - 1].token_type != TokenType.DOT) and (
            index + 3 == len(tokens) or tokens[index + 3].token_type != TokenType.DOT)
        parts = (_name(schema), _name(name))
        if qualified and parts[0] is not None and parts[1] is not None and visible(*parts):
            cuts.append((schema.start, dot.end + 1))
    for start, end in reversed(cuts):
        definition = definition[:start] + definition[end:]
    return definition


def view_definition(view: Relation, visible: Callable[[str, str], bool]) -> str | None:
    """A view's query as pg_get_viewdef and pg_views show it."""
    if view.kind not in ("v", "m") or not view.definition:
        return None
    return f" {shown_query(view.definition, visible)};"


def in_public(schema: str, name: str) -> bool:
    """What the default search path finds: the relations of schema public
    (information_schema's views and column defaults are filled before any
    session reads them, not computed for each reader as PostgreSQL's are)."""
    return schema == PUBLIC

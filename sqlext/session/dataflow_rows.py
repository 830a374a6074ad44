"""Running the rows inserted into the extension's table ``sqlext.dataflow``
(``catalog.extension``): what a restore of a pg_dump does with the
dataflow's statements (``sqlext.dataflow.rebuild`` writes them).

Each row's statement runs in position order, inside the transaction of the
INSERT or COPY that inserted it, as the session's role, with its object's
schema and then public as its search path: the statements name their
objects with their schemas, and the bodies of procedures and triggers find
the names they use the way a triggered procedure does (pg_dump restores
with an empty search path). A row holds one statement that makes a
stream, window, procedure or trigger, or a COMMENT ON, or only an SQL
comment (row 0 says what a dump leaves out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from sqlglot import exp

from catalog import errors
from catalog.schema import PUBLIC
from executor.ddl.dispatch import DdlSpec
from sqlext.compile.compiler import CompileContext, compile_statement
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse

_STATEMENTS: Final = (x.CreateStream, x.CreateWindow, x.CreateProcedure, x.CreateTrigger,
                      x.CommentOn)


def run_definitions(rows: list[tuple[int, str]], context: Callable[[], CompileContext],
                    apply: Callable[[DdlSpec], object]) -> None:
    """Run the statements of ``rows`` ((position, statement) pairs);
    ``context`` is the session's compile context of the moment, ``apply``
    applies a schema change in its transaction."""
    for _, text in sorted(rows, key=lambda row: row[0]):
        for statement in parse(text).statements:
            if not isinstance(statement, _STATEMENTS):
                raise errors.FeatureNotSupported(
                    "a row of sqlext.dataflow must be a CREATE STREAM, WINDOW, PROCEDURE or "
                    "TRIGGER statement, or COMMENT ON",
                    detail=f"The row holds: {text[:200]}")
            session = context()
            schema = _object_schema(statement)
            path = tuple(dict.fromkeys((schema, PUBLIC))) if schema else session.search_path
            compiled = compile_statement(statement, replace(session, search_path=path), ())
            assert compiled.ddl is not None
            apply(compiled.ddl)


def _object_schema(statement: exp.Expression) -> str | None:
    """The schema the statement names its object (or its trigger's relation) in."""
    name = statement.args["target"] if isinstance(statement, x.CreateTrigger) else statement.this
    if isinstance(name, exp.Schema):  # CREATE STREAM s (columns)
        name = name.this
    return name.db or None if isinstance(name, exp.Table) else None

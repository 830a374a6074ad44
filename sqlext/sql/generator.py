"""The generator of the sqlext dialect: our statement nodes printed as the
canonical PostgreSQL text the catalog stores and the command log replays."""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.generators.postgres import PostgresGenerator

from catalog.introspection import quote_identifier
from sqlext.sql import nodes as x
from sqlext.sql.tokenizer import SqlExtTokenizer


def _words(*parts: object) -> str:
    return " ".join(str(part) for part in parts if part not in (None, "", False))


_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def quote_name(name: str) -> str:
    """``name`` as SQL that reads back as ``name``: unquoted only when it is a
    lower-case word and no keyword (unquoted names fold to lower case)."""
    quoted = not _PLAIN_NAME.fullmatch(name) or name.upper() in SqlExtTokenizer.KEYWORDS or (
        quote_identifier(name) != name)  # PostgreSQL's own keywords too
    return exp.to_identifier(name, quoted=quoted).sql(dialect="postgres")



def dollar_quote(body: str) -> str:
    """``body`` as a dollar-quoted string, with a tag that cannot end it early."""
    tag = "$$"
    number = 0
    while (body + tag).find(tag) != len(body):
        number += 1
        tag = f"$body{number}$"
    return f"{tag}{body}{tag}"


def _modes(node: exp.Expression) -> str:
    isolation = node.args.get("isolation")
    read_only = node.args.get("read_only")
    snapshot = node.args.get("snapshot")
    if snapshot is not None:
        return "SNAPSHOT " + exp.Literal.string(snapshot).sql(dialect="postgres")
    return _words(
        f"ISOLATION LEVEL {isolation.upper()}" if isolation else None,
        {True: "READ ONLY", False: "READ WRITE"}.get(read_only) if read_only is not None else None,
    )


def _set_sql(_: PostgresGenerator, node: exp.Expression) -> str:
    values = node.expressions
    shown = ", ".join(v.sql(dialect="postgres") for v in values) if values else "DEFAULT"
    return _words("SET", "LOCAL" if node.args.get("local") else None, node.name, "TO", shown)


def _copy_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    source = node.this
    shown = f"({generator.sql(source)})" if isinstance(source, exp.Query) else generator.sql(source)
    columns = node.args.get("columns")
    if columns:
        shown += " (" + ", ".join(quote_name(c) for c in columns) + ")"
    target = node.args.get("target")
    where = "TO" if node.args.get("to") else "FROM"
    endpoint = (
        exp.Literal.string(target).sql() if target else ("STDOUT" if node.args.get("to")
                                                         else "STDIN")
    )
    options = node.args.get("options") or {}
    rendered = ", ".join(
        f"{key} " + ("(" + ", ".join(map(quote_name, value)) + ")" if isinstance(value, list)
                     else exp.Literal.string(str(value)).sql())
        for key, value in options.items()
    )
    condition = node.args.get("where")
    return _words("COPY", shown, where, endpoint, f"WITH ({rendered})" if rendered else None,
                  generator.sql(condition) if condition is not None else None)


def _create_stream_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    options = node.args.get("options") or {}
    rendered = ", ".join(f"{quote_name(key)} = {exp.Literal.string(value).sql()}"
                         for key, value in options.items())
    return _words("CREATE STREAM", "IF NOT EXISTS" if node.args.get("exists") else None,
                  generator.sql(node, "this"), generator.sql(node, "partition") or None,
                  f"WITH ({rendered})" if rendered else None)


def _create_window_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    slide = node.args.get("slide")
    partition = node.args.get("partition")
    column = node.args.get("column")
    return _words(
        "CREATE WINDOW", generator.sql(node, "this"), "ON", generator.sql(node, "stream"),
        "ROWS" if node.args.get("rows") else "RANGE", generator.sql(node, "size"),
        f"SLIDE {generator.sql(slide)}" if slide is not None else None,
        f"PARTITION BY {quote_name(partition)}" if partition else None,
        f"ON {quote_name(column)}" if column else None)


def _procedure_param_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    default = node.args.get("default")
    return _words(quote_name(node.name) if node.this else None, generator.sql(node, "kind"),
                  f"DEFAULT {generator.sql(default)}" if default is not None else None)


def _create_procedure_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    body = node.args["body"]
    # A body ending in a -- comment would swallow an END on the same line.
    gap = "\n" if "--" in body else " "
    return _words(
        "CREATE", "OR REPLACE" if node.args.get("replace") else None, "PROCEDURE",
        f"{generator.sql(node, 'this')}({generator.expressions(node, flat=True)})",
        "LANGUAGE", quote_name(node.args["language"]),
        gap.join(part for part in ("BEGIN ATOMIC", body, "END") if part)
        if node.args.get("atomic")
        else f"AS {dollar_quote(body)}")


def _create_trigger_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    procedure = node.args.get("procedure")
    return _words(
        "CREATE TRIGGER", quote_name(node.name), "AFTER", node.args["event"].upper(), "ON",
        generator.sql(node, "target"),
        f"EXECUTE PROCEDURE {generator.sql(procedure)}()" if procedure
        else f"AS {dollar_quote(node.args['body'])}")


def _drop_dataflow_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    return _words("DROP", node.args["kind"].upper(),
                  "IF EXISTS" if node.args.get("exists") else None,
                  generator.expressions(node, flat=True),
                  "CASCADE" if node.args.get("cascade") else None)


def _explain_dataflow_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    name = generator.sql(node, "this")
    return _words("EXPLAIN", f"(FORMAT {node.args['format'].upper()})", "DATAFLOW",
                  name + "()" if node.args.get("procedure") else name)


def _fetch_sql(generator: PostgresGenerator, node: exp.Expression) -> str:
    direction = node.args.get("direction") or "forward"
    count = node.args.get("count")
    return _words(
        "MOVE" if node.args.get("move") else "FETCH", direction.upper(),
        None if direction in ("next", "prior", "first", "last")
        else "ALL" if count is None else str(count),
        "FROM", quote_name(node.name))


class SqlExtGenerator(PostgresGenerator):
    TRANSFORMS = {
        **PostgresGenerator.TRANSFORMS,
        x.Show: lambda _, e: f"SHOW {e.name}",
        x.SetVariable: _set_sql,
        x.SetTransaction: lambda _, e: _words(
            "SET SESSION CHARACTERISTICS AS TRANSACTION" if e.args.get("session")
            else "SET TRANSACTION", _modes(e)),
        x.Reset: lambda _, e: f"RESET {e.name}",
        x.Begin: lambda _, e: _words("BEGIN", _modes(e)),
        x.CommitTransaction: lambda _, e: _words("COMMIT",
                                                 "AND CHAIN" if e.args.get("chain") else None),
        x.RollbackTransaction: lambda _, e: _words("ROLLBACK",
                                                   "AND CHAIN" if e.args.get("chain") else None),
        x.PrepareTransaction: lambda _, e: "PREPARE TRANSACTION " + exp.Literal.string(
            e.name).sql(dialect="postgres"),
        x.FinishPrepared: lambda _, e: _words(
            "COMMIT" if e.args["commit"] else "ROLLBACK", "PREPARED",
            exp.Literal.string(e.name).sql(dialect="postgres")),
        x.Savepoint: lambda _, e: f"SAVEPOINT {quote_name(e.name)}",
        x.ReleaseSavepoint: lambda _, e: f"RELEASE SAVEPOINT {quote_name(e.name)}",
        x.RollbackToSavepoint: lambda _, e: f"ROLLBACK TO SAVEPOINT {quote_name(e.name)}",
        x.DeclareCursor: lambda g, e: _words(
            "DECLARE", quote_name(e.name), "BINARY" if e.args.get("binary") else None,
            "SCROLL" if e.args.get("scroll") else None, "CURSOR",
            "WITH HOLD" if e.args.get("hold") else None, "FOR", g.sql(e, "expression")),
        x.Fetch: _fetch_sql,
        x.CloseCursor: lambda _, e: f"CLOSE {quote_name(e.name) if e.this else 'ALL'}",
        x.Discard: lambda _, e: f"DISCARD {e.name.upper()}",
        x.Prepare: lambda g, e: f"PREPARE {quote_name(e.name)} AS {g.sql(e, 'expression')}",
        x.ExecutePrepared: lambda g, e: _words(
            "EXECUTE", quote_name(e.name),
            f"({g.expressions(e, flat=True)})" if e.expressions else None),
        x.Deallocate: lambda _, e: f"DEALLOCATE {quote_name(e.name) if e.this else 'ALL'}",
        x.CopyStatement: _copy_sql,
        x.Maintenance: lambda _, e: str(e.this),
        x.Listen: lambda _, e: f"LISTEN {quote_name(e.name)}",
        x.Unlisten: lambda _, e: f"UNLISTEN {quote_name(e.name) if e.this else '*'}",
        x.Notify: lambda _, e: f"NOTIFY {quote_name(e.name)}" + (
            "" if e.args.get("payload") is None
            else ", " + exp.Literal.string(e.args["payload"]).sql(dialect="postgres")),
        x.CreateStream: _create_stream_sql,
        x.CreateWindow: _create_window_sql,
        x.ProcedureParam: _procedure_param_sql,
        x.CreateProcedure: _create_procedure_sql,
        x.CreateTrigger: _create_trigger_sql,
        x.DropDataflow: _drop_dataflow_sql,
        x.Call: lambda g, e: f"CALL {g.sql(e, 'this')}({g.expressions(e, flat=True)})",
        x.ResumeProcedure: lambda g, e: f"ALTER PROCEDURE {g.sql(e, 'this')} RESUME",
        x.RefreshMatview: lambda g, e: f"REFRESH MATERIALIZED VIEW {g.sql(e, 'this')}",
        x.ExplainMatview: lambda g, e: f"EXPLAIN MATERIALIZED VIEW {g.sql(e, 'this')}",
        x.ExplainDataflow: _explain_dataflow_sql,
    }

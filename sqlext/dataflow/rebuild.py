"""The dataflow as statements: the rows of the extension's configuration
table ``sqlext.dataflow`` (``catalog.extension``), which is what a pg_dump
of sqlext carries of streams, windows, procedures and triggers, and
pg_get_triggerdef's text.

The rows come in an order that makes each statement's objects exist
before it runs: streams, windows, procedures (a procedure after those it
calls), then the triggers on streams and windows (triggers on tables are
pg_dump's, with their table). Every name is schema-qualified, and each
statement runs with its object's schema, then public, as its search path
(``sqlext.session.dataflow_rows``). Row 0 is a comment that says what a
dump of the dataflow leaves out.
"""

from __future__ import annotations

from collections.abc import Iterator

from catalog import types as t
from catalog.dataflow import DEFAULT_KEEP_BATCHES, Procedure, Trigger
from catalog.extension_members import is_member
from catalog.schema import Catalog, Column, Relation
from executor.functions.catalog_info import constraint_definition
from sqlext.dataflow.graph import dataflow_graph, window_definition
from sqlext.sql.generator import dollar_quote, quote_name
from sqlext.version import __version__

NOT_CARRIED = (
    f"-- sqlext {__version__}: these statements rebuild the streams, windows, procedures "
    "and triggers (inserted into sqlext.dataflow, each runs in position order). A dump "
    "carries the dataflow's definitions, not its state: the rows streams and windows hold "
    "(batches not yet processed, and those a stream keeps after they were), where windows "
    "stand, batch numbering and the batch ids accepted by streams with batch_column, and "
    "which procedures are stopped. Restored streams and windows start empty, and batches "
    "are numbered from 1 again.")
"""Row 0 of ``sqlext.dataflow``."""

_SERIAL_TYPES = {t.INT2: "smallserial", t.INT4: "serial", t.INT8: "bigserial"}


class DataflowText:
    """``executor.functions.declare.DataflowText`` for the engine."""

    def definitions(self, catalog: Catalog) -> list[tuple[int, str]]:
        return list(enumerate([NOT_CARRIED, *_statements(catalog)]))

    def trigger(self, catalog: Catalog, trigger: Trigger) -> str:
        return _trigger(trigger)


def _qualified(schema: str, name: str) -> str:
    return f"{quote_name(schema)}.{quote_name(name)}"


def _statements(catalog: Catalog) -> Iterator[str]:
    relations = sorted((r for r in catalog.relations.values() if is_member(catalog, r)
                        and (r.stream is not None or r.window is not None)),
                       key=lambda r: (r.window is not None, r.oid))
    for relation in relations:
        yield _stream(relation, catalog) if relation.window is None else _window(relation)
        yield from _comments(relation)
    for procedure in _procedures_in_call_order(catalog):
        yield _procedure(procedure)
    members = {(r.schema, r.name) for r in relations}
    for trigger in sorted(catalog.triggers.values(), key=lambda trigger: trigger.oid):
        if trigger.target in members:
            yield _trigger(trigger)


def _stream(stream: Relation, catalog: Catalog) -> str:
    parts = [_column(stream, column, catalog) for column in stream.columns]
    parts += [f"CONSTRAINT {quote_name(c.name)} "
              + constraint_definition(catalog, c, False)
              for c in stream.constraints]
    options = stream.stream
    assert options is not None
    settings = [("batch_column", options.batch_column), ("notify", options.notify)]
    if options.notify is not None and options.keep_batches != DEFAULT_KEEP_BATCHES:
        settings.append(("keep_batches", str(options.keep_batches)))
    shown = ", ".join(f"{name} = '{value.replace(chr(39), chr(39) * 2)}'"
                      for name, value in settings if value is not None)
    partition = (f" PARTITION BY HASH ({quote_name(stream.partition_key)})"
                 if stream.partition_key is not None else "")
    return (f"CREATE STREAM {_qualified(stream.schema, stream.name)} ({', '.join(parts)})"
            + partition + (f" WITH ({shown})" if shown else ""))


def _column(table: Relation, column: Column, catalog: Catalog) -> str:
    """A column as CREATE TABLE writes it; a serial or identity column by
    that name (its sequence goes and comes with the stream)."""
    owned = any(s.schema == table.schema and s.owned_by == (table.name, column.name)
                for s in catalog.sequences.values())
    shown = t.format_type(column.type_oid, column.typmod)
    if owned and column.identity:
        always = "ALWAYS" if column.identity == "a" else "BY DEFAULT"
        return f"{quote_name(column.name)} {shown} GENERATED {always} AS IDENTITY"
    if owned and column.type_oid in _SERIAL_TYPES and (column.default or "").startswith(
            "nextval("):
        return f"{quote_name(column.name)} {_SERIAL_TYPES[column.type_oid]}"
    words = [quote_name(column.name), shown]
    if column.not_null:
        words.append("NOT NULL")
    if column.default is not None:
        words.append(f"DEFAULT {column.default}")
    return " ".join(words)


def _window(window: Relation) -> str:
    spec = window.window
    assert spec is not None
    return (f"CREATE WINDOW {_qualified(window.schema, window.name)} ON "
            f"{_qualified(*spec.stream)} {window_definition(spec)}")


def _comments(relation: Relation) -> Iterator[str]:
    if relation.comment is not None:
        yield f"COMMENT ON TABLE {_qualified(relation.schema, relation.name)} IS " + _literal(
            relation.comment)
    for column in relation.columns:
        if column.comment is not None:
            yield (f"COMMENT ON COLUMN {_qualified(relation.schema, relation.name)}."
                   f"{quote_name(column.name)} IS {_literal(column.comment)}")


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _procedures_in_call_order(catalog: Catalog) -> list[Procedure]:
    """Procedures by OID, except that one comes after those it calls (its
    body is checked when it is made)."""
    graph = dataflow_graph(catalog)
    calls: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for edge in graph.edges:
        if edge.kind == "calls" and edge.source is not None and edge.target is not None and (
                edge.source.kind == "procedure"):
            calls.setdefault((edge.source.schema, edge.source.name), set()).add(
                (edge.target.schema, edge.target.name))
    ordered: list[Procedure] = []
    placed: set[tuple[str, str]] = set()

    def place(key: tuple[str, str], path: frozenset[tuple[str, str]]) -> None:
        if key in placed or key in path or key not in catalog.procedures:
            return
        for callee in sorted(calls.get(key, ()), key=lambda k: catalog.procedures[k].oid
                             if k in catalog.procedures else 0):
            place(callee, path | {key})
        placed.add(key)
        ordered.append(catalog.procedures[key])

    for procedure in sorted(catalog.procedures.values(), key=lambda p: p.oid):
        place((procedure.schema, procedure.name), frozenset())
    return ordered


def _procedure(procedure: Procedure) -> str:
    params = ", ".join(" ".join(part for part in (
        quote_name(p.name) if p.name else "", t.format_type(p.type_oid, p.typmod),
        f"DEFAULT {p.default}" if p.default is not None else "") if part)
        for p in procedure.params)
    return (f"CREATE PROCEDURE {_qualified(procedure.schema, procedure.name)}({params}) "
            f"LANGUAGE {procedure.language} AS {dollar_quote(procedure.body)}")


def _trigger(trigger: Trigger) -> str:
    target = _qualified(*trigger.target)
    action = (f"EXECUTE PROCEDURE {_qualified(*trigger.procedure)}()" if trigger.procedure
              else f"AS {dollar_quote(trigger.body or '')}")
    return (f"CREATE TRIGGER {quote_name(trigger.name)} AFTER {trigger.event.upper()} ON "
            f"{target} {action}")

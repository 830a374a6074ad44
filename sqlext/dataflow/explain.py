"""EXPLAIN DATAFLOW: the graph (or the part reachable from a stream, a
relation or a procedure) with live counts, as text, JSON or DOT rows."""

from __future__ import annotations

import json
from collections.abc import Sequence

from catalog import errors
from catalog.schema import Catalog
from executor.core import Executor
from executor.streaming.observe import observe
from executor.streaming.scheduler import Scheduler
from sqlext.dataflow.graph import dataflow_graph
from sqlext.dataflow.render import Document, document, render_dot, render_text
from sqlext.sql import nodes as x

NodeKey = tuple[str, str, str]


def explain_dataflow(statement: x.ExplainDataflow, catalog: Catalog,
                     search_path: Sequence[str], executor: Executor,
                     scheduler: Scheduler) -> list[str]:
    """The rows of the QUERY PLAN column (one for JSON and DOT)."""
    doc = dataflow_document(catalog, executor, scheduler, _start(statement, catalog,
                                                                 search_path))
    output = statement.args["format"]
    if output == "json":
        return [json.dumps(doc, indent=2, ensure_ascii=False)]
    if output == "dot":
        return [render_dot(doc, search_path)]
    return render_text(doc, search_path)


def dataflow_document(catalog: Catalog, executor: Executor, scheduler: Scheduler,
                      start: NodeKey | None = None) -> Document:
    """The graph (from the node ``start`` names, when given) with its counts now."""
    graph = dataflow_graph(catalog)
    root = None
    if start is not None:
        root = graph.node(*start)
        graph = graph.reachable(root)
    observed = observe(
        executor, scheduler,
        [catalog.relations[(n.schema, n.name)] for n in graph.nodes
         if n.kind in ("stream", "window")],
        [(n.schema, n.name) for n in graph.nodes if n.kind == "procedure"])
    return document(graph, observed, root)


def _start(statement: x.ExplainDataflow, catalog: Catalog,
           search_path: Sequence[str]) -> NodeKey | None:
    """(kind, schema, name) of the node the statement names: a relation
    (searched first), or a procedure (``name()`` names only procedures)."""
    target = statement.this
    if target is None:
        return None
    name, schema = target.name, target.db or None
    procedure_only = bool(statement.args.get("procedure"))
    if not procedure_only:
        relation = catalog.find_relation(name, schema, search_path)
        if relation is not None:
            return relation.kind_name, relation.schema, relation.name
    procedure = catalog.find_procedure(name, schema, search_path)
    if procedure is not None:
        return "procedure", procedure.schema, procedure.name
    shown = f"{schema}.{name}" if schema else name
    if procedure_only:
        raise errors.UndefinedFunction(f"procedure {shown}() does not exist")
    raise errors.UndefinedTable(
        f'relation "{shown}" does not exist',
        hint="EXPLAIN DATAFLOW names a stream, window, table or procedure "
             "(write name() for a procedure only).")

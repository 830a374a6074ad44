"""The dataflow graph of a catalog: what feeds what, as nodes and edges.

Nodes are streams, windows, procedures, EE triggers and the tables (views,
materialized views) that procedures and triggers touch. Edges:

* ``fills``: a stream fills its window;
* ``triggers``: each batch of a stream starts a procedure (``via``: the PE
  trigger);
* ``fires``: an insert into a relation, or a window's slide, runs an EE
  trigger;
* ``writes`` / ``reads``: a procedure's or trigger's statements insert,
  update or delete rows of a relation / read it (edges point the way data
  moves: relation -> reader);
* ``calls``: a procedure's or trigger's CALL;
* ``maintains``: a relation keeps a materialized view over it up to date.

Read and write sets come from compiling the body statements as the
dataflow would run them (the privileges each plan needs, per relation). A
``LANGUAGE python`` procedure's sets are unknown until it runs: its node
says so and carries one ``reads`` and one ``writes`` edge whose other end is
unknown (None), never guessed edges.

Pure: no I/O. Built once per catalog version (``dataflow_graph``).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Protocol, TypeVar

from catalog import errors
from catalog import types as t
from catalog.dataflow import Parameter, WindowSpec
from catalog.schema import PUBLIC, Catalog, Relation
from executor.codecs import DEFAULT as DEFAULT_SETTINGS
from executor.pg_catalog.rows import Row, row
from sqlext.compile.bodies import body_statements
from sqlext.compile.compiler import CompileContext, compile_statement, procedure_context
from sqlext.sql.generator import quote_name

FLOW_EDGES: Final = ("fills", "fires", "triggers", "calls", "writes", "maintains")
"""Edges along which work or rows move on, in the order a batch meets them
(a window fills and EE triggers run inside the inserting transaction, PE
triggers start procedures after it commits)."""
READS: Final = "reads"
_WRITE_PRIVILEGES: Final = frozenset("awd")
_CACHED_VERSIONS: Final = 8


@dataclass(frozen=True, slots=True)
class Node:
    kind: str
    """stream, window, table, view, materialized view, procedure or trigger."""
    schema: str
    name: str
    definition: str = ""
    """Windows: ROWS/RANGE ... SLIDE ...; triggers: AFTER INSERT / AFTER SLIDE."""
    unknown_io: str | None = None
    """Why the node's reads and writes are unknown (LANGUAGE python, or a
    body that no longer compiles); None when they are known."""

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.schema}.{self.name}"


@dataclass(frozen=True, slots=True)
class Edge:
    source: Node | None
    """None: unknown (what a LANGUAGE python procedure reads)."""
    target: Node | None
    """None: unknown (what a LANGUAGE python procedure writes)."""
    kind: str
    via: str | None = None
    """``triggers`` edges: the PE trigger's name."""


@dataclass(frozen=True, slots=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    _out: dict[Node, list[Edge]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        out: dict[Node, list[Edge]] = {}
        for edge in self.edges:
            if edge.source is not None:
                out.setdefault(edge.source, []).append(edge)
        object.__setattr__(self, "_out", out)

    def flows_from(self, node: Node) -> list[Edge]:
        """``node``'s outgoing flow edges (not reads), in the order a batch meets them."""
        return sorted((e for e in self._out.get(node, ()) if e.kind != READS),
                      key=lambda e: (FLOW_EDGES.index(e.kind), _order(e.target)))

    def node(self, kind: str, schema: str, name: str) -> Node:
        """The node of that name (a node alone for an object outside the graph)."""
        return next((n for n in self.nodes if n.kind == kind and n.schema == schema
                     and n.name == name), Node(kind, schema, name))

    def reachable(self, start: Node) -> Graph:
        """The part of the graph reachable from ``start`` along flow edges,
        with the edges that say what its procedures and triggers read."""
        seen = {start}
        waiting = deque([start])
        while waiting:
            for edge in self.flows_from(waiting.popleft()):
                if edge.target is not None and edge.target not in seen:
                    seen.add(edge.target)
                    waiting.append(edge.target)
        edges = tuple(e for e in self.edges
                      if (e.source in seen and e.kind != READS)
                      or (e.kind == READS and e.target in seen))
        nodes = seen | {e.source for e in edges if e.source is not None}
        return Graph(tuple(sorted(nodes, key=_order)), edges)


def _order(node: Node | None) -> tuple[str, str, str]:
    return ("", "", "") if node is None else (node.schema, node.name, node.kind)


_graphs: OrderedDict[int, Graph] = OrderedDict()


def dataflow_graph(catalog: Catalog) -> Graph:
    """The graph of ``catalog``, built once per catalog version."""
    graph = _graphs.get(catalog.version)
    if graph is None:
        graph = _graphs[catalog.version] = _Builder(catalog).build()
        if len(_graphs) > _CACHED_VERSIONS:
            _graphs.popitem(last=False)
    else:
        _graphs.move_to_end(catalog.version)
    return graph


def edge_rows(graph: Graph) -> list[Row]:
    """The rows of the live view ``sqlext_dataflow``; an unknown end is kind
    'unknown' with no schema or name."""

    def end(side: str, node: Node | None) -> dict[str, str | None]:
        kind, schema, name = (("unknown", None, None) if node is None
                              else (node.kind, node.schema, node.name))
        return {f"{side}_kind": kind, f"{side}_schema": schema, f"{side}_name": name}

    return [row("sqlext_dataflow", **end("from", e.source), **end("to", e.target),
                edge_kind=e.kind, via_trigger=e.via) for e in graph.edges]


@dataclass
class _Access:
    reads: set[tuple[str, str]] = field(default_factory=set)
    writes: set[tuple[str, str]] = field(default_factory=set)
    calls: set[tuple[str, str]] = field(default_factory=set)


class _Builder:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.nodes: dict[tuple[str, str, str], Node] = {}
        self.edges: dict[Edge, None] = {}

    def build(self) -> Graph:
        catalog = self.catalog
        for relation in _by_name(catalog.user_relations()):
            if relation.window is not None:
                stream = catalog.relations[relation.window.stream]
                self._edge(self._relation(stream), self._relation(relation), "fills")
            elif relation.stream is not None:
                self._relation(relation)
        for procedure in _by_name(catalog.procedures.values()):
            self._procedure(procedure.schema, procedure.name)
        for trigger in _by_name(catalog.triggers.values()):
            target = catalog.relations.get(trigger.target)
            if target is None:
                continue
            if trigger.procedure is not None:
                self._edge(self._relation(target), self._procedure(*trigger.procedure),
                           "triggers", trigger.name)
                continue
            access, unknown = self._access(trigger.schema, trigger.body or "", (), "a trigger")
            node = self._add(Node("trigger", trigger.schema, trigger.name,
                                  f"AFTER {trigger.event.upper()}", unknown))
            self._edge(self._relation(target), node, "fires")
            self._access_edges(node, access)
        self._materialized_views()
        return Graph(tuple(sorted(self.nodes.values(), key=_order)), tuple(self.edges))

    # --- nodes and edges -----------------------------------------------------------------

    def _add(self, node: Node) -> Node:
        return self.nodes.setdefault((node.kind, node.schema, node.name), node)

    def _relation(self, relation: Relation) -> Node:
        definition = window_definition(relation.window) if relation.window else ""
        return self._add(Node(relation.kind_name, relation.schema, relation.name, definition))

    def _procedure(self, schema: str, name: str) -> Node:
        found = self.nodes.get(("procedure", schema, name))
        if found is not None:
            return found
        procedure = self.catalog.procedures[(schema, name)]
        access: _Access | None = None
        unknown: str | None = "LANGUAGE python"
        if procedure.language == "sql":
            access, unknown = self._access(schema, procedure.body, procedure.params,
                                           "a procedure")
        # the node goes in before its edges: a CALL may lead back to it
        node = self._add(Node("procedure", schema, name, unknown_io=unknown))
        self._access_edges(node, access)
        return node

    def _edge(self, source: Node | None, target: Node | None, kind: str,
              via: str | None = None) -> None:
        self.edges[Edge(source, target, kind, via)] = None

    def _access_edges(self, node: Node, access: _Access | None) -> None:
        """What ``node`` reads, writes and calls; None: unknown, which one
        edge each way with an unknown end says."""
        if access is None:
            self._edge(None, node, READS)
            self._edge(node, None, "writes")
            return
        relations = self.catalog.relations
        for key in sorted(access.reads):
            self._edge(self._relation(relations[key]), node, READS)
        for key in sorted(access.writes):
            self._edge(node, self._relation(relations[key]), "writes")
        for key in sorted(access.calls):
            self._edge(node, self._procedure(*key), "calls")

    # --- bodies ----------------------------------------------------------------------------

    def _access(self, schema: str, body: str, params: tuple[Parameter, ...],
                what: str) -> tuple[_Access | None, str | None]:
        """What the body's statements read, write and call, compiled as the
        dataflow runs them (names in its own schema first); or None and why
        not (the catalog changed under the body since it was created)."""
        context = procedure_context(
            CompileContext(self.catalog, tuple(dict.fromkeys((schema, PUBLIC))),
                           DEFAULT_SETTINGS), params)
        param_oids = tuple(p.type_oid for p in params)
        access = _Access()
        try:
            for statement in body_statements(body, what):
                compiled = compile_statement(statement, context, param_oids)
                if compiled.call is not None:
                    procedure = compiled.call.procedure
                    access.calls.add((procedure.schema, procedure.name))
                elif compiled.plan is not None:
                    for needed in compiled.plan.access:
                        if "r" in needed.privileges:
                            access.reads.add(needed.relation)
                        if _WRITE_PRIVILEGES.intersection(needed.privileges):
                            access.writes.add(needed.relation)
        except errors.SqlError as exc:
            return None, f"the body does not compile: {exc.message}"
        return access, None

    def _materialized_views(self) -> None:
        """``maintains`` edges into the materialized views over relations
        already in the graph (and over those views, in turn)."""
        views = [r for r in _by_name(self.catalog.user_relations()) if r.matview is not None]
        grown = True
        while grown:
            grown = False
            for view in views:
                assert view.matview is not None
                for source in view.matview.sources:
                    relation = self.catalog.relations.get(source)
                    if relation is None or (relation.kind_name, *source) not in self.nodes:
                        continue
                    edge = Edge(self._relation(relation), self._relation(view), "maintains")
                    if edge not in self.edges:
                        self.edges[edge] = None
                        grown = True


class _Named(Protocol):
    @property
    def schema(self) -> str: ...

    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)


def _by_name(items: Iterable[N]) -> list[N]:
    return sorted(items, key=lambda item: (item.schema, item.name))


def window_definition(spec: WindowSpec) -> str:
    """The window's extent as CREATE WINDOW writes it (timestamp RANGE
    extents in seconds, or microseconds where a second does not divide them)."""
    timed = spec.column_type in (t.TIMESTAMP, t.TIMESTAMPTZ)

    def extent(value: int) -> str:
        if not timed:
            return str(value)
        seconds, micros = divmod(value, 1_000_000)
        return f"INTERVAL '{value} microseconds'" if micros else f"INTERVAL '{seconds} seconds'"

    words = [f"{'ROWS' if spec.rows else 'RANGE'} {extent(spec.size)}",
             f"SLIDE {extent(spec.slide)}"]
    if spec.partition:
        words.append(f"PARTITION BY {quote_name(spec.partition)}")
    if spec.column:
        words.append(f"ON {quote_name(spec.column)}")
    return " ".join(words)

"""The dataflow graph with its live counts as one JSON document, and that
document as an indented text tree (EXPLAIN DATAFLOW) and as Graphviz DOT.

The document is what EXPLAIN (FORMAT JSON) DATAFLOW returns::

    {"root": "stream:public.votes_in",          # null for the whole graph
     "nodes": [{"id": "stream:public.votes_in", "kind": "stream",
                "schema": "public", "name": "votes_in", "definition": "",
                "unknown_io": null,
                "counts": {"last_batch": 3, "pending_batches": 0, ...}}, ...],
     "edges": [{"from": "stream:public.votes_in", "to": "procedure:public.validate",
                "kind": "triggers", "via": "validate_votes"}, ...]}

An edge end is null where it is unknown (what a LANGUAGE python procedure
reads and writes). Both renderers read only the document.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, Final

from executor.streaming.observe import Observed
from sqlext.dataflow.graph import FLOW_EDGES, READS, Graph, Node
from sqlext.sql.generator import quote_name

Document = dict[str, Any]
NodeDoc = dict[str, Any]

_TITLES: Final = {"stream": "Stream", "window": "Window", "table": "Table", "view": "View",
                  "materialized view": "Materialized View", "procedure": "Procedure",
                  "trigger": "Trigger"}
_ERROR_COUNTS: Final = ("stopped_at_batch", "stopped_on_stream", "error_code", "error")
"""Counts of a stopped procedure that its error line shows, not its summary."""


def document(graph: Graph, observed: Observed, root: Node | None = None) -> Document:
    def node_doc(node: Node) -> NodeDoc:
        state = observed.procedures.get((node.schema, node.name)) if (
            node.kind == "procedure") else observed.relations.get((node.schema, node.name))
        counts = {k: v for k, v in asdict(state).items() if v is not None} if state else {}
        return {"id": node.id, "kind": node.kind, "schema": node.schema, "name": node.name,
                "definition": node.definition, "unknown_io": node.unknown_io,
                "counts": counts}

    return {
        "root": root.id if root is not None else None,
        "nodes": [node_doc(node) for node in graph.nodes],
        "edges": [{"from": e.source.id if e.source else None,
                   "to": e.target.id if e.target else None, "kind": e.kind, "via": e.via}
                  for e in graph.edges],
    }


def _display_name(node: NodeDoc, visible_schemas: Sequence[str]) -> str:
    """The node's name as SQL, schema-qualified unless its schema is on the
    search path."""
    if node["schema"] in visible_schemas:
        return quote_name(node["name"])
    return f"{quote_name(node['schema'])}.{quote_name(node['name'])}"


def _summary(node: NodeDoc) -> str:
    """The node's counts as ``key=value`` words (a stopped procedure's error aside)."""
    return " ".join(f"{key}={value}" for key, value in node["counts"].items()
                    if key not in _ERROR_COUNTS)


def _error_line(node: NodeDoc) -> str | None:
    counts = node["counts"]
    if "error" not in counts:
        return None
    return (f"{counts['error_code']} {counts['error']} (batch {counts['stopped_at_batch']} of "
            f"stream {quote_name(counts['stopped_on_stream'])})")


# --- text ----------------------------------------------------------------------------------


class _Tree:
    """The document as PostgreSQL's EXPLAIN prints a plan: a node per line,
    its details indented below it, its children after ``->``. A node
    reached on several paths is shown in full where it is nearest a root,
    and by name with "(see above)" or "(see below)" elsewhere."""

    def __init__(self, doc: Document, visible_schemas: Sequence[str]) -> None:
        self.nodes: dict[str, NodeDoc] = {n["id"]: n for n in doc["nodes"]}
        self.visible = visible_schemas
        self.children: dict[str, list[dict[str, Any]]] = {}
        self.reads: dict[str, list[str]] = {}
        fed: set[str] = set()
        for edge in doc["edges"]:
            if edge["kind"] == READS:
                if edge["from"] is not None:
                    self.reads.setdefault(edge["to"], []).append(edge["from"])
            elif edge["to"] is not None:
                self.children.setdefault(edge["from"], []).append(edge)
                fed.add(edge["to"])
        for edges in self.children.values():
            edges.sort(key=lambda e: (FLOW_EDGES.index(e["kind"]),
                                      self.name(self.nodes[e["to"]])))
        self.roots = self._roots(doc["root"], fed)
        self.home = self._homes()
        self.shown: set[str] = set()
        self.lines: list[str] = []

    def name(self, node: NodeDoc) -> str:
        return _display_name(node, self.visible)

    def _roots(self, root: str | None, fed: set[str]) -> list[str]:
        """The named root; otherwise the nodes nothing feeds that start
        something (streams and procedures always), then one node of each
        cycle nothing else leads to."""
        if root is not None:
            return [root]
        roots = [node_id for node_id, node in self.nodes.items() if node_id not in fed and (
            node_id in self.children or node["kind"] in ("stream", "procedure"))]
        reached = set(self._breadth_first(roots))
        for node_id in self.nodes:
            if node_id in self.children and node_id not in reached:
                roots.append(node_id)
                reached.update(self._breadth_first([node_id]))
        return roots

    def _breadth_first(self, roots: list[str]) -> dict[str, str | None]:
        """Every node reachable from ``roots``: the node it is first reached from."""
        parents: dict[str, str | None] = dict.fromkeys(roots)
        waiting = deque(roots)
        while waiting:
            parent = waiting.popleft()
            for edge in self.children.get(parent, ()):
                if edge["to"] not in parents:
                    parents[edge["to"]] = parent
                    waiting.append(edge["to"])
        return parents

    def _homes(self) -> dict[str, str | None]:
        homes: dict[str, str | None] = {}
        for root in self.roots:
            for node_id, parent in self._breadth_first([root]).items():
                homes.setdefault(node_id, parent)
        return homes

    def add(self, node_id: str, parent: str | None, depth: int, via: str | None) -> None:
        node = self.nodes[node_id]
        title = f"{_TITLES[node['kind']]} {self.name(node)}"
        if node["definition"]:
            title += f" {node['definition']}"
        arrow = " " * (6 * depth - 4) + "->  " if depth else ""
        details = self.details(node_id, via)
        elsewhere = node_id in self.shown or self.home.get(node_id) != parent
        if elsewhere and (details or node_id in self.children):
            where = "above" if node_id in self.shown else "below"
            self.lines.append(f"{arrow}{title}  (see {where})")
            return
        self.shown.add(node_id)
        counts = _summary(node)
        self.lines.append(f"{arrow}{title}  ({counts})" if counts else arrow + title)
        indent = " " * (6 * depth + 2)
        self.lines.extend(indent + line for line in details)
        for edge in self.children.get(node_id, ()):
            self.add(edge["to"], node_id, depth + 1, edge["via"])

    def details(self, node_id: str, via: str | None) -> list[str]:
        node = self.nodes[node_id]
        lines = [f"Trigger: {quote_name(via)}"] if via else []
        error = _error_line(node)
        if error:
            lines.append(f"Error: {error}")
        if node["unknown_io"]:
            lines.append(f"Reads and writes: unknown ({node['unknown_io']})")
        reads = sorted(self.name(self.nodes[source]) for source in self.reads.get(node_id, ()))
        if reads:
            lines.append(f"Reads: {', '.join(reads)}")
        return lines


def render_text(doc: Document, visible_schemas: Sequence[str]) -> list[str]:
    """EXPLAIN DATAFLOW's lines."""
    tree = _Tree(doc, visible_schemas)
    for root in tree.roots:
        tree.add(root, None, 0, None)
    return tree.lines


# --- DOT -----------------------------------------------------------------------------------

_SHAPES: Final = {"stream": 'shape=cds style=filled fillcolor="#dbe9f6" margin="0.3,0.1"',
                  "window": 'shape=box3d style=filled fillcolor="#e3f1dc"',
                  "table": "shape=cylinder", "view": "shape=cylinder style=dotted",
                  "materialized view": "shape=cylinder style=dashed",
                  "procedure": 'shape=box style="rounded,filled" fillcolor="#fdf1d6"',
                  "trigger": 'shape=hexagon style=filled fillcolor="#f3e3f3"'}
_EDGE_STYLES: Final = {READS: "style=dashed color=gray50 constraint=false",
                       "calls": "style=bold", "maintains": "style=dotted"}
"""Reads are drawn unlabelled and do not shape the layout, which follows the flow."""


def _quoted(text: str) -> str:
    """A DOT string; newlines become centred line breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render_dot(doc: Document, visible_schemas: Sequence[str]) -> str:
    """The graph for Graphviz: a shape per kind, counts in the labels,
    reads dashed, a stopped procedure red; an unknown end is a "?"."""
    lines = ["digraph dataflow {", "  rankdir=LR;",
             "  node [fontname=Helvetica fontsize=10];",
             "  edge [fontname=Helvetica fontsize=9];"]
    for node in doc["nodes"]:
        label = [_display_name(node, visible_schemas),
                 " ".join(part for part in (node["kind"], node["definition"]) if part)]
        label.extend(word for word in _summary(node).split(" ") if word)
        error = _error_line(node)
        if error:
            label.append(error)
        if node["unknown_io"]:
            label.append(f"reads, writes unknown: {node['unknown_io']}")
        attributes = _SHAPES[node["kind"]]
        if "error" in node["counts"]:
            attributes += " color=red fontcolor=red"
        text = _quoted("\n".join(label))
        lines.append(f"  {_quoted(node['id'])} [{attributes} label={text}];")
    shown = {(e["from"], e["to"]) for e in doc["edges"] if e["kind"] != READS}
    for edge in doc["edges"]:
        ends = [edge["from"], edge["to"]]
        if edge["kind"] == READS and tuple(ends) in shown:
            continue  # the stream a procedure is triggered by: one arrow is enough
        if None in ends:
            position = ends.index(None)
            ends[position] = f"? {edge['kind']} {ends[1 - position]}"
            lines.append(f"  {_quoted(ends[position])} [shape=plaintext label=\"?\"];")
        attributes = [] if edge["kind"] == READS else [
            f"label={_quoted(edge['via'] or edge['kind'])}"]
        attributes.append(_EDGE_STYLES.get(edge["kind"], ""))
        lines.append(f"  {_quoted(ends[0])} -> {_quoted(ends[1])} "
                     f"[{' '.join(a for a in attributes if a)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"

"""The dataflow graph built from a catalog (no server: catalogs made by
hand), its cache per catalog version, and the text and DOT forms of its
document."""

from __future__ import annotations

from catalog import types as t
from catalog.dataflow import Procedure, StreamOptions, Trigger, WindowSpec
from catalog.schema import Catalog, Column, Relation
from catalog.system import system_relations
from executor.streaming.observe import Observed, ProcedureState, StreamState
from sqlext.dataflow.graph import dataflow_graph, edge_rows
from sqlext.dataflow.render import document, render_dot, render_text

COLUMNS = (Column("v", t.INT4),)


def relation(oid: int, name: str, **kinds: object) -> Relation:
    return Relation(oid, "public", name, "r", f"public__{name}", COLUMNS, **kinds)  # type: ignore[arg-type]


def chain() -> Catalog:
    """s_in -> clean (sql) -> s_out -> window w (AFTER SLIDE t_slide -> slides)
    and -> py (python); clean also CALLs helper, which writes log."""
    catalog = Catalog().with_relations(system_relations()).with_relations([
        relation(20001, "s_in", stream=StreamOptions()),
        relation(20002, "s_out", stream=StreamOptions()),
        relation(20003, "w", window=WindowSpec(("public", "s_out"), True, 4, 2)),
        relation(20004, "slides"),
        relation(20005, "log"),
        relation(20006, "lookup"),
    ])
    for procedure in (
        Procedure(20010, "public", "clean", (), "sql",
                  "INSERT INTO s_out SELECT v FROM s_in WHERE v IN (SELECT v FROM lookup); "
                  "CALL helper()"),
        Procedure(20011, "public", "helper", (), "sql", "DELETE FROM log WHERE v < 0"),
        Procedure(20012, "public", "py", (), "python", "pass"),
    ):
        catalog = catalog.with_procedure(procedure)
    for trigger in (
        Trigger(20020, "public", "t_clean", "insert", ("public", "s_in"), ("public", "clean")),
        Trigger(20021, "public", "t_py", "insert", ("public", "s_out"), ("public", "py")),
        Trigger(20022, "public", "t_slide", "slide", ("public", "w"),
                body="UPDATE slides SET v = v + 1"),
    ):
        catalog = catalog.with_trigger(trigger)
    return catalog


def test_edges_come_from_triggers_windows_and_compiled_bodies() -> None:
    rows = set(edge_rows(dataflow_graph(chain())))
    p = "public"
    assert rows == {
        ("stream", p, "s_out", "window", p, "w", "fills", None),
        ("stream", p, "s_in", "procedure", p, "clean", "triggers", "t_clean"),
        ("stream", p, "s_out", "procedure", p, "py", "triggers", "t_py"),
        ("window", p, "w", "trigger", p, "t_slide", "fires", None),
        ("stream", p, "s_in", "procedure", p, "clean", "reads", None),
        ("table", p, "lookup", "procedure", p, "clean", "reads", None),
        ("procedure", p, "clean", "stream", p, "s_out", "writes", None),
        ("procedure", p, "clean", "procedure", p, "helper", "calls", None),
        # DELETE ... WHERE reads the rows it deletes, as PostgreSQL's privileges say
        ("table", p, "log", "procedure", p, "helper", "reads", None),
        ("procedure", p, "helper", "table", p, "log", "writes", None),
        ("table", p, "slides", "trigger", p, "t_slide", "reads", None),
        ("trigger", p, "t_slide", "table", p, "slides", "writes", None),
        # a python procedure: unknown, not guessed
        ("unknown", None, None, "procedure", p, "py", "reads", None),
        ("procedure", p, "py", "unknown", None, None, "writes", None),
    }


def test_built_once_per_catalog_version() -> None:
    catalog = chain()
    assert dataflow_graph(catalog) is dataflow_graph(catalog)
    changed = catalog.without_relation("public", "lookup")
    assert dataflow_graph(changed) is not dataflow_graph(catalog)
    # clean no longer compiles: its node says why, with unknown ends
    (clean,) = [n for n in dataflow_graph(changed).nodes if n.name == "clean"]
    assert clean.unknown_io == 'the body does not compile: relation "lookup" does not exist'
    assert ("procedure", "public", "clean", "unknown", None, None, "writes", None) in (
        edge_rows(dataflow_graph(changed)))


def test_reachable_part_keeps_what_it_reads() -> None:
    graph = dataflow_graph(chain())
    (s_out,) = [n for n in graph.nodes if n.name == "s_out"]
    part = graph.reachable(s_out)
    assert sorted(n.name for n in part.nodes) == ["py", "s_out", "slides", "t_slide", "w"]


def _observed() -> Observed:
    idle = ProcedureState("idle", 0, 2, 0)
    return Observed({("public", "s_in"): StreamState(2, 0, 0, 0),
                     ("public", "s_out"): StreamState(2, 4, 1, 3)},
                    {("public", "clean"): idle, ("public", "helper"): idle,
                     ("public", "py"): ProcedureState("stopped", 1, 1, 1, 2, "s_out", "P0001",
                                                      "no")})


def test_text_tree() -> None:
    doc = document(dataflow_graph(chain()), _observed())
    assert render_text(doc, ["public"]) == [
        "Stream s_in  (last_batch=2 tuples=0 pending_batches=0 pending_tuples=0)",
        "  ->  Procedure clean  (state=idle waiting_batches=0 batches_run=2 batches_failed=0)",
        "        Trigger: t_clean",
        "        Reads: lookup, s_in",
        "        ->  Procedure helper  (state=idle waiting_batches=0 batches_run=2 "
        "batches_failed=0)",
        "              Reads: log",
        "              ->  Table log",
        "        ->  Stream s_out  (last_batch=2 tuples=4 pending_batches=1 pending_tuples=3)",
        "              ->  Window w ROWS 4 SLIDE 2",
        "                    ->  Trigger t_slide AFTER SLIDE",
        "                          Reads: slides",
        "                          ->  Table slides",
        "              ->  Procedure py  (state=stopped waiting_batches=1 batches_run=1 "
        "batches_failed=1)",
        "                    Trigger: t_py",
        "                    Error: P0001 no (batch 2 of stream s_out)",
        "                    Reads and writes: unknown (LANGUAGE python)",
    ]
    # names outside the search path are qualified
    assert render_text(doc, ["elsewhere"])[0].startswith("Stream public.s_in  (")


def test_a_node_on_two_paths_is_shown_once_nearest_a_root() -> None:
    doc = {"root": None,
           "nodes": [{"id": i, "kind": kind, "schema": "s", "name": i, "definition": "",
                      "unknown_io": None, "counts": {}}
                     for i, kind in (("a", "stream"), ("p", "procedure"), ("q", "procedure"),
                                     ("b", "stream"))],
           "edges": [{"from": f, "to": to, "kind": kind, "via": None}
                     for f, to, kind in (("a", "p", "triggers"), ("p", "q", "calls"),
                                         ("p", "b", "writes"), ("q", "b", "writes"),
                                         ("b", "p", "triggers"))]}
    assert render_text(doc, ["s"]) == [
        "Stream a",
        "  ->  Procedure p",
        "        ->  Procedure q",
        "              ->  Stream b  (see below)",
        "        ->  Stream b",
        "              ->  Procedure p  (see above)",
    ]


def test_dot_has_a_shape_per_kind_and_unknown_ends() -> None:
    dot = render_dot(document(dataflow_graph(chain()), _observed()), ["public"])
    assert dot.startswith("digraph dataflow {\n") and dot.endswith("}\n")
    assert '"stream:public.s_in" [shape=cds' in dot
    assert '"window:public.w" [shape=box3d' in dot
    assert '"trigger:public.t_slide" [shape=hexagon' in dot
    assert "color=red fontcolor=red" in dot  # the stopped procedure
    assert '"procedure:public.py" -> "? writes procedure:public.py" [label="writes"];' in dot
    assert '"? reads procedure:public.py" -> "procedure:public.py" [style=dashed' in dot
    assert '"stream:public.s_in" -> "procedure:public.clean" [label="t_clean"];' in dot
    # the stream a procedure is triggered by is not drawn a second time as a read
    assert '"stream:public.s_in" -> "procedure:public.clean" [style=dashed' not in dot


def test_names_are_printed_as_sql() -> None:
    doc = {"root": None, "edges": [],
           "nodes": [{"id": "stream:Odd.We ird", "kind": "stream", "schema": "Odd",
                      "name": "We ird", "definition": "", "unknown_io": None, "counts": {}}]}
    assert render_text(doc, ["public"]) == ['Stream "Odd"."We ird"']
    assert render_text(doc, ["Odd"]) == ['Stream "We ird"']

"""Seeing the dataflow: the live view sqlext_dataflow, EXPLAIN DATAFLOW as
text, JSON and DOT (drawn by Graphviz), and ``sqlext graph``, through
psycopg, psql and the command line."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from sqlext.tools.bench.leaderboard_bench import SCHEMA_FILE, generate_votes, send_waiting
from tests.fixtures.servers import ServerProcess, own_schema, run_sqlext, sqlstate_of

CHAIN = """
CREATE STREAM readings (v int NOT NULL);
CREATE STREAM cleaned (v int NOT NULL);
CREATE TABLE totals (slides int NOT NULL);
INSERT INTO totals VALUES (0);
CREATE TABLE audit (v int);
CREATE WINDOW recent ON cleaned ROWS 4 SLIDE 2;
CREATE PROCEDURE clean() BEGIN ATOMIC INSERT INTO cleaned SELECT v FROM readings WHERE v >= 0; END;
CREATE PROCEDURE note() LANGUAGE python AS $$ sql("INSERT INTO audit VALUES (1)") $$;
CREATE PROCEDURE fragile() BEGIN ATOMIC INSERT INTO audit SELECT 100 / v FROM cleaned; END;
CREATE TRIGGER clean_readings AFTER INSERT ON readings EXECUTE PROCEDURE clean();
CREATE TRIGGER note_cleaned AFTER INSERT ON cleaned EXECUTE PROCEDURE note();
CREATE TRIGGER check_cleaned AFTER INSERT ON cleaned EXECUTE PROCEDURE fragile();
CREATE TRIGGER count_slides AFTER SLIDE ON recent AS $$ UPDATE totals SET slides = slides + 1; $$;
CREATE TRIGGER keep_negatives AFTER INSERT ON readings AS $$
    INSERT INTO audit SELECT v FROM readings WHERE v < 0;
$$;
"""


def counts(last_batch: int, tuples: int = 0, pending_batches: int = 0,
           pending_tuples: int = 0) -> str:
    """A stream's counts as EXPLAIN DATAFLOW shows them."""
    return (f"last_batch={last_batch} tuples={tuples} pending_batches={pending_batches} "
            f"pending_tuples={pending_tuples}")


def chain_plan(readings: tuple[int, ...], cleaned: tuple[int, ...],
               window: tuple[int, int, int], fragile: str, error: list[str],
               runs: int) -> list[str]:
    """EXPLAIN DATAFLOW readings for CHAIN with these counts."""
    idle = f"state=idle waiting_batches=0 batches_run={runs} batches_failed=0"
    return [
        f"Stream readings  ({counts(*readings)})",
        "  ->  Trigger keep_negatives AFTER INSERT",
        "        Reads: readings",
        "        ->  Table audit",
        f"  ->  Procedure clean  ({idle})",
        "        Trigger: clean_readings",
        "        Reads: readings",
        f"        ->  Stream cleaned  ({counts(*cleaned)})",
        f"              ->  Window recent ROWS 4 SLIDE 2  (visible={window[0]} "
        f"staged={window[1]} slides={window[2]})",
        "                    ->  Trigger count_slides AFTER SLIDE",
        "                          Reads: totals",
        "                          ->  Table totals",
        f"              ->  Procedure fragile  ({fragile})",
        "                    Trigger: check_cleaned",
        *error,
        "                    Reads: cleaned",
        "                    ->  Table audit",
        f"              ->  Procedure note  ({idle})",
        "                    Trigger: note_cleaned",
        "                    Reads and writes: unknown (LANGUAGE python)",
    ]


def explain(conn: psycopg.Connection, what: str = "") -> list[str]:
    return [line for (line,) in conn.execute(f"EXPLAIN DATAFLOW {what}")]


@pytest.fixture
def chain(server_factory: Callable[..., ServerProcess]) -> Iterator[psycopg.Connection]:
    """CHAIN on a server of its own (a stopped procedure makes sqlext_drain()
    fail for everybody)."""
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as connection:
        connection.execute(CHAIN)
        yield connection


def test_explain_dataflow_counts_follow_the_batches(chain: psycopg.Connection) -> None:
    conn = chain
    idle = "state=idle waiting_batches=0 batches_run=0 batches_failed=0"
    before = chain_plan((0,), (0,), (0, 0, 0), idle, [], 0)
    assert explain(conn, "readings") == before
    assert explain(conn) == before  # the whole graph: one tree from its one input
    cursor = conn.execute("EXPLAIN DATAFLOW readings")
    assert [(c.name, c.type_code) for c in cursor.description] == [("QUERY PLAN", 25)]
    assert cursor.statusmessage == "EXPLAIN"

    conn.execute("INSERT INTO readings VALUES (1), (2)")  # a batch each
    conn.execute("INSERT INTO readings VALUES (3)")
    conn.execute("INSERT INTO readings VALUES (0)")  # fragile divides by it
    conn.execute("INSERT INTO readings VALUES (5), (6)")
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
        conn.execute("SELECT sqlext_drain(30)")
    after = chain_plan(
        (4,), (4, 3, 2, 3), (4, 0, 2),
        "state=stopped waiting_batches=2 batches_run=2 batches_failed=1",
        ["                    Error: 22012 division by zero (batch 3 of stream cleaned)"], 4)
    assert explain(conn, "readings") == after
    assert conn.execute("SELECT slides FROM totals").fetchone() == (2,)

    # from a procedure: its part only
    assert explain(conn, "fragile") == [
        "Procedure fragile  (state=stopped waiting_batches=2 batches_run=2 batches_failed=1)",
        "  Error: 22012 division by zero (batch 3 of stream cleaned)",
        "  Reads: cleaned",
        "  ->  Table audit",
    ]
    assert explain(conn, "fragile()") == explain(conn, "public.fragile")
    assert explain(conn, "audit") == ["Table audit"]


def test_sqlext_dataflow_lists_the_edges(chain: psycopg.Connection) -> None:
    rows = chain.execute("SELECT * FROM sqlext_dataflow").fetchall()
    p = "public"
    assert set(rows) == {
        ("stream", p, "cleaned", "window", p, "recent", "fills", None),
        ("stream", p, "readings", "procedure", p, "clean", "triggers", "clean_readings"),
        ("stream", p, "cleaned", "procedure", p, "note", "triggers", "note_cleaned"),
        ("stream", p, "cleaned", "procedure", p, "fragile", "triggers", "check_cleaned"),
        ("window", p, "recent", "trigger", p, "count_slides", "fires", None),
        ("stream", p, "readings", "procedure", p, "clean", "reads", None),
        ("procedure", p, "clean", "stream", p, "cleaned", "writes", None),
        ("stream", p, "cleaned", "procedure", p, "fragile", "reads", None),
        ("procedure", p, "fragile", "table", p, "audit", "writes", None),
        ("unknown", None, None, "procedure", p, "note", "reads", None),
        ("procedure", p, "note", "unknown", None, None, "writes", None),
        ("table", p, "totals", "trigger", p, "count_slides", "reads", None),
        ("trigger", p, "count_slides", "table", p, "totals", "writes", None),
        ("stream", p, "readings", "trigger", p, "keep_negatives", "fires", None),
        ("stream", p, "readings", "trigger", p, "keep_negatives", "reads", None),
        ("trigger", p, "keep_negatives", "table", p, "audit", "writes", None),
    }
    assert len(rows) == 16
    # a schema change shows at once
    chain.execute("DROP TRIGGER note_cleaned")
    assert chain.execute("SELECT count(*) FROM sqlext_dataflow WHERE via_trigger = "
                         "'note_cleaned'").fetchone() == (0,)


def test_json_and_dot(chain: psycopg.Connection, tmp_path: Path) -> None:
    conn = chain
    cursor = conn.execute("EXPLAIN (FORMAT JSON) DATAFLOW fragile()")
    assert cursor.description[0].type_code == 114  # json, as PostgreSQL's EXPLAIN
    (doc,) = cursor.fetchone()
    assert doc["root"] == "procedure:public.fragile"
    assert {n["id"] for n in doc["nodes"]} == {
        "procedure:public.fragile", "table:public.audit", "stream:public.cleaned"}
    fragile = next(n for n in doc["nodes"] if n["name"] == "fragile")
    assert fragile["counts"] == {"state": "idle", "waiting_batches": 0, "batches_run": 0,
                                 "batches_failed": 0}
    assert {"from": "procedure:public.fragile", "to": "table:public.audit", "kind": "writes",
            "via": None} in doc["edges"]

    rows = conn.execute("EXPLAIN (FORMAT DOT) DATAFLOW").fetchall()
    assert len(rows) == 1
    dot_text = rows[0][0]
    assert dot_text.startswith("digraph dataflow {")
    svg = tmp_path / "chain.svg"
    subprocess.run(["dot", "-Tsvg", "-o", str(svg)], input=dot_text, text=True, check=True)
    drawn = svg.read_text()
    for node in ("stream:public.readings", "stream:public.cleaned", "window:public.recent",
                 "procedure:public.clean", "procedure:public.note", "procedure:public.fragile",
                 "trigger:public.count_slides", "trigger:public.keep_negatives",
                 "table:public.totals", "table:public.audit"):
        assert f"<title>{node}</title>" in drawn


def test_errors(chain: psycopg.Connection) -> None:
    conn = chain
    with pytest.raises(psycopg.errors.UndefinedTable, match='relation "nosuch" does not exist'):
        conn.execute("EXPLAIN DATAFLOW nosuch")
    with pytest.raises(psycopg.errors.UndefinedFunction,
                       match=r"procedure nosuch\(\) does not exist"):
        conn.execute("EXPLAIN DATAFLOW nosuch()")
    # name() is a procedure only, even when a relation has that name
    assert sqlstate_of(conn, "EXPLAIN DATAFLOW readings()") == "42883"
    assert sqlstate_of(conn, "EXPLAIN DATAFLOW nosuch.readings") == "3F000"
    with pytest.raises(psycopg.errors.InvalidParameterValue,
                       match='unrecognized value for EXPLAIN option "format": "yaml"'):
        conn.execute("EXPLAIN (FORMAT yaml) DATAFLOW")
    with pytest.raises(psycopg.errors.SyntaxError, match='unrecognized EXPLAIN option "foo"'):
        conn.execute("EXPLAIN (foo) DATAFLOW")
    assert sqlstate_of(conn, "EXPLAIN (FORMAT) DATAFLOW") == "42601"
    assert sqlstate_of(conn, "EXPLAIN (ANALYZE) DATAFLOW") == "0A000"
    assert sqlstate_of(conn, "EXPLAIN DATAFLOW readings cleaned") == "42601"
    assert conn.execute("SELECT 1").fetchone() == (1,)


def test_psql_prints_the_plan(server: ServerProcess) -> None:
    with own_schema(server, "graph") as conn:
        conn.execute("CREATE STREAM s (v int); CREATE TABLE t (v int); "
                     "CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO t SELECT v FROM s; END; "
                     "CREATE TRIGGER run_p AFTER INSERT ON s EXECUTE PROCEDURE p()")
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        out = subprocess.run(
            ["psql", "-h", server.host, "-p", str(server.port), "-U", "postgres", "-X",
             "-d", "sqlext", "-c", f"SET search_path = {schema}", "-c",
             "EXPLAIN DATAFLOW s"], capture_output=True, text=True, check=True).stdout
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[0] == "SET" and lines[1].strip() == "QUERY PLAN"
    assert lines[3:] == [
        f" Stream s  ({counts(0)})",
        "   ->  Procedure p  (state=idle waiting_batches=0 batches_run=0 batches_failed=0)",
        "         Trigger: run_p",
        "         Reads: s",
        "         ->  Table t",
        "(5 rows)",
        "",
    ]


# --- the Leaderboard --------------------------------------------------------------------


LEADERBOARD_PLAN = """\
Stream votes_in  (last_batch={votes} tuples=0 pending_batches=0 pending_tuples=0)
  ->  Procedure validate  (state=idle waiting_batches=0 batches_run={votes} batches_failed=0)
        Trigger: validate_votes
        Reads: area_code_state, contestants, v_votes_by_phone_number, votes, votes_in
        ->  Stream valid_votes  (last_batch={valid} tuples=0 pending_batches=0 pending_tuples=0)
              ->  Window trending ROWS 100 SLIDE 10  (visible={valid} staged=0 slides=0)
                    ->  Trigger refresh_trending AFTER SLIDE
                          Reads: contestants, trending
                          ->  Table leaderboard
              ->  Procedure count_votes  (state=idle waiting_batches=0 batches_run={valid} \
batches_failed=0)
                    Trigger: count_valid_votes
                    Reads: leaderboard, v_votes_by_contestant, valid_votes, votes_count
                    ->  Table board_history
                    ->  Stream removal_due  (last_batch=0 tuples=0 pending_batches=0 \
pending_tuples=0)
                          ->  Procedure remove_lowest  (state=idle waiting_batches=0 \
batches_run=0 batches_failed=0)
                                Trigger: remove_contestant
                                Reads: contestants, leaderboard, removals, \
v_votes_by_contestant, votes
                                ->  Table contestants
                                ->  Table leaderboard
                                ->  Table removals
                                ->  Table votes  (see below)
                    ->  Table votes_count
        ->  Table votes
              ->  Materialized View v_votes_by_contestant
              ->  Materialized View v_votes_by_phone_number"""

LEADERBOARD_EDGES = {
    ("stream", "votes_in", "procedure", "validate", "triggers", "validate_votes"),
    ("stream", "valid_votes", "procedure", "count_votes", "triggers", "count_valid_votes"),
    ("stream", "removal_due", "procedure", "remove_lowest", "triggers", "remove_contestant"),
    ("stream", "valid_votes", "window", "trending", "fills", None),
    ("window", "trending", "trigger", "refresh_trending", "fires", None),
    ("procedure", "validate", "table", "votes", "writes", None),
    ("procedure", "validate", "stream", "valid_votes", "writes", None),
    ("procedure", "count_votes", "table", "votes_count", "writes", None),
    ("procedure", "count_votes", "table", "board_history", "writes", None),
    ("procedure", "count_votes", "stream", "removal_due", "writes", None),
    ("procedure", "remove_lowest", "table", "removals", "writes", None),
    ("procedure", "remove_lowest", "table", "votes", "writes", None),
    ("procedure", "remove_lowest", "table", "leaderboard", "writes", None),
    ("procedure", "remove_lowest", "table", "contestants", "writes", None),
    ("trigger", "refresh_trending", "table", "leaderboard", "writes", None),
    ("table", "votes", "materialized view", "v_votes_by_contestant", "maintains", None),
    ("table", "votes", "materialized view", "v_votes_by_phone_number", "maintains", None),
    *(("table", name, "procedure", "validate", "reads", None)
      for name in ("area_code_state", "contestants", "votes")),
    ("materialized view", "v_votes_by_phone_number", "procedure", "validate", "reads", None),
    ("stream", "votes_in", "procedure", "validate", "reads", None),
    *(("table", name, "procedure", "count_votes", "reads", None)
      for name in ("leaderboard", "votes_count")),
    ("materialized view", "v_votes_by_contestant", "procedure", "count_votes", "reads", None),
    ("stream", "valid_votes", "procedure", "count_votes", "reads", None),
    *(("table", name, "procedure", "remove_lowest", "reads", None)
      for name in ("contestants", "leaderboard", "removals", "votes")),
    ("materialized view", "v_votes_by_contestant", "procedure", "remove_lowest", "reads", None),
    ("table", "contestants", "trigger", "refresh_trending", "reads", None),
    ("window", "trending", "trigger", "refresh_trending", "reads", None),
}


@pytest.fixture
def leaderboard(server: ServerProcess) -> Iterator[tuple[psycopg.Connection, str]]:
    with own_schema(server, "lb") as conn:
        conn.execute(SCHEMA_FILE.read_text())
        yield conn, conn.execute("SELECT current_schema()").fetchone()[0]


def test_leaderboard_graph(leaderboard: tuple[psycopg.Connection, str]) -> None:
    conn, schema = leaderboard
    rows = conn.execute(
        "SELECT from_kind, from_name, to_kind, to_name, edge_kind, via_trigger "
        "FROM sqlext_dataflow WHERE from_schema = %s OR to_schema = %s",
        (schema, schema)).fetchall()
    assert set(rows) == LEADERBOARD_EDGES and len(rows) == len(LEADERBOARD_EDGES)
    assert explain(conn, "votes_in") == LEADERBOARD_PLAN.format(votes=0, valid=0).splitlines()

    votes = list(generate_votes(40))
    votes.append((41, votes[0][1], 1))  # a second vote from one phone: not valid
    send_waiting(conn, votes)  # one batch per vote
    assert conn.execute("SELECT sqlext_drain(60)").fetchone() == (True,)
    (valid,) = conn.execute("SELECT count(*) FROM votes").fetchone()
    assert 0 < valid < len(votes)  # a rejected vote makes no valid_votes batch
    assert explain(conn, "votes_in") == LEADERBOARD_PLAN.format(
        votes=len(votes), valid=valid).splitlines()


def test_sqlext_graph_draws_the_leaderboard(server: ServerProcess,
                                            leaderboard: tuple[psycopg.Connection, str],
                                            tmp_path: Path) -> None:
    _, schema = leaderboard
    connection = ["-h", server.host, "-p", str(server.port)]
    svg, dot_file = tmp_path / "leaderboard.svg", tmp_path / "leaderboard.dot"
    drawn = run_sqlext("graph", f"{schema}.votes_in", "--svg", str(svg), "--dot",
                       str(dot_file), *connection)
    assert drawn.returncode == 0, drawn.stderr
    picture = svg.read_text()
    assert picture.startswith("<?xml") and "<svg" in picture
    for procedure in ("validate", "count_votes", "remove_lowest"):
        assert f">{schema}.{procedure}</text>" in picture  # labels qualified: not on the path
    assert dot_file.read_text().startswith("digraph dataflow {")

    missing = run_sqlext("graph", f"{schema}.nosuch", "--dot", str(dot_file), *connection)
    assert missing.returncode == 1
    assert f'42P01: relation "{schema}.nosuch" does not exist' in missing.stderr
    no_dot = run_sqlext("graph", "--svg", str(tmp_path / "x.svg"), *connection,
                        path=str(tmp_path))  # a PATH without Graphviz
    assert no_dot.returncode == 1 and "apt-get install graphviz" in no_dot.stderr
    assert not (tmp_path / "x.svg").exists()

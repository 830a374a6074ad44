"""Notify streams: every committed batch reaches listeners as one JSON
payload, in batch order, whoever produced it (a client's INSERT or COPY, a
PE-triggered procedure); a client that was away catches up by batch id,
since the stream keeps its newest batches."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.fixtures.notifications import take
from tests.fixtures.servers import ServerProcess, sqlstate_of


def announced(conn: psycopg.Connection, count: int) -> list[dict[str, Any]]:
    """The next ``count`` batch payloads the connection gets."""
    return [json.loads(n.payload) for n in take(conn, count)]


@pytest.fixture
def server(server_factory: Callable[..., ServerProcess]) -> ServerProcess:
    return server_factory("--in-memory")


@pytest.fixture
def conn(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with server.connect(autocommit=True) as connection:
        yield connection


@pytest.fixture
def listener(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with server.connect(autocommit=True) as connection:
        yield connection


def test_each_committed_batch_is_one_json_payload(conn: psycopg.Connection,
                                                  listener: psycopg.Connection) -> None:
    conn.execute("""CREATE STREAM trades (symbol text, price numeric(10,2), qty int,
                    at timestamptz, firm boolean) WITH (notify = 'trades_out')""")
    listener.execute("LISTEN trades_out")
    pid = conn.info.backend_pid
    conn.execute("INSERT INTO trades VALUES ('ACME', 12.5, 100, '2024-05-01 10:00:00+02', true),"
                 " ('INIT', NULL, 7, NULL, false)")
    with conn.transaction():  # two statements, one batch
        conn.execute("INSERT INTO trades (symbol, qty) VALUES ('B1', 1)")
        conn.execute("INSERT INTO trades (symbol, qty) VALUES ('B2', 2)")
    with conn.transaction():
        conn.execute("INSERT INTO trades (symbol) VALUES ('rolled back')")
        raise psycopg.Rollback()
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM trades")  # no rows written: no batch
    conn.execute("COMMIT")
    with conn.cursor().copy("COPY trades (symbol, qty) FROM STDIN") as copy:
        copy.write_row(("C1", 3))
        copy.write_row(("C2", 4))
    notes = take(listener, 3)
    assert {n.pid for n in notes} == {pid}
    assert notes[0].payload == (
        '{"stream":"trades","batch_id":1,"row_count":2,"rows":['
        '{"symbol":"ACME","price":12.50,"qty":100,"at":"2024-05-01T08:00:00+00:00",'
        '"firm":true},{"symbol":"INIT","price":null,"qty":7,"at":null,"firm":false}]}')
    batches = [json.loads(n.payload) for n in notes]
    assert [(b["batch_id"], b["row_count"], [r["symbol"] for r in b["rows"]])
            for b in batches] == [(1, 2, ["ACME", "INIT"]), (2, 2, ["B1", "B2"]),
                                  (3, 2, ["C1", "C2"])]
    # what was announced is in the stream, under the same batch ids
    assert conn.execute("SELECT batch_id, symbol FROM trades ORDER BY batch_id, symbol"
                        ).fetchall() == [(1, "ACME"), (1, "INIT"), (2, "B1"), (2, "B2"),
                                         (3, "C1"), (3, "C2")]


def test_batches_of_a_dataflow_are_announced_in_order(conn: psycopg.Connection,
                                                      listener: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM readings (sensor text, value int)")
    conn.execute("CREATE STREAM alerts (sensor text, value int) WITH (notify = 'alerts')")
    conn.execute("""CREATE PROCEDURE check_readings() BEGIN ATOMIC
        INSERT INTO alerts SELECT sensor, value FROM readings WHERE value > 100;
    END""")
    conn.execute("CREATE TRIGGER t AFTER INSERT ON readings EXECUTE PROCEDURE check_readings()")
    listener.execute("LISTEN alerts")
    for batch in range(1, 6):
        conn.execute("INSERT INTO readings VALUES ('s1', %s), ('s2', %s)",
                     (batch * 50, batch * 10))
    notes = take(listener, 3)
    assert {n.pid for n in notes} == {0}  # the dataflow's own transactions
    assert [(b["batch_id"], b["rows"]) for b in (json.loads(n.payload) for n in notes)] == [
        (1, [{"sensor": "s1", "value": 150}]), (2, [{"sensor": "s1", "value": 200}]),
        (3, [{"sensor": "s1", "value": 250}])]


def test_a_batch_too_big_for_a_payload_is_announced_without_rows(
        conn: psycopg.Connection, listener: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM logs (line text) WITH (notify = 'logs')")
    listener.execute("LISTEN logs")
    conn.execute("INSERT INTO logs SELECT repeat('x', 100) FROM generate_series(1, 200)")
    conn.execute("INSERT INTO logs VALUES ('small')")
    notes = take(listener, 2)
    assert len(notes[0].payload.encode()) < 8000
    assert [json.loads(n.payload) for n in notes] == [
        {"stream": "logs", "batch_id": 1, "row_count": 200},
        {"stream": "logs", "batch_id": 2, "row_count": 1, "rows": [{"line": "small"}]}]
    assert conn.execute("SELECT count(*) FROM logs WHERE batch_id = 1").fetchone() == (200,)


def test_a_client_catches_up_by_batch_id(server: ServerProcess,
                                         conn: psycopg.Connection) -> None:
    """The recipe of docs/sql.md: LISTEN first, then read the batches after
    the last one seen, then take notifications, skipping batches already read."""
    conn.execute("CREATE STREAM orders (id int, item text)")
    conn.execute("CREATE STREAM shipped (id int, item text) WITH (notify = 'shipped')")
    conn.execute("""CREATE PROCEDURE ship() BEGIN ATOMIC
        INSERT INTO shipped SELECT id, upper(item) FROM orders;
    END""")
    conn.execute("CREATE TRIGGER t AFTER INSERT ON orders EXECUTE PROCEDURE ship()")

    def order(number: int) -> None:
        conn.execute("INSERT INTO orders VALUES (%s, %s)", (number, f"item {number}"))

    seen: dict[int, list[str]] = {}
    with server.connect(autocommit=True) as client:
        client.execute("LISTEN shipped")
        for number in (1, 2):
            order(number)
        for batch in announced(client, 2):
            seen[batch["batch_id"]] = [row["item"] for row in batch["rows"]]
    last = max(seen)
    for number in (3, 4, 5):  # while the client is away
        order(number)
    with server.connect(autocommit=True) as client:
        client.execute("LISTEN shipped")
        order(6)  # after the LISTEN: announced (and maybe read below as well)
        for batch_id, item in client.execute(
                "SELECT batch_id, item FROM shipped WHERE batch_id > %s ORDER BY batch_id",
                (last,)):
            seen.setdefault(batch_id, []).append(item)
        last = max(seen)
        order(7)
        for batch in announced(client, 2):
            if batch["batch_id"] > last:
                seen[batch["batch_id"]] = [row["item"] for row in batch["rows"]]
    assert seen == {number: [f"ITEM {number}"] for number in range(1, 8)}


def test_a_notify_stream_keeps_its_newest_batches(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (x int) WITH (notify = 's', keep_batches = 2)")
    conn.execute("CREATE TABLE seen (x int CHECK (x >= 0))")
    conn.execute("CREATE PROCEDURE take() BEGIN ATOMIC INSERT INTO seen SELECT x FROM s; END")
    conn.execute("CREATE TRIGGER t AFTER INSERT ON s EXECUTE PROCEDURE take()")

    def kept() -> list[int]:
        return [row[0] for row in conn.execute(
            "SELECT DISTINCT batch_id FROM s ORDER BY 1")]

    for x in (1, 2, 3):
        conn.execute("INSERT INTO s VALUES (%s)", (x,))
    assert kept() == [2, 3]
    # a stopped procedure keeps the batches it has yet to run on
    for x in (-4, 5, 6):
        conn.execute("INSERT INTO s VALUES (%s)", (x,))
    assert kept() == [4, 5, 6]
    conn.execute("CREATE OR REPLACE PROCEDURE take() BEGIN ATOMIC "
                 "INSERT INTO seen SELECT abs(x) FROM s; END")
    conn.execute("ALTER PROCEDURE take RESUME")
    conn.execute("SELECT sqlext_drain(30)")
    conn.execute("INSERT INTO s VALUES (7)")
    assert kept() == [6, 7]
    assert conn.execute("SELECT x FROM seen ORDER BY x").fetchall() == [
        (x,) for x in range(1, 8)]


def test_client_assigned_batch_ids_keep_the_highest(conn: psycopg.Connection,
                                                    listener: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (bid bigint NOT NULL, x int) "
                 "WITH (batch_column = 'bid', notify = 'numbered', keep_batches = 2)")
    listener.execute("LISTEN numbered")

    def kept() -> list[int]:
        return [row[0] for row in conn.execute("SELECT DISTINCT bid FROM s ORDER BY 1")]

    for bid in (10, 30, 20):
        conn.execute("INSERT INTO s VALUES (%s, 1)", (bid,))
    assert kept() == [20, 30]
    conn.execute("INSERT INTO s VALUES (5, 1)")  # older than the kept ones: kept until the next
    assert kept() == [5, 20, 30]
    conn.execute("INSERT INTO s VALUES (30, 1)")  # a re-delivery: no batch, nothing announced
    conn.execute("INSERT INTO s VALUES (40, 1)")
    assert kept() == [30, 40]
    assert [b["batch_id"] for b in announced(listener, 5)] == [10, 30, 20, 5, 40]


def test_stream_options_are_checked(conn: psycopg.Connection) -> None:
    for options, sqlstate in [
        ("notify = ''", "22023"),
        (f"notify = '{'c' * 64}'", "22023"),
        ("keep_batches = 5", "22023"),
        ("notify = 'c', keep_batches = 0", "22023"),
        ("notify = 'c', keep_batches = 'many'", "22023"),
        ("notify = 'c', keep = 3", "22023"),
    ]:
        assert sqlstate_of(conn, f"CREATE STREAM bad (x int) WITH ({options})") == sqlstate


def test_notify_streams_survive_a_restart(server_factory: Callable[..., ServerProcess],
                                          tmp_path: Path) -> None:
    """Options come back from the snapshot and from the command log; what
    replay redoes is not announced again."""
    data = str(tmp_path / "data")
    server = server_factory("--data-dir", data)
    with server.connect(autocommit=True) as conn:
        conn.execute("CREATE STREAM a (x int) WITH (notify = 'a', keep_batches = 2)")
        conn.execute("CHECKPOINT")
        conn.execute("CREATE STREAM b (x int) WITH (notify = 'b', keep_batches = 2)")
        conn.execute("CREATE TABLE log (x int)")
        with server.connect(autocommit=True) as listener:
            listener.execute("LISTEN a; LISTEN b; LISTEN old")
            for x in (1, 2, 3):
                conn.execute("INSERT INTO a VALUES (%s)", (x,))
                conn.execute("INSERT INTO b VALUES (%s)", (x,))
            conn.execute("INSERT INTO log SELECT 1 FROM (SELECT pg_notify('old', 'x')) n")
            assert [n.channel for n in take(listener, 7)] == ["a", "b"] * 3 + ["old"]
    server.stop(signal.SIGKILL)
    server = server_factory("--data-dir", data)
    with server.connect(autocommit=True) as conn, \
            server.connect(autocommit=True) as listener:
        listener.execute("LISTEN a; LISTEN b; LISTEN old")
        conn.execute("INSERT INTO a VALUES (4)")
        conn.execute("INSERT INTO b VALUES (4)")
        conn.execute("NOTIFY old, 'new'")
        got = take(listener, 3)
        assert [(n.channel, json.loads(n.payload)["batch_id"] if n.channel != "old"
                 else n.payload) for n in got] == [("a", 4), ("b", 4), ("old", "new")]
        for stream in ("a", "b"):
            assert conn.execute(f"SELECT DISTINCT batch_id FROM {stream} ORDER BY 1"
                                ).fetchall() == [(3,), (4,)]

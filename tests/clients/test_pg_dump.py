"""pg_dump, pg_restore and psql -f (the PostgreSQL 15 client binaries) with
sqlext: dumps of sqlext restore into PostgreSQL 15 and into a fresh sqlext,
a dump of PostgreSQL restores into sqlext, and the dataflow travels as the
rows of the extension sqlext's table (``sqlext.dataflow``), rebuilt by
sqlext and refused loudly by PostgreSQL.

"Equal" is checked with pg_dump itself: the dump of the restored database
must be the dump of the original, line for line (schema, data, sequence
positions, comments, owners), or, through PostgreSQL, the dump PostgreSQL
makes of the same objects made directly.
"""

from __future__ import annotations

import signal
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.servers import ServerProcess

OBJECTS = r"""
CREATE SCHEMA shop;
CREATE TABLE shop.customers (
    id serial PRIMARY KEY,
    email varchar(80) NOT NULL UNIQUE,
    name text,
    balance numeric(12,2) NOT NULL DEFAULT 0 CHECK (balance >= 0),
    joined timestamptz,
    tags text[],
    profile jsonb,
    avatar bytea,
    active boolean DEFAULT true
);
CREATE TABLE shop.orders (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer int NOT NULL REFERENCES shop.customers (id) ON DELETE CASCADE,
    placed date NOT NULL,
    amount numeric(10,2),
    ratio double precision,
    items int[],
    note text,
    UNIQUE (customer, placed)
);
CREATE INDEX orders_by_placed ON shop.orders (placed DESC, customer);
CREATE TABLE plain (k int, "order" text);
CREATE SEQUENCE shop.invoice_numbers START 1000 INCREMENT 10;
SELECT nextval('shop.invoice_numbers'), nextval('shop.invoice_numbers');
CREATE VIEW shop.big_orders AS
    SELECT o.id, c.email, o.amount FROM shop.orders o JOIN shop.customers c ON c.id = o.customer
    WHERE o.amount > 100;
CREATE MATERIALIZED VIEW shop.spend AS
    SELECT customer, sum(amount) AS total, count(*) AS orders FROM shop.orders GROUP BY customer;
COMMENT ON TABLE shop.customers IS 'who buys';
COMMENT ON COLUMN shop.customers.email IS 'where we write';
COMMENT ON VIEW shop.big_orders IS 'orders over 100';
INSERT INTO shop.customers (email, name, balance, joined, tags, profile, avatar) VALUES
    ('a@x', 'Ann', 12.50, '2024-01-02 03:04:05+00', '{vip,"with space"}',
     '{"k": [1, 2.50, null], "s": "t\"q"}', '\x00ff10'),
    ('b@x', E'tab\there\nnewline \\ back', 0, NULL, '{}', NULL, NULL),
    ('c@x', NULL, 99999.99, '1999-12-31 23:59:59.123456+00', NULL, '[]', '\x');
INSERT INTO shop.orders (customer, placed, amount, ratio, items, note) VALUES
    (1, '2024-02-29', 150.00, 0.1, '{1,2,NULL}', 'first'),
    (1, '2024-03-01', 20.5, -1.5e300, '{}', NULL),
    (2, '2024-03-01', NULL, 'NaN', NULL, E'multi\nline');
INSERT INTO plain VALUES (1, 'x'), (NULL, NULL);
"""
"""Tables of many types with NULLs and awkward text, serial and identity
columns, keys, a foreign key, a check, an index, a sequence, a view, a
materialized view and comments: made the same way in sqlext and in
PostgreSQL."""

DATAFLOW = """
CREATE ROLE clerk;
CREATE STREAM shop.orders_in (order_id bigint NOT NULL, customer int NOT NULL,
                              amount numeric(10,2));
CREATE STREAM shop.alerts (customer int, total numeric(12,2))
    WITH (notify = 'alerts', keep_batches = 100);
CREATE STREAM shop.keyed (bid bigint NOT NULL, v int) WITH (batch_column = 'bid');
CREATE WINDOW shop.recent ON shop.orders_in ROWS 4 SLIDE 2;
CREATE TABLE shop.totals (customer int PRIMARY KEY, total numeric(12,2) NOT NULL);
CREATE TABLE shop.slides (n serial PRIMARY KEY, seen bigint);
CREATE PROCEDURE shop.flag(over numeric DEFAULT 100) LANGUAGE sql AS $$
    INSERT INTO alerts SELECT customer, total FROM totals WHERE total > over $$;
CREATE PROCEDURE shop.tally() BEGIN ATOMIC
    INSERT INTO totals SELECT customer, sum(amount) FROM orders_in GROUP BY customer
        ON CONFLICT (customer) DO UPDATE SET total = totals.total + excluded.total;
    CALL flag();
END;
CREATE TRIGGER tally_each AFTER INSERT ON shop.orders_in EXECUTE PROCEDURE shop.tally();
CREATE TRIGGER count_slides AFTER SLIDE ON shop.recent AS $$
    INSERT INTO slides (seen) SELECT count(*) FROM recent $$;
CREATE TRIGGER audit_customers AFTER INSERT ON shop.customers AS $$
    INSERT INTO shop.slides (seen) VALUES (-1) $$;
COMMENT ON TABLE shop.orders_in IS 'orders as they come';
GRANT INSERT ON shop.orders_in TO clerk;
GRANT EXECUTE ON PROCEDURE shop.flag TO clerk;
INSERT INTO shop.orders_in VALUES (1, 1, 60);
INSERT INTO shop.orders_in VALUES (2, 1, 70);
INSERT INTO shop.orders_in VALUES (3, 2, 10);
INSERT INTO shop.orders_in VALUES (4, 3, 5);
INSERT INTO shop.keyed VALUES (7, 1);
SELECT sqlext_drain(30);
"""
"""A dataflow over the tables above: streams (one notifying, one with
client batch ids), a window with an AFTER SLIDE trigger, a procedure
calling another, a PE trigger, an EE trigger on a table, a comment and a
grant; four batches have gone through it."""


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _run_input(*command: str, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, input=text, capture_output=True, text=True, timeout=120,
                          check=False)


def _ok(*command: str) -> str:
    done = _run(*command)
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stderr}"
    return done.stdout


class Target:
    """A database pg_dump and psql reach by host, port and name."""

    def __init__(self, port: int, database: str) -> None:
        self.options = ("-h", "127.0.0.1", "-p", str(port), "-U", "postgres")
        self.database = database
        self.dsn = f"host=127.0.0.1 port={port} user=postgres dbname={database}"

    def run_sql(self, sql: str) -> None:
        """A script, as psql -f runs it: one statement after the other."""
        done = _run_input("psql", *self.options, "-d", self.database, "-v", "ON_ERROR_STOP=1",
                          "-q", "-f", "-", text=sql)
        assert done.returncode == 0, f"psql failed:\n{done.stderr}"

    def dump(self, *options: str) -> str:
        """pg_dump's plain output, without what differs between two runs
        (the \\restrict key, the server's version)."""
        text = _ok("pg_dump", *self.options, *options, self.database)
        return "\n".join(line for line in text.splitlines()
                         if not line.startswith(("\\restrict", "\\unrestrict",
                                                 "-- Dumped from database version")))

    def dump_to(self, path: Path, *options: str) -> Path:
        _ok("pg_dump", *self.options, *options, "-f", str(path), self.database)
        return path

    def restore(self, dump: Path) -> subprocess.CompletedProcess[str]:
        """psql -f for a plain dump, pg_restore for an archive; stops at the
        first error."""
        if dump.read_bytes().startswith(b"PGDMP"):
            return _run("pg_restore", *self.options, "-d", self.database, "--exit-on-error",
                        str(dump))
        return _run("psql", *self.options, "-d", self.database, "-v", "ON_ERROR_STOP=1",
                    "-q", "-f", str(dump))

    def restored(self, dump: Path) -> Target:
        done = self.restore(dump)
        assert done.returncode == 0, f"restore failed:\n{done.stderr}"
        return self


Databases = Callable[[], Target]


@pytest.fixture
def postgres_database(postgres: PostgresPeer) -> Databases:
    """Fresh databases of the session's PostgreSQL 15."""

    def create() -> Target:
        name = f"dump_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(postgres.dsn, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return Target(postgres.port, name)

    return create


@pytest.fixture
def sqlext_database(server_factory: Callable[..., ServerProcess]) -> Databases:
    """Fresh sqlext servers (in memory)."""
    return lambda: Target(server_factory("--in-memory").port, "restored")


@pytest.fixture
def sqlext_objects(sqlext_database: Databases) -> Target:
    target = sqlext_database()
    target.run_sql(OBJECTS)
    return target


@pytest.mark.parametrize("archive", [(), ("-Fc",)], ids=["plain", "custom"])
def test_a_dump_of_sqlext_restores_into_postgres(
        sqlext_objects: Target, postgres_database: Databases, tmp_path: Path,
        archive: tuple[str, ...]) -> None:
    made_there = postgres_database()
    made_there.run_sql(OBJECTS)
    dump = sqlext_objects.dump_to(tmp_path / "sqlext.dump", *archive)
    restored = postgres_database().restored(dump)
    assert restored.dump() == made_there.dump()


@pytest.mark.parametrize("archive", [(), ("-Fc",)], ids=["plain", "custom"])
def test_a_dump_of_postgres_restores_into_sqlext(
        sqlext_database: Databases, postgres_database: Databases, tmp_path: Path,
        archive: tuple[str, ...]) -> None:
    original = postgres_database()
    original.run_sql(OBJECTS)
    into_sqlext = sqlext_database().restored(original.dump_to(tmp_path / "pg.dump", *archive))
    # and back: what sqlext made of it is what PostgreSQL had
    back = postgres_database().restored(into_sqlext.dump_to(tmp_path / "back.sql"))
    assert back.dump() == original.dump()


@pytest.fixture
def with_dataflow(sqlext_objects: Target) -> Target:
    sqlext_objects.run_sql(DATAFLOW)
    return sqlext_objects


@pytest.mark.parametrize("archive", [(), ("-Fc",)], ids=["plain", "custom"])
def test_a_dump_of_sqlext_with_a_dataflow_restores_into_sqlext(
        with_dataflow: Target, sqlext_database: Databases, tmp_path: Path,
        archive: tuple[str, ...]) -> None:
    dump = with_dataflow.dump_to(tmp_path / "sqlext.dump", *archive)
    target = sqlext_database()
    target.run_sql("CREATE ROLE clerk")  # roles are the cluster's (pg_dumpall -g)
    restored = target.restored(dump)
    assert restored.dump() == with_dataflow.dump()
    # the dataflow runs again, from empty streams and windows
    restored.run_sql("INSERT INTO shop.orders_in VALUES (5, 2, 300); SELECT sqlext_drain(30)")
    with psycopg.connect(restored.dsn) as connection:
        assert connection.execute(
            "SELECT customer, total FROM shop.totals ORDER BY 1").fetchall() == [
            (1, 130), (2, 310), (3, 5)]
        assert connection.execute(
            "SELECT customer, total FROM shop.alerts ORDER BY 1").fetchall() == [
            (1, 130), (2, 310)]
        # the EE trigger on customers came after the customers' rows
        assert connection.execute("SELECT seen FROM shop.slides").fetchall() == [(4,)]


def test_the_dump_holds_the_dataflow_as_the_extensions_rows(with_dataflow: Target) -> None:
    dump = with_dataflow.dump()
    assert "CREATE EXTENSION IF NOT EXISTS sqlext WITH SCHEMA sqlext;" in dump
    assert "COPY sqlext.dataflow (\"position\", definition) FROM stdin;" in dump
    assert "\n1\tCREATE STREAM shop.orders_in (order_id bigint NOT NULL, " in dump
    assert "\tCREATE TRIGGER tally_each AFTER INSERT ON shop.orders_in EXECUTE PROCEDURE " \
           "shop.tally()\n" in dump
    # nothing of the dataflow as something else
    assert "CREATE TABLE shop.orders_in" not in dump and "CREATE TABLE shop.recent" not in dump
    assert "CREATE PROCEDURE" not in dump.replace("\tCREATE PROCEDURE", "")
    # a trigger on a table comes after the table's rows (post-data)
    assert dump.index("COPY shop.customers") < dump.index("CREATE TRIGGER audit_customers")
    # grants on members are pg_dump's own
    assert "GRANT INSERT ON TABLE shop.orders_in TO clerk;" in dump
    assert "GRANT ALL ON PROCEDURE shop.flag(over numeric) TO clerk;" in dump


@pytest.mark.parametrize("archive", [(), ("-Fc",)], ids=["plain", "custom"])
def test_postgres_refuses_a_dump_with_a_dataflow_loudly(
        with_dataflow: Target, postgres_database: Databases, tmp_path: Path,
        archive: tuple[str, ...]) -> None:
    done = postgres_database().restore(with_dataflow.dump_to(tmp_path / "flow.dump", *archive))
    assert done.returncode != 0
    assert 'extension "sqlext" is not available' in done.stderr


@pytest.mark.parametrize("checkpoint", [False, True], ids=["log", "snapshot"])
def test_a_restored_dataflow_survives_a_crash(
        with_dataflow: Target, server_factory: Callable[..., ServerProcess], tmp_path: Path,
        checkpoint: bool) -> None:
    """The rows of sqlext.dataflow ran inside the restore's COPY: the command
    log (and a snapshot) keep what they made."""
    data = tmp_path / "data"
    server = server_factory("--data-dir", str(data))
    target = Target(server.port, "restored")
    target.run_sql("CREATE ROLE clerk")
    target.restored(with_dataflow.dump_to(tmp_path / "flow.sql"))
    if checkpoint:
        target.run_sql("CHECKPOINT")
    server.stop(signal.SIGKILL)
    again = Target(server_factory("--data-dir", str(data)).port, "restored")
    assert again.dump() == with_dataflow.dump()

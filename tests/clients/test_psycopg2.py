"""psycopg2 (libpq, parameters sent inline as SQL literals) against sqlext:
each test runs the same client code on sqlext and on PostgreSQL 15 and
compares what the client got: Python values, type codes, row counts and
status messages, error classes with their SQLSTATE and fields, the
rows COPY sends, the notifications ``poll()`` collects."""

from __future__ import annotations

import contextlib
import datetime
import io
import select
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import psycopg2
import psycopg2.extras
import pytest
from psycopg2.extensions import connection as Connection
from psycopg2.extensions import cursor as Cursor

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.servers import ServerProcess


class Peer:
    """One server, with a schema of its own: connections to it start in it."""

    def __init__(self, dsn: str, schema: str) -> None:
        self.dsn = dsn
        self.schema = schema

    @contextlib.contextmanager
    def connect(self, autocommit: bool = True) -> Iterator[Connection]:
        connection = psycopg2.connect(self.dsn)
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(f"SET search_path TO {self.schema}")
            connection.autocommit = autocommit
            yield connection
        finally:
            connection.close()


@pytest.fixture(scope="module")
def peers(server: ServerProcess, postgres: PostgresPeer) -> Iterator[tuple[Peer, Peer]]:
    """(sqlext, PostgreSQL), each with the same schema."""
    schema = f"pg2_{uuid.uuid4().hex[:12]}"
    both = (Peer(server.dsn, schema), Peer(postgres.dsn, schema))
    for peer in both:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute(f"CREATE SCHEMA {schema}")
    yield both
    for peer in both:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute(f"DROP SCHEMA {schema} CASCADE")


def same(peers: tuple[Peer, Peer], case: Callable[[Peer], Any]) -> Any:
    """What ``case`` got from sqlext, once it is what it got from PostgreSQL."""
    ours, theirs = (case(peer) for peer in peers)
    assert ours == theirs
    return ours


def rows(cursor: Cursor) -> tuple[list[Any], list[tuple[str, int]]]:
    """The rows (memoryviews as bytes) and the columns' names and type OIDs."""
    fetched = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
               for row in cursor.fetchall()]
    return fetched, [(column.name, column.type_code) for column in cursor.description]


def failure(cursor: Cursor, sql: str) -> tuple[Any, ...]:
    """How ``sql`` fails: psycopg2's class, the SQLSTATE, the message and the
    fields naming the object (schema, table, column, constraint)."""
    try:
        cursor.execute(sql)
    except psycopg2.Error as exc:
        diag = exc.diag
        return (type(exc).__name__, exc.pgcode, diag.message_primary, diag.schema_name,
                diag.table_name, diag.column_name, diag.constraint_name)
    return ("ok", cursor.statusmessage)


TYPES_TABLE = """CREATE TABLE typed (id serial PRIMARY KEY, i int, b bigint, s smallint,
    n numeric(10, 2), f double precision, r real, t text, v varchar(20), c char(3),
    ok boolean, d date, ts timestamp, tz timestamptz, tm time, iv interval, u uuid,
    by bytea, j jsonb, js json, ia int[], ta text[], ip inet)"""

VALUES = (1, 2**40, -3, Decimal("3.14"), 2.5, 0.5, "a\tb\nc\\d 'q' \u00e9", "vc", "ab", True,
          datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
          datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
          datetime.time(1, 2, 3), datetime.timedelta(days=-1, hours=25, microseconds=7),
          uuid.UUID(int=7), b"\x00\xff'\\", psycopg2.extras.Json({"k": [1, None, "x"]}),
          psycopg2.extras.Json([1.5, "y"]), [1, None, 3], ["x", "y z", None, ""], "10.0.0.1")


def test_parameters_of_every_common_type_both_ways(peers: tuple[Peer, Peer]) -> None:
    psycopg2.extras.register_uuid()

    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute(TYPES_TABLE)
            columns = "i, b, s, n, f, r, t, v, c, ok, d, ts, tz, tm, iv, u, by, j, js, ia, ta, ip"
            cursor.execute(f"INSERT INTO typed ({columns}) VALUES "
                           f"({', '.join(['%s'] * len(VALUES))}) RETURNING id", VALUES)
            inserted = (cursor.fetchone(), cursor.rowcount, cursor.statusmessage)
            cursor.execute(f"INSERT INTO typed ({columns}) VALUES "
                           f"({', '.join(['%s'] * len(VALUES))})", (None,) * len(VALUES))
            cursor.execute(f"SELECT {columns} FROM typed ORDER BY id")
            stored = rows(cursor)
            # the same values as parameters of a query, typed by their literals
            cursor.execute(f"SELECT {', '.join(['%s'] * len(VALUES))}", VALUES)
            echoed = rows(cursor)
            cursor.execute("SELECT %(a)s + %(a)s AS twice, %(b)s AS b, '%%' || %(b)s AS pct",
                           {"a": 2, "b": "x%y"})
            return inserted, stored, echoed, rows(cursor)

    same(peers, case)


def test_special_values(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SELECT 'NaN'::numeric::text, 'Infinity'::float8, '-Infinity'::float8, "
                           "%s::float8 = 'NaN', -0.0::float8, 1e-7::float8, "
                           "123456789012345678901234567890.123::numeric, "
                           "'infinity'::timestamp::text", (float("nan"),))
            first = rows(cursor)
            cursor.execute("SET TimeZone = 'America/New_York'")
            cursor.execute("SELECT '2024-07-01 12:00:00+00'::timestamptz, %s::timestamptz",
                           (datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(
                               datetime.timedelta(hours=5, minutes=30))),))
            return first, rows(cursor)

    same(peers, case)


def test_execute_values_and_execute_batch(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE batch (id serial PRIMARY KEY, k int, s text, n numeric)")
            psycopg2.extras.execute_values(
                cursor, "INSERT INTO batch (k, s, n) VALUES %s",
                [(k, f"s{k}", Decimal(k) / 4) for k in range(250)], page_size=100)
            paged = cursor.rowcount  # the last page's
            returned = psycopg2.extras.execute_values(
                cursor, "INSERT INTO batch (k, s) VALUES %s RETURNING id, k",
                [(k, "r") for k in range(300, 305)], fetch=True)
            psycopg2.extras.execute_values(
                cursor, "UPDATE batch SET s = v.s FROM (VALUES %s) AS v (k, s) WHERE batch.k = v.k",
                [(1, "one"), (2, "two")], template="(%s, %s)")
            psycopg2.extras.execute_batch(cursor, "UPDATE batch SET n = n + %s WHERE k = %s",
                                          [(1, k) for k in range(10, 50)], page_size=7)
            cursor.execute("SELECT count(*), sum(n), min(s), max(id) FROM batch")
            return paged, returned, rows(cursor)

    same(peers, case)


def test_copy_expert_in_and_out(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE copied (a int, b text, n numeric, d date)")
            text = ("1\tone\t1.5\t2024-01-01\n2\t\\N\t\\N\t2024-01-02\n"
                    "3\ta\\tb\\\\c\t-0\t2024-01-03\n")
            cursor.copy_expert("COPY copied FROM STDIN", io.StringIO(text))
            counts = [cursor.rowcount]
            csv = 'a,b,n,d\n4,"x,y",2,2024-02-01\n5,,3.0,2024-02-02\n6,"",1e3,2024-02-03\n' \
                  '7,"multi\nline ""q""",0,2024-02-04\n'
            cursor.copy_expert("COPY copied FROM STDIN WITH (FORMAT csv, HEADER true)",
                               io.StringIO(csv))
            counts.append(cursor.rowcount)
            outputs = []
            for sql in ("COPY copied TO STDOUT",
                        "COPY (SELECT * FROM copied ORDER BY a) TO STDOUT WITH CSV HEADER",
                        "COPY copied (b, a) TO STDOUT WITH (FORMAT csv, FORCE_QUOTE *, "
                        "NULL 'nil')"):
                out = io.StringIO()
                cursor.copy_expert(sql, out)
                outputs.append((out.getvalue(), cursor.rowcount))
            bad = failure(cursor, "SELECT 1")  # the connection is fine
            try:
                cursor.copy_expert("COPY copied FROM STDIN", io.StringIO("x\ty\n"))
            except psycopg2.Error as exc:
                bad = (type(exc).__name__, exc.pgcode)
            return counts, outputs, bad

    same(peers, case)


def test_copy_from_and_copy_to(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE plain (a int, b text, c float8)")
            cursor.copy_from(io.StringIO("7\tseven\t0.5\n8\t\\N\t-1\n"), "plain")
            cursor.copy_from(io.StringIO("9|nine\n10|NULLX\n"), "plain", sep="|",
                             null="NULLX", columns=("a", "b"))
            out = io.StringIO()
            cursor.copy_to(out, "plain", sep=",", null="~", columns=("a", "b", "c"))
            return out.getvalue()

    same(peers, case)


def test_named_cursors(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as setup, setup.cursor() as cursor:
            cursor.execute("CREATE TABLE many (n int, label text)")
            cursor.execute("INSERT INTO many SELECT g, 'row ' || g FROM generate_series(1, 95) g")
        with peer.connect(autocommit=False) as connection:
            named = connection.cursor("reader")
            named.itersize = 7
            named.execute("SELECT n, label FROM many WHERE n %% %s = 0 ORDER BY n", (2,))
            iterated = list(named)
            named.close()
            partial = connection.cursor("partial")
            partial.execute("SELECT n FROM many ORDER BY n")
            pieces = [partial.fetchone(), partial.fetchmany(3), len(partial.fetchall()),
                      partial.rowcount]
            partial.close()
            scrolling = connection.cursor("scrolling", scrollable=True)
            scrolling.execute("SELECT n FROM many ORDER BY n")
            moves = [scrolling.fetchmany(3)]
            for value, mode in ((-2, "relative"), (10, "absolute"), (0, "absolute"),
                                (40, "relative")):
                scrolling.scroll(value, mode)
                moves.append(scrolling.fetchone())
            scrolling.close()
            forward = connection.cursor("forward", scrollable=False)
            forward.execute("SELECT n FROM many ORDER BY n")
            forward.scroll(5)
            moves.append(forward.fetchone())
            forward.scroll(20, "absolute")
            moves.append(forward.fetchone())
            moves.append(failure(connection.cursor(), 'MOVE -1 FROM "forward"'))
            connection.rollback()
            held = connection.cursor("held", withhold=True)
            held.execute("SELECT n FROM many ORDER BY n DESC")
            connection.commit()
            after_commit = held.fetchmany(2)
            held.close()
            connection.commit()
            return iterated, pieces, moves, after_commit

    same(peers, case)


def test_dict_and_named_tuple_cursors(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection:
            real = connection.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
            real.execute("SELECT 1 AS a, 'x' AS b, NULL::date AS c UNION ALL SELECT 2, 'y', "
                         "'2024-01-01'")
            by_name = real.fetchall()
            plain = connection.cursor(cursor_factory=psycopg2.extras.DictCursor)
            plain.execute("SELECT 1 AS a, 2 AS b")
            row = plain.fetchone()
            tuples = connection.cursor(cursor_factory=psycopg2.extras.NamedTupleCursor)
            tuples.execute("SELECT 1 AS x, 'two' AS y")
            return by_name, (row["a"], row[1], list(row.items())), tuples.fetchone()._asdict()

    same(peers, case)


def test_transactions(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        seen: list[Any] = []
        with peer.connect() as setup, setup.cursor() as cursor:
            cursor.execute("CREATE TABLE ledger (n int)")
        with peer.connect(autocommit=False) as connection:
            cursor = connection.cursor()
            cursor.execute("INSERT INTO ledger VALUES (-1)")
            seen.append(connection.info.transaction_status)
            connection.rollback()
            cursor.execute("INSERT INTO ledger VALUES (1)")
            connection.commit()
            seen.append(connection.info.transaction_status)
            seen.append(failure(cursor, "SELECT 1/0"))
            seen.append(connection.info.transaction_status)
            seen.append(failure(cursor, "SELECT 1"))
            connection.rollback()
            with connection, connection.cursor() as inner:
                inner.execute("INSERT INTO ledger VALUES (2)")
            with contextlib.suppress(psycopg2.Error), connection, connection.cursor() as inner:
                inner.execute("INSERT INTO ledger VALUES (3)")
                inner.execute("INSERT INTO ledger VALUES ('three')")
            connection.set_session(isolation_level="SERIALIZABLE", readonly=True)
            cursor.execute("SHOW transaction_isolation")
            seen.append(cursor.fetchone())
            seen.append(failure(cursor, "INSERT INTO ledger VALUES (4)"))
            connection.rollback()
            connection.set_session(isolation_level="DEFAULT", readonly="DEFAULT")
            connection.autocommit = True
            for sql in ("BEGIN", "SAVEPOINT a", "INSERT INTO ledger VALUES (5)",
                        "ROLLBACK TO SAVEPOINT a", "INSERT INTO ledger VALUES (6)", "COMMIT"):
                cursor.execute(sql)
            cursor.execute("SELECT n FROM ledger ORDER BY n")
            seen.append(cursor.fetchall())
        return seen

    same(peers, case)


def test_two_phase_commit_is_off_as_by_default(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect(autocommit=False) as connection:
            connection.tpc_begin(connection.xid(1, "gtrid", "bqual"))
            connection.cursor().execute("SELECT 1")
            seen: list[Any] = []
            for step in (connection.tpc_prepare, lambda: connection.tpc_rollback("other")):
                try:
                    step()
                except psycopg2.Error as exc:
                    seen.append((type(exc).__name__, exc.pgcode, exc.diag.message_primary,
                                 connection.info.transaction_status))
            return seen

    same(peers, case)


def test_errors_carry_sqlstate_and_fields(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE parent (id int PRIMARY KEY, u text UNIQUE, "
                           "n int NOT NULL, c int CONSTRAINT positive CHECK (c > 0))")
            cursor.execute("CREATE TABLE child (pid int REFERENCES parent (id))")
            cursor.execute("INSERT INTO parent VALUES (1, 'a', 1, 1)")
            cursor.execute("INSERT INTO child VALUES (1)")
            return [failure(cursor, sql) for sql in (
                "SELECT * FROM nope", "SELECT 'x'::int", "SELEC 1", "SELECT nofunc()",
                "SELECT nocol FROM parent", "CREATE TABLE parent (a int)", "SELECT 1/0",
                "INSERT INTO parent VALUES (1, 'b', 1, 1)",
                "INSERT INTO parent VALUES (2, 'a', 1, 1)",
                "INSERT INTO parent VALUES (3, 'c', NULL, 1)",
                "INSERT INTO parent VALUES (4, 'd', 1, -1)",
                "INSERT INTO child VALUES (9)", "DELETE FROM parent",
                "SELECT 2147483647::int + 1", "SELECT 'abc'::date")]

    same(peers, case)


def test_cancel_and_statement_timeout(peers: tuple[Peer, Peer]) -> None:
    endless = ("WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
               "SELECT count(*) FROM r")

    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            canceller = threading.Timer(0.3, connection.cancel)
            canceller.start()
            cancelled = failure(cursor, endless)
            canceller.join()
            cursor.execute("SET statement_timeout = 200")
            return cancelled, failure(cursor, endless), failure(cursor, "SELECT 1")

    same(peers, case)


def test_listen_notify_by_poll(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as listener, peer.connect() as sender:
            listening = listener.cursor()
            listening.execute('LISTEN jobs; LISTEN "Mixed Case"; LISTEN done')
            sending = sender.cursor()
            sending.execute("NOTIFY jobs, 'first'")
            sending.execute("SELECT pg_notify('Mixed Case', %s)", ("x y",))
            sender.autocommit = False
            sending.execute("NOTIFY jobs, 'in a transaction'")
            sending.execute("NOTIFY jobs, 'in a transaction'")
            sender.commit()
            sending.execute("NOTIFY done")
            sender.commit()
            received: list[tuple[str, str, bool]] = []
            deadline = time.monotonic() + 10
            while not received or received[-1][0] != "done":
                assert time.monotonic() < deadline, received
                select.select([listener], [], [], 1)
                listener.poll()
                while listener.notifies:
                    note = listener.notifies.pop(0)
                    received.append((note.channel, note.payload,
                                     note.pid == sender.get_backend_pid()))
            return received

    same(peers, case)


def test_callproc_and_notices(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection, connection.cursor() as cursor:
            cursor.callproc("upper", ["abc"])
            called = rows(cursor)
            cursor.callproc("generate_series", [1, 3])
            series = rows(cursor)
            cursor.execute("DROP TABLE IF EXISTS never_made")
            return called, series, connection.notices

    same(peers, case)


def test_connection_facts(peers: tuple[Peer, Peer]) -> None:
    def case(peer: Peer) -> Any:
        with peer.connect() as connection:
            parameters = ["server_encoding", "client_encoding", "DateStyle", "IntervalStyle",
                          "integer_datetimes", "standard_conforming_strings", "TimeZone"]
            return (connection.server_version, connection.protocol_version,
                    connection.encoding,
                    [connection.get_parameter_status(name) for name in parameters])

    same(peers, case)

"""Streams, procedures, PE and EE triggers and the scheduler, through the wire.

Each test gets its own server (``dataflow``), since a stopped procedure is
server-wide state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, sqlstate_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def dataflow(server_factory: Callable[..., ServerProcess]) -> Iterator[psycopg.Connection]:
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as connection:
        yield connection


def test_each_transaction_is_one_batch(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("CREATE STREAM readings (sensor text NOT NULL, value int)")
    with conn.transaction():
        conn.execute("INSERT INTO readings VALUES ('a', 1), ('b', 2)")
        conn.execute("INSERT INTO readings VALUES ('c', 3)")
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM readings")  # a read creates no batch
    conn.execute("COMMIT")
    conn.execute("INSERT INTO readings VALUES ('d', 4)")
    rows = conn.execute("SELECT sensor, batch_id FROM readings ORDER BY sensor").fetchall()
    assert rows == [("a", 1), ("b", 1), ("c", 1), ("d", 2)]
    star = conn.execute("SELECT * FROM readings ORDER BY sensor LIMIT 1")
    assert [c.name for c in star.description] == ["sensor", "value"]
    assert sqlstate_of(conn, "UPDATE readings SET value = 0") == "42809"
    assert conn.execute("DELETE FROM readings WHERE batch_id = 1").rowcount == 3
    conn.execute("BEGIN")
    conn.execute("INSERT INTO readings VALUES ('e', 5)")
    conn.execute("ROLLBACK")
    conn.execute("INSERT INTO readings VALUES ('f', 6)")
    assert conn.execute("SELECT max(batch_id) FROM readings").fetchone() == (3,)
    # the inner block is a savepoint, rolled back: no rows, so no batch
    with conn.transaction(), conn.transaction():
        conn.execute("INSERT INTO readings VALUES ('g', 7)")
        raise psycopg.Rollback()
    conn.execute("INSERT INTO readings VALUES ('h', 8)")
    assert conn.execute("SELECT sensor, batch_id FROM readings WHERE batch_id > 3"
                        ).fetchall() == [("h", 4)]


def test_client_assigned_batch_ids(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("CREATE STREAM events (bid bigint NOT NULL, v text) "
                 "WITH (batch_column = 'bid')")
    notices: list[str] = []
    conn.add_notice_handler(lambda notice: notices.append(notice.message_primary or ""))
    assert conn.execute("INSERT INTO events VALUES (10, 'x'), (10, 'y')").rowcount == 2
    assert conn.execute("INSERT INTO events VALUES (10, 'x'), (10, 'y')").rowcount == 0
    assert any("batch 10" in n and "skipping" in n for n in notices)
    assert sqlstate_of(conn, "INSERT INTO events VALUES (11, 'a'), (12, 'b')") == "22023"
    assert conn.execute("INSERT INTO events VALUES (12, 'z')").rowcount == 1
    assert conn.execute("INSERT INTO events VALUES (13, 'w')").rowcount == 1
    # 7 and 11 were never accepted: parallel writers commit in any order, so
    # a late id is accepted (and runs after the batches committed before it)
    assert conn.execute("INSERT INTO events VALUES (7, 'old')").rowcount == 1
    assert conn.execute("INSERT INTO events VALUES (11, 'late')").rowcount == 1
    assert conn.execute("INSERT INTO events VALUES (12, 'again')").rowcount == 0
    assert conn.execute("INSERT INTO events VALUES (7, 'again')").rowcount == 0
    rows = conn.execute("SELECT bid, batch_id, v FROM events ORDER BY bid, v").fetchall()
    assert rows == [(7, 7, "old"), (10, 10, "x"), (10, 10, "y"), (11, 11, "late"),
                    (12, 12, "z"), (13, 13, "w")]
    assert conn.execute("SELECT last_batch, skipped_batches FROM sqlext_streams "
                        "WHERE name = 'events'").fetchone() == (13, 3)
    assert sqlstate_of(conn, "CREATE STREAM bad (b text) WITH (batch_column = 'b')") == "42804"
    assert sqlstate_of(conn, "CREATE STREAM bad (a int) WITH (batch_column = 'b')") == "42703"
    assert sqlstate_of(conn, "CREATE STREAM bad (a int) WITH (colour = 'b')") == "22023"
    assert sqlstate_of(conn, "CREATE STREAM bad (batch_id int)") == "42701"


PIPELINE = """
CREATE STREAM orders (id int NOT NULL, amount int NOT NULL);
CREATE STREAM large_orders (id int NOT NULL, amount int NOT NULL);
CREATE TABLE totals (kind text PRIMARY KEY, n int NOT NULL, amount int NOT NULL);
INSERT INTO totals VALUES ('all', 0, 0), ('large', 0, 0);
CREATE TABLE seen (id int, batch int, step text);
CREATE PROCEDURE classify() LANGUAGE sql AS $$
    UPDATE totals SET n = n + (SELECT count(*) FROM orders),
                      amount = amount + (SELECT coalesce(sum(amount), 0) FROM orders)
        WHERE kind = 'all';
    INSERT INTO seen SELECT id, batch_id, 'classify' FROM orders;
    INSERT INTO large_orders SELECT id, amount FROM orders WHERE amount >= 100;
$$;
CREATE PROCEDURE record_large() BEGIN ATOMIC
    UPDATE totals SET n = n + (SELECT count(*) FROM large_orders),
                      amount = amount + (SELECT sum(amount) FROM large_orders)
        WHERE kind = 'large';
    INSERT INTO seen SELECT id, batch_id, 'large' FROM large_orders;
END;
CREATE TRIGGER classify_orders AFTER INSERT ON orders EXECUTE PROCEDURE classify();
CREATE TRIGGER record_large_orders AFTER INSERT ON large_orders
    EXECUTE PROCEDURE record_large();
"""


def test_pe_triggers_run_each_batch_through_the_graph(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute(PIPELINE)
    with conn.transaction():
        conn.execute("INSERT INTO orders VALUES (1, 50), (2, 150)")
    conn.execute("INSERT INTO orders VALUES (3, 10)")
    with conn.cursor() as cursor:
        # one pipeline, one Sync: one implicit transaction, so one batch
        cursor.executemany("INSERT INTO orders VALUES (%s, %s)",
                           [(n, n * 10) for n in range(4, 24)])
    with conn.transaction():
        conn.execute("INSERT INTO seen VALUES (0, 0, 'marker')")
        with conn.transaction():  # rolled back to its savepoint: triggers nothing
            conn.execute("INSERT INTO orders VALUES (99, 999)")
            raise psycopg.Rollback()
    # a numeric timeout is cast to the float8 parameter, as PostgreSQL does
    assert conn.execute("SELECT sqlext_drain(5.5)").fetchone() == (True,)
    conn.execute("DELETE FROM seen WHERE step = 'marker'")
    totals = dict((k, (n, a)) for k, n, a in conn.execute("SELECT * FROM totals"))
    amounts = [50, 150, 10] + [n * 10 for n in range(4, 24)]
    assert totals["all"] == (len(amounts), sum(amounts))
    large = [a for a in amounts if a >= 100]
    assert totals["large"] == (len(large), sum(large))
    # Consumed batches are garbage-collected; each order was seen exactly once per step.
    assert conn.execute("SELECT count(*) FROM orders").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM large_orders").fetchone() == (0,)
    seen = conn.execute("SELECT step, count(*), count(DISTINCT id) FROM seen GROUP BY step "
                        "ORDER BY step").fetchall()
    assert seen == [("classify", len(amounts), len(amounts)), ("large", len(large), len(large))]
    # Orders of one transaction share a batch.
    assert conn.execute("SELECT DISTINCT batch FROM seen WHERE id IN (1, 2) "
                        "AND step = 'classify'").fetchall() == [(1,)]


def test_ee_triggers_run_inside_the_inserting_transaction(
        dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE STREAM clicks (page text NOT NULL);
        CREATE TABLE page_counts (page text PRIMARY KEY, n int NOT NULL);
        CREATE TABLE audit (what text);
        CREATE TRIGGER count_clicks AFTER INSERT ON clicks AS $$
            INSERT INTO page_counts SELECT page, count(*) FROM clicks GROUP BY page
                ON CONFLICT (page) DO UPDATE SET n = page_counts.n + excluded.n;
        $$;
        CREATE TRIGGER audit_counts AFTER INSERT ON page_counts AS $$
            INSERT INTO audit VALUES ('counted');
        $$;
    """)
    conn.execute("INSERT INTO clicks VALUES ('home'), ('home'), ('about')")
    conn.execute("INSERT INTO clicks VALUES ('home')")
    with pytest.raises(psycopg.errors.NotNullViolation), conn.transaction():
        conn.execute("INSERT INTO clicks VALUES ('about')")
        conn.execute("INSERT INTO clicks VALUES (NULL)")
    assert conn.execute("SELECT * FROM page_counts ORDER BY page").fetchall() == [
        ("about", 1), ("home", 3)]
    assert conn.execute("SELECT count(*) FROM audit").fetchone() == (2,)
    assert conn.execute("SELECT count(*) FROM clicks").fetchone() == (0,)


def test_call_runs_procedures_atomically(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0));
        INSERT INTO accounts VALUES (1, 100), (2, 0);
        CREATE PROCEDURE withdraw(account int, amount int) LANGUAGE sql AS $$
            UPDATE accounts SET balance = balance - amount WHERE id = account;
        $$;
        CREATE PROCEDURE deposit(int, int) LANGUAGE sql AS $$
            UPDATE accounts SET balance = balance + $2 WHERE id = $1;
        $$;
        CREATE PROCEDURE transfer(source int, target int, amount int DEFAULT 10)
        BEGIN ATOMIC
            CALL deposit(target, amount);
            CALL withdraw(source, amount);
        END;
    """)
    conn.execute("CALL transfer(1, 2, 30)")
    conn.execute("CALL transfer(1, 2)")
    with conn.cursor() as cursor:
        cursor.execute("CALL transfer(%s, %s, %s)", (1, 2, 5))
    assert sqlstate_of(conn, "CALL transfer(1, 2, 1000)") == "23514"
    assert conn.execute("SELECT balance FROM accounts ORDER BY id").fetchall() == [(55,), (45,)]
    assert sqlstate_of(conn, "CALL transfer(1)") == "42883"
    assert sqlstate_of(conn, "CALL nothing_here()") == "42883"
    assert sqlstate_of(conn, "CREATE PROCEDURE broken() LANGUAGE sql AS $$ "
                           "INSERT INTO missing VALUES (1) $$") == "42P01"
    assert sqlstate_of(conn, "CREATE PROCEDURE ddl() LANGUAGE sql AS $$ "
                           "CREATE TABLE x (a int) $$") == "0A000"
    assert sqlstate_of(conn, "CREATE PROCEDURE deposit(int) LANGUAGE sql AS $$ "
                           "SELECT 1 $$") == "42723"


def test_procedure_statements_may_leave_parameters_unused(
        dataflow: psycopg.Connection) -> None:
    """As in PostgreSQL, a statement of a body uses any subset of the
    parameters: none, only the first, only the last."""
    conn = dataflow
    conn.execute("""
        CREATE TABLE log (a int, b text);
        CREATE PROCEDURE record(first int, second text) BEGIN ATOMIC
            INSERT INTO log VALUES (0, 'none');
            INSERT INTO log VALUES (first, 'first');
            INSERT INTO log VALUES (-1, second);
        END;
    """)
    conn.execute("CALL record(7, %s)", ("last",))
    assert conn.execute("SELECT a, b FROM log ORDER BY a").fetchall() == [
        (-1, "last"), (0, "none"), (7, "first")]


def test_procedure_parameters_take_the_column_typmod(dataflow: psycopg.Connection) -> None:
    """A body's parameters hold stored values (no input function ran on
    them): storing one applies the column's typmod, as PostgreSQL does."""
    conn = dataflow
    conn.execute("""
        CREATE TABLE prices (amount numeric(5,2), code varchar(2));
        CREATE PROCEDURE price(amount numeric, code varchar) BEGIN ATOMIC
            INSERT INTO prices VALUES (amount, code);
        END;
    """)
    conn.execute("CALL price(%s, %s)", (Decimal("1.005"), "ab"))
    conn.execute("CALL price(2.004, 'cd')")
    assert conn.execute("SELECT amount, code FROM prices ORDER BY amount").fetchall() == [
        (Decimal("1.01"), "ab"), (Decimal("2.00"), "cd")]
    assert sqlstate_of(conn, "CALL price(1000, 'x')") == "22003"
    assert sqlstate_of(conn, "CALL price(1, 'xyz')") == "22001"


def test_failed_batch_stops_its_procedure_until_resumed(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE STREAM numbers (n int NOT NULL);
        CREATE TABLE results (n int, inverse numeric);
        CREATE TABLE bystander (n int);
        CREATE PROCEDURE invert() LANGUAGE sql AS $$
            INSERT INTO results SELECT n, 12 / (n - 3) FROM numbers;
        $$;
        CREATE PROCEDURE count_numbers() LANGUAGE sql AS $$
            INSERT INTO bystander SELECT n FROM numbers;
        $$;
        CREATE TRIGGER a_invert AFTER INSERT ON numbers EXECUTE PROCEDURE invert();
        CREATE TRIGGER b_count AFTER INSERT ON numbers EXECUTE PROCEDURE count_numbers();
    """)
    for n in range(1, 7):
        conn.execute("INSERT INTO numbers VALUES (%s)", (n,))
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as stopped:
        conn.execute("SELECT sqlext_drain(1)")
    assert "invert is stopped at batch 3" in str(stopped.value)
    assert "division by zero" in str(stopped.value)
    assert conn.execute("SELECT n FROM results ORDER BY n").fetchall() == [(1,), (2,)]
    assert conn.execute(
        "SELECT name, state, waiting_batches, batches_run, batches_failed, stopped_at_batch, "
        "stopped_on_stream, error_code FROM sqlext_procedures ORDER BY name").fetchall() == [
        ("count_numbers", "idle", 0, 6, 0, None, None, None),
        ("invert", "stopped", 4, 2, 1, 3, "numbers", "22012")]
    assert conn.execute("SELECT name, last_batch, tuples, consumers FROM sqlext_streams"
                        ).fetchall() == [
        ("numbers", 6, 4, "procedure invert, procedure count_numbers")]
    # The other consumer of the stream went on; the failed batches are kept.
    assert conn.execute("SELECT count(*) FROM bystander").fetchone() == (6,)
    assert conn.execute("SELECT n FROM numbers ORDER BY n").fetchall() == [
        (3,), (4,), (5,), (6,)]
    conn.execute("INSERT INTO numbers VALUES (7)")
    conn.execute("""CREATE OR REPLACE PROCEDURE invert() LANGUAGE sql AS $$
        INSERT INTO results SELECT n, CASE WHEN n = 3 THEN NULL ELSE 12 / (n - 3) END
        FROM numbers;
    $$""")
    conn.execute("ALTER PROCEDURE invert RESUME")
    assert conn.execute("SELECT sqlext_drain(5)").fetchone() == (True,)
    assert conn.execute("SELECT n FROM results ORDER BY n").fetchall() == [
        (n,) for n in range(1, 8)]
    assert conn.execute("SELECT count(*) FROM numbers").fetchone() == (0,)
    assert conn.execute("SELECT state, batches_run, batches_failed FROM sqlext_procedures "
                        "WHERE name = 'invert'").fetchone() == ("idle", 7, 1)


def test_integer_overflow_in_a_procedure_fails_its_batch(dataflow: psycopg.Connection) -> None:
    """An intermediate integer result past 2^31 - 1 is 22003 inside a
    dataflow as in a query, even when the final value would fit the column:
    the batch fails whole, the total keeps its last good value, and nothing
    wraps or widens."""
    conn = dataflow
    conn.execute("""
        CREATE STREAM amounts (n int NOT NULL);
        CREATE TABLE total (id int PRIMARY KEY, sum int NOT NULL);
        INSERT INTO total VALUES (1, 2147483000);
        CREATE PROCEDURE add_up() LANGUAGE sql AS $$
            UPDATE total SET sum = sum + (SELECT sum(n) FROM amounts)::int - 1000 WHERE id = 1;
        $$;
        CREATE TRIGGER add_up AFTER INSERT ON amounts EXECUTE PROCEDURE add_up();
    """)
    conn.execute("INSERT INTO amounts VALUES (600), (40)")
    conn.execute("INSERT INTO amounts VALUES (1000), (8)")
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as stopped:
        conn.execute("SELECT sqlext_drain(2)")
    assert "integer out of range" in str(stopped.value)
    assert conn.execute("SELECT sum FROM total").fetchone() == (2147482640,)
    assert conn.execute("SELECT state, error_code FROM sqlext_procedures WHERE name = 'add_up'"
                        ).fetchone() == ("stopped", "22003")


def test_dataflow_order_with_a_concurrent_oltp_writer(server_factory: Callable[
        ..., ServerProcess]) -> None:
    """Three chained procedures (the last one CALLs two more) log each step
    and update a shared row that an OLTP client hammers at the same time.
    For every batch the steps are adjacent in the log and in dataflow order
    (no OLTP work inside a batch's graph or inside the nested CALLs),
    batches pass each procedure in batch-id order, and the shared row ends
    as a serial execution would leave it."""
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as conn:
        conn.execute("""
            CREATE TABLE log (seq integer PRIMARY KEY, who text, batch int);
            CREATE SEQUENCE log_seq;
            CREATE TABLE shared (id int PRIMARY KEY, dataflow_sum bigint, oltp_count int);
            INSERT INTO shared VALUES (1, 0, 0);
            CREATE STREAM s1 (v int);
            CREATE STREAM s2 (v int);
            CREATE STREAM s3 (v int);
            CREATE PROCEDURE p1() LANGUAGE sql AS $$
                INSERT INTO log SELECT nextval('log_seq'), 'p1', max(v) FROM s1;
                INSERT INTO s2 SELECT v FROM s1;
            $$;
            CREATE PROCEDURE p2() LANGUAGE sql AS $$
                INSERT INTO log SELECT nextval('log_seq'), 'p2', max(v) FROM s2;
                INSERT INTO s3 SELECT v FROM s2;
            $$;
            CREATE PROCEDURE log_step(who text, batch int) LANGUAGE sql AS $$
                INSERT INTO log VALUES (nextval('log_seq'), who, batch);
            $$;
            CREATE PROCEDURE p3() LANGUAGE sql AS $$
                INSERT INTO log SELECT nextval('log_seq'), 'p3', max(v) FROM s3;
                CALL log_step('p3a', (SELECT max(v) FROM s3));
                UPDATE shared SET dataflow_sum = dataflow_sum + (SELECT sum(v) FROM s3);
                CALL log_step('p3b', (SELECT max(v) FROM s3));
            $$;
            CREATE TRIGGER t1 AFTER INSERT ON s1 EXECUTE PROCEDURE p1();
            CREATE TRIGGER t2 AFTER INSERT ON s2 EXECUTE PROCEDURE p2();
            CREATE TRIGGER t3 AFTER INSERT ON s3 EXECUTE PROCEDURE p3();
        """)
        stop = threading.Event()
        oltp_writes = 0

        def oltp() -> None:
            nonlocal oltp_writes
            with server.connect(autocommit=True) as other:
                while not stop.is_set():
                    with other.transaction():
                        other.execute("INSERT INTO log VALUES (nextval('log_seq'), 'oltp', NULL)")
                        other.execute("UPDATE shared SET oltp_count = oltp_count + 1")
                    oltp_writes += 1

        writer = threading.Thread(target=oltp)
        writer.start()
        try:
            for n in range(1, 201):
                conn.execute("INSERT INTO s1 VALUES (%s)", (n,))
            conn.execute("SELECT sqlext_drain(10)")
        finally:
            stop.set()
            writer.join()
        log = conn.execute("SELECT who, batch FROM log ORDER BY seq").fetchall()
        shared = conn.execute("SELECT dataflow_sum, oltp_count FROM shared").fetchone()
    chain = ["p1", "p2", "p3", "p3a", "p3b"]
    steps = [(who, batch) for who, batch in log if who != "oltp"]
    assert len(steps) == 200 * len(chain)
    assert oltp_writes > 0
    for position in range(0, len(steps), len(chain)):
        batch = steps[position][1]
        assert steps[position:position + len(chain)] == [(who, batch) for who in chain]
    for procedure in ("p1", "p2", "p3"):
        assert [b for who, b in steps if who == procedure] == list(range(1, 201))
    names = [who for who, _ in log]
    for position, who in enumerate(names):
        if who == "p1":
            assert names[position:position + len(chain)] == chain
    assert shared == (sum(range(1, 201)), oltp_writes)


def test_dataflow_errors_and_dependencies(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE STREAM src (v int);
        CREATE TABLE plain (v int);
        CREATE PROCEDURE consume() LANGUAGE sql AS $$ INSERT INTO plain SELECT v FROM src $$;
        CREATE PROCEDURE needs_args(x int) LANGUAGE sql AS $$ SELECT x $$;
        CREATE TRIGGER consume_src AFTER INSERT ON src EXECUTE PROCEDURE consume();
    """)
    assert sqlstate_of(conn, "CREATE TRIGGER t AFTER INSERT ON nowhere "
                           "EXECUTE PROCEDURE consume()") == "42P01"
    assert sqlstate_of(conn, "CREATE TRIGGER t AFTER INSERT ON plain "
                           "EXECUTE PROCEDURE consume()") == "42809"
    assert sqlstate_of(conn, "CREATE TRIGGER t AFTER INSERT ON src "
                           "EXECUTE PROCEDURE needs_args()") == "42P13"
    assert sqlstate_of(conn, "CREATE TRIGGER t AFTER INSERT ON src "
                           "EXECUTE PROCEDURE missing()") == "42883"
    assert sqlstate_of(conn, "CREATE TRIGGER consume_src AFTER INSERT ON src "
                           "EXECUTE PROCEDURE consume()") == "42710"
    assert sqlstate_of(conn, "DROP PROCEDURE consume") == "2BP01"
    assert sqlstate_of(conn, "DROP TABLE src") == "42809"
    assert sqlstate_of(conn, "DROP STREAM plain") == "42809"
    assert sqlstate_of(conn, "DROP STREAM missing") == "42P01"
    assert sqlstate_of(conn, "DROP TRIGGER missing") == "42704"
    conn.execute("DROP STREAM IF EXISTS missing")
    conn.execute("DROP PROCEDURE consume CASCADE")
    assert conn.execute("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'src'"
                        ).fetchone() == (1,)
    conn.execute("INSERT INTO src VALUES (1)")
    assert conn.execute("SELECT v FROM src").fetchall() == [(1,)]
    conn.execute("DROP STREAM src")
    assert sqlstate_of(conn, "SELECT * FROM src") == "42P01"


def test_python_procedures_see_numeric_values_as_decimals(dataflow: psycopg.Connection
                                                          ) -> None:
    """numeric parameters, results of sql() and values passed to it are
    Decimals in a Python body, exactly, whatever their storage form."""
    conn = dataflow
    conn.execute("""
        CREATE TABLE ledger (id int, amount numeric(12,2), wide numeric(38,10));
        INSERT INTO ledger VALUES (1, 10.25, 1234567890123456789012345678.0123456789);
        CREATE PROCEDURE interest(rate numeric) LANGUAGE python AS $$
            from decimal import Decimal
            (amount, wide), = sql("SELECT amount, wide FROM ledger WHERE id = 1")
            assert isinstance(amount, Decimal) and isinstance(rate, Decimal), (amount, rate)
            sql("INSERT INTO ledger VALUES (2, $1, $2)", amount * rate, wide + Decimal("0.5"))
        $$;
    """)
    conn.execute("CALL interest(1.10)")
    assert conn.execute("SELECT amount, wide FROM ledger WHERE id = 2").fetchone() == (
        Decimal("11.28"), Decimal("1234567890123456789012345678.5123456789"))


def test_python_procedures(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE TABLE stock (item text PRIMARY KEY, quantity int NOT NULL);
        INSERT INTO stock VALUES ('apple', 5), ('pear', 1);
        CREATE TABLE shipped (item text, quantity int);
        CREATE PROCEDURE ship(item text, wanted int) LANGUAGE python AS $$
            rows = sql("SELECT quantity FROM stock WHERE item = $1", item)
            if not rows:
                raise ValueError(f"no such item: {item}")
            available = rows[0][0]
            if available < wanted:
                notice(f"only {available} {item} left")
                wanted = available
            for _ in range(wanted):
                sql("INSERT INTO shipped VALUES ($1, 1)", item)
            sql("UPDATE stock SET quantity = quantity - $2 WHERE item = $1", item, wanted)
        $$;
    """)
    notices: list[str] = []
    conn.add_notice_handler(lambda notice: notices.append(notice.message_primary or ""))
    conn.execute("CALL ship('apple', 2)")
    conn.execute("CALL ship('pear', 3)")
    assert notices == ["only 1 pear left"]
    with pytest.raises(psycopg.errors.RaiseException, match="no such item: plum"):
        conn.execute("CALL ship('plum', 1)")
    assert conn.execute("SELECT item, count(*) FROM shipped GROUP BY item ORDER BY item"
                        ).fetchall() == [("apple", 2), ("pear", 1)]
    assert conn.execute("SELECT * FROM stock ORDER BY item").fetchall() == [
        ("apple", 3), ("pear", 0)]
    # A Python procedure run for each batch of a stream.
    conn.execute("""
        CREATE STREAM orders (item text, quantity int);
        CREATE PROCEDURE ship_orders() LANGUAGE python AS $$
            for item, quantity in sql("SELECT item, quantity FROM orders"):
                sql("CALL ship($1, $2)", item, quantity)
        $$;
        CREATE TRIGGER ship_each AFTER INSERT ON orders EXECUTE PROCEDURE ship_orders();
    """)
    conn.execute("INSERT INTO orders VALUES ('apple', 1), ('apple', 1)")
    conn.execute("SELECT sqlext_drain(5)")
    assert conn.execute("SELECT quantity FROM stock WHERE item = 'apple'").fetchone() == (1,)
    assert sqlstate_of(conn, "CREATE PROCEDURE bad() LANGUAGE python AS $$ if $$") == "42601"
    assert sqlstate_of(conn, "CREATE PROCEDURE bad() LANGUAGE cobol AS $$ x $$") == "42704"
    assert sqlstate_of(conn, "CREATE PROCEDURE two() LANGUAGE python AS $$ "
                           "sql('SELECT 1; SELECT 2') $$") is None
    assert sqlstate_of(conn, "CALL two()") == "42601"


def test_example_chains(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    for script in ("pe_chain.sql", "ee_chain.sql"):
        conn.execute((EXAMPLES / "chains" / script).read_text())
    for n in range(1, 6):
        conn.execute("INSERT INTO chain_0 VALUES (%s, 'x')", (n,))
        conn.execute("INSERT INTO link_0 VALUES (%s, 'y')", (n,))
    conn.execute("SELECT sqlext_drain(10)")
    assert conn.execute("SELECT id, batch FROM chain_done ORDER BY id").fetchall() == [
        (n, n) for n in range(1, 6)]
    assert conn.execute("SELECT count(*) FROM link_done").fetchone() == (5,)
    assert conn.execute("SELECT count(*) FROM link_3").fetchone() == (0,)
    assert conn.execute("SELECT sum(batches_run) FROM sqlext_procedures").fetchone() == (50,)


def test_dropping_a_stopped_procedure_releases_its_batches(
        dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE STREAM numbers (n int NOT NULL);
        CREATE PROCEDURE fail() LANGUAGE sql AS $$ SELECT 1 / 0 FROM numbers $$;
        CREATE TRIGGER t AFTER INSERT ON numbers EXECUTE PROCEDURE fail();
    """)
    conn.execute("INSERT INTO numbers VALUES (1)")
    conn.execute("INSERT INTO numbers VALUES (2)")
    assert sqlstate_of(conn, "SELECT sqlext_drain(1)") == "55000"
    conn.execute("DROP PROCEDURE fail CASCADE")
    assert conn.execute("SELECT sqlext_drain(1)").fetchone() == (True,)
    assert conn.execute("SELECT count(*) FROM numbers").fetchone() == (0,)
    # a stream nothing consumes any more keeps what arrives
    conn.execute("INSERT INTO numbers VALUES (3)")
    assert conn.execute("SELECT n FROM numbers").fetchall() == [(3,)]


def test_triggered_procedures_with_one_body_keep_their_own_defaults(
        dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute("""
        CREATE STREAM ticks (n int NOT NULL);
        CREATE TABLE seen (x int);
        CREATE PROCEDURE one(x int DEFAULT 1) LANGUAGE sql AS $$
            INSERT INTO seen SELECT x FROM ticks;
        $$;
        CREATE PROCEDURE two(x int DEFAULT 2) LANGUAGE sql AS $$
            INSERT INTO seen SELECT x FROM ticks;
        $$;
        CREATE TRIGGER a_one AFTER INSERT ON ticks EXECUTE PROCEDURE one();
        CREATE TRIGGER b_two AFTER INSERT ON ticks EXECUTE PROCEDURE two();
    """)
    conn.execute("INSERT INTO ticks VALUES (0)")
    conn.execute("SELECT sqlext_drain(5)")
    assert conn.execute("SELECT x FROM seen ORDER BY x").fetchall() == [(1,), (2,)]

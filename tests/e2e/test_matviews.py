"""Materialized views through the wire: maintained in the changing
transaction (and undone with it), joins through maps, MIN/MAX after the
extreme is deleted, windows sliding, views recomputed in full, the errors
and the catalog entries a PostgreSQL user expects."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, own_schema


@pytest.fixture
def conn(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with own_schema(server, "mv") as connection:
        yield connection


def _rows(conn: psycopg.Connection, query: str) -> list[tuple[Any, ...]]:
    return sorted(conn.execute(query).fetchall(), key=repr)


def _same(conn: psycopg.Connection, view: str, query: str) -> list[tuple[Any, ...]]:
    """The view's rows, checked against its query run from scratch."""
    shown = _rows(conn, f"SELECT * FROM {view}")
    assert shown == _rows(conn, query)
    return shown


def _plan(conn: psycopg.Connection, view: str) -> str:
    return "\n".join(line for (line,) in conn.execute(f"EXPLAIN MATERIALIZED VIEW {view}"))


TOTALS = ("SELECT owner, count(*) AS n, count(amount) AS priced, sum(amount) AS total, "
          "avg(amount) AS mean, min(amount) AS low, max(item) AS last_item, "
          "count(DISTINCT item) AS items FROM orders WHERE amount IS DISTINCT FROM 0 "
          "GROUP BY owner")


def test_group_by_view_follows_every_change(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE orders (id serial PRIMARY KEY, owner text, "
                 "amount numeric(8, 2), item text)")
    conn.execute("INSERT INTO orders (owner, amount, item) VALUES "
                 "('ann', 10.50, 'tea'), ('ann', 2.25, 'cake'), ('bob', NULL, 'tea')")
    created = conn.execute(f"CREATE MATERIALIZED VIEW totals AS {TOTALS}")
    assert created.statusmessage == "SELECT 2"
    assert _same(conn, "totals", TOTALS) == [
        ("ann", 2, 2, Decimal("12.75"), Decimal("6.375"), Decimal("2.25"), "tea", 2),
        ("bob", 1, 0, None, None, None, "tea", 1)]
    assert "maintained incrementally" in _plan(conn, "totals")
    conn.execute("INSERT INTO orders (owner, amount, item) VALUES ('cy', 0, 'pie'), "
                 "('bob', 1.10, 'pie'), (NULL, 3, 'jam')")
    _same(conn, "totals", TOTALS)
    conn.execute("UPDATE orders SET owner = 'bob' WHERE item = 'cake'")
    conn.execute("UPDATE orders SET amount = amount * 3")
    _same(conn, "totals", TOTALS)
    conn.execute("DELETE FROM orders WHERE owner = 'ann'")
    assert ("ann",) not in [row[:1] for row in _same(conn, "totals", TOTALS)]
    conn.execute("TRUNCATE orders")
    assert _same(conn, "totals", TOTALS) == []


def test_changes_show_in_their_transaction_and_roll_back_with_it(
        conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE orders (id serial PRIMARY KEY, owner text, "
                 "amount numeric(8, 2), item text)")
    conn.execute(f"CREATE MATERIALIZED VIEW totals AS {TOTALS}")
    conn.execute("INSERT INTO orders (owner, amount, item) VALUES ('ann', 1, 'tea')")
    with conn.transaction():
        conn.execute("INSERT INTO orders (owner, amount, item) VALUES ('ann', 2, 'jam')")
        assert conn.execute("SELECT n, total FROM totals").fetchall() == [(2, 3)]
        try:
            with conn.transaction():  # a savepoint
                conn.execute("DELETE FROM orders")
                assert conn.execute("SELECT count(*) FROM totals").fetchone() == (0,)
                raise RuntimeError("undo")
        except RuntimeError:
            pass
        assert conn.execute("SELECT n, total FROM totals").fetchall() == [(2, 3)]
    conn.execute("BEGIN")
    conn.execute("INSERT INTO orders (owner, amount, item) VALUES ('bob', 5, 'pie')")
    conn.execute("ROLLBACK")
    assert _same(conn, "totals", TOTALS) == [("ann", 2, 2, 3, 1.5, 1, "tea", 2)]


def test_min_and_max_survive_deleting_the_extreme(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE prices (shop int, price int)")
    conn.execute("INSERT INTO prices SELECT n % 3, n FROM generate_series(1, 30) AS n")
    query = ("SELECT shop, min(price) AS low, max(price) AS high, count(DISTINCT price % 4) "
             "AS kinds FROM prices GROUP BY shop")
    conn.execute(f"CREATE MATERIALIZED VIEW ranges AS {query}")
    for extreme in ("min", "max"):
        for _ in range(4):
            conn.execute(f"DELETE FROM prices WHERE price = (SELECT {extreme}(price) FROM "
                         "prices WHERE shop = 1)")
            _same(conn, "ranges", query)
    assert conn.execute("SELECT low, high FROM ranges WHERE shop = 1").fetchone() == (13, 16)
    assert "Value set" in _plan(conn, "ranges")


JOINED = ("SELECT c.region, p.category, count(*) AS sold, sum(s.quantity) AS units, "
          "sum(p.price) AS list_total, max(s.quantity) AS biggest "
          "FROM sales s JOIN products p ON p.id = s.product "
          "JOIN customers c ON c.id = s.customer "
          "WHERE p.price > 1 GROUP BY c.region, p.category")


def test_three_way_join_view_is_maintained_through_maps(conn: psycopg.Connection) -> None:
    conn.execute("""
        CREATE TABLE customers (id int PRIMARY KEY, region text);
        CREATE TABLE products (id int PRIMARY KEY, category text, price int);
        CREATE TABLE sales (customer int, product int, quantity int);
        INSERT INTO customers VALUES (1, 'north'), (2, 'south'), (3, 'north');
        INSERT INTO products VALUES (10, 'food', 3), (11, 'toys', 8), (12, 'food', 1);
        INSERT INTO sales VALUES (1, 10, 2), (2, 10, 1), (3, 11, 5), (1, 12, 9);
    """)
    conn.execute(f"CREATE MATERIALIZED VIEW by_region AS {JOINED}")
    plan = _plan(conn, "by_region")
    assert "by_region__map0: rows grouped by (product, customer, quantity) with count(*), " \
           "SUM(s.quantity)" in plan
    assert "by_region__map2: rows grouped by (id, region) with count(*)" in plan
    _same(conn, "by_region", JOINED)
    conn.execute("INSERT INTO sales VALUES (2, 11, 4), (3, 10, 7)")
    conn.execute("UPDATE customers SET region = 'east' WHERE id = 1")
    conn.execute("UPDATE products SET price = 5 WHERE id = 12")  # now passes the filter
    _same(conn, "by_region", JOINED)
    conn.execute("DELETE FROM products WHERE id = 10")
    conn.execute("INSERT INTO products VALUES (10, 'games', 2)")
    conn.execute("DELETE FROM sales WHERE quantity = 5")
    assert _same(conn, "by_region", JOINED) == [
        ("east", "food", 1, 9, 5, 9), ("east", "games", 1, 2, 2, 2),
        ("north", "games", 1, 7, 2, 7), ("south", "games", 1, 1, 2, 1),
        ("south", "toys", 1, 4, 8, 4)]


def test_view_over_a_window_follows_its_slides(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM votes (contestant int); "
                 "CREATE WINDOW recent ON votes ROWS 4 SLIDE 2")
    query = "SELECT contestant, count(*) AS votes FROM recent GROUP BY contestant"
    conn.execute(f"CREATE MATERIALIZED VIEW trending AS {query}")
    assert "only rows where (recent.sqlext_visible = 1)" in _plan(conn, "trending")
    for contestant in (1, 1, 2, 3, 3, 3):
        conn.execute("INSERT INTO votes VALUES (%s)", (contestant,))
        _same(conn, "trending", query)
    assert _rows(conn, "SELECT * FROM trending") == [(2, 1), (3, 3)]  # after one slide


def test_view_over_a_stream_follows_its_batches(conn: psycopg.Connection) -> None:
    """A stream's rows leave when its consumers are done with their batch."""
    conn.execute("CREATE STREAM readings (sensor int, value int); "
                 "CREATE TABLE seen (n int)")
    query = ("SELECT sensor, count(*) AS n, max(value) AS peak, max(batch_id) AS batch "
             "FROM readings GROUP BY sensor")
    conn.execute(f"CREATE MATERIALIZED VIEW pending AS {query}")
    conn.execute("INSERT INTO readings VALUES (1, 5), (1, 7), (2, 1)")
    assert _same(conn, "pending", query) == [(1, 2, 7, 1), (2, 1, 1, 1)]
    conn.execute("""CREATE TRIGGER consume AFTER INSERT ON readings AS $$
        INSERT INTO seen SELECT count(*) FROM readings;
    $$""")
    conn.execute("INSERT INTO readings VALUES (2, 9)")  # consumed in its transaction
    assert _same(conn, "pending", query) == [(1, 2, 7, 1), (2, 1, 1, 1)]


def test_procedures_read_the_view_they_change(conn: psycopg.Connection) -> None:
    conn.execute("""
        CREATE TABLE votes (phone bigint, contestant int);
        CREATE MATERIALIZED VIEW per_phone AS
            SELECT phone, count(*) AS n FROM votes GROUP BY phone;
        CREATE TABLE rejected (phone bigint);
        CREATE PROCEDURE vote(p bigint, c int) LANGUAGE sql AS $$
            INSERT INTO votes SELECT p, c WHERE NOT EXISTS
                (SELECT 1 FROM per_phone WHERE phone = p AND n >= 2);
            INSERT INTO rejected SELECT p WHERE (SELECT n FROM per_phone WHERE phone = p) = 2
                AND (SELECT count(*) FROM votes WHERE phone = p) = 2
                AND c < 0;
        $$;
    """)
    for contestant in (1, 2, 3, -1):
        conn.execute("CALL vote(555, %s)", (contestant,))
    assert _rows(conn, "SELECT * FROM per_phone") == [(555, 2)]
    assert _rows(conn, "SELECT * FROM rejected") == [(555,)]


def test_recomputed_view_says_so_and_is_never_stale(conn: psycopg.Connection) -> None:
    notices: list[str] = []
    conn.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary or ""))
    conn.execute("CREATE TABLE scores (player text, points int)")
    conn.execute("INSERT INTO scores VALUES ('a', 5), ('b', 9), ('c', 7)")
    query = "SELECT player, points FROM scores ORDER BY points DESC LIMIT 2"
    conn.execute(f"CREATE MATERIALIZED VIEW podium AS {query}")
    assert notices == ['materialized view "podium" cannot be maintained incrementally because '
                       "it uses LIMIT: it will be recomputed in full when read after its "
                       "tables change"]
    assert "recomputed in full (it uses LIMIT)" in _plan(conn, "podium")
    conn.execute("CREATE MATERIALIZED VIEW best AS SELECT max(points) AS top FROM podium")
    assert _rows(conn, "SELECT * FROM podium") == [("b", 9), ("c", 7)]
    with conn.transaction():
        conn.execute("UPDATE scores SET points = 10 WHERE player = 'a'")
        assert _rows(conn, "SELECT * FROM podium") == [("a", 10), ("b", 9)]
        assert _rows(conn, "SELECT * FROM best") == [(10,)]
    conn.execute("DELETE FROM scores WHERE player = 'a'")
    assert _rows(conn, "SELECT * FROM best") == [(9,)]
    assert conn.execute("REFRESH MATERIALIZED VIEW podium").statusmessage == (
        "REFRESH MATERIALIZED VIEW")
    assert _same(conn, "podium", query) == [("b", 9), ("c", 7)]


def test_shapes_other_than_aggregates(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE a (k int, x text); CREATE TABLE b (k int, y text)")
    conn.execute("INSERT INTO a VALUES (1, 'p'), (1, 'p'), (2, 'q'); "
                 "INSERT INTO b VALUES (1, 'r'), (1, 's'), (3, 't')")
    plain = "SELECT a.x, b.y FROM a JOIN b USING (k)"
    distinct = "SELECT DISTINCT x FROM a"
    having = ("SELECT k, count(*) * 10 AS tens FROM a GROUP BY k HAVING count(*) > 1")
    for name, query in (("plain", plain), ("distinct_x", distinct), ("grouped", having)):
        conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {query}")
        assert "maintained incrementally" in _plan(conn, name)
    for change in ("INSERT INTO a VALUES (3, 'p'), (2, 'q')", "DELETE FROM b WHERE y = 'r'",
                   "UPDATE a SET k = 1"):
        conn.execute(change)
        assert len(_same(conn, "plain", plain)) == conn.execute(
            f"SELECT count(*) FROM ({plain}) AS q").fetchone()[0]
        _same(conn, "distinct_x", distinct)
        _same(conn, "grouped", having)
    assert _rows(conn, "SELECT * FROM grouped") == [(1, 50)]


def test_errors(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE t (a int, b int); CREATE STREAM s (v int); "
                 "CREATE WINDOW w ON s ROWS 2 SLIDE 1")
    conn.execute("CREATE MATERIALIZED VIEW v AS SELECT a, sum(b) AS total FROM t GROUP BY a")
    conn.execute("CREATE MATERIALIZED VIEW vw AS SELECT count(*) AS n FROM w")
    cases = [
        ("INSERT INTO v VALUES (1, 2)", psycopg.errors.WrongObjectType,
         'cannot change materialized view "v"'),
        ("DELETE FROM v", psycopg.errors.WrongObjectType, 'cannot change materialized view "v"'),
        ("DROP TABLE t", psycopg.errors.DependentObjectsStillExist,
         "cannot drop table t because other objects depend on it"),
        ("DROP WINDOW w", psycopg.errors.DependentObjectsStillExist,
         "cannot drop window w because other objects depend on it"),
        ("ALTER TABLE t DROP COLUMN b", psycopg.errors.DependentObjectsStillExist,
         "cannot drop column b of table t because other objects depend on it"),
        ("DROP VIEW v", psycopg.errors.WrongObjectType, '"v" is not a view'),
        ("DROP TABLE v", psycopg.errors.WrongObjectType, '"v" is not a table'),
        ("REFRESH MATERIALIZED VIEW t", psycopg.errors.WrongObjectType,
         '"t" is not a materialized view'),
        ("CREATE MATERIALIZED VIEW v AS SELECT 1", psycopg.errors.DuplicateTable,
         'relation "v" already exists'),
        ("CREATE MATERIALIZED VIEW x AS SELECT a, a FROM t", psycopg.errors.DuplicateColumn,
         'column "a" specified more than once'),
        ("CREATE MATERIALIZED VIEW x AS SELECT * FROM pg_class",
         psycopg.errors.FeatureNotSupported, "materialized views cannot read system catalogs"),
        ("EXPLAIN MATERIALIZED VIEW t", psycopg.errors.WrongObjectType,
         '"t" is not a materialized view'),
        ("EXPLAIN SELECT 1", psycopg.errors.FeatureNotSupported,
         "EXPLAIN is supported for dataflows and materialized views only"),
    ]
    for statement, error, message in cases:
        with pytest.raises(error) as raised:
            conn.execute(statement)
        assert raised.value.diag.message_primary == message, statement
    with pytest.raises(psycopg.errors.FeatureNotSupported):
        conn.execute("CREATE MATERIALIZED VIEW x AS SELECT a FROM t WHERE b = %s", (1,),
                     prepare=True)
    with pytest.raises(psycopg.errors.DependentObjectsStillExist) as raised:
        conn.execute("DROP TABLE t")
    assert raised.value.diag.message_detail == "materialized view v depends on table t"
    conn.execute("CREATE MATERIALIZED VIEW IF NOT EXISTS v AS SELECT 1 AS one")
    dropped = conn.execute("DROP STREAM s CASCADE")
    assert dropped.statusmessage == "DROP STREAM"
    conn.execute("DROP TABLE t CASCADE")
    assert conn.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = "
                        "c.relnamespace WHERE relname IN ('v', 'vw') AND nspname = "
                        "current_schema()").fetchone() == (0,)
    conn.execute("DROP MATERIALIZED VIEW IF EXISTS v")
    with pytest.raises(psycopg.errors.UndefinedTable):
        conn.execute("DROP MATERIALIZED VIEW v")


def test_catalog_entries(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE t (a int, b text)")
    conn.execute("CREATE MATERIALIZED VIEW v AS SELECT a, max(b) AS last FROM t GROUP BY a")
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    assert conn.execute(
        "SELECT relkind, relhasrules FROM pg_class WHERE oid = 'v'::regclass").fetchone() == (
        "m", True)
    assert conn.execute(
        "SELECT matviewname, ispopulated, definition FROM pg_matviews WHERE schemaname = %s",
        (schema,)).fetchall() == [("v", True, " SELECT a, max(b) AS last FROM t GROUP BY a;")]
    assert conn.execute("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                        "WHERE attrelid = 'v'::regclass ORDER BY attnum").fetchall() == [
        ("a", "integer"), ("last", "text")]
    assert conn.execute("SELECT pg_get_viewdef('v'::regclass)").fetchone() == (
        " SELECT a, max(b) AS last FROM t GROUP BY a;",)

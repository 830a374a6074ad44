"""Windows through the wire: ROWS and RANGE (integer and timestamp) slides,
staged tuples invisible, AFTER SLIDE triggers once per slide, PARTITION BY."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, own_schema, sqlstate_of


@pytest.fixture
def conn(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with own_schema(server, "w") as connection:
        yield connection


def _visible(conn: psycopg.Connection, window: str, column: str = "v") -> list[int]:
    return [v for (v,) in conn.execute(f"SELECT {column} FROM {window} ORDER BY {column}")]


def _record_slides(conn: psycopg.Connection, window: str, column: str = "v") -> None:
    conn.execute(f"""
        CREATE TABLE slides (n serial, contents text);
        CREATE TRIGGER snapshot AFTER SLIDE ON {window} AS $$
            INSERT INTO slides (contents)
                SELECT string_agg(x::text, ',')
                FROM (SELECT {column} AS x FROM {window} ORDER BY {column}) AS ordered;
        $$;
    """)


def _slides(conn: psycopg.Connection) -> list[str]:
    return [c for (c,) in conn.execute("SELECT contents FROM slides ORDER BY n")]


def test_rows_window_stages_then_slides(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (v int); CREATE WINDOW w ON s ROWS 4 SLIDE 2")
    _record_slides(conn, "w")
    for v in range(1, 4):
        conn.execute("INSERT INTO s VALUES (%s)", (v,))
        assert _visible(conn, "w") == list(range(1, v + 1))  # visible as they arrive
    assert _slides(conn) == []
    conn.execute("INSERT INTO s VALUES (4)")
    assert _slides(conn) == ["1,2,3,4"]  # the first full window is a slide
    conn.execute("INSERT INTO s VALUES (5)")
    assert _visible(conn, "w") == [1, 2, 3, 4]  # 5 is staged
    conn.execute("INSERT INTO s VALUES (6)")
    assert _visible(conn, "w") == [3, 4, 5, 6]
    conn.execute("INSERT INTO s VALUES (7), (8), (9)")  # one statement, one slide inside
    assert _visible(conn, "w") == [5, 6, 7, 8]
    assert _slides(conn) == ["1,2,3,4", "3,4,5,6", "5,6,7,8"]
    # the stream is consumed by its window
    assert conn.execute("SELECT count(*) FROM s").fetchone() == (0,)
    assert conn.execute("SELECT min(batch_id), max(batch_id) FROM w").fetchone() == (5, 7)
    # a rolled-back insert leaves the window as it was
    with pytest.raises(psycopg.errors.DivisionByZero), conn.transaction():
        conn.execute("INSERT INTO s VALUES (10), (11)")
        conn.execute("SELECT 1 / 0")
    assert _visible(conn, "w") == [5, 6, 7, 8]
    assert len(_slides(conn)) == 3


def test_one_insert_slides_a_rows_window_several_times(conn: psycopg.Connection) -> None:
    """Each slide's trigger sees the window as of its own arrival, not the
    later arrivals of the same statement (they are still staged)."""
    conn.execute("CREATE STREAM s (v int); CREATE WINDOW w ON s ROWS 3 SLIDE 2")
    _record_slides(conn, "w")
    conn.execute("INSERT INTO s SELECT n FROM generate_series(1, 10) AS n")
    assert _slides(conn) == ["1,2,3", "3,4,5", "5,6,7", "7,8,9"]
    assert _visible(conn, "w") == [7, 8, 9]
    assert conn.execute("SELECT staged_tuples, slides FROM sqlext_windows "
                        "WHERE name = 'w'").fetchone() == (1, 4)


def test_rolling_back_to_a_savepoint_restores_a_windows_counters(
        conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (v int); CREATE WINDOW w ON s ROWS 2 SLIDE 1")
    _record_slides(conn, "w")
    with conn.transaction():
        conn.execute("INSERT INTO s VALUES (1), (2)")
        with pytest.raises(psycopg.errors.DivisionByZero), conn.transaction():
            conn.execute("INSERT INTO s VALUES (3), (4), (5)")
            conn.execute("SELECT 1 / 0")
        assert _visible(conn, "w") == [1, 2]
        conn.execute("INSERT INTO s VALUES (6)")
    assert _visible(conn, "w") == [2, 6]
    assert _slides(conn) == ["1,2", "2,6"]
    assert conn.execute("SELECT visible_tuples, staged_tuples, slides FROM sqlext_windows "
                        "WHERE name = 'w'").fetchone() == (2, 0, 2)


def test_partitioned_rows_window(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (k text, v int); "
                 "CREATE WINDOW w ON s ROWS 2 PARTITION BY k")
    _record_slides(conn, "w")
    conn.execute("INSERT INTO s VALUES ('a', 1), ('b', 2), ('a', 3), ('a', 4), ('b', 5)")
    rows = conn.execute("SELECT k, v FROM w ORDER BY k, v").fetchall()
    assert rows == [("a", 3), ("a", 4), ("b", 2), ("b", 5)]
    assert _slides(conn) == ["1,2,3", "2,3,4", "2,3,4,5"]


def test_integer_range_window(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (v int); CREATE WINDOW w ON s RANGE 10 SLIDE 5 ON v")
    _record_slides(conn, "w")
    for v in (1, 2, 3, 4):
        conn.execute("INSERT INTO s VALUES (%s)", (v,))
    assert _visible(conn, "w") == [1, 2, 3, 4]
    for v in (5, 6, 7, 8, 9):
        conn.execute("INSERT INTO s VALUES (%s)", (v,))
    assert _visible(conn, "w") == [1, 2, 3, 4]  # 5..9 wait for the window ending at 10
    conn.execute("INSERT INTO s VALUES (10)")
    assert _visible(conn, "w") == list(range(1, 10))
    conn.execute("INSERT INTO s VALUES (12)")
    conn.execute("INSERT INTO s VALUES (15)")
    assert _visible(conn, "w") == [5, 6, 7, 8, 9, 10, 12]
    conn.execute("INSERT INTO s VALUES (3)")  # too late: dropped
    conn.execute("INSERT INTO s VALUES (7)")  # late but inside the window
    assert _visible(conn, "w") == [5, 6, 7, 7, 8, 9, 10, 12]
    assert _slides(conn) == ["1,2,3,4", "1,2,3,4,5,6,7,8,9", "5,6,7,8,9,10,12"]


def test_timestamp_range_window(conn: psycopg.Connection) -> None:
    conn.execute("""
        CREATE STREAM s (v int, ts timestamptz);
        CREATE WINDOW w ON s RANGE INTERVAL '10 minutes' SLIDE INTERVAL '5 minutes' ON ts;
    """)
    _record_slides(conn, "w")
    for minute in (1, 2, 5, 10, 15):
        conn.execute("INSERT INTO s VALUES (%s, '2024-01-01 00:00:00+00'::timestamptz "
                     "+ %s * interval '1 minute')", (minute, minute))
    assert _visible(conn, "w") == [5, 10]
    assert _slides(conn) == ["1,2", "1,2,5", "5,10"]


def test_window_errors(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (v int, name text, ts timestamp); CREATE TABLE plain (v int)")

    assert sqlstate_of(conn, "CREATE WINDOW w ON s ROWS") == "42601"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s ROWS 0") == "22023"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s ROWS 5 SLIDE 0") == "22023"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s RANGE 5 ON name") == "42804"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s RANGE INTERVAL '1 minute' ON v") == "22023"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s RANGE 5 ON ts") == "22023"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s RANGE INTERVAL '1 month' ON ts") == "22023"
    assert sqlstate_of(conn, "CREATE WINDOW w ON s RANGE 5 ON missing") == "42703"
    assert sqlstate_of(conn, "CREATE WINDOW w ON plain ROWS 5") == "42809"
    assert sqlstate_of(conn, "CREATE WINDOW w ON nowhere ROWS 5") == "42P01"
    conn.execute("CREATE WINDOW w ON s ROWS 3")
    assert sqlstate_of(conn, "CREATE WINDOW w ON s ROWS 3") == "42P07"
    assert sqlstate_of(conn, "INSERT INTO w VALUES (1, 'x', NULL)") == "42809"
    assert sqlstate_of(conn, "DELETE FROM w") == "42809"
    assert sqlstate_of(conn, "CREATE TRIGGER t AFTER INSERT ON w AS $$ SELECT 1 $$") == "42809"
    assert sqlstate_of(conn, "CREATE TRIGGER t AFTER SLIDE ON s AS $$ SELECT 1 $$") == "42809"
    assert sqlstate_of(conn, "DROP STREAM s") == "2BP01"
    assert sqlstate_of(conn, "DROP TABLE w") == "42809"
    conn.execute("DROP STREAM s CASCADE")
    assert sqlstate_of(conn, "SELECT * FROM w") == "42P01"


def test_copy_into_a_stream_fills_its_window(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (v int); CREATE WINDOW w ON s ROWS 3")
    _record_slides(conn, "w")
    with conn.cursor().copy("COPY s FROM STDIN") as copy:
        for v in range(1, 6):
            copy.write_row((v,))
    assert _visible(conn, "w") == [3, 4, 5]
    assert _slides(conn) == ["1,2,3", "2,3,4", "3,4,5"]


def test_dropping_a_window_leaves_its_stream_working(conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM s (v int)")
    conn.execute("CREATE WINDOW w ON s ROWS 2 SLIDE 1")
    conn.execute("DROP WINDOW w")
    conn.execute("INSERT INTO s VALUES (1)")
    assert conn.execute("SELECT v FROM s").fetchall() == [(1,)]
    conn.execute("CREATE WINDOW w ON s ROWS 2 SLIDE 1")  # the name is free again
    conn.execute("INSERT INTO s VALUES (2)")
    conn.execute("DROP STREAM s CASCADE")

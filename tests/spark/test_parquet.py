"""COPY ... TO / FROM Parquet files in the server's COPY directory: types
kept, round trips exact, Spark reads the files directly."""

from __future__ import annotations

import datetime
import signal
from decimal import Decimal
from pathlib import Path

import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from tests.fixtures.all_types import COLUMNS, fill, rows
from tests.fixtures.servers import ServerProcess, start_server, unique
from tests.fixtures.spark import Jdbc


@pytest.fixture
def conn(jdbc: Jdbc) -> psycopg.Connection:
    with psycopg.connect(jdbc.server.dsn, autocommit=True) as connection:
        yield connection


def test_parquet_round_trip_keeps_types_and_values(conn: psycopg.Connection,
                                                   jdbc: Jdbc) -> None:
    source, copy = unique("pq_src"), unique("pq_copy")
    fill(conn, source)
    cursor = conn.execute(f"COPY {source} TO '{source}.parquet' (FORMAT parquet)")
    assert cursor.statusmessage == "COPY 3"
    schema = pq.read_schema(jdbc.copy_dir / f"{source}.parquet")
    assert {f.name: str(f.type) for f in schema} == {
        "id": "int32", "big": "int64", "small": "int16", "dbl": "double", "real": "float",
        "amount": "decimal128(10, 2)", "plain": "decimal128(38, 18)", "name": "string",
        "code": "string", "flag": "bool", "day": "date32[day]", "clock": "time64[us]",
        "ts": "timestamp[us]", "tstz": "timestamp[us, tz=UTC]", "payload": "binary",
        "ints": "list<element: int32>", "words": "list<element: string>", "span": "string",
        "doc": "string", "key": "string"}
    conn.execute(f"CREATE TABLE {copy} ({COLUMNS})")
    assert conn.execute(f"COPY {copy} FROM '{source}.parquet' (FORMAT parquet)"
                        ).statusmessage == "COPY 3"
    assert rows(conn, copy) == rows(conn, source)


def test_spark_reads_an_exported_query_and_stream(spark: SparkSession, conn: psycopg.Connection,
                                                  jdbc: Jdbc) -> None:
    source, stream = unique("pq_src"), unique("pq_stream")
    fill(conn, source)
    conn.execute(f"COPY (SELECT id, amount, tstz, words, day FROM {source} WHERE id < 3) "
                 f"TO 'query.parquet' (FORMAT parquet)")
    frame = spark.read.parquet(str(jdbc.copy_dir / "query.parquet"))
    assert [f.dataType.simpleString() for f in frame.schema.fields] == [
        "int", "decimal(10,2)", "timestamp", "array<string>", "date"]
    assert sorted(tuple(r) for r in frame.collect()) == [
        (1, Decimal("123.45"), datetime.datetime(2024, 1, 2, 1, 4, 5), ["a", "b c", None],
         datetime.date(2024, 1, 2)),
        (2, Decimal("-0.01"), datetime.datetime(1999, 12, 31, 23, 59, 59), [""],
         datetime.date(1970, 1, 1))]
    conn.execute(f"CREATE STREAM {stream} (id int, v text)")
    conn.execute(f"INSERT INTO {stream} SELECT g, 'v' || g FROM generate_series(1, 2500) g")
    conn.execute(f"COPY {stream} TO 'stream.parquet' (FORMAT parquet)")
    streamed = spark.read.parquet(str(jdbc.copy_dir / "stream.parquet"))
    assert streamed.count() == 2500
    assert streamed.where("v = concat('v', id)").count() == 2500


def test_spark_written_parquet_loads_into_a_table(spark: SparkSession, conn: psycopg.Connection,
                                                  jdbc: Jdbc) -> None:
    table = unique("pq_in")
    frame = spark.createDataFrame(
        [(i, f"n{i}", i * 1.5, datetime.datetime(2024, 1, 1, 0, 0, i % 60)) for i in range(3000)],
        "id int, name string, score double, ts timestamp")
    frame.coalesce(1).write.mode("overwrite").parquet(str(jdbc.copy_dir / "spark_out"))
    (written,) = (jdbc.copy_dir / "spark_out").glob("part-*.parquet")
    conn.execute(f"CREATE TABLE {table} (ts timestamptz, id int PRIMARY KEY, name text, "
                 "score float8, note text DEFAULT 'loaded')")
    relative = written.relative_to(jdbc.copy_dir)
    assert conn.execute(f"COPY {table} (id, name, score, ts) FROM '{relative}' "
                        "(FORMAT parquet)").statusmessage == "COPY 3000"
    assert conn.execute(f"SELECT count(*), sum(score), min(ts), max(note) FROM {table}"
                        ).fetchone() == (3000, sum(i * 1.5 for i in range(3000)),
                                         datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC),
                                         "loaded")


def test_text_and_csv_files(conn: psycopg.Connection, jdbc: Jdbc) -> None:
    source, copy = unique("txt_src"), unique("txt_copy")
    fill(conn, source)
    conn.execute(f"CREATE TABLE {copy} ({COLUMNS})")
    for options in ("", "(FORMAT csv, HEADER)"):
        conn.execute(f"TRUNCATE {copy}")
        conn.execute(f"COPY {source} TO 'plain.data' {options}")
        assert conn.execute(f"COPY {copy} FROM 'plain.data' {options}"
                            ).statusmessage == "COPY 3"
        assert rows(conn, copy) == rows(conn, source)


def test_file_errors(conn: psycopg.Connection, jdbc: Jdbc, tmp_path: Path) -> None:
    table = unique("pq_err")
    conn.execute(f"CREATE TABLE {table} (id int, name text)")
    cases = {
        f"COPY {table} FROM 'missing.parquet' (FORMAT parquet)": "58P01",
        f"COPY {table} TO '{tmp_path}/outside.parquet' (FORMAT parquet)": "42501",
        f"COPY {table} TO '../escape.parquet' (FORMAT parquet)": "42501",
        f"COPY {table} TO STDOUT (FORMAT parquet)": "0A000",
        f"COPY {table} TO 'x.parquet' (FORMAT orc)": "22023",
        "COPY (SELECT 'infinity'::timestamp AS t) TO 'inf.parquet' (FORMAT parquet)": "22008",
        "COPY (SELECT 'NaN'::numeric AS n) TO 'nan.parquet' (FORMAT parquet)": "22003",
        "COPY (SELECT 1e30::numeric AS n) TO 'big.parquet' (FORMAT parquet)": "22003",
    }
    (jdbc.copy_dir / "not.parquet").write_text("just text")
    cases[f"COPY {table} FROM 'not.parquet' (FORMAT parquet)"] = "22P04"
    pq.write_table(pa.table({"id": [1, 2], "other": ["a", "b"]}),
                   jdbc.copy_dir / "other.parquet")
    cases[f"COPY {table} FROM 'other.parquet' (FORMAT parquet)"] = "42703"
    pq.write_table(pa.table({"id": ["1", "x"], "name": ["a", "b"]}),
                   jdbc.copy_dir / "bad.parquet")
    cases[f"COPY {table} FROM 'bad.parquet' (FORMAT parquet)"] = "22P02"
    for statement, sqlstate in cases.items():
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(statement)
        assert caught.value.sqlstate == sqlstate, (statement, caught.value)
    assert not (tmp_path / "outside.parquet").exists()
    assert not (jdbc.copy_dir / "inf.parquet").exists()  # no half-written file either
    assert not [p for p in jdbc.copy_dir.iterdir() if p.name.endswith(".tmp")]
    # a partial load rolls back; the connection and server stay usable
    assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
    conn.execute(f"COPY {table} (id) FROM 'other.parquet' (FORMAT parquet)")
    assert conn.execute(f"SELECT id, name FROM {table} ORDER BY id").fetchall() == [
        (1, None), (2, None)]


def test_memory_only_server_has_no_copy_directory(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn, pytest.raises(
            psycopg.errors.InsufficientPrivilege, match="--copy-dir"):
        conn.execute("COPY (SELECT 1) TO 'x.parquet' (FORMAT parquet)")


def test_loaded_rows_survive_a_kill_without_the_file(tmp_path: Path) -> None:
    """COPY FROM a file is logged as its rows: recovery does not need the file."""
    data = tmp_path / "data"
    server = start_server("--data-dir", str(data))
    try:
        with server.connect(autocommit=True) as conn:
            conn.execute("CREATE TABLE loaded (id int, name text)")
            conn.execute("COPY (SELECT g AS id, 'n' || g AS name FROM generate_series(1, 1000) g)"
                         " TO 'rows.parquet' (FORMAT parquet)")
            conn.execute("COPY loaded FROM 'rows.parquet' (FORMAT parquet)")
        assert (data / "files" / "rows.parquet").exists()
        (data / "files" / "rows.parquet").unlink()
        server.stop(signal.SIGKILL)
        server = start_server("--data-dir", str(data))
        with server.connect() as conn:
            assert conn.execute("SELECT count(*), sum(id), max(name) FROM loaded").fetchone() == (
                1000, 500500, "n999")
    finally:
        server.stop()

"""COPY ... TO STDOUT / FROM STDIN (FORMAT arrow): a query's rows as an
Arrow IPC stream of typed columns, and a table loaded from one."""

from __future__ import annotations

import psycopg
import pyarrow as pa
import pytest

from tests.fixtures.all_types import COLUMNS, fill, rows
from tests.fixtures.servers import unique


def copy_out(conn: psycopg.Connection, sql: str) -> pa.Table:
    data = bytearray()
    with conn.cursor().copy(sql) as copy:
        for chunk in copy:
            data += chunk
    return pa.ipc.open_stream(pa.py_buffer(bytes(data))).read_all()


def copy_in(conn: psycopg.Connection, sql: str, table: pa.Table, piece: int = 1000) -> str:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=2)
    data = sink.getvalue().to_pybytes()
    with conn.cursor() as cursor:
        with cursor.copy(sql) as copy:
            for start in range(0, len(data), piece):
                copy.write(data[start:start + piece])
        return str(cursor.statusmessage)


def test_every_type_round_trips(conn: psycopg.Connection) -> None:
    source, copied = unique("arrow_source"), unique("arrow_copied")
    fill(conn, source)
    table = copy_out(conn, f"COPY {source} TO STDOUT (FORMAT arrow)")
    assert table.num_rows == 3
    assert {field.name: str(field.type) for field in table.schema}["amount"] == (
        "decimal128(10, 2)")
    assert str(table.schema.field("tstz").type) == "timestamp[us, tz=UTC]"
    conn.execute(f"CREATE TABLE {copied} ({COLUMNS})")
    assert copy_in(conn, f"COPY {copied} FROM STDIN (FORMAT arrow)", table, piece=7) == "COPY 3"
    assert rows(conn, copied) == rows(conn, source)


def test_a_query_streams_in_many_batches(conn: psycopg.Connection) -> None:
    numbers = unique("numbers")
    conn.execute(f"CREATE TABLE {numbers} (n int PRIMARY KEY, label text)")
    conn.execute(f"INSERT INTO {numbers} SELECT n, 'n' || n FROM generate_series(1, 150000) n")
    table = copy_out(conn, f"COPY (SELECT n, label FROM {numbers} WHERE n % 3 = 0) "
                           "TO STDOUT (FORMAT arrow)")
    assert table.num_rows == 50000
    assert table.column("n").to_pylist() == list(range(3, 150001, 3))
    assert table.column("label").to_pylist()[:2] == ["n3", "n6"]


def test_columns_are_matched_by_name(conn: psycopg.Connection) -> None:
    people = unique("people")
    conn.execute(f"CREATE TABLE {people} (id int PRIMARY KEY, name text, born date)")
    table = pa.table({"name": ["ann", None], "id": pa.array([2, 1], pa.int32()),
                      "extra": [1.5, 2.5]})
    assert copy_in(conn, f"COPY {people} (id, name) FROM STDIN (FORMAT arrow)",
                   table) == "COPY 2"
    assert conn.execute(f"SELECT * FROM {people} ORDER BY id").fetchall() == [
        (1, None, None), (2, "ann", None)]
    with pytest.raises(psycopg.errors.UndefinedColumn,
                       match=f'column "born" of relation "{people}" is not in the Arrow stream'):
        copy_in(conn, f"COPY {people} FROM STDIN (FORMAT arrow)", table)


def test_bad_streams_and_options_are_refused(conn: psycopg.Connection) -> None:
    target = unique("target")
    conn.execute(f"CREATE TABLE {target} (id int)")
    with (pytest.raises(psycopg.errors.BadCopyFileFormat, match="invalid Arrow IPC stream"),
          conn.cursor().copy(f"COPY {target} FROM STDIN (FORMAT arrow)") as copy):
        copy.write(b"not an arrow stream at all")
    with pytest.raises(psycopg.errors.FeatureNotSupported, match="no other options"):
        conn.execute(f"COPY {target} TO STDOUT (FORMAT arrow, HEADER)")
    with pytest.raises(psycopg.errors.FeatureNotSupported, match="not files on the server"):
        conn.execute(f"COPY {target} TO 'target.arrow' (FORMAT arrow)")
    assert conn.execute(f"SELECT count(*) FROM {target}").fetchone() == (0,)


def stream_of(schema: pa.Schema, batches: list[pa.RecordBatch]) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def send(conn: psycopg.Connection, sql: str, data: bytes) -> str:
    with conn.cursor() as cursor:
        with cursor.copy(sql) as copy:
            copy.write(data)
        return str(cursor.statusmessage)


def test_a_constraint_violated_far_into_the_data_loads_nothing(
        conn: psycopg.Connection) -> None:
    target = unique("keyed")
    conn.execute(f"CREATE TABLE {target} (id bigint PRIMARY KEY, n int NOT NULL, "
                 "CHECK (n < 1000))")
    count = 150000
    ids = list(range(count))
    ids[140001] = 5  # a duplicate key in the third record batch
    table = pa.table({"id": pa.array(ids, pa.int64()), "n": pa.array([k % 1000 for k in ids],
                                                                     pa.int32())})
    data = stream_of(table.schema, table.to_batches(max_chunksize=65536))
    with pytest.raises(psycopg.errors.UniqueViolation, match=f'"{target}_pkey"'):
        send(conn, f"COPY {target} FROM STDIN (FORMAT arrow)", data)
    checked = table.set_column(1, "n", pa.array([k % 1000 + (k == 120000) * 1000
                                                 for k in range(count)], pa.int32()))
    checked = checked.set_column(0, "id", pa.array(range(count), pa.int64()))
    with pytest.raises(psycopg.errors.CheckViolation):
        send(conn, f"COPY {target} FROM STDIN (FORMAT arrow)",
             stream_of(checked.schema, checked.to_batches(max_chunksize=50000)))
    assert conn.execute(f"SELECT count(*) FROM {target}").fetchone() == (0,)


def test_a_stream_takes_all_record_batches_as_one_batch(conn: psycopg.Connection) -> None:
    events = unique("events")
    conn.execute(f"CREATE STREAM {events} (id int, label text, at timestamptz)")
    schema = pa.schema([("at", pa.timestamp("us", tz="UTC")), ("label", pa.string()),
                        ("id", pa.int32())])
    batches = [pa.record_batch([pa.array([k * 1_000_000 for k in range(start, start + size)],
                                         schema.field("at").type),
                                pa.array([None if k % 3 == 0 else f"e{k}"
                                          for k in range(start, start + size)]),
                                pa.array(range(start, start + size), pa.int32())],
                               schema=schema)
               for start, size in ((0, 1), (1, 300), (301, 7))]
    assert send(conn, f"COPY {events} FROM STDIN (FORMAT arrow)",
                stream_of(schema, batches)) == "COPY 308"
    assert conn.execute(f"SELECT count(DISTINCT batch_id), count(*), count(label), "
                        f"min(at)::text, max(id) FROM {events}").fetchone() == (
        1, 308, 205, "1970-01-01 00:00:00+00", 307)


def test_a_column_subset_is_taken_by_name(conn: psycopg.Connection) -> None:
    target = unique("subset")
    conn.execute(f"CREATE TABLE {target} (id int PRIMARY KEY, amount numeric(8,2), "
                 "note text DEFAULT 'none', day date)")
    table = pa.table({"day": pa.array([None, 18262], pa.date32()), "ignored": [b"x", b"y"],
                      "amount": pa.array([1, -2], pa.int16()), "id": pa.array([2, 1], pa.int8())})
    assert send(conn, f"COPY {target} (amount, id, day) FROM STDIN (FORMAT arrow)",
                stream_of(table.schema, table.to_batches())) == "COPY 2"
    assert conn.execute(f"SELECT id, amount::text, note, day::text FROM {target} ORDER BY id"
                        ).fetchall() == [(1, "-2.00", "none", "2020-01-01"),
                                         (2, "1.00", "none", None)]

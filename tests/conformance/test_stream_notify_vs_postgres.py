"""The rows of a notify stream's payload against PostgreSQL 15's
row_to_json() (with TimeZone UTC), byte for byte, over every type family."""

from __future__ import annotations

import uuid

import psycopg

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.notifications import take
from tests.fixtures.servers import ServerProcess, own_schema

COLUMNS = """n int, i2 int2, i4 int4, i8 int8, money numeric(10,2), plain numeric,
    f4 float4, f8 float8, flag bool, t text, v varchar(10), c char(3), b bytea, d date,
    tm time, ts timestamp, tz timestamptz, iv interval, u uuid, js json, jb jsonb,
    ints int4[], texts text[], floats float8[]"""

ROWS = [
    """(1, -32768, 2147483647, 9223372036854775807, 12.5, 123.456, 1.5, 0.1, true,
        'a"b\\c/', 'é ü 🙂', 'x', '\\x00ff', '2024-02-29', '23:59:59.5',
        '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+05:30',
        '1 year 2 mons 3 days 04:05:06', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        '{"b": 1,  "a": [1, 2.50]}', '{"b": 1,  "a": [1, 2.50]}', '{1,NULL,3}',
        '{"x y",NULL,"\\"q\\""}', '{NaN,Infinity,-0.5}')""",
    """(2, 0, -1, 0, -0.01, 'NaN', '-Infinity', 'Infinity', false,
        E'line\\n\\ttab\\x01 end', '', 'ab', '\\x', 'infinity', '00:00:00',
        '-infinity', 'infinity', '-1 days +02:00:00', '00000000-0000-0000-0000-000000000000',
        '[]', 'null', '{}', '{""}', '{1e300}')""",
    "(3" + ", NULL" * 23 + ")",
]


def test_payload_rows_are_row_to_json(server: ServerProcess,
                                      postgres_peer: PostgresPeer) -> None:
    values = ", ".join(row.replace("\n", " ") for row in ROWS)
    with psycopg.connect(postgres_peer.dsn, autocommit=True) as peer:
        peer.execute("SET TimeZone = 'UTC'")
        peer.execute(f"CREATE TEMP TABLE every_type ({COLUMNS})")
        peer.execute(f"INSERT INTO every_type VALUES {values}")
        expected = [row[0] for row in peer.execute(
            "SELECT row_to_json(e)::text FROM every_type e ORDER BY n")]
    with own_schema(server, "notify_conformance") as conn:
        channel = f"c_{uuid.uuid4().hex}"  # channels are server-wide
        conn.execute(f"CREATE STREAM every_type ({COLUMNS}) WITH (notify = '{channel}')")
        conn.execute(f"LISTEN {channel}")
        conn.execute(f"INSERT INTO every_type VALUES {values}")
        (note,) = take(conn, 1)
    head = '{"stream":"every_type","batch_id":1,"row_count":3,"rows":['
    assert note.payload.startswith(head) and note.payload.endswith("]}")
    rows = note.payload[len(head):-2]
    for row in expected:
        assert rows.startswith(row), (row, rows[:len(row)])
        rows = rows[len(row) + 1:]
    assert rows == ""

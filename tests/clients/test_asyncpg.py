"""asyncpg 0.32 against sqlext and against PostgreSQL 15: the same coroutine
runs on both servers and what it returns (Python values, compared by type
and repr, so 1.50 and 1.5 differ and NaN equals NaN) or raises (exception
class, SQLSTATE, message) must be the same.

asyncpg asks for every value it has a codec for in binary, and looks up
every type it does not know with its introspection query (recursive CTEs
over pg_type, pg_range, arrays of composite types): a parameter of type
jsonb, int[] or uuid runs that query first.
"""

from __future__ import annotations

import asyncio
import io
import ipaddress
import json
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

import asyncpg
import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.servers import ServerProcess


@dataclass(frozen=True)
class Target:
    """One server, and the schema this module's tables live in there."""

    port: int
    database: str
    schema: str

    async def connect(self, **settings: str) -> asyncpg.Connection:
        return await asyncpg.connect(host="127.0.0.1", port=self.port, user="postgres",
                                     database=self.database,
                                     server_settings={"search_path": self.schema, **settings})


Scenario = Callable[[asyncpg.Connection, Target], Awaitable[Any]]


@pytest.fixture(scope="module")
def targets(server: ServerProcess, postgres: PostgresPeer) -> Iterator[tuple[Target, Target]]:
    """(sqlext, PostgreSQL), each with an empty schema of the same name."""
    schema = f"asyncpg_{uuid.uuid4().hex}"
    ours = Target(server.port, "sqlext", schema)
    theirs = Target(postgres.port, "postgres", schema)
    dsns = (server.dsn, postgres.dsn)
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f"CREATE SCHEMA {schema}")
    yield ours, theirs
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


def comparable(value: Any) -> Any:
    """``value`` in a form that compares equal only when the values are the
    same to a user: type and repr of each scalar (Decimal('1.50') is not
    Decimal('1.5'), a NaN equals a NaN), records as their items."""
    if isinstance(value, asyncpg.Record):
        return [(key, comparable(item)) for key, item in value.items()]
    if isinstance(value, list | tuple):
        return [type(value).__name__, *map(comparable, value)]
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items()}
    return type(value).__name__, repr(value)


OBJECT_FIELDS = ("schema_name", "table_name", "column_name", "data_type_name",
                 "constraint_name")


def failure(exc: Exception) -> tuple[str | None, ...]:
    """What a user sees of a server error: its class, SQLSTATE, message and
    the objects it names (a violated constraint, its table...)."""
    return (type(exc).__name__, getattr(exc, "sqlstate", None),
            getattr(exc, "message", str(exc)),
            *(getattr(exc, field, None) for field in OBJECT_FIELDS))


async def attempt(call: Awaitable[Any]) -> Any:
    """The call's value, or its failure."""
    try:
        return await call
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        return failure(exc)


def run_on(target: Target, scenario: Scenario) -> Any:
    async def run() -> Any:
        connection = await target.connect()
        try:
            return comparable(await scenario(connection, target))
        finally:
            await connection.close()

    return asyncio.run(run())


def same_on_both(targets: tuple[Target, Target], scenario: Scenario) -> Any:
    """Runs ``scenario`` on sqlext and on PostgreSQL; their results must be
    equal. Returns sqlext's (in comparable form)."""
    ours, theirs = (run_on(target, scenario) for target in targets)
    assert ours == theirs
    return ours


# --- values: every type, both directions --------------------------------------------

VALUES: dict[str, list[str]] = {
    "integers": ["1::int2", "'-32768'::int2", "2147483647", "'-9223372036854775808'::int8",
                 "0::int8", "26::oid", "4294967295::oid"],
    "floats": ["1.5::float4", "'3.4e38'::float4", "'NaN'::float4", "'-Infinity'::float8",
               "0.1::float8", "'-0'::float8", "1e300::float8", "5e-324::float8"],
    "numeric": ["1.50::numeric", "'NaN'::numeric", "'Infinity'::numeric",
                "'-Infinity'::numeric", "12345678901234567890.123456789::numeric",
                "0.000000000000001::numeric", "1e-20::numeric(30,25)", "-0.0001::numeric",
                "1000000::numeric", "'1e100'::numeric", "'-1.23e-50'::numeric",
                "123.456::numeric(5,-1)", "0::numeric(10,4)"],
    "text": ["true", "false", "'abc'::text", "''::text", "'é€😀'::text", "'abc'::varchar(5)",
             "'ab'::char(4)", "'ab'::name", "'x'::\"char\"", "'\\x00ff'::bytea", "''::bytea"],
    "dates and times": ["'2024-02-29'::date", "'infinity'::date", "'-infinity'::date",
                        "'0001-01-01'::date", "'12:34:56.789'::time", "'00:00'::time",
                        "'2024-01-01 12:00:00.123456'::timestamp", "'infinity'::timestamp",
                        "'-infinity'::timestamp", "'2024-01-01 12:00:00+02'::timestamptz",
                        "'infinity'::timestamptz", "'-infinity'::timestamptz"],
    "intervals": ["'1 year 2 months 3 days 04:05:06.7'::interval", "'-1 day'::interval",
                  "'1 mon -1 sec'::interval", "'0'::interval", "'-178000000 years'::interval"],
    "uuid, json, network": [
        "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'{\"a\": [1, 2]}'::json",
        "'{\"b\":1, \"a\":2}'::jsonb", "'[]'::jsonb", "'null'::jsonb",
        "'192.168.0.1/24'::inet", "'192.168.0.1'::inet", "'10.0.0.0/8'::cidr", "'::1'::inet",
        "'2001:db8::/32'::cidr", "'::ffff:1.2.3.4'::inet"],
    "catalog types": ["'pg_class'::regclass", "'int4'::regtype", "'pg_catalog'::regnamespace",
                      "'1 2'::int2vector", "'23 25'::oidvector", "''::int2vector"],
    "arrays": ["ARRAY[1,2,NULL]::int[]", "'{}'::int[]", "ARRAY['a',NULL,'b c','\"q\"']::text[]",
               "ARRAY[1.5,NULL,'NaN']::numeric[]", "ARRAY['2024-01-01'::date, NULL]",
               "ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]", "ARRAY[true,false,null]",
               "ARRAY['{\"a\":1}'::jsonb, NULL]", "ARRAY['1.2.3.4'::inet, '::1/64']",
               "ARRAY['Infinity'::float8, '-0', NULL]", "ARRAY['\\x01'::bytea, '']",
               "ARRAY['1 day'::interval]", "ARRAY['2024-01-01 00:00+00'::timestamptz]",
               "'{a,b}'::varchar[]", "ARRAY[1::int2, -1]", "ARRAY[2::int8]",
               "'{x,y}'::name[]", "'{1,2}'::oid[]", "ARRAY[1.5::float4]",
               "ARRAY['12:00'::time]", "ARRAY['2024-01-01 01:02'::timestamp]",
               "'{\"{}\",\"[1]\"}'::json[]", "ARRAY['ab'::char(3)]"],
}


@pytest.mark.parametrize("family", VALUES)
def test_values_read_in_binary(targets: tuple[Target, Target], family: str) -> None:
    """Each value as asyncpg decodes it (binary for every type it knows)."""
    select = "SELECT " + ", ".join(f"{value} AS c{i}" for i, value in enumerate(VALUES[family]))

    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        return await connection.fetchrow(select)

    same_on_both(targets, scenario)


PARAMETERS: list[tuple[str, Any]] = [
    ("int2", -5), ("int4", 2**31 - 1), ("int8", -(2**63)), ("oid", 4000000000),
    ("float4", 1.5), ("float8", 0.1), ("float8", float("nan")), ("float8", float("-inf")),
    ("numeric", Decimal("1.230")), ("numeric", Decimal("NaN")), ("numeric", Decimal("-1E-30")),
    ("numeric", Decimal("123456789012345678901234567890.5")), ("numeric", Decimal("1E+20")),
    ("numeric(6,2)", Decimal("1.005")), ("bool", True), ("text", "héllo\n\t\\"),
    ("varchar", "x"), ("bpchar", "ab"), ("char(4)", "ab"), ("name", "nm"),
    ("bytea", b"\x00\xff"), ("bytea", b""),
    ("date", date(2024, 2, 29)), ("date", date.max), ("date", date.min),
    ("time", time(1, 2, 3, 4)), ("timestamp", datetime(2024, 1, 1, 1, 2, 3, 456)),
    ("timestamp", datetime.max), ("timestamptz", datetime(2024, 1, 1, tzinfo=UTC)),
    ("timestamptz", datetime(2024, 6, 1, 12, tzinfo=timezone(timedelta(hours=-7)))),
    ("interval", timedelta(days=-3, seconds=5, microseconds=7)),
    ("interval", timedelta(days=400)),
    ("uuid", uuid.UUID(int=12345)), ("json", '{"a": 1}'), ("jsonb", '{"a": [1, null]}'),
    ("inet", ipaddress.ip_address("10.1.2.3")), ("inet", ipaddress.ip_interface("10.1.2.3/8")),
    ("inet", ipaddress.ip_address("2001:db8::1")), ("cidr", ipaddress.ip_network("10.0.0.0/8")),
    ("int4[]", [1, None, 3]), ("int8[]", []), ("text[]", ["a", None, "b,c", "", "NULL"]),
    ("uuid[]", [uuid.UUID(int=1), None]), ("jsonb[]", ['{"a":1}']),
    ("timestamptz[]", [datetime(2024, 1, 1, tzinfo=UTC), None]),
    ("numeric[]", [Decimal("1.5"), None, Decimal("NaN")]), ("bytea[]", [b"a", None]),
    ("bool[]", [True, None]), ("date[]", [date(2000, 1, 1)]),
    ("float8[]", [float("inf"), -0.0]), ("interval[]", [timedelta(1)]),
    ("inet[]", [ipaddress.ip_address("::1")]), ("varchar[]", ["v"]), ("oid[]", [1, 2]),
]


@pytest.mark.parametrize(("type_name", "value"), PARAMETERS,
                         ids=[f"{name}-{i}" for i, (name, _) in enumerate(PARAMETERS)])
def test_parameters_sent_in_binary(targets: tuple[Target, Target], type_name: str,
                                   value: Any) -> None:
    """A parameter as asyncpg encodes it, read back; the types asyncpg does
    not know by OID (jsonb, arrays, uuid...) go through its introspection."""

    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        return await attempt(connection.fetchrow(
            f"SELECT $1::{type_name} AS v, $1::{type_name}::text AS t", value))

    same_on_both(targets, scenario)


def test_what_sqlext_refuses(targets: tuple[Target, Target]) -> None:
    """Values sqlext cannot hold give a clear error (the README's matrix)."""
    ours, _ = targets

    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        return [(await attempt(connection.fetchval(sql, *args)))[:2] for sql, args in (
            ("SELECT ARRAY[[1,2],[3,4]]", ()), ("SELECT $1::int[]", ([[1, 2], [3, 4]],)),
            ("SELECT '12:00+01'::timetz", ()), ("SELECT (1, 'a')", ()))]

    assert run_on(ours, scenario) == comparable(
        [("FeatureNotSupportedError", "0A000")] * 4)


# --- tables, statements, COPY --------------------------------------------------------

COLUMNS = ("id int PRIMARY KEY, a int2, b int8, c float4, d numeric(10,3), e text, f bytea, "
           "g date, h timestamptz, i interval, j uuid, k jsonb, l inet, m int[], n text[], "
           "o bool, p varchar(10), q char(3), r time, s timestamp, u json, v cidr, w numeric")
ROW = (1, 2, 3, 1.25, Decimal("1.5"), "t", b"b", date(2020, 1, 1),
       datetime(2020, 1, 1, tzinfo=UTC), timedelta(hours=1), uuid.UUID(int=5),
       '{"x": 1}', ipaddress.ip_interface("1.2.3.4/32"), [1, None], ["a", None], True, "vc",
       "ab", time(1), datetime(2020, 1, 1), "[1]", ipaddress.ip_network("1.2.0.0/16"),
       Decimal("-0.000001"))


async def fresh_table(connection: asyncpg.Connection, name: str,
                      columns: str = COLUMNS) -> None:
    await connection.execute(f"DROP TABLE IF EXISTS {name}")
    await connection.execute(f"CREATE TABLE {name} ({columns})")


def test_insert_executemany_and_fetch(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "rows_in")
        placeholders = ", ".join(f"${i + 1}" for i in range(len(ROW)))
        tags = [await connection.execute(f"INSERT INTO rows_in VALUES ({placeholders})", *ROW)]
        await connection.executemany("INSERT INTO rows_in (id, a, e, m) VALUES ($1, $2, $3, $4)",
                                     [(2, 1, "x", [7]), (3, None, None, None)])
        tags.append(await connection.execute("UPDATE rows_in SET a = a + 1 WHERE id < $1", 3))
        tags.append(await connection.execute("DELETE FROM rows_in WHERE id = 3"))
        return (tags, await connection.fetch("SELECT * FROM rows_in ORDER BY id"),
                await connection.fetchval("SELECT count(*) FROM rows_in WHERE id = ANY($1)",
                                          [1, 2, None]),
                await connection.fetchval("SELECT e FROM rows_in WHERE $1", True),
                await attempt(connection.executemany(
                    "INSERT INTO rows_in (id) VALUES ($1)", [(10,), (1,)])),
                await connection.fetchval("SELECT count(*) FROM rows_in WHERE id = 10"),
                await connection.fetch("SELECT indkey, indnatts FROM pg_index "
                                       "WHERE indrelid = 'rows_in'::regclass"))

    same_on_both(targets, scenario)


def test_prepared_statement_description(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "described")
        statement = await connection.prepare(
            "SELECT id, e, d, m, h, $1::uuid AS u, $2::jsonb AS j, $3::text[] AS t "
            "FROM described WHERE id = $4 AND e = $5")
        parameters = [(p.oid, p.name, p.kind, p.schema) for p in statement.get_parameters()]
        attributes = [(a.name, a.type.oid, a.type.name, a.type.kind, a.type.schema)
                      for a in statement.get_attributes()]
        await connection.execute("INSERT INTO described (id, e) VALUES (1, 'x')")
        rows = [await statement.fetch(None, None, None, 1, "x"),
                await statement.fetchrow(uuid.UUID(int=1), "[1]", ["a"], 1, "x"),
                await statement.fetchval(None, None, None, 1, "x", column=1),
                await statement.fetch(None, None, None, 2, "x")]
        return parameters, attributes, rows, statement.get_statusmsg()

    same_on_both(targets, scenario)


def test_statements_prepared_again_after_schema_changes(
        targets: tuple[Target, Target]) -> None:
    """asyncpg keeps its prepared statements; when a table changes under one,
    the server says so (0A000 from RevalidateCachedQuery) and asyncpg
    prepares it again, except inside a transaction."""

    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "reshaped", "a int, b text")
        await connection.execute("INSERT INTO reshaped VALUES (1, 'x')")
        seen = [await connection.fetch("SELECT * FROM reshaped")]
        await connection.execute("ALTER TABLE reshaped ADD COLUMN c int DEFAULT 5")
        seen.append(await connection.fetch("SELECT * FROM reshaped"))
        await connection.execute("DROP TABLE reshaped; CREATE TABLE reshaped (a text)")
        seen.append(await connection.fetch("SELECT * FROM reshaped"))
        seen.append(await connection.fetch("SELECT count(*) FROM reshaped"))
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute("ALTER TABLE reshaped ADD COLUMN d int")
        seen.append(await attempt(connection.fetch("SELECT * FROM reshaped")))
        await transaction.rollback()
        seen.append(await connection.fetch("SELECT * FROM reshaped"))
        return seen

    same_on_both(targets, scenario)


def test_copy_records_to_table(targets: tuple[Target, Target]) -> None:
    """copy_records_to_table sends COPY ... FROM STDIN in binary."""

    async def scenario(connection: asyncpg.Connection, target: Target) -> Any:
        await fresh_table(connection, "copied")
        tags = [await connection.copy_records_to_table(
                    "copied", records=[(10, 1, "c1", [1, 2]), (11, None, "c2", None)],
                    columns=["id", "a", "e", "m"]),
                await connection.copy_records_to_table(
                    "copied", records=[(12, *ROW[1:-1], Decimal("NaN"))],
                    schema_name=target.schema),
                await connection.copy_records_to_table("copied", records=[]),
                await connection.copy_records_to_table(
                    "copied", records=[(20, "w1"), (21, "w2"), (22, None)], columns=["id", "e"],
                    where="id > 20 AND copied.e IS NOT NULL"),
                await attempt(connection.copy_records_to_table(
                    "copied", records=[(10, 1)], columns=["id", "a"]))]
        return tags, await connection.fetch("SELECT * FROM copied ORDER BY id")

    same_on_both(targets, scenario)


def test_copy_out_in_every_format(targets: tuple[Target, Target]) -> None:
    """copy_from_table and copy_from_query in text, CSV and binary: the
    bytes are PostgreSQL's."""

    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "source")
        await connection.copy_records_to_table("source", records=[ROW, (2, *[None] * 22)])
        outputs = []
        for kind in ("text", "csv", "binary"):
            sink = io.BytesIO()
            tag = await connection.copy_from_table("source", output=sink, format=kind)
            outputs.append((tag, sink.getvalue()))
        sink = io.BytesIO()
        tag = await connection.copy_from_query(
            "SELECT id, e, m FROM source WHERE id > $1 ORDER BY id", 0, output=sink,
            format="csv", header=True, force_quote=True)
        outputs.append((tag, sink.getvalue()))
        sink = io.BytesIO()
        tag = await connection.copy_from_table("source", output=sink, columns=["id", "d"],
                                               format="text", null="-", delimiter="|")
        return [*outputs, (tag, sink.getvalue())]

    same_on_both(targets, scenario)


def test_copy_to_table_from_every_format(targets: tuple[Target, Target]) -> None:
    """copy_to_table with text, CSV (with options) and binary data; the
    binary data is what PostgreSQL itself writes for the table."""

    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "target")
        await connection.copy_records_to_table("target", records=[ROW])
        binary = io.BytesIO()
        await connection.copy_from_table("target", output=binary, format="binary")
        await connection.execute("DELETE FROM target")
        return ([await connection.copy_to_table("target", source=io.BytesIO(binary.getvalue()),
                                                format="binary"),
                 await connection.copy_to_table("target", source=io.BytesIO(b"20\tz\n21\t\\N\n"),
                                                columns=["id", "e"]),
                 await connection.copy_to_table(
                     "target", source=io.BytesIO(b'id|e\n30|NUL\n31|"q|x"\n'),
                     columns=["id", "e"], format="csv", delimiter="|", null="NUL",
                     header=True, quote='"'),
                 await connection.copy_to_table(
                     "target", source=io.BytesIO(b"35,a\n36,b\n"), columns=["id", "e"],
                     format="csv", where="e <> 'a'"),
                 await attempt(connection.copy_to_table(
                     "target", source=io.BytesIO(b"40\tx\textra\n"), columns=["id", "e"]))],
                await connection.fetch("SELECT * FROM target ORDER BY id"))

    same_on_both(targets, scenario)


BAD_BINARY = {
    "signature": b"PGCOPY\n\xff\r\n\x01" + bytes(8),
    "oids": b"PGCOPY\n\xff\r\n\x00\x00\x01\x00\x00\x00\x00\x00\x00",
    "field count": b"PGCOPY\n\xff\r\n\x00" + bytes(8) + b"\x00\x03",
    "field size": b"PGCOPY\n\xff\r\n\x00" + bytes(8) + b"\x00\x02\xff\xff\xff\xfe",
    "cut short": b"PGCOPY\n\xff\r\n\x00" + bytes(8) + b"\x00\x02\x00\x00\x00\x04\x00",
    "value": b"PGCOPY\n\xff\r\n\x00" + bytes(8) + b"\x00\x02\x00\x00\x00\x02\x00\x01"
             b"\xff\xff\xff\xff",
    "after trailer": b"PGCOPY\n\xff\r\n\x00" + bytes(8) + b"\xff\xff\x00",
    "no trailer": b"PGCOPY\n\xff\r\n\x00" + bytes(8) + b"\x00\x02\x00\x00\x00\x04\x00\x00"
                  b"\x00\x07\xff\xff\xff\xff",
}


def test_copy_from_bad_binary_data(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "strict", "id int, e text")
        outcomes = {}
        for name, data in BAD_BINARY.items():
            outcomes[name] = await attempt(connection.copy_to_table(
                "strict", source=io.BytesIO(data), format="binary"))
        options = [await attempt(connection.copy_to_table(
            "strict", source=io.BytesIO(b""), format="binary", **option))
            for option in ({"delimiter": ","}, {"null": "x"}, {"header": True},
                           {"quote": "'"})]
        return outcomes, options, await connection.fetch("SELECT * FROM strict")

    same_on_both(targets, scenario)


# --- cursors, transactions, notifications ----------------------------------------------

def test_cursors(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        seen: list[Any] = []
        async with connection.transaction():
            async for row in connection.cursor("SELECT generate_series(1, 10) AS x",
                                               prefetch=3):
                seen.append(row["x"])
            cursor = await connection.cursor(
                "SELECT x, x::text AS t FROM generate_series(1, $1) AS x", 10)
            seen.append(await cursor.fetch(3))
            seen.append(await cursor.forward(2))
            seen.append(await cursor.fetchrow())
            seen.append(await cursor.fetch(100))
            seen.append(await cursor.fetchrow())
        seen.append(await attempt(connection.cursor("SELECT 1")))
        return seen

    same_on_both(targets, scenario)


def test_transactions(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await fresh_table(connection, "ledger", "a int")
        seen: list[Any] = []
        async with connection.transaction():
            await connection.execute("INSERT INTO ledger VALUES (1)")
            with pytest.raises(asyncpg.UniqueViolationError):
                async with connection.transaction():  # a savepoint
                    await connection.execute("INSERT INTO ledger VALUES (2)")
                    raise asyncpg.UniqueViolationError("rolled back to the savepoint")
            async with connection.transaction():
                await connection.execute("INSERT INTO ledger VALUES (3)")
            seen.append(connection.is_in_transaction())
        seen.append(await connection.fetch("SELECT a FROM ledger ORDER BY a"))
        for isolation in ("serializable", "repeatable_read", "read_committed",
                          "read_uncommitted"):
            async with connection.transaction(isolation=isolation):
                seen.append(await connection.fetchval("SHOW transaction_isolation"))
        async with connection.transaction(readonly=True):
            seen.append(await connection.fetchval("SHOW transaction_read_only"))
            seen.append(await attempt(connection.execute("INSERT INTO ledger VALUES (4)")))
        transaction = connection.transaction(isolation="serializable", readonly=True,
                                             deferrable=True)
        await transaction.start()
        seen.append(await connection.fetch("SELECT a FROM ledger ORDER BY a"))
        await transaction.rollback()
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute("INSERT INTO ledger VALUES (5)")
        await transaction.rollback()
        seen.append(await connection.fetchval("SELECT count(*) FROM ledger"))
        seen.append(connection.is_in_transaction())
        return seen

    same_on_both(targets, scenario)


def test_listen_notify(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, target: Target) -> Any:
        received: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

        def listener(_: Any, pid: int, channel: str, payload: str) -> None:
            received.put_nowait((channel, payload))

        await connection.add_listener("asyncpg_news", listener)
        other = await target.connect()
        try:
            await other.execute("NOTIFY asyncpg_news, 'from another session'")
            await other.execute("SELECT pg_notify('asyncpg_news', 'by function')")
            async with other.transaction():
                await other.execute("NOTIFY asyncpg_news, 'at commit'")
        finally:
            await other.close()
        await connection.execute("NOTIFY asyncpg_news, 'to itself'")
        heard = [await asyncio.wait_for(received.get(), 10) for _ in range(4)]
        await connection.remove_listener("asyncpg_news", listener)
        await connection.execute("NOTIFY asyncpg_news, 'not heard'")
        await connection.fetchval("SELECT 1")
        return heard, received.qsize(), await connection.fetch(
            "SELECT pg_listening_channels()")

    same_on_both(targets, scenario)


def test_notices_reach_log_listeners(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        messages: list[Any] = []
        connection.add_log_listener(lambda _, message: messages.append(
            (type(message).__name__, message.sqlstate, str(message))))
        await connection.execute("DROP TABLE IF EXISTS never_made")
        await connection.execute("BEGIN; BEGIN; COMMIT")
        return messages

    same_on_both(targets, scenario)


# --- codecs, pools, errors ---------------------------------------------------------------

def test_custom_type_codecs(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        seen: list[Any] = []
        for name in ("json", "jsonb"):
            await connection.set_type_codec(name, encoder=json.dumps, decoder=json.loads,
                                            schema="pg_catalog")
        seen.append(await connection.fetchval("SELECT $1::jsonb", {"a": [1, 2.5, None]}))
        seen.append(await connection.fetchval("SELECT '{\"b\": null}'::json"))
        seen.append(await connection.fetchval("SELECT ARRAY['{\"c\": 1}'::jsonb]"))
        await connection.set_type_codec("numeric", encoder=str, decoder=lambda s: f"<{s}>",
                                         schema="pg_catalog", format="text")
        seen.append(await connection.fetchval("SELECT 1.50::numeric"))
        seen.append(await connection.fetchval("SELECT $1::numeric + 1", "2.5"))
        await connection.set_type_codec("interval", encoder=lambda v: v, decoder=lambda v: v,
                                        schema="pg_catalog", format="tuple")
        seen.append(await connection.fetchval("SELECT '1 mon 2 days 3 sec'::interval"))
        seen.append(await connection.fetchval("SELECT $1::interval::text", (14, 3, 5)))
        await connection.set_type_codec("uuid", encoder=str, decoder=lambda b: b.upper(),
                                        schema="pg_catalog", format="text")
        seen.append(await connection.fetchval("SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"
                                              "::uuid"))
        await connection.reset_type_codec("uuid", schema="pg_catalog")
        seen.append(await connection.fetchval("SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"
                                              "::uuid"))
        await connection.set_builtin_type_codec("oid", schema="pg_catalog", codec_name="int4")
        seen.append(await connection.fetchval("SELECT 7::oid"))
        await connection.reload_schema_state()
        seen.append(await connection.fetchval("SELECT $1::jsonb", '{"d": 1}'))
        return seen

    same_on_both(targets, scenario)


def test_connection_pool(targets: tuple[Target, Target]) -> None:
    """A pool resets each connection it is given back (pg_advisory_unlock_all(),
    CLOSE ALL, UNLISTEN *, RESET ALL)."""

    async def scenario(_: asyncpg.Connection, target: Target) -> Any:
        async with asyncpg.create_pool(host="127.0.0.1", port=target.port, user="postgres",
                                       database=target.database, min_size=2,
                                       max_size=3) as pool:
            doubled = await asyncio.gather(*(pool.fetchval("SELECT $1::int * 2", i)
                                             for i in range(12)))
            async with pool.acquire() as connection:
                await connection.execute("SET TimeZone = 'Asia/Tokyo'; LISTEN pooled")
            shown = []
            for _ in range(3):
                async with pool.acquire() as connection:
                    shown.append((await connection.fetchval("SHOW TimeZone"),
                                  await connection.fetch("SELECT pg_listening_channels()")))
            async with pool.acquire() as connection, connection.transaction():
                await connection.execute("SET LOCAL TimeZone = 'UTC'")
            return doubled, shown

    same_on_both(targets, scenario)


ERRORS = [
    "SELECT 1/0", "SELECT 'x'::int", "SELECT * FROM no_such_table", "SELEC 1",
    "SELECT 2147483647::int4 + 1", "SELECT 'abc'::uuid", "SELECT '{1,2'::int[]",
    "SELECT ''::jsonb", "SELECT no_such_function()", "SELECT 1::pg_catalog.no_such_type",
    "CREATE TABLE keyed (id int PRIMARY KEY, name text UNIQUE, v int CHECK (v > 0), "
    "up int REFERENCES keyed)",
    "INSERT INTO keyed VALUES (1, 'a', 1, NULL)", "INSERT INTO keyed VALUES (1, 'b', 1, NULL)",
    "INSERT INTO keyed VALUES (2, 'a', 1, NULL)", "INSERT INTO keyed VALUES (3, 'c', -1, NULL)",
    "INSERT INTO keyed VALUES (4, 'd', 1, 99)", "INSERT INTO keyed (name) VALUES ('e')",
    "INSERT INTO keyed VALUES (6, 'f', 1, 1)", "DELETE FROM keyed WHERE id = 1",
    "UPDATE keyed SET v = 0 WHERE id = 6", "UPDATE keyed SET name = NULL, id = NULL",
    "CREATE TABLE keyed (id int)", "INSERT INTO keyed (id, v) VALUES (5, 'x')",
    "BEGIN", "SELECT 1/0", "SELECT 1", "ROLLBACK",
]


def test_errors_raise_the_same_exceptions(targets: tuple[Target, Target]) -> None:
    async def scenario(connection: asyncpg.Connection, _: Target) -> Any:
        await connection.execute("DROP TABLE IF EXISTS keyed")
        seen = [await attempt(connection.execute(sql)) for sql in ERRORS]
        seen.append(await attempt(connection.fetchval("SELECT $1::int", "1")))
        seen.append(await attempt(connection.fetchval("SELECT $1::int", 2**40)))
        return [outcome if isinstance(outcome, str) else (*outcome[:2], *outcome[3:])
                for outcome in seen]

    same_on_both(targets, scenario)

"""Spark DataFrames through the PostgreSQL JDBC driver: every Spark type both
ways, every write mode and every read option, rows compared exactly."""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from tests.fixtures.servers import unique
from tests.fixtures.spark import Jdbc

SCHEMA = StructType([
    StructField("id", IntegerType(), nullable=False),
    StructField("big", LongType()),
    StructField("small", ShortType()),
    StructField("tiny", ByteType()),
    StructField("dbl", DoubleType()),
    StructField("real", FloatType()),
    StructField("amount", DecimalType(10, 2)),
    StructField("wide", DecimalType(38, 10)),
    StructField("name", StringType()),
    StructField("flag", BooleanType()),
    StructField("day", DateType()),
    StructField("ts", TimestampType()),
    StructField("local_ts", TimestampNTZType()),
    StructField("payload", BinaryType()),
    StructField("ints", ArrayType(IntegerType())),
    StructField("words", ArrayType(StringType())),
])

ROWS: list[tuple[Any, ...]] = [
    (1, 10_000_000_000, 7, 2, 1.5, 1.25, Decimal("123.45"), Decimal("12345.6789000000"),
     "it's \"q\" ü", True, datetime.date(2024, 1, 2),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), datetime.datetime(2024, 5, 6, 7, 8, 9, 10),
     b"\x00\x01\xff", [1, 2, None], ["a", "b c", None]),
    (2, -5, -32768, -128, float("nan"), float("-inf"), Decimal("-0.01"),
     Decimal("-1234567890.1234500000"), "", False,
     datetime.date(1970, 1, 1), datetime.datetime(1999, 12, 31, 23, 59, 59),
     datetime.datetime(2000, 1, 1), b"", [], ["", "{x}", "quote\"back\\slash"]),
    (3, 9_223_372_036_854_775_807, 32767, 127, -1e300, 3.4028234663852886e38,
     Decimal("99999999.99"), Decimal("0E-10"), "line\nbreak\ttab", None,
     datetime.date(9999, 12, 31), datetime.datetime(2262, 4, 11, 23, 47, 16, 854775), None,
     bytes(range(256)), [-2147483648], ["ü", "日本"]),
    (4, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
     None),
]


def comparable(rows: list[Row] | list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows sorted by id with NaN made equal to itself."""
    def value(item: Any) -> Any:
        if isinstance(item, float) and math.isnan(item):
            return "NaN"
        if isinstance(item, bytearray):
            return bytes(item)
        return item
    return sorted((tuple(value(v) for v in row) for row in rows), key=lambda r: r[0])


def frame(spark: SparkSession, partitions: int = 2) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA).repartition(partitions)


def read_table(jdbc: Jdbc, spark: SparkSession, table: str, **options: object) -> DataFrame:
    return jdbc.read(spark, dbtable=table, **options).load()


def test_every_type_round_trips_and_keeps_its_spark_type(spark: SparkSession, jdbc: Jdbc) -> None:
    table = unique("t_types")
    jdbc.write(frame(spark), table, "errorifexists")
    back = read_table(jdbc, spark, table)
    assert comparable(back.collect()) == comparable(ROWS)
    expected = {f.name: f.dataType for f in SCHEMA.fields}
    # Spark stores byte and short alike as SMALLINT, and reads NTZ back as a timestamp
    expected["tiny"] = ShortType()
    expected["local_ts"] = TimestampType()
    assert {f.name: f.dataType for f in back.schema.fields} == expected
    with psycopg.connect(jdbc.server.dsn) as conn:
        types = dict(conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = %s", [table]).fetchall())
        # Spark declares non-nullable columns NOT NULL (it reads every column
        # back as nullable, from PostgreSQL too)
        not_null = conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = %s AND is_nullable = 'NO'", [table]).fetchall()
    assert not_null == [("id",)]
    assert types["ts"] == "timestamp with time zone"
    assert types["local_ts"] == "timestamp without time zone"
    assert types["amount"] == "numeric" and types["dbl"] == "double precision"
    assert types["ints"] == "ARRAY"


def test_wide_decimals_round_trip_digit_for_digit(spark: SparkSession, jdbc: Jdbc) -> None:
    """decimal(38,10) and decimal(38,18), every digit used, both signs: sqlext
    stores them exactly (they are wider than the scaled integers of
    numeric(p<=18,s)) and gives Spark back the same values."""
    schema = StructType([StructField("id", IntegerType(), nullable=False),
                         StructField("d10", DecimalType(38, 10)),
                         StructField("d18", DecimalType(38, 18))])
    rows = [(1, Decimal("1234567890123456789012345678.0123456789"),
             Decimal("12345678901234567890.123456789012345678")),
            (2, Decimal("-9999999999999999999999999999.9999999999"),
             Decimal("-0.000000000000000001")),
            (3, Decimal("0E-10"), None)]
    table = unique("t_wide")
    jdbc.write(spark.createDataFrame(rows, schema).repartition(2), table, "errorifexists")
    back = read_table(jdbc, spark, table)
    assert sorted(tuple(r) for r in back.collect()) == rows
    assert [f.dataType for f in back.schema.fields][1:] == [DecimalType(38, 10),
                                                           DecimalType(38, 18)]
    with psycopg.connect(jdbc.server.dsn) as conn:
        assert conn.execute(f"SELECT sum(d10)::text, sum(d18)::text FROM {table}").fetchone() == (
            "-8765432109876543210987654321.9876543210", "12345678901234567890.123456789012345677")


def test_write_modes(spark: SparkSession, jdbc: Jdbc) -> None:
    table = unique("t_modes")
    rows = comparable(ROWS)
    jdbc.write(frame(spark), table, "errorifexists")
    with pytest.raises(AnalysisException, match="already exists"):
        jdbc.write(frame(spark), table, "errorifexists")
    jdbc.write(frame(spark), table, "append", batchsize=2)
    assert comparable(read_table(jdbc, spark, table).collect()) == sorted(
        rows + rows, key=lambda r: r[0])
    jdbc.write(frame(spark), table, "overwrite")
    assert comparable(read_table(jdbc, spark, table).collect()) == rows
    jdbc.write(frame(spark).where("id <= 2"), table, "ignore")
    assert comparable(read_table(jdbc, spark, table).collect()) == rows
    absent = unique("t_ignored")
    jdbc.write(frame(spark), absent, "ignore")
    assert comparable(read_table(jdbc, spark, absent).collect()) == rows


def test_overwrite_with_truncate_keeps_the_declared_types(spark: SparkSession,
                                                          jdbc: Jdbc) -> None:
    table = unique("t_declared")
    jdbc.write(frame(spark), table, "overwrite",
               createTableColumnTypes="name VARCHAR(40), amount NUMERIC(12, 3)")
    jdbc.write(frame(spark).where("id > 1"), table, "overwrite", truncate="true")
    with psycopg.connect(jdbc.server.dsn) as conn:
        declared = dict(conn.execute(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = %s AND a.attnum > 0",
            [table]).fetchall())
    assert declared["name"] == "character varying(40)"
    assert declared["amount"] == "numeric(12,3)"
    back = read_table(jdbc, spark, table)
    assert comparable(back.collect()) == [
        r for r in comparable(ROWS) if r[0] > 1]
    assert dict((f.name, f.dataType) for f in back.schema.fields)["amount"] == DecimalType(12, 3)


@pytest.fixture(scope="module")
def loaded(spark: SparkSession, jdbc: Jdbc) -> str:
    table = unique("t_read")
    jdbc.write(frame(spark), table, "errorifexists")
    return table


def test_read_by_query(spark: SparkSession, jdbc: Jdbc, loaded: str) -> None:
    back = jdbc.read(spark, query=f"SELECT id, name, amount FROM {loaded} WHERE id > 1").load()
    assert sorted(back.collect()) == sorted(
        (r[0], r[8], r[6]) for r in ROWS if r[0] > 1)


def test_partitioned_read(spark: SparkSession, jdbc: Jdbc, loaded: str) -> None:
    back = read_table(jdbc, spark, loaded, partitionColumn="id", lowerBound=1,
                      upperBound=5, numPartitions=3)
    assert back.rdd.getNumPartitions() == 3
    assert comparable(back.collect()) == comparable(ROWS)


def test_read_with_predicates(spark: SparkSession, jdbc: Jdbc, loaded: str) -> None:
    back = spark.read.jdbc(jdbc.url, loaded, predicates=["id < 3", "id >= 3 OR id IS NULL"],
                           properties=jdbc.properties)
    assert back.rdd.getNumPartitions() == 2
    assert comparable(back.collect()) == comparable(ROWS)


@pytest.mark.parametrize("pushdown", ["true", "false"])
def test_filters_with_and_without_pushdown(spark: SparkSession, jdbc: Jdbc, loaded: str,
                                           pushdown: str) -> None:
    back = read_table(jdbc, spark, loaded, pushDownPredicate=pushdown).where(
        (F.col("ts") >= F.lit(datetime.datetime(2000, 1, 1))) & (F.col("amount") > -1)
        & F.col("name").like("%q%") & F.col("flag").isin(True, False)
        & (F.col("day") < F.lit(datetime.date(2025, 1, 1))))
    assert [r.id for r in back.collect()] == [1]


def test_small_fetch_size_reads_everything(spark: SparkSession, jdbc: Jdbc) -> None:
    table = unique("t_many")
    many = spark.range(0, 2500, numPartitions=2).select(
        F.col("id").cast("int").alias("id"), (F.col("id") * 2).alias("twice"))
    jdbc.write(many, table, "errorifexists")
    for size in (2, 1000):
        back = read_table(jdbc, spark, table, fetchsize=size)
        assert back.count() == 2500
        assert back.agg(F.sum("twice")).first()[0] == sum(range(2500)) * 2


def test_postgresql_types_read_as_spark_types(spark: SparkSession, jdbc: Jdbc) -> None:
    table = unique("t_pg")
    with psycopg.connect(jdbc.server.dsn, autocommit=True) as conn:
        conn.execute(f"""CREATE TABLE {table} (
            t time, n numeric, v varchar(20), c char(3), u uuid, j json, jb jsonb,
            i interval, r real, s smallint)""")
        conn.execute(f"""INSERT INTO {table} VALUES ('13:14:15', 3.14159265358979,
            'varchar', 'ab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{{"a": 1}}',
            '{{"b": [1, 2]}}', '1 day 02:03:04', 1.25, 1)""")
    back = read_table(jdbc, spark, table)
    types = {f.name: f.dataType.simpleString() for f in back.schema.fields}
    assert types == {"t": "timestamp", "n": "decimal(38,18)", "v": "string", "c": "string",
                     "u": "string", "j": "string", "jb": "string", "i": "string",
                     "r": "float", "s": "smallint"}
    row = back.first()
    assert row.t == datetime.datetime(1970, 1, 1, 13, 14, 15)
    assert row.n == Decimal("3.14159265358979")
    assert (row.v, row.c, row.u) == ("varchar", "ab ", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
    assert (row.j, row.jb, row.i, row.r, row.s) == (
        '{"a": 1}', '{"b": [1, 2]}', "1 day 02:03:04", 1.25, 1)


def test_errors_reach_spark_with_their_sqlstate(spark: SparkSession, jdbc: Jdbc) -> None:
    with pytest.raises(Exception, match="relation \"no_such_table\" does not exist"):
        read_table(jdbc, spark, "no_such_table").collect()
    with pytest.raises(Exception, match="syntax error"):
        jdbc.read(spark, query="SELEC 1").load()

"""pandas over SQLAlchemy, with both PostgreSQL dialects (psycopg 3 and
psycopg2), against sqlext and PostgreSQL 15: the same DataFrames written
with ``to_sql`` must read back (``read_sql``) as equal DataFrames, dtypes
included, and make tables with the same column types."""

from __future__ import annotations

import csv
import datetime
import io
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa
from pandas.testing import assert_frame_equal

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.servers import ServerProcess

DRIVERS = ("psycopg", "psycopg2")

FRAME = pd.DataFrame({
    "i": [1, 2, 3],
    "f": [1.5, np.nan, -0.25],
    "s": ["a", None, "c'q \u00e9"],
    "b": [True, False, True],
    "ts": pd.to_datetime(["2024-01-01 10:00", "2024-02-29 00:00:00.5", None], format="ISO8601"),
    "tz": pd.to_datetime(["2024-01-01 10:00Z", "2024-02-29 01:02:03.25Z", "1999-12-31 23:59Z"],
                         format="ISO8601"),
    "ni": pd.array([1, None, 3], dtype="Int64"),
    "big": [2**40, -1, 0],
    "d": [datetime.date(2024, 1, 1), datetime.date(2024, 1, 2), None],
})

COLUMN_TYPES = ("SELECT table_name, column_name, data_type, character_maximum_length, "
                "numeric_precision, numeric_scale, is_nullable FROM information_schema.columns "
                "WHERE table_schema = %(schema)s ORDER BY table_name, ordinal_position")


class Target:
    """One server through one SQLAlchemy dialect, writing in a schema of its own."""

    def __init__(self, driver: str, host: str, port: int, database: str, schema: str) -> None:
        self.engine = sa.create_engine(f"postgresql+{driver}://postgres@{host}:{port}/{database}")
        self.schema = schema

    def read(self, sql: str, **kwargs: Any) -> pd.DataFrame:
        return pd.read_sql(sql.format(schema=self.schema), self.engine, **kwargs)


@pytest.fixture(scope="module", params=DRIVERS)
def targets(request: pytest.FixtureRequest, server: ServerProcess,
            postgres: PostgresPeer) -> Iterator[tuple[Target, Target]]:
    """(sqlext, PostgreSQL) through the dialect of the driver ``request.param``."""
    schema = f"pandas_{request.param}_{uuid.uuid4().hex[:8]}"
    both = (Target(request.param, server.host, server.port, "sqlext", schema),
            Target(request.param, "127.0.0.1", postgres.port, "postgres", schema))
    for target in both:
        with target.engine.begin() as connection:
            connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
    yield both
    for target in both:
        with target.engine.begin() as connection:
            connection.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        target.engine.dispose()


def same_frames(targets: tuple[Target, Target], sql: str, **kwargs: Any) -> pd.DataFrame:
    """``read_sql`` of ``sql`` from sqlext, once equal to PostgreSQL's."""
    ours, theirs = (target.read(sql, **kwargs) for target in targets)
    assert_frame_equal(ours, theirs)
    return ours


def test_to_sql_writes_what_read_sql_reads(targets: tuple[Target, Target]) -> None:
    for target in targets:
        assert FRAME.to_sql("plain", target.engine, schema=target.schema, index=False) == (
            -1 if target.engine.dialect.driver == "psycopg" else 3)
        with pytest.raises(ValueError, match="already exists"):
            FRAME.to_sql("plain", target.engine, schema=target.schema, index=False)
        FRAME.to_sql("plain", target.engine, schema=target.schema, index=False,
                     if_exists="append", chunksize=2)
        FRAME.to_sql("plain", target.engine, schema=target.schema, index=False,
                     if_exists="append", method="multi")
    read = same_frames(targets, "SELECT * FROM {schema}.plain ORDER BY i, ts NULLS LAST")
    assert len(read) == 9
    assert_frame_equal(read.iloc[::3].reset_index(drop=True).drop(columns="d"),
                       FRAME.drop(columns="d"), check_dtype=False)


def test_index_and_dtype_mapping(targets: tuple[Target, Target]) -> None:
    indexed = FRAME.set_index(pd.Index([10, 20, 30], name="key"))
    dtypes = {"i": sa.SmallInteger(), "s": sa.String(10), "f": sa.Numeric(10, 3),
              "d": sa.Date(), "ts": sa.DateTime(), "tz": sa.DateTime(timezone=True)}
    for target in targets:
        indexed.to_sql("indexed", target.engine, schema=target.schema)
        FRAME.to_sql("mapped", target.engine, schema=target.schema, index=True,
                     index_label="row_number", dtype=dtypes)
    same_frames(targets, "SELECT * FROM {schema}.indexed ORDER BY key", index_col="key")
    same_frames(targets, "SELECT * FROM {schema}.mapped ORDER BY row_number",
                index_col="row_number", parse_dates=["d"])
    types = [pd.read_sql(sa.text(COLUMN_TYPES.replace("%(schema)s", ":schema")),
                         target.engine, params={"schema": target.schema})
             for target in targets]
    assert_frame_equal(*types)


def copy_rows(table: Any, connection: Any, keys: list[str], rows: Iterator[tuple[Any, ...]],
              ) -> int:
    """A to_sql ``method`` that loads the rows with COPY FROM STDIN (CSV), as
    pandas' documentation shows, with either driver's COPY interface."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    name = f"{table.schema}.{table.name}" if table.schema else table.name
    sql = f"COPY {name} ({', '.join(keys)}) FROM STDIN WITH (FORMAT csv)"
    driver = connection.connection.dbapi_connection
    with driver.cursor() as cursor:
        if hasattr(cursor, "copy_expert"):  # psycopg2
            cursor.copy_expert(sql, io.StringIO(buffer.getvalue()))
        else:
            with cursor.copy(sql) as copy:
                copy.write(buffer.getvalue())
        count: int = cursor.rowcount
    return count


def test_to_sql_by_copy(targets: tuple[Target, Target]) -> None:
    for target in targets:
        assert FRAME.to_sql("copied", target.engine, schema=target.schema, index=False,
                            method=copy_rows) == 3
    same_frames(targets, "SELECT * FROM {schema}.copied ORDER BY i")


def test_read_sql_forms(targets: tuple[Target, Target]) -> None:
    for target in targets:
        FRAME.to_sql("forms", target.engine, schema=target.schema, index=False)
    query = "SELECT * FROM {schema}.forms ORDER BY i"
    same_frames(targets, "SELECT i, s, f FROM {schema}.forms WHERE i > %(low)s ORDER BY i",
                params={"low": 1})
    same_frames(targets, query, dtype_backend="numpy_nullable")
    same_frames(targets, query, dtype_backend="pyarrow")
    same_frames(targets, query, dtype={"i": "float32", "s": "string"}, coerce_float=False)
    same_frames(targets, "SELECT count(*) AS n, sum(f) AS total, avg(i) AS mean, "
                "max(tz) AS latest, bool_and(b) AS every FROM {schema}.forms")
    # the other types, as each driver gives them (Decimal, dict, list, UUID...)
    same_frames(targets, "SELECT 1.50::numeric(5, 2) AS n, '{{\"a\": [1, 2]}}'::jsonb AS j, "
                "ARRAY[1, 2] AS a, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, "
                "'12:34:56'::time AS t, '1 day 02:00'::interval AS iv, '\\x00ff'::bytea AS b, "
                "'10.0.0.1'::inet AS ip, 'x'::char(3) AS c, NULL::int AS nothing, "
                "2::smallint AS small, 1.5::real AS r", coerce_float=False)
    ours, theirs = targets
    assert_frame_equal(
        pd.concat(pd.read_sql(query.format(schema=ours.schema), ours.engine, chunksize=2)),
        pd.concat(pd.read_sql(query.format(schema=theirs.schema), theirs.engine,
                              chunksize=2)))
    texts = [pd.read_sql(sa.text(f"SELECT i, d FROM {target.schema}.forms WHERE s = :s"),
                         target.engine, params={"s": "a"}) for target in targets]
    assert_frame_equal(*texts)


def test_read_sql_table_and_to_sql_replace_need_reflection(
        targets: tuple[Target, Target]) -> None:
    """read_sql_table, and to_sql(if_exists="replace") of a table that
    exists, reflect the table with SQLAlchemy's Inspector."""
    for target in targets:
        FRAME.to_sql("reflected", target.engine, schema=target.schema, index=False)
        FRAME.head(2).to_sql("reflected", target.engine, schema=target.schema, index=False,
                             if_exists="replace", dtype={"i": sa.SmallInteger()})
    ours, theirs = (pd.read_sql_table("reflected", target.engine, schema=target.schema)
                    for target in targets)
    assert_frame_equal(ours, theirs)
    assert len(ours) == 2

"""Differential tests of the catalog and session functions client tools call
(SQLAlchemy, asyncpg, pg_dump): each sequence of statements runs on sqlext
and on a real PostgreSQL 15 in one session, and every statement's outcome
(columns, type OIDs, rows as text, or SQLSTATE) must match.

Sequences, not single statements, because set_config() changes the session
and what the following statements see is the point.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.fixtures.differential import outcome, peer_connections
from tests.fixtures.servers import ServerProcess

SETUP = [
    "CREATE TABLE item (id int PRIMARY KEY, label text, parent int REFERENCES item (id))",
    "CREATE SEQUENCE ticket",
    "CREATE VIEW labels AS SELECT label FROM item",
]

Step = tuple[str, tuple[object, ...] | None]

SEQUENCES: dict[str, list[Step]] = {
    "set_config_session": [
        ("SELECT set_config('application_name', 'dump', false)", None),
        ("SHOW application_name", None),
        ("SELECT current_setting('application_name')", None),
        ("SELECT pg_catalog.set_config('search_path', '', false), "
         "current_setting('search_path')", None),
        ("SELECT count(*) FROM item", None),
        ("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'item'", None),
    ],
    "set_config_local": [
        ("SELECT set_config('application_name', 'outside', true), "
         "current_setting('application_name')", None),
        ("SHOW application_name", None),
        ("BEGIN", None),
        ("SELECT set_config('application_name', 'inside', true)", None),
        ("SHOW application_name", None),
        ("COMMIT", None),
        ("SHOW application_name", None),
        ("BEGIN", None),
        ("SELECT set_config('application_name', 'kept', false)", None),
        ("ROLLBACK", None),
        ("SHOW application_name", None),
    ],
    "set_config_reset_and_errors": [
        ("SELECT set_config('work_mem', '64MB', false)", None),
        ("SELECT set_config('work_mem', NULL, false)", None),
        ("SELECT set_config('myapp.tenant', 'acme', false), current_setting('myapp.tenant')",
         None),
        ("SELECT set_config('no_such_parameter', '1', false)", None),
        ("SELECT set_config('server_version', '1', false)", None),
        ("SELECT set_config('timezone', 'UTC', false), "
         "'2024-01-01 00:00:00+00'::timestamptz::text", None),
    ],
    "table_referencing_itself": [
        ("CREATE TABLE node (id int, up int REFERENCES node, PRIMARY KEY (id))", None),
        ("INSERT INTO node VALUES (1, NULL), (2, 1)", None),
        ("INSERT INTO node VALUES (3, 9)", None),
        ("DELETE FROM node WHERE id = 1", None),
        ("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
         "WHERE conrelid = 'node'::regclass ORDER BY 1", None),
        ("CREATE TABLE keyless (id int, up int REFERENCES keyless)", None),
        ("DROP TABLE node", None),
    ],
    "regclass_at_run_time": [
        ("SELECT %s::regclass", ("item",)),
        ("SELECT %s::regclass::oid = 'item'::regclass::oid", ("item",)),
        ("SELECT %s::regclass", ("ticket",)),
        ("SELECT %s::regclass", ("no_such_table",)),
        ("SELECT %s::regclass", ("a.b.c.d",)),
        ("SELECT count(*) FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0",
         ("item",)),
        ("SELECT relname::regclass FROM pg_class WHERE relname IN ('item', 'labels') "
         "ORDER BY 1", None),
        ("SELECT ('ite' || 'm')::regclass, ('pg_catalog.' || 'pg_class')::regclass", None),
        ("SELECT %s::regtype, %s::regtype::oid", ("integer[]", "text")),
        ("SELECT %s::regtype", ("no_such_type",)),
        ("SELECT %s::regnamespace", ("pg_catalog",)),
        ("SELECT %s::regnamespace", ("no_such_schema",)),
        ("SELECT 'no_such_table'::regclass", None),
        ("SELECT 'x'::oid", None),
        ("SELECT '42'::oid, '42'::regclass::oid", None),
    ],
}


Peers = tuple[psycopg.Connection, psycopg.Connection, str]


@pytest.fixture(scope="module")
def peers(server: ServerProcess) -> Iterator[Peers]:
    """(PostgreSQL, sqlext, the schema both hold the tables in)."""
    with peer_connections(server, SETUP, "catalog_functions") as (reference, ours):
        row = reference.execute("SELECT current_schema()").fetchone()
        assert row is not None
        yield reference, ours, row[0]


@pytest.mark.parametrize("name", SEQUENCES)
def test_same_as_postgres(peers: Peers, name: str) -> None:
    reference, ours, schema = peers
    for connection in (reference, ours):
        connection.execute("RESET ALL")
        connection.execute(f"SET search_path TO {schema}")
    for sql, params in SEQUENCES[name]:
        expected = outcome(reference, sql, params)
        assert outcome(ours, sql, params) == expected, sql

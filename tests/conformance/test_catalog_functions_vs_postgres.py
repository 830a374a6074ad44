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
        ("CREATE TABLE loose (id int, up int REFERENCES loose (id))", None),
        ("CREATE TABLE pair (a int, b int, UNIQUE (b, a), c int REFERENCES node (up))", None),
        ("CREATE TABLE by_pair (x int, y int, FOREIGN KEY (x, y) REFERENCES pair (a, b))",
         None),
        ("CREATE UNIQUE INDEX node_up ON node (up)", None),
        ("CREATE TABLE by_index (u int REFERENCES node (up))", None),
        ("DROP TABLE by_index, by_pair", None),
        ("DROP TABLE node CASCADE", None),
    ],
    "sequence_made_again": [
        ("CREATE SEQUENCE again", None),
        ("SELECT nextval('again'), nextval('again')", None),
        ("DROP SEQUENCE again", None),
        ("CREATE SEQUENCE again", None),
        ("SELECT nextval('again')", None),
        ("CREATE TABLE counted (id serial, v int)", None),
        ("INSERT INTO counted (v) VALUES (1), (2) RETURNING id", None),
        ("DROP TABLE counted", None),
        ("CREATE TABLE counted (id serial, v int)", None),
        ("INSERT INTO counted (v) VALUES (1) RETURNING id", None),
        ("BEGIN", None),
        ("DROP SEQUENCE again", None),
        ("ROLLBACK", None),
        ("SELECT nextval('again')", None),
        ("DROP TABLE counted", None),
        ("DROP SEQUENCE again", None),
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
    "generate_subscripts": [
        ("SELECT generate_subscripts(ARRAY[10, 20, 30], 1)", None),
        ("SELECT generate_subscripts(ARRAY['a', 'b'], 1, true) AS s", None),
        ("SELECT * FROM generate_subscripts(ARRAY[5, 6], 1) AS g(i)", None),
        ("SELECT generate_subscripts(ARRAY[1], 2)", None),
        ("SELECT generate_subscripts('{}'::int[], 1)", None),
        ("SELECT generate_subscripts(ARRAY[1, 2], 1, NULL)", None),
        ("SELECT generate_subscripts(1, 1)", None),
        ("SELECT i.indrelid::regclass, unnest(i.indkey) AS attnum, "
         "generate_subscripts(i.indkey, 1) AS ord FROM pg_index i "
         "WHERE i.indrelid = 'item'::regclass", None),
        ("CREATE TABLE pair (a int, b int, PRIMARY KEY (b, a))", None),
        ("SELECT generate_subscripts(indkey, 1, true), generate_subscripts(indkey, 1) "
         "FROM pg_index WHERE indrelid = 'pair'::regclass", None),
        ("DROP TABLE pair", None),
    ],
    "collation_visibility": [
        ("SELECT collname, pg_collation_is_visible(oid) FROM pg_collation "
         "WHERE collname IN ('default', 'C') ORDER BY 1", None),
        ("SELECT pg_collation_is_visible(0), pg_collation_is_visible(NULL)", None),
        ("SELECT format_type(1042, -1), format_type(1042, NULL), format_type(1014, -1)", None),
    ],
    "identity_columns": [
        ("CREATE TABLE ident (a int GENERATED ALWAYS AS IDENTITY, "
         "b bigint GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY 5), c text)",
         None),
        ("INSERT INTO ident (c) VALUES ('x') RETURNING a, b", None),
        ("INSERT INTO ident (a, c) VALUES (7, 'y')", None),
        ("INSERT INTO ident (a, c) VALUES (DEFAULT, 'y') RETURNING a, b", None),
        ("UPDATE ident SET a = 3", None),
        ("SELECT attname, attidentity, atthasdef FROM pg_attribute "
         "WHERE attrelid = 'ident'::regclass AND attnum > 0 ORDER BY attnum", None),
        ("SELECT count(*) FROM pg_attrdef WHERE adrelid = 'ident'::regclass", None),
        ("SELECT seqstart, seqincrement, seqcycle FROM pg_sequence "
         "WHERE seqrelid = pg_get_serial_sequence('ident', 'b')::regclass", None),
        ("DROP TABLE ident", None),
    ],
    "defaults_as_postgres_prints_them": [
        ("CREATE TABLE shown (a int DEFAULT -1, b bigint DEFAULT 5000000000, "
         "c numeric(10,2) DEFAULT 0, d numeric DEFAULT 1.5, e float8 DEFAULT 1e3, "
         "f varchar(10) DEFAULT 'y', g char(3) DEFAULT 'z', h boolean DEFAULT 'false', "
         "i timestamp DEFAULT '2020-01-01', j date DEFAULT current_date, "
         "k int DEFAULT (1 + 1), l text DEFAULT 'it''s', m int[] DEFAULT '{1,2}', "
         "n text DEFAULT NULL, o serial)", None),
        ("SELECT attname, pg_get_expr(adbin, adrelid) FROM pg_attrdef "
         "JOIN pg_attribute ON attrelid = adrelid AND attnum = adnum "
         "WHERE adrelid = 'shown'::regclass ORDER BY adnum", None),
        ("SELECT column_name, column_default FROM information_schema.columns "
         "WHERE table_name = 'shown' AND column_name IN ('a', 'h') ORDER BY 1", None),
        ("DROP TABLE shown", None),
    ],
    "relation_names_as_the_search_path_finds_them": [
        ("CREATE SCHEMA elsewhere", None),
        ("CREATE TABLE elsewhere.far (id serial PRIMARY KEY)", None),
        ("CREATE TABLE near (far_id int REFERENCES elsewhere.far ON DELETE CASCADE)", None),
        ("SELECT 'elsewhere.far'::regclass, 'item'::regclass::text", None),
        ("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef "
         "WHERE adrelid = 'elsewhere.far'::regclass", None),
        ("SELECT pg_get_constraintdef(oid) FROM pg_constraint "
         "WHERE conrelid = 'near'::regclass", None),
        ("INSERT INTO elsewhere.far DEFAULT VALUES RETURNING id", None),
        ("SELECT pg_get_serial_sequence('elsewhere.far', 'id')", None),
        ("DROP SCHEMA elsewhere CASCADE", None),
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

"""Differential tests of roles and privileges: each script runs step by step
on sqlext and on PostgreSQL 15, in sessions of several roles at once; every
step's outcome (command tag, rows as text, SQLSTATE) and the warnings and
notices it gives must be the same on both.

A step is ``"who: SQL"``: ``admin`` is the superuser, ``alice``, ``bob`` and
``carol`` log in; ``team`` does not. Names in braces (``{alice}``,
``{schema}``) are the script's own roles and schema, made anew on both sides
(every role's session looks for names in ``{schema}`` first).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.differential import outcome
from tests.fixtures.servers import ServerProcess, start_server

LOGINS = ("alice", "bob", "carol")

SCRIPTS: dict[str, list[str]] = {
    "schema usage and create": [
        "admin: CREATE TABLE t (a int, b int)",
        "alice: SELECT * FROM {schema}.t",
        "alice: SELECT * FROM {schema}.nosuch",
        "alice: SELECT * FROM t",
        "alice: SELECT current_schema()",
        "admin: GRANT USAGE ON SCHEMA {schema} TO {alice}",
        "alice: SELECT current_schema()",
        "alice: SELECT * FROM t",
        "alice: SELECT * FROM {schema}.nosuch",
        "alice: CREATE TABLE mine (x int)",
        "admin: GRANT CREATE ON SCHEMA {schema} TO {alice}",
        "alice: CREATE TABLE mine (x int)",
        "alice: INSERT INTO mine VALUES (1)",
        "admin: SELECT nspacl::text FROM pg_namespace WHERE nspname = '{schema}'",
        "admin: REVOKE USAGE ON SCHEMA {schema} FROM {alice}",
        "alice: CREATE TABLE {schema}.mine2 (x int)",
        "alice: INSERT INTO {schema}.mine VALUES (2)",
        "alice: DROP TABLE {schema}.mine",
        "alice: CREATE TABLE mine3 (x int)",
        "alice: GRANT SELECT ON {schema}.nosuch TO {bob}",
        "alice: CREATE INDEX ON {schema}.nosuch (x)",
        "alice: CREATE INDEX ON {schema}.mine (x)",
        "alice: TRUNCATE {schema}.nosuch",
        "alice: ALTER TABLE {schema}.mine ADD COLUMN y int",
        "alice: CALL {schema}.nosuch()",
        "alice: REFRESH MATERIALIZED VIEW {schema}.nosuch",
        "alice: CREATE VIEW {schema}.peek AS SELECT * FROM {schema}.t",
        "alice: CREATE VIEW {schema}.constant AS SELECT 1 AS one",
        "alice: CREATE TABLE public.elsewhere (x int)",
        "admin: GRANT ALL ON SCHEMA {schema} TO {bob} WITH GRANT OPTION",
        "bob: GRANT USAGE ON SCHEMA {schema} TO {carol}",
        "carol: GRANT USAGE ON SCHEMA {schema} TO {alice}",
        "carol: SELECT count(*) FROM pg_class WHERE relname = 't'",
        "admin: SELECT nspacl::text FROM pg_namespace WHERE nspname = '{schema}'",
        "admin: REVOKE ALL ON SCHEMA {schema} FROM {bob}",
        "admin: REVOKE ALL ON SCHEMA {schema} FROM {bob} CASCADE",
        "admin: SELECT nspacl::text FROM pg_namespace WHERE nspname = '{schema}'",
        "admin: GRANT SELECT ON SCHEMA {schema} TO {alice}",
        "admin: GRANT USAGE ON SCHEMA nosuch TO {alice}",
        "admin: GRANT USAGE ON TABLE t TO {alice}",
        "admin: SELECT nspname, nspacl::text FROM pg_namespace "
        "WHERE nspname IN ('public', 'pg_catalog', 'information_schema') ORDER BY 1",
    ],
    "column privileges": [
        "admin: CREATE TABLE ct (k int PRIMARY KEY, a int, b int, c int)",
        "admin: INSERT INTO ct VALUES (1, 1, 2, 3)",
        "admin: GRANT USAGE ON SCHEMA {schema} TO {alice}, {bob}",
        "admin: GRANT SELECT (k, a, b), INSERT (k, a), UPDATE (b), REFERENCES (a) ON ct "
        "TO {alice}",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'ct'",
        "admin: SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = "
        "(SELECT oid FROM pg_class WHERE relname = 'ct') AND attnum > 0 ORDER BY attnum",
        "alice: SELECT a FROM ct",
        "alice: SELECT a, b FROM ct WHERE b = 2 ORDER BY a",
        "alice: SELECT * FROM ct",
        "alice: SELECT c FROM ct",
        "alice: SELECT count(*) FROM ct",
        "alice: SELECT a FROM ct WHERE c = 3",
        "alice: SELECT a FROM ct ORDER BY c",
        "alice: SELECT x.a FROM ct AS x(kk, a)",
        "alice: SELECT s.a FROM (SELECT a FROM ct) AS s",
        "alice: SELECT 1 FROM ct JOIN ct AS other USING (a)",
        "alice: SELECT 1 FROM ct JOIN ct AS other USING (c)",
        "alice: SELECT tableoid > 0 FROM ct",
        "alice: INSERT INTO ct (k, a) VALUES (2, 5)",
        "alice: INSERT INTO ct VALUES (3)",
        "alice: INSERT INTO ct (k, a, b) VALUES (4, 5, 6)",
        "alice: INSERT INTO ct (k, a) VALUES (5, 5) RETURNING a",
        "alice: INSERT INTO ct (k, a) VALUES (6, 5) RETURNING c",
        "alice: INSERT INTO ct (k, a) VALUES (7, 5) RETURNING *",
        "alice: INSERT INTO ct (k, a) SELECT 8, 9",
        "alice: UPDATE ct SET b = 7",
        "alice: UPDATE ct SET b = a + 1 WHERE k = 1",
        "alice: UPDATE ct SET b = c",
        "alice: UPDATE ct SET b = 7 WHERE c = 3",
        "alice: UPDATE ct SET a = 7",
        "alice: UPDATE ct SET b = 8 WHERE k = 2 RETURNING k, b",
        "alice: DELETE FROM ct WHERE k = 1",
        "alice: INSERT INTO ct (k, a) VALUES (1, 2) ON CONFLICT DO NOTHING",
        "alice: INSERT INTO ct (k, a) VALUES (1, 2) ON CONFLICT (k) DO NOTHING",
        "alice: INSERT INTO ct (k, a) VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET b = 9",
        "alice: INSERT INTO ct (k, a) VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET b = excluded.a",
        "alice: INSERT INTO ct (k, a) VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET b = excluded.c",
        "alice: INSERT INTO ct (k, a) VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET a = 1",
        "admin: SELECT k, a, b, c FROM ct ORDER BY k",
        "admin: GRANT DELETE (a) ON ct TO {bob}",
        "admin: GRANT SELECT (nosuch) ON ct TO {bob}",
        "admin: GRANT SELECT (a) ON SCHEMA {schema} TO {bob}",
        "admin: GRANT ALL (c) ON ct TO {bob}",
        "admin: GRANT SELECT ON ct TO {carol}",
        "admin: SELECT grantor, grantee, column_name, privilege_type, is_grantable "
        "FROM information_schema.column_privileges WHERE table_name = 'ct' ORDER BY 2, 3, 4",
        "admin: SELECT grantor, grantee, privilege_type, is_grantable, with_hierarchy "
        "FROM information_schema.table_privileges WHERE table_name = 'ct' ORDER BY 2, 3",
        "alice: SELECT grantee, column_name, privilege_type FROM "
        "information_schema.column_privileges WHERE table_name = 'ct' ORDER BY 1, 2, 3",
        "bob: SELECT grantee, privilege_type FROM information_schema.table_privileges "
        "WHERE table_name = 'ct' ORDER BY 1, 2",
        "admin: REVOKE SELECT ON ct FROM {alice}",
        "admin: REVOKE ALL ON ct FROM {bob}",
        "admin: SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = "
        "(SELECT oid FROM pg_class WHERE relname = 'ct') AND attnum > 0 ORDER BY attnum",
        "alice: SELECT a FROM ct",
        "admin: CREATE TABLE parent (id int PRIMARY KEY, other int UNIQUE)",
        "admin: GRANT CREATE ON SCHEMA {schema} TO {bob}",
        "bob: CREATE TABLE child (pid int REFERENCES parent (id))",
        "admin: GRANT REFERENCES (other) ON parent TO {bob}",
        "bob: CREATE TABLE child (pid int REFERENCES parent (id))",
        "bob: CREATE TABLE child (pid int REFERENCES parent (other))",
        "bob: CREATE TABLE child2 (pid int REFERENCES parent)",
        "admin: GRANT REFERENCES ON parent TO {bob}",
        "bob: CREATE TABLE child2 (pid int REFERENCES parent)",
        "admin: CREATE VIEW cv AS SELECT k, a FROM ct",
        "admin: GRANT SELECT (a) ON cv TO {carol}",
        "carol: SELECT a FROM cv ORDER BY a",
        "admin: REVOKE SELECT ON ct FROM {carol}",
        "carol: SELECT a FROM cv ORDER BY a",
        "carol: SELECT k FROM cv",
    ],
    "grant options": [
        "admin: CREATE TABLE g (a int, b int)",
        "admin: GRANT USAGE ON SCHEMA {schema} TO {alice}, {bob}, {carol}",
        "admin: GRANT SELECT, INSERT ON g TO {alice} WITH GRANT OPTION",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "alice: GRANT SELECT ON g TO {bob}",
        "alice: GRANT SELECT, UPDATE ON g TO {carol}",
        "alice: GRANT UPDATE ON g TO {carol}",
        "alice: GRANT ALL ON g TO {carol}",
        "alice: GRANT SELECT ON g TO PUBLIC WITH GRANT OPTION",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "bob: GRANT SELECT ON g TO {carol}",
        "bob: SELECT * FROM g",
        "carol: INSERT INTO g VALUES (1, 2)",
        "admin: GRANT SELECT ON g TO {bob}",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "admin: REVOKE SELECT ON g FROM {alice}",
        "admin: REVOKE SELECT ON g FROM {alice} RESTRICT",
        "admin: REVOKE GRANT OPTION FOR SELECT ON g FROM {alice}",
        "admin: REVOKE GRANT OPTION FOR SELECT ON g FROM {alice} CASCADE",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "bob: SELECT * FROM g",
        "admin: REVOKE SELECT ON g FROM {bob}",
        "alice: REVOKE INSERT ON g FROM {carol}",
        "alice: REVOKE SELECT ON g FROM {carol}",
        "carol: REVOKE SELECT ON g FROM {carol}",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "admin: REVOKE ALL ON g FROM postgres",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "admin: SELECT count(*) FROM g",
        "admin: GRANT SELECT ON g TO {alice} WITH GRANT OPTION",
        "alice: GRANT SELECT ON g TO {bob} WITH GRANT OPTION",
        "bob: GRANT SELECT ON g TO {alice}",
        "bob: GRANT SELECT ON g TO {carol}, {carol}",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "admin: REVOKE SELECT ON g FROM {alice} CASCADE",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
        "admin: CREATE TABLE h (a int, b int)",
        "admin: GRANT SELECT ON h TO {alice}",
        "alice: GRANT SELECT (a) ON h TO {bob}",
        "bob: GRANT SELECT (a) ON h TO {carol}",
        "admin: GRANT SELECT (a) ON h TO {alice} WITH GRANT OPTION",
        "alice: GRANT SELECT (a), INSERT (a) ON h TO {bob}",
        "admin: SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = "
        "(SELECT oid FROM pg_class WHERE relname = 'h') AND attnum > 0 ORDER BY attnum",
        "admin: REVOKE SELECT (a) ON h FROM {alice}",
        "admin: REVOKE SELECT ON h FROM {alice} CASCADE",
        "admin: SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = "
        "(SELECT oid FROM pg_class WHERE relname = 'h') AND attnum > 0 ORDER BY attnum",
        "admin: CREATE VIEW hv AS SELECT a FROM h",
        "admin: GRANT SELECT ON hv TO {alice} WITH GRANT OPTION",
        "alice: REVOKE INSERT ON hv FROM {bob}",
        "admin: CREATE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$",
        "admin: GRANT EXECUTE ON PROCEDURE p TO {alice} WITH GRANT OPTION",
        "alice: GRANT EXECUTE ON PROCEDURE p TO {bob}",
        "admin: SELECT proacl::text FROM pg_proc WHERE proname = 'p'",
        "admin: REVOKE EXECUTE ON PROCEDURE p FROM {alice}",
        "admin: REVOKE EXECUTE ON PROCEDURE p FROM PUBLIC",
        "admin: REVOKE EXECUTE ON PROCEDURE p FROM {alice} CASCADE",
        "admin: SELECT proacl::text FROM pg_proc WHERE proname = 'p'",
        "bob: CALL p()",
        "admin: GRANT EXECUTE ON g TO {bob}",
        "admin: GRANT SELECT ON PROCEDURE p TO {bob}",
        "admin: GRANT nonsense ON g TO {bob}",
        "admin: GRANT SELECT ON g TO nosuch",
        "admin: GRANT SELECT ON nosuch TO {bob}",
        "admin: GRANT SELECT ON g TO {bob} GRANTED BY {alice}",
        "admin: GRANT SELECT ON g TO CURRENT_USER, SESSION_USER",
        "admin: SELECT relacl::text FROM pg_class WHERE relname = 'g'",
    ],
    "memberships and set role": [
        "admin: CREATE TABLE m (a int)",
        "admin: GRANT USAGE ON SCHEMA {schema} TO {team}",
        "admin: GRANT SELECT ON m TO {team}",
        "alice: SELECT * FROM m",
        "alice: SET ROLE {team}",
        "admin: GRANT {team} TO {alice}",
        "admin: SELECT r.rolname, m.rolname, g.rolname, admin_option FROM pg_auth_members "
        "JOIN pg_roles r ON r.oid = roleid JOIN pg_roles m ON m.oid = member "
        "JOIN pg_roles g ON g.oid = grantor WHERE r.rolname = '{team}'",
        # (PostgreSQL finds its search path anew when a schema or the role
        # changes, not when a membership does: a qualified name here)
        "alice: SELECT * FROM {schema}.m",
        "alice: SELECT current_user = '{alice}', session_user = '{alice}', current_role",
        "alice: SET ROLE {team}",
        "alice: SELECT current_user, session_user, current_role, user",
        "alice: SHOW role",
        "alice: SHOW is_superuser",
        "alice: SELECT pg_has_role('{team}', 'USAGE'), pg_has_role('{bob}', 'MEMBER')",
        "alice: SET ROLE {bob}",
        "alice: SET ROLE nosuch",
        "alice: RESET ROLE",
        "alice: SELECT current_user",
        "alice: SET ROLE {team}",
        "alice: SET ROLE NONE",
        "alice: SHOW role",
        "alice: BEGIN",
        "alice: SET ROLE {team}",
        "alice: SELECT current_user",
        "alice: ROLLBACK",
        "alice: SELECT current_user",
        "alice: BEGIN",
        "alice: SET ROLE {team}",
        "alice: COMMIT",
        "alice: SELECT current_user",
        "alice: RESET ROLE",
        "alice: BEGIN",
        "alice: SAVEPOINT s1",
        "alice: SET ROLE {team}",
        "alice: ROLLBACK TO SAVEPOINT s1",
        "alice: SELECT current_user",
        "alice: SET LOCAL ROLE {team}",
        "alice: SELECT current_user",
        "alice: COMMIT",
        "alice: SELECT current_user",
        "alice: SET LOCAL ROLE {team}",
        "alice: SELECT current_user",
        "alice: SET SESSION AUTHORIZATION {bob}",
        "admin: SET SESSION AUTHORIZATION {alice}",
        "admin: SELECT current_user, session_user",
        "admin: SHOW is_superuser",
        "admin: SET ROLE {team}",
        "admin: SELECT current_user, session_user",
        "admin: SET ROLE postgres",
        "admin: SET SESSION AUTHORIZATION DEFAULT",
        "admin: SELECT current_user, session_user",
        "admin: SET ROLE {bob}",
        "admin: SHOW is_superuser",
        "admin: SET SESSION AUTHORIZATION {carol}",
        "admin: SELECT current_user, session_user",
        "admin: SHOW role",
        "admin: RESET ALL",
        "admin: SELECT current_user, session_user",
        "admin: RESET SESSION AUTHORIZATION",
        "admin: SET role = '{bob}'",
        "admin: SELECT current_user",
        "admin: SET role TO DEFAULT",
        "admin: SELECT current_user",
        "admin: SET ROLE public",
        "admin: GRANT {team} TO {bob} WITH ADMIN OPTION",
        "bob: GRANT {team} TO {carol}",
        "bob: GRANT {team} TO {carol}",
        "alice: GRANT {team} TO {carol}",
        "alice: GRANT {alice} TO {carol}",
        "admin: GRANT {carol} TO {team}",
        "admin: GRANT {team} TO {team}",
        "admin: GRANT pg_database_owner TO {carol}",
        "admin: GRANT nosuch TO {carol}",
        "admin: REVOKE ADMIN OPTION FOR {team} FROM {bob}",
        "bob: REVOKE {team} FROM {carol}",
        "admin: REVOKE {team} FROM {carol}, {bob}",
        "admin: REVOKE {team} FROM {carol}",
        "admin: SELECT m.rolname, admin_option FROM pg_auth_members "
        "JOIN pg_roles r ON r.oid = roleid JOIN pg_roles m ON m.oid = member "
        "WHERE r.rolname = '{team}' ORDER BY 1",
        "admin: ALTER TABLE m RENAME TO m2",
        "alice: DROP TABLE m2",
        "admin: GRANT CREATE ON SCHEMA {schema} TO {team}",
        "alice: SET ROLE {team}",
        "alice: CREATE TABLE by_team (a int)",
        "alice: RESET ROLE",
        "admin: SELECT tableowner = '{team}' FROM pg_tables WHERE tablename = 'by_team'",
        "alice: INSERT INTO by_team VALUES (1)",
        "alice: DROP TABLE by_team",
        "admin: DROP ROLE {team}",
    ],
    "renamed roles": [
        "admin: GRANT USAGE ON SCHEMA {schema} TO {alice}, {bob}",
        "alice: SELECT current_user = '{alice}'",
        "admin: ALTER ROLE {alice} RENAME TO {alice}_renamed",
        "alice: SELECT current_user = '{alice}_renamed', session_user = '{alice}_renamed'",
        "alice: SHOW session_authorization",
        "alice: ALTER ROLE {alice}_renamed RENAME TO {alice}",
        "admin: GRANT {bob} TO {alice}_renamed",
        "alice: SET ROLE {bob}",
        "admin: ALTER ROLE {bob} RENAME TO {bob}_renamed",
        "alice: SELECT current_user = '{bob}_renamed'",
        "alice: SHOW role",
        "admin: CREATE TABLE r (a int)",
        "admin: GRANT SELECT ON r TO {bob}_renamed",
        "admin: SELECT relacl::text = '{{postgres=arwdDxt/postgres,{bob}_renamed=r/postgres}}' "
        "FROM pg_class WHERE relname = 'r'",
        "alice: SELECT * FROM r",
        "admin: ALTER ROLE {alice}_renamed RENAME TO {alice}",
        "admin: ALTER ROLE {bob}_renamed RENAME TO {bob}",
        "admin: ALTER ROLE postgres RENAME TO somebody",
        "admin: SET ROLE {carol}",
        "admin: ALTER ROLE postgres RENAME TO somebody",
        "admin: RESET ROLE",
        "admin: SET SESSION AUTHORIZATION {carol}",
        "admin: ALTER ROLE {carol} RENAME TO {carol}2",
        "admin: RESET SESSION AUTHORIZATION",
        "admin: ALTER ROLE {carol} RENAME TO pg_nope",
        "admin: ALTER ROLE {carol} RENAME TO none",
        "admin: ALTER ROLE {carol} RENAME TO {bob}",
        "admin: ALTER ROLE pg_database_owner RENAME TO nobody",
        "bob: ALTER ROLE {carol} RENAME TO {carol}2",
        "admin: CREATE ROLE {carol}_gone LOGIN",
        "admin: DROP ROLE {carol}_gone",
        "admin: CREATE ROLE none",
        "admin: CREATE ROLE current_user",
    ],
}


@pytest.fixture(scope="module")
def reference() -> Iterator[PostgresPeer]:
    with PostgresPeer() as pg:
        yield pg


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """A server of this module's own: its scripts leave roles behind."""
    process = start_server("--in-memory")
    yield process
    process.stop()


class _Side:
    """One server's sessions: the superuser's and one per role, each in
    the script's schema, and what they said."""

    def __init__(self, dsn: str, names: dict[str, str]) -> None:
        self.dsn = dsn
        self.names = names
        self.sessions: dict[str, psycopg.Connection] = {}
        self.notices: list[tuple[str, str | None, str | None]] = []

    def session(self, who: str) -> psycopg.Connection:
        if who not in self.sessions:
            user = "postgres" if who == "admin" else self.names[who]
            connection = psycopg.connect(self.dsn.replace("user=postgres", f"user={user}"),
                                         autocommit=True)
            connection.add_notice_handler(lambda diag: self.notices.append(
                (diag.severity_nonlocalized, diag.sqlstate, diag.message_primary)))
            connection.execute(f"SET search_path = {self.names['schema']}")
            self.sessions[who] = connection
        return self.sessions[who]

    def step(self, who: str, sql: str) -> tuple[tuple[str, Any], list[Any]]:
        self.notices.clear()
        return outcome(self.session(who), sql), list(self.notices)

    def close(self) -> None:
        for connection in self.sessions.values():
            connection.close()


def _prepare(dsn: str, names: dict[str, str]) -> None:
    with psycopg.connect(dsn, autocommit=True) as admin:
        for who in LOGINS:
            admin.execute(f"CREATE ROLE {names[who]} LOGIN")
        admin.execute(f"CREATE ROLE {names['team']}")
        admin.execute(f"CREATE SCHEMA {names['schema']}")


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_script_matches_postgres(name: str, reference: PostgresPeer,
                                 server: ServerProcess) -> None:
    token = uuid.uuid4().hex[:8]
    names = {who: f"{who}_{token}" for who in (*LOGINS, "team")} | {"schema": f"s_{token}"}
    database = f"privileges_{token}"
    with psycopg.connect(reference.dsn, autocommit=True) as postgres:
        postgres.execute(f"CREATE DATABASE {database}")
    theirs_dsn = reference.dsn.replace("dbname=postgres", f"dbname={database}")
    ours_dsn = f"host={server.host} port={server.port} user=postgres dbname=sqlext"
    _prepare(theirs_dsn, names)
    _prepare(ours_dsn, names)
    theirs, ours = _Side(theirs_dsn, names), _Side(ours_dsn, names)
    try:
        for number, line in enumerate(SCRIPTS[name]):
            who, _, sql = line.partition(": ")
            sql = sql.format(**names)
            assert ours.step(who, sql) == theirs.step(who, sql), f"step {number}: {line}"
    finally:
        theirs.close()
        ours.close()

"""psql 15 (the real binary) against sqlext: backslash commands, the catalog
queries pgjdbc sends, \\copy, error reporting.

psql's meta-commands are ordinary catalog queries, so every assertion here is
about what the pg_catalog tables and functions answer: the right objects,
PostgreSQL's type names, defaults, constraints and indexes.
"""

from __future__ import annotations

import csv
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.psql import output, psql, rows
from tests.fixtures.servers import ServerProcess


@pytest.fixture(scope="module")
def names(server: ServerProcess) -> Iterator[dict[str, str]]:
    """The module's objects, in public (where psql looks without a pattern)
    and in a schema of their own; dropped at the end."""
    suffix = uuid.uuid4().hex[:6]
    tables = {"main": f"t_main_{suffix}", "child": f"t_child_{suffix}",
              "view": f"v_main_{suffix}", "schema": f"s_{suffix}", "index": f"i_{suffix}",
              "other": f"t_other_{suffix}"}
    output(server, f"""
        CREATE TABLE {tables['main']} (
            id serial PRIMARY KEY,
            name varchar(20) NOT NULL UNIQUE,
            amount numeric(10,2) CHECK (amount > 0),
            created timestamptz DEFAULT now(),
            flag boolean
        );
        CREATE INDEX {tables['index']} ON {tables['main']} (created DESC);
        CREATE INDEX ON {tables['main']} (flag, name DESC);
        CREATE TABLE {tables['child']} (id int PRIMARY KEY,
            main_id int REFERENCES {tables['main']} (id) ON DELETE CASCADE);
        CREATE VIEW {tables['view']} AS SELECT id, name FROM {tables['main']};
        CREATE SCHEMA {tables['schema']};
        CREATE TABLE {tables['schema']}.{tables['other']} (k text);
    """)
    yield tables
    output(server, f"""
        DROP TABLE {tables['schema']}.{tables['other']};
        DROP SCHEMA {tables['schema']};
        DROP VIEW {tables['view']};
        DROP TABLE {tables['child']}, {tables['main']};
    """)


def test_list_relations(server: ServerProcess, names: dict[str, str]) -> None:
    main, child, view = names["main"], names["child"], names["view"]
    tables = rows(output(server, r"\dt"))
    assert ["public", main, "table", "postgres"] in tables
    assert ["public", child, "table", "postgres"] in tables
    assert not any(view in row for row in tables)
    everything = rows(output(server, r"\d"))
    assert ["public", view, "view", "postgres"] in everything
    assert ["public", f"{main}_id_seq", "sequence", "postgres"] in everything
    assert ["public", f"{main}_id_seq", "sequence", "postgres"] in rows(output(server, r"\ds"))
    in_schema = rows(output(server, rf"\dt {names['schema']}.*"))
    assert [names["schema"], names["other"], "table", "postgres"] in in_schema
    assert not any(names["other"] in row for row in tables)


def test_pattern(server: ServerProcess, names: dict[str, str]) -> None:
    found = [row[1] for row in rows(output(server, rf"\dt {names['main'][:8]}*"))[1:]]
    assert names["main"] in found and names["child"] not in found
    regex = [row[1] for row in rows(output(server, rf"\dt t_(main|child)_{names['main'][-6:]}"))]
    assert names["main"] in regex and names["child"] in regex


def test_system_relations(server: ServerProcess) -> None:
    system = rows(output(server, r"\dS"))
    assert ["pg_catalog", "pg_class", "table", "postgres"] in system
    assert ["pg_catalog", "pg_tables", "view", "postgres"] in system
    described = rows(output(server, r"\dS pg_class"))
    assert ["relname", "name"] in [row[:2] for row in described]


def test_describe_table(server: ServerProcess, names: dict[str, str]) -> None:
    main = names["main"]
    out = output(server, rf"\d {main}")
    assert f'Table "public.{main}"' in out
    described = rows(out)
    assert ["id", "integer", "", "not null", f"nextval('{main}_id_seq'::regclass)"] in described
    assert ["name", "character varying(20)", "", "not null", ""] in described
    assert ["amount", "numeric(10,2)", "", "", ""] in described
    assert ["created", "timestamp with time zone", "", "", "now()"] in described
    assert ["flag", "boolean", "", "", ""] in described
    assert f'"{main}_pkey" PRIMARY KEY, btree (id)' in out
    assert f'"{main}_name_key" UNIQUE CONSTRAINT, btree (name)' in out
    assert f'"{names["index"]}" btree (created DESC)' in out
    assert f'"{main}_flag_name_idx" btree (flag, name DESC)' in out
    assert f'"{main}_amount_check" CHECK (amount > 0)' in out
    assert "Referenced by:" in out
    assert (f'TABLE "{names["child"]}" CONSTRAINT "{names["child"]}_main_id_fkey" '
            f"FOREIGN KEY (main_id) REFERENCES {main}(id) ON DELETE CASCADE") in out
    child = output(server, rf"\d {names['child']}")
    assert "Foreign-key constraints:" in child
    assert (f'"{names["child"]}_main_id_fkey" FOREIGN KEY (main_id) REFERENCES {main}(id) '
            "ON DELETE CASCADE") in child
    other = output(server, rf"\d {names['schema']}.{names['other']}")
    assert f'Table "{names["schema"]}.{names["other"]}"' in other
    assert ["k", "text", "", "", ""] in rows(other)


def test_describe_table_verbose(server: ServerProcess, names: dict[str, str]) -> None:
    out = output(server, rf"\d+ {names['main']}")
    storage = {row[0]: row[5] for row in rows(out)[1:]}
    assert storage == {"id": "plain", "name": "extended", "amount": "main",
                       "created": "plain", "flag": "plain"}
    assert "Access method: heap" in out


def test_describe_sequence_and_indexes(server: ServerProcess, names: dict[str, str]) -> None:
    main = names["main"]
    sequence = output(server, rf"\d {main}_id_seq")
    assert f'Sequence "public.{main}_id_seq"' in sequence
    assert ["integer", "1", "1", "2147483647", "1", "no", "1"] in rows(sequence)
    assert f"Owned by: public.{main}.id" in sequence
    primary = output(server, rf"\d {main}_pkey")
    assert f'Index "public.{main}_pkey"' in primary
    assert ["id", "integer", "yes", "id"] in rows(primary)
    assert f'primary key, btree, for table "public.{main}"' in primary
    descending = output(server, rf"\d {names['index']}")
    assert ["created", "timestamp with time zone", "yes", "created"] in rows(descending)
    indexes = [row[1] for row in rows(output(server, r"\di"))]
    assert f"{main}_pkey" in indexes and names["index"] in indexes


def test_views(server: ServerProcess, names: dict[str, str]) -> None:
    views = rows(output(server, r"\dv"))
    assert ["public", names["view"], "view", "postgres"] in views
    view = output(server, rf"\d {names['view']}")
    assert f'View "public.{names["view"]}"' in view
    assert ["id", "integer", "", "", ""] in rows(view)
    assert ["name", "character varying(20)", "", "", ""] in rows(view)
    verbose = output(server, rf"\d+ {names['view']}")
    assert "View definition:" in verbose and f"FROM {names['main']}" in verbose


def test_materialized_views(server: ServerProcess, names: dict[str, str]) -> None:
    view = f"mv_{names['main']}"
    output(server, f"CREATE MATERIALIZED VIEW {view} AS SELECT flag, count(*) AS n "
                   f"FROM {names['main']} GROUP BY flag")
    try:
        assert ["public", view, "materialized view", "postgres"] in rows(output(server, r"\dm"))
        described = output(server, rf"\d+ {view}")
        assert f'Materialized view "public.{view}"' in described
        assert ["n", "bigint", "", "", "", "plain", "", "", ""] in rows(described)
        assert "View definition:" in described and (
            f"FROM {names['main']} GROUP BY flag" in described)
        plan = output(server, f"EXPLAIN MATERIALIZED VIEW {view}")
        assert "QUERY PLAN" in plan and "maintained incrementally" in plan
    finally:
        output(server, f"DROP MATERIALIZED VIEW {view}")


def test_schemas_databases_roles_functions(server: ServerProcess,
                                           names: dict[str, str]) -> None:
    schemas = rows(output(server, r"\dn"))
    assert ["public", "pg_database_owner"] in schemas
    assert [names["schema"], "postgres"] in schemas
    assert ["public", "pg_database_owner", "pg_database_owner=UC/pg_database_owner+",
            "standard public schema"] in rows(output(server, r"\dn+"))
    databases = output(server, r"\l")
    assert "List of databases" in databases
    assert ["sqlext", "postgres", "UTF8", "C.UTF-8", "C.UTF-8", "", "libc", ""] in rows(
        databases)
    roles = output(server, r"\du")
    assert "postgres" in roles and "Superuser" in roles
    assert "pg_database_owner" not in roles
    functions = output(server, rf"\df {names['schema']}.*")  # a schema without any
    assert "List of functions" in functions and "(0 rows)" in functions


def test_other_listings(server: ServerProcess, names: dict[str, str]) -> None:
    """Meta-commands over catalogs sqlext keeps empty or nearly so still run."""
    assert ["pg_default", "postgres", ""] in rows(output(server, r"\db"))
    assert ["public", names["main"], "table", "", "", ""] in rows(output(server, r"\dp"))
    for command, title in ((r"\dL", "List of languages"), (r"\dd", "Object descriptions"),
                           (r"\dx", "List of installed extensions"),
                           (r"\dy", "List of event triggers"), (r"\dT", "List of data types")):
        assert title in output(server, command)


def test_pgjdbc_catalog_queries(server: ServerProcess, names: dict[str, str]) -> None:
    """What pgjdbc asks for ResultSetMetaData (field metadata) and
    DatabaseMetaData.getIndexInfo (indoption is an int2vector, subscripted
    from 0), as psql runs them."""
    oid = output(server, f"SELECT '{names['main']}'::regclass::oid").split()[2]
    values = " UNION ALL ".join(f"SELECT {oid}, {number}" for number in range(2, 6))
    fields = rows(output(server, (
        "SELECT c.oid, a.attnum, a.attname, c.relname, n.nspname, a.attnotnull OR "
        "(t.typtype = 'd' AND t.typnotnull), a.attidentity != '' OR "
        "pg_catalog.pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%' "
        "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON "
        "(c.relnamespace = n.oid) JOIN pg_catalog.pg_attribute a ON (c.oid = a.attrelid) "
        "JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid) LEFT JOIN pg_catalog.pg_attrdef d "
        "ON (d.adrelid = a.attrelid AND d.adnum = a.attnum) "
        f"JOIN (SELECT {oid} AS oid , 1 AS attnum UNION ALL {values}) vals "
        "ON (c.oid = vals.oid AND a.attnum = vals.attnum) ORDER BY a.attnum")))
    assert fields[1] == [oid, "1", "id", names["main"], "public", "t", "t"]
    assert fields[3] == [oid, "3", "amount", names["main"], "public", "f", ""]
    index_info = rows(output(server, (
        "SELECT tmp.INDEX_NAME, tmp.ORDINAL_POSITION, "
        "trim(both '\"' from pg_catalog.pg_get_indexdef(tmp.CI_OID, tmp.ORDINAL_POSITION, "
        "false)) AS COLUMN_NAME, CASE tmp.I_INDOPTION[tmp.ORDINAL_POSITION - 1] & 1::smallint "
        "WHEN 1 THEN 'D' ELSE 'A' END AS ASC_OR_DESC "
        "FROM (SELECT ci.relname AS INDEX_NAME, "
        "(information_schema._pg_expandarray(i.indkey)).n AS ORDINAL_POSITION, "
        "ci.oid AS CI_OID, i.indoption AS I_INDOPTION "
        "FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) "
        f"WHERE i.indrelid = {oid}) AS tmp ORDER BY 1, 2")))
    assert [names["index"], "1", "created", "D"] in index_info
    assert [f"{names['main']}_pkey", "1", "id", "A"] in index_info
    assert [f"{names['main']}_flag_name_idx", "1", "flag", "A"] in index_info
    assert [f"{names['main']}_flag_name_idx", "2", "name", "D"] in index_info


def test_copy_round_trip(server: ServerProcess, tmp_path: Path) -> None:
    table = f"t_copy_{uuid.uuid4().hex[:6]}"
    rows_in = [["1", "plain", "x"], ["2", "", "empty string"], ["3", None, "null"],
               ["4", 'quote " and, comma', "q"], ["5", "line\nbreak", "n"],
               ["6", "tab\there", "t"]]
    source = tmp_path / "in.csv"
    with source.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["id", "name", "note"])
        for row in rows_in:
            writer.writerow(["" if value is None else value for value in row])
    # csv writes "" for both; mark the NULL row as an unquoted empty field
    text = source.read_text().replace('3,"",null', "3,,null")
    text = text.replace('2,,empty string', '2,"",empty string')
    source.write_text(text)
    target = tmp_path / "out.csv"
    result = psql(server, f"CREATE TABLE {table} (id int, name text, note text)",
                  rf"\copy {table} from '{source}' with (format csv, header true)",
                  f"SELECT count(*), count(name) FROM {table}",
                  rf"\copy (SELECT * FROM {table} ORDER BY id) to '{target}' "
                  "with (format csv, header true)", f"DROP TABLE {table}")
    assert "COPY 6" in result.stdout, result.stdout + result.stderr
    assert "     6 |     5" in result.stdout
    assert target.read_text() == source.read_text()


def test_syntax_error_shows_position(server: ServerProcess) -> None:
    result = psql(server, "SELECT 1 FROM pg_class WHER 1 = 1", check=False)
    assert "ERROR:  syntax error at or near" in result.stderr
    assert "LINE 1: SELECT 1 FROM pg_class WHER 1 = 1" in result.stderr
    *_, line, caret = result.stderr.splitlines()
    assert caret.strip() == "^"
    token = re.search(r'at or near "([^"]+)"', result.stderr)
    assert token and line[caret.index("^"):].startswith(token.group(1))


def test_failed_transaction_is_aborted(server: ServerProcess) -> None:
    result = psql(server, script="BEGIN;\nSELECT 1/0;\nSELECT 1;\nROLLBACK;\nSELECT 'after';\n",
                  check=False)
    assert "ERROR:  division by zero" in result.stderr
    assert "ERROR:  current transaction is aborted, commands ignored until end of " \
           "transaction block" in result.stderr
    assert "after" in result.stdout


def test_streams_and_procedures_in_psql(server: ServerProcess) -> None:
    suffix = uuid.uuid4().hex[:6]
    output(server, f"""
        CREATE STREAM s_{suffix} (id int NOT NULL, note text);
        CREATE TABLE sink_{suffix} (id int);
        CREATE PROCEDURE p_{suffix}(n int, label text DEFAULT 'x') LANGUAGE sql AS $$
            INSERT INTO sink_{suffix} VALUES (n) $$;
    """)
    try:
        assert ["public", f"p_{suffix}", "", "n integer, label text DEFAULT 'x'",
                "proc"] in rows(output(server, rf"\df p_{suffix}"))
        described = rows(output(server, rf"\d s_{suffix}"))
        assert ["id", "integer", "", "not null", ""] in described
        assert not any("batch_id" in row for row in described)
    finally:
        output(server, f"DROP PROCEDURE p_{suffix}; DROP TABLE sink_{suffix}; "
                       f"DROP STREAM s_{suffix}")

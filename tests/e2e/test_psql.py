"""psql 15 (the real binary) against sqlext: backslash commands, \\copy,
error reporting."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.fixtures.servers import ServerProcess

PSQL = shutil.which("psql")


def psql(server: ServerProcess, *commands: str, script: str | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    assert PSQL, "psql is missing: run `make install`"
    arguments = [PSQL, "-X", "-h", server.host, "-p", str(server.port), "-U", "postgres",
                 "-d", "sqlext", "-v", "ON_ERROR_STOP=0"]
    for command in commands:
        arguments += ["-c", command]
    return subprocess.run(arguments, input=script, capture_output=True, text=True,
                          timeout=60, check=check)


@pytest.fixture(scope="module")
def names(server: ServerProcess) -> dict[str, str]:
    suffix = uuid.uuid4().hex[:6]
    tables = {"main": f"t_main_{suffix}", "child": f"t_child_{suffix}",
              "view": f"v_main_{suffix}", "schema": f"s_{suffix}", "index": f"i_{suffix}"}
    psql(server, script=f"""
        CREATE TABLE {tables['main']} (
            id serial PRIMARY KEY,
            name varchar(20) NOT NULL UNIQUE,
            amount numeric(10,2) CHECK (amount > 0),
            created timestamptz DEFAULT now(),
            flag boolean
        );
        CREATE INDEX {tables['index']} ON {tables['main']} (created DESC);
        CREATE TABLE {tables['child']} (id int PRIMARY KEY,
            main_id int REFERENCES {tables['main']} (id) ON DELETE CASCADE);
        CREATE VIEW {tables['view']} AS SELECT id, name FROM {tables['main']};
        CREATE SCHEMA {tables['schema']};
    """)
    return tables


def test_list_tables(server: ServerProcess, names: dict[str, str]) -> None:
    out = psql(server, r"\dt").stdout
    assert f"public | {names['main']}" in out and "| table | postgres" in out
    assert f"public | {names['child']}" in out
    assert names["view"] not in out
    everything = psql(server, r"\d").stdout
    assert re.search(rf"{names['view']}\s+\| view", everything)


def test_describe_table(server: ServerProcess, names: dict[str, str]) -> None:
    out = psql(server, rf"\d {names['main']}").stdout
    assert f'Table "public.{names["main"]}"' in out
    for line in ("id      | integer", "name    | character varying(20)",
                 "amount  | numeric(10,2)", "created | timestamp with time zone",
                 "flag    | boolean"):
        assert line in out, out
    assert f"nextval('{names['main']}_id_seq'::regclass)" in out
    assert "not null" in out
    assert f'"{names["main"]}_pkey" PRIMARY KEY, btree (id)' in out
    assert f'"{names["main"]}_name_key" UNIQUE CONSTRAINT, btree (name)' in out
    assert f'"{names["index"]}" btree (created DESC)' in out
    assert f'"{names["main"]}_amount_check" CHECK ((amount > 0))' in out
    assert "Referenced by:" in out and names["child"] in out
    child = psql(server, rf"\d {names['child']}").stdout
    assert "Foreign-key constraints:" in child
    assert f"REFERENCES {names['main']}(id) ON DELETE CASCADE" in child
    verbose = psql(server, rf"\d+ {names['main']}").stdout
    assert "Storage" in verbose and "Access method: heap" in verbose


def test_pattern(server: ServerProcess, names: dict[str, str]) -> None:
    out = psql(server, rf"\dt {names['main'][:8]}*").stdout
    assert names["main"] in out and names["child"] not in out


def test_schemas_databases_roles_functions(server: ServerProcess,
                                           names: dict[str, str]) -> None:
    schemas = psql(server, r"\dn").stdout
    assert "public" in schemas and names["schema"] in schemas
    databases = psql(server, r"\l").stdout
    assert "UTF8" in databases and "List of databases" in databases
    roles = psql(server, r"\du").stdout
    assert "postgres" in roles and "Superuser" in roles
    functions = psql(server, r"\df").stdout
    assert "List of functions" in functions


def test_views_and_indexes(server: ServerProcess, names: dict[str, str]) -> None:
    views = psql(server, r"\dv").stdout
    assert re.search(rf"{names['view']}\s+\| view", views)
    view = psql(server, rf"\d {names['view']}").stdout
    assert f'View "public.{names["view"]}"' in view
    assert "name   | character varying(20)" in view
    indexes = psql(server, r"\di").stdout
    assert f"{names['main']}_pkey" in indexes and names["index"] in indexes


def test_copy_round_trip(server: ServerProcess, tmp_path: Path) -> None:
    table = f"t_copy_{uuid.uuid4().hex[:6]}"
    rows = [["1", "plain", "x"], ["2", "", "empty string"], ["3", None, "null"],
            ["4", 'quote " and, comma', "q"], ["5", "line\nbreak", "n"],
            ["6", "tab\there", "t"]]
    source = tmp_path / "in.csv"
    with source.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["id", "name", "note"])
        for row in rows:
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
                  "with (format csv, header true)")
    assert "COPY 6" in result.stdout, result.stdout + result.stderr
    assert "     6 |     5" in result.stdout
    assert target.read_text() == source.read_text()


def test_syntax_error_shows_position(server: ServerProcess) -> None:
    result = psql(server, "SELECT 1 FROM pg_class WHER 1 = 1", check=False)
    assert "ERROR:  syntax error at or near" in result.stderr
    assert "LINE 1: SELECT 1 FROM pg_class WHER 1 = 1" in result.stderr
    caret = result.stderr.splitlines()[-1]
    assert caret.strip() == "^"


def test_failed_transaction_is_aborted(server: ServerProcess) -> None:
    result = psql(server, script="BEGIN;\nSELECT 1/0;\nSELECT 1;\nROLLBACK;\nSELECT 'after';\n",
                  check=False)
    assert "ERROR:  division by zero" in result.stderr
    assert "ERROR:  current transaction is aborted, commands ignored until end of " \
           "transaction block" in result.stderr
    assert "after" in result.stdout


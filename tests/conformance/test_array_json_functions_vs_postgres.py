"""Differential tests of PostgreSQL's array and json functions against a
real PostgreSQL 15: polymorphic typing (anyarray, anycompatible: result
types, untyped literals, mismatches), NULL handling, errors and the text
each prints; json functions keep the text as written, jsonb ones normalise.

Each query runs on both servers; column names, result types (OIDs and
modifiers) and the rows as text must match byte for byte, or both must fail
with the same SQLSTATE, message, DETAIL and HINT.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.fixtures.differential import error_diagnosis, outcome, peer_connections
from tests.fixtures.servers import ServerProcess

SETUP = [
    "CREATE TABLE arrays (id int PRIMARY KEY, words text[], numbers numeric[], "
    "amount numeric(6,2), spans interval[], word text)",
    """INSERT INTO arrays VALUES
       (1, ARRAY['x', 'y', 'x'], ARRAY[1.50, 2, NULL], 1.50, ARRAY['1 day'::interval], 'x'),
       (2, NULL, '{}', NULL, NULL, NULL),
       (3, ARRAY[NULL, 'z'], ARRAY[-1], 2.25, ARRAY['24 hours'::interval, '1 mon'], 'z')""",
]

ARRAYS = [
    # anycompatiblearray, anycompatible: the common type, untyped literals
    "SELECT array_append(ARRAY[1, 2], 3), array_append(ARRAY[1, 2], 2.5), "
    "array_append(ARRAY['a'], 'b'), array_append('{1,2}', 3), array_append(NULL, NULL), "
    "array_append(NULL, 1), array_append(ARRAY[1], NULL)",
    "SELECT pg_typeof(array_append(NULL, NULL)), pg_typeof(array_append(ARRAY[1::int2], 5)), "
    "pg_typeof(array_append(ARRAY[1.5::float4], 1.5)), "
    "pg_typeof(array_append(ARRAY['a'::varchar], 'b'::text)), "
    "pg_typeof(array_append(ARRAY['a'::varchar], 'b'::name))",
    "SELECT array_append(ARRAY['2020-01-01'::date], '2020-01-02 03:00:00+00'::timestamptz)",
    "SELECT array_append(ARRAY[1, 2], 'x')",
    "SELECT array_append(ARRAY[1, 2], 'x'::text)",
    "SELECT array_append(ARRAY[1], '2020-01-01'::date)",
    "SELECT array_append(ARRAY[1], ARRAY[2])",
    "SELECT array_append(ARRAY[1], 1, 2)",
    "SELECT array_prepend(0, ARRAY[1, 2]), array_prepend(NULL, NULL), "
    "array_prepend(1.5, ARRAY[1]), array_prepend('x', NULL::text[])",
    "SELECT array_prepend(1, 2)",
    "SELECT array_cat(ARRAY[1, 2], ARRAY[3]), array_cat(ARRAY[1], '{2}'), "
    "array_cat('{1}', ARRAY[2.5]), array_cat(NULL, ARRAY[1]), array_cat(ARRAY[1], NULL), "
    "array_cat(NULL::int[], NULL), array_cat(ARRAY[1, 2], '{}')",
    "SELECT array_cat(ARRAY[1]::int2[], ARRAY[2]::int8[]), pg_typeof(array_cat(NULL, NULL))",
    "SELECT array_cat(ARRAY[1], ARRAY['a'])",
    "SELECT array_cat(ARRAY[1], 2)",
    "SELECT array_append(ARRAY['\\x01'::bytea], '\\x02'), "
    "array_append(ARRAY['Infinity'::float8], '-Infinity'), "
    "array_append(ARRAY[1.5::float8], 'NaN'), array_position(ARRAY['NaN'::float8], 'NaN')",
    # anyarray
    "SELECT array_dims(ARRAY[1, 2, 3]), array_dims(ARRAY[]::int[]), array_dims(NULL::int[]), "
    "array_ndims(ARRAY['a']), array_ndims(ARRAY[]::int[]), array_ndims(NULL::text[])",
    "SELECT array_dims('{1}')",
    "SELECT array_ndims(1)",
    "SELECT cardinality(ARRAY[1, 2]), cardinality(NULL::int[]), cardinality(ARRAY[]::int[])",
    "SELECT cardinality('{1,2}')",
    "SELECT cardinality(1)",
    "SELECT cardinality(NULL)",
    "SELECT trim_array(ARRAY[1, 2, 3], 1), trim_array(ARRAY[1, 2, 3], 3), "
    "trim_array(ARRAY[1, 2, 3], 0), trim_array(ARRAY[]::int[], 0), trim_array(NULL::int[], 1), "
    "trim_array(ARRAY[1], NULL)",
    "SELECT trim_array(ARRAY[1, 2, 3], 4)",
    "SELECT trim_array(ARRAY[1, 2, 3], -1)",
    "SELECT trim_array('{1,2}', 1)",
    "SELECT trim_array(ARRAY[1, 2], 1::int8)",
    "SELECT array_length(ARRAY[1, 2], 1), array_upper(ARRAY[1, 2], 1), "
    "array_lower(ARRAY[1, 2], 1), array_length(ARRAY[]::int[], 1)",
    "SELECT array_length(1, 1)",
    "SELECT array_upper('{1}', 1)",
    # searching: NULL finds NULLs, equal values stored differently are equal
    "SELECT array_positions(ARRAY[1, 2, 1], 1), array_positions(ARRAY[1, NULL, 1], NULL), "
    "array_positions(NULL::int[], 1), array_positions(ARRAY[]::int[], 1), "
    "array_positions(ARRAY[1], 2), array_positions(ARRAY[1.50, 2, 1.5], 1.5)",
    "SELECT array_positions(ARRAY['{}'::json], NULL), array_position(NULL::json[], '{}')",
    "SELECT array_positions(ARRAY['{}'::json], '{}')",
    "SELECT array_positions(ARRAY[1], 'x')",
    "SELECT array_position(ARRAY[1, NULL], NULL), array_position(ARRAY[1, 2, 1], 1, 2), "
    "array_position(ARRAY[1.50], 1.5), array_position(ARRAY['a '::char(3)], 'a'::char(1)), "
    "array_position(ARRAY['1 day'::interval], '24 hours'::interval), "
    "array_position(ARRAY[1.5, 2], 2), array_position(ARRAY[1, 2], 1, 0), "
    "array_position(ARRAY[1, 2], 1, 5)",
    "SELECT array_position(ARRAY[1, 2], 1, NULL)",
    "SELECT array_position(ARRAY[1, 2], 'x'::text)",
    "SELECT array_position(ARRAY['{}'::json], '{}')",
    "SELECT array_replace(ARRAY[1, 2, 1], 1, 9), array_replace(ARRAY[1, NULL, 2], NULL, 5), "
    "array_replace(ARRAY[1, 2], 1, NULL), array_replace(ARRAY[1, 2], 1.5, 2), "
    "array_replace(ARRAY['a'::char(2)], 'a', 'b'), array_replace(NULL::int[], 1, 2)",
    "SELECT array_remove(ARRAY[1, NULL], NULL), array_remove(ARRAY[1.50, 1.5, 2], 1.5), "
    "array_remove(ARRAY[1, 2], 2.0), array_remove(ARRAY[1.5, 2], 2), "
    "array_remove(NULL::int[], 1)",
    "SELECT array_remove(ARRAY['{}'::json], '{}')",
    # anyelement
    "SELECT array_fill(7, ARRAY[3]), array_fill(1::int8, ARRAY[2]), "
    "pg_typeof(array_fill(1::int8, ARRAY[2])), array_fill(NULL::int, ARRAY[2]), "
    "array_fill(1, ARRAY[2, 0]), array_fill(1, ARRAY[0], ARRAY[5]), array_fill(1, '{}', '{}'), "
    "array_fill(1, ARRAY[2], ARRAY[1]), array_fill('x'::text, ARRAY[2]), array_fill(1, '{2}')",
    "SELECT array_fill(1, NULL)",
    "SELECT array_fill(1, ARRAY[2], NULL)",
    "SELECT array_fill(1, ARRAY[2], ARRAY[NULL]::int[])",
    "SELECT array_fill(1, ARRAY[NULL]::int[])",
    "SELECT array_fill(1, ARRAY[1, 1, 1, 1, 1, 1, 1])",
    "SELECT array_fill(1, ARRAY[200000000])",
    "SELECT array_fill(1, ARRAY[-1])",
    "SELECT array_fill(1, ARRAY[2], '{}')",
    "SELECT array_fill('x', ARRAY[2])",
    "SELECT array_fill(1, ARRAY[2.5])",
    "SELECT array_to_string(ARRAY[1.50, NULL, 2], '|', '*'), array_to_string(ARRAY[true], ','), "
    "array_to_string(ARRAY['\\x01'::bytea], ','), array_to_string(ARRAY[1.5::float4], ',', NULL), "
    "array_to_string(ARRAY[1], NULL), "
    "array_to_string(ARRAY['2020-01-01'::timestamptz], ',')",
    "SELECT array_to_string('{1}', ',')",
    # columns
    "SELECT id, array_append(words, word), array_prepend(word, words), array_cat(words, words), "
    "array_replace(words, 'x', word), array_positions(words, 'x'), array_remove(words, NULL), "
    "cardinality(words), trim_array(words, 1), array_dims(words) FROM arrays ORDER BY id",
    "SELECT id, array_append(numbers, amount), array_position(numbers, amount), "
    "array_remove(numbers, 2.0), array_to_string(numbers, ',', '?'), "
    "array_position(spans, '1 day') FROM arrays ORDER BY id",
    "SELECT * FROM array_append(ARRAY[1], 2)",
    "SELECT oid, typname, typlen, typcategory, typinput, typoutput, typreceive, typsend, "
    "typalign, typstorage FROM pg_type WHERE typname IN ('anyelement', 'anyarray', "
    "'anycompatible', 'anycompatiblearray', 'anynonarray') ORDER BY oid",
]

QUERIES = ARRAYS


@pytest.fixture(scope="module")
def peers(server: ServerProcess) -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
    with peer_connections(server, SETUP, "arrays_json") as connections:
        yield connections


@pytest.mark.parametrize("sql", QUERIES)
def test_same_as_postgres(peers: tuple[psycopg.Connection, psycopg.Connection],
                          sql: str) -> None:
    reference, ours = peers
    expected = outcome(reference, sql, typmods=True)
    assert outcome(ours, sql, typmods=True) == expected
    if expected[0] == "error":
        assert error_diagnosis(ours, sql) == error_diagnosis(reference, sql)

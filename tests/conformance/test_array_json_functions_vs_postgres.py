"""Differential tests of PostgreSQL's array and json functions against a
real PostgreSQL 15: polymorphic typing (anyarray, anycompatible: result
types, untyped literals, mismatches), NULL handling, errors and the text
each prints; json functions keep the text as written, jsonb ones normalise.

Each query runs on both servers; column names, result types (OIDs and
modifiers) and the rows as text must match byte for byte, or both must fail
with the same SQLSTATE, message, DETAIL and HINT.
"""

from __future__ import annotations

import pytest

from tests.fixtures.differential import (
    Peers,
    assert_same_as_postgres,
    peers_fixture,
)

SETUP = [
    "CREATE TABLE arrays (id int PRIMARY KEY, words text[], numbers numeric[], "
    "amount numeric(6,2), spans interval[], word text)",
    """INSERT INTO arrays VALUES
       (1, ARRAY['x', 'y', 'x'], ARRAY[1.50, 2, NULL], 1.50, ARRAY['1 day'::interval], 'x'),
       (2, NULL, '{}', NULL, NULL, NULL),
       (3, ARRAY[NULL, 'z'], ARRAY[-1], 2.25, ARRAY['24 hours'::interval, '1 mon'], 'z')""",
    "CREATE TABLE docs (id int PRIMARY KEY, j json, b jsonb)",
    """INSERT INTO docs VALUES
       (1, '{"b": 1, "a" :  [1,2], "b": {"c" : null}}', '{"b": 1, "a": [1, 2.50, null]}'),
       (2, ' [1, "two" , {"k":"v"}, null] ', '[1, "two", {"k": "v"}, null]'),
       (3, '"text"', 'null'),
       (4, NULL, NULL)""",
    "CREATE TABLE paths (id int PRIMARY KEY, p jsonpath)",
    "INSERT INTO paths VALUES (1, '$.a[*] ? (@ > 1)'), (2, 'strict $.b'), (3, NULL)",
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

JSON = [
    # json keeps the text as written (order, duplicates, spacing), jsonb normalises
    "SELECT * FROM json_each('{\"a\" : [1,  2], \"b\":\"x\\u0041\", \"a\": null, "
    "\"c\": {\"d\" :1}}')",
    "SELECT * FROM json_each_text('{\"a\" : [1,  2], \"b\":\"x\\u0041\", \"a\": null, "
    "\"e\": true, \"f\": 1.50e1}')",
    "SELECT * FROM jsonb_each('{\"b\": 1, \"a\": [1,  2], \"b\": null}'), "
    "jsonb_each_text('{\"a\": \"x\"}')",
    "SELECT json_object_keys('{\"a\" : [1,  2], \"b\":\"x\", \"a\": null}')",
    "SELECT * FROM json_array_elements(' [1, \"a\\n\" ,{\"x\" : 1},null, [ ]] ')",
    "SELECT * FROM json_array_elements_text(' [1, \"a\\u0041\" ,{\"x\" : 1},null, [ ]] ')",
    "SELECT * FROM json_array_elements('{\"a\":1}')",
    "SELECT * FROM json_array_elements('1')",
    "SELECT * FROM json_array_elements_text('{\"a\":1}')",
    "SELECT * FROM json_each('1')",
    "SELECT * FROM json_each_text('[1]')",
    "SELECT json_object_keys('[1]')",
    "SELECT json_object_keys('1')",
    "SELECT * FROM json_each('{}'::jsonb)",
    "SELECT * FROM jsonb_each('{}'::json)",
    "SELECT * FROM json_each_text('{\"a\": \"\\u0000\"}')",
    # set-returning: FROM with aliases, ORDINALITY, LATERAL; the select list
    "SELECT * FROM json_each('{\"a\":1, \"b\": [2]}') WITH ORDINALITY AS x(k, v, o)",
    "SELECT d.id, e.* FROM docs d, json_each(d.j) e WHERE json_typeof(d.j) = 'object' "
    "ORDER BY 1, 2, e.value::text",
    "SELECT d.id, e.x FROM docs d CROSS JOIN LATERAL json_array_elements_text(d.j) AS e(x) "
    "WHERE json_typeof(d.j) = 'array' ORDER BY 1, 2",
    "SELECT k FROM json_object_keys('{\"b\":1,\"a\":2}') AS k",
    "SELECT json_array_elements('[1, {\"a\" : 2}]'), json_array_elements_text('[\"x\", null]')",
    "SELECT json_each('{\"a\":1, \"b\" : [1, 2], \"c\": null, \"d\": \"x y\", "
    "\"e\": \"\"}')",
    "SELECT jsonb_each('{\"a\\\"b\":\"(x,y)\", \"c\": \"\\\\\"}'), "
    "jsonb_each_text('{\"a\":1}')",
    "SELECT (json_each('{\"a\":1}')).key, (jsonb_each_text('{\"a\":\"q\"}')).value",
    "SELECT id, json_each_text(j) FROM docs WHERE id = 1",
    "SELECT information_schema._pg_expandarray(ARRAY[5, 6]), "
    "(information_schema._pg_expandarray(ARRAY[5, 6])).n",
    # paths
    "SELECT json_extract_path('{\"a\" : {\"b\": [1,  {\"c\" : 2}]}}', 'a', 'b', '1'), "
    "json_extract_path('{\"a\":1}', 'x'), json_extract_path('{\"a\":1}', NULL), "
    "jsonb_extract_path('{\"a\":1}', NULL)",
    "SELECT json_extract_path_text('{\"a\" : {\"b\": [1,  {\"c\" : \"x\"}]}}', 'a', 'b', "
    "'1', 'c'), json_extract_path_text('{\"a\":null}', 'a'), "
    "json_extract_path_text('[1,2]', '-1'), json_extract_path('[1,2]', 'z')",
    "SELECT id, jsonb_extract_path(b, 'a', '1'), jsonb_extract_path_text(b, 'b'), "
    "json_extract_path(j, 'b'), json_extract_path_text(j, 'a'), json_extract_path(j, '2', 'k') "
    "FROM docs ORDER BY id",
    "SELECT json_extract_path('{\"a\":1}')",
    "SELECT json_extract_path('{\"a\":1}'::jsonb, 'a')",
    "SELECT json_extract_path('{\"a\":1}', 1)",
    "SELECT '{\"a\":null}'::jsonb -> 'a', '{\"a\":null}'::jsonb ->> 'a', '[null]'::jsonb -> 0, "
    "'{\"a\":null}'::json -> 'a', '{\"a\":{\"1\":\"x\"}}'::jsonb #> '{a,1}', "
    "'{\"a\":{\"1\":\"x\"}}'::json #>> '{a,1}'",
    "SELECT '{\"a\" : 1}'::json #> '{}', '{\"a\" : 1}'::jsonb #> '{}', "
    "'[1,2]'::jsonb #> '{-1}', '[1,2]'::jsonb #> '{ 1}', '[1,2]'::jsonb #> '{+1}', "
    "'[1,2]'::jsonb #> '{1x}', '\"x\"'::json -> 0, ' \"a\" '::json #>> '{}'",
    "SELECT '{\"a\":1}'::jsonb #> ARRAY[NULL], '{\"a\":1}'::json #> NULL, "
    "'{\"b\":1,\"b\":2}'::json -> 'b', '[1, 2]'::json -> -1",
    "SELECT '{\"a\":1}'::jsonb #> 1",
    "SELECT id, j -> 'b', j ->> 'b', j #> '{a}', j #>> '{a,1}', j -> 2, j ->> 1 FROM docs "
    "ORDER BY id",
    # strip nulls, typeof
    "SELECT json_strip_nulls('{\"a\" : null, \"b\" : [null, {\"c\":null, \"d\": 1.50}], "
    "\"e\":\"x\\u0041\"}'), json_strip_nulls('null'), json_strip_nulls(' 1 '), "
    "json_strip_nulls('{\"a\" : {\"b\":null}}'), json_strip_nulls(NULL), "
    "json_strip_nulls('{\"a\":1,\"a\":null,\"a\":2}')",
    "SELECT id, json_strip_nulls(j), jsonb_strip_nulls(b) FROM docs ORDER BY id",
    "SELECT json_strip_nulls('{}'::jsonb)",
    "SELECT jsonb_strip_nulls('{}'::json)",
    "SELECT json_typeof('{}'::jsonb)",
    "SELECT json_typeof(' [1] '), jsonb_typeof('1.5'), json_array_length(' [1, [2]] ')",
    # to_json of any type, rows
    "SELECT to_json(1), to_json(1.50), to_json(2.5::float8), to_json('NaN'::float8), "
    "to_json('Infinity'::numeric), to_json(true), to_json('a\"b'::varchar), to_json(NULL::int)",
    "SELECT to_json('2020-01-02'::date), to_json('2020-01-02 03:04:05.5'::timestamp), "
    "to_json('2020-01-02 03:04:05+02'::timestamptz), to_json('03:04'::time), "
    "to_json('1 day 02:00'::interval), to_json('\\x0102'::bytea), "
    "to_json('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), to_json('10.0.0.1'::inet)",
    "SELECT to_json(ARRAY[1, NULL]), to_json(ARRAY[]::int[]), to_json('{\"a\" : 1}'::json), "
    "to_jsonb('{\"b\":1,\"a\" : 2}'::json), to_jsonb(ARRAY[1.5, 2]), to_jsonb('NaN'::float8)",
    "SELECT to_json('x')",
    "SELECT id, to_json(words), to_json(amount), to_jsonb(numbers), to_json(spans) FROM arrays "
    "ORDER BY id",
    "SELECT row_to_json(ROW(1, 'a')), to_json(ROW(1, 'a', NULL)), to_jsonb(ROW(1, 'a')), "
    "row_to_json(ROW(1.5, ARRAY[1]), true), row_to_json((1, 'x'))",
    "SELECT row_to_json(a), row_to_json(a, true) FROM arrays a ORDER BY id",
    "SELECT json_build_object('r', ROW(1, 2)), json_agg(ROW(id, word) ORDER BY id) FROM arrays",
    "SELECT to_json(x), row_to_json(x) FROM json_each('{\"a\":1}') x",
    "SELECT to_json(jsonb_each('{\"a\":1}')), row_to_json(json_each('{\"b\":[1]}'))",
    "SELECT row_to_json(1)",
    "SELECT * FROM to_json(1), row_to_json(ROW(1, 'a')) AS r, json_build_object('a', 1)",
    "SELECT x.* FROM arrays a, LATERAL to_jsonb(a.words) AS x ORDER BY a.id",
]

JSONPATH = [
    # the type: read, printed as PostgreSQL prints it, stored
    "SELECT '$.a'::jsonpath, '$.a'::text::jsonpath::text, pg_typeof('$'::jsonpath), "
    "'$.a[*] ? (@ > 1)'::jsonpath, '$.\"a b\".c[1,2 to 3, last]'::jsonpath, 'lax $'::jsonpath, "
    "'strict $.a'::jsonpath",
    "SELECT '$.a == 1 && $.b != \"x\" || !($.c < 2.50)'::jsonpath, "
    "'$ ? (@.a == $x)'::jsonpath, '$.*'::jsonpath, '$.a[-1]'::jsonpath, "
    "'$ ? (@ > $\"my var\")'::jsonpath, '1'::jsonpath, '\"s\"'::jsonpath, 'null'::jsonpath",
    "SELECT '$ ? (!(@ > 1) && exists(@.a) || (@ < 1) is unknown)'::jsonpath, "
    "'$.a ? (@ <> 1)'::jsonpath, '$ ? (@ == true || @ == null || @ != false)'::jsonpath, "
    "'$.\"a\\\"b\".c1_'::jsonpath, '$.true.last.null'::jsonpath",
    "SELECT '$ ? (@ > -1.5e2 && @ < 1e-2 && @ == 0.10)'::jsonpath, "
    "'$ ? (@ == \"x\\ny\\u0041\")'::jsonpath, '$ ? (@ > +1)'::jsonpath, "
    "'$ ? (@ > - 1)'::jsonpath, '$[0.9]'::jsonpath, '$ ? (@ == .5)'::jsonpath",
    "SELECT '$ ? (@ == 1 && (@ == 2 || @ == 3))'::jsonpath, "
    "'$ ? ((@ == 1 || @ == 2) && @ == 3)'::jsonpath, "
    "'$.a == 1 || $.b == 2 && $.c == 3'::jsonpath, '$[1,2][3]'::jsonpath, "
    "'$.a?(@ > 1)?(@ < 5).b[*]'::jsonpath, '($.a).b'::jsonpath, '(1 == 1)'::jsonpath, "
    "'LAX $'::jsonpath, '$.a [ 0 ]'::jsonpath",
    "SELECT id, p, jsonb_path_query_array('{\"a\": [1, 2, 3], \"b\": 4}', p) FROM paths "
    "ORDER BY id",
    "SELECT ARRAY['$.a'::jsonpath, '$[*]']",
    "SELECT '$.'::jsonpath",
    "SELECT '$ ? (@.a)'::jsonpath",
    "SELECT '$.a ]'::jsonpath",
    "SELECT ''::jsonpath",
    "SELECT '@.a'::jsonpath",
    "SELECT 'last'::jsonpath",
    "SELECT '$ ? (@ == 1'::jsonpath",
    "SELECT '$.\"a'::jsonpath",
    "SELECT '1.a'::jsonpath",
    "SELECT '$ ? (@ == 00)'::jsonpath",
    "SELECT '$ ? (@ == \"a\" && \"b\")'::jsonpath",
    "SELECT '$ ? (@ == 1 == 2)'::jsonpath",
    "SELECT '$.$x'::jsonpath",
    # evaluation: lax unwrapping and wrapping, strict errors, three-valued filters
    "SELECT jsonb_path_query('{\"a\":[1,2,3,{\"b\":4}]}', '$.a[*] ? (@ > 1)')",
    "SELECT jsonb_path_query('{\"a\":[1,2,3,{\"b\":4}]}', '$.a[*].b')",
    "SELECT jsonb_path_query('{\"a\":[1,2,3,{\"b\":4}]}', 'strict $.a[*].b')",
    "SELECT jsonb_path_query('{\"a\":[1,2,3,{\"b\":4}]}', 'strict $.a[*].b', silent => true)",
    "SELECT jsonb_path_query('{\"a\":[1,\"x\",null,{\"b\":4}]}', "
    "'$.a[*] ? (@ == \"x\" || @ > 0)')",
    "SELECT jsonb_path_query('{\"a\":[1,\"x\",null]}', '$.a[*] > 0'), "
    "jsonb_path_query('{\"a\":[1,\"x\",null]}', '$.a[*] == \"z\"')",
    "SELECT jsonb_path_query('[1,2]', '$[last]'), jsonb_path_query('[1,2]', '$[5]')",
    "SELECT jsonb_path_query('[1,2]', 'strict $[5]')",
    "SELECT jsonb_path_query('1', '$[0]'), jsonb_path_query('1', '$[*]'), "
    "jsonb_path_query('{\"a\":1}', '$.*'), jsonb_path_query('[{\"a\":1},{\"a\":2}]', '$.a')",
    "SELECT jsonb_path_query('1', 'strict $[0]')",
    "SELECT jsonb_path_query('[1]', 'strict $.a')",
    "SELECT jsonb_path_query('{}', 'strict $.a')",
    "SELECT jsonb_path_query('1', 'strict $.*')",
    "SELECT jsonb_path_query('{}', '$ ? (@ == $x)')",
    "SELECT jsonb_path_query('{\"a\":2}', '$.a ? (@ > $min)', '{\"min\": 1}')",
    "SELECT jsonb_path_query('{\"a\":2}', '$.a ? (@ > $min)', '[1]')",
    "SELECT jsonb_path_query('{\"a\": [1, 2.50, \"x\", true, null, {\"c\": [3]}]}', "
    "'$.a[*] ? (@ >= 2.5 || @ == true || @ == null)'), "
    "jsonb_path_query('{\"a\": [[1, 2], [3]]}', '$.a[*] ? (@ > 2)'), "
    "jsonb_path_query('{\"a\": [[1, 2], [3]]}', '$.a ? (@[*] > 2)')",
    "SELECT jsonb_path_query('[1, [2, [3]]]', '$[*] ? (@ > 1)'), "
    "jsonb_path_query('{\"a\": \"abc\"}', '$.a ? (@ < \"abd\" && @ > \"ab\")')",
    "SELECT jsonb_path_query('[1,2,3,4]', '$[1 to 2, last, 0]'), "
    "jsonb_path_query('[1,2,3]', '$[2 to 1]'), jsonb_path_query('[1,2,3]', '$[-1 to 1]')",
    "SELECT jsonb_path_query('[1,2,3]', 'strict $[2 to 1]')",
    "SELECT jsonb_path_query('[1,2,3]', '$[\"x\"]')",
    "SELECT jsonb_path_query('[1,2,3]', '$[\"x\"]', silent => true)",
    "SELECT jsonb_path_query('{\"a\":[1,2]}', 'strict $ ? (@.a > 1)'), "
    "jsonb_path_query('{\"a\":[1,2]}', 'strict $ ? (@.a[*] > 1)'), "
    "jsonb_path_query('{\"a\":[1,2]}', 'strict $.a ? (exists (@[*]))')",
    "SELECT pg_typeof(jsonb_path_query('{}', '$')), "
    "jsonb_path_query('{\"a\": \"b\"}', '$.a == \"b\"'), "
    "jsonb_path_query('{\"a\": {\"x\":1}}', '$.a == $.a'), "
    "jsonb_path_query('{}', '!($.a == 1)'), jsonb_path_query('{}', '($.a == 1) is unknown'), "
    "jsonb_path_query('{\"a\":\"x\"}', '($.a == 1) is unknown')",
    "SELECT jsonb_path_exists('{\"a\":[1,2]}', '$.a[*] ? (@ > 1)'), "
    "jsonb_path_exists('{\"a\":[1,2]}', '$.b'), "
    "jsonb_path_exists('{}', 'strict $.b', silent => true), jsonb_path_exists(NULL, '$')",
    "SELECT jsonb_path_exists('{}', 'strict $.b')",
    "SELECT jsonb_path_match('{\"a\":[1,2]}', '$.a[0] == 1'), "
    "jsonb_path_match('{\"a\":\"x\"}', '$.a > 1'), jsonb_path_match('{\"a\":true}', '$.a'), "
    "jsonb_path_match('{\"a\":null}', '$.a'), jsonb_path_match('{}', '$.a', silent => true)",
    "SELECT jsonb_path_match('{}', '$.a')",
    "SELECT jsonb_path_match('{\"a\":1}', '$.a')",
    "SELECT jsonb_path_query('{\"a\":[1,2]}', '$.a[*] ? (@ > 1)', '{}', true), "
    "jsonb_path_query_array('{\"a\":[1,2]}', '$.a[*]'), "
    "jsonb_path_query_first('{\"a\":[1,2]}', '$.a[*]'), "
    "jsonb_path_query_first('{\"a\":[1,2]}', '$.b')",
    "SELECT '{\"a\":1}'::jsonb @? '$.a', '{\"a\":1}'::jsonb @@ '$.a == 1', "
    "'{\"a\":1}'::jsonb @? '$.b ? (@ > 1)', '{}'::jsonb @? 'strict $.a', '{}'::jsonb @@ '$.a'",
    "SELECT '{}'::json @? '$'",
    "SELECT '{}'::jsonb @? 1",
    "SELECT id FROM docs WHERE b @? '$.a[*] ? (@ == 2.5)' ORDER BY id",
    "SELECT d.id, q.* FROM docs d, jsonb_path_query(d.b, '$[*] ? (@ != null)') "
    "WITH ORDINALITY AS q(v, n) ORDER BY 1, 3",
    "SELECT jsonb_path_query('{}', '$.x'::text)",
    "SELECT jsonb_path_query('{}'::json, '$.x')",
]

QUERIES = ARRAYS + JSON + JSONPATH


peers = peers_fixture(SETUP, "arrays_json")


@pytest.mark.parametrize("sql", QUERIES)
def test_same_as_postgres(peers: Peers, sql: str) -> None:
    assert_same_as_postgres(peers, sql, typmods=True, diagnosis=True)

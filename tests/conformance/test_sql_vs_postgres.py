"""Differential tests: the same SQL against sqlext and a real PostgreSQL 15.

Each query runs on both servers (same schema, same data, text results); the
column names, result type OIDs and rows must match, or both must fail with
the same SQLSTATE. Values are compared as the text PostgreSQL's output
functions print, byte for byte.
"""

from __future__ import annotations

import pytest

from tests.fixtures.differential import (
    Peers,
    assert_same_as_postgres,
    peers_fixture,
)

SETUP = [
    """CREATE TABLE emp (id int PRIMARY KEY, name text NOT NULL, dept text, salary numeric(10,2),
       hired date, active boolean DEFAULT true, rating float8, tags text[],
       updated timestamptz)""",
    """INSERT INTO emp VALUES
       (1, 'ann', 'eng', 120000.50, '2020-01-15', true, 4.5, ARRAY['a','b'],
        '2024-01-02 03:04:05+00'),
       (2, 'bob', 'eng', 95000, '2021-06-01', true, 3.25, ARRAY['b'], '2024-02-01 00:00:00+00'),
       (3, 'cid', 'ops', 70000.25, '2019-11-30', false, NULL, NULL, NULL),
       (4, 'dee', NULL, 50000, '2022-02-28', true, 5, '{}', '2023-12-31 23:59:59.5+00'),
       (5, 'eve', 'ops', NULL, NULL, NULL, -0.5, ARRAY['c', NULL], '2024-06-30 12:00:00+00')""",
    "CREATE TABLE dept (code text PRIMARY KEY, title text, budget bigint)",
    "INSERT INTO dept VALUES ('eng', 'Engineering', 1000000), ('ops', 'Operations', 250000), "
    "('hr', 'People', 90000)",
    "CREATE VIEW eng AS SELECT id, name, salary FROM emp WHERE dept = 'eng'",
]

QUERIES = [
    "SELECT 1",
    "SELECT 1 AS one, 'x' AS letter, NULL AS nothing",
    "SELECT 2 + 3 * 4, 7 / 2, 7 % 3, -7 / 2, 2 ^ 10",
    "SELECT 1/0",
    "SELECT 5 % 0",
    "SELECT 'abc'::int",
    "SELECT '12'::int + 1, '3.5'::numeric * 2, ' 42 '::bigint",
    "SELECT 99999999999999::int",
    "SELECT 2147483647::int + 1",
    "SELECT 2147483647 + 1, -2147483648",
    "SELECT -2147483647 - 2",
    "SELECT 32767::int2 + 1::int2",
    "SELECT 32767::int2 + 1, 32767::int2 * 2",
    "SELECT (-32768)::int2 * -1::int2",
    "SELECT 9223372036854775807 + 1",
    "SELECT -9223372036854775808, -9223372036854775808 - 1",
    "SELECT 3037000500 * 3037000500",
    "SELECT (-2147483648)::int / -1",
    "SELECT -((-2147483648)::int)",
    "SELECT (-9223372036854775808)::int8 / -1",
    "SELECT (-9223372036854775808)::int8 % -1, 9223372036854775807 % 10",
    "SELECT -9223372036854775806 % 9223372036854775807, -7 % 3, 7 % -3",
    "SELECT 65536 * 65536",
    "SELECT 65536::int8 * 65536, NULL::int + 1",
    "SELECT ((((2147483647 - 1) + 1) - 1) + 1) + 1",
    "SELECT ((((((((1 + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) * 2147483647",
    "SELECT ((((((((1 + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) * 2",
    "SELECT abs(-2147483648)",
    "SELECT abs(-2147483647), abs((-32768)::int2)",
    "SELECT true, false, NOT true, true AND NULL, true OR NULL",
    "SELECT 'a' || 'b', 'a' || NULL, 1 || 'x', 'x' || 2.5",
    "SELECT length('héllo'), upper('abc'), lower('ABC'), substr('abcdef', 2, 3), "
    "substring('abcdef' from 3), position('c' in 'abcdef'), replace('aXbX', 'X', '-')",
    "SELECT trim('  x  '), ltrim('xxa', 'x'), rtrim('axx', 'x'), btrim('xax', 'x')",
    "SELECT lpad('7', 3, '0'), rpad('ab', 5, '*'), repeat('ab', 3), reverse('abc'), "
    "split_part('a,b,c', ',', 2), initcap('hello world'), left('abcdef', 2), right('abcdef', 2)",
    "SELECT concat('a', NULL, 1), concat_ws('-', 'a', NULL, 'b'), md5('abc')",
    "SELECT coalesce(NULL, 2, 3), nullif(1, 1), nullif(1, 2), greatest(1, 5, 3), least(4, NULL, 2)",
    "SELECT abs(-5), round(2.5), round(-2.5), round(3.14159, 2), ceil(1.2), floor(-1.2), "
    "trunc(1.99), sign(-3), mod(17, 5), sqrt(16), power(2, 8)",
    "SELECT CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' ELSE 'c' END, "
    "CASE 3 WHEN 1 THEN 'one' WHEN 3 THEN 'three' END",
    "SELECT 1.5::float8, -1e300::float8, 'NaN'::float8, 'Infinity'::float8, '-0'::float8",
    "SELECT 123.456::numeric(10,2), 1.005::numeric(5,2), 0.5::numeric(3,1)",
    "SELECT '2024-01-31'::date + 1, '2024-03-01'::date - '2024-02-01'::date, "
    "'2024-01-31'::date + interval '1 month'",
    "SELECT '2024-01-02 03:04:05'::timestamp + interval '1 day 2 hours', "
    "'2024-01-02 03:04:05+00'::timestamptz - '2024-01-01 00:00:00+00'::timestamptz",
    "SELECT extract(year from '2024-05-06'::date), "
    "extract(month from '2024-05-06 07:08:09'::timestamp), "
    "extract(epoch from '1970-01-02 00:00:00+00'::timestamptz)",
    "SELECT '1 day 02:03:04'::interval, interval '90 minutes', '-1 year 2 mons'::interval",
    "SELECT '\\xdeadbeef'::bytea, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
    "SELECT '{\"b\": 1, \"a\": [1, 2]}'::jsonb, '{\"b\": 1, \"a\": 2}'::json",
    "SELECT ARRAY[1, 2, NULL], ARRAY['x', 'y z'], (ARRAY[10, 20, 30])[2], "
    "array_length(ARRAY[1,2,3], 1), cardinality(ARRAY[1,2])",
    "SELECT 3 = ANY(ARRAY[1, 2, 3]), 4 = ANY(ARRAY[1, 2, 3]), "
    "array_to_string(ARRAY['a', NULL, 'c'], ',')",
    "SELECT ARRAY[1, 2] || ARRAY[3], ARRAY[1] || 2, 0 || ARRAY[1], tags || 'z' FROM emp "
    "ORDER BY id",
    "SELECT array_position(ARRAY['a', 'b', 'c'], 'b'), array_remove(ARRAY[1, 2, 1], 1), "
    "string_to_array('a,b,,c', ','), string_to_array('a-x-b', '-', 'x')",
    "SELECT ARRAY[1, 2, 3] @> ARRAY[2], ARRAY[1] <@ ARRAY[2, 3], tags @> ARRAY['b'] "
    "FROM emp ORDER BY id",
    "SELECT '{\"a\": {\"b\": [1, 2]}}'::jsonb -> 'a', '{\"a\": 1}'::json ->> 'a', "
    "'[10, 20]'::jsonb -> 1, '{\"a\": {\"b\": [1, 2]}}'::jsonb #> '{a,b,1}', "
    "'{\"a\": {\"b\": \"x\"}}'::jsonb #>> '{a,b}', '{\"a\": 1}'::jsonb -> 'missing'",
    "SELECT '{\"a\": 1, \"b\": [1, 2]}'::jsonb @> '{\"b\": [2]}', "
    "'{\"a\": 1}'::jsonb ? 'a', '[\"x\"]'::jsonb ? 'y', jsonb_typeof('[1]'), "
    "json_typeof('{\"k\": true}'), jsonb_typeof('null')",
    # the arrow of doc -> 'key' in a call's arguments is json's, not a lambda's
    "SELECT jsonb_array_length(doc -> 'tags'), json_array_length(doc::json -> 'tags'), "
    "jsonb_typeof(doc -> 'n'), coalesce(doc -> 'none', '0'), pg_typeof(doc -> 'n') "
    "FROM (VALUES ('{\"tags\": [1, [2]], \"n\": 1}'::jsonb)) AS v (doc)",
    "SELECT jsonb_array_length('[]'), json_array_length('[1, 2 ]'), jsonb_array_length(NULL)",
    "SELECT jsonb_array_length('{\"a\": 1}')",
    "SELECT json_array_length('\"scalar\"')",
    "SELECT encode('\\x00ff41'::bytea, 'hex'), encode('hello'::bytea, 'base64'), "
    "decode('aGVsbG8=', 'base64'), decode('00ff', 'hex')",
    "SELECT * FROM emp ORDER BY id",
    "SELECT id, name FROM emp WHERE dept = 'eng' ORDER BY name DESC",
    "SELECT name FROM emp WHERE dept IS NULL OR salary IS NULL ORDER BY 1",
    "SELECT dept, count(*), sum(salary), min(hired), max(rating), bool_and(active) "
    "FROM emp GROUP BY dept ORDER BY dept NULLS FIRST",
    "SELECT dept, count(*) FROM emp GROUP BY dept HAVING count(*) > 1 ORDER BY 1",
    "SELECT count(DISTINCT dept), count(dept), count(*) FROM emp",
    "SELECT string_agg(name, ',') FROM (SELECT name FROM emp ORDER BY id) s",
    "SELECT e.name, d.title FROM emp e JOIN dept d ON d.code = e.dept ORDER BY e.id",
    "SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON d.code = e.dept ORDER BY e.id",
    "SELECT d.code, count(e.id) FROM dept d LEFT JOIN emp e ON e.dept = d.code "
    "GROUP BY d.code ORDER BY d.code",
    "SELECT e.id, d.code FROM emp e RIGHT JOIN dept d ON d.code = e.dept ORDER BY 2, 1",
    "SELECT e.id, d.code FROM emp e FULL JOIN dept d ON d.code = e.dept ORDER BY 2, 1",
    "SELECT * FROM (SELECT dept AS code, id FROM emp) e RIGHT JOIN dept USING (code) "
    "ORDER BY code, id",
    "SELECT * FROM (SELECT dept AS code, name FROM emp) e NATURAL JOIN dept ORDER BY name",
    "SELECT count(*) FROM emp CROSS JOIN dept",
    "SELECT name FROM emp WHERE salary > (SELECT avg(salary) FROM emp) ORDER BY name",
    "SELECT name FROM emp e WHERE EXISTS (SELECT 1 FROM dept d WHERE d.code = e.dept "
    "AND d.budget > 500000) ORDER BY 1",
    "SELECT name FROM emp WHERE dept IN (SELECT code FROM dept WHERE budget < 300000) ORDER BY 1",
    "SELECT id FROM emp WHERE id BETWEEN 2 AND 4 ORDER BY id",
    "SELECT id FROM emp WHERE name LIKE '_e%' ORDER BY id",
    "SELECT id FROM emp WHERE name ILIKE 'A%' OR name ~ '^b' ORDER BY id",
    "SELECT id FROM emp WHERE name NOT LIKE 'a%' AND name !~ 'e$' ORDER BY id",
    # LIKE escapes with a backslash unless ESCAPE names another character
    "SELECT 'a_b' LIKE 'a\\_%', 'a.b' LIKE 'a\\_b', 'x\\y' LIKE '%\\\\%', "
    "'A_b' ILIKE 'a\\_B', 'a%' NOT LIKE 'a\\%', 'a_b' LIKE 'a#_b' ESCAPE '#', "
    "'ab' ~~ 'a\\_', E'a\\\\_' LIKE E'%\\\\\\\\_'",
    "SELECT id, rating FROM emp ORDER BY rating",
    "SELECT id, rating FROM emp ORDER BY rating DESC",
    "SELECT id, rating FROM emp ORDER BY rating NULLS FIRST LIMIT 3",
    "SELECT id FROM emp ORDER BY id LIMIT 2 OFFSET 1",
    "SELECT DISTINCT dept FROM emp ORDER BY dept",
    "SELECT DISTINCT ON (dept) dept, name FROM emp ORDER BY dept, name",
    "SELECT name, row_number() OVER (ORDER BY id), "
    "rank() OVER (PARTITION BY dept ORDER BY salary DESC) FROM emp ORDER BY id",
    "SELECT id, sum(salary) OVER (ORDER BY id) FROM emp ORDER BY id",
    "SELECT dept FROM emp UNION SELECT code FROM dept ORDER BY 1",
    "SELECT dept FROM emp UNION ALL SELECT code FROM dept ORDER BY 1",
    # untyped literals and NULLs in an operand take the other operand's type
    "SELECT NULL::date AS d, 'x' AS t UNION ALL SELECT '2024-01-01', NULL ORDER BY 1",
    "SELECT 1 UNION SELECT '2' UNION SELECT NULL ORDER BY 1",
    "SELECT hired FROM emp WHERE id < 3 UNION SELECT '2000-02-29' EXCEPT SELECT NULL ORDER BY 1",
    "SELECT '1' UNION SELECT '2' UNION SELECT 3",
    "SELECT 1 UNION SELECT 'x'",
    "SELECT pg_typeof(x), x FROM (SELECT 'a' AS x UNION SELECT NULL) AS s ORDER BY 2",
    "SELECT code FROM dept EXCEPT SELECT dept FROM emp",
    "SELECT code FROM dept INTERSECT SELECT dept FROM emp ORDER BY 1",
    "WITH rich AS (SELECT * FROM emp WHERE salary > 60000) SELECT count(*) FROM rich",
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) "
    "SELECT sum(i) FROM n",
    "SELECT * FROM generate_series(1, 4) g",
    "SELECT g, g * 2 AS double FROM generate_series(2, 10, 3) AS g",
    "SELECT x FROM unnest(ARRAY['a', 'b']) AS x",
    "SELECT unnest(ARRAY[1, 2])",
    "SELECT unnest(ARRAY[1, 2]), unnest(ARRAY[1, 2]) AS again",
    "SELECT id, unnest(tags) FROM emp ORDER BY id, 2",
    "SELECT * FROM unnest(ARRAY['p', 'q']) WITH ORDINALITY",
    "SELECT * FROM generate_series(5, 7) WITH ORDINALITY AS g(v, i)",
    "SELECT * FROM upper('x')",
    "SELECT * FROM (SELECT 1)",
    "SELECT * FROM (VALUES (1))",
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(n, s) ORDER BY n",
    "VALUES (1, 'one'), (2, 'two')",
    "SELECT * FROM eng ORDER BY id",
    "SELECT count(*) FILTER (WHERE active), count(*) FROM emp",
    "SELECT tags, tags[1], array_length(tags, 1) FROM emp ORDER BY id",
    "SELECT updated, updated::date, hired + 30 FROM emp ORDER BY id",
    "SELECT salary, salary * 2, salary + 0.005, -salary FROM emp ORDER BY id",
    "SELECT rating::int, rating::text, active::int, id::text || '!' FROM emp ORDER BY id",
    "SELECT cast(salary AS int), cast(hired AS timestamp), cast('t' AS boolean) "
    "FROM emp WHERE id = 1",
    "SELECT name FROM emp WHERE hired > '2020-06-01' ORDER BY 1",
    "SELECT name FROM emp WHERE updated >= '2024-01-01 00:00:00.0' ORDER BY 1",
    "SELECT name FROM emp WHERE active ORDER BY 1",
    "SELECT name FROM emp WHERE active IS NOT TRUE ORDER BY 1",
    "SELECT name FROM emp WHERE id IN (1, 3, 5) ORDER BY 1",
    "SELECT name FROM emp WHERE (dept, active) = ('eng', true) ORDER BY 1",
    "SELECT nosuch FROM emp",
    "SELECT * FROM nosuch",
    "SELECT emp.nosuch FROM emp",
    "SELECT id FROM emp, dept",
    "SELECT count(*) FROM emp, dept",
    "SELECT max(name), min(name) FROM emp",
    "SELECT avg(rating), sum(rating) FROM emp",
    "SELECT stddev(rating) IS NOT NULL, variance(rating) > 0 FROM emp",
    "SELECT current_database() IS NOT NULL, current_schema(), current_user IS NOT NULL",
    "SELECT 'a' < 'b', 'B' < 'a', 'abc' = 'abc'",
    "SELECT 1 WHERE NULL = NULL",
    "SELECT 1 WHERE NULL IS NULL",
    "SELECT NULL IS DISTINCT FROM 1, 1 IS NOT DISTINCT FROM 1",
    "SELECT E'a\\tb', 'it''s'",
    "SELECT to_char_missing(1)",
    "SELECT pg_typeof(1)",
    "SELECT to_regclass('emp'), to_regclass('nosuch'), to_regclass('\"emp\"'), "
    "to_regclass('EMP'), to_regclass('\"EMP\"')",
    "SELECT to_regclass('pg_catalog.pg_class'), to_regclass('nosuch.emp'), "
    "to_regclass(NULL) IS NULL, to_regclass('eng')",
    "SELECT to_regclass('a.b.c.d')",
    "SELECT to_regclass('otherdb.public.emp')",
    "SELECT to_regclass('\"unterminated')",
    "SELECT to_regtype('int4'), to_regtype('integer[]'), to_regtype('character varying'), "
    "to_regtype('nosuch'), to_regtype('pg_catalog.text'), to_regtype('int4')::oid",
    "SELECT (SELECT name FROM emp WHERE id = 1), (SELECT name FROM emp WHERE id = 99)",
    "SELECT (SELECT name FROM emp WHERE dept = 'eng')",
    "SELECT (SELECT name FROM emp WHERE dept = 'eng' ORDER BY name LIMIT 1)",
    "SELECT code, (SELECT max(name) FROM emp WHERE emp.dept = dept.code) FROM dept ORDER BY 1",
    "SELECT code, (SELECT name FROM emp WHERE emp.dept = dept.code) FROM dept ORDER BY 1",
    "SELECT (SELECT sum(id) OVER () FROM emp)",
    "SELECT (SELECT generate_series(1, 2))",
    "SELECT (SELECT 1 UNION SELECT 2)",
    "SELECT id FROM emp WHERE salary > (SELECT salary FROM emp WHERE name = 'cid') ORDER BY 1",
    "SELECT to_regnamespace('pg_catalog'), to_regnamespace('nosuch'), to_regnamespace(NULL), "
    "to_regnamespace('pg_catalog')::oid",
]

peers = peers_fixture(SETUP, "conformance")


@pytest.mark.parametrize("sql", QUERIES)
def test_same_as_postgres(peers: Peers, sql: str) -> None:
    assert_same_as_postgres(peers, sql)

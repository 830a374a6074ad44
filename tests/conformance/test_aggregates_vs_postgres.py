"""Differential tests of aggregates and grouping against PostgreSQL 15:
ORDER BY and DISTINCT inside aggregate calls, ordered-set and
hypothetical-set aggregates (WITHIN GROUP), GROUPING SETS / ROLLUP / CUBE
with GROUPING(), and the json/jsonb constructors, aggregates, editing and
set-returning functions.

Each query runs on both servers; column names, result types (OIDs and
modifiers) and the rows as text must match byte for byte, or both must fail
with the same SQLSTATE, message, DETAIL and HINT. Every ORDER BY (of the
query and inside aggregates) sorts completely: PostgreSQL leaves the order
of ties open.
"""

from __future__ import annotations

import pytest

from tests.fixtures.differential import (
    Peers,
    assert_same_as_postgres,
    peers_fixture,
)

SETUP = [
    "CREATE TABLE sales (id int PRIMARY KEY, region text, product text, qty int, price float8, "
    "sold date, note text)",
    """INSERT INTO sales VALUES
       (1, 'east', 'apple', 10, 1.5, '2024-01-05', 'a'),
       (2, 'east', 'pear', 5, 2.25, '2024-01-06', NULL),
       (3, 'west', 'apple', 7, 1.5, '2024-02-01', 'b,c'),
       (4, 'west', 'plum', NULL, 3, '2024-02-03', 'quote"d'),
       (5, 'north', 'apple', 3, NULL, NULL, 'x'),
       (6, NULL, 'pear', 8, 2.25, '2024-03-01', 'y'),
       (7, 'east', 'apple', 10, 1.75, '2024-03-02', 'a'),
       (8, 'west', NULL, 2, 0.5, '2024-03-03', NULL)""",
    "CREATE TABLE nothing (a int, b text)",
    "CREATE TABLE docs (id int PRIMARY KEY, doc jsonb, raw json)",
    """INSERT INTO docs VALUES
       (1, '{"b": 1, "a": {"c": null, "d": [1, null, {"e": null}]}}', '{"b": 1,  "a": 2}'),
       (2, '[1, "two", null, true, {"k": "v"}]', '[1, 2]'),
       (3, '"scalar"', '3'),
       (4, NULL, NULL)""",
]

ORDERED_AGGREGATES = [
    "SELECT string_agg(product, ',' ORDER BY product, id) FROM sales",
    "SELECT string_agg(product, ',' ORDER BY id DESC) FROM sales",
    "SELECT region, string_agg(note, '|' ORDER BY id) FROM sales GROUP BY region ORDER BY 1",
    "SELECT string_agg(note, '-' ORDER BY region NULLS FIRST, id DESC) FROM sales",
    "SELECT string_agg(product, NULL ORDER BY id) FROM sales",
    "SELECT string_agg(b, ',' ORDER BY a) FROM nothing",
    "SELECT string_agg(product, ',' ORDER BY id) FILTER (WHERE region = 'east') FROM sales",
    "SELECT string_agg(DISTINCT product, ',') FROM sales",
    "SELECT string_agg(DISTINCT product, ',' ORDER BY product DESC) FROM sales",
    "SELECT string_agg(DISTINCT product, ',' ORDER BY region) FROM sales",
    "SELECT region FROM sales GROUP BY region "
    "HAVING string_agg(product, ',' ORDER BY product) LIKE 'apple,%' ORDER BY 1",
    "SELECT array_agg(qty ORDER BY id DESC) FROM sales",
    "SELECT array_agg(qty ORDER BY qty NULLS FIRST, id) FROM sales",
    "SELECT array_agg(DISTINCT qty) FROM sales",
    "SELECT array_agg(DISTINCT region ORDER BY region DESC NULLS LAST) FROM sales",
    "SELECT array_agg(price ORDER BY price DESC, id) FILTER (WHERE qty > 4) FROM sales",
    "SELECT array_agg(note ORDER BY note NULLS FIRST), array_agg(sold ORDER BY sold DESC) "
    "FROM sales",
    "SELECT array_agg(qty > 5 ORDER BY id), array_agg(b ORDER BY a) FROM sales "
    "LEFT JOIN nothing ON false",
    "SELECT region, array_agg(id ORDER BY qty DESC NULLS LAST, id) FROM sales "
    "GROUP BY region ORDER BY region NULLS FIRST",
    "SELECT count(DISTINCT product), count(qty ORDER BY id), sum(qty ORDER BY qty), "
    "max(product ORDER BY id) FROM sales",
    "SELECT json_agg(id ORDER BY id DESC), jsonb_agg(note ORDER BY id) FROM sales",
    "SELECT json_agg(DISTINCT product), jsonb_agg(DISTINCT qty ORDER BY qty DESC) FROM sales",
    "SELECT json_object_agg(product, id ORDER BY id DESC) FROM sales "
    "WHERE product IS NOT NULL",
    "SELECT json_agg(s ORDER BY s.id DESC) FROM sales s WHERE id < 3",
    "SELECT json_agg(DISTINCT raw) FROM docs",
    "SELECT json_agg(id ORDER BY raw) FROM docs",
    "SELECT upper(note ORDER BY id) FROM sales",
    "SELECT upper(DISTINCT note) FROM sales",
    "SELECT nosuch(note ORDER BY id) FROM sales",
    "SELECT string_agg(product ORDER BY product) FROM sales",
    "SELECT string_agg(product, ',' ORDER BY nosuch) FROM sales",
    "SELECT string_agg(product, ',' ORDER BY id) OVER () FROM sales",
    "SELECT string_agg(DISTINCT product, ',') OVER () FROM sales",
    "SELECT id, string_agg(product, ',') OVER (ORDER BY id) FROM sales ORDER BY id",
    "SELECT id, json_agg(qty) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), "
    "jsonb_agg(product) OVER (PARTITION BY region ORDER BY id) FROM sales ORDER BY id",
]

ORDERED_SET_AGGREGATES = [
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY price) FROM sales",
    "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY qty DESC), "
    "percentile_disc(0.25) WITHIN GROUP (ORDER BY qty DESC) FROM sales",
    "SELECT percentile_cont(0) WITHIN GROUP (ORDER BY qty), "
    "percentile_cont(1) WITHIN GROUP (ORDER BY qty), "
    "percentile_disc(0) WITHIN GROUP (ORDER BY sold) FROM sales",
    "SELECT region, percentile_cont(0.5) WITHIN GROUP (ORDER BY qty), "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY product) FROM sales GROUP BY region "
    "ORDER BY 1",
    "SELECT percentile_cont(ARRAY[0, 0.25, NULL, 1]) WITHIN GROUP (ORDER BY price), "
    "percentile_disc(ARRAY[0.5, 1]) WITHIN GROUP (ORDER BY product) FROM sales",
    "SELECT mode() WITHIN GROUP (ORDER BY product), mode() WITHIN GROUP (ORDER BY qty DESC), "
    "mode() WITHIN GROUP (ORDER BY price) FROM sales",
    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY qty) FILTER (WHERE region = 'west'), "
    "percentile_cont(0.5) WITHIN GROUP (ORDER BY qty) FILTER (WHERE false) FROM sales",
    "SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY qty), "
    "percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT rank(1) WITHIN GROUP (ORDER BY a), dense_rank(1) WITHIN GROUP (ORDER BY a), "
    "percent_rank(1) WITHIN GROUP (ORDER BY a), cume_dist(1) WITHIN GROUP (ORDER BY a), "
    "percentile_cont(0.5) WITHIN GROUP (ORDER BY a), mode() WITHIN GROUP (ORDER BY a) "
    "FROM nothing",
    "SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY a) FROM nothing",
    "SELECT percentile_disc(ARRAY[0.5, -1]) WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY product) FROM sales",
    "SELECT percentile_cont(0.5) FROM sales",
    "SELECT mode(qty) FROM sales",
    "SELECT count(*) WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT sum(qty) WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT upper('a') WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY qty) OVER () FROM sales",
    "SELECT rank(5) WITHIN GROUP (ORDER BY qty), dense_rank(5) WITHIN GROUP (ORDER BY qty), "
    "percent_rank(5) WITHIN GROUP (ORDER BY qty), cume_dist(5) WITHIN GROUP (ORDER BY qty) "
    "FROM sales",
    "SELECT rank(10) WITHIN GROUP (ORDER BY qty DESC), rank(NULL) WITHIN GROUP (ORDER BY qty), "
    "dense_rank(10) WITHIN GROUP (ORDER BY qty DESC NULLS LAST), "
    "cume_dist('pear') WITHIN GROUP (ORDER BY product) FROM sales",
    "SELECT rank('east', 5) WITHIN GROUP (ORDER BY region, qty), "
    "rank(2.5) WITHIN GROUP (ORDER BY qty), rank('3') WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT region, rank(5) WITHIN GROUP (ORDER BY qty) FROM sales GROUP BY region "
    "ORDER BY 1 NULLS FIRST",
    "SELECT rank(4) WITHIN GROUP (ORDER BY qty) FILTER (WHERE region = 'east'), "
    "json_agg(id) FILTER (WHERE qty > 5), jsonb_agg(id ORDER BY id DESC) FILTER (WHERE qty < 5) "
    "FROM sales",
    "SELECT rank(1, 2) WITHIN GROUP (ORDER BY qty) FROM sales",
    "SELECT rank('a'::text) WITHIN GROUP (ORDER BY qty) FROM sales",
]

GROUPING_SETS = [
    "SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) ORDER BY 1, 2",
    "SELECT region, product, sum(qty), count(*) FROM sales GROUP BY ROLLUP (region, product) "
    "ORDER BY 1, 2, 4",
    "SELECT region, product, sum(qty), GROUPING(region, product) FROM sales "
    "GROUP BY CUBE (region, product) ORDER BY 4, 1, 2, 3",
    "SELECT region, product, count(*) FROM sales "
    "GROUP BY GROUPING SETS ((region), (product), ()) ORDER BY 1, 2, 3",
    "SELECT region, product, count(*) FROM sales GROUP BY region, ROLLUP (product) "
    "ORDER BY 1, 2, 3",
    "SELECT region, product, count(*) FROM sales GROUP BY ROLLUP (region), CUBE (product) "
    "ORDER BY 1, 2, 3",
    "SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) HAVING sum(qty) > 10 "
    "ORDER BY sum(qty) DESC LIMIT 2",
    "SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) ORDER BY 2 DESC NULLS LAST "
    "LIMIT 2 OFFSET 1",
    "SELECT region AS r, count(*) FROM sales GROUP BY ROLLUP (r) ORDER BY 1, 2",
    "SELECT region, count(*) FROM sales GROUP BY ROLLUP (1) ORDER BY 1, 2",
    "SELECT region, count(*) FROM sales GROUP BY ROLLUP (5)",
    "SELECT region, product, count(*) FROM sales GROUP BY DISTINCT ROLLUP (region), "
    "ROLLUP (region, product) ORDER BY 1, 2, 3",
    "SELECT region, count(*) FROM sales GROUP BY GROUPING SETS ((region), (region)) "
    "ORDER BY 1, 2",
    "SELECT count(*) FROM sales GROUP BY ()",
    "SELECT count(*) FROM nothing GROUP BY ()",
    "SELECT 1 FROM nothing GROUP BY GROUPING SETS ((), ())",
    "SELECT a, count(*) FROM nothing GROUP BY ROLLUP (a)",
    "SELECT a, b, count(*), GROUPING(a, b) FROM nothing GROUP BY CUBE (a, b)",
    "SELECT GROUPING(region, product, region) FROM sales GROUP BY CUBE (region, product) "
    "ORDER BY 1",
    "SELECT region, GROUPING(region) FROM sales GROUP BY region ORDER BY 1",
    "SELECT region, count(*) FILTER (WHERE qty > 4), string_agg(product, ',' ORDER BY id) "
    "FROM sales GROUP BY ROLLUP (region) ORDER BY GROUPING(region), region",
    "SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) "
    "HAVING GROUPING(region) = 1 OR region = 'east' ORDER BY 1",
    "SELECT DISTINCT GROUPING(region) FROM sales GROUP BY ROLLUP (region) ORDER BY 1",
    "SELECT DISTINCT region FROM sales GROUP BY ROLLUP (region) ORDER BY sum(qty)",
    "SELECT extract(month FROM sold) AS m, count(*) FROM sales "
    "GROUP BY ROLLUP (extract(month FROM sold)) ORDER BY 1, 2",
    "SELECT upper(region), region || '!', count(*) FROM sales GROUP BY ROLLUP (region) "
    "ORDER BY 1, 3",
    "SELECT region, product, qty, count(*) FROM sales "
    "GROUP BY GROUPING SETS ((region, product), ROLLUP (qty)) ORDER BY 1, 2, 3, 4",
    "SELECT region, product, count(*) FROM sales GROUP BY CUBE ((region, product)) "
    "ORDER BY 1, 2, 3",
    "SELECT s.region, count(d.id), json_agg(d.id ORDER BY d.id) FROM sales s "
    "JOIN docs d ON d.id = s.id GROUP BY ROLLUP (s.region) ORDER BY 1, 2",
    "WITH s AS (SELECT * FROM sales WHERE qty > 2) SELECT region, count(*) FROM s "
    "GROUP BY ROLLUP (region) ORDER BY 1 NULLS FIRST, 2",
    "SELECT region, percentile_disc(0.5) WITHIN GROUP (ORDER BY qty), "
    "jsonb_object_agg(id, qty) FROM sales GROUP BY ROLLUP (region) ORDER BY 1, 2",
    "SELECT region, (SELECT count(*) FROM docs WHERE docs.id < length(sales.region)) "
    "FROM sales GROUP BY ROLLUP (region) ORDER BY 1, 2",
    "SELECT s.region, (SELECT count(*) FROM sales x WHERE x.region = s.region) AS same "
    "FROM sales s GROUP BY ROLLUP (s.region) ORDER BY 1, 2",
    "SELECT * FROM (SELECT region, count(*) AS n FROM sales GROUP BY CUBE (region)) c "
    "WHERE n > 1 ORDER BY 1",
    "SELECT region, count(*) FROM sales GROUP BY ROLLUP (region) UNION ALL "
    "SELECT 'all', count(*) FROM sales ORDER BY 1, 2",
    "SELECT region, count(*) FROM sales GROUP BY ROLLUP (region, 2)",
    "SELECT GROUPING(region) FROM sales",
    "SELECT region, GROUPING(product) FROM sales GROUP BY region",
    "SELECT region FROM sales WHERE GROUPING(region) = 0 GROUP BY region",
    "SELECT region FROM sales GROUP BY ROLLUP (region) HAVING GROUPING(qty) = 0",
]

JSON_FUNCTIONS = [
    "SELECT jsonb_build_object('a', 1, 'a', 2, 'bb', NULL, 'c', 'x'), "
    "jsonb_build_array(1.5, '{\"b\":1,\"a\":2}'::json), jsonb_build_object(), "
    "jsonb_build_array()",
    "SELECT json_build_object('a', 1, 'b', 'x', 'c', NULL, 'd', ARRAY[1,2], 'e', true, "
    "'f', 1.5::float8, 'g', '{\"z\": 1}'::json, 2, 3), json_build_object(), "
    "json_build_array(1, 'x', NULL, ARRAY['a'], json_build_object('k', 1)), json_build_array()",
    "SELECT json_build_object(1.5, 2, true, 3, '2024-01-01'::date, 4, 'NaN'::float8, 5)",
    "SELECT json_build_object(id, product, 'doc', doc) FROM sales JOIN docs USING (id) "
    "ORDER BY id",
    "SELECT json_build_object(NULL, 1)",
    "SELECT jsonb_build_object(NULL, 1)",
    "SELECT json_build_object('a')",
    "SELECT jsonb_build_object('a', 1, 'b')",
    "SELECT json_build_object(ARRAY[1], 1)",
    "SELECT jsonb_build_object('{\"a\":1}'::jsonb, 1)",
    "SELECT to_json(NULL::int), to_json(1::oid), to_json('1 day'::interval), "
    "to_json('\\x41'::bytea), to_json('NaN'::float8), to_json(ARRAY[1.5::float8, 'Infinity'])",
    "SELECT to_json('2024-01-02 03:04:05+05:30'::timestamptz), "
    "to_json('2024-01-02 03:04:05.25'::timestamp), to_json('2024-01-05'::date), "
    "to_json(true), to_json('a\"b\\c'::text), to_json(ARRAY['x', NULL])",
    "SELECT to_jsonb(1e20::float8), to_jsonb('NaN'::float8), to_jsonb(ARRAY[1, NULL]), "
    "to_jsonb('{\"b\": 1, \"a\": [2]}'::json), to_jsonb(note), to_json(doc) FROM sales "
    "JOIN docs USING (id) WHERE id = 1",
    "SELECT to_json('x')",
    "SELECT to_jsonb('x')",
    "SELECT row_to_json(s), to_json(s), to_jsonb(s) FROM sales s WHERE id = 4",
    "SELECT row_to_json(s, true) FROM sales s WHERE id = 2",
    "SELECT row_to_json(d) FROM docs d ORDER BY id",
    "SELECT row_to_json(1)",
    "SELECT row_to_json(x), json_agg(x.*) OVER () FROM (SELECT 1 AS a, 'b' AS \"B\") x",
    "SELECT json_agg(id) FROM sales",
    "SELECT json_agg(s) FROM sales s WHERE id < 3",
    "SELECT json_agg(ARRAY[id, qty]), json_agg(note), jsonb_agg(note) FROM sales WHERE id < 4",
    "SELECT json_agg(doc), jsonb_agg(raw), jsonb_agg(d) FROM docs d",
    "SELECT json_agg(a), jsonb_agg(b), json_object_agg(a, b), jsonb_object_agg(a, b) "
    "FROM nothing",
    "SELECT region, json_agg(qty), jsonb_agg(price) FROM sales GROUP BY region "
    "ORDER BY 1 NULLS FIRST",
    "SELECT json_agg('x')",
    "SELECT json_object_agg(product, qty), jsonb_object_agg(product, qty) FROM sales "
    "WHERE product IS NOT NULL",
    "SELECT json_object_agg('a', 1), json_object_agg(1, 'x'), jsonb_object_agg(sold, price) "
    "FROM sales WHERE id = 1",
    "SELECT json_object_agg(product, qty) FROM sales",
    "SELECT jsonb_object_agg(region, qty) FROM sales",
    "SELECT json_object_agg(ARRAY[id], qty) FROM sales",
    "SELECT jsonb_build_object('n', count(*), 'items', jsonb_agg(id)) FROM sales "
    "GROUP BY region ORDER BY 1",
    "SELECT json_object('{a,1,b,NULL}'), json_object('{a,b}', '{1,2}'), "
    "jsonb_object('{b,1,a,2,a,3}'), jsonb_object('{a,b}', '{1,NULL}'), json_object('{}')",
    "SELECT json_object('{a}')",
    "SELECT json_object('{NULL,1}')",
    "SELECT json_object('{a,b}', '{1}')",
    "SELECT jsonb_strip_nulls(doc), jsonb_pretty(doc) FROM docs ORDER BY id",
    "SELECT jsonb_strip_nulls('[null, {\"a\": null, \"b\": [null, {\"c\": null}]}]'), "
    "jsonb_pretty('[]'), jsonb_pretty('{}'), "
    "jsonb_pretty('{\"a\":[], \"b\":{}, \"c\":[1,{\"x\":[]}]}'), jsonb_pretty('1')",
    "SELECT jsonb_set(doc, '{a,c}', '5'), jsonb_set(doc, '{a,x}', '5', false), "
    "jsonb_set(doc, '{a,d,0}', '\"z\"'), jsonb_set(doc, '{a,d,-1}', '9'), "
    "jsonb_set(doc, '{a,d,10}', '9') FROM docs WHERE id = 1",
    "SELECT jsonb_set('[]', '{5}', '2'), jsonb_set('[1,2]', '{-5}', '0'), "
    "jsonb_set('[1,2]', '{-5}', '0', false), jsonb_set('{\"a\":[1]}', '{a,0,x}', '3'), "
    "jsonb_set('{}', '{a,b}', '1'), jsonb_set('{\"a\":1}', '{}', '2'), "
    "jsonb_set('{\"a\":1}', '{a}', NULL), jsonb_set('{\"a\":1}', NULL, '1')",
    "SELECT jsonb_set('[1]', '{x}', '2')",
    "SELECT jsonb_set('5', '{0}', '2')",
    "SELECT jsonb_set('{\"a\":{\"b\":1}}', '{a,NULL}', '2')",
    "SELECT jsonb_insert('[1,2]', '{0}', '0'), jsonb_insert('[1,2]', '{0}', '0', true), "
    "jsonb_insert('{\"a\":1}', '{b}', '2'), jsonb_insert('[1,2]', '{-1}', '0', true), "
    "jsonb_insert('{\"a\":[1,2]}', '{a,9}', '3')",
    "SELECT jsonb_insert('{\"a\":1}', '{a}', '2')",
    "SELECT jsonb_insert('5', '{0}', '2')",
]

JSON_ROWS = [
    "SELECT * FROM jsonb_array_elements('[1, \"a\", null, {\"b\": [2]}]')",
    "SELECT * FROM jsonb_array_elements_text('[1, \"a\", null, {\"b\": [2]}]') "
    "WITH ORDINALITY",
    "SELECT * FROM jsonb_each('{\"b\": 1, \"a\": \"x\", \"c\": null}')",
    "SELECT * FROM jsonb_each_text('{\"b\": 1, \"a\": \"x\", \"c\": null, \"d\": [1]}')",
    "SELECT * FROM jsonb_object_keys('{\"b\": 1, \"a\": \"x\"}')",
    "SELECT * FROM jsonb_object_keys('{\"b\": 1}') k",
    "SELECT * FROM jsonb_array_elements_text('[\"a\"]') x",
    "SELECT * FROM jsonb_array_elements('[\"a\"]') x(v)",
    "SELECT k, v, n FROM jsonb_each('{\"a\":1, \"bb\": [2]}') WITH ORDINALITY AS x(k, v, n) "
    "ORDER BY n DESC",
    "SELECT * FROM jsonb_each('{\"a\":1}') AS x(k, v, w)",
    "SELECT * FROM jsonb_array_elements(NULL)",
    "SELECT * FROM jsonb_array_elements('{}')",
    "SELECT * FROM jsonb_array_elements('1')",
    "SELECT * FROM jsonb_each('[]')",
    "SELECT * FROM jsonb_object_keys('[]')",
    "SELECT * FROM jsonb_object_keys('1')",
    "SELECT * FROM jsonb_each_text('1')",
    "SELECT * FROM jsonb_array_elements('[1]'::json)",
    "SELECT d.id, e.* FROM docs d, jsonb_array_elements(d.doc) e "
    "WHERE jsonb_typeof(d.doc) = 'array' ORDER BY 1",
    "SELECT d.id, e.key, e.value FROM docs d CROSS JOIN jsonb_each(d.doc) e "
    "WHERE d.id = 1 ORDER BY 2",
    "SELECT e.value ->> 'k', count(*) FROM docs, jsonb_array_elements(doc) e WHERE id = 2 "
    "GROUP BY 1 ORDER BY 1",
    "SELECT jsonb_array_elements('[1,2]'), 7",
    "SELECT jsonb_array_elements_text('[\"x\", null]') IS NULL",
    "SELECT id, jsonb_object_keys(doc) FROM docs WHERE id = 1 ORDER BY 2",
    "SELECT jsonb_array_elements_text('[\"a\", \"b\"]'), "
    "upper(jsonb_array_elements_text('[\"a\", \"b\"]'))",
    "SELECT jsonb_agg(value ORDER BY value DESC) FROM jsonb_array_elements_text('[\"b\", "
    "\"a\", \"c\"]')",
]

QUERIES = ORDERED_AGGREGATES + ORDERED_SET_AGGREGATES + GROUPING_SETS + JSON_FUNCTIONS + (
    JSON_ROWS)


peers = peers_fixture(SETUP, "aggregates")


@pytest.mark.parametrize("sql", QUERIES)
def test_same_as_postgres(peers: Peers, sql: str) -> None:
    assert_same_as_postgres(peers, sql, typmods=True, diagnosis=True)

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
QUERIES = [
    "SELECT string_agg(product, ',' ORDER BY product) FROM sales",
    "SELECT string_agg(product, ',' ORDER BY id DESC) FROM sales",
    "SELECT region, string_agg(note, '|' ORDER BY id) FROM sales GROUP BY region ORDER BY 1",
    "SELECT string_agg(DISTINCT product, ',') FROM sales",
    "SELECT string_agg(DISTINCT product, ',' ORDER BY product DESC) FROM sales",
    "SELECT array_agg(qty ORDER BY id DESC) FROM sales",
    "SELECT array_agg(qty ORDER BY qty NULLS FIRST, id) FROM sales",
    "SELECT array_agg(DISTINCT qty) FROM sales",
    "SELECT array_agg(DISTINCT region ORDER BY region DESC NULLS LAST) FROM sales",
    "SELECT array_agg(price ORDER BY price DESC, id) FILTER (WHERE qty > 4) FROM sales",
    "SELECT count(DISTINCT product), count(qty ORDER BY id), sum(qty ORDER BY qty) FROM sales",
    "SELECT json_agg(id ORDER BY id DESC), jsonb_agg(note ORDER BY id) FROM sales",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY price) FROM sales",
    "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY qty DESC), "
    "percentile_disc(0.25) WITHIN GROUP (ORDER BY qty DESC) FROM sales",
    "SELECT mode() WITHIN GROUP (ORDER BY product), mode() WITHIN GROUP (ORDER BY qty DESC) "
    "FROM sales",
    "SELECT rank(5) WITHIN GROUP (ORDER BY qty), dense_rank(5) WITHIN GROUP (ORDER BY qty), "
    "percent_rank(5) WITHIN GROUP (ORDER BY qty), cume_dist(5) WITHIN GROUP (ORDER BY qty) "
    "FROM sales",
    "SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) ORDER BY 1",
    "SELECT jsonb_build_object('a', 1)",
    "SELECT json_agg(id) FROM sales",
    "SELECT json_build_object('a', 1, 'b', 'x', 'c', NULL, 'd', ARRAY[1,2], 'e', true, "
    "'f', 1.5::float8, 'g', '{\"z\": 1}'::json, 2, 3), json_build_object(), "
    "json_build_array(1, 'x', NULL, ARRAY['a'], json_build_object('k', 1)), json_build_array()",
    "SELECT row_to_json(s), to_json(s), to_jsonb(s) FROM sales s WHERE id = 4",
    "SELECT json_agg(s) FROM sales s WHERE id < 3",
    "SELECT json_agg(ARRAY[id, qty]), json_agg(note), jsonb_agg(note) FROM sales s WHERE id < 4",
    "SELECT json_object_agg(product, qty), jsonb_object_agg(product, qty) FROM sales "
    "WHERE product IS NOT NULL",
    "SELECT json_object_agg(product, qty) FROM sales",
    "SELECT * FROM jsonb_array_elements('[1, \"a\", null, {\"b\": [2]}]')",
    "SELECT d.id, e.* FROM docs d, jsonb_array_elements(d.doc) e "
    "WHERE jsonb_typeof(d.doc) = 'array' ORDER BY 1",
    "SELECT jsonb_strip_nulls(doc), jsonb_pretty(doc) FROM docs ORDER BY id",
]

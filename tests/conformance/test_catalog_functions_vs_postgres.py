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
from asyncpg.introspection import INTRO_LOOKUP_TYPES

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
    "names_differing_only_in_case": [
        ('CREATE TABLE "Twin" (id serial PRIMARY KEY, v int)', None),
        ("CREATE TABLE twin (id int PRIMARY KEY)", None),
        ('CREATE INDEX "Twin_v" ON "Twin" (v)', None),
        ("CREATE INDEX twin_v ON twin (id)", None),
        ('INSERT INTO "Twin" (v) VALUES (1)', None),
        ("INSERT INTO twin VALUES (7)", None),
        ('SELECT * FROM "Twin"', None),
        ("SELECT * FROM twin", None),
        ('CREATE VIEW "Pair" AS SELECT 1 AS a', None),
        ("CREATE VIEW pair AS SELECT 2 AS b", None),
        ('SELECT * FROM "Pair"', None),
        ("SELECT * FROM pair", None),
        ('ALTER TABLE twin RENAME TO "TWIN"', None),
        ('SELECT * FROM "TWIN"', None),
        ('DROP TABLE "Twin", "TWIN"', None),
        ('DROP VIEW pair, "Pair"', None),
    ],
    "drop_constraint": [
        ("CREATE TABLE dp (id int PRIMARY KEY, code int NOT NULL)", None),
        ("CREATE TABLE dc (id int, pid int REFERENCES dp, v int, "
         "CONSTRAINT dc_v CHECK (v > 0))", None),
        ("INSERT INTO dp VALUES (1, 10)", None),
        ("ALTER TABLE dc DROP CONSTRAINT dc_pid_fkey", None),
        ("INSERT INTO dc VALUES (1, 99, 1)", None),
        ("ALTER TABLE dc DROP CONSTRAINT dc_v", None),
        ("INSERT INTO dc VALUES (2, 1, -5)", None),
        ("ALTER TABLE dc DROP CONSTRAINT nope", None),
        ("ALTER TABLE dc DROP CONSTRAINT IF EXISTS nope", None),
        ("ALTER TABLE dp ADD CONSTRAINT dp_code_key UNIQUE (code)", None),
        ("DELETE FROM dc", None),
        ("ALTER TABLE dc ADD CONSTRAINT dc_code FOREIGN KEY (v) REFERENCES dp (code)", None),
        ("ALTER TABLE dp DROP CONSTRAINT dp_code_key", None),
        ("ALTER TABLE dp DROP CONSTRAINT dp_code_key CASCADE", None),
        ("INSERT INTO dp VALUES (2, 10)", None),
        ("SELECT conrelid::regclass, conname FROM pg_constraint "
         "WHERE conrelid IN ('dp'::regclass, 'dc'::regclass) ORDER BY 1, 2", None),
        ("DROP TABLE dc, dp", None),
    ],
    "indexes_kept_through_a_table_rebuild": [
        ("CREATE TABLE pi (id int, t text, flag boolean, x int, CONSTRAINT pi_x CHECK (x > 0))",
         None),
        ("CREATE UNIQUE INDEX pi_t ON pi (t) WHERE flag", None),
        ("CREATE INDEX pi_d ON pi (id DESC)", None),
        ("INSERT INTO pi VALUES (1, 'a', false, 1), (2, 'a', false, 1)", None),
        ("ALTER TABLE pi DROP COLUMN x", None),
        ("INSERT INTO pi VALUES (3, 'a', false)", None),
        ("INSERT INTO pi VALUES (4, 'b', true), (5, 'b', true)", None),
        ("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'pi' ORDER BY 1", None),
        ("DROP TABLE pi", None),
    ],
    "set_and_drop_not_null": [
        ('CREATE TABLE nn (id int PRIMARY KEY, b text, c int GENERATED ALWAYS AS IDENTITY, '
         '"Odd col" int, CHECK (id > 0))', None),
        ("INSERT INTO nn (id, b) VALUES (1, NULL)", None),
        ("ALTER TABLE nn ALTER COLUMN b SET NOT NULL", None),
        ("UPDATE nn SET b = 'x', \"Odd col\" = 1", None),
        ("ALTER TABLE nn ALTER COLUMN b SET NOT NULL", None),
        ("INSERT INTO nn (id, b) VALUES (2, NULL)", None),
        ('ALTER TABLE nn ALTER "Odd col" SET NOT NULL, ALTER COLUMN b DROP NOT NULL', None),
        ("INSERT INTO nn (id, b) VALUES (3, NULL)", None),
        ('INSERT INTO nn (id, b, "Odd col") VALUES (4, NULL, NULL)', None),
        ("ALTER TABLE nn ALTER COLUMN id DROP NOT NULL", None),
        ("ALTER TABLE nn ALTER COLUMN c DROP NOT NULL", None),
        ("ALTER TABLE nn ADD COLUMN z int DEFAULT 7", None),
        ("ALTER TABLE nn ALTER COLUMN z SET NOT NULL", None),
        ("ALTER TABLE nn ALTER COLUMN nope SET NOT NULL", None),
        ("SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 'nn'::regclass "
         "AND attnum > 0 ORDER BY attnum", None),
        ("SELECT column_name, is_nullable FROM information_schema.columns "
         "WHERE table_name = 'nn' ORDER BY ordinal_position", None),
        ("DROP TABLE nn", None),
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
    # --- what pg_dump reads and what its output does ---------------------------------
    "acldefault": [
        ("SELECT acldefault('r', 10), acldefault('s', 10), acldefault('f', 10), "
         "acldefault('n', 10), acldefault('T', 10), acldefault('c', 10)", None),
        ("SELECT acldefault('l', 10), acldefault('d', 10), acldefault('F', 10), "
         "acldefault('S', 10), acldefault('L', 10), acldefault('t', 10)", None),
        ("SELECT acldefault(CASE WHEN relkind = 'S' THEN 's'::\"char\" ELSE 'r'::\"char\" "
         "END, relowner) FROM pg_class WHERE relname = 'ticket'", None),
        ("SELECT acldefault('z', 10)", None),
    ],
    "options_and_names_as_pg_dump_reads_them": [
        ("SELECT * FROM pg_options_to_table('{a=1,b=x=y,c}'::text[])", None),
        ("SELECT option_name FROM pg_options_to_table(NULL)", None),
        ("SELECT typname, typname[0], typname[1], typname[0] = '_' FROM pg_type "
         "WHERE typname IN ('_int4', 'int4') ORDER BY 1", None),
        ("SELECT 'item'::regclass::oid UNION ALL SELECT 'item'::regclass LIMIT 0", None),
        ("SELECT x = 'item'::regclass::oid AS same FROM (SELECT 'item'::regclass::oid AS x "
         "UNION ALL SELECT 'item'::regclass) AS u", None),
        ("SELECT count(*) FROM (SELECT classid, objid FROM pg_depend WHERE deptype = 'x' "
         "UNION ALL SELECT 'pg_opfamily'::regclass, 0) AS d", None),
    ],
    "sequences_read_as_relations": [
        ("CREATE SEQUENCE counted START 5 INCREMENT 3", None),
        ("SELECT last_value, is_called FROM counted", None),
        ("SELECT nextval('counted'), nextval('counted')", None),
        ("SELECT last_value, is_called FROM counted", None),
        ("SELECT setval('counted', 5, false)", None),
        ("SELECT c.last_value, c.is_called FROM counted AS c", None),
        ("SELECT format_type(seqtypid, NULL), seqstart, seqincrement, seqmax, seqmin, "
         "seqcache, seqcycle FROM pg_sequence WHERE seqrelid = 'counted'::regclass", None),
        ("CREATE SEQUENCE small AS smallint INCREMENT -1", None),
        ("SELECT format_type(seqtypid, NULL), seqstart, seqmax, seqmin FROM pg_sequence "
         "WHERE seqrelid = 'small'::regclass", None),
    ],
    "lock_table": [
        ("LOCK TABLE item IN ACCESS SHARE MODE", None),
        ("BEGIN", None),
        ("LOCK TABLE item IN ACCESS SHARE MODE", None),
        ("LOCK item, labels", None),
        ("LOCK TABLE ONLY item IN SHARE ROW EXCLUSIVE MODE NOWAIT", None),
        ("SELECT count(*) FROM item", None),
        ("COMMIT", None),
        ("BEGIN", None),
        ("LOCK TABLE ticket", None),
        ("ROLLBACK", None),
        ("BEGIN", None),
        ("LOCK TABLE no_such_table", None),
        ("ROLLBACK", None),
    ],
    "comments": [
        ("COMMENT ON TABLE item IS 'the items'", None),
        ("COMMENT ON COLUMN item.label IS 'what it says'", None),
        ("COMMENT ON VIEW labels IS 'labels only'", None),
        ("COMMENT ON SEQUENCE ticket IS 'numbers'", None),
        ("SELECT obj_description('item'::regclass, 'pg_class'), "
         "col_description('item'::regclass, 2), obj_description('labels'::regclass, 'pg_class'),"
         " obj_description('ticket'::regclass, 'pg_class')", None),
        ("SELECT objsubid, description FROM pg_description WHERE objoid = 'item'::regclass "
         "ORDER BY objsubid", None),
        ("COMMENT ON TABLE item IS ''", None),
        ("COMMENT ON COLUMN item.label IS NULL", None),
        ("SELECT count(*) FROM pg_description WHERE objoid = 'item'::regclass", None),
        ("COMMENT ON TABLE labels IS 'a view is no table'", None),
        ("COMMENT ON TABLE no_such_table IS 'x'", None),
        ("COMMENT ON COLUMN item.no_such_column IS 'x'", None),
        ("SELECT obj_description('labels'::regclass)", None),
    ],
    "identity_columns_added_and_read": [
        ("CREATE TABLE ident_kept (id int GENERATED ALWAYS AS IDENTITY, v text)", None),
        ("INSERT INTO ident_kept (id, v) VALUES (50, 'x')", None),
        ("INSERT INTO ident_kept (id, v) OVERRIDING SYSTEM VALUE VALUES (50, 'x')", None),
        ("INSERT INTO ident_kept OVERRIDING SYSTEM VALUE SELECT 51, 'y'", None),
        ("INSERT INTO ident_kept (v) VALUES ('z') RETURNING id", None),
        ("SELECT * FROM ident_kept ORDER BY id", None),
        ("CREATE TABLE later (id bigint NOT NULL, v text)", None),
        ("ALTER TABLE later ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY "
         "(START WITH 10 INCREMENT BY 5)", None),
        ("ALTER TABLE later ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY", None),
        ("ALTER TABLE later ALTER COLUMN v ADD GENERATED ALWAYS AS IDENTITY", None),
        ("INSERT INTO later (v) VALUES ('a'), ('b')", None),
        ("SELECT * FROM later ORDER BY id", None),
        ("SELECT a.attrelid::regclass AS rel, attname, attidentity, atthasdef, attnotnull "
         "FROM pg_attribute a WHERE attrelid IN ('ident_kept'::regclass, 'later'::regclass) "
         "AND attnum > 0 ORDER BY attrelid, attnum", None),
        ("SELECT refobjid::regclass AS owner, refobjsubid, deptype FROM pg_depend "
         "WHERE objid IN ('ident_kept_id_seq'::regclass, 'later_id_seq'::regclass) "
         "AND refclassid = 'pg_class'::regclass ORDER BY refobjid", None),
        ("SELECT count(*) FROM pg_attrdef WHERE adrelid IN ('ident_kept'::regclass, "
         "'later'::regclass)", None),
        ("SELECT format_type(seqtypid, NULL), seqstart, seqincrement FROM pg_sequence "
         "WHERE seqrelid IN ('ident_kept_id_seq'::regclass, 'later_id_seq'::regclass) "
         "ORDER BY seqrelid", None),
        ("SELECT last_value, is_called FROM later_id_seq", None),
    ],
    "alter_table_add_constraint": [
        ("CREATE TABLE keyed (a int NOT NULL, b int, c int)", None),
        ("INSERT INTO keyed VALUES (1, 1, 1), (1, 2, 2), (2, NULL, 3)", None),
        ("ALTER TABLE ONLY keyed ADD CONSTRAINT keyed_pkey PRIMARY KEY (a)", None),
        ("DELETE FROM keyed WHERE b = 2", None),
        ("ALTER TABLE ONLY keyed ADD CONSTRAINT keyed_pkey PRIMARY KEY (a)", None),
        ("ALTER TABLE keyed ADD CONSTRAINT keyed_pkey UNIQUE (b)", None),
        ("ALTER TABLE keyed ADD PRIMARY KEY (b)", None),
        ("ALTER TABLE keyed ADD CONSTRAINT keyed_bc UNIQUE (b, c)", None),
        ("INSERT INTO keyed VALUES (3, 1, 1)", None),
        ("ALTER TABLE keyed ADD CONSTRAINT positive CHECK (c > 1)", None),
        ("ALTER TABLE keyed ADD CONSTRAINT positive CHECK ((c > 0))", None),
        ("INSERT INTO keyed VALUES (4, 4, 0)", None),
        ("CREATE TABLE refers (k int, CONSTRAINT refers_b UNIQUE (k))", None),
        ("INSERT INTO refers VALUES (1), (9)", None),
        ("ALTER TABLE ONLY refers ADD CONSTRAINT refers_k_fkey FOREIGN KEY (k) "
         "REFERENCES keyed(a) ON DELETE CASCADE", None),
        ("DELETE FROM refers WHERE k = 9", None),
        ("ALTER TABLE refers ADD CONSTRAINT refers_c FOREIGN KEY (k) REFERENCES keyed(c)", None),
        ("ALTER TABLE ONLY refers ADD CONSTRAINT refers_k_fkey FOREIGN KEY (k) "
         "REFERENCES keyed(a) ON DELETE CASCADE", None),
        ("INSERT INTO refers VALUES (7)", None),
        ("DELETE FROM keyed WHERE a = 1", None),
        ("SELECT count(*) FROM refers", None),
        ("SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
         "WHERE conrelid IN ('keyed'::regclass, 'refers'::regclass) ORDER BY 1", None),
        ("SELECT indexrelid::regclass AS index, indisunique, indisprimary FROM pg_index "
         "WHERE indrelid = 'keyed'::regclass ORDER BY indexrelid", None),
        ("ALTER TABLE keyed ALTER COLUMN b SET DEFAULT 40 + 2", None),
        ("INSERT INTO keyed (a, c) VALUES (5, 5)", None),
        ("SELECT b FROM keyed WHERE a = 5", None),
        ("ALTER TABLE keyed ALTER COLUMN b DROP DEFAULT", None),
        ("SELECT count(*) FROM pg_attrdef WHERE adrelid = 'keyed'::regclass", None),
    ],
    "defaults_bind_the_sequences_they_name": [
        ("CREATE TABLE numbered (id int DEFAULT nextval('ticket'), n serial)", None),
        ("SELECT attname, pg_get_expr(adbin, adrelid) FROM pg_attrdef JOIN pg_attribute "
         "ON attrelid = adrelid AND attnum = adnum WHERE adrelid = 'numbered'::regclass "
         "ORDER BY adnum", None),
        ("SELECT refobjid::regclass AS used, deptype FROM pg_depend WHERE classid = "
         "'pg_attrdef'::regclass AND refobjid IN ('ticket'::regclass, "
         "'numbered_n_seq'::regclass) ORDER BY refobjid", None),
        ("SELECT pg_catalog.set_config('search_path', '', false)", None),
        ("SELECT pg_catalog.current_schemas(false)", None),
        ("SELECT a.attname, pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM "
         "pg_catalog.pg_attrdef d JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid "
         "AND a.attnum = d.adnum WHERE d.adrelid = (SELECT c.oid FROM pg_catalog.pg_class c "
         "WHERE c.relname = 'numbered') ORDER BY d.adnum", None),
        ("SELECT count(*) FROM item", None),
        ("CREATE TABLE nowhere (a int)", None),
    ],
    "describe_objects": [
        ("CREATE PROCEDURE described(x int, y text) LANGUAGE sql AS $$ SELECT 1 $$", None),
        ("SELECT pg_describe_object('pg_class'::regclass, 'item'::regclass, 0), "
         "pg_describe_object('pg_class'::regclass, 'item'::regclass, 2), "
         "pg_describe_object('pg_class'::regclass, 'ticket'::regclass, 0), "
         "pg_describe_object('pg_class'::regclass, 'labels'::regclass, 0), "
         "pg_describe_object('pg_class'::regclass, 'item_pkey'::regclass, 0), "
         "pg_describe_object('pg_class'::regclass, 4000000000, 0)", None),
        ("SELECT pg_describe_object('pg_proc'::regclass, oid, 0) FROM pg_proc "
         "WHERE proname = 'described'", None),
        ("SELECT pg_describe_object('pg_namespace'::regclass, oid, 0) = 'schema ' || nspname "
         "FROM pg_namespace WHERE nspname = current_schema()", None),
        ("SELECT pg_catalog.set_config('search_path', '', false)", None),
        ("SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, "
         "c.oid, 1) FROM pg_catalog.pg_class c WHERE c.relname = 'item'", None),
    ],
    "owners": [
        ("ALTER TABLE item OWNER TO postgres", None),
        ("ALTER TABLE ticket OWNER TO postgres", None),
        ("ALTER SEQUENCE ticket OWNER TO postgres", None),
        ("ALTER VIEW labels OWNER TO CURRENT_USER", None),
        ("ALTER TABLE item OWNER TO no_such_role", None),
        ("ALTER SEQUENCE item OWNER TO postgres", None),
        ("SELECT relname, pg_get_userbyid(relowner) FROM pg_class "
         "WHERE relname IN ('item', 'ticket', 'labels') ORDER BY 1", None),
        ("CREATE SEQUENCE item_rank", None),
        ("ALTER SEQUENCE item_rank OWNED BY item.id", None),
        ("SELECT refobjid::regclass, refobjsubid, deptype FROM pg_depend "
         "WHERE objid = 'item_rank'::regclass AND refclassid = 'pg_class'::regclass", None),
        ("ALTER SEQUENCE item_rank OWNED BY item.no_such_column", None),
        ("ALTER SEQUENCE item_rank OWNED BY NONE", None),
        ("SELECT count(*) FROM pg_depend WHERE objid = 'item_rank'::regclass "
         "AND refclassid = 'pg_class'::regclass", None),
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
        ("SELECT attname, attidentity, atthasdef, attnotnull FROM pg_attribute "
         "WHERE attrelid = 'ident'::regclass AND attnum > 0 ORDER BY attnum", None),
        ("SELECT count(*) FROM pg_attrdef WHERE adrelid = 'ident'::regclass", None),
        ("SELECT pg_get_serial_sequence('ident', 'a'), pg_get_serial_sequence('ident', 'b')",
         None),
        ("SELECT column_name, column_default, is_identity FROM information_schema.columns "
         "WHERE table_name = 'ident' ORDER BY ordinal_position", None),
        ("SELECT c.relname, d.deptype FROM pg_depend d JOIN pg_class c ON c.oid = d.objid "
         "WHERE d.refobjid = 'ident'::regclass AND c.relkind = 'S' ORDER BY 1", None),
        ("SELECT seqstart, seqincrement, seqcycle FROM pg_sequence "
         "WHERE seqrelid = pg_get_serial_sequence('ident', 'b')::regclass", None),
        ("INSERT INTO ident (c) VALUES ('x') RETURNING a, b, c", None),
        ("INSERT INTO ident (a, c) VALUES (7, 'y')", None),
        ("INSERT INTO ident (a, c) VALUES (DEFAULT, 'y') RETURNING a, b", None),
        ("INSERT INTO ident (b, c) VALUES (7, 'z') RETURNING a, b", None),
        ("UPDATE ident SET a = 3", None),
        ("UPDATE ident SET b = 4 WHERE c = 'z' RETURNING a, b", None),
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
        # regclass arguments as written (pg_dump writes them so), constants
        # the grammar folds, a timestamptz constant read in the writer's zone
        ("SET timezone TO 'America/New_York'", None),
        ("CREATE TABLE bound (a bigint DEFAULT nextval('ticket'::regclass), "
         "b bigint DEFAULT nextval('ticket'::text::regclass), c int DEFAULT -(1), "
         "d int DEFAULT -(-(2)), e bigint DEFAULT 1::int, f int DEFAULT (-1)::int, "
         "g bigint DEFAULT -2147483648, h timestamptz DEFAULT '2020-01-01 00:00', i int)",
         None),
        ("INSERT INTO bound (i) VALUES (1) RETURNING c, d, e, f, g, h::text", None),
        ("SET timezone TO 'UTC'", None),
        ("SELECT attname, pg_get_expr(adbin, adrelid) FROM pg_attrdef "
         "JOIN pg_attribute ON attrelid = adrelid AND attnum = adnum "
         "WHERE adrelid = 'bound'::regclass ORDER BY adnum", None),
        ("DROP TABLE bound", None),
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
        ('CREATE TABLE elsewhere."Other" ("Id" serial)', None),
        ("SELECT pg_get_serial_sequence('elsewhere.\"Other\"', 'Id')", None),
        ("DROP SCHEMA elsewhere CASCADE", None),
    ],
    "keywords_and_record_functions": [
        ("SELECT count(*), count(*) FILTER (WHERE catcode = 'R'), "
         "count(*) FILTER (WHERE barelabel) FROM pg_get_keywords()", None),
        ("SELECT * FROM pg_catalog.pg_get_keywords() "
         "WHERE word IN ('abort', 'between', 'name', 'order', 'select') ORDER BY word", None),
        # what pgjdbc's getSQLKeywords() asks
        ("SELECT string_agg(word, ',') FROM pg_catalog.pg_get_keywords() "
         "WHERE word <> ALL ('{a,abort,select,zone}')", None),
        ("SELECT x, n FROM information_schema._pg_expandarray(ARRAY[10, 20])", None),
        ("SELECT e.x FROM information_schema._pg_expandarray('{5,6}'::int[]) e "
         "WHERE e.n = 2", None),
        ("SELECT 'c' <> ALL ('{a,b}'), 'a' <> ALL (ARRAY['a', 'b']), "
         "1 = SOME ('{1,2}'::int[]), 3 = ANY ('{1,2}'::int[])", None),
    ],
    "column_defaults": [
        ("CREATE TABLE defaults (id serial, big bigserial, a int DEFAULT -1, "
         "b text DEFAULT 'x', c varchar(10) DEFAULT 'y', d char(3) DEFAULT 'z', "
         "e numeric(10,2) DEFAULT 1.5, f numeric DEFAULT 1e3, g bigint DEFAULT 10000000000, "
         "h boolean DEFAULT true, i timestamptz DEFAULT now(), j date DEFAULT CURRENT_DATE, "
         "k int[] DEFAULT '{1,2}', l jsonb DEFAULT '{}'::jsonb, m text DEFAULT 'a' || 'b', "
         "n float8 DEFAULT 2 ^ 3, o interval DEFAULT '1 hour'::interval * 2, "
         "p text DEFAULT upper('q'), q int DEFAULT NULL, "
         "r text DEFAULT CASE WHEN true THEN 'a' ELSE 'b' END, "
         "s bigint DEFAULT nextval('ticket'), t numeric DEFAULT 1.5 * 2, "
         "u float8 DEFAULT -0.5, v varchar(5) DEFAULT 'v'::varchar(5), w text DEFAULT 'it''s', "
         "x numeric(5,1) DEFAULT 1.25::numeric(5,1), y text DEFAULT CASE 1 WHEN 1 THEN 'one' END, "
         "z jsonb DEFAULT jsonb_build_object('a', 1), aa text DEFAULT $$d$$, "
         "ab int[] DEFAULT ARRAY[]::int[], ac text DEFAULT 'a' || 'b'::varchar)", None),
        ("SELECT a.attname, a.atthasdef, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a "
         "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
         "WHERE a.attrelid = 'defaults'::regclass AND a.attnum > 0 ORDER BY a.attnum", None),
        ("INSERT INTO defaults DEFAULT VALUES RETURNING id, big, a, b, c, d, e, f, g, h, k, "
         "l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac", None),
        # a sequence outside the search path is named with its schema
        ("SET search_path TO public", None),
        ("SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_class c "
         "ON c.oid = d.adrelid WHERE c.relname = 'defaults' AND d.adnum IN (1, 2, 19) "
         "ORDER BY d.adnum", None),
    ],
    "partial_indexes": [
        ("CREATE TABLE part (i int, t text, v varchar(10), n numeric(10,2), flag boolean)",
         None),
        ("CREATE INDEX part_i ON part (i) WHERE i > 10", None),
        ("CREATE UNIQUE INDEX part_t ON part (t) WHERE flag", None),
        ("CREATE INDEX part_v ON part (v) WHERE v IN ('a', 'b') AND n > i AND t NOT IN ('c')",
         None),
        ("SELECT indexrelid::regclass, pg_get_expr(indpred, indrelid), "
         "pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'part'::regclass "
         "ORDER BY 1", None),
        ("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'part' ORDER BY 1",
         None),
        ("INSERT INTO part VALUES (1, 'a', 'a', 1, false), (2, 'a', 'a', 1, false)", None),
        ("INSERT INTO part VALUES (3, 'b', 'b', 1, true), (4, 'b', 'b', 1, true)", None),
        ("SELECT count(*) FROM part", None),
    ],
    "names_types_and_row_types": [
        ("SELECT format_type(1042, -1), format_type(1042, NULL), format_type(1014, -1), "
         "format_type(1042, 8), format_type(1043, -1)", None),
        ('CREATE TABLE "Quoted" ("order" int PRIMARY KEY, "Mixed" int UNIQUE, plain int)',
         None),
        ("SELECT pg_get_constraintdef(oid) FROM pg_constraint "
         "WHERE conrelid = '\"Quoted\"'::regclass ORDER BY conname", None),
        ("SELECT pg_get_indexdef(indexrelid) FROM pg_index "
         "WHERE indrelid = '\"Quoted\"'::regclass ORDER BY 1", None),
        ("SELECT t.typname, t.typtype, t.typcategory, t.typrelid = c.oid, a.typname, "
         "a.typelem = t.oid, a.typcategory FROM pg_class c JOIN pg_type t ON t.oid = c.reltype "
         "JOIN pg_type a ON a.oid = t.typarray "
         "WHERE c.relname IN ('item', 'labels', 'Quoted') ORDER BY 1", None),
        ("SELECT relname, reltype FROM pg_class WHERE relname IN ('ticket', 'item_pkey') "
         "ORDER BY 1", None),
        ("SELECT typname, typlen, typbyval, typinput, typoutput, typreceive, typsend, "
         "typalign, typstorage, typsubscript, typanalyze, typdelim FROM pg_type "
         "WHERE typname IN ('item', '_item') ORDER BY typname", None),
    ],
    "asyncpg_type_introspection": [
        # asyncpg's own query; rows of the same depth come in no particular order
        (f"SELECT * FROM ({INTRO_LOOKUP_TYPES.replace('$1', '%s')}) AS found "
         "ORDER BY depth, oid", ([3802, 1007, 2950, 17, 1184, 1016],)),
        ("SELECT 1 WHERE 23 = any('{23,25}'::oid[]) AND 26 = any(%s::oid[])", ([26],)),
        ("SELECT rngtypid, rngsubtype, rngmultitypid, rngcollation, rngsubopc, rngcanonical, "
         "rngsubdiff FROM pg_range WHERE rngtypid = 0", None),
        ('SELECT %s::"pg_catalog"."int4", %s::"pg_catalog"."_text", '
         "'abc'::text::pg_catalog.varchar(2), %s::pg_catalog.numeric(5,1)", ("7", "{a,b}", "1.25")),
        ('SELECT 1::"pg_catalog"."INT4"', None),
        ("SELECT 1::pg_catalog.int", None),
        ("SELECT 1::public.int4", None),
        ("SELECT 1 WHERE %s", (True,)),
        ("SELECT pg_advisory_unlock_all()", None),
        ("SELECT '1 2'::int2vector, ''::int2vector, ' 23  25 '::oidvector", None),
        ("SELECT '{1,2}'::int2vector", None),
        ("SELECT 'ab'::char(4)::text || '|', 'ab '::char(4)::varchar(1), "
         "'ab'::char(4)::name", None),
        # SQLAlchemy's asyncpg dialect reflects identity columns by attidentity != $1::CHAR
        ("SELECT 'a'::text = 'a '::char(3), 'a '::char(3) <> 'a'::varchar, "
         "''::\"char\" <> %s::char, 'd'::\"char\" <> %s::char", ("", "")),
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

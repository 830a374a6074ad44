-- The EE-trigger chain of the S-Store paper (§4.2, Figure 6): nine EE
-- triggers, each run inside the transaction that inserted into its stream and
-- inserting into the next one. One INSERT into link_0 runs the whole chain in
-- its own transaction; every stream of the chain is emptied once its trigger
-- has run.
--
--   psql -h 127.0.0.1 -p 5499 -U postgres -f examples/chains/ee_chain.sql
--   INSERT INTO link_0 VALUES (1, 'x');
--   SELECT * FROM link_done;

CREATE TABLE link_done (id int, payload text);
CREATE STREAM link_0 (id int NOT NULL, payload text);
CREATE STREAM link_1 (id int NOT NULL, payload text);
CREATE STREAM link_2 (id int NOT NULL, payload text);
CREATE STREAM link_3 (id int NOT NULL, payload text);
CREATE STREAM link_4 (id int NOT NULL, payload text);
CREATE STREAM link_5 (id int NOT NULL, payload text);
CREATE STREAM link_6 (id int NOT NULL, payload text);
CREATE STREAM link_7 (id int NOT NULL, payload text);
CREATE STREAM link_8 (id int NOT NULL, payload text);
CREATE TRIGGER pass_0 AFTER INSERT ON link_0 AS $$ INSERT INTO link_1 SELECT id, payload FROM link_0; $$;
CREATE TRIGGER pass_1 AFTER INSERT ON link_1 AS $$ INSERT INTO link_2 SELECT id, payload FROM link_1; $$;
CREATE TRIGGER pass_2 AFTER INSERT ON link_2 AS $$ INSERT INTO link_3 SELECT id, payload FROM link_2; $$;
CREATE TRIGGER pass_3 AFTER INSERT ON link_3 AS $$ INSERT INTO link_4 SELECT id, payload FROM link_3; $$;
CREATE TRIGGER pass_4 AFTER INSERT ON link_4 AS $$ INSERT INTO link_5 SELECT id, payload FROM link_4; $$;
CREATE TRIGGER pass_5 AFTER INSERT ON link_5 AS $$ INSERT INTO link_6 SELECT id, payload FROM link_5; $$;
CREATE TRIGGER pass_6 AFTER INSERT ON link_6 AS $$ INSERT INTO link_7 SELECT id, payload FROM link_6; $$;
CREATE TRIGGER pass_7 AFTER INSERT ON link_7 AS $$ INSERT INTO link_8 SELECT id, payload FROM link_7; $$;
CREATE TRIGGER pass_8 AFTER INSERT ON link_8 AS $$ INSERT INTO link_done SELECT id, payload FROM link_8; $$;

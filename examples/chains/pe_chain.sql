-- The PE-trigger chain of the S-Store paper (§4.2, Figure 7): ten stored
-- procedures, each started by a PE trigger on the stream the previous one
-- writes. Every batch a client inserts into chain_0 runs through all ten,
-- each step its own transaction, before the next client transaction.
--
--   psql -h 127.0.0.1 -p 5499 -U postgres -f examples/chains/pe_chain.sql
--   INSERT INTO chain_0 VALUES (1, 'x');      -- one batch
--   SELECT sqlext_drain(5); SELECT * FROM chain_done;
--
-- The client-driven variant of the benchmark calls step_1 ... step_10 itself
-- (CALL step_n()) with no triggers.

CREATE TABLE chain_done (id int, payload text, batch bigint);
CREATE STREAM chain_0 (id int NOT NULL, payload text);
CREATE STREAM chain_1 (id int NOT NULL, payload text);
CREATE STREAM chain_2 (id int NOT NULL, payload text);
CREATE STREAM chain_3 (id int NOT NULL, payload text);
CREATE STREAM chain_4 (id int NOT NULL, payload text);
CREATE STREAM chain_5 (id int NOT NULL, payload text);
CREATE STREAM chain_6 (id int NOT NULL, payload text);
CREATE STREAM chain_7 (id int NOT NULL, payload text);
CREATE STREAM chain_8 (id int NOT NULL, payload text);
CREATE STREAM chain_9 (id int NOT NULL, payload text);
CREATE PROCEDURE step_1() LANGUAGE sql AS $$ INSERT INTO chain_1 SELECT id, payload FROM chain_0; $$;
CREATE TRIGGER start_step_1 AFTER INSERT ON chain_0 EXECUTE PROCEDURE step_1();
CREATE PROCEDURE step_2() LANGUAGE sql AS $$ INSERT INTO chain_2 SELECT id, payload FROM chain_1; $$;
CREATE TRIGGER start_step_2 AFTER INSERT ON chain_1 EXECUTE PROCEDURE step_2();
CREATE PROCEDURE step_3() LANGUAGE sql AS $$ INSERT INTO chain_3 SELECT id, payload FROM chain_2; $$;
CREATE TRIGGER start_step_3 AFTER INSERT ON chain_2 EXECUTE PROCEDURE step_3();
CREATE PROCEDURE step_4() LANGUAGE sql AS $$ INSERT INTO chain_4 SELECT id, payload FROM chain_3; $$;
CREATE TRIGGER start_step_4 AFTER INSERT ON chain_3 EXECUTE PROCEDURE step_4();
CREATE PROCEDURE step_5() LANGUAGE sql AS $$ INSERT INTO chain_5 SELECT id, payload FROM chain_4; $$;
CREATE TRIGGER start_step_5 AFTER INSERT ON chain_4 EXECUTE PROCEDURE step_5();
CREATE PROCEDURE step_6() LANGUAGE sql AS $$ INSERT INTO chain_6 SELECT id, payload FROM chain_5; $$;
CREATE TRIGGER start_step_6 AFTER INSERT ON chain_5 EXECUTE PROCEDURE step_6();
CREATE PROCEDURE step_7() LANGUAGE sql AS $$ INSERT INTO chain_7 SELECT id, payload FROM chain_6; $$;
CREATE TRIGGER start_step_7 AFTER INSERT ON chain_6 EXECUTE PROCEDURE step_7();
CREATE PROCEDURE step_8() LANGUAGE sql AS $$ INSERT INTO chain_8 SELECT id, payload FROM chain_7; $$;
CREATE TRIGGER start_step_8 AFTER INSERT ON chain_7 EXECUTE PROCEDURE step_8();
CREATE PROCEDURE step_9() LANGUAGE sql AS $$ INSERT INTO chain_9 SELECT id, payload FROM chain_8; $$;
CREATE TRIGGER start_step_9 AFTER INSERT ON chain_8 EXECUTE PROCEDURE step_9();
CREATE PROCEDURE step_10() LANGUAGE sql AS $$ INSERT INTO chain_done SELECT id, payload, batch_id FROM chain_9; $$;
CREATE TRIGGER start_step_10 AFTER INSERT ON chain_9 EXECUTE PROCEDURE step_10();

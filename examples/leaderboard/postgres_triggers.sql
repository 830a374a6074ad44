-- The Leaderboard in PostgreSQL, driven by the server: every vote inserted
-- into votes_in runs the three procedures of client_driven.sql from a
-- PL/pgSQL trigger, in the inserting transaction. `sqlext bench leaderboard`
-- compares sqlext's dataflow with this (load the tables of leaderboard.sql
-- and client_driven.sql first).
CREATE TABLE votes_in (
    vote_id           bigint NOT NULL,
    phone_number      bigint NOT NULL,
    contestant_number integer NOT NULL
);

CREATE FUNCTION lb_on_vote() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    CALL lb_validate(NEW.vote_id, NEW.phone_number, NEW.contestant_number);
    CALL lb_count(NEW.vote_id);
    CALL lb_remove();
    RETURN NULL;
END
$$;

CREATE TRIGGER lb_vote AFTER INSERT ON votes_in
    FOR EACH ROW EXECUTE FUNCTION lb_on_vote();

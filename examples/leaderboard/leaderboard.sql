-- The Leaderboard of the S-Store paper (variant P: 50 contestants, one vote
-- per phone number, the contestant with the fewest votes is removed every
-- 20,000 valid votes, a trending board over the last 100 valid votes that
-- refreshes every 10), written in SQL only.
--
--   votes_in ──validate──▶ valid_votes ──count_votes──▶ removal_due ──remove_lowest
--                              │
--                              └─▶ window trending (ROWS 100 SLIDE 10)
--                                     └─ AFTER SLIDE: recompute the trending board
--
-- The per-contestant and per-phone vote counts are materialized views, kept
-- up to date inside each transaction that changes votes (as S-Store's
-- H-Store views v_votes_by_contestant and v_votes_by_phone_number).
--
-- Each vote a client inserts into votes_in is one batch (one transaction).
-- Load it with:  psql -h 127.0.0.1 -p 5499 -U postgres -f examples/leaderboard/leaderboard.sql

CREATE TABLE contestants (
    contestant_number integer PRIMARY KEY,
    contestant_name   varchar(50) NOT NULL
);
CREATE TABLE area_code_state (
    area_code smallint PRIMARY KEY,
    state     varchar(2) NOT NULL
);
CREATE TABLE votes (
    vote_id           bigint PRIMARY KEY,
    phone_number      bigint NOT NULL,
    state             varchar(2) NOT NULL,
    contestant_number integer NOT NULL REFERENCES contestants,
    created           timestamptz NOT NULL
);
CREATE INDEX votes_by_phone ON votes (phone_number);
CREATE INDEX votes_by_contestant ON votes (contestant_number);
-- The trending board: votes per contestant among the last 100 valid votes.
CREATE TABLE leaderboard (
    contestant_number integer PRIMARY KEY,
    num_votes         integer NOT NULL
);
-- Valid votes: since the last removal, and in all.
CREATE TABLE votes_count (
    row_id integer PRIMARY KEY,
    cnt    integer NOT NULL,
    total  integer NOT NULL
);
INSERT INTO votes_count VALUES (1, 0, 0);
-- Every 100 valid votes: the trending and the overall top three.
CREATE TABLE board_history (
    valid_votes integer PRIMARY KEY,
    trending    text,
    overall     text
);
CREATE TABLE removals (
    round             serial PRIMARY KEY,
    contestant_number integer NOT NULL,
    num_votes         integer NOT NULL
);

-- 50 contestants; area codes 200-504 spread over the states (the S-Store
-- benchmark ships 305 real pairs; these are synthetic).
INSERT INTO contestants
    SELECT n, 'Contestant ' || n FROM generate_series(1, 50) AS n;
INSERT INTO area_code_state
    SELECT 200 + n, (ARRAY['AL','AK','AZ','AR','CA','CO','CT','DE','DC','FL','GA','HI','ID',
                           'IL','IN','IA','KS','KY','LA','ME','MD','MA','MI','MN','MS','MO',
                           'MT','NE','NV','NH','NJ','NM','NY','NC','ND','OH','OK','OR','PA',
                           'RI','SC','SD','TN','TX','UT','VT','VA','WA','WV','WI','WY'])[n % 51 + 1]
    FROM generate_series(0, 304) AS n;

CREATE STREAM votes_in (vote_id bigint NOT NULL, phone_number bigint NOT NULL,
                        contestant_number integer NOT NULL);
CREATE STREAM valid_votes (vote_id bigint NOT NULL, phone_number bigint NOT NULL,
                           state varchar(2) NOT NULL, contestant_number integer NOT NULL,
                           created timestamptz NOT NULL);
CREATE STREAM removal_due (valid_votes integer NOT NULL);
CREATE WINDOW trending ON valid_votes ROWS 100 SLIDE 10;

-- Maintained incrementally: each vote inserted or deleted updates one row of each.
CREATE MATERIALIZED VIEW v_votes_by_contestant AS
    SELECT contestant_number, count(*) AS num_votes FROM votes GROUP BY contestant_number;
CREATE MATERIALIZED VIEW v_votes_by_phone_number AS
    SELECT phone_number, count(*) AS num_votes FROM votes GROUP BY phone_number;

-- SP1: a vote counts if its contestant still runs and its phone has not voted.
CREATE PROCEDURE validate() BEGIN ATOMIC
    INSERT INTO votes (vote_id, phone_number, state, contestant_number, created)
        SELECT v.vote_id, v.phone_number, coalesce(a.state, 'XX'), v.contestant_number, now()
        FROM votes_in v
        JOIN contestants c ON c.contestant_number = v.contestant_number
        LEFT JOIN area_code_state a ON a.area_code = v.phone_number / 10000000
        WHERE NOT EXISTS (SELECT 1 FROM v_votes_by_phone_number p
                          WHERE p.phone_number = v.phone_number);
    INSERT INTO valid_votes
        SELECT vote_id, phone_number, state, contestant_number, created FROM votes
        WHERE vote_id IN (SELECT vote_id FROM votes_in);
END;

-- SP2: count valid votes; every 20,000 ask for the lowest contestant's removal,
-- and every 100 record the boards.
CREATE PROCEDURE count_votes() BEGIN ATOMIC
    UPDATE votes_count SET cnt = cnt + (SELECT count(*) FROM valid_votes),
                           total = total + (SELECT count(*) FROM valid_votes)
        WHERE row_id = 1;
    INSERT INTO board_history
        SELECT total,
               (SELECT string_agg(contestant_number || ':' || num_votes, ',')
                FROM (SELECT contestant_number, num_votes FROM leaderboard
                      ORDER BY num_votes DESC, contestant_number LIMIT 3) AS top),
               (SELECT string_agg(contestant_number || ':' || num_votes, ',')
                FROM (SELECT contestant_number, num_votes FROM v_votes_by_contestant
                      ORDER BY num_votes DESC, contestant_number LIMIT 3) AS top)
        FROM votes_count WHERE row_id = 1 AND total % 100 = 0;
    INSERT INTO removal_due SELECT total FROM votes_count WHERE row_id = 1 AND cnt >= 20000;
    UPDATE votes_count SET cnt = cnt - 20000 WHERE row_id = 1 AND cnt >= 20000;
END;

-- SP3: remove the contestant with the fewest votes (ties: the highest number).
CREATE PROCEDURE remove_lowest() BEGIN ATOMIC
    INSERT INTO removals (contestant_number, num_votes)
        SELECT contestant_number, num_votes FROM v_votes_by_contestant
        ORDER BY num_votes ASC, contestant_number DESC LIMIT 1;
    DELETE FROM votes WHERE contestant_number =
        (SELECT contestant_number FROM removals ORDER BY round DESC LIMIT 1);
    DELETE FROM leaderboard WHERE contestant_number =
        (SELECT contestant_number FROM removals ORDER BY round DESC LIMIT 1);
    DELETE FROM contestants WHERE contestant_number =
        (SELECT contestant_number FROM removals ORDER BY round DESC LIMIT 1);
END;

CREATE TRIGGER validate_votes AFTER INSERT ON votes_in EXECUTE PROCEDURE validate();
CREATE TRIGGER count_valid_votes AFTER INSERT ON valid_votes EXECUTE PROCEDURE count_votes();
CREATE TRIGGER remove_contestant AFTER INSERT ON removal_due
    EXECUTE PROCEDURE remove_lowest();
-- EE trigger: each slide of the window recomputes the trending board, in the
-- transaction that made the window slide.
CREATE TRIGGER refresh_trending AFTER SLIDE ON trending AS $$
    DELETE FROM leaderboard;
    INSERT INTO leaderboard (contestant_number, num_votes)
        SELECT t.contestant_number, count(*) FROM trending t
        JOIN contestants c ON c.contestant_number = t.contestant_number
        GROUP BY t.contestant_number;
$$;

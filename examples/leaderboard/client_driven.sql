-- The Leaderboard without a dataflow: the rules of leaderboard.sql as three
-- procedures that a client calls for every vote, in order, each in a
-- transaction of its own (S-Store's "client-driven" baseline). It runs on
-- sqlext and on PostgreSQL, after the tables of leaderboard.sql (everything
-- before its first CREATE STREAM). `sqlext bench leaderboard` checks that
-- every way of running the benchmark ends in the same state.
--
-- The trending window (the last 100 valid votes, sliding every 10) is a
-- table here: the client-driven program keeps it itself.
CREATE TABLE trending_votes (
    seq               integer PRIMARY KEY,
    contestant_number integer NOT NULL
);

-- 1: a vote counts if its contestant still runs and its phone has not voted.
CREATE PROCEDURE lb_validate(p_vote_id bigint, p_phone bigint, p_contestant integer)
BEGIN ATOMIC
    INSERT INTO votes (vote_id, phone_number, state, contestant_number, created)
        SELECT p_vote_id, p_phone,
               coalesce((SELECT state FROM area_code_state
                         WHERE area_code = p_phone / 10000000), 'XX'),
               p_contestant, now()
        WHERE EXISTS (SELECT 1 FROM contestants WHERE contestant_number = p_contestant)
          AND NOT EXISTS (SELECT 1 FROM votes WHERE phone_number = p_phone);
END;

-- 2: count a valid vote; it enters the window, which slides when it first
-- holds 100 votes and every 10 votes after that; every 100 votes the boards
-- are recorded.
CREATE PROCEDURE lb_count(p_vote_id bigint)
BEGIN ATOMIC
    UPDATE votes_count SET cnt = cnt + 1, total = total + 1
        WHERE row_id = 1 AND EXISTS (SELECT 1 FROM votes WHERE vote_id = p_vote_id);
    INSERT INTO trending_votes
        SELECT c.total, v.contestant_number FROM votes_count c, votes v
        WHERE c.row_id = 1 AND v.vote_id = p_vote_id;
    DELETE FROM leaderboard
        WHERE EXISTS (SELECT 1 FROM votes WHERE vote_id = p_vote_id)
          AND EXISTS (SELECT 1 FROM votes_count WHERE row_id = 1
                      AND (total = 100 OR (total > 100 AND total % 10 = 0)));
    INSERT INTO leaderboard (contestant_number, num_votes)
        SELECT t.contestant_number, count(*) FROM trending_votes t
        JOIN contestants c ON c.contestant_number = t.contestant_number
        WHERE t.seq > (SELECT total - 100 FROM votes_count WHERE row_id = 1)
          AND EXISTS (SELECT 1 FROM votes WHERE vote_id = p_vote_id)
          AND EXISTS (SELECT 1 FROM votes_count WHERE row_id = 1
                      AND (total = 100 OR (total > 100 AND total % 10 = 0)))
        GROUP BY t.contestant_number;
    DELETE FROM trending_votes
        WHERE seq <= (SELECT total - 100 FROM votes_count WHERE row_id = 1);
    INSERT INTO board_history
        SELECT total,
               (SELECT string_agg(contestant_number || ':' || num_votes, ',')
                FROM (SELECT contestant_number, num_votes FROM leaderboard
                      ORDER BY num_votes DESC, contestant_number LIMIT 3) AS top),
               (SELECT string_agg(contestant_number || ':' || num_votes, ',')
                FROM (SELECT contestant_number, count(*) AS num_votes FROM votes
                      GROUP BY contestant_number
                      ORDER BY num_votes DESC, contestant_number LIMIT 3) AS top)
        FROM votes_count
        WHERE row_id = 1 AND total % 100 = 0
          AND EXISTS (SELECT 1 FROM votes WHERE vote_id = p_vote_id);
END;

-- 3: every 20,000 valid votes, remove the contestant with the fewest votes
-- (ties: the highest number).
CREATE PROCEDURE lb_remove()
BEGIN ATOMIC
    INSERT INTO removals (contestant_number, num_votes)
        SELECT contestant_number, count(*) FROM votes
        WHERE (SELECT cnt FROM votes_count WHERE row_id = 1) >= 20000
        GROUP BY contestant_number
        ORDER BY count(*) ASC, contestant_number DESC LIMIT 1;
    DELETE FROM votes
        WHERE (SELECT cnt FROM votes_count WHERE row_id = 1) >= 20000
          AND contestant_number =
              (SELECT contestant_number FROM removals ORDER BY round DESC LIMIT 1);
    DELETE FROM leaderboard
        WHERE (SELECT cnt FROM votes_count WHERE row_id = 1) >= 20000
          AND contestant_number =
              (SELECT contestant_number FROM removals ORDER BY round DESC LIMIT 1);
    DELETE FROM contestants
        WHERE (SELECT cnt FROM votes_count WHERE row_id = 1) >= 20000
          AND contestant_number =
              (SELECT contestant_number FROM removals ORDER BY round DESC LIMIT 1);
    UPDATE votes_count SET cnt = cnt - 20000 WHERE row_id = 1 AND cnt >= 20000;
END;

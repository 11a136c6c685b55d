-- Fewer writes per game (issue 16: PostgreSQL's CPU per game bounds how many workers it feeds).
--
-- A game row is written three times (queued, claimed, done), and each write of `state` adds an
-- entry to every index whose predicate holds. The queue and the running games are what the
-- indexes serve: finished games, the bulk of the table, need none but the primary key.
DROP INDEX games_state;
DROP INDEX games_worker;
CREATE INDEX games_queue ON games (id) WHERE state = 'queued';
CREATE INDEX games_running ON games (worker) WHERE state = 'running';

-- A result's game is checked by the statement that completes it (the game must be running under
-- the same claim, in the same transaction), so the foreign key only repeated that check with a
-- lookup and a row lock per result. The table is rebuilt without it (SQLite cannot drop a
-- constraint).
CREATE TABLE results_rebuilt (
    game_id BIGINT PRIMARY KEY,
    completion BIGINT NOT NULL UNIQUE,
    entry TEXT NOT NULL,
    replay BYTEA
);
INSERT INTO results_rebuilt (game_id, completion, entry, replay)
    SELECT game_id, completion, entry, replay FROM results;
DROP TABLE results;
ALTER TABLE results_rebuilt RENAME TO results;

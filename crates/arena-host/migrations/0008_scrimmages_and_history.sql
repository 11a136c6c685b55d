-- Scrimmages, rating history and the outcome of each seat (issue 32: the contest's pages).

-- Each seat's outcome, written when its game completes: `place` is its 1-based rank (ties share
-- one), `outcome` 'win' (first alone), 'draw' (first with another seat) or 'loss', `faulted` 1
-- when the journal line lists a fault for it (0 otherwise), `fault` the fault kinds as the journal
-- names them, comma-separated (NULL without one). NULL while the game is not done; rows of older
-- games are filled from their results when the store opens. The outcome is stored rather than
-- found by comparing the seats: the listing filters on it row by row along an index, where the
-- comparison was planned by PostgreSQL as an anti-join over every seat (330 ms a page at 200 000
-- games).
ALTER TABLE game_seats ADD COLUMN place BIGINT;
ALTER TABLE game_seats ADD COLUMN outcome TEXT;
ALTER TABLE game_seats ADD COLUMN faulted BIGINT;
ALTER TABLE game_seats ADD COLUMN fault TEXT;

-- Who asked for a game: the user of a scrimmage (its rate limit counts these); NULL for the
-- games the contest schedules by itself.
ALTER TABLE games ADD COLUMN requested_by BIGINT;
CREATE INDEX games_requested ON games (requested_by, created_at) WHERE requested_by IS NOT NULL;

-- The games of one kind, newest first (the pages list scrimmages, or a format's games, without a
-- player to start from). A game's kind never changes: one index entry per game, written once.
CREATE INDEX games_kind ON games (kind, id);

-- Scrimmages waiting: claims look here first (see Store::claim_batch_excluding), an empty index
-- when nobody asked for one.
CREATE INDEX games_scrimmage_queue ON games (id) WHERE state = 'queued' AND kind = 'scrimmage';

-- A rated player's rating after each rated game (and the fresh one its promotion starts the new
-- league with), written in the transaction that rates it.
CREATE TABLE rating_history (
    submission_id BIGINT NOT NULL,
    league BIGINT NOT NULL,
    -- The game's completion number (results.completion): the order ratings changed in.
    completion BIGINT NOT NULL,
    -- Seconds since 1970.
    recorded_at BIGINT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (submission_id, completion, league)
);

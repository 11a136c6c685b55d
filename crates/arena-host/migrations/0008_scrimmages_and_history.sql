-- Scrimmages, rating history and the outcome of each seat (issue 32: the contest's pages).

-- Each seat's result, written when its game completes, for the listing's filters (a seat's rank
-- and faults are read from the game's journal line): `outcome` 'win' (first alone), 'draw' (first
-- with another seat) or 'loss', `faulted` 1 when the journal line lists a fault for it. Rows of
-- games completed before this migration are made from their results when the store opens.
--
-- A table of its own, keyed for the filters (a submission's games, newest first), only ever
-- inserted into, with what the filters need alone. As columns of `game_seats` updated at
-- completion (rank, outcome, faults), PostgreSQL's CPU per game of the workers' database cycle
-- (`cargo bench -p arena --bench workers -- batches`) went from 40-44 to 83 us: each updated seat
-- is a new row version in every index of that table, and the join with the batch's list a scan of
-- every seat. The outcome is stored rather than found by comparing seats, which PostgreSQL planned
-- as an anti-join over every seat (330 ms a page at 200 000 games).
CREATE TABLE seat_results (
    submission_id BIGINT NOT NULL,
    game_id BIGINT NOT NULL,
    seat BIGINT NOT NULL,
    outcome TEXT NOT NULL,
    faulted BIGINT NOT NULL,
    PRIMARY KEY (submission_id, game_id, seat)
);

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

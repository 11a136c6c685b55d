-- The contest's state. Written to run unchanged on SQLite and PostgreSQL: BIGINT ids assigned
-- from `counters` (no AUTOINCREMENT / SERIAL), TEXT, DOUBLE PRECISION, BIGINT 0/1 for flags,
-- BYTEA for bytes (SQLite stores them as blobs whatever the declared type).

CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO counters (name, value) VALUES ('user', 0);
INSERT INTO counters (name, value) VALUES ('submission', 0);
INSERT INTO counters (name, value) VALUES ('game', 0);
INSERT INTO counters (name, value) VALUES ('completion', 0);

CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    -- SHA-256 of the token, hex.
    token_hash TEXT NOT NULL UNIQUE,
    -- 'contestant', 'organiser' or 'house' (the organiser's built-in bots, no token use).
    role TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE submissions (
    id BIGINT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id),
    -- 'upload' or 'builtin'.
    kind TEXT NOT NULL,
    -- The uploaded file's name, or the built-in bot's name.
    source_name TEXT NOT NULL,
    -- The upload as sent (a source file or a zip); empty for built-in bots.
    source BYTEA,
    source_sha256 TEXT NOT NULL,
    -- 'building', 'ready', 'failed' (build), 'stopped' (by an organiser).
    state TEXT NOT NULL,
    build_log TEXT NOT NULL,
    -- The user's current submission plays; earlier ones are kept for the record.
    active BIGINT NOT NULL,
    league BIGINT NOT NULL,
    -- Weng-Lin rating in its league, and games rated there.
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX submissions_user ON submissions (user_id, id);

CREATE TABLE games (
    id BIGINT PRIMARY KEY,
    -- 'placement', 'ladder'.
    kind TEXT NOT NULL,
    league BIGINT NOT NULL,
    variant TEXT,
    -- The 64-bit game seed as decimal text (BIGINT is signed).
    seed TEXT NOT NULL,
    -- 'queued', 'running', 'done', 'failed', 'cancelled'.
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    worker TEXT,
    error TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX games_state ON games (state, id);

CREATE TABLE game_seats (
    game_id BIGINT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    submission_id BIGINT NOT NULL REFERENCES submissions (id),
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_seats_submission ON game_seats (submission_id, game_id);

-- One row per finished game, written in the transaction that completes it: the primary key makes a
-- second completion of the same game impossible.
CREATE TABLE results (
    game_id BIGINT PRIMARY KEY REFERENCES games (id),
    -- Order of completion (ratings are updated in this order).
    completion BIGINT NOT NULL UNIQUE,
    -- The game as a tournament journal line (arena_tournament::journal::Entry).
    entry TEXT NOT NULL,
    -- The replay, gzipped JSON.
    replay BYTEA
);

-- Promotions, for the record and the pages.
CREATE TABLE promotions (
    submission_id BIGINT NOT NULL REFERENCES submissions (id),
    from_league BIGINT NOT NULL,
    completion BIGINT NOT NULL,
    PRIMARY KEY (submission_id, from_league)
);

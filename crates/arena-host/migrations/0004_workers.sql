-- Workers on other machines (`arena worker`): a game's claim is a lease that its worker renews by
-- heartbeats, in milliseconds of the database's clock (one clock for every machine). A game whose
-- lease ran out goes back to the queue; completing checks the claim is still the worker's.
ALTER TABLE games ADD COLUMN lease_until BIGINT;
CREATE INDEX games_worker ON games (worker, state);

-- What a game needs of a worker: each seat's language ('builtin', a language id of `arena
-- languages`, or 'folder' for a zipped folder, which may need anything the worker declares).
ALTER TABLE submissions ADD COLUMN language TEXT NOT NULL DEFAULT 'folder';
UPDATE submissions SET language = 'builtin' WHERE kind = 'builtin';

-- Every worker process (the host's own worker threads count as one), for the organiser's page.
CREATE TABLE workers (
    id TEXT PRIMARY KEY,
    -- The machine's name and the process id: a worker restarted on the same machine requeues at
    -- once the games of a predecessor whose process is gone, rather than wait for their lease.
    machine TEXT NOT NULL,
    pid BIGINT NOT NULL,
    -- ',builtin,python3,cpp,' (commas around every item: matched with LIKE).
    languages TEXT NOT NULL,
    cores BIGINT NOT NULL,
    jobs BIGINT NOT NULL,
    -- 'running', 'draining' (SIGTERM: finishing its games), 'stopped'.
    state TEXT NOT NULL,
    lease_ms BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    heartbeat BIGINT NOT NULL,
    games_done BIGINT NOT NULL,
    games_failed BIGINT NOT NULL
);

-- Named leases of one holder at a time: 'scheduler' (one host fills the queue).
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    until_ms BIGINT NOT NULL
);

-- Accounts that hold (issue 32): names unique ignoring case and look-alikes, tokens that can be
-- rotated and revoked, sessions with an expiry for the pages, accounts the organiser can disable,
-- registrations counted per address.

-- The name folded (see store/accounts.rs `name_key`): a name is refused when its key is already
-- there. Filled for older rows when the store opens.
ALTER TABLE users ADD COLUMN name_key TEXT;
-- (Not `users_name_key`: PostgreSQL named the UNIQUE constraint of `name` so.)
CREATE INDEX users_by_name_key ON users (name_key);
-- 1: the organiser disabled the account: it cannot sign in and its bots do not play.
ALTER TABLE users ADD COLUMN disabled BIGINT NOT NULL DEFAULT 0;
-- The hash of the token the contest file last gave (people of the file): a token the person
-- rotated since is kept across restarts until the file's own token changes.
ALTER TABLE users ADD COLUMN file_token_hash TEXT;
-- The address a registration came from, for the per-address limit.
ALTER TABLE users ADD COLUMN registered_from TEXT;
CREATE INDEX users_created ON users (created_at);

-- A signed-in browser: the cookie's SHA-256, its owner, the token its forms carry (CSRF) and when
-- it ends (seconds since 1970).
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id),
    csrf TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

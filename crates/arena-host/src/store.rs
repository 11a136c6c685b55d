//! The contest's storage: SQLite (embedded, the default) or PostgreSQL, through sqlx's `Any`
//! driver so that one code path and one set of migrations serve both.
//!
//! Exactly-once: a game is claimed by one worker (`queued` → `running`, its attempt counted) and
//! completed in one transaction that checks it is still that worker's attempt, inserts its one
//! result row (keyed by the game) and updates the ratings. After a crash, [`Store::requeue_running`]
//! puts games claimed but not completed back in the queue: their result was never written, so they
//! are played again and counted once.
//!
//! Several machines: a claim is a lease (`games.lease_until`, the database's clock) that the
//! worker renews with heartbeats; a game whose lease ran out is requeued
//! ([`Store::requeue_expired`]), and completing checks the claim (worker and attempt) is still the
//! one in the row, so a worker that lost its game to another never counts it.

use std::collections::HashMap;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{Any, AnyPool, Executor, Row, Transaction};

use crate::HostError;
use crate::ladder::{self, Rating};
use crate::records::Submission;
// Outside the crate, games are queued as `store::NewGame` (as before records.rs).
pub use crate::records::NewGame;

/// Games written by one statement of [`Store::schedule_all`] (four bound texts each: well under
/// SQLite's 32 766 parameters).
const SCHEDULE_CHUNK: usize = 500;

/// The versioned migrations in `migrations/`, embedded.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool to the contest database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// The database's address (PostgreSQL's notification listener connects to it on its own).
    url: String,
    /// The PostgreSQL schema, if any: notification channels are per database, so a schema's have
    /// its name in theirs.
    schema: Option<String>,
}

/// What other processes of the contest are told (PostgreSQL's NOTIFY), so that they need not
/// poll: the scheduler refills the ladder's queue when games end, idle workers claim at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Games were queued (scheduled, or put back in the queue).
    Queued,
    /// Games ended (done or failed).
    Ended,
}

impl Notice {
    fn name(self) -> &'static str {
        match self {
            Notice::Queued => "queued",
            Notice::Ended => "ended",
        }
    }
}

/// A connection that receives this contest's [`Notice`]s (PostgreSQL only).
pub struct Listener {
    listener: sqlx::postgres::PgListener,
    channels: [(String, Notice); 2],
}

impl Listener {
    /// The next notice; reconnects by itself when the connection was lost (notices sent meanwhile
    /// are lost: the callers also look periodically).
    pub async fn next(&mut self) -> Result<Notice, HostError> {
        loop {
            let notification = self.listener.recv().await.map_err(db)?;
            if let Some((_, notice)) = self
                .channels
                .iter()
                .find(|(channel, _)| channel == notification.channel())
            {
                return Ok(*notice);
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Contestant,
    Organiser,
    /// The organiser's built-in bots and bosses: no one signs in as them.
    House,
}

impl Role {
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::Contestant => "contestant",
            Role::Organiser => "organiser",
            Role::House => "house",
        }
    }
    fn parse(text: &str) -> Role {
        match text {
            "organiser" => Role::Organiser,
            "house" => Role::House,
            _ => Role::Contestant,
        }
    }
}

#[derive(Clone, Debug)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub role: Role,
}

/// A game claimed by a worker.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: i64,
    /// `placement` and `ladder` games move the stored ratings; the other formats' standings are
    /// computed from the results.
    pub kind: String,
    pub league: i64,
    pub variant: Option<String>,
    pub seed: u64,
    pub attempts: i64,
    pub seats: Vec<Submission>,
    /// The worker holding the claim: completing checks it still does.
    pub worker: String,
}

/// The lease of a claim when the claimer names none: 30 s (renewed every 10 s by heartbeats).
pub const DEFAULT_LEASE_MS: i64 = 30_000;

/// A worker process, as it registers.
#[derive(Clone, Debug)]
pub struct WorkerInfo {
    /// Unique: `MACHINE:PID:START_MS`.
    pub id: String,
    pub machine: String,
    pub pid: i64,
    /// `,builtin,python3,cpp,`.
    pub languages: String,
    pub cores: i64,
    /// Games it plays at once.
    pub jobs: i64,
    pub lease_ms: i64,
}

/// A worker as the organiser sees it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WorkerRow {
    pub id: String,
    pub machine: String,
    pub pid: i64,
    pub languages: Vec<String>,
    pub cores: i64,
    pub jobs: i64,
    /// `running`, `draining`, `stopped` (drained or ended), `lost` (its process was found gone, its
    /// games requeued: killed or crashed).
    pub state: String,
    /// Neither stopped nor lost, and its last heartbeat is younger than its lease.
    pub alive: bool,
    pub lease_ms: i64,
    pub started_at_ms: i64,
    /// Milliseconds since its last heartbeat (the database's clock).
    pub heartbeat_age_ms: i64,
    pub games_held: Vec<i64>,
    pub games_done: i64,
    pub games_failed: i64,
}

/// What a finished game leaves.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The journal line (JSON of `arena_tournament::journal::Entry`).
    pub entry: String,
    /// 1-based rank per seat.
    pub ranks: Vec<u32>,
    /// The replay, gzipped JSON.
    pub replay: Option<Vec<u8>>,
}

/// Who must be beaten to leave each league: the user whose active submission is the boss.
#[derive(Clone, Debug, Default)]
pub struct Promotion {
    pub bosses: Vec<Option<i64>>,
    pub promotion_games: i64,
    pub leagues: i64,
}

/// A finished game as listed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GameRow {
    pub id: i64,
    pub kind: String,
    pub league: i64,
    pub variant: Option<String>,
    pub seed: String,
    pub state: String,
    pub attempts: i64,
    pub error: Option<String>,
    pub seats: Vec<i64>,
    pub entry: Option<serde_json::Value>,
}

const SUBMISSION_COLUMNS: &str = "s.id, s.user_id, u.name, s.kind, s.source_name, s.source_sha256, \
     s.state, s.build_log, s.active, s.league, s.mu, s.sigma, s.games, s.created_at";

/// A submission from a row of [`SUBMISSION_COLUMNS`].
fn submission_of(row: &sqlx::any::AnyRow) -> Result<Submission, sqlx::Error> {
    Ok(Submission {
        id: row.try_get(0)?,
        user_id: row.try_get(1)?,
        user: row.try_get(2)?,
        kind: row.try_get(3)?,
        source_name: row.try_get(4)?,
        source_sha256: row.try_get(5)?,
        state: row.try_get(6)?,
        build_log: row.try_get(7)?,
        active: row.try_get::<i64, _>(8)? != 0,
        league: row.try_get(9)?,
        mu: row.try_get(10)?,
        sigma: row.try_get(11)?,
        games: row.try_get(12)?,
        created_at: row.try_get(13)?,
    })
}

/// Unrated games completed in one statement at most (4 bound values each: well under SQLite's
/// 32 766 and PostgreSQL's 65 535).
const COMPLETION_CHUNK: usize = 1000;

/// Games queued at once from which [`Store::schedule_all`] refreshes PostgreSQL's statistics.
const ANALYZE_AFTER: usize = 1000;

/// How far [`Store::fair_share`] counts the queue: this many claims of the size asked.
const SHARE_LOOKAHEAD: i64 = 4;

/// A claim of `count` when `queued` games are queued (counted up to `count × SHARE_LOOKAHEAD`) for
/// `jobs` live jobs: see [`Store::fair_share`].
fn fair_share_of(count: i64, queued: i64, jobs: i64) -> i64 {
    let count = count.max(1);
    if queued >= count.saturating_mul(SHARE_LOOKAHEAD) {
        return count;
    }
    let jobs = jobs.max(1);
    ((queued + jobs - 1) / jobs).clamp(1, count)
}

/// Whether a game's completion updates its players' ratings (and may promote them).
fn rated(claimed: &Claimed) -> bool {
    claimed.kind == "ladder" || claimed.kind == "placement"
}

/// Seconds since 1970.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn db(error: sqlx::Error) -> HostError {
    HostError::Database(error.to_string())
}

impl Store {
    /// Connects to `url` (`sqlite://FILE` — made when missing — or `postgres://...`) and migrates
    /// the schema. `schema` (PostgreSQL only) puts every table in that schema, made when missing:
    /// tests use a fresh one each.
    pub async fn open(url: &str, schema: Option<&str>) -> Result<Store, HostError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(HostError::Config(format!(
                "--db {url}: give sqlite://FILE or postgres://USER@HOST/DATABASE"
            )));
        };
        let url = match backend {
            Backend::Sqlite if !url.contains('?') => format!("{url}?mode=rwc"),
            _ => url.to_string(),
        };
        if let Some(name) = schema {
            if backend != Backend::Postgres {
                return Err(HostError::Config("a schema is for PostgreSQL only".into()));
            }
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(HostError::Config(format!("bad schema name {name:?}")));
            }
            let options: AnyConnectOptions = url.parse().map_err(db)?;
            let pool = AnyPoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await
                .map_err(db)?;
            pool.execute(format!("CREATE SCHEMA IF NOT EXISTS {name}").as_str())
                .await
                .map_err(db)?;
            pool.close().await;
        }
        let options: AnyConnectOptions = url.parse().map_err(|e| {
            HostError::Config(format!("--db: cannot read the database address: {e}"))
        })?;
        let schema = schema.map(str::to_string);
        let kept_schema = schema.clone();
        let pool = AnyPoolOptions::new()
            // SQLite has one writer at a time anyway; a few connections serve the readers.
            .max_connections(if backend == Backend::Sqlite { 4 } else { 8 })
            .after_connect(move |conn, _meta| {
                let schema = schema.clone();
                Box::pin(async move {
                    match backend {
                        Backend::Sqlite => {
                            // WAL: readers never block the writer; waiting beats failing on a lock.
                            conn.execute("PRAGMA journal_mode = WAL").await?;
                            conn.execute("PRAGMA busy_timeout = 30000").await?;
                            conn.execute("PRAGMA foreign_keys = ON").await?;
                            conn.execute("PRAGMA synchronous = NORMAL").await?;
                        }
                        Backend::Postgres => {
                            // A worker whose link is cut in the middle of a transaction must not
                            // keep its row locks (the completion counter's among them) until
                            // TCP notices: the server ends such a transaction after 10 s.
                            conn.execute("SET idle_in_transaction_session_timeout = 10000")
                                .await?;
                            if let Some(schema) = schema {
                                conn.execute(format!("SET search_path TO {schema}").as_str())
                                    .await?;
                            }
                        }
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .map_err(|e| HostError::Database(format!("cannot open the database: {e}")))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| HostError::Database(format!("cannot migrate the database: {e}")))?;
        Ok(Store {
            pool,
            backend,
            url,
            schema: kept_schema,
        })
    }

    /// This contest's channel for `notice`.
    fn channel(&self, notice: Notice) -> String {
        match &self.schema {
            Some(schema) => format!("arena_{}_{schema}", notice.name()),
            None => format!("arena_{}", notice.name()),
        }
    }

    /// Tells the contest's other processes `notice` through `executor`: the pool, or a
    /// transaction (then when it commits). PostgreSQL only; nothing on SQLite, which is one
    /// machine's.
    async fn notify<'e>(
        &self,
        executor: impl sqlx::Executor<'e, Database = Any>,
        notice: Notice,
    ) -> Result<(), HostError> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT pg_notify($1, '')")
                .bind(self.channel(notice))
                .execute(executor)
                .await
                .map_err(db)?;
        }
        Ok(())
    }

    /// A listener of this contest's notices: `None` on SQLite (one process, which tells itself).
    pub async fn listener(&self) -> Result<Option<Listener>, HostError> {
        if self.backend != Backend::Postgres {
            return Ok(None);
        }
        let mut listener = sqlx::postgres::PgListener::connect(&self.url)
            .await
            .map_err(db)?;
        let channels = [
            (self.channel(Notice::Queued), Notice::Queued),
            (self.channel(Notice::Ended), Notice::Ended),
        ];
        for (channel, _) in &channels {
            listener.listen(channel).await.map_err(db)?;
        }
        Ok(Some(Listener { listener, channels }))
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn next_id(tx: &mut Transaction<'_, Any>, counter: &str) -> Result<i64, HostError> {
        Self::take_ids(tx, counter, 1).await
    }

    /// Advances `counter` by `count` and returns its new value: the last of the `count` numbers
    /// taken (the first is that less `count` − 1).
    async fn take_ids(
        tx: &mut Transaction<'_, Any>,
        counter: &str,
        count: i64,
    ) -> Result<i64, HostError> {
        let row =
            sqlx::query("UPDATE counters SET value = value + $1 WHERE name = $2 RETURNING value")
                .bind(count)
                .bind(counter)
                .fetch_one(&mut **tx)
                .await
                .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// The current value of a counter (`game`: games ever scheduled).
    pub async fn counter(&self, name: &str) -> Result<i64, HostError> {
        let row = sqlx::query("SELECT value FROM counters WHERE name = $1")
            .bind(name)
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    // ---- settings ----

    pub async fn setting(&self, name: &str) -> Result<Option<String>, HostError> {
        let row = sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }

    pub async fn set_setting(&self, name: &str, value: Option<&str>) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("DELETE FROM settings WHERE name = $1")
            .bind(name)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        if let Some(value) = value {
            sqlx::query("INSERT INTO settings (name, value) VALUES ($1, $2)")
                .bind(name)
                .bind(value)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)
    }

    // ---- users ----

    /// Makes or updates the user `name` (the contest file is the authority on its people).
    pub async fn ensure_user(
        &self,
        name: &str,
        token_hash: &str,
        role: Role,
    ) -> Result<i64, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        // A write first: SQLite takes its write lock here, not halfway through.
        let updated =
            sqlx::query("UPDATE users SET token_hash = $1, role = $2, from_file = 1 WHERE name = $3 RETURNING id")
                .bind(token_hash)
                .bind(role.as_str())
                .bind(name)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        let id = match updated {
            Some(row) => row.try_get(0).map_err(db)?,
            None => {
                let id = Self::next_id(&mut tx, "user").await?;
                sqlx::query(
                    "INSERT INTO users (id, name, token_hash, role, created_at, from_file) VALUES ($1, $2, $3, $4, $5, 1)",
                )
                .bind(id)
                .bind(name)
                .bind(token_hash)
                .bind(role.as_str())
                .bind(now())
                .execute(&mut *tx)
                .await
                .map_err(db)?;
                id
            }
        };
        tx.commit().await.map_err(db)?;
        Ok(id)
    }

    /// Users of the contest file that it no longer lists (`keep`: the names it lists) can no
    /// longer sign in, and their submissions stop playing. Returns their names.
    pub async fn revoke_missing(&self, keep: &[String]) -> Result<Vec<String>, HostError> {
        let rows = sqlx::query("SELECT id, name FROM users WHERE from_file = 1")
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        let mut revoked = Vec::new();
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let name: String = row.try_get(1).map_err(db)?;
            if keep.contains(&name) {
                continue;
            }
            let mut tx = self.pool.begin().await.map_err(db)?;
            // No SHA-256 looks like this: the old token no longer matches anything.
            sqlx::query("UPDATE users SET token_hash = $1, from_file = 0 WHERE id = $2")
                .bind(format!("revoked:{name}"))
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            sqlx::query("UPDATE submissions SET active = 0 WHERE user_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            Self::cancel_queued_of_inactive(&mut tx).await?;
            tx.commit().await.map_err(db)?;
            revoked.push(name);
        }
        Ok(revoked)
    }

    /// A new contestant (open registration); `None` when the name is taken.
    pub async fn register(&self, name: &str, token_hash: &str) -> Result<Option<i64>, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let id = Self::next_id(&mut tx, "user").await?;
        let taken = sqlx::query("SELECT id FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db)?;
        if taken.is_some() {
            return Ok(None);
        }
        sqlx::query(
            "INSERT INTO users (id, name, token_hash, role, created_at) VALUES ($1, $2, $3, 'contestant', $4)",
        )
        .bind(id)
        .bind(name)
        .bind(token_hash)
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(Some(id))
    }

    pub async fn user_by_token(&self, token_hash: &str) -> Result<Option<User>, HostError> {
        let row = sqlx::query(
            "SELECT id, name, role FROM users WHERE token_hash = $1 AND role <> 'house'",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|row| {
            Ok(User {
                id: row.try_get(0).map_err(db)?,
                name: row.try_get(1).map_err(db)?,
                role: Role::parse(&row.try_get::<String, _>(2).map_err(db)?),
            })
        })
        .transpose()
    }

    pub async fn user_by_name(&self, name: &str) -> Result<Option<i64>, HostError> {
        let row = sqlx::query("SELECT id FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }

    // ---- submissions ----

    /// Records a submission (state `building`, or `ready` for a built-in bot) in `league`, with a
    /// fresh rating. Returns its id.
    pub async fn add_submission(
        &self,
        user_id: i64,
        kind: &str,
        source_name: &str,
        source: Option<&[u8]>,
        source_sha256: &str,
        league: i64,
    ) -> Result<i64, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let id = Self::next_id(&mut tx, "submission").await?;
        let fresh = Rating::default();
        let state = if kind == "builtin" {
            "ready"
        } else {
            "building"
        };
        sqlx::query(
            "INSERT INTO submissions (id, user_id, kind, source_name, source, source_sha256, state, \
             build_log, active, league, mu, sigma, games, created_at, language) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, '', 0, $8, $9, $10, 0, $11, $12)",
        )
        .bind(id)
        .bind(user_id)
        .bind(kind)
        .bind(source_name)
        .bind(source.map(<[u8]>::to_vec))
        .bind(source_sha256)
        .bind(state)
        .bind(league)
        .bind(fresh.mu)
        .bind(fresh.sigma)
        .bind(now())
        // Uploads get their language from their file's name (`set_language`); a zip is a folder.
        .bind(if kind == "builtin" { "builtin" } else { "folder" })
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(id)
    }

    /// The outcome of a build. A submission that built becomes its user's active one (the others
    /// stop playing; their games already queued are cancelled).
    pub async fn finish_build(&self, id: i64, ok: bool, log: &str) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let row = sqlx::query(
            "UPDATE submissions SET state = $1, build_log = $2 WHERE id = $3 AND state = 'building' \
             RETURNING user_id",
        )
        .bind(if ok { "ready" } else { "failed" })
        .bind(log)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        if let (true, Some(row)) = (ok, row) {
            let user: i64 = row.try_get(0).map_err(db)?;
            Self::activate_in(&mut tx, user, id).await?;
        }
        tx.commit().await.map_err(db)
    }

    async fn activate_in(
        tx: &mut Transaction<'_, Any>,
        user: i64,
        id: i64,
    ) -> Result<(), HostError> {
        sqlx::query("UPDATE submissions SET active = 0 WHERE user_id = $1 AND id <> $2")
            .bind(user)
            .bind(id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        sqlx::query("UPDATE submissions SET active = 1 WHERE id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        Self::cancel_queued_of_inactive(tx).await
    }

    async fn cancel_queued_of_inactive(tx: &mut Transaction<'_, Any>) -> Result<(), HostError> {
        sqlx::query(
            "UPDATE games SET state = 'cancelled' WHERE state = 'queued' AND id IN \
             (SELECT gs.game_id FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
              WHERE s.active = 0 OR s.state <> 'ready')",
        )
        .execute(&mut **tx)
        .await
        .map_err(db)?;
        Ok(())
    }

    /// Makes a submission active (a built-in bot at start-up).
    pub async fn activate(&self, user: i64, id: i64) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("UPDATE submissions SET active = active WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        Self::activate_in(&mut tx, user, id).await?;
        tx.commit().await.map_err(db)
    }

    /// An organiser stops a submission (`stopped`: it plays no more) or lets it play again.
    pub async fn set_stopped(&self, id: i64, stopped: bool) -> Result<bool, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let (from, to) = if stopped {
            ("ready", "stopped")
        } else {
            ("stopped", "ready")
        };
        let changed = sqlx::query("UPDATE submissions SET state = $1 WHERE id = $2 AND state = $3")
            .bind(to)
            .bind(id)
            .bind(from)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        Self::cancel_queued_of_inactive(&mut tx).await?;
        tx.commit().await.map_err(db)?;
        Ok(changed == 1)
    }

    /// Rerun: the submission's rating starts afresh in its league (its games stay in the record).
    pub async fn reset_rating(&self, id: i64) -> Result<bool, HostError> {
        let fresh = Rating::default();
        let changed =
            sqlx::query("UPDATE submissions SET mu = $1, sigma = $2, games = 0 WHERE id = $3")
                .bind(fresh.mu)
                .bind(fresh.sigma)
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(db)?
                .rows_affected();
        Ok(changed == 1)
    }

    pub async fn submission(&self, id: i64) -> Result<Option<Submission>, HostError> {
        let row = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id WHERE s.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|r| submission_of(&r)).transpose().map_err(db)
    }

    /// Submissions of one user (`Some`) or of everyone, newest first.
    pub async fn submissions(&self, user: Option<i64>) -> Result<Vec<Submission>, HostError> {
        let rows = match user {
            Some(user) => sqlx::query(&format!(
                "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
                 WHERE s.user_id = $1 ORDER BY s.id DESC"
            ))
            .bind(user)
            .fetch_all(&self.pool)
            .await,
            None => sqlx::query(&format!(
                "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
                 ORDER BY s.id DESC"
            ))
            .fetch_all(&self.pool)
            .await,
        }
        .map_err(db)?;
        rows.iter()
            .map(submission_of)
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    /// The active, ready submissions: who plays.
    pub async fn players(&self) -> Result<Vec<Submission>, HostError> {
        let rows = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
             WHERE s.active = 1 AND s.state = 'ready' ORDER BY s.id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(submission_of)
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    pub async fn source(&self, id: i64) -> Result<Option<Vec<u8>>, HostError> {
        let row = sqlx::query("SELECT source FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        Ok(row.and_then(|r| r.try_get::<Option<Vec<u8>>, _>(0).ok().flatten()))
    }

    /// Uploads by `user` since `since` (seconds): the rate limit counts these.
    pub async fn uploads_since(&self, user: i64, since: i64) -> Result<i64, HostError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FROM submissions WHERE user_id = $1 AND kind = 'upload' AND created_at >= $2",
        )
        .bind(user)
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    // ---- the queue ----

    /// Queues a game; its seed derives from the contest's seed and the game's id.
    pub async fn schedule(&self, game: &NewGame, contest_seed: u64) -> Result<i64, HostError> {
        let ids = self
            .schedule_all(std::slice::from_ref(game), contest_seed)
            .await?;
        ids.first()
            .copied()
            .ok_or_else(|| HostError::Database("a scheduled game got no id".into()))
    }

    /// Queues `games` in one transaction, with the ids and seeds that scheduling them one by one
    /// would give (consecutive ids from the `game` counter): a round of thousands of games costs
    /// a few statements per hundred games instead of a transaction per game.
    pub async fn schedule_all(
        &self,
        games: &[NewGame],
        contest_seed: u64,
    ) -> Result<Vec<i64>, HostError> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let mut tx = self.pool.begin().await.map_err(db)?;
        let last = Self::take_ids(&mut tx, "game", games.len() as i64).await?;
        let first = last - games.len() as i64 + 1;
        let ids: Vec<i64> = (first..=last).collect();
        let created = now();
        let languages = Self::languages_in(&mut tx, games).await?;
        for (chunk_index, chunk) in games.chunks(SCHEDULE_CHUNK).enumerate() {
            let chunk_first = first + (chunk_index * SCHEDULE_CHUNK) as i64;
            // Ids, leagues, rounds and submission ids are integers: written in; the texts (kind,
            // variant, seed, needs) are bound, four a game.
            let mut rows = Vec::with_capacity(chunk.len());
            let mut seat_rows = Vec::new();
            let mut seeds = Vec::with_capacity(chunk.len());
            let mut needs = Vec::with_capacity(chunk.len());
            for (offset, game) in chunk.iter().enumerate() {
                let id = chunk_first + offset as i64;
                seeds.push(arena_core::seed::derive_seed(contest_seed, id as u64).to_string());
                // ',' and each seat's language followed by ','; none (checked through the seats
                // when claimed) if a seat's submission is missing.
                needs.push(
                    game.seats
                        .iter()
                        .try_fold(",".to_string(), |mut text, seat| {
                            text.push_str(languages.get(seat)?);
                            text.push(',');
                            Some(text)
                        }),
                );
                let text = 4 * offset + 1;
                rows.push(format!(
                    "({id}, ${text}, {}, ${}, ${}, 'queued', 0, {created}, {}, ${})",
                    game.league,
                    text + 1,
                    text + 2,
                    game.round,
                    text + 3
                ));
                for (seat, submission) in game.seats.iter().enumerate() {
                    seat_rows.push(format!("({id}, {seat}, {submission})"));
                }
            }
            let sql = format!(
                "INSERT INTO games (id, kind, league, variant, seed, state, attempts, created_at, \
                 round, needs) VALUES {}",
                rows.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for ((game, seed), needs) in chunk.iter().zip(seeds).zip(needs) {
                query = query
                    .bind(&game.kind)
                    .bind(game.variant.clone())
                    .bind(seed)
                    .bind(needs);
            }
            query.execute(&mut *tx).await.map_err(db)?;
            if !seat_rows.is_empty() {
                sqlx::query(&format!(
                    "INSERT INTO game_seats (game_id, seat, submission_id) VALUES {}",
                    seat_rows.join(", ")
                ))
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            }
        }
        if self.backend == Backend::Postgres && games.len() >= ANALYZE_AFTER {
            // A round queued at once can make the table many times larger than when PostgreSQL
            // last sampled it. Planned on the old statistics (and kept as the workers' prepared
            // plans), a claim joined its batch to the games by scanning the table once per game:
            // claims of 7-60 s, on 180 000 games queued while workers ran. Fresh statistics
            // re-plan them, as after any bulk load; taken in this transaction (it counts its own
            // rows), they are there before any worker sees the games.
            sqlx::query("ANALYZE games, game_seats")
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        self.notify(&mut *tx, Notice::Queued).await?;
        tx.commit().await.map_err(db)?;
        Ok(ids)
    }

    /// The languages of the submissions seated in `games`, read once for a round: as a subquery
    /// per seat in the games' `INSERT`, PostgreSQL took about 60 ms to plan a statement of 500
    /// games (190 µs a game queued).
    async fn languages_in(
        tx: &mut Transaction<'_, Any>,
        games: &[NewGame],
    ) -> Result<HashMap<i64, String>, HostError> {
        let mut seated: Vec<i64> = games.iter().flat_map(|g| g.seats.iter().copied()).collect();
        seated.sort_unstable();
        seated.dedup();
        let mut languages = HashMap::with_capacity(seated.len());
        for chunk in seated.chunks(SCHEDULE_CHUNK) {
            // Submission ids are integers: written into the statement.
            let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
            let rows = sqlx::query(&format!(
                "SELECT id, language FROM submissions WHERE id IN ({})",
                list.join(",")
            ))
            .fetch_all(&mut **tx)
            .await
            .map_err(db)?;
            for row in &rows {
                languages.insert(
                    row.try_get::<i64, _>(0).map_err(db)?,
                    row.try_get::<String, _>(1).map_err(db)?,
                );
            }
        }
        Ok(languages)
    }

    /// Games queued or running per submission (the scheduler balances on played + pending).
    pub async fn pending_per_submission(&self) -> Result<HashMap<i64, i64>, HostError> {
        let rows = sqlx::query(
            "SELECT gs.submission_id, COUNT(*) FROM game_seats gs JOIN games g ON g.id = gs.game_id \
             WHERE g.state IN ('queued', 'running') GROUP BY gs.submission_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    pub async fn count_games(&self, state: &str) -> Result<i64, HostError> {
        let row = sqlx::query("SELECT COUNT(*) FROM games WHERE state = $1")
            .bind(state)
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// Claims the oldest queued game for `worker`, any language, with the default lease (the
    /// host's own workers and the tests).
    pub async fn claim(&self, worker: &str) -> Result<Option<Claimed>, HostError> {
        self.claim_for(worker, None, DEFAULT_LEASE_MS).await
    }

    /// Claims the oldest queued game `worker` can play: every seat's language is in `languages`
    /// (`,builtin,python3,` — `None`: any). The claim is a lease of `lease_ms` from now, renewed by
    /// [`Store::heartbeat`]. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets claimers pass each other
    /// instead of queueing on the same row; SQLite has one writer anyway.
    pub async fn claim_for(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
    ) -> Result<Option<Claimed>, HostError> {
        loop {
            let mut claimed = self.claim_batch(worker, languages, lease_ms, 1).await?;
            if let Some(game) = claimed.pop() {
                return Ok(Some(game));
            }
            if self.count_games("queued").await? == 0 || languages.is_some() {
                // Nothing queued, or nothing this worker can play (or only rows other claimers
                // hold this instant: the caller looks again soon).
                return Ok(None);
            }
        }
    }

    /// Claims up to `count` of the oldest queued games `worker` can play, oldest first, in one
    /// statement (games of built-in bots last a fraction of a millisecond: one claim per game
    /// would cost more than the game).
    pub async fn claim_batch(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
        count: i64,
    ) -> Result<Vec<Claimed>, HostError> {
        self.claim_batch_excluding(worker, languages, lease_ms, count, &[])
            .await
    }

    /// [`Store::claim_batch`], leaving out the games with a seat of a submission in `excluded`
    /// (ones this worker could not prepare).
    pub async fn claim_batch_excluding(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
        count: i64,
        excluded: &[i64],
    ) -> Result<Vec<Claimed>, HostError> {
        let now = self.now_ms_sql();
        let skip_locked = match self.backend {
            Backend::Postgres => "FOR UPDATE OF g SKIP LOCKED",
            Backend::Sqlite => "",
        };
        // A game is playable when none of its seats needs a language the worker lacks. On
        // PostgreSQL the game's own `needs` is checked as a filter along the queue's index, which
        // stops at the batch's size; through the seats (SQLite, and games scheduled before
        // `needs` existed) the check is an anti-join, which the planner makes over the whole queue
        // unless it sits in a CASE.
        let through_seats = "NOT EXISTS (SELECT 1 FROM game_seats gs JOIN submissions s \
             ON s.id = gs.submission_id \
             WHERE gs.game_id = g.id AND $3 NOT LIKE '%,' || s.language || ',%')";
        let capable = match (languages.is_some(), self.backend) {
            (false, _) => "AND $3 = ''".to_string(),
            (true, Backend::Sqlite) => format!("AND {through_seats}"),
            (true, Backend::Postgres) => format!(
                "AND CASE WHEN g.needs IS NULL THEN {through_seats} \
                 ELSE string_to_array(trim(both ',' from g.needs), ',') \
                 <@ string_to_array(trim(both ',' from $3), ',') END"
            ),
        };
        // The games are picked once, in a materialized CTE: as `WHERE id IN (subquery)` the
        // planner may run the subquery again for every row, and with SKIP LOCKED each run finds
        // other rows (a claim of 1 took the whole queue). The outer `state = 'queued'` makes two
        // claimers of the same row agree (SQLite, or a PostgreSQL claimer that read the row before
        // another's commit): the second updates nothing.
        let materialized = match self.backend {
            Backend::Postgres => "MATERIALIZED",
            Backend::Sqlite => "",
        };
        // Submission ids are integers: written into the statement.
        let excluding = if excluded.is_empty() {
            String::new()
        } else {
            let ids: Vec<String> = excluded.iter().map(i64::to_string).collect();
            format!(
                "AND NOT EXISTS (SELECT 1 FROM game_seats gx WHERE gx.game_id = g.id \
                 AND gx.submission_id IN ({}))",
                ids.join(",")
            )
        };
        let sql = format!(
            "WITH picked AS {materialized} (SELECT g.id FROM games g WHERE g.state = 'queued' \
             {capable} {excluding} ORDER BY g.id LIMIT $4 {skip_locked}) \
             UPDATE games SET state = 'running', worker = $1, attempts = attempts + 1, \
             lease_until = {now} + $2 \
             WHERE id IN (SELECT id FROM picked) AND state = 'queued' \
             RETURNING id, league, variant, seed, attempts, kind"
        );
        let rows = sqlx::query(&sql)
            .bind(worker)
            .bind(lease_ms)
            .bind(languages.unwrap_or(""))
            .bind(count.max(1))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut games = Vec::new();
        for row in &rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let seed_text: String = row.try_get(3).map_err(db)?;
            let seed = seed_text.parse::<u64>().map_err(|_| {
                HostError::Database(format!("game {id} has a bad seed {seed_text:?}"))
            })?;
            games.push(Claimed {
                id,
                kind: row.try_get(5).map_err(db)?,
                league: row.try_get(1).map_err(db)?,
                variant: row.try_get(2).map_err(db)?,
                seed,
                attempts: row.try_get(4).map_err(db)?,
                seats: Vec::new(),
                worker: worker.to_string(),
            });
        }
        games.sort_by_key(|g| g.id);
        // Integers only: written into the statement rather than bound one by one.
        // The seats as pairs of ids, then each submission once: a batch of a thousand games of
        // the same few bots would otherwise carry every submission's row (build log included)
        // once per seat. A batch from the queue's head is mostly a run of ids: read as a range of
        // the seats' primary key, with the few games of others in it left out here. (A list of
        // thousands of ids is planned as a scan of every seat: 25 ms for 4096 games at 200 000.)
        let (first, last) = (games[0].id, games[games.len() - 1].id);
        let claimed: std::collections::HashSet<i64> = games.iter().map(|g| g.id).collect();
        let which = if (last - first) < 2 * games.len() as i64 {
            format!("game_id BETWEEN {first} AND {last}")
        } else {
            let ids: Vec<String> = games.iter().map(|g| g.id.to_string()).collect();
            format!("game_id IN ({})", ids.join(","))
        };
        let seats = sqlx::query(&format!(
            "SELECT game_id, submission_id FROM game_seats WHERE {which} ORDER BY game_id, seat"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut seat_ids: Vec<(i64, i64)> = Vec::with_capacity(seats.len());
        for row in &seats {
            let game: i64 = row.try_get(0).map_err(db)?;
            if claimed.contains(&game) {
                seat_ids.push((game, row.try_get(1).map_err(db)?));
            }
        }
        let mut distinct: Vec<i64> = seat_ids.iter().map(|(_, id)| *id).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let distinct_text: Vec<String> = distinct.iter().map(i64::to_string).collect();
        let rows = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
             WHERE s.id IN ({})",
            distinct_text.join(",")
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut submissions: HashMap<i64, Submission> = HashMap::new();
        for row in &rows {
            let submission = submission_of(row).map_err(db)?;
            submissions.insert(submission.id, submission);
        }
        let mut by_game: HashMap<i64, Vec<Submission>> = HashMap::new();
        for (game, submission) in seat_ids {
            let submission = submissions.get(&submission).cloned().ok_or_else(|| {
                HostError::Database(format!("game {game} has a seat of a missing submission"))
            })?;
            by_game.entry(game).or_default().push(submission);
        }
        for game in &mut games {
            game.seats = by_game.remove(&game.id).unwrap_or_default();
        }
        Ok(games)
    }

    /// Completes a claimed game: its result, the ratings of its players in their league and any
    /// promotion, in one transaction. `false` (and nothing written) when the claim is no longer
    /// this attempt's (the game was requeued, cancelled or completed meanwhile).
    pub async fn complete(
        &self,
        claimed: &Claimed,
        finished: &Finished,
        promotion: &Promotion,
    ) -> Result<bool, HostError> {
        let done = self
            .complete_many(&[(claimed, finished)], promotion)
            .await?;
        Ok(done.first().copied().unwrap_or(false))
    }

    /// Completes several claimed games in one transaction (each as [`Store::complete`] does, in
    /// order): whether each was still its worker's claim. Runs of unrated games (everything but
    /// ladder and placement games) are written a thousand at a time in three statements, not three
    /// per game: games of built-in bots last a fraction of a millisecond, less than a statement.
    pub async fn complete_many(
        &self,
        games: &[(&Claimed, &Finished)],
        promotion: &Promotion,
    ) -> Result<Vec<bool>, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let mut done = Vec::with_capacity(games.len());
        let mut at = 0;
        while at < games.len() {
            let unrated = games[at..]
                .iter()
                .take(COMPLETION_CHUNK)
                .take_while(|(claimed, _)| !rated(claimed))
                .count();
            if unrated == 0 {
                let (claimed, finished) = games[at];
                done.push(Self::complete_in(&mut tx, claimed, finished, promotion).await?);
                at += 1;
            } else {
                done.extend(Self::complete_unrated(&mut tx, &games[at..at + unrated]).await?);
                at += unrated;
            }
        }
        let mut per_worker: Vec<(&str, i64)> = Vec::new();
        for ((claimed, _), recorded) in games.iter().zip(&done) {
            if !recorded {
                continue;
            }
            match per_worker.iter_mut().find(|(w, _)| *w == claimed.worker) {
                Some((_, count)) => *count += 1,
                None => per_worker.push((&claimed.worker, 1)),
            }
        }
        for (worker, count) in per_worker {
            sqlx::query("UPDATE workers SET games_done = games_done + $1 WHERE id = $2")
                .bind(count)
                .bind(worker)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        if done.iter().any(|recorded| *recorded) {
            self.notify(&mut *tx, Notice::Ended).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(done)
    }

    /// [`Store::complete_in`] for games that rate nobody, at most [`COMPLETION_CHUNK`] of them: one
    /// statement marks the ones still claimed done, one takes their completion numbers (in the
    /// order given), one inserts their results.
    async fn complete_unrated(
        tx: &mut Transaction<'_, Any>,
        games: &[(&Claimed, &Finished)],
    ) -> Result<Vec<bool>, HostError> {
        // Ids and attempts are integers from the database: written into the statement; the
        // workers' names are bound.
        let mut claims = String::new();
        for (index, (claimed, _)) in games.iter().enumerate() {
            if index > 0 {
                claims.push(',');
            }
            claims.push_str(&format!(
                "({}, {}, ${})",
                claimed.id,
                claimed.attempts,
                index + 2
            ));
        }
        // A join with the list, not `(id, attempts, worker) IN (VALUES ...)`: PostgreSQL plans
        // that as a nested loop, a million comparisons for a thousand games. (The list's columns
        // keep their default names, column1..3: SQLite cannot rename them.)
        let sql = format!(
            "UPDATE games SET state = 'done', lease_until = NULL, finished_at = $1 \
             FROM (VALUES {claims}) AS claim \
             WHERE games.id = claim.column1 AND games.attempts = claim.column2 \
             AND games.worker = claim.column3 AND games.state = 'running' \
             RETURNING games.id, games.attempts, games.worker"
        );
        let mut query = sqlx::query(&sql).bind(now());
        for (claimed, _) in games {
            query = query.bind(&claimed.worker);
        }
        let rows = query.fetch_all(&mut **tx).await.map_err(db)?;
        let mut marked = std::collections::HashSet::new();
        for row in &rows {
            marked.insert((
                row.try_get::<i64, _>(0).map_err(db)?,
                row.try_get::<i64, _>(1).map_err(db)?,
                row.try_get::<String, _>(2).map_err(db)?,
            ));
        }
        let recorded = marked.len();
        // A claim is recorded once: the first time it is listed (as one at a time would).
        let done: Vec<bool> = games
            .iter()
            .map(|(claimed, _)| {
                marked.remove(&(claimed.id, claimed.attempts, claimed.worker.clone()))
            })
            .collect();
        if recorded == 0 {
            return Ok(done);
        }
        let last = Self::take_ids(tx, "completion", recorded as i64).await?;
        let mut completion = last - recorded as i64;
        let mut values = String::new();
        for index in 0..recorded {
            if index > 0 {
                values.push(',');
            }
            let first = 4 * index + 1;
            values.push_str(&format!(
                "(${first}, ${}, ${}, ${})",
                first + 1,
                first + 2,
                first + 3
            ));
        }
        let sql =
            format!("INSERT INTO results (game_id, completion, entry, replay) VALUES {values}");
        let mut query = sqlx::query(&sql);
        for ((claimed, finished), _) in games.iter().zip(&done).filter(|(_, d)| **d) {
            completion += 1;
            query = query
                .bind(claimed.id)
                .bind(completion)
                .bind(&finished.entry)
                .bind(finished.replay.clone());
        }
        query.execute(&mut **tx).await.map_err(db)?;
        Ok(done)
    }

    /// One game's completion; ladder and placement games rate their players and may promote.
    async fn complete_in(
        tx: &mut Transaction<'_, Any>,
        claimed: &Claimed,
        finished: &Finished,
        promotion: &Promotion,
    ) -> Result<bool, HostError> {
        let done = sqlx::query(
            "UPDATE games SET state = 'done', lease_until = NULL, finished_at = $1 \
             WHERE id = $2 AND state = 'running' AND attempts = $3 AND worker = $4",
        )
        .bind(now())
        .bind(claimed.id)
        .bind(claimed.attempts)
        .bind(&claimed.worker)
        .execute(&mut **tx)
        .await
        .map_err(db)?
        .rows_affected();
        if done != 1 {
            // Nothing of this game was written.
            return Ok(false);
        }
        // Every completion updates this one row first: on PostgreSQL that orders completions (and
        // their rating updates) one after another, as SQLite's single writer does.
        let completion = Self::next_id(tx, "completion").await?;
        sqlx::query(
            "INSERT INTO results (game_id, completion, entry, replay) VALUES ($1, $2, $3, $4)",
        )
        .bind(claimed.id)
        .bind(completion)
        .bind(&finished.entry)
        .bind(finished.replay.clone())
        .execute(&mut **tx)
        .await
        .map_err(db)?;
        if !rated(claimed) {
            return Ok(true);
        }
        // Ratings: a game rates its players only while they are all still in its league. One
        // promoted while the game was played starts afresh in its new league: rating the others
        // against that fresh rating (or against a guess of the old one) would be wrong, so such a
        // game rates nobody. Its result is kept.
        let mut current = Vec::new();
        for seat in &claimed.seats {
            let row = sqlx::query(
                "SELECT league, mu, sigma, games, user_id FROM submissions WHERE id = $1",
            )
            .bind(seat.id)
            .fetch_one(&mut **tx)
            .await
            .map_err(db)?;
            let league: i64 = row.try_get(0).map_err(db)?;
            current.push((
                league == claimed.league,
                Rating {
                    mu: row.try_get(1).map_err(db)?,
                    sigma: row.try_get(2).map_err(db)?,
                },
                row.try_get::<i64, _>(3).map_err(db)?,
                row.try_get::<i64, _>(4).map_err(db)?,
            ));
        }
        if current.iter().any(|(in_league, ..)| !in_league) {
            return Ok(true);
        }
        let before: Vec<Rating> = current.iter().map(|c| c.1).collect();
        let after = ladder::rate(&before, &finished.ranks);
        for (index, seat) in claimed.seats.iter().enumerate() {
            sqlx::query(
                "UPDATE submissions SET mu = $1, sigma = $2, games = games + 1 WHERE id = $3",
            )
            .bind(after[index].mu)
            .bind(after[index].sigma)
            .bind(seat.id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        }
        Self::promote(tx, claimed, promotion, completion).await?;
        Ok(true)
    }

    /// Promotes, after a game of league L, every active submission of L (not the boss) that has
    /// played enough games there and is rated above the boss.
    async fn promote(
        tx: &mut Transaction<'_, Any>,
        claimed: &Claimed,
        promotion: &Promotion,
        completion: i64,
    ) -> Result<(), HostError> {
        let league = claimed.league;
        let Some(Some(boss_user)) = promotion.bosses.get(league as usize) else {
            return Ok(());
        };
        if league + 1 >= promotion.leagues {
            return Ok(());
        }
        let boss = sqlx::query(
            "SELECT mu FROM submissions WHERE user_id = $1 AND active = 1 AND state = 'ready' AND league = $2",
        )
        .bind(*boss_user)
        .bind(league)
        .fetch_optional(&mut **tx)
        .await
        .map_err(db)?;
        let Some(boss) = boss else {
            return Ok(());
        };
        let boss_mu: f64 = boss.try_get(0).map_err(db)?;
        let fresh = Rating::default();
        for seat in &claimed.seats {
            let row =
                sqlx::query("SELECT league, mu, games, user_id FROM submissions WHERE id = $1")
                    .bind(seat.id)
                    .fetch_one(&mut **tx)
                    .await
                    .map_err(db)?;
            let (now_league, mu, games, user): (i64, f64, i64, i64) = (
                row.try_get(0).map_err(db)?,
                row.try_get(1).map_err(db)?,
                row.try_get(2).map_err(db)?,
                row.try_get(3).map_err(db)?,
            );
            if now_league != league
                || user == *boss_user
                || !ladder::promoted(games, mu, boss_mu, promotion.promotion_games)
            {
                continue;
            }
            sqlx::query(
                "UPDATE submissions SET league = $1, mu = $2, sigma = $3, games = 0 WHERE id = $4",
            )
            .bind(league + 1)
            .bind(fresh.mu)
            .bind(fresh.sigma)
            .bind(seat.id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
            sqlx::query(
                "INSERT INTO promotions (submission_id, from_league, completion) VALUES ($1, $2, $3)",
            )
            .bind(seat.id)
            .bind(league)
            .bind(completion)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
            // Its games queued in the old league are no longer its league's.
            sqlx::query(
                "UPDATE games SET state = 'cancelled' WHERE state = 'queued' AND league = $1 AND id IN \
                 (SELECT game_id FROM game_seats WHERE submission_id = $2)",
            )
            .bind(league)
            .bind(seat.id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        }
        Ok(())
    }

    /// A game that could not be played (a bot's folder missing, say): kept with the reason, not
    /// retried forever.
    pub async fn fail(&self, claimed: &Claimed, error: &str) -> Result<bool, HostError> {
        let changed = sqlx::query(
            "UPDATE games SET state = 'failed', lease_until = NULL, error = $1, \
             finished_at = $2 WHERE id = $3 AND state = 'running' AND attempts = $4 AND worker = $5",
        )
        .bind(error)
        .bind(now())
        .bind(claimed.id)
        .bind(claimed.attempts)
        .bind(&claimed.worker)
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if changed == 1 {
            sqlx::query("UPDATE workers SET games_failed = games_failed + 1 WHERE id = $1")
                .bind(&claimed.worker)
                .execute(&self.pool)
                .await
                .map_err(db)?;
            self.notify(&self.pool, Notice::Ended).await?;
        }
        Ok(changed == 1)
    }

    /// A claimed game its worker could not prepare goes back to the queue for another worker,
    /// with the reason kept in `error`; after `attempts` claims it is failed instead. `false` when
    /// the claim is no longer this worker's.
    pub async fn release(
        &self,
        claimed: &Claimed,
        error: &str,
        attempts: i64,
    ) -> Result<bool, HostError> {
        if claimed.attempts >= attempts {
            let reason = format!("{error} (no worker could prepare it in {attempts} claims)");
            return self.fail(claimed, &reason).await;
        }
        let changed = sqlx::query(
            "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL, error = $1 \
             WHERE id = $2 AND state = 'running' AND attempts = $3 AND worker = $4",
        )
        .bind(error)
        .bind(claimed.id)
        .bind(claimed.attempts)
        .bind(&claimed.worker)
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if changed == 1 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(changed == 1)
    }

    /// After a restart: games claimed by the previous process go back to the queue.
    pub async fn requeue_running(&self) -> Result<u64, HostError> {
        let requeued = sqlx::query(
            "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL \
                 WHERE state = 'running'",
        )
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if requeued > 0 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(requeued)
    }

    /// Games whose lease ran out (their worker died, or lost the database for longer than its
    /// lease) go back to the queue; so do games claimed without a lease by an older arena.
    pub async fn requeue_expired(&self) -> Result<u64, HostError> {
        let now = self.now_ms_sql();
        let requeued = sqlx::query(&format!(
            "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL \
             WHERE state = 'running' AND (lease_until IS NULL OR lease_until < {now})"
        ))
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if requeued > 0 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(requeued)
    }

    /// The games of workers of `machine` whose process is gone (`alive` says, by pid) go back to
    /// the queue at once, without waiting for their lease; those workers are marked `lost` (a
    /// drained worker is `stopped`: the organiser tells a crash from a clean stop).
    /// Only meaningful for the machine the caller runs on. Returns the games requeued.
    pub async fn requeue_dead_on(
        &self,
        machine: &str,
        alive: impl Fn(i64) -> bool,
    ) -> Result<u64, HostError> {
        let rows = sqlx::query(
            "SELECT id, pid FROM workers WHERE machine = $1 AND state NOT IN ('stopped', 'lost')",
        )
        .bind(machine)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut requeued = 0;
        for row in rows {
            let id: String = row.try_get(0).map_err(db)?;
            let pid: i64 = row.try_get(1).map_err(db)?;
            if alive(pid) {
                continue;
            }
            let mut tx = self.pool.begin().await.map_err(db)?;
            requeued += sqlx::query(
                "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL \
                 WHERE worker = $1 AND state = 'running'",
            )
            .bind(&id)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
            sqlx::query("UPDATE workers SET state = 'lost' WHERE id = $1")
                .bind(&id)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)?;
        }
        if requeued > 0 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(requeued)
    }

    /// The database's clock in milliseconds since 1970, as SQL: leases are judged on one clock,
    /// whatever the clocks of the workers' machines say.
    fn now_ms_sql(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
        }
    }

    /// Records a worker process as running (again, if its id is known).
    pub async fn register_worker(&self, worker: &WorkerInfo) -> Result<(), HostError> {
        let now = self.now_ms_sql();
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("DELETE FROM workers WHERE id = $1")
            .bind(&worker.id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        sqlx::query(&format!(
            "INSERT INTO workers (id, machine, pid, languages, cores, jobs, state, lease_ms, \
             started_at, heartbeat, games_done, games_failed) \
             VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, {now}, {now}, 0, 0)"
        ))
        .bind(&worker.id)
        .bind(&worker.machine)
        .bind(worker.pid)
        .bind(&worker.languages)
        .bind(worker.cores)
        .bind(worker.jobs)
        .bind(worker.lease_ms)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)
    }

    /// A worker's heartbeat: it is alive, and the leases of the games it holds run `lease_ms` from
    /// now. Returns the leases renewed (a game that a completion is recording at that moment is
    /// not among them).
    /// `games` are the games it is playing: a claim whose answer was lost on the way is not
    /// among them, and runs out.
    pub async fn heartbeat(
        &self,
        worker: &str,
        lease_ms: i64,
        games: &[i64],
    ) -> Result<u64, HostError> {
        let now = self.now_ms_sql();
        // Two statements, no transaction around them, and the leases first with SKIP LOCKED: a
        // completion locks its games, then the worker's row (its count). A heartbeat that held
        // the worker's row while it waited for those games deadlocked with its own worker's
        // completions; a game a completion has locked is being recorded and needs no lease.
        let mut held = 0;
        if !games.is_empty() {
            // Integers only: written into the statement rather than bound one by one.
            let ids: Vec<String> = games.iter().map(i64::to_string).collect();
            let skip_locked = match self.backend {
                Backend::Postgres => "FOR UPDATE SKIP LOCKED",
                Backend::Sqlite => "",
            };
            held = sqlx::query(&format!(
                "UPDATE games SET lease_until = {now} + $1 WHERE id IN (SELECT id FROM games \
                 WHERE worker = $2 AND state = 'running' AND id IN ({}) {skip_locked})",
                ids.join(",")
            ))
            .bind(lease_ms)
            .bind(worker)
            .execute(&self.pool)
            .await
            .map_err(db)?
            .rows_affected();
        }
        sqlx::query(&format!(
            "UPDATE workers SET heartbeat = {now} WHERE id = $1"
        ))
        .bind(worker)
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(held)
    }

    /// `running`, `draining` (finishing its games, claiming no more) or `stopped`.
    pub async fn set_worker_state(&self, worker: &str, state: &str) -> Result<(), HostError> {
        sqlx::query("UPDATE workers SET state = $1 WHERE id = $2")
            .bind(state)
            .bind(worker)
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Every worker ever registered, newest first, with the games it holds now.
    pub async fn workers(&self) -> Result<Vec<WorkerRow>, HostError> {
        let now = self.now_ms_sql();
        let rows = sqlx::query(&format!(
            "SELECT id, machine, pid, languages, cores, jobs, state, lease_ms, started_at, \
             heartbeat, games_done, games_failed, {now} FROM workers ORDER BY started_at DESC, id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let held = sqlx::query(
            "SELECT worker, id FROM games WHERE state = 'running' AND worker IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut games: HashMap<String, Vec<i64>> = HashMap::new();
        for row in held {
            games
                .entry(row.try_get(0).map_err(db)?)
                .or_default()
                .push(row.try_get(1).map_err(db)?);
        }
        let mut out = Vec::new();
        for row in rows {
            let id: String = row.try_get(0).map_err(db)?;
            let languages: String = row.try_get(3).map_err(db)?;
            let lease_ms: i64 = row.try_get(7).map_err(db)?;
            let heartbeat: i64 = row.try_get(9).map_err(db)?;
            let now: i64 = row.try_get(12).map_err(db)?;
            let state: String = row.try_get(6).map_err(db)?;
            let age = now - heartbeat;
            out.push(WorkerRow {
                games_held: games.remove(&id).unwrap_or_default(),
                id,
                machine: row.try_get(1).map_err(db)?,
                pid: row.try_get(2).map_err(db)?,
                languages: languages
                    .split(',')
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect(),
                cores: row.try_get(4).map_err(db)?,
                jobs: row.try_get(5).map_err(db)?,
                alive: state != "stopped" && state != "lost" && age <= lease_ms,
                state,
                lease_ms,
                started_at_ms: row.try_get(8).map_err(db)?,
                heartbeat_age_ms: age,
                games_done: row.try_get(10).map_err(db)?,
                games_failed: row.try_get(11).map_err(db)?,
            });
        }
        Ok(out)
    }

    /// Games the live workers can play at once (the sum of their jobs): the scheduler keeps the
    /// queue deep enough for them.
    pub async fn live_jobs(&self) -> Result<i64, HostError> {
        let row = sqlx::query(&self.live_jobs_sql())
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// The statement that sums the jobs of the live workers (running, with a heartbeat within
    /// their lease).
    fn live_jobs_sql(&self) -> String {
        format!(
            "SELECT CAST(COALESCE(SUM(jobs), 0) AS BIGINT) FROM workers WHERE state = 'running' \
             AND heartbeat + lease_ms >= {}",
            self.now_ms_sql()
        )
    }

    /// How many games a claimer that would take `count` should take so that the queue's tail is
    /// shared: `count` while the queue holds at least `count` games for each live job, else the
    /// queued games over the live jobs, rounded up. Without it the first worker to claim at the
    /// end of a round took a whole batch (a quarter of a second of play) while the others found
    /// nothing and waited. The queue is counted up to `count × SHARE_LOOKAHEAD` games only, so
    /// that the look stays cheap; with more live jobs than that, shares begin later.
    pub async fn fair_share(&self, count: i64) -> Result<i64, HostError> {
        let row = sqlx::query(&format!(
            "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM games WHERE state = 'queued' LIMIT $1) q), \
             ({})",
            self.live_jobs_sql()
        ))
        .bind(count.max(1).saturating_mul(SHARE_LOOKAHEAD))
        .fetch_one(&self.pool)
        .await
        .map_err(db)?;
        let queued: i64 = row.try_get(0).map_err(db)?;
        let jobs: i64 = row.try_get::<i64, _>(1).map_err(db)?.max(1);
        Ok(fair_share_of(count, queued, jobs))
    }

    /// Takes or renews the named lease for `holder` for `ms`: `true` when `holder` has it (it was
    /// free, ran out, or was already `holder`'s).
    pub async fn try_lease(&self, name: &str, holder: &str, ms: i64) -> Result<bool, HostError> {
        let now = self.now_ms_sql();
        let changed = sqlx::query(&format!(
            "INSERT INTO leases (name, holder, until_ms) VALUES ($1, $2, {now} + $3) \
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms \
             WHERE leases.holder = excluded.holder OR leases.until_ms < {now}"
        ))
        .bind(name)
        .bind(holder)
        .bind(ms)
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        Ok(changed == 1)
    }

    /// Who holds a named lease (whether or not it ran out).
    pub async fn lease_holder(&self, name: &str) -> Result<Option<String>, HostError> {
        let row = sqlx::query("SELECT holder FROM leases WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.map(|r| r.try_get(0)).transpose().map_err(db)
    }

    /// Gives a named lease up (a host that stops lets another schedule at once).
    pub async fn release_lease(&self, name: &str, holder: &str) -> Result<(), HostError> {
        sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
            .bind(name)
            .bind(holder)
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Gives uploads of an older arena (language `folder`, the migration's default) the language
    /// `language_of(kind, source_name)` says.
    pub async fn backfill_languages(
        &self,
        language_of: impl Fn(&str, &str) -> String,
    ) -> Result<(), HostError> {
        sqlx::query("UPDATE submissions SET language = 'builtin' WHERE kind = 'builtin' AND language <> 'builtin'")
            .execute(&self.pool)
            .await
            .map_err(db)?;
        let rows = sqlx::query(
            "SELECT id, kind, source_name FROM submissions WHERE language = 'folder' AND kind = 'upload'",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let kind: String = row.try_get(1).map_err(db)?;
            let name: String = row.try_get(2).map_err(db)?;
            let language = language_of(&kind, &name);
            if language != "folder" {
                self.set_language(id, &language).await?;
            }
        }
        Ok(())
    }

    /// A submission's language (what a worker must be able to run).
    pub async fn set_language(&self, id: i64, language: &str) -> Result<(), HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("UPDATE submissions SET language = $1 WHERE id = $2")
            .bind(language)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        // Its queued games' `needs` named the old language: they are checked through their seats.
        sqlx::query(
            "UPDATE games SET needs = NULL WHERE state = 'queued' AND needs IS NOT NULL \
             AND id IN (SELECT game_id FROM game_seats WHERE submission_id = $1)",
        )
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    // ---- reading results ----

    /// Games, newest first: all of them, or those where `submission` plays.
    pub async fn games(
        &self,
        submission: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameRow>, HostError> {
        let base = "SELECT g.id, g.kind, g.league, g.variant, g.seed, g.state, g.attempts, g.error, r.entry \
                    FROM games g LEFT JOIN results r ON r.game_id = g.id";
        let rows = match submission {
            Some(id) => sqlx::query(&format!(
                "{base} WHERE g.id IN (SELECT game_id FROM game_seats WHERE submission_id = $1) \
                 ORDER BY g.id DESC LIMIT $2"
            ))
            .bind(id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await,
            None => {
                sqlx::query(&format!("{base} ORDER BY g.id DESC LIMIT $1"))
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await
            }
        }
        .map_err(db)?;
        let mut games = Vec::new();
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let entry: Option<String> = row.try_get(8).map_err(db)?;
            games.push(GameRow {
                id,
                kind: row.try_get(1).map_err(db)?,
                league: row.try_get(2).map_err(db)?,
                variant: row.try_get(3).map_err(db)?,
                seed: row.try_get(4).map_err(db)?,
                state: row.try_get(5).map_err(db)?,
                attempts: row.try_get(6).map_err(db)?,
                error: row.try_get(7).map_err(db)?,
                seats: self.seats(id).await?,
                entry: entry.and_then(|e| serde_json::from_str(&e).ok()),
            });
        }
        Ok(games)
    }

    /// The submission in each seat of a game.
    pub async fn seats(&self, game: i64) -> Result<Vec<i64>, HostError> {
        let rows =
            sqlx::query("SELECT submission_id FROM game_seats WHERE game_id = $1 ORDER BY seat")
                .bind(game)
                .fetch_all(&self.pool)
                .await
                .map_err(db)?;
        rows.iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    /// A finished game's gzipped replay.
    pub async fn replay(&self, game: i64) -> Result<Option<Vec<u8>>, HostError> {
        let row = sqlx::query("SELECT replay FROM results WHERE game_id = $1")
            .bind(game)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        Ok(row.and_then(|r| r.try_get::<Option<Vec<u8>>, _>(0).ok().flatten()))
    }

    /// A finished game as it was claimed (its seed, variant and seats), to play it again.
    pub async fn finished_game(&self, id: i64) -> Result<Option<Claimed>, HostError> {
        let row = sqlx::query(
            "SELECT kind, league, variant, seed, attempts, COALESCE(worker, '') FROM games \
             WHERE id = $1 AND state = 'done'",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        let Some(row) = row else { return Ok(None) };
        let seed_text: String = row.try_get(3).map_err(db)?;
        let seed = seed_text
            .parse::<u64>()
            .map_err(|_| HostError::Database(format!("game {id} has a bad seed {seed_text:?}")))?;
        let seats = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
             JOIN users u ON u.id = s.user_id WHERE gs.game_id = $1 ORDER BY gs.seat"
        ))
        .bind(id)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?
        .iter()
        .map(submission_of)
        .collect::<Result<Vec<_>, _>>()
        .map_err(db)?;
        Ok(Some(Claimed {
            id,
            kind: row.try_get(0).map_err(db)?,
            league: row.try_get(1).map_err(db)?,
            variant: row.try_get(2).map_err(db)?,
            seed,
            attempts: row.try_get(4).map_err(db)?,
            seats,
            worker: row.try_get(5).map_err(db)?,
        }))
    }

    /// Every result, in completion order: (game id, completion, journal line).
    pub async fn results(&self) -> Result<Vec<(i64, i64, String)>, HostError> {
        let rows =
            sqlx::query("SELECT game_id, completion, entry FROM results ORDER BY completion")
                .fetch_all(&self.pool)
                .await
                .map_err(db)?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    /// Finished games of one kind in completion order: (seats, journal line).
    pub async fn finished_of_kind(&self, kind: &str) -> Result<Vec<(Vec<i64>, String)>, HostError> {
        let rows = sqlx::query(
            "SELECT g.id, r.entry FROM results r JOIN games g ON g.id = r.game_id \
             WHERE g.kind = $1 ORDER BY r.completion",
        )
        .bind(kind)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut seats = self
            .seats_of_kind(kind, "g.id IN (SELECT game_id FROM results)")
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            out.push((
                seats.remove(&id).unwrap_or_default(),
                row.try_get(1).map_err(db)?,
            ));
        }
        Ok(out)
    }

    /// Games of one kind that are not cancelled: (seats, round).
    pub async fn games_of_kind(&self, kind: &str) -> Result<Vec<(Vec<i64>, i64)>, HostError> {
        let rows = sqlx::query(
            "SELECT id, round FROM games WHERE kind = $1 AND state <> 'cancelled' ORDER BY id",
        )
        .bind(kind)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut seats = self.seats_of_kind(kind, "g.state <> 'cancelled'").await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            out.push((
                seats.remove(&id).unwrap_or_default(),
                row.try_get(1).map_err(db)?,
            ));
        }
        Ok(out)
    }

    /// The seats of the games of `kind` that `which` (a condition on `g`, written by this module)
    /// selects, by game, in one statement: a statement per game made a KotH host of 180 000 games
    /// spend half a core on its scheduler's looks.
    async fn seats_of_kind(
        &self,
        kind: &str,
        which: &str,
    ) -> Result<HashMap<i64, Vec<i64>>, HostError> {
        let rows = sqlx::query(&format!(
            "SELECT gs.game_id, gs.submission_id FROM game_seats gs JOIN games g ON g.id = gs.game_id \
             WHERE g.kind = $1 AND {which} ORDER BY gs.game_id, gs.seat"
        ))
        .bind(kind)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut seats: HashMap<i64, Vec<i64>> = HashMap::new();
        for row in &rows {
            seats
                .entry(row.try_get(0).map_err(db)?)
                .or_default()
                .push(row.try_get(1).map_err(db)?);
        }
        Ok(seats)
    }

    /// Promotions in order: (submission, from league, completion).
    pub async fn promotions(&self) -> Result<Vec<(i64, i64, i64)>, HostError> {
        let rows = sqlx::query(
            "SELECT submission_id, from_league, completion FROM promotions ORDER BY completion, submission_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }
}

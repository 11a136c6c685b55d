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
//!
//! The queries are grouped by the tables they serve, each file an `impl Store` block: `users`,
//! `submissions`, `queue` (games scheduled, claimed, requeued), `completion` (results, ratings,
//! promotions), `games` (reading what was played), `workers`, `leases` and `settings`. This file
//! holds the connection, the migrations, the notices and what the others share.

mod accounts;
mod completion;
mod games;
mod leases;
mod queue;
mod settings;
mod submissions;
mod users;
mod workers;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{Any, AnyPool, Executor, Row, Transaction};

use crate::HostError;
use crate::records::Submission;
// Outside the crate, games are queued as `store::NewGame` (as before records.rs).
pub use crate::records::NewGame;

pub use accounts::{Account, Session};
pub use completion::{Finished, Promotion, RatingPoint};
pub use games::{GameFilter, GameListing, GameRow, ListedSeat, Outcome};
pub use queue::{Claimed, DEFAULT_LEASE_MS};
pub use users::{Role, User, name_key};
pub use workers::{WorkerInfo, WorkerRow};

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
    /// Claims made through this store (its clones share it): every other claim of one game looks
    /// at the scrimmages first (see [`Store::claim_batch_excluding`]).
    claims: std::sync::Arc<std::sync::atomic::AtomicU64>,
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

/// Seconds since 1970.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// How long an SQLite writer waits for another connection's write lock before it fails with
/// SQLITE_BUSY: long enough for any of the contest's own transactions, short enough that an
/// upload behind a lock held by something else is answered (503) rather than left hanging.
const SQLITE_BUSY_WAIT_MS: u64 = 10_000;

/// SQLite's primary result codes the server tells apart (the low byte of an extended code).
const SQLITE_BUSY: i32 = 5;
const SQLITE_LOCKED: i32 = 6;
const SQLITE_IOERR: i32 = 10;
const SQLITE_FULL: i32 = 13;
/// PostgreSQL's `disk_full` (class 53, insufficient resources).
const PG_DISK_FULL: &str = "53100";

/// What a failed database call was, as the server's clients and the organiser should hear it:
/// by the code the database gave (never by its message's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    DiskFull,
    Busy,
    Storage,
    NoConnection,
    Other,
}

fn failure_of(error: &sqlx::Error) -> Failure {
    match error {
        sqlx::Error::Database(database) => {
            if let Some(sqlite) = database.try_downcast_ref::<sqlx::sqlite::SqliteError>() {
                let primary = sqlx::error::DatabaseError::code(sqlite)
                    .and_then(|code| code.parse::<i32>().ok())
                    .map(|code| code & 0xff);
                return match primary {
                    Some(SQLITE_FULL) => Failure::DiskFull,
                    Some(SQLITE_BUSY | SQLITE_LOCKED) => Failure::Busy,
                    Some(SQLITE_IOERR) => Failure::Storage,
                    _ => Failure::Other,
                };
            }
            if database.code().as_deref() == Some(PG_DISK_FULL) {
                Failure::DiskFull
            } else {
                Failure::Other
            }
        }
        sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::StorageFull => Failure::DiskFull,
        sqlx::Error::PoolTimedOut => Failure::NoConnection,
        _ => Failure::Other,
    }
}

/// A database error as a [`HostError`]: a full disk and a database that cannot serve for now are
/// variants of their own (the API answers 507 and 503), with what to do.
fn db(error: sqlx::Error) -> HostError {
    match failure_of(&error) {
        Failure::DiskFull => HostError::DiskFull(format!(
            "the server's disk is full: nothing was stored; the organiser must free space, then \
             it works again by itself ({error})"
        )),
        Failure::Busy => HostError::Unavailable(format!(
            "the database is busy (another connection holds its lock): nothing was stored; try \
             again in a moment ({error})"
        )),
        Failure::Storage => HostError::Unavailable(format!(
            "the database cannot read or write its files (a full or failing disk?): nothing was \
             stored; try again in a moment ({error})"
        )),
        Failure::NoConnection => HostError::Unavailable(format!(
            "the database has no connection free (all are waiting for it): try again in a moment \
             ({error})"
        )),
        Failure::Other => HostError::Database(error.to_string()),
    }
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
                            // WAL: readers never block the writer. A writer waits for another's
                            // lock for a while, then fails with SQLITE_BUSY (`Unavailable`: the
                            // API answers 503, workers retry) rather than hang a request.
                            conn.execute("PRAGMA journal_mode = WAL").await?;
                            conn.execute(
                                format!("PRAGMA busy_timeout = {SQLITE_BUSY_WAIT_MS}").as_str(),
                            )
                            .await?;
                            conn.execute("PRAGMA foreign_keys = ON").await?;
                            // FULL: a commit is on the disk (the WAL synced) before it returns,
                            // so what is acknowledged (an upload's 202, a game's result)
                            // survives a power cut as well as a crash; NORMAL kept the last
                            // commits in the page cache only.
                            conn.execute("PRAGMA synchronous = FULL").await?;
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
            .after_release(move |conn, _meta| Box::pin(Self::reusable(conn, backend)))
            .connect_with(options)
            .await
            .map_err(|e| HostError::Database(format!("cannot open the database: {e}")))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| HostError::Database(format!("cannot migrate the database: {e}")))?;
        let store = Store {
            pool,
            backend,
            url,
            schema: kept_schema,
            claims: Default::default(),
        };
        store.backfill_name_keys().await?;
        store.backfill_seat_outcomes().await?;
        Ok(store)
    }

    /// Whether a connection given back to the pool may serve again: it must be outside any
    /// transaction, as sqlx believes it is. Otherwise it is closed (which ends whatever
    /// transaction it was in and lets its locks go) and the pool opens another.
    ///
    /// SQLite rolls a transaction back by itself when a statement or the COMMIT fails on a full
    /// disk or an I/O error; sqlx's own ROLLBACK then fails and it still counted the transaction
    /// open. The connection's next BEGIN became a SAVEPOINT, whose failure left a real transaction
    /// open holding the write lock ("database is locked" for every other connection, for good),
    /// and whose "commit" released an inner savepoint only: writes acknowledged, then lost.
    async fn reusable(
        conn: &mut sqlx::AnyConnection,
        backend: Backend,
    ) -> Result<bool, sqlx::Error> {
        use sqlx::TransactionManager;
        if backend == Backend::Sqlite {
            // Queued behind the rollback of a dropped transaction, so it runs after it. BEGIN
            // fails when SQLite is still in a transaction; a deferred one takes no lock.
            if (&mut *conn).execute("BEGIN").await.is_err() {
                return Ok(false);
            }
            (&mut *conn).execute("ROLLBACK").await?;
        }
        Ok(<Any as sqlx::Database>::TransactionManager::get_transaction_depth(conn) == 0)
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

    /// The statements that run at every scheduler turn (a turn follows every recorded game) or
    /// whenever a submission changes, each with bind values for its plan: each must reach the
    /// games it changes or counts through an index, whatever the number of games played before.
    /// For the test that reads their plans on both databases (`tests/store.rs`).
    #[doc(hidden)]
    pub fn indexed_statements(&self) -> Vec<(&'static str, String, Vec<i64>)> {
        let unbound = [
            ("pending_per_submission", queue::PENDING_PER_SUBMISSION),
            ("count_unfinished", queue::COUNT_UNFINISHED),
            ("count_queued_unasked", queue::COUNT_QUEUED_UNASKED),
            ("count_queued", queue::COUNT_QUEUED),
            ("count_running", queue::COUNT_RUNNING),
            (
                "cancel_queued_of_inactive",
                submissions::CANCEL_QUEUED_OF_INACTIVE,
            ),
        ];
        unbound
            .into_iter()
            .map(|(name, sql)| (name, sql.to_string(), vec![]))
            .chain([
                (
                    "requeue_expired",
                    queue::requeue_expired_sql(self.now_ms_sql()),
                    vec![],
                ),
                (
                    "cancel_queued_of_promoted",
                    completion::CANCEL_QUEUED_OF_PROMOTED.to_string(),
                    vec![0, 1],
                ),
            ])
            .collect()
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

    /// A text that changes whenever what the pages show may have: games scheduled, started,
    /// completed or cancelled, submissions uploaded, built, stopped or rerun, accounts made or
    /// disabled, the leaderboard frozen. Cheap (counters, counts over indexed states, one sum),
    /// for the pages' live updates.
    pub async fn change_marker(&self) -> Result<String, HostError> {
        let row = sqlx::query(
            "SELECT (SELECT CAST(COALESCE(SUM(value), 0) AS BIGINT) FROM counters), \
             (SELECT COUNT(*) FROM games WHERE state = 'queued'), \
             (SELECT COUNT(*) FROM games WHERE state = 'running'), \
             (SELECT COUNT(*) FROM submissions WHERE state = 'building'), \
             (SELECT COUNT(*) FROM submissions WHERE state = 'stopped'), \
             (SELECT CAST(COALESCE(SUM(games), 0) AS BIGINT) FROM submissions), \
             (SELECT CAST(COALESCE(SUM(disabled), 0) AS BIGINT) FROM users), \
             (SELECT COUNT(*) FROM settings)",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(db)?;
        let mut parts = Vec::with_capacity(8);
        for column in 0..8 {
            parts.push(row.try_get::<i64, _>(column).map_err(db)?.to_string());
        }
        Ok(parts.join("-"))
    }

    /// The database's clock in milliseconds since 1970, as SQL: leases are judged on one clock,
    /// whatever the clocks of the workers' machines say.
    fn now_ms_sql(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
        }
    }
}

//! arena's contest server on one machine, as a library (the `arena host` command is glue over it):
//!
//! - [`config`]: the contest file;
//! - [`store`]: SQLite or PostgreSQL through sqlx, versioned migrations, the game queue with
//!   exactly-once completion;
//! - [`archive`]: uploads unpacked safely (zip bombs, path traversal, links);
//! - [`records`]: a submission and a game to queue, as the store keeps them and the ladder reads
//!   and makes them;
//! - [`ladder`]: ratings, promotion and matchmaking, pure;
//! - [`formats`]: the qualifier's groups and final, KotH's pairs, their standings, pure;
//! - [`host`]: the running contest, opened from the contest file or attached to its database;
//! - `builds`: submissions built as `--bot PATH` builds them, and probed;
//! - `scheduling`: what each format queues, and the scheduler;
//! - [`scrimmage`]: games a contestant asks for against a chosen opponent, unrated;
//! - `workers`: threads that claim, play and record games, and their heartbeats;
//! - `publishing`: replays, and the export of a contest as a tournament folder;
//! - [`api`]: the JSON API;
//! - [`auth`]: who asks: bearer tokens, the pages' sessions, registration;
//! - [`leaderboard`]: the board, one for the API, the CSV and the pages;
//! - [`site`]: the web pages, server-rendered, with their security headers and live updates.
//!
//! It prints nothing: errors are values, and the front end says them.

pub mod api;
pub mod archive;
pub mod auth;
mod builds;
pub mod config;
pub mod formats;
pub mod host;
pub mod ladder;
pub mod leaderboard;
mod publishing;
pub mod records;
mod scheduling;
pub mod scrimmage;
pub mod site;
pub mod store;
mod workers;

pub use config::Contest;
pub use host::{Host, HostOptions};
pub use store::Store;

/// What can go wrong, each with what to do about it in its message.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("contest file: {0}")]
    Config(String),
    #[error("database: {0}")]
    Database(String),
    #[error("{0}")]
    Io(String),
    /// An upload or request refused (said to the contestant).
    #[error("{0}")]
    Refused(String),
    /// Over a rate limit.
    #[error("{0}")]
    TooMany(String),
    /// A name or thing that is already there.
    #[error("{0}")]
    Conflict(String),
    /// The database's disk is full (SQLite's `SQLITE_FULL`, PostgreSQL's `disk_full`): what was
    /// being written was not stored. It works again by itself once space is freed.
    #[error("{0}")]
    DiskFull(String),
    /// The database cannot serve now: locked by another connection for longer than the wait
    /// (`SQLITE_BUSY`, `SQLITE_LOCKED`), its files failing (`SQLITE_IOERR`), no connection free.
    /// Nothing was stored; the same request later may succeed.
    #[error("{0}")]
    Unavailable(String),
}

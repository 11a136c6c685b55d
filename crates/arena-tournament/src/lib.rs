//! arena-tournament: many games, fairly seated, journaled so that a crash loses nothing, and ranked with
//! statistics that say how sure they are.
//!
//! - [`schedule`]: the plan and the game at every index (groups, seat orders, paired seeds);
//! - [`folder`]: the one writer of a tournament folder (plan, results lines, replays, outputs);
//! - [`journal`]: `results.jsonl`, crash-safe appends and resume;
//! - [`run`]: the worker pool;
//! - [`rebuild`]: replays of games between built-in bots, played again when someone watches one;
//! - [`stats`]: the statistics of the journal, in one pass;
//! - [`report`]: the reports made of them (text, CSV, `summary.json`, `report.html`);
//! - [`text`]: the text reports' layout (width, names cut, lines wrapped);
//! - [`summary`]: [`RunSummary`], those statistics as every view shows them (terminal,
//!   `summary.json`, `report.html`, `arena serve`), each figure formatted once;
//! - [`summary_file`]: `summary.json`, the formats' types filled in from the statistics;
//! - a tournament directory holds `tournament.json` (the plan), `results.jsonl`, `replays/`, and after
//!   the run `summary.json`, `leaderboard.csv` and `report.html`.

pub mod folder;
pub mod journal;
pub mod rebuild;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod schedule;
pub mod session;
pub mod stats;
pub mod summary;
pub mod summary_file;
pub mod text;
pub mod timing;

use std::path::Path;

pub use journal::Entry;
pub use run::{RunOptions, RunOutcome, run};
pub use schedule::{BotPlan, Plan, PlanRequest, RunSettings, Schedule, SeatOrders};
pub use session::{Progress, SessionEvent, SessionObserver, Watch};
pub use summary::{RunSummary, SummaryOf};

pub use arena_formats::layout::{self, PLAN_FILE};

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Journal(#[from] journal::JournalError),
    #[error(transparent)]
    Plan(#[from] schedule::PlanError),
    #[error("{0}")]
    Game(String),
    #[error("{0}")]
    Invalid(String),
}

impl TournamentError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        TournamentError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Creates the tournament directory and writes its plan. An existing directory with a journal is
/// refused: resume it instead. (The folder's writer is [`folder::TournamentFolder`].)
pub fn create(dir: &Path, plan: &Plan) -> Result<(), TournamentError> {
    folder::write_plan(dir, plan)
}

/// The plan of an existing tournament directory.
pub fn load(dir: &Path) -> Result<Plan, TournamentError> {
    let path = dir.join(PLAN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| TournamentError::io(&path, e))?;
    let not_a_plan = |e: serde_json::Error| {
        TournamentError::Invalid(format!("{}: not a tournament plan: {e}", path.display()))
    };
    let document: serde_json::Value = serde_json::from_str(&text).map_err(not_a_plan)?;
    // The version first: a newer arena's plan may not even parse as this one's.
    arena_formats::version::check_plan(&document)
        .map_err(|e| TournamentError::Invalid(format!("{}: {e}", path.display())))?;
    serde_json::from_value(document).map_err(not_a_plan)
}

/// Writes `plan` over the plan of the tournament in `dir` (after an extension): written aside,
/// flushed, then renamed over the old one, so that a crash leaves one plan or the other, whole.
pub fn rewrite(dir: &Path, plan: &Plan) -> Result<(), TournamentError> {
    use std::io::Write;
    let text = serde_json::to_string_pretty(plan)
        .map_err(|e| TournamentError::Invalid(format!("cannot encode the plan: {e}")))?;
    let path = dir.join(PLAN_FILE);
    let aside = dir.join(format!("{PLAN_FILE}.new"));
    let mut file = std::fs::File::create(&aside).map_err(|e| TournamentError::io(&aside, e))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| TournamentError::io(&aside, e))?;
    drop(file);
    std::fs::rename(&aside, &path).map_err(|e| TournamentError::io(&path, e))?;
    // The rename itself is durable once the folder is.
    if let Ok(folder) = std::fs::File::open(dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}

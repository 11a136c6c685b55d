//! The format versions of the files arena writes, and the one check of them (which refuses a
//! newer format with a message naming the arena that wrote it).
//!
//! - A replay carries its own `format` ([`RECORD_FORMAT`]).
//! - A tournament folder is versioned by its plan's `format` ([`FOLDER_FORMAT`]): the plan
//!   (`tournament.json`), the journal (`results.jsonl`, whose lines carry no number) and the
//!   folder's layout ([`crate::layout`]) change together. `summary.json` is rewritten from the
//!   journal by every run, so it is read only when it is of this arena.
//!
//! A file without a number is from before numbers were written (format 1, arena 0.2).

pub use arena_game::format::{ARENA_VERSION, NewerFormat, check_format, check_json_format};
pub use arena_game::record::{RECORD_FORMAT, check_replay};

/// The tournament folder's format: the plan's `format` field. Bump it when the plan, the journal
/// line or the folder's layout change meaning.
pub const FOLDER_FORMAT: u32 = 1;

/// Refuses a plan (`tournament.json`, parsed) whose folder format is newer than this arena reads.
pub fn check_plan(plan: &serde_json::Value) -> Result<(), NewerFormat> {
    check_json_format("tournament folder", plan, FOLDER_FORMAT)
}

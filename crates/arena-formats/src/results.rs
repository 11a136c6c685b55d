//! The results line: one finished game, one JSON object per line of `results.jsonl` (and the
//! contest database's `results.entry`). It carries no version of its own: the tournament folder's
//! plan versions it ([`crate::version::FOLDER_FORMAT`]).

use arena_game::{FaultKind, Score, SeatTiming};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One finished game. Written field by field in this order; the schema refuses fields arena does
/// not write, while reading stays lenient (older lines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Entry {
    /// The game's index in the schedule (tournament.json).
    pub index: u64,
    /// The game's id, as `arena list` names it.
    #[schemars(regex(pattern = "^[a-z][a-z0-9]*$"))]
    pub game: String,
    /// League or variant (spring2021), when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(with = "arena_game::seed::as_text")]
    #[schemars(with = "arena_game::seed::SeedText")]
    pub seed: u64,
    /// Games sharing a pair were played on the same seed with the same group in other seat orders.
    pub pair: u64,
    /// The bot (index into tournament.json's bots) in each seat.
    #[schemars(length(min = 2))]
    pub seats: Vec<usize>,
    /// The bot's label in each seat.
    #[schemars(length(min = 2))]
    pub bots: Vec<String>,
    /// Exact scores per seat.
    pub scores: Vec<Score>,
    /// The same scores as floats, for tools (the statistics read `scores`).
    #[serde(default)]
    pub score_values: Vec<f64>,
    /// 1-based rank per seat; tied seats share the better rank.
    #[schemars(inner(range(min = 1)))]
    pub ranks: Vec<u32>,
    /// The winning seat; null for a draw (or Coup's game without a winner).
    pub winner: Option<usize>,
    /// Fault kinds per seat.
    pub faults: Vec<Vec<FaultKind>>,
    /// The stored replay, relative to the tournament folder (`replays/NNNNNN.json.gz`), or null
    /// when none is kept (games between built-in bots are rebuilt from their seed when watched).
    pub replay: Option<String>,
    /// Answer times per seat, wall and CPU (null for a built-in bot); absent in games between
    /// built-in bots and in journals from before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timing: Vec<Option<SeatTiming>>,
}

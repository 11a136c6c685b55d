//! The replay's envelope: what every game's replay holds around its game-specific parts.
//!
//! arena writes a replay from the typed record (`arena_game::record::MatchRecord`, one per game);
//! [`Replay`] is the same document with the game's config, actions and frames left as JSON, so
//! that a reader (and the schema) need no game. A test checks that a game's record and its
//! [`Replay`] are the same JSON.

use arena_game::record::{PlayerRecord, Step};
use arena_game::{ClockKind, Outcome, TimePolicy};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One game's replay: enough to play it again (config, seed, every action) and to show it
/// (inputs, raw outputs, times, faults, stderr, per-frame state). The schema refuses fields
/// arena does not write; reading stays lenient.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Replay {
    /// The record's layout version (`RECORD_FORMAT`).
    #[schemars(range(min = 1, max = 1))]
    pub format: u32,
    /// The game's id, as `arena list` names it.
    #[schemars(regex(pattern = "^[a-z][a-z0-9]*$"))]
    pub game: String,
    /// The game's configuration (its league, edition or options); its shape depends on the game.
    pub config: Value,
    #[serde(with = "arena_game::seed::as_text")]
    #[schemars(with = "arena_game::seed::SeedText")]
    pub seed: u64,
    /// How answer times were judged (absent in records from before time policies: strict).
    #[serde(default)]
    pub time_policy: TimePolicy,
    /// The clock answer times were judged on (absent in older records: wall).
    #[serde(default)]
    pub clock: ClockKind,
    #[schemars(length(min = 2))]
    pub players: Vec<PlayerRecord>,
    /// Every ask, in order; each action's shape depends on the game.
    pub steps: Vec<Step<Value>>,
    /// The game's state per frame, for viewers (absent when not recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<Value>,
    pub outcome: Outcome,
}

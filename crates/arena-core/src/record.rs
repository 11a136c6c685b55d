//! The replay record of one game: enough to re-simulate it (seed, config, every sanitised action) and to
//! show it (every input and raw output, timing, faults, stderr, per-frame state).

use serde::{Deserialize, Serialize};

use crate::agent::AgentLog;
use crate::game::{Fault, Game, Outcome};
use crate::timing::TimePolicy;

fn is_zero(value: &u32) -> bool {
    *value == 0
}

fn is_zero_u64(value: &u64) -> bool {
    *value == 0
}

/// Version of the record layout; bump when a field changes meaning.
pub const RECORD_FORMAT: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct MatchRecord<G: Game> {
    pub format: u32,
    pub game: String,
    pub config: G::Config,
    pub seed: u64,
    /// How answer times were judged (absent in records from before time policies: strict).
    #[serde(default)]
    pub time_policy: TimePolicy,
    pub players: Vec<PlayerRecord>,
    /// Every ask, in order.
    pub steps: Vec<Step<G::Action>>,
    /// Game-specific state per frame, for viewers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<G::Frame>,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PlayerRecord {
    pub name: String,
    /// `builtin:NAME` or the command line.
    pub spec: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<StepFault>,
    /// What the rules accepted although it was not exactly the protocol (see `Game::rule_warnings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub answers: u32,
    /// Answers later than the nominal limit that the strike policy counted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub strikes: u32,
    /// Time drawn from the per-game bank, microseconds (bank policy).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub bank_used_us: u64,
    /// Slowest answer, microseconds (process agents).
    pub max_answer_us: u64,
    pub total_answer_us: u64,
    #[serde(flatten)]
    pub log: AgentLog,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepFault {
    /// Index into `steps`; `None` for faults before the first ask (start-up, handshake).
    pub step: Option<usize>,
    pub fault: Fault,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step<A> {
    pub player: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<A>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    #[serde(default)]
    pub elapsed_us: u64,
}

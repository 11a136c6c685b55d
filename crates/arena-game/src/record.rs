//! The replay record of one game: enough to re-simulate it (seed, config, every sanitised action) and to
//! show it (every input and raw output, timing, faults, stderr per answer, per-frame state).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::game::{Answer, Fault, Game, Outcome};
use crate::timing::{ClockKind, TimePolicy};

fn is_zero(value: &u32) -> bool {
    *value == 0
}

fn is_zero_u64(value: &u64) -> bool {
    *value == 0
}

/// Version of the record layout (the replay's `format`); bump when a field changes meaning, and
/// readers refuse replays newer than this ([`check_replay`]).
pub const RECORD_FORMAT: u32 = 1;

/// Everything seat `seat` wrote to stderr in the game of `replay` (a replay's JSON), in the order it
/// wrote it: each of its answers' own (`steps[].stderr` of the steps that are that seat's), then
/// what no answer took (the player's `stderr`). The same as
/// `jq -r '([.steps[] | select(.player == N) | .stderr // ""] | add // "") + (.players[N].stderr // "")'`.
pub fn seat_stderr(replay: &serde_json::Value, seat: usize) -> String {
    let mut all = String::new();
    for step in replay["steps"].as_array().into_iter().flatten() {
        if step["player"] == seat {
            all.push_str(step["stderr"].as_str().unwrap_or(""));
        }
    }
    all.push_str(replay["players"][seat]["stderr"].as_str().unwrap_or(""));
    all
}

/// Refuses a replay written in a newer format than this arena reads.
pub fn check_replay(replay: &serde_json::Value) -> Result<(), crate::format::NewerFormat> {
    crate::format::check_json_format("replay", replay, RECORD_FORMAT)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct MatchRecord<G: Game> {
    pub format: u32,
    pub game: String,
    pub config: G::Config,
    #[serde(with = "crate::seed::as_text")]
    pub seed: u64,
    /// How answer times were judged (absent in records from before time policies: strict).
    #[serde(default)]
    pub time_policy: TimePolicy,
    /// The clock answer times were judged on (absent in older records: wall).
    #[serde(default)]
    pub clock: ClockKind,
    pub players: Vec<PlayerRecord>,
    /// Every ask, in order.
    pub steps: Vec<Step<G::Action>>,
    /// Game-specific state per frame, for viewers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<G::Frame>,
    pub outcome: Outcome,
}

// The schemas refuse fields arena does not write; reading stays lenient (older files).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "player", deny_unknown_fields)]
pub struct PlayerRecord {
    pub name: String,
    /// `builtin:NAME` or the command line.
    pub spec: String,
    #[serde(
        default,
        with = "crate::seed::option_as_text",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<crate::seed::SeedText>")]
    pub bot_seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<StepFault>,
    /// What the rules accepted although it was not exactly the protocol (see `Game::rule_warnings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub answers: u32,
    /// Answers later than the nominal limit that the strike policy counted.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(range(min = 1))]
    pub strikes: u32,
    /// Time drawn from the per-game bank, microseconds (bank policy).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    #[schemars(range(min = 1))]
    pub bank_used_us: u64,
    /// Slowest answer, microseconds (process agents).
    pub max_answer_us: u64,
    pub total_answer_us: u64,
    /// CPU time of all answers together and of the costliest one, microseconds (process agents whose
    /// CPU time could be measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cpu_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cpu_us: Option<u64>,
    /// Timeouts of answers that got less than half their wall time as CPU time: the bot was waiting
    /// for a busy machine more than it was thinking.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(range(min = 1))]
    pub starved_timeouts: u32,
    #[serde(flatten)]
    pub log: AgentLog,
}

/// One seat's answer times over a game, wall and CPU (process bots only): what the journal keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "seat_timing", deny_unknown_fields)]
pub struct SeatTiming {
    pub answers: u32,
    /// Wall time of all answers, and of the slowest, microseconds.
    pub wall_us: u64,
    pub max_wall_us: u64,
    /// CPU time of all answers, and of the costliest, microseconds (when measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cpu_us: Option<u64>,
    /// Timeouts whose answer got less than half its wall time as CPU time.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(range(min = 1))]
    pub starved_timeouts: u32,
}

impl PlayerRecord {
    /// The seat's timing, `None` for a built-in bot (never timed).
    pub fn timing(&self) -> Option<SeatTiming> {
        // Built-ins that search are timed (their answers take time); rule bots are not.
        let timed = !self.spec.starts_with("builtin:")
            || self.total_answer_us > 0
            || self.total_cpu_us.is_some();
        timed.then_some(SeatTiming {
            answers: self.answers,
            wall_us: self.total_answer_us,
            max_wall_us: self.max_answer_us,
            cpu_us: self.total_cpu_us,
            max_cpu_us: self.max_cpu_us,
            starved_timeouts: self.starved_timeouts,
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "step_fault", deny_unknown_fields)]
pub struct StepFault {
    /// Index into `steps`; `None` for faults before the first ask (start-up, handshake).
    pub step: Option<usize>,
    pub fault: Fault,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "step", deny_unknown_fields)]
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
    /// CPU time of the answer, microseconds, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<u64>,
    /// What the bot wrote to stderr for this answer (process bots; absent when nothing): from its
    /// previous answer being read to this one's, and what came after it before the bot's next ask.
    /// Counted in the player's stderr cap; the player's `stderr` keeps only what no step took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

/// A finished game's record with its types erased, serialised only when someone needs the text.
///
/// Tournaments write it as JSON bytes straight from the typed record (on a writer thread, off the
/// game's path); tests and front ends that inspect it get a `serde_json::Value`, built on first use.
#[derive(Clone)]
pub struct RecordJson {
    typed: Arc<dyn ErasedRecord>,
    value: Arc<OnceLock<serde_json::Value>>,
}

/// What `RecordJson` needs of a typed record.
trait ErasedRecord: Send + Sync {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
    fn to_value(&self) -> serde_json::Result<serde_json::Value>;
}

impl<G: Game> ErasedRecord for MatchRecord<G> {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }

    fn to_value(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }
}

impl RecordJson {
    pub fn new<G: Game>(record: MatchRecord<G>) -> Self {
        RecordJson {
            typed: Arc::new(record),
            value: Arc::new(OnceLock::new()),
        }
    }

    /// Appends the record as compact JSON to `out` (one pass, no intermediate tree).
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        self.typed.write_json(out)
    }

    /// The record as JSON text.
    pub fn to_json(&self) -> serde_json::Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_json(&mut out)?;
        Ok(out)
    }
}

impl std::ops::Deref for RecordJson {
    type Target = serde_json::Value;

    /// The record as a JSON tree (`Null` if it cannot be encoded, which the record's types rule out).
    fn deref(&self) -> &serde_json::Value {
        self.value
            .get_or_init(|| self.typed.to_value().unwrap_or(serde_json::Value::Null))
    }
}

impl std::fmt::Debug for RecordJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RecordJson { .. }")
    }
}

impl Serialize for RecordJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

/// One answer as the runner saw it.
#[derive(Clone, Debug)]
pub struct Reply<A> {
    pub answer: Answer<A>,
    /// The exact text sent (process agents only).
    pub input: Option<String>,
    /// The exact text received, before any parsing (process agents only).
    pub raw_output: Option<String>,
    /// Time from the input being handed over to the answer being complete.
    pub elapsed: Duration,
    /// CPU time the bot's processes used for this answer, when it could be measured (process
    /// agents: the sandbox's cgroup, or `/proc` for an unconfined bot).
    pub cpu: Option<Duration>,
    /// What the bot wrote to stderr since its previous answer was read, up to this one's being read.
    pub stderr: Option<String>,
    /// What it wrote after its previous answer was read and before this ask: that answer's, late
    /// (a bot's stderr may arrive just after its stdout line; no one waits for it).
    pub stderr_late: Option<String>,
}

/// What an agent leaves behind at the end of a game.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct AgentLog {
    /// stderr no answer took (what came after the bot's last answer, or before its start failed):
    /// each answer's own is its step's `stderr`. Steps and this share one cap.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    #[serde(default, skip_serializing_if = "is_zero_usize")]
    #[schemars(range(min = 1))]
    pub stderr_dropped: usize,
    /// How the bot's process ended, as it happened: `exited (code N)`, `killed by signal N
    /// (NAME)`, `ended by arena at game end` or `ended by arena after its fault`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(
        pattern = r"^(exited \(code -?[0-9]+\)|killed by signal [0-9]+ \(.*\)|ended by arena (at game end|after its fault))$"
    ))]
    pub exit_status: Option<String>,
}

fn is_zero_usize(value: &usize) -> bool {
    *value == 0
}

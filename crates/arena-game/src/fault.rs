//! Why a player did not give a usable answer: the fault kinds and their details.
//!
//! Shared by the rules (the `Game` trait, answers) and the time policies (a late answer is a
//! timeout fault), so it depends on neither.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a player did not give a usable answer.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "fault_kind")]
pub enum FaultKind {
    /// The command could not be started.
    SpawnFailed,
    /// No handshake (`READY`) within the limit.
    NotReady,
    /// No answer within the time limit.
    Timeout,
    /// The process ended with a failure (non-zero status, a signal) or closed its output while
    /// still running, before answering.
    Crashed,
    /// The process exited cleanly (status 0) before answering: it stopped playing, it did not crash.
    Exited,
    /// The answer could not be parsed (games where that is fatal).
    Unparsable,
    /// A well-formed answer that the rules reject.
    Illegal,
    /// Anything else the rules forfeit a player for (Coup: modified history, bad exit status).
    Forfeit,
    /// Killed for going over the sandbox's memory limit (judged by the rules as a crash).
    Memory,
}

impl FaultKind {
    pub fn label(self) -> &'static str {
        match self {
            FaultKind::SpawnFailed => "spawn failed",
            FaultKind::NotReady => "not ready",
            FaultKind::Timeout => "timeout",
            FaultKind::Crashed => "crashed",
            FaultKind::Exited => "exited",
            FaultKind::Unparsable => "unparsable",
            FaultKind::Illegal => "illegal",
            FaultKind::Forfeit => "forfeit",
            FaultKind::Memory => "memory",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// The schema refuses fields arena does not write; reading stays lenient (older files).
#[schemars(rename = "fault", deny_unknown_fields)]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

impl Fault {
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Self {
        Fault {
            kind,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.label(), self.detail)
    }
}

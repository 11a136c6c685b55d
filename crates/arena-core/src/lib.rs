//! arena-core: what every game and front end shares.
//!
//! Code map:
//! - the pure side, re-exported from arena-game: [`game`], [`define`], [`builtin`], [`record`],
//!   [`timing`], [`score`], [`seed`];
//! - [`agent`]: one interface for in-process bots and external processes;
//! - [`process`]: bot processes in their own process groups (kill, pause, capped stderr);
//! - [`sandbox`]: the sandbox every bot process starts in (bubblewrap, cgroups, limits) and the one
//!   launcher that starts bot processes, plain or sandboxed;
//! - [`stream`]: the stream-process agent (stdin/stdout, one process per game);
//! - [`runner`]: drives one game between agents and records it;
//! - [`registry`]: a game as the front ends see it ([`registry::GameEntry`]), made from a game
//!   crate's [`define::GameDef`] by the stream or the call-per-move entry.

pub mod agent;
pub mod call;
pub mod folders;
pub mod process;
pub mod registry;
pub mod runner;
pub mod sandbox;
mod spawn;
pub mod stream;
pub mod testing;
mod watchdog;

// The pure side lives in arena-game (what the rule crates depend on); the run layer re-exports it
// so that a front end needs one import path.
pub use arena_game::{builtin, define, error, format, game, options, record, score, seed, timing};

pub use agent::{Agent, AgentLog, BuiltinAgent, Reply};
pub use game::{
    Answer, Bot, BotEntry, Fault, FaultKind, Game, Outcome, StreamProtocol, play_in_process,
    ranks_of,
};
pub use record::{MatchRecord, PlayerRecord, RecordJson, SeatTiming, Step, StepFault};
pub use runner::{MatchOptions, Seat, run_match};
pub use score::Score;
pub use stream::{ProcessSpec, StreamAgent};
pub use timing::{ClockKind, TimePolicy};

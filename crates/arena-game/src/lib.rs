//! arena-game: the pure side of every arena game, what the rule crates depend on and nothing else.
//!
//! No processes, no async runtime, no files: a game crate states its rules, its protocol and its
//! built-in bots here, and the run layer (arena-core) plays them against processes.
//!
//! Code map:
//! - [`game`]: the `Game` trait (pure rules), outcomes, built-in bots, the stream text protocol;
//! - [`fault`]: why a player did not give a usable answer (used by the rules and the time policies);
//! - [`env`]: what a learning environment needs beyond the rules (an action table, features);
//! - [`define`]: what a game crate registers ([`GameDef`]) and the call-per-move protocol
//!   ([`CallProtocol`]);
//! - [`builtin`]: built-in bots by name (handicaps), played in process, benchmarked, run as programs;
//! - [`record`]: the replay record and what an agent reports; [`timing`]: time policies (strict,
//!   CodinGame's strikes, grace, a per-game bank) and the one judgement of an answer's time;
//! - [`error`]: why a game cannot be set up as asked ([`GameError`]);
//! - [`options`]: a game's own options as it declares them, and the values a run sets;
//! - [`format`]: the one check of a file format's version (newer formats refused, clearly);
//! - [`score`]: exact scores; [`seed`]: seed derivation and the bots' generator.

pub mod builtin;
pub mod define;
pub mod env;
pub mod error;
pub mod fault;
pub mod format;
pub mod game;
pub mod options;
pub mod record;
pub mod score;
pub mod seed;
pub mod timing;

pub use builtin::{BenchLength, BenchReport, bot_seed, call_answer, find_bot};
pub use define::{CallProtocol, ConformanceCase, GameDef, Starter};
pub use env::EnvSpec;
pub use error::GameError;
pub use fault::{Fault, FaultKind};
pub use game::{Answer, Bot, BotEntry, Game, Outcome, StreamProtocol, play_in_process, ranks_of};
pub use options::{GameOption, GameOptions, OptionKind, OptionValue};
pub use record::{
    AgentLog, MatchRecord, PlayerRecord, RecordJson, Reply, SeatTiming, Step, StepFault,
};
pub use score::Score;
pub use timing::{ClockKind, TimePolicy};

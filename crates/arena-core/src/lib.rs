//! arena-core: what every game and front end shares.
//!
//! Code map:
//! - [`game`]: the `Game` trait (pure rules), faults, outcomes, built-in bots, the stream text protocol;
//! - [`agent`]: one interface for in-process bots and external processes;
//! - [`process`]: bot processes in their own process groups (kill, pause, capped stderr);
//! - [`sandbox`]: the sandbox every bot process starts in (bubblewrap, cgroups, limits) and the one
//!   launcher that starts bot processes, plain or sandboxed;
//! - [`stream`]: the stream-process agent (stdin/stdout, one process per game);
//! - [`runner`]: drives one game between agents and records it; [`timing`]: time policies (strict,
//!   CodinGame's strikes, grace, a per-game bank);
//! - [`record`]: the replay record;
//! - [`score`]: exact scores; [`seed`]: seed derivation and the bots' generator.

pub mod agent;
pub mod game;
pub mod process;
pub mod record;
pub mod registry;
pub mod runner;
pub mod sandbox;
pub mod score;
pub mod seed;
pub mod stream;
pub mod testing;
pub mod timing;
mod watchdog;

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

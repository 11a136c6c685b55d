//! arena-coup: Coup KotH (Code Golf SE, "Stage a Coup to become King of the Hill").
//!
//! Code map:
//! - [`rules`]: the game as a state machine over the history line (`Coup`, `CoupConfig`, moves, cards);
//! - [`protocol`]: what a bot appended/printed → an action or a forfeit; forfeit kinds;
//! - [`call`]: the call-per-move process agent (one process per call, own group, killed on every path);
//! - [`bots`]: built-in bots (only random, challenger and calculator follow published behaviour);
//! - [`search`]: `oracle`, the determinized Monte Carlo bot;
//! - [`koth`]: the original's tournament (rounds of every ordered pair, leaderboard text);
//! - [`entry`]: the registry entry for the front ends, conformance against `coup.jsonl`, `bot_main`.
//!
//! Reproducibility: `CoupConfig { deck: Some("_0'<..."), no_shuffle: true, .. }` matches the reference
//! arbiter run with `COUP_DECK=... COUP_NO_SHUFFLE=1` ([`CoupConfig::from_env`] reads those variables);
//! otherwise the deck and every shuffle come from the game seed (PCG64 MCG). The config is serde, so a
//! front end can also take it as JSON (`{"deck": "...", "no_shuffle": true, "time_limit_ms": 10000}`).
//!
//! Front-end wiring:
//! - registry: [`entry()`] (default rules) or [`entry_with`]`(config)` after [`CoupConfig::validate`];
//! - `arena koth coup --bot NAME=SPEC ... [--rounds R]`: build a [`KothSpec`] (`PlayerSpec::Builtin` or
//!   `PlayerSpec::Command`), call [`run_koth`] (synchronous: one game at a time; from async code use
//!   `spawn_blocking`) and print [`format_koth`];
//! - `arena bot coup NAME HISTORY OPP MY CARDS LEGAL...`: `GameEntry::bot_main` with the argv after the
//!   bot name (also available as the `coup-bot` binary of this crate).

pub mod bots;
pub mod call;
pub mod entry;
pub mod koth;
pub mod protocol;
pub mod rules;
pub mod search;

pub use call::{CallAgent, CallSpec, call_bot, run_process};
pub use entry::{CoupEntry, check_transcript, conformance_file, entry, entry_with};
pub use koth::{KothBot, KothReport, KothSpec, format_koth, run_koth};
pub use protocol::{ForfeitKind, decode_answer};
pub use rules::{
    Card, Cards, Coup, CoupAction, CoupConfig, CoupObs, Event, Frame, Hand, Legal, Move,
};

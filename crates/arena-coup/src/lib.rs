//! arena-coup: Coup KotH (Code Golf SE, "Stage a Coup to become King of the Hill").
//!
//! Code map:
//! - [`rules`]: the game as a state machine over the history line (`Coup`, `CoupConfig`, moves, cards);
//! - [`protocol`]: what a bot appended/printed → an action or a forfeit; forfeit kinds;
//! - [`bots`]: built-in rule bots (only random and challenger follow published behaviour) and the
//!   history reader the bots share;
//! - [`calculator`]: Brilliand's Calculator as the published bot plays, its flags read from the history;
//! - [`search`]: `oracle` and `king`, the determinized Monte Carlo bots;
//! - [`env`]: the action table and features of the Python environments;
//! - [`catalog`]: every built-in bot by name, in the order `arena list` shows them;
//! - [`entry`]: the game's definition ([`CoupDef`]), its call protocol (the history file and argv
//!   the run layer's call-per-move agent uses), conformance against `coup.jsonl`.
//!
//! No processes here: arena-core runs a command bot once per move through the game's call protocol
//! (`arena_game::CallProtocol`), and the binary holds the original's KotH tournament.
//!
//! Reproducibility: the options `--deck "_0'<..." --no-shuffle` ([`OPTIONS`]; the front ends read
//! the arbiter's `COUP_DECK` and `COUP_NO_SHUFFLE` for them when they are not given) match the
//! reference arbiter run with `COUP_DECK=... COUP_NO_SHUFFLE=1`; otherwise the deck and every shuffle
//! come from the game seed (PCG64 MCG).
//!
//! Front-end wiring: `arena_core::call::call_entry(arena_coup::definition())`; a run's rules come
//! from the options it sets ([`OPTIONS`], [`config_of`]).

pub mod bots;
pub mod calculator;
pub mod catalog;
pub mod entry;
pub mod env;
pub mod protocol;
pub mod rules;
pub mod search;

pub use entry::{CoupDef, OPTIONS, check_transcript, config_of, conformance_text, definition};
pub use protocol::{ForfeitKind, decode_answer};
pub use rules::{
    Card, Cards, Coup, CoupAction, CoupConfig, CoupObs, Event, Frame, Hand, Legal, Move,
};

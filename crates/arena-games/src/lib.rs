//! The one place where games are registered. A new game: its crate as a dependency of this one,
//! and one line in [`all`] (`stream_entry` for a game whose bots are one process for the whole
//! game, `call_entry` for one process per move).
//!
//! It is a crate of its own, compiled optimised in test builds too (see the workspace's
//! `Cargo.toml`): the run layer's generic code (the match runner, the agents, the benchmark loop) is
//! instantiated for each game here, where the entries are made, so that the games of the test suite
//! and of the speed guard run at the speed users get.

use arena_core::call::call_entry;
use arena_core::registry::{GameEntry, stream_entry};

/// Every game, in the order `arena list` shows them.
pub fn all() -> Vec<Box<dyn GameEntry>> {
    let mut games = Vec::new();
    games.extend(arena_langwars::definitions().into_iter().map(stream_entry));
    games.push(stream_entry(arena_spring2021::definition()));
    games.push(call_entry(arena_coup::definition()));
    games.push(stream_entry(arena_connect4::definition()));
    games
}

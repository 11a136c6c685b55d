//! The one place where games are registered. A new game: its crate, one line in `all()` (a
//! stream-protocol game with `stream_entry`, a call-per-move game with `call_entry`).

use arena_core::call::call_entry;
use arena_core::registry::{GameEntry, stream_entry};

pub fn all() -> Vec<Box<dyn GameEntry>> {
    let mut games = Vec::new();
    games.extend(arena_langwars::definitions().into_iter().map(stream_entry));
    games.push(stream_entry(arena_spring2021::definition()));
    games.push(call_entry(arena_coup::definition()));
    games.push(stream_entry(arena_connect4::definition()));
    games
}

/// What the replay viewer draws: every registered game with its drawing script.
pub fn viewer_games() -> arena_viewer::ViewerGames {
    arena_viewer::ViewerGames::new(all().iter().map(|game| (game.id(), game.viewer_script())))
}

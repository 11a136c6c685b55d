//! The one place where games are registered. A new game: its crate, one line in `all()`.

use arena_core::registry::GameEntry;

pub fn all() -> Vec<Box<dyn GameEntry>> {
    let mut games = Vec::new();
    games.extend(arena_langwars::entries());
    games.push(arena_spring2021::entry());
    games.push(arena_coup::entry());
    games
}

//! The one place where games are registered. A new game: its crate, one line in `all()`.

use arena_core::registry::GameEntry;

pub fn all() -> Vec<Box<dyn GameEntry>> {
    vec![
        // registrations go here, one line per game
    ]
}

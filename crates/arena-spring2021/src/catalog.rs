//! The built-in bots by name, in the order `arena list` shows them.
//!
//! Its own module because it names both the bosses and planner ([`bots`](mod@crate::bots)) and the
//! searching bot ([`search`](mod@crate::search)), which plays its rollouts with planner from `bots`:
//! kept in either, the two modules would import each other.

use arena_game::BotEntry;

use crate::bots::{Planner, RandomBot, SortedBoss};
use crate::game::Spring2021;
use crate::legend::legend;
use crate::search::SearchBot;

/// The built-in bots.
pub fn catalog() -> Vec<BotEntry<Spring2021>> {
    vec![
        BotEntry {
            name: "random",
            about: "official boss (config/Boss.py): Python's random.choice of a listed move other than WAIT, seeded with '🌱'",
            thinks: false,
            make: |_| Box::new(RandomBot::new()),
        },
        BotEntry {
            name: "wood2",
            about: "official Wood 2 boss: sorts the listed moves (COMPLETE, GROW, SEED, lowest index; stable) and plays the second",
            thinks: false,
            make: |_| Box::new(SortedBoss::new(false)),
        },
        BotEntry {
            name: "wood1",
            about: "official Wood 1 boss: as wood2, but the first COMPLETE while its score is 0",
            thinks: false,
            make: |_| Box::new(SortedBoss::new(true)),
        },
        BotEntry {
            name: "planner",
            about: "day planner: completes late and on rich cells, grows the biggest tree that can still finish, one free seed away from its own trees",
            thinks: false,
            make: |_| Box::new(Planner::default()),
        },
        BotEntry {
            name: "search",
            about: "rollout search with the exact rules: each listed COMPLETE/GROW, WAIT and the best SEEDs played to the end of the game against planner, best final margin; step budget (deterministic), a few ms per answer",
            thinks: true,
            make: |_| Box::new(SearchBot::default()),
        },
        BotEntry {
            name: "legend",
            about: "plan search: the other's moves for 6 days planned first (a beam of 600), then mine against their plan (each COMPLETE, GROW, up to two SEEDs, WAIT; exact sun and shadows), a beam of 2400 plans per move valued by points, sun and the trees standing, less the trees in line that shade them; deterministic (widths, not a clock), about 20 ms CPU per answer",
            thinks: true,
            make: |_| Box::new(legend()),
        },
    ]
}

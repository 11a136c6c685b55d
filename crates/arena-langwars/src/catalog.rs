//! The built-in bots by name, in the order `arena list` shows them.
//!
//! Its own module because it names both the rule-of-thumb bots ([`bots`](mod@crate::bots)) and the
//! searching bot ([`montecarlo`](mod@crate::montecarlo)), which runs replicas of greedy from `bots`:
//! kept in either, the two modules would import each other.

use arena_game::BotEntry;

use crate::bots::{FocusBot, GreedyBot, RandomBot, SpreadBot};
use crate::engine::LangWars;
use crate::montecarlo::{Budget, MonteCarloBot};

pub fn catalog() -> Vec<BotEntry<LangWars>> {
    vec![
        BotEntry {
            name: "random",
            about: "uniformly random targets, as the official sample AIs of every edition",
            thinks: false,
            make: |seed| Box::new(RandomBot::new(seed)),
        },
        BotEntry {
            name: "spread",
            about: "spreads its actions evenly: every slot on the next target in turn, highest values first",
            thinks: false,
            make: |_seed| Box::new(SpreadBot::default()),
        },
        BotEntry {
            name: "focus",
            about: "kazunetakahashi's LW2 idea, simplified: win the two most valuable targets, stay off \
                    the bottom of the next three, abandon the rest (by visible counts only)",
            thinks: false,
            make: |_seed| Box::new(FocusBot),
        },
        BotEntry {
            name: "greedy",
            about: "estimates opponents' hidden holiday actions from the P line and picks the move \
                    (every multiset of targets) with the best expected standing",
            thinks: false,
            make: |_seed| Box::new(GreedyBot::default()),
        },
        BotEntry {
            name: "montecarlo",
            about: "models each opponent as a replica of greedy fed the table it believes in (hidden \
                    holiday actions split to fit the P line, corrected by the reveal), and plays out \
                    the rest of the game for its best-looking moves; a few milliseconds a move",
            thinks: true,
            make: |seed| Box::new(MonteCarloBot::new(seed, Budget::FULL)),
        },
    ]
}

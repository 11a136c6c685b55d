//! The built-in bots by name, in the order `arena list` shows them.
//!
//! Its own module because it names the rule bots ([`bots`](mod@crate::bots)), calculator
//! ([`calculator`](mod@crate::calculator)) and the searching bots ([`search`](mod@crate::search)),
//! which play calculator and read histories with `bots`: kept in any of them, the modules would
//! import each other.

use arena_game::game::BotEntry;

use crate::bots::{RandomBot, Simple, Style};
use crate::calculator::Calculator;
use crate::rules::Coup;
use crate::search::{Model, OracleBot, SAMPLES};

pub fn catalog() -> Vec<BotEntry<Coup>> {
    vec![
        BotEntry {
            name: "random",
            about: "uniform over the legal moves, random keep on Exchange (the question's example Random)",
            thinks: false,
            make: |seed| Box::new(RandomBot::new(seed)),
        },
        BotEntry {
            name: "challenger",
            about: "challenges whenever it can, otherwise Income and Coup at 7 (the question's example Challenger; its exact defaults are unknown)",
            thinks: false,
            make: |_| Box::new(Simple::new(Style::Challenger)),
        },
        BotEntry {
            name: "calculator",
            about: "Brilliand's Calculator, the KotH's winner, as it plays: turns-to-win plans, fixed answers, its flags read back from the history (agrees with the published bot on 1498 of 1500 recorded calls)",
            thinks: false,
            make: |seed| Box::new(Calculator::new(seed)),
        },
        BotEntry {
            name: "oracle",
            about: "determinized Monte Carlo: samples the hidden cards (weighted by the opponent's claims), \
                    tries every legal move (every keep of an Exchange) and plays each sample out with \
                    calculator on both sides; a few milliseconds a call",
            thinks: true,
            make: |seed| Box::new(OracleBot::new(seed, SAMPLES)),
        },
        BotEntry {
            name: "king",
            about: "determinized Monte Carlo like oracle, but it counts cards over the whole game \
                    (claims not since shown, given up or exchanged; blocks not made) and judges from \
                    the opponent's challenges, passes and caught bluffs whether it is calculator-like, \
                    honest or always doubting; a few milliseconds a call",
            thinks: true,
            make: |seed| Box::new(OracleBot::with_model(seed, SAMPLES, Model::King)),
        },
        BotEntry {
            name: "taxman",
            about: "STAND-IN inspired by the leaderboard name, not the real bot: Tax every turn, Coup at 7, blocks Foreign Aid",
            thinks: false,
            make: |_| Box::new(Simple::new(Style::Taxman)),
        },
        BotEntry {
            name: "bandit",
            about: "STAND-IN inspired by the leaderboard name, not the real bot: Steal whenever legal, Coup at 7, blocks Steal as Captain",
            thinks: false,
            make: |_| Box::new(Simple::new(Style::Bandit)),
        },
        BotEntry {
            name: "lawyer",
            about: "STAND-IN inspired by the leaderboard name, not the real bot: claims only cards it holds, blocks truthfully, challenges provably false claims",
            thinks: false,
            make: |_| Box::new(Simple::new(Style::Lawyer)),
        },
        BotEntry {
            name: "assassin",
            about: "STAND-IN inspired by the leaderboard name (BloodyMurder), not the real bot: Assassinate whenever it can, else Income",
            thinks: false,
            make: |_| Box::new(Simple::new(Style::Assassin)),
        },
        BotEntry {
            name: "income",
            about: "STAND-IN passive baseline, not a leaderboard bot: Income, Coup at 7, never blocks or challenges",
            thinks: false,
            make: |_| Box::new(Simple::new(Style::Income)),
        },
    ]
}

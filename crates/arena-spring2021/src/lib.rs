//! Spring Challenge 2021 (CodinGame, "Photosynthesis"), bit-exact with the official referee.
//!
//! - [`board`]: the 37-cell board as bitboard tables; [`jrand`]: `java.util.Random` and shuffle;
//! - [`game`]: the rules (leagues, frames, actions, scoring) behind `arena_game::Game`;
//! - [`env`]: the action table and features of the Python environments;
//! - [`protocol`]: the exact input text and the referee's output patterns;
//! - [`bots`]: the official bosses and `planner`; [`search`]: the searching bot; [`plan`]: a
//!   beam search over my own moves for days ahead; [`legend`]: that plan search at its width;
//!   [`catalog`]: all of them by name; [`conformance`]: official transcripts replayed.

// Sizes and cells index several parallel tables at once (masks, costs, ranges, rays): index loops
// say that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod board;
pub mod bots;
pub mod catalog;
pub mod conformance;
pub mod env;
pub mod game;
pub mod jrand;
pub mod legend;
pub mod plan;
pub mod protocol;
pub mod pyrand;
pub mod search;

use arena_game::game::BotEntry;
use arena_game::{ConformanceCase, GameDef, GameError, GameOptions, Starter};

pub use game::{Action, Cmd, Frame, League, Obs, Spring2021};

/// The game's definition (the run layer plays it on the stream protocol).
pub struct SpringDef {
    bots: Vec<BotEntry<Spring2021>>,
}

/// The definition of `spring2021`.
pub fn definition() -> SpringDef {
    SpringDef {
        bots: catalog::catalog(),
    }
}

/// The starter bots (`arena new`), from `starters/`.
const STARTERS: &[Starter] = &[
    Starter {
        lang: "python3",
        file: "bot.py",
        text: include_str!("../starters/bot.py"),
    },
    Starter {
        lang: "cpp",
        file: "bot.cpp",
        text: include_str!("../starters/bot.cpp"),
    },
    Starter {
        lang: "java",
        file: "Player.java",
        text: include_str!("../starters/Player.java"),
    },
    Starter {
        lang: "javascript",
        file: "bot.js",
        text: include_str!("../starters/bot.js"),
    },
    Starter {
        lang: "typescript",
        file: "bot.ts",
        text: include_str!("../starters/bot.ts"),
    },
];

impl GameDef for SpringDef {
    type Game = Spring2021;

    fn id(&self) -> &'static str {
        "spring2021"
    }

    fn rules(&self) -> &'static str {
        include_str!("../../../docs/protocol-spring2021.md")
    }

    fn viewer_script(&self) -> &'static str {
        include_str!("../viewer.js")
    }

    fn starters(&self) -> &'static [Starter] {
        STARTERS
    }

    fn about(&self) -> &'static str {
        "CodinGame Spring Challenge 2021 (hex forest: sun, shadows, GROW/SEED/COMPLETE), 2 players"
    }

    fn players(&self) -> usize {
        2
    }

    fn variants(&self) -> &'static [&'static str] {
        &League::NAMES
    }

    fn config(&self, variant: Option<&str>, _options: &GameOptions) -> Result<League, GameError> {
        variant.map_or(Ok(League::Bronze), League::parse)
    }

    fn bots(&self) -> &[BotEntry<Spring2021>] {
        &self.bots
    }

    fn conformance(&self, transcripts: &str) -> Result<Vec<ConformanceCase>, GameError> {
        conformance::check_text(transcripts).map_err(GameError::Transcripts)
    }
}

//! The Lang Wars family (2014): one engine, three editions (`langwars`, `langwars2`, `negotiate`).
//!
//! - [`engine`]: the rules as the official `game.js` implements them;
//! - [`protocol`]: the text protocol and the official runner's answer parsing;
//! - [`bots`]: built-in bots ([`montecarlo`]: the searching one; [`catalog`]: all of them by name);
//!   [`conformance`]: official transcripts checked against the engine;
//! - [`env`]: the action table and features of the Python environments;
//! - [`mt`]: the MT19937 prefix that draws the values.

pub mod bots;
pub mod catalog;
pub mod conformance;
pub mod engine;
pub mod env;
pub mod montecarlo;
pub mod mt;
pub mod protocol;

use arena_game::game::BotEntry;
use arena_game::{ConformanceCase, GameDef, GameError, GameOptions, Starter};

pub use engine::{Edition, LangWars, Move, Observation};

/// One edition as a game definition (the run layer plays it on the stream protocol).
pub struct LangWarsDef {
    edition: Edition,
    bots: Vec<BotEntry<LangWars>>,
}

/// The three games of the family.
pub fn definitions() -> Vec<LangWarsDef> {
    Edition::ALL
        .into_iter()
        .map(|edition| LangWarsDef {
            edition,
            bots: catalog::catalog(),
        })
        .collect()
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
];

impl GameDef for LangWarsDef {
    type Game = LangWars;

    fn id(&self) -> &'static str {
        self.edition.game_id()
    }

    fn rules(&self) -> &'static str {
        include_str!("../../../docs/protocol-langwars.md")
    }

    fn viewer_script(&self) -> &'static str {
        include_str!("../viewer.js")
    }

    fn starters(&self) -> &'static [Starter] {
        STARTERS
    }

    fn conventions_2014(&self) -> bool {
        true
    }

    fn about(&self) -> &'static str {
        self.edition.about()
    }

    fn players(&self) -> usize {
        engine::PLAYERS
    }

    fn config(&self, variant: Option<&str>, _options: &GameOptions) -> Result<Edition, GameError> {
        match variant {
            None => Ok(self.edition),
            Some(v) => Err(GameError::NoLeagues {
                game: self.edition.game_id(),
                got: v.to_string(),
                hint: Some("the editions are the games langwars, langwars2 and negotiate"),
            }),
        }
    }

    fn bots(&self) -> &[BotEntry<LangWars>] {
        &self.bots
    }

    fn conformance(&self, transcripts: &str) -> Result<Vec<ConformanceCase>, GameError> {
        conformance::check_file(self.edition, transcripts).map_err(GameError::Transcripts)
    }
}

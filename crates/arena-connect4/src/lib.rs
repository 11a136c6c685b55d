//! Connect Four, arena's template game: the smallest complete game, and the one to copy when
//! adding a game (docs/adding-a-game.md walks through it). Everything the game brings lives in this
//! folder, and the binary registers it with one line.
//!
//! - [`rules`]: the grid, the moves, the win; the opening drawn from the seed;
//! - [`protocol`]: the text a bot reads and writes (one process for the whole game);
//! - [`bots`]: the built-in bots;
//! - `viewer.js`: the replay viewer's drawing; `protocol.md`: the rules page (`arena protocol`);
//!   `starters/`: the starter bots (`arena new connect4 LANG`).

pub mod bots;
pub mod protocol;
pub mod rules;

use arena_game::game::BotEntry;
use arena_game::{ConformanceCase, GameDef, GameError, GameOptions, Starter};

pub use rules::{Config, Connect4, Frame, Obs};

/// The game's definition (the run layer plays it on the stream protocol).
pub struct Connect4Def {
    bots: Vec<BotEntry<Connect4>>,
}

/// The definition of `connect4`.
pub fn definition() -> Connect4Def {
    Connect4Def {
        bots: bots::catalog(),
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
];

impl GameDef for Connect4Def {
    type Game = Connect4;

    fn id(&self) -> &'static str {
        "connect4"
    }

    fn about(&self) -> &'static str {
        "Connect Four, arena's template game: 7 × 6 grid, four in a row wins, the first disc of each player from the seed"
    }

    fn rules(&self) -> &'static str {
        include_str!("../protocol.md")
    }

    fn viewer_script(&self) -> &'static str {
        include_str!("../viewer.js")
    }

    fn starters(&self) -> &'static [Starter] {
        STARTERS
    }

    fn players(&self) -> usize {
        2
    }

    fn config(&self, variant: Option<&str>, _options: &GameOptions) -> Result<Config, GameError> {
        match variant {
            None => Ok(Config::default()),
            Some(v) => Err(GameError::NoLeagues {
                game: "connect4",
                got: v.to_string(),
                hint: None,
            }),
        }
    }

    fn bots(&self) -> &[BotEntry<Connect4>] {
        &self.bots
    }

    /// There is no official referee to compare with: the game is arena's own.
    fn conformance(&self, _transcripts: &str) -> Result<Vec<ConformanceCase>, GameError> {
        Err(GameError::NoOfficialReferee { game: "connect4" })
    }
}

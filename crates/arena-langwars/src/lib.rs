//! The Lang Wars family (2014): one engine, three editions (`langwars`, `langwars2`, `negotiate`).
//!
//! - [`engine`]: the rules as the official `game.js` implements them;
//! - [`protocol`]: the text protocol and the official runner's answer parsing;
//! - [`bots`]: built-in bots ([`montecarlo`]: the searching one); [`conformance`]: official transcripts checked against the engine;
//! - [`mt`]: the MT19937 prefix that draws the values.

pub mod bots;
pub mod conformance;
pub mod engine;
pub mod montecarlo;
pub mod mt;
pub mod protocol;

use std::io::{BufRead, Write};
use std::path::Path;

use arena_core::registry::{
    self, BenchLength, BenchReport, ConformanceCase, GameEntry, GameRequest, GameResult, find_bot,
};
use arena_core::{BotEntry, Outcome};
use futures::future::BoxFuture;

pub use engine::{Edition, LangWars, Move, Observation};

/// The registry entry of one edition.
pub struct LangWarsEntry {
    edition: Edition,
    bots: Vec<BotEntry<LangWars>>,
}

/// Entries for the three games of the family.
pub fn entries() -> Vec<Box<dyn GameEntry>> {
    Edition::ALL
        .into_iter()
        .map(|edition| {
            Box::new(LangWarsEntry {
                edition,
                bots: bots::catalog(),
            }) as Box<dyn GameEntry>
        })
        .collect()
}

impl LangWarsEntry {
    fn no_variant(&self, variant: Option<&str>) -> Result<(), String> {
        match variant {
            None => Ok(()),
            Some(v) => Err(format!(
                "{} has no leagues (got `{v}`); the editions are the games langwars, langwars2 and negotiate",
                self.edition.game_id()
            )),
        }
    }
}

impl GameEntry for LangWarsEntry {
    fn id(&self) -> &'static str {
        self.edition.game_id()
    }

    fn rules(&self) -> &'static str {
        include_str!("../../../docs/protocol-langwars.md")
    }
    fn about(&self) -> &'static str {
        self.edition.about()
    }

    fn players(&self) -> usize {
        engine::PLAYERS
    }

    fn bots(&self) -> Vec<(&'static str, &'static str)> {
        self.bots.iter().map(|bot| (bot.name, bot.about)).collect()
    }

    fn play(&self, request: GameRequest) -> BoxFuture<'static, Result<GameResult, String>> {
        let edition = self.edition;
        let seats = self
            .no_variant(request.variant.as_deref())
            .and_then(|()| registry::stream_seats(&self.bots, &request));
        Box::pin(async move {
            let seats = seats?;
            if seats.len() != engine::PLAYERS {
                return Err(format!(
                    "{} is a 4-player game: give 4 --bot options (got {})",
                    edition.game_id(),
                    seats.len()
                ));
            }
            registry::play_seats::<LangWars>(edition, request.seed, seats, request.options).await
        })
    }

    fn builtin_thinks(&self, name: &str) -> bool {
        registry::bot_thinks(&self.bots, name)
    }

    fn play_builtin(
        &self,
        variant: Option<&str>,
        bots: &[String],
        seed: u64,
    ) -> Result<Outcome, String> {
        self.no_variant(variant)?;
        registry::play_builtin_game(&self.edition, &self.bots, bots, seed)
    }

    fn conformance(&self, path: &Path) -> Result<Vec<ConformanceCase>, String> {
        let text = registry::read_transcripts(path)?;
        conformance::check_file(self.edition, &text)
    }

    fn bench(&self, variant: Option<&str>, length: BenchLength) -> Result<BenchReport, String> {
        self.no_variant(variant)?;
        let random = find_bot(&self.bots, "random")?;
        Ok(registry::bench_in_process(&self.edition, random, length))
    }

    fn bot_main(
        &self,
        name: &str,
        args: &[String],
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> Result<(), String> {
        let bot = find_bot(&self.bots, name)?;
        let seed = match args.first() {
            Some(text) => text
                .parse()
                .map_err(|_| format!("`{text}` is not a seed (an unsigned integer)"))?,
            None => 0,
        };
        registry::stream_bot_main(bot, seed, input, output)
    }
}

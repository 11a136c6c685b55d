//! Spring Challenge 2021 (CodinGame, "Photosynthesis"), bit-exact with the official referee.
//!
//! - [`board`]: the 37-cell board as bitboard tables; [`jrand`]: `java.util.Random` and shuffle;
//! - [`game`]: the rules (leagues, frames, actions, scoring) behind `arena_core::Game`;
//! - [`protocol`]: the exact input text and the referee's output patterns;
//! - [`bots`]: the official bosses and `planner`; [`conformance`]: official transcripts replayed.

// Sizes and cells index several parallel tables at once (masks, costs, ranges, rays): index loops
// say that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod board;
pub mod bots;
pub mod conformance;
pub mod game;
pub mod jrand;
pub mod protocol;
pub mod pyrand;
pub mod search;

use std::io::{BufRead, Write};
use std::path::Path;

use arena_core::registry::{
    self, BenchLength, BenchReport, ConformanceCase, GameEntry, GameRequest, GameResult, find_bot,
};
use arena_core::{BotEntry, Outcome};
use futures::future::BoxFuture;

pub use game::{Action, Cmd, Frame, League, Obs, Spring2021};

/// The registry entry (`arena ... spring2021`).
pub fn entry() -> Box<dyn GameEntry> {
    Box::new(SpringEntry {
        bots: bots::catalog(),
    })
}

pub struct SpringEntry {
    bots: Vec<BotEntry<Spring2021>>,
}

fn league_of(variant: Option<&str>) -> Result<League, String> {
    variant.map_or(Ok(League::Bronze), League::parse)
}

impl GameEntry for SpringEntry {
    fn id(&self) -> &'static str {
        "spring2021"
    }

    fn rules(&self) -> &'static str {
        include_str!("../../../docs/protocol-spring2021.md")
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

    fn bots(&self) -> Vec<(&'static str, &'static str)> {
        self.bots.iter().map(|bot| (bot.name, bot.about)).collect()
    }

    fn play(&self, request: GameRequest) -> BoxFuture<'static, Result<GameResult, String>> {
        let prepared = league_of(request.variant.as_deref()).and_then(|league| {
            if request.seats.len() != 2 {
                return Err(format!(
                    "spring2021 is a 2-player game: give 2 players (got {})",
                    request.seats.len()
                ));
            }
            Ok((league, registry::stream_seats(&self.bots, &request)?))
        });
        Box::pin(async move {
            let (league, seats) = prepared?;
            registry::play_seats::<Spring2021>(league, request.seed, seats, request.options).await
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
        registry::play_builtin_game(&league_of(variant)?, &self.bots, bots, seed)
    }

    fn conformance(&self, path: &Path) -> Result<Vec<ConformanceCase>, String> {
        let text = registry::read_transcripts(path)?;
        conformance::check_text(&text)
    }

    fn bench(&self, variant: Option<&str>, length: BenchLength) -> Result<BenchReport, String> {
        let random = find_bot(&self.bots, "random")?;
        Ok(registry::bench_in_process(
            &league_of(variant)?,
            random,
            length,
        ))
    }

    /// `arena bot spring2021 NAME [--seed N]`: the league is read from the first turn's position.
    fn bot_main(
        &self,
        name: &str,
        args: &[String],
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> Result<(), String> {
        let bot = find_bot(&self.bots, name)?;
        let mut seed = 0u64;
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--seed" => {
                    let value = rest.next().ok_or("--seed needs a value")?;
                    seed = value
                        .parse()
                        .map_err(|_| format!("--seed: `{value}` is not a number"))?;
                }
                other => return Err(format!("unknown option `{other}` (known: --seed N)")),
            }
        }
        registry::stream_bot_main(bot, seed, input, output)
    }
}

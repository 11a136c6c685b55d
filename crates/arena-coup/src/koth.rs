//! The KotH tournament of the original: `rounds` rounds, in each one game per ordered pair of entrants
//! (the first of the pair moves first), 1 point per win, no points for a game without a winner.
//! Unlike the arbiter, every game starts fresh (coins, hands, deck), draws included (B1).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use arena_core::registry::PlayerSpec;
use arena_core::runner::{MatchOptions, run_match};
use arena_core::seed::derive_seed;
use serde::Serialize;

use crate::entry::{coup_seats, scratch_dir};
use crate::protocol::ForfeitKind;
use crate::rules::{Coup, CoupConfig};

/// One entrant.
#[derive(Clone, Debug)]
pub struct KothBot {
    pub name: String,
    pub spec: PlayerSpec,
}

/// A tournament.
#[derive(Clone, Debug)]
pub struct KothSpec {
    pub bots: Vec<KothBot>,
    /// Rounds of every ordered pair (the original ran 10).
    pub rounds: u32,
    pub config: CoupConfig,
    /// Seed of the decks and shuffles; game `g` (counted over the whole tournament) uses
    /// `derive_seed(seed, g)`.
    pub seed: u64,
    /// Where history files are kept (`FIRST_SECOND_ROUND_GAME.txt`, as the arbiter names them) and
    /// where each command bot gets its working directory `DIR/NAME` (created if missing), as in the
    /// original. `None`: a scratch directory, removed afterwards, and bots run in the current directory.
    pub dir: Option<PathBuf>,
    pub stderr_cap: usize,
}

impl KothSpec {
    pub fn new(bots: Vec<KothBot>) -> Self {
        KothSpec {
            bots,
            rounds: 10,
            config: CoupConfig::default(),
            seed: 0,
            dir: None,
            stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
        }
    }
}

/// One entrant's result.
#[derive(Clone, Debug, Serialize)]
pub struct KothEntry {
    pub name: String,
    pub score: u32,
    pub games: u32,
    /// Forfeits by kind.
    pub forfeits: BTreeMap<ForfeitKind, u32>,
}

/// The whole tournament.
#[derive(Clone, Debug, Serialize)]
pub struct KothReport {
    /// Sorted by score, ties in registration order (the arbiter's stable sort).
    pub standings: Vec<KothEntry>,
    pub games: u32,
    /// Games that reached the call limit without a winner.
    pub no_winner: u32,
}

/// Plays the tournament, one game at a time.
pub async fn run_koth(spec: &KothSpec) -> Result<KothReport, String> {
    spec.config.validate()?;
    if spec.bots.len() < 2 {
        return Err("a KotH needs at least 2 bots".into());
    }
    let mut names: Vec<&str> = spec.bots.iter().map(|b| b.name.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err("bot names must be unique".into());
    }
    let scratch = spec.dir.is_none();
    let dir = match &spec.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir.clone()
        }
        None => scratch_dir("koth").map_err(|e| format!("cannot make a scratch dir: {e}"))?,
    };
    let workdirs = spec
        .bots
        .iter()
        .map(|bot| match (&spec.dir, &bot.spec) {
            (Some(dir), PlayerSpec::Command(_)) => {
                let own = dir.join(&bot.name);
                std::fs::create_dir_all(&own)
                    .map_err(|e| format!("cannot create {}: {e}", own.display()))?;
                Ok(Some(own))
            }
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut standings: Vec<KothEntry> = spec
        .bots
        .iter()
        .map(|bot| KothEntry {
            name: bot.name.clone(),
            score: 0,
            games: 0,
            forfeits: BTreeMap::new(),
        })
        .collect();
    let options = MatchOptions {
        pause_idle: false,
        time_scale: 1.0,
        record_frames: false,
    };
    let mut game_index = 0u64;
    let mut no_winner = 0;
    let result: Result<(), String> = async {
        for round in 0..spec.rounds {
            let mut in_round = 0;
            for first in 0..spec.bots.len() {
                for second in 0..spec.bots.len() {
                    if first == second {
                        continue;
                    }
                    let pair = [first, second];
                    let history = dir.join(format!(
                        "{}_{}_{round}_{in_round}.txt",
                        spec.bots[first].name, spec.bots[second].name
                    ));
                    let seats: Vec<_> = pair
                        .iter()
                        .map(|&b| {
                            (
                                spec.bots[b].name.clone(),
                                spec.bots[b].spec.clone(),
                                workdirs[b].clone(),
                            )
                        })
                        .collect();
                    let seed = derive_seed(spec.seed, game_index);
                    let seats = coup_seats(&seats, seed, &history, spec.stderr_cap)?;
                    let record = run_match::<Coup>(&spec.config, seed, seats, &options).await;
                    for (seat, &bot) in pair.iter().enumerate() {
                        let entry = &mut standings[bot];
                        entry.games += 1;
                        for fault in &record.players[seat].faults {
                            *entry.forfeits.entry(ForfeitKind::of(&fault.fault)).or_default() += 1;
                        }
                    }
                    match record.outcome.winner {
                        Some(seat) => standings[pair[seat]].score += 1,
                        None => no_winner += 1,
                    }
                    // The referee owns the file between calls; after the game it is the log.
                    let _ = std::fs::write(&history, final_history(&record));
                    game_index += 1;
                    in_round += 1;
                }
            }
        }
        Ok(())
    }
    .await;
    if scratch {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result?;
    standings.sort_by(|a, b| b.score.cmp(&a.score));
    Ok(KothReport {
        standings,
        games: game_index as u32,
        no_winner,
    })
}

/// The history text at the end of a game, rebuilt from the recorded moves.
fn final_history(record: &arena_core::record::MatchRecord<Coup>) -> String {
    record
        .steps
        .iter()
        .filter_map(|step| step.action.as_ref())
        .map(|action| action.wrote.as_str())
        .collect()
}

/// The leaderboard as the arbiter printed it (`'%5d %s'`), then games without a winner and forfeits.
pub fn format_koth(report: &KothReport) -> String {
    let mut out = String::new();
    for entry in &report.standings {
        let _ = writeln!(out, "{:5} {}", entry.score, entry.name);
    }
    let _ = writeln!(
        out,
        "{} games, {} without a winner",
        report.games, report.no_winner
    );
    let forfeiting: Vec<&KothEntry> = report
        .standings
        .iter()
        .filter(|e| !e.forfeits.is_empty())
        .collect();
    if !forfeiting.is_empty() {
        let _ = writeln!(out, "forfeits:");
        for entry in forfeiting {
            let kinds: Vec<String> = entry
                .forfeits
                .iter()
                .map(|(kind, n)| format!("{n} {kind}"))
                .collect();
            let _ = writeln!(out, "  {}: {}", entry.name, kinds.join(", "));
        }
    }
    out
}

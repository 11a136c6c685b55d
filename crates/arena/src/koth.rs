//! `arena koth`: the KotH tournament of the original Coup: `rounds` rounds, in each one game per ordered pair of entrants
//! (the first of the pair moves first), 1 point per win, no points for a game without a winner.
//! Unlike the arbiter, every game starts fresh (coins, hands, deck), draws included (B1).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use arena_core::game::{Answer, Bot, Fault, Game};
use arena_core::registry::{PlayerSpec, bot_seed, find_bot};
use arena_core::seed::derive_seed;
use serde::Serialize;

use arena_core::call::{CallSpec, GameSandbox, call_bot_in, scratch_dir};
use arena_coup::catalog;
use arena_coup::protocol::ForfeitKind;
use arena_coup::rules::{Coup, CoupConfig, CoupObs};

/// One entrant.
#[derive(Clone, Debug)]
pub struct KothBot {
    pub name: String,
    pub spec: PlayerSpec,
    /// A built submission's folder: copied to be the bot's own KotH folder, where its command
    /// (relative to it) runs. Only that copy is visible to a sandboxed bot.
    pub source: Option<std::path::PathBuf>,
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
    /// The sandbox every call starts in (`None`: unconfined).
    pub sandbox: Option<std::sync::Arc<arena_core::sandbox::Sandbox>>,
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
            sandbox: None,
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

/// One seat of a locally driven game.
pub enum LocalSeat {
    Builtin(Box<dyn Bot<Coup>>),
    Command(CallSpec),
}

/// The end of a locally driven game.
#[derive(Clone, Debug)]
pub struct LocalGame {
    pub winner: Option<usize>,
    /// Faults per seat (at most one: a fault forfeits).
    pub faults: [Vec<Fault>; 2],
    pub history: String,
}

/// Drives one game on this thread, calling each command bot once per move. The KotH's path: no async
/// runtime in between, so a call costs what the process costs.
pub fn play_local(
    config: &CoupConfig,
    seed: u64,
    seats: &mut [LocalSeat; 2],
    stderr_cap: usize,
) -> LocalGame {
    let mut game = Coup::new(config, seed);
    let mut obs = CoupObs::default();
    let mut faults: [Vec<Fault>; 2] = Default::default();
    // Each command bot's sandbox for this game (when sandboxed with a resident helper).
    let mut residents: [GameSandbox; 2] = Default::default();
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        let limit = game.time_limit(player);
        let answer = match &mut seats[player] {
            LocalSeat::Builtin(bot) => Answer::Action(bot.act(&obs)),
            LocalSeat::Command(spec) => {
                call_bot_in::<Coup>(spec, &obs, limit, stderr_cap, &mut residents[player]).answer
            }
        };
        if let Answer::Fault(fault) = &answer {
            faults[player].push(fault.clone());
        }
        game.apply(player, answer);
    }
    for (player, fault) in game.rule_faults() {
        faults[player].push(fault);
    }
    LocalGame {
        winner: game.outcome().winner,
        faults,
        history: game.history().to_string(),
    }
}

/// Plays the tournament, one game at a time, on this thread (from async code, run it on the blocking
/// pool).
pub fn run_koth(spec: &KothSpec) -> Result<KothReport, String> {
    spec.config.validate()?;
    if spec.bots.len() < 2 {
        return Err("a KotH needs at least 2 bots".into());
    }
    let mut names: Vec<&str> = spec.bots.iter().map(|b| b.name.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err("bot names must be unique".into());
    }
    // Names become directory and file names, as in the original: keep them inside `dir`.
    if let Some(bad) = names
        .iter()
        .find(|n| n.is_empty() || n.contains(['/', '\0']) || **n == "." || **n == "..")
    {
        return Err(format!("bot name {bad:?} cannot be a directory name"));
    }
    let builtins = catalog::catalog();
    for bot in &spec.bots {
        if let PlayerSpec::Builtin(name) = &bot.spec {
            find_bot(&builtins, name)?;
        }
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
        .map(|bot| match (&spec.dir, &bot.spec, &bot.source) {
            (_, PlayerSpec::Command(_), Some(source)) => {
                let own = dir.join(&bot.name);
                arena_core::folders::copy_tree(source, &own).map_err(|e| {
                    format!("cannot copy {} to {}: {e}", source.display(), own.display())
                })?;
                Ok(Some(own))
            }
            (Some(dir), PlayerSpec::Command(_), None) => {
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
    let mut game_index = 0u64;
    let mut no_winner = 0;
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
                let seed = derive_seed(spec.seed, game_index);
                let mut seats = pair.map(|b| match &spec.bots[b].spec {
                    PlayerSpec::Builtin(name) => {
                        let entry = find_bot(&builtins, name).expect("checked above");
                        let seat = if b == first { 0 } else { 1 };
                        LocalSeat::Builtin((entry.make)(bot_seed(seed, seat)))
                    }
                    PlayerSpec::Command(argv) => LocalSeat::Command(CallSpec {
                        argv: argv.clone(),
                        workdir: workdirs[b].clone(),
                        history: history.clone(),
                        stderr_cap: spec.stderr_cap,
                        sandbox: spec.sandbox.clone(),
                    }),
                });
                let played = play_local(&spec.config, seed, &mut seats, spec.stderr_cap);
                for (seat, &bot) in pair.iter().enumerate() {
                    let entry = &mut standings[bot];
                    entry.games += 1;
                    for fault in &played.faults[seat] {
                        *entry.forfeits.entry(ForfeitKind::of(fault)).or_default() += 1;
                    }
                }
                match played.winner {
                    Some(seat) => standings[pair[seat]].score += 1,
                    None => no_winner += 1,
                }
                // After the game the history file is its log, as in the original.
                if !scratch {
                    let _ = std::fs::write(&history, &played.history);
                }
                game_index += 1;
                in_round += 1;
            }
        }
    }
    if scratch {
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Stable, so ties keep registration order as in the arbiter.
    standings.sort_by_key(|entry| std::cmp::Reverse(entry.score));
    Ok(KothReport {
        standings,
        games: game_index as u32,
        no_winner,
    })
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arena-koth-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("script made executable");
        path
    }

    #[test]
    fn koth_counts_forfeits_and_points() {
        let dir = temp_dir("koth");
        let crasher = script(&dir, "crasher", "exit 1");
        let spec = KothSpec {
            rounds: 2,
            dir: Some(dir.join("run")),
            ..KothSpec::new(vec![
                KothBot {
                    name: "Income".into(),
                    spec: PlayerSpec::Builtin("income".into()),
                    source: None,
                },
                KothBot {
                    name: "Crasher".into(),
                    spec: PlayerSpec::Command(vec![crasher.to_string_lossy().into_owned()]),
                    source: None,
                },
                KothBot {
                    name: "Calculator".into(),
                    spec: PlayerSpec::Builtin("calculator".into()),
                    source: None,
                },
            ])
        };
        let report = run_koth(&spec).expect("koth runs");
        assert_eq!(report.games, 12);
        let crasher = report
            .standings
            .iter()
            .find(|e| e.name == "Crasher")
            .unwrap();
        assert_eq!(crasher.score, 0);
        assert_eq!(crasher.forfeits.get(&ForfeitKind::NonZeroExit), Some(&8));
        let total: u32 = report.standings.iter().map(|e| e.score).sum();
        assert_eq!(total + report.no_winner, 12);
        let text = format_koth(&report);
        assert!(text.contains("Crasher: 8 non-zero exit"), "{text}");
        assert!(text.lines().next().unwrap().starts_with("    "), "{text}");
        // History files are kept as the arbiter keeps them, and each command bot had its own directory.
        assert!(dir.join("run/Income_Crasher_0_0.txt").is_file());
        assert!(dir.join("run/Crasher").is_dir());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn builtin_koth_leaderboard() {
        // The one-rule bots and calculator (the searching bot has its own tests, tests/oracle.rs).
        let bots = catalog::catalog()
            .iter()
            .filter(|b| !b.thinks)
            .map(|b| KothBot {
                name: b.name.to_string(),
                spec: PlayerSpec::Builtin(b.name.to_string()),
                source: None,
            })
            .collect();
        let spec = KothSpec {
            seed: 5,
            ..KothSpec::new(bots)
        };
        let report = run_koth(&spec).unwrap();
        assert_eq!(report.games, 8 * 7 * 10);
        let points: u32 = report.standings.iter().map(|e| e.score).sum();
        assert_eq!(points + report.no_winner, report.games);
        assert!(
            report
                .standings
                .iter()
                .all(|e| e.games == 140 && e.forfeits.is_empty())
        );
        println!("{}", format_koth(&report));
    }
}

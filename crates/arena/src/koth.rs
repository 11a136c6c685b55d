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
    /// Games at once (at least 1). A bot never plays two games at once (its folder is never
    /// shared by two games), so with more than one job its games may come in another order than
    /// the original's; every game's seed is its place in that order, so the results of bots that
    /// keep no state are the same for any number of jobs.
    pub jobs: usize,
}

impl KothSpec {
    /// Games in the KotH: every ordered pair once a round.
    pub fn games(&self) -> u64 {
        let bots = self.bots.len() as u64;
        u64::from(self.rounds) * bots * bots.saturating_sub(1)
    }

    pub fn new(bots: Vec<KothBot>) -> Self {
        KothSpec {
            bots,
            rounds: 10,
            config: CoupConfig::default(),
            seed: 0,
            dir: None,
            stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
            sandbox: None,
            jobs: 1,
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

/// How far a KotH has come, after each game (for a progress display).
pub struct KothProgress<'a> {
    pub done: u32,
    /// Points and games so far, in registration order.
    pub standings: &'a [KothEntry],
}

/// One game of the KotH: its place in the original order, the round's file name, and the entrants
/// in seat order (the first moves first).
struct KothGame {
    index: u64,
    history: String,
    pair: [usize; 2],
}

/// What a played game gives back to the tally.
struct KothPlayed {
    pair: [usize; 2],
    winner: Option<usize>,
    forfeits: [Vec<ForfeitKind>; 2],
}

/// Hands out the games: the earliest one whose two bots are both free, so that no bot plays two
/// games at once and each bot's games start in the original order as far as that allows.
struct KothQueue {
    pending: std::collections::VecDeque<KothGame>,
    busy: Vec<bool>,
}

impl KothQueue {
    fn take(&mut self) -> Option<KothGame> {
        let at = self
            .pending
            .iter()
            .position(|game| game.pair.iter().all(|&bot| !self.busy[bot]))?;
        let game = self.pending.remove(at)?;
        for &bot in &game.pair {
            self.busy[bot] = true;
        }
        Some(game)
    }
}

/// Plays the tournament on `spec.jobs` threads (from async code, run it on the blocking pool),
/// calling `progress` on this thread after each game.
pub fn run_koth(
    spec: &KothSpec,
    progress: &mut dyn FnMut(&KothProgress<'_>),
) -> Result<KothReport, String> {
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
    // Each entrant as it is made for a game: a built-in's maker found before any game.
    enum Entrant<'a> {
        Builtin(fn(u64) -> Box<dyn Bot<Coup>>),
        Command(&'a [String]),
    }
    let entrants = spec
        .bots
        .iter()
        .map(|bot| match &bot.spec {
            PlayerSpec::Builtin(name) => {
                find_bot(&builtins, name).map(|entry| Entrant::Builtin(entry.make))
            }
            PlayerSpec::Command(argv) => Ok(Entrant::Command(argv)),
        })
        .collect::<Result<Vec<_>, String>>()?;
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
    // The original order: rounds, and in each one every ordered pair.
    let mut pending = std::collections::VecDeque::new();
    for round in 0..spec.rounds {
        let mut in_round = 0;
        for first in 0..spec.bots.len() {
            for second in (0..spec.bots.len()).filter(|&second| second != first) {
                pending.push_back(KothGame {
                    index: pending.len() as u64,
                    history: format!(
                        "{}_{}_{round}_{in_round}.txt",
                        spec.bots[first].name, spec.bots[second].name
                    ),
                    pair: [first, second],
                });
                in_round += 1;
            }
        }
    }
    let queue = std::sync::Mutex::new(KothQueue {
        pending,
        busy: vec![false; spec.bots.len()],
    });
    let freed = std::sync::Condvar::new();
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
    let mut no_winner = 0;
    let mut done = 0u32;
    let play = |game: &KothGame| -> KothPlayed {
        let history = dir.join(&game.history);
        let seed = derive_seed(spec.seed, game.index);
        let mut seats = [0, 1].map(|seat| {
            let bot = game.pair[seat];
            match &entrants[bot] {
                Entrant::Builtin(make) => LocalSeat::Builtin(make(bot_seed(seed, seat))),
                Entrant::Command(argv) => LocalSeat::Command(CallSpec {
                    argv: argv.to_vec(),
                    workdir: workdirs[bot].clone(),
                    history: history.clone(),
                    stderr_cap: spec.stderr_cap,
                    sandbox: spec.sandbox.clone(),
                }),
            }
        });
        let played = play_local(&spec.config, seed, &mut seats, spec.stderr_cap);
        // After the game the history file is its log, as in the original.
        if !scratch {
            let _ = std::fs::write(&history, &played.history);
        }
        KothPlayed {
            pair: game.pair,
            winner: played.winner,
            forfeits: played
                .faults
                .map(|faults| faults.iter().map(ForfeitKind::of).collect()),
        }
    };
    std::thread::scope(|scope| {
        let (sender, results) = std::sync::mpsc::channel::<KothPlayed>();
        for _ in 0..spec.jobs.max(1) {
            let sender = sender.clone();
            let (queue, freed, play) = (&queue, &freed, &play);
            scope.spawn(move || {
                loop {
                    let game = {
                        let Ok(mut queue) = queue.lock() else { return };
                        loop {
                            if queue.pending.is_empty() {
                                return;
                            }
                            if let Some(game) = queue.take() {
                                break game;
                            }
                            queue = match freed.wait(queue) {
                                Ok(queue) => queue,
                                Err(_) => return,
                            };
                        }
                    };
                    let played = play(&game);
                    if let Ok(mut queue) = queue.lock() {
                        for &bot in &game.pair {
                            queue.busy[bot] = false;
                        }
                    }
                    freed.notify_all();
                    if sender.send(played).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for played in results {
            for (seat, &bot) in played.pair.iter().enumerate() {
                let entry = &mut standings[bot];
                entry.games += 1;
                for &kind in &played.forfeits[seat] {
                    *entry.forfeits.entry(kind).or_default() += 1;
                }
            }
            match played.winner {
                Some(seat) => standings[played.pair[seat]].score += 1,
                None => no_winner += 1,
            }
            done += 1;
            progress(&KothProgress {
                done,
                standings: &standings,
            });
        }
    });
    if scratch {
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Stable, so ties keep registration order as in the arbiter.
    standings.sort_by_key(|entry| std::cmp::Reverse(entry.score));
    Ok(KothReport {
        standings,
        games: done,
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
        let report = run_koth(&spec, &mut |_| {}).expect("koth runs");
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

    /// Games of bots that keep no state give the same KotH on any number of jobs (a game's seed is
    /// its place in the original order, not the order it was played in).
    #[test]
    fn jobs_do_not_change_the_results() {
        let bots = ["calculator", "challenger", "taxman", "income", "bandit"]
            .iter()
            .map(|name| KothBot {
                name: name.to_string(),
                spec: PlayerSpec::Builtin(name.to_string()),
                source: None,
            })
            .collect::<Vec<_>>();
        let run = |jobs: usize| {
            let spec = KothSpec {
                seed: 11,
                rounds: 3,
                jobs,
                ..KothSpec::new(bots.clone())
            };
            let mut seen = Vec::new();
            let report = run_koth(&spec, &mut |now| seen.push(now.done)).expect("koth runs");
            assert_eq!(seen, (1..=spec.games() as u32).collect::<Vec<_>>());
            format!("{report:?}")
        };
        let one = run(1);
        assert_eq!(run(3), one);
        assert_eq!(run(4), one);
    }

    /// Process bots on two jobs: each call takes a lock in the bot's own folder and fails if the
    /// lock is held, so a bot called in two games at once would forfeit; none does.
    #[test]
    fn process_bots_on_two_jobs_never_share_their_folder() {
        let dir = temp_dir("exclusive");
        let starter = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arena-coup/starters/bot.py");
        let locking = script(
            &dir,
            "locking",
            &format!(
                "mkdir lock 2>/dev/null || exit 3\npython3 {} \"$@\"\nstatus=$?\nrmdir lock\nexit $status",
                starter.display()
            ),
        );
        // Two locking bots and two built-ins: every game of a locking bot could overlap another.
        let bots = (0..4)
            .map(|i| KothBot {
                name: format!("bot{i}"),
                spec: match i {
                    0 | 1 => PlayerSpec::Command(vec![locking.to_string_lossy().into_owned()]),
                    _ => PlayerSpec::Builtin("income".into()),
                },
                source: None,
            })
            .collect();
        let spec = KothSpec {
            rounds: 1,
            jobs: 2,
            dir: Some(dir.join("run")),
            ..KothSpec::new(bots)
        };
        let report = run_koth(&spec, &mut |_| {}).expect("koth runs");
        assert_eq!(report.games, 12);
        for entry in &report.standings {
            assert!(entry.forfeits.is_empty(), "{entry:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The queue never hands out a game of a bot that is playing, and hands out the games in the
    /// original order as far as the free bots allow.
    #[test]
    fn a_bot_never_plays_two_games_at_once() {
        let game = |index: u64, pair: [usize; 2]| KothGame {
            index,
            history: String::new(),
            pair,
        };
        let mut queue = KothQueue {
            pending: [[0, 1], [0, 2], [1, 2], [2, 0], [3, 1]]
                .iter()
                .enumerate()
                .map(|(index, &pair)| game(index as u64, pair))
                .collect(),
            busy: vec![false; 4],
        };
        let first = queue.take().expect("a game");
        assert_eq!(first.pair, [0, 1]);
        // Bots 0 and 1 are playing, and every other game has one of them.
        assert!(queue.take().is_none(), "every other game needs bot 0 or 1");
        queue.busy[1] = false;
        let second = queue.take().expect("a game");
        assert_eq!(second.pair, [1, 2], "the earliest game free of bot 0");
        assert!(queue.take().is_none());
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
        let report = run_koth(&spec, &mut |_| {}).unwrap();
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

//! Coup as the front ends see it: play, built-in games, conformance, bench, and the built-in bots as
//! external programs.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use arena_core::agent::Agent;
use arena_core::game::{Answer, BotEntry, Game, Outcome};
use arena_core::registry::{
    self, BenchLength, BenchReport, ConformanceCase, GameEntry, GameRequest, GameResult,
    PlayerSpec, bot_seed, find_bot,
};
use arena_core::runner::Seat;
use futures::future::BoxFuture;
use serde::Deserialize;

use crate::bots;
use crate::call::{CallAgent, CallSpec};
use crate::protocol::decode_answer;
use crate::rules::{Cards, Coup, CoupConfig, CoupObs, Move};

/// The registry entry with the default rules (shuffled deck from the game seed, shuffles on).
pub fn entry() -> Box<dyn GameEntry> {
    entry_with(CoupConfig::default())
}

/// The registry entry with explicit rules: the CLI's `--deck`/`--no-shuffle` (or
/// [`CoupConfig::from_env`]) end up here. The config must have passed [`CoupConfig::validate`].
pub fn entry_with(config: CoupConfig) -> Box<dyn GameEntry> {
    Box::new(CoupEntry { config })
}

pub struct CoupEntry {
    pub config: CoupConfig,
}

/// A fresh private directory for one game's history file: in `/dev/shm` (memory) when there is one,
/// else in the temporary directory. History files are written and removed every game; on a disk file
/// system (ext4) each new inode then costs a scan past the recently deleted ones, milliseconds per game
/// after a few thousand games.
pub(crate) fn scratch_dir(tag: &str) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "arena-coup-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let in_memory = Path::new("/dev/shm").join(&name);
    if std::fs::create_dir(&in_memory).is_ok() {
        return Ok(in_memory);
    }
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A scratch directory kept by a thread from one game to the next: making and removing a directory per
/// game cost ext4 more than a whole game of built-in bots (milliseconds: the directory allocator scans
/// block groups), so only the game's history file is removed after each game.
struct KeptDir(PathBuf);

impl Drop for KeptDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

thread_local! {
    static KEPT_DIR: std::cell::RefCell<Option<KeptDir>> = const { std::cell::RefCell::new(None) };
}

/// A private directory for one game's history file: this thread's kept one when free, else a new one.
fn game_dir() -> std::io::Result<KeptDir> {
    match KEPT_DIR.with(|kept| kept.borrow_mut().take()) {
        Some(dir) => Ok(dir),
        None => scratch_dir("play").map(KeptDir),
    }
}

/// Gives a game's directory back for the thread's next game. The main thread's is removed at once (its
/// thread-locals may never be dropped), as is a second one (two games at once on a multi-thread runtime).
fn return_game_dir(dir: KeptDir) {
    if std::thread::current().name() == Some("main") {
        return;
    }
    KEPT_DIR.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.is_none() {
            *kept = Some(dir);
        }
    });
}

/// The seats of one game: built-in bots in process, commands called once per move on `history`.
pub fn coup_seats(
    seats: &[(String, PlayerSpec, Option<PathBuf>)],
    seed: u64,
    history: &Path,
    stderr_cap: usize,
    sandbox: Option<std::sync::Arc<arena_core::sandbox::Sandbox>>,
    clock: arena_core::ClockKind,
    prepared: &arena_core::registry::PreparedSandboxes,
) -> Result<Vec<Seat<Coup>>, String> {
    let bots = bots::all();
    seats
        .iter()
        .enumerate()
        .map(|(index, (name, spec, workdir))| {
            let (agent, seed): (Box<dyn Agent<Coup>>, _) = match spec {
                PlayerSpec::Builtin(bot) => {
                    let seed = bot_seed(seed, index);
                    (
                        Box::new(arena_core::registry::builtin_agent(
                            &bots, bot, seed, clock,
                        )?),
                        Some(seed),
                    )
                }
                PlayerSpec::Command(argv) => {
                    let agent = CallAgent::new(CallSpec {
                        argv: argv.clone(),
                        workdir: workdir.clone(),
                        history: history.to_path_buf(),
                        stderr_cap,
                        sandbox: sandbox.clone(),
                    })
                    .with_clock(clock);
                    // A sandbox kept from the bot's earlier games, when the tournament leased one.
                    let agent = match prepared.take(index) {
                        Some(lease) => agent.with_lease(lease),
                        None => agent,
                    };
                    (Box::new(agent), None)
                }
            };
            Ok(Seat {
                name: name.clone(),
                spec: spec.label(),
                bot_seed: seed,
                agent,
            })
        })
        .collect()
}

impl GameEntry for CoupEntry {
    // A process per move: each call's sandbox comes from the game (one per bot and game).
    fn stream_bots(&self) -> bool {
        false
    }

    // Each command bot is called in a sandbox kept for the game, which a tournament keeps between
    // games too.
    fn pooled_calls(&self) -> bool {
        true
    }

    fn id(&self) -> &'static str {
        Coup::ID
    }

    fn rules(&self) -> &'static str {
        include_str!("../../../docs/protocol-coup.md")
    }
    fn about(&self) -> &'static str {
        "Coup KotH (Code Golf SE): two players, history file + argv, one process per call; of the \
         built-in bots only random, challenger and calculator follow published behaviour, the others \
         are stand-ins inspired by leaderboard names"
    }

    fn players(&self) -> usize {
        2
    }

    fn bots(&self) -> Vec<(&'static str, &'static str)> {
        bots::all().iter().map(|b| (b.name, b.about)).collect()
    }

    fn play(&self, request: GameRequest) -> BoxFuture<'static, Result<GameResult, String>> {
        let config = self.config.clone();
        Box::pin(async move {
            config.validate()?;
            if request.seats.len() != 2 {
                return Err(format!("coup needs 2 players, got {}", request.seats.len()));
            }
            let dir = game_dir().map_err(|e| format!("cannot make a scratch dir: {e}"))?;
            // Named like the arbiter's history files: FIRST_SECOND_ROUND_GAME.txt.
            let file_safe = |name: &str| -> String {
                name.chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || "-.".contains(c) {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect()
            };
            let history = dir.0.join(format!(
                "{}_{}_0_0.txt",
                file_safe(&request.seats[0].name),
                file_safe(&request.seats[1].name)
            ));
            let seats: Vec<_> = request
                .seats
                .iter()
                .map(|s| (s.name.clone(), s.spec.clone(), s.workdir.clone()))
                .collect();
            let result = match coup_seats(
                &seats,
                request.seed,
                &history,
                request.stderr_cap,
                request.options.sandbox.clone(),
                request.options.clock,
                &request.prepared,
            ) {
                Ok(seats) => {
                    registry::play_seats::<Coup>(config, request.seed, seats, request.options).await
                }
                Err(e) => Err(e),
            };
            let _ = std::fs::remove_file(&history);
            return_game_dir(dir);
            result
        })
    }

    fn builtin_thinks(&self, name: &str) -> bool {
        registry::bot_thinks(&bots::all(), name)
    }

    fn play_builtin(
        &self,
        _variant: Option<&str>,
        bots: &[String],
        seed: u64,
    ) -> Result<Outcome, String> {
        self.config.validate()?;
        registry::play_builtin_game(&self.config, &bots::all(), bots, seed)
    }

    fn conformance(&self, path: &Path) -> Result<Vec<ConformanceCase>, String> {
        conformance_file(path)
    }

    fn bench(&self, _variant: Option<&str>, length: BenchLength) -> Result<BenchReport, String> {
        self.config.validate()?;
        let bots = bots::all();
        let random = find_bot(&bots, "random")?;
        Ok(registry::bench_in_process(&self.config, random, length))
    }

    fn bot_main(
        &self,
        name: &str,
        args: &[String],
        _input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> Result<(), String> {
        bot_main(&bots::all(), name, args, output)
    }
}

/// FNV-1a, to seed an external built-in bot from what it was called with (same call, same choice).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for part in parts {
        for &b in *part {
            hash = (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        hash = (hash ^ 0xff).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// `arena bot coup NAME HISTORY OPP_COINS MY_COINS CARDS LEGAL...`: reads the history file, appends the
/// bot's move, prints the kept cards when completing an Exchange.
pub fn bot_main(
    bots: &[BotEntry<Coup>],
    name: &str,
    args: &[String],
    output: &mut dyn Write,
) -> Result<(), String> {
    let bot = find_bot(bots, name)?;
    let [history_path, opp, mine, cards, legal @ ..] = args else {
        return Err("usage: HISTORY OPP_COINS MY_COINS CARDS LEGAL...".into());
    };
    let history = std::fs::read_to_string(history_path)
        .map_err(|e| format!("cannot read the history file {history_path}: {e}"))?;
    let mut obs = CoupObs {
        history,
        opp_coins: opp
            .parse()
            .map_err(|_| format!("bad opponent coins {opp:?}"))?,
        my_coins: mine
            .parse()
            .map_err(|_| format!("bad own coins {mine:?}"))?,
        cards: Cards::parse_reveal(cards).ok_or_else(|| format!("bad cards {cards:?}"))?,
        ..CoupObs::default()
    };
    for text in legal {
        let mv = Move::parse(text.as_bytes()).ok_or_else(|| format!("bad legal move {text:?}"))?;
        if !obs.legal.push(mv) {
            return Err("too many legal moves".into());
        }
    }
    if obs.legal.is_empty() {
        return Err("no legal moves given".into());
    }
    let line = obs.line().as_bytes();
    let completes_exchange = line.first() == Some(&b'E')
        && line.len() & 1 == 0
        && line
            .last()
            .is_some_and(|&c| c == b'p' || crate::rules::Card::from_surrender(c).is_some());
    if completes_exchange && obs.cards.len() > 2 {
        obs.keep = obs.cards.len() - 2;
    }
    obs.player = bots::read_history(&obs.history).me;
    let seed = fnv1a(&[
        obs.history.as_bytes(),
        args[1..].join("\u{0}").as_bytes(),
        name.as_bytes(),
    ]);
    let action = (bot.make)(seed).act(&obs);
    if obs.keep > 0 && action.wrote == Move::END {
        output
            .write_all(action.keep.reveal_string().as_bytes())
            .and_then(|_| output.flush())
            .map_err(|e| format!("cannot print the kept cards: {e}"))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(history_path)
        .map_err(|e| format!("cannot open the history file {history_path}: {e}"))?;
    file.write_all(action.wrote.as_str().as_bytes())
        .map_err(|e| format!("cannot append to the history file: {e}"))?;
    Ok(())
}

/// One recorded game of `coup.jsonl` (see the shared conformance README).
#[derive(Deserialize)]
pub struct Transcript {
    pub deck: String,
    #[serde(default)]
    pub salts: Vec<String>,
    pub calls: Vec<RecordedCall>,
    pub history: String,
    pub winner: Option<usize>,
}

#[derive(Deserialize)]
pub struct RecordedCall {
    pub player: usize,
    pub args: Vec<String>,
    pub wrote: String,
    #[serde(default)]
    pub stdout: String,
}

/// Replays one transcript (its deck, shuffles off) feeding the recorded answers; the first difference.
pub fn check_transcript(game: &Transcript) -> Option<String> {
    let config = CoupConfig {
        deck: Some(game.deck.clone()),
        no_shuffle: true,
        ..CoupConfig::default()
    };
    if let Err(e) = config.validate() {
        return Some(format!("bad deck: {e}"));
    }
    let mut coup = Coup::new(&config, 0);
    let mut obs = CoupObs::default();
    for (index, call) in game.calls.iter().enumerate() {
        let Some(player) = coup.to_act() else {
            return Some(format!(
                "call {index}: the game is over, the referee made {} calls",
                game.calls.len()
            ));
        };
        if player != call.player {
            return Some(format!(
                "call {index}: player {player} asked, recorded {}",
                call.player
            ));
        }
        coup.observe(player, &mut obs);
        let args = obs.args();
        if args != call.args {
            return Some(format!(
                "call {index}: arguments {args:?}, recorded {:?}",
                call.args
            ));
        }
        let answer = match decode_answer(&obs, call.wrote.as_bytes(), call.stdout.as_bytes()) {
            Ok(action) => Answer::Action(action),
            Err(fault) => Answer::Fault(fault),
        };
        coup.apply(player, answer);
    }
    if let Some(player) = coup.to_act() {
        return Some(format!(
            "after {} calls the game goes on (player {player} to act)",
            game.calls.len()
        ));
    }
    if coup.history() != game.history {
        return Some(format!(
            "history {:?}, recorded {:?}",
            coup.history(),
            game.history
        ));
    }
    let winner = coup.outcome().winner;
    if winner != game.winner {
        return Some(format!("winner {winner:?}, recorded {:?}", game.winner));
    }
    None
}

/// Checks every game of a `coup.jsonl` file.
pub fn conformance_file(path: &Path) -> Result<Vec<ConformanceCase>, String> {
    let text = registry::read_transcripts(path)?;
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let label = format!("{}:{}", path.display(), number + 1);
        let game: Transcript = match serde_json::from_str(line) {
            Ok(game) => game,
            Err(e) => {
                cases.push(ConformanceCase {
                    label,
                    difference: Some(format!("unreadable transcript: {e}")),
                });
                continue;
            }
        };
        let label = format!("{label} deck {} salts {}", game.deck, game.salts.join(","));
        cases.push(ConformanceCase {
            label,
            difference: check_transcript(&game),
        });
    }
    Ok(cases)
}

//! Subcommands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use arena_core::process::DEFAULT_STDERR_CAP;
use arena_core::registry::{
    BenchLength, GameEntry, GameRequest, GameResult, PlayerSpec, SeatRequest,
};
use arena_core::seed::derive_seed;
use arena_core::{ClockKind, MatchOptions, TimePolicy};
use clap::{Parser, Subcommand};

use crate::games;

#[derive(Parser, Debug)]
#[command(
    name = "arena",
    version,
    about = "Referee AI-programming contests exactly as the originals did"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the games, their leagues and built-in bots.
    List,
    /// List the languages of single-file bots, their toolchains' versions (or the Debian package that
    /// provides a missing one) and the 2014 interpreter names.
    Languages,
    /// Print GAME's rules and protocol: what a bot reads and writes, its limits, and where arena
    /// departs from the original documents (the same page as docs/protocol-*.md).
    Protocol {
        /// The game (see `arena list`).
        game: String,
    },
    /// Write a starter bot for GAME in LANG (python3, cpp, java, javascript; typescript for
    /// spring2021) into DIR (default GAME-LANG).
    New {
        /// The game (see `arena list`).
        game: String,
        /// The language of the starter.
        #[arg(long)]
        lang: String,
        /// Where to write it.
        dir: Option<PathBuf>,
    },
    /// Play one game and print the result table; the replay is written as JSON.
    Play(PlayArgs),
    /// Check the referee against recorded official transcripts (exit status 1 if any game differs).
    Conformance {
        /// The game whose referee is checked.
        game: String,
        /// Transcript files (JSON lines, as in crates/arena-*/tests/data/*.jsonl).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// In-process games of built-in random bots on one core; the last line is `GAME: X games/s`.
    Bench {
        /// The game to measure.
        game: String,
        /// How long to play.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Play exactly N games instead (seeds 0 to N-1, no warm-up): the same work every run, to
        /// count its instructions or CPU time.
        #[arg(long, value_name = "N", conflicts_with = "seconds")]
        games: Option<u64>,
        /// League or variant, for games that have them.
        #[arg(long)]
        league: Option<String>,
        /// Also measure what a replay costs per game: recording, encoding, compressing.
        #[arg(long)]
        replays: bool,
    },
    /// Many games on all cores: seat rotation, paired seeds, a crash-safe journal, statistics, a report.
    Tournament(Box<crate::tournament::TournamentArgs>),
    /// Coup's King of the Hill as the original ran it: R rounds of every ordered pair, 1 point per win.
    Koth(crate::tournament::KothArgs),
    /// A local web server: tournaments, leaderboards, and every game in the replay viewer.
    Serve {
        /// Directories to serve (tournament directories, or directories holding them); default: `.`.
        #[arg(long = "dir")]
        dirs: Vec<PathBuf>,
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Listen on ADDR instead of 127.0.0.1, to serve a network (0.0.0.0: every address of
        /// this machine). There is no authentication: anyone who reaches it sees every game,
        /// stderr included.
        #[arg(long, value_name = "ADDR")]
        bind: Option<std::net::IpAddr>,
        /// A host name the server answers to besides 127.0.0.1, localhost, [::1] and the bound
        /// address (requests naming another host are refused: DNS rebinding); repeatable.
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_hosts: Vec<String>,
        /// Seconds a request may take before it is answered 408.
        #[arg(long, value_name = "S", default_value_t = arena_viewer::REQUEST_TIMEOUT.as_secs())]
        request_timeout: u64,
        /// Seconds a connection may stay silent (before or between requests) before it is closed.
        #[arg(long, value_name = "S", default_value_t = arena_viewer::IDLE_TIMEOUT.as_secs())]
        idle_timeout: u64,
    },
    /// Open one replay file (JSON or .json.gz) in the viewer.
    View {
        /// The replay (.json or .json.gz).
        file: PathBuf,
        /// Port on 127.0.0.1 (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// One game of a tournament as a replay file: its stored replay, or for a game between
    /// built-in bots (not stored by default), the game played again from its seed and checked
    /// against the journal.
    Replay {
        /// The tournament directory.
        dir: PathBuf,
        /// The game's index (the `#` column, `index` in results.jsonl).
        index: u64,
        /// Where to write the replay JSON (default: DIRNAME-INDEX.replay.json here).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Open it in the viewer too.
        #[arg(long)]
        view: bool,
    },
    /// Write one self-contained HTML file that replays the game from disk, with no server.
    Export {
        /// The replay (.json or .json.gz).
        file: PathBuf,
        /// The HTML file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Host a contest on this machine: submissions, a live ladder with leagues and bosses, web
    /// pages and a JSON API (see docs/contest.md).
    Host(Box<crate::host::HostArgs>),
    /// Upload a bot to a contest server (`arena host`): a source file, a .zip or a folder.
    Submit(crate::host::SubmitArgs),
    /// Play a contest's games on this machine, claimed from its PostgreSQL database (any number
    /// of workers on any number of machines; see docs/contest.md).
    Worker(Box<crate::host::WorkerArgs>),
    /// Run a built-in bot as an external program speaking the game's real protocol.
    Bot {
        /// The game whose protocol the bot speaks.
        game: String,
        /// The built-in bot (see `arena list`).
        name: String,
        /// Passed to the bot (Lang Wars, Spring 2021: an optional seed; Coup: the arbiter's arguments).
        #[arg(allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(clap::Args, Debug)]
struct PlayArgs {
    /// The game (see `arena list`).
    game: String,
    /// A player: `builtin:NAME` (or just NAME of a built-in bot) or a command line, optionally
    /// `LABEL=...`; once per seat.
    #[arg(long = "bot", required = true)]
    bots: Vec<String>,
    /// Game seed (default: drawn from the clock, printed and recorded). Negative values are taken as
    /// their 64-bit pattern (Spring 2021 seeds are Java longs).
    #[arg(long, value_parser = parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Where to write the replay (default: GAME-SEED.replay.json).
    #[arg(long)]
    replay: Option<PathBuf>,
    /// Working directory of the command bots: once for all, or once per --bot (`-` for a bot
    /// without one).
    #[arg(long = "workdir")]
    workdirs: Vec<PathBuf>,
    /// League or variant, for games that have them.
    #[arg(long)]
    league: Option<String>,
    /// Do not freeze idle bots (SIGSTOP) while another one thinks.
    #[arg(long)]
    no_pause: bool,
    /// Multiply every time limit (finite, above 0; slow machines, debugging).
    #[arg(long, default_value_t = 1.0, value_parser = parse_time_scale)]
    time_scale: f64,
    /// Bytes of each bot's stderr kept in the replay.
    #[arg(long, default_value_t = DEFAULT_STDERR_CAP)]
    stderr_cap: usize,
    #[command(flatten)]
    timing: TimingOptions,
    #[command(flatten)]
    coup: CoupOptions,
    #[command(flatten)]
    sandbox: SandboxOptions,
}

/// The sandbox bot processes run in (see docs/sandbox.md).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct SandboxOptions {
    /// `bwrap`: every bot process in a bubblewrap sandbox with cgroup limits (the default on
    /// Linux); `none`: bots run unconfined, with your privileges (only for bots you trust).
    #[arg(long = "sandbox", value_name = "KIND", default_value = "bwrap", value_parser = ["bwrap", "none"])]
    pub kind: String,
    /// Memory of each bot, all its processes together, in MiB (sandboxed; exceeding it is the
    /// fault `memory`).
    #[arg(long, value_name = "MIB", default_value_t = arena_core::sandbox::DEFAULT_MEMORY >> 20)]
    pub memory_mib: u64,
    /// Processes and threads of each bot together (sandboxed).
    #[arg(long, value_name = "N", default_value_t = arena_core::sandbox::DEFAULT_TASKS)]
    pub max_tasks: u32,
    /// CPU seconds per bot process (sandboxed; default: no limit beyond the game's clocks).
    #[arg(long, value_name = "S")]
    pub cpu_seconds: Option<u64>,
    /// An environment variable given to every bot (sandboxed bots get only PATH, HOME, LANG, TMPDIR
    /// and these); repeatable.
    #[arg(long = "bot-env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// A host folder or file shown read-only to every sandboxed bot (a compiler or runtime outside
    /// /usr and /opt); repeatable.
    #[arg(long = "sandbox-bind", value_name = "PATH")]
    pub read_only: Vec<PathBuf>,
}

impl SandboxOptions {
    /// The checked sandbox, or `None` with `--sandbox none` (and a warning) or when no seat is a
    /// process. Fails with everything that is missing when the sandbox cannot be set up.
    pub fn sandbox(
        &self,
        needed: bool,
    ) -> Result<Option<std::sync::Arc<arena_core::sandbox::Sandbox>>> {
        if !needed {
            return Ok(None);
        }
        if self.kind == "none" {
            eprintln!(
                "warning: --sandbox none: bots run unconfined, with your privileges (they can read and \
                 write your files, signal arena and other bots, use the network): only for bots you trust"
            );
            return Ok(None);
        }
        self.checked()
    }

    /// The sandbox submissions' build steps run in (arena-submit widens it for compilers), when
    /// some bot is a submission; `None` with `--sandbox none` (the warning comes with the games').
    pub fn build_sandbox(
        &self,
        submissions: bool,
    ) -> Result<Option<std::sync::Arc<arena_core::sandbox::Sandbox>>> {
        if !submissions || self.kind == "none" {
            return Ok(None);
        }
        self.checked()
    }

    fn checked(&self) -> Result<Option<std::sync::Arc<arena_core::sandbox::Sandbox>>> {
        let mut env = Vec::new();
        for pair in &self.env {
            let Some((name, value)) = pair.split_once('=') else {
                bail!("--bot-env {pair:?}: give NAME=VALUE");
            };
            env.push((name.to_string(), value.to_string()));
        }
        let mut read_only = self
            .read_only
            .iter()
            .map(std::path::absolute)
            .collect::<std::io::Result<Vec<_>>>()
            .context("--sandbox-bind")?;
        // Toolchains the submissions' launchers name outside the system's folders (pyenv's Python
        // 2, say), found while the bots were prepared: shown read-only, or the bots cannot start.
        read_only.extend(arena_submit::languages::tool_roots());
        let policy = arena_core::sandbox::SandboxPolicy {
            limits: arena_core::sandbox::Limits {
                memory: Some(self.memory_mib << 20),
                tasks: Some(self.max_tasks),
                cpu_seconds: self.cpu_seconds,
                ..Default::default()
            },
            env,
            read_only,
            bwrap: None,
            helper: std::env::current_exe().ok(),
        };
        let sandbox = arena_core::sandbox::Sandbox::new(policy).map_err(|e| anyhow!("{e}"))?;
        Ok(Some(std::sync::Arc::new(sandbox)))
    }
}

/// How answer times are judged against the game's limits.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct TimingOptions {
    /// strict (the limit is the deadline), strikes (CodinGame's: +50 ms real deadline, an answer
    /// over the limit is a strike, the third strike is the timeout), grace (+`--grace` ms on every
    /// answer) or bank (a per-game bank of `--bank` ms for time over the limits). Default: the
    /// game's own (spring2021: strikes; langwars, coup: strict).
    #[arg(long, value_name = "POLICY", value_parser = ["strict", "strikes", "grace", "bank"])]
    pub time_policy: Option<String>,
    /// Milliseconds of grace on every answer (implies `--time-policy grace`).
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub grace: Option<u64>,
    /// Milliseconds of per-game time bank (implies `--time-policy bank`; default 2000).
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub bank: Option<u64>,
    /// The clock limits are judged on: `wall` (default: real time, as the original contests) or
    /// `cpu` (CPU time the bot's processes used, the same on a loaded machine; every answer still
    /// has a wall-clock cap of 3 × the limit + 1 s).
    #[arg(long, value_name = "CLOCK", value_parser = ["wall", "cpu"])]
    pub clock: Option<String>,
}

impl TimingOptions {
    /// The policy asked for, `None` for the game's default.
    pub fn policy(&self) -> Result<Option<TimePolicy>> {
        let name = match (&self.time_policy, self.grace, self.bank) {
            (Some(name), _, _) => name.as_str(),
            (None, Some(_), None) => "grace",
            (None, None, Some(_)) => "bank",
            (None, None, None) => return Ok(None),
            (None, Some(_), Some(_)) => bail!("--grace and --bank are two different time policies"),
        };
        TimePolicy::from_name(name, self.grace, self.bank)
            .map(Some)
            .map_err(|e| anyhow!(e))
    }

    /// The clock asked for (wall by default).
    pub fn clock(&self) -> Result<ClockKind> {
        match &self.clock {
            Some(name) => ClockKind::from_name(name).map_err(|e| anyhow!(e)),
            None => Ok(ClockKind::Wall),
        }
    }
}

/// Coup's reproducibility hooks (the reference arbiter's `COUP_DECK` and `COUP_NO_SHUFFLE`, which are
/// read too when these are not given).
#[derive(clap::Args, Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CoupOptions {
    /// Coup: the deck before the deal, in surrender symbols (`_ ' < = 0`), dealt from its end.
    #[arg(long)]
    pub deck: Option<String>,
    /// Coup: no shuffles after reveals and Exchanges (returned cards go on the deck's end).
    #[arg(long)]
    pub no_shuffle: bool,
    /// Coup: per-call time limit in milliseconds (the original had none).
    #[arg(long)]
    pub call_limit_ms: Option<u64>,
    /// Coup: demand exactly one legal move per call. By default a call may write one character
    /// before a one-character legal move, as the original arbiter accepted (kept in the history,
    /// recorded as a warning).
    #[arg(long)]
    pub strict_moves: bool,
}

impl CoupOptions {
    pub fn given(&self) -> bool {
        self.deck.is_some() || self.no_shuffle || self.call_limit_ms.is_some() || self.strict_moves
    }

    /// These options with the environment's `COUP_DECK` and `COUP_NO_SHUFFLE` folded in (as
    /// [`find_game_with`] applies them), to be kept in a tournament's plan.
    pub fn with_env(&self) -> Result<CoupOptions> {
        let from_env = coup_config_from_env()?;
        Ok(CoupOptions {
            deck: self.deck.clone().or(from_env.deck),
            no_shuffle: self.no_shuffle || from_env.no_shuffle,
            ..self.clone()
        })
    }
}

/// The command line's definition: [`Cli`] with every option's value free to start with `-`
/// when it is a number (`--jobs -1`), so that its own parser says what the option accepts
/// (rather than clap's tip to write `-- -1`).
pub fn command() -> clap::Command {
    fn numbers_allowed(command: clap::Command) -> clap::Command {
        let names: Vec<String> = command
            .get_subcommands()
            .map(|sub| sub.get_name().to_string())
            .collect();
        let mut command = command.mut_args(|arg| {
            if arg.get_action().takes_values() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        });
        for name in names {
            command = command.mut_subcommand(name, numbers_allowed);
        }
        command
    }
    numbers_allowed(<Cli as clap::CommandFactory>::command())
}

/// Standard output was closed by its reader (`arena list | head -1`): arena stops quietly.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Writes `text` to standard output; a closed pipe is [`StdoutClosed`] (see `main`).
pub fn print_out(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|error| {
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                anyhow::Error::new(StdoutClosed)
            } else {
                anyhow::Error::new(error).context("cannot write to standard output")
            }
        })
}

/// Runs the command; `matches` tells which options were given on the command line (a tournament
/// file's values give way to them).
pub fn run(cli: Cli, matches: &clap::ArgMatches) -> Result<ExitCode> {
    match cli.command {
        Command::List => list(),
        Command::Protocol { game } => {
            let entry = find_game(&game)?;
            print_out(entry.rules())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Languages => crate::bots::languages(),
        Command::New { game, lang, dir } => crate::bots::new_bot(&game, &lang, dir),
        Command::Play(args) => play(args),
        Command::Conformance { game, files } => conformance(&game, &files),
        Command::Bench {
            game,
            seconds,
            games,
            league,
            replays,
        } => {
            let length = games.map_or(BenchLength::Seconds(seconds), BenchLength::Games);
            if replays {
                bench_replays(&game, length, league.as_deref())
            } else {
                bench(&game, length, league.as_deref())
            }
        }
        Command::Bot { game, name, args } => bot(&game, &name, &args),
        Command::Tournament(mut args) => {
            if let Some(matches) = matches.subcommand_matches("tournament") {
                crate::tournament_file::apply(&mut args, matches)?;
            }
            crate::tournament::tournament(*args)
        }
        Command::Serve {
            dirs,
            port,
            bind,
            allow_hosts,
            request_timeout,
            idle_timeout,
        } => serve(
            dirs,
            port,
            ServeNetwork {
                bind,
                allow_hosts,
                request_timeout: Duration::from_secs(request_timeout.max(1)),
                idle_timeout: Duration::from_secs(idle_timeout.max(1)),
            },
        ),
        Command::View { file, port } => view(file, port),
        Command::Export { file, output } => export(&file, &output),
        Command::Replay {
            dir,
            index,
            output,
            view,
        } => replay(&dir, index, output, view),
        Command::Koth(args) => crate::tournament::koth(args),
        Command::Host(args) => crate::host::host(*args),
        Command::Submit(args) => crate::host::submit(args),
        Command::Worker(args) => crate::host::worker(*args),
    }
}

/// The game `id`, with Coup's options applied (an error for other games, where they mean nothing).
pub fn find_game_with(id: &str, coup: &CoupOptions) -> Result<Box<dyn GameEntry>> {
    if id != "coup" {
        if coup.given() {
            bail!(
                "--deck, --no-shuffle, --call-limit-ms and --strict-moves are Coup options; {id} has none"
            );
        }
        return find_game(id);
    }
    coup_game(coup_config_from_env()?, coup)
}

/// The game a tournament's plan was made for, with the game options kept in it (and not the
/// environment's): resume and rebuilt replays play exactly its games.
pub fn find_game_of_plan(plan: &arena_tournament::Plan) -> Result<Box<dyn GameEntry>> {
    let options: CoupOptions = match &plan.settings.game_options {
        Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
            anyhow!("the tournament's game options cannot be read ({e}): is it from another arena?")
        })?,
        None => CoupOptions::default(),
    };
    if plan.game != "coup" {
        return find_game_with(&plan.game, &options);
    }
    coup_game(arena_coup::CoupConfig::default(), &options)
}

fn coup_game(mut config: arena_coup::CoupConfig, coup: &CoupOptions) -> Result<Box<dyn GameEntry>> {
    if let Some(deck) = &coup.deck {
        config.deck = Some(deck.clone());
    }
    config.no_shuffle |= coup.no_shuffle;
    config.strict_moves |= coup.strict_moves;
    if let Some(limit) = coup.call_limit_ms {
        config.time_limit_ms = limit;
    }
    config
        .validate()
        .map_err(|e| anyhow!("bad Coup options: {e}"))?;
    Ok(arena_core::call::call_entry(arena_coup::definition_with(
        config,
    )))
}

/// Coup's rules as the reference arbiter's `COUP_DECK` and `COUP_NO_SHUFFLE` variables set them
/// (what a conformance run against it uses).
fn coup_config_from_env() -> Result<arena_coup::CoupConfig> {
    let var = |name: &str| std::env::var(name).ok();
    arena_coup::CoupConfig::from_arbiter_variables(
        var("COUP_DECK").as_deref(),
        var("COUP_NO_SHUFFLE").as_deref(),
    )
    .map_err(|e| anyhow!(e))
}

pub fn find_game(id: &str) -> Result<Box<dyn GameEntry>> {
    let mut all = games::all();
    match all.iter().position(|game| game.id() == id) {
        Some(index) => Ok(all.swap_remove(index)),
        None => {
            let known: Vec<&str> = all.iter().map(|g| g.id()).collect();
            bail!("unknown game `{id}`; the games are: {}", known.join(", "))
        }
    }
}

fn list() -> Result<ExitCode> {
    use std::fmt::Write as _;
    let mut out = String::new();
    for game in games::all() {
        writeln!(
            out,
            "{} ({} players): {}",
            game.id(),
            game.players(),
            game.about()
        )?;
        if let Some((default, others)) = game.variants().split_first() {
            writeln!(out, "  leagues: {default} (default) {}", others.join(" "))?;
        }
        for (name, about) in game.bots() {
            // A built-in that searches is held to the time limits as a process is.
            let timed = if game.builtin_thinks(name) {
                "(timed) "
            } else {
                ""
            };
            writeln!(out, "  builtin:{name:<12} {timed}{about}")?;
        }
    }
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Turns `--bot` texts into players: a built-in bot's name (a misspelt one is an error that
/// suggests the closest), a source file or folder (built once, see `arena languages`), or a command
/// whose program must exist.
pub fn seat_requests(
    game: &dyn GameEntry,
    bots: &[(Option<String>, String)],
    workdirs: &[PathBuf],
    sandbox: &SandboxOptions,
) -> Result<Vec<crate::bots::Player>> {
    if !(workdirs.is_empty() || workdirs.len() == 1 || workdirs.len() == bots.len()) {
        bail!(
            "give --workdir once (for every command bot) or once per --bot ({} bots, {} workdirs)",
            bots.len(),
            workdirs.len()
        );
    }
    let submissions = bots
        .iter()
        .any(|(_, text)| arena_submit::is_submission(Path::new(text.trim())));
    let builds = sandbox.build_sandbox(submissions)?;
    bots.iter()
        .enumerate()
        .map(|(index, (name, text))| {
            let workdir = match workdirs.len() {
                0 => None,
                1 => Some(workdirs[0].as_path()),
                _ => Some(workdirs[index].as_path()),
            }
            // `-`: this bot has none (when the others have one each).
            .filter(|dir| dir.as_os_str() != "-");
            crate::bots::resolve(game, name.as_deref(), text, workdir, builds.as_ref())
        })
        .collect()
}

/// A seed: an unsigned 64-bit integer, or a signed one taken as its bit pattern.
/// `--time-scale`: a finite factor above 0 (0, NaN or infinity would make every limit 0 or endless).
pub fn parse_time_scale(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(format!(
            "the time scale must be a finite number above 0 (got {text})"
        ))
    }
}

/// `--grace`, `--bank`: milliseconds, 0 or more.
pub fn parse_millis(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("takes a whole number of milliseconds, 0 or more (got {text})"))
}

/// `--jobs`: at least one game at a time.
pub fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least 1 game must run at a time (--jobs 1 or more)".into()),
        Ok(jobs) => Ok(jobs),
        Err(_) => Err(format!(
            "--jobs takes a whole number of games at once, 1 or more (got {text})"
        )),
    }
}

pub fn parse_seed(text: &str) -> Result<u64, String> {
    arena_core::seed::parse(text)
        .ok_or_else(|| format!("`{text}` is not a seed (a 64-bit integer)"))
}

/// `NAME=SPEC` names a player; a `=` inside a command (after a space or a slash) does not.
pub fn split_name(text: &str) -> (Option<String>, String) {
    match text.split_once('=') {
        Some((name, spec)) if !name.is_empty() && !name.contains([' ', '/']) => {
            (Some(name.to_string()), spec.to_string())
        }
        _ => (None, text.to_string()),
    }
}

/// Makes display names unique (`random`, `random#2`, ...), so tables and statistics can tell seats apart.
pub fn unique_names(seats: &mut [SeatRequest]) {
    for index in 1..seats.len() {
        let base = seats[index].name.clone();
        let mut copy = 1;
        while seats[..index].iter().any(|s| s.name == seats[index].name) {
            copy += 1;
            seats[index].name = format!("{base}#{copy}");
        }
    }
}

/// A seed from the clock, for runs that were not given one (it is printed and recorded).
pub fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    derive_seed(nanos, 0) >> 1
}

/// A runtime for process games: one thread keeps timing steady and overhead low.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The web server's runtime: requests are answered on every core, so a large replay being sent
/// (or rebuilt) does not hold up the pages behind it.
fn server_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Runs `work` until it finishes or the user interrupts; dropping it ends every bot process.
pub async fn interruptible<T>(work: impl std::future::Future<Output = T>) -> Result<T> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot watch SIGTERM")?;
    tokio::select! {
        result = work => Ok(result),
        _ = tokio::signal::ctrl_c() => bail!("interrupted; every bot process was ended"),
        _ = terminate.recv() => bail!("terminated; every bot process was ended"),
    }
}

fn play(args: PlayArgs) -> Result<ExitCode> {
    let game = find_game_with(&args.game, &args.coup)?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let named: Vec<(Option<String>, String)> = args.bots.iter().map(|b| split_name(b)).collect();
    let mut seats: Vec<SeatRequest> =
        seat_requests(game.as_ref(), &named, &args.workdirs, &args.sandbox)?
            .into_iter()
            .map(|player| player.seat)
            .collect();
    unique_names(&mut seats);
    if seats.len() != game.players() {
        bail!(
            "{} is a {}-player game: give --bot {} times (got {})",
            game.id(),
            game.players(),
            game.players(),
            seats.len()
        );
    }
    let processes = seats
        .iter()
        .any(|seat| matches!(seat.spec, PlayerSpec::Command(_)));
    let request = GameRequest {
        variant: args.league.clone(),
        seed,
        seats,
        options: MatchOptions {
            pause_idle: !args.no_pause,
            time_scale: args.time_scale,
            record_frames: true,
            cpu: None,
            time_policy: args.timing.policy()?,
            probe: false,
            sandbox: args.sandbox.sandbox(processes)?,
            clock: args.timing.clock()?,
        },
        stderr_cap: args.stderr_cap,
        prepared: Default::default(),
    };
    let result = runtime()?
        .block_on(interruptible(arena_core::registry::play_in_own_folders(
            game.as_ref(),
            request,
        )))?
        .map_err(|e| anyhow!(e))?;
    let replay = args
        .replay
        .unwrap_or_else(|| PathBuf::from(format!("{}-{seed}.replay.json", game.id())));
    write_replay(&replay, &result)?;
    print_out(&result_table(game.id(), seed, &result, &replay))?;
    Ok(ExitCode::SUCCESS)
}

fn write_replay(path: &Path, result: &GameResult) -> Result<()> {
    let text = result
        .record
        .to_json()
        .context("cannot encode the replay")?;
    std::fs::write(path, text)
        .with_context(|| format!("cannot write the replay to {}", path.display()))
}

/// The result of one game as a table: seats, names, exact scores, ranks, faults, winner.
pub fn result_table(game: &str, seed: u64, result: &GameResult, replay: &Path) -> String {
    let mut text = if seed > i64::MAX as u64 {
        format!(
            "{game}  seed {seed} (= {} as a signed 64-bit seed)\n",
            seed as i64
        )
    } else {
        format!("{game}  seed {seed}\n")
    };
    let width = result
        .names
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(4)
        .max(4);
    // Strikes get a column under the policy that counts them.
    let strikes = result.time_policy.counts_strikes();
    text.push_str(&format!(
        "seat  {:<width$}  {:>8}  rank  {}faults\n",
        "bot",
        "score",
        if strikes { "strikes  " } else { "" }
    ));
    for (seat, name) in result.names.iter().enumerate() {
        // Fault details can quote a bot's output: shown with control characters escaped.
        let mut notes: Vec<String> = result.faults[seat]
            .iter()
            .map(|f| arena_core::sandbox::escape_control(&f.to_string()).into_owned())
            .collect();
        if let Some(warnings) = result.warnings.get(seat)
            && !warnings.is_empty()
        {
            notes.push(format!(
                "{} rule warning{} (see the replay)",
                warnings.len(),
                if warnings.len() == 1 { "" } else { "s" }
            ));
        }
        let strike_cell = if strikes {
            format!("{:>7}  ", result.strikes.get(seat).copied().unwrap_or(0))
        } else {
            String::new()
        };
        text.push_str(&format!(
            "{seat:>4}  {name:<width$}  {:>8}  {:>4}  {strike_cell}{}\n",
            result.outcome.scores[seat].to_string(),
            result.outcome.ranks[seat],
            if notes.is_empty() {
                "-".to_string()
            } else {
                notes.join("; ")
            }
        ));
    }
    match result.outcome.winner {
        Some(seat) => text.push_str(&format!("winner: seat {seat} ({})\n", result.names[seat])),
        None => text.push_str("no winner (draw)\n"),
    }
    if result.time_policy != TimePolicy::Strict {
        text.push_str(&format!("time policy: {}\n", result.time_policy));
    }
    text.push_str(&timing_table(result, width));
    text.push_str(&fault_details(result));
    text.push_str(&format!("replay: {}\n", replay.display()));
    text
}

/// Each process bot's answer times, wall and CPU, under the result table.
fn timing_table(result: &GameResult, width: usize) -> String {
    if result.timing.iter().all(Option::is_none) {
        return String::new();
    }
    let ms = |us: u64| format!("{:.1}", us as f64 / 1000.0);
    let mut text = format!(
        "answer times, ms (limits judged on the {} clock{}):\n",
        result.clock.name(),
        if result.clock == ClockKind::Cpu {
            ", with a wall-clock cap of 3 × the limit + 1 s"
        } else {
            ""
        }
    );
    text.push_str(&format!(
        "seat  {:<width$}  {:>7}  {:>9}  {:>8}  {:>8}  {:>7}\n",
        "bot", "answers", "wall mean", "wall max", "cpu mean", "cpu max"
    ));
    for (seat, timing) in result.timing.iter().enumerate() {
        let Some(timing) = timing else {
            continue;
        };
        let mean = |total: u64| {
            if timing.answers == 0 {
                "-".to_string()
            } else {
                ms(total / u64::from(timing.answers))
            }
        };
        text.push_str(&format!(
            "{seat:>4}  {:<width$}  {:>7}  {:>9}  {:>8}  {:>8}  {:>7}\n",
            result.names[seat],
            timing.answers,
            mean(timing.wall_us),
            ms(timing.max_wall_us),
            timing.cpu_us.map_or("-".into(), mean),
            timing.max_cpu_us.map_or("-".into(), ms),
        ));
    }
    text
}

/// For each fault: when it happened (the bot's answer number and the step of the replay), how the
/// process ended, and the last lines of the bot's stderr.
pub fn fault_details(result: &GameResult) -> String {
    fault_details_of(&result.names, &result.record)
}

/// [`fault_details`] of a replay record (JSON).
pub fn fault_details_of(names: &[String], record: &serde_json::Value) -> String {
    let mut text = String::new();
    let steps = record["steps"].as_array();
    for (seat, player) in record["players"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(faults) = player["faults"].as_array().filter(|f| !f.is_empty()) else {
            continue;
        };
        let name = names.get(seat).map_or("?", String::as_str);
        for fault in faults {
            let what = format!(
                "{}: {}",
                fault["fault"]["kind"].as_str().unwrap_or("fault"),
                fault["fault"]["detail"].as_str().unwrap_or("")
            );
            let when = match fault["step"].as_u64() {
                Some(step) => {
                    // The bot's own answers before this one, so its turn as it counted them.
                    let answer = steps.map_or(0, |steps| {
                        steps
                            .iter()
                            .take(step as usize)
                            .filter(|s| s["player"].as_u64() == Some(seat as u64))
                            .count()
                    }) + 1;
                    format!("at its answer {answer} (step {step} of the replay)")
                }
                None if fault["fault"]["kind"] == "illegal" => "judged by the rules".to_string(),
                None => "at start-up".to_string(),
            };
            text.push_str(&format!("fault: seat {seat} ({name}) {when}: {what}\n"));
        }
        if let Some(status) = player["exit_status"].as_str() {
            text.push_str(&format!("      its process: {status}\n"));
        }
        let stderr = player["stderr"].as_str().unwrap_or("");
        if !stderr.trim().is_empty() {
            text.push_str("      its stderr (last lines):\n");
            text.push_str(&crate::bots::stderr_tail(stderr, 5));
        }
    }
    text
}

fn conformance(game: &str, files: &[PathBuf]) -> Result<ExitCode> {
    let game = find_game(game)?;
    let (mut total, mut conform) = (0usize, 0usize);
    for file in files {
        let cases = game.conformance(file).map_err(|e| anyhow!(e))?;
        for case in cases {
            total += 1;
            match case.difference {
                None => conform += 1,
                Some(difference) => println!("{}: {}: {difference}", file.display(), case.label),
            }
        }
    }
    println!("conformance: {conform}/{total} games conform");
    Ok(if conform == total && total > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn bench(game: &str, length: BenchLength, league: Option<&str>) -> Result<ExitCode> {
    let game = find_game(game)?;
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; measure with `cargo run --release -- bench ...`");
    }
    // A short warm-up so the figure is not the cold start (a count of games is measured as it is).
    if let BenchLength::Seconds(seconds) = length {
        game.bench(league, BenchLength::Seconds(seconds.min(0.2)))
            .map_err(|e| anyhow!(e))?;
    }
    let report = game.bench(league, length).map_err(|e| anyhow!(e))?;
    println!(
        "{} games in {:.3} s on one thread",
        report.games,
        report.elapsed.as_secs_f64()
    );
    println!("{}: {:.0} games/s", game.id(), report.games_per_second());
    Ok(ExitCode::SUCCESS)
}

/// Per game of built-in `random` bots: the game unrecorded (the tournaments' fast path), the same game
/// recorded (frames and record, on the game's thread), then the record encoded to JSON and compressed
/// (a tournament's replay writer thread). Means over the games played in about `seconds`.
fn bench_replays(game: &str, length: BenchLength, league: Option<&str>) -> Result<ExitCode> {
    let game = find_game(game)?;
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; measure with `cargo run --release -- bench ...`");
    }
    let bot = game
        .bots()
        .iter()
        .map(|(name, _)| *name)
        .find(|&name| name == "random")
        .or_else(|| game.bots().first().map(|(name, _)| *name))
        .ok_or_else(|| anyhow!("{} has no built-in bot", game.id()))?
        .to_string();
    let bots = vec![bot.clone(); game.players()];
    let runtime = runtime()?;
    let (mut json, mut compressed) = (Vec::new(), Vec::new());
    let mut compressor = arena_tournament::run::ReplayCompressor::default();
    let mut totals = [Duration::ZERO; 4];
    let (mut json_bytes, mut compressed_bytes, mut games) = (0usize, 0usize, 0u32);
    let started = Instant::now();
    let more = |games: u32| match length {
        BenchLength::Seconds(seconds) => started.elapsed().as_secs_f64() < seconds || games == 0,
        BenchLength::Games(count) => u64::from(games) < count,
    };
    while more(games) {
        let seed = u64::from(games);
        let t0 = Instant::now();
        game.play_builtin(league, &bots, seed)
            .map_err(|e| anyhow!(e))?;
        let t1 = Instant::now();
        let request = GameRequest {
            variant: league.map(str::to_string),
            seed,
            seats: bots
                .iter()
                .map(|name| SeatRequest {
                    name: name.clone(),
                    spec: PlayerSpec::Builtin(name.clone()),
                    workdir: None,
                })
                .collect(),
            options: MatchOptions::default(),
            stderr_cap: 4096,
            prepared: Default::default(),
        };
        let result = runtime
            .block_on(game.play(request))
            .map_err(|e| anyhow!(e))?;
        let t2 = Instant::now();
        json.clear();
        result.record.write_json(&mut json)?;
        let t3 = Instant::now();
        compressor.compress(&json, &mut compressed)?;
        let t4 = Instant::now();
        for (total, (from, to)) in totals
            .iter_mut()
            .zip([(t0, t1), (t1, t2), (t2, t3), (t3, t4)])
        {
            *total += to - from;
        }
        json_bytes += json.len();
        compressed_bytes += compressed.len();
        games += 1;
    }
    if games == 0 {
        bail!("--games 0: no game to measure");
    }
    let [bare, recorded, encode, compress] =
        totals.map(|total| total.as_secs_f64() * 1e6 / f64::from(games));
    let n = games as usize;
    println!("{} games of {bot}, means per game:", games);
    println!("  game, unrecorded:      {bare:9.1} µs");
    println!("  game, recorded:        {recorded:9.1} µs");
    println!(
        "  encode JSON:           {encode:9.1} µs  ({} bytes)",
        json_bytes / n
    );
    println!(
        "  compress:              {compress:9.1} µs  ({} bytes)",
        compressed_bytes / n
    );
    println!(
        "{}: replay {:.1} µs per game ({:.1} µs on the game's thread, {:.1} µs on the writer's)",
        game.id(),
        recorded - bare + encode + compress,
        recorded - bare,
        encode + compress
    );
    Ok(ExitCode::SUCCESS)
}

/// Where and how long `arena serve` answers.
struct ServeNetwork {
    bind: Option<std::net::IpAddr>,
    allow_hosts: Vec<String>,
    request_timeout: Duration,
    idle_timeout: Duration,
}

fn serve(mut dirs: Vec<PathBuf>, port: u16, network: ServeNetwork) -> Result<ExitCode> {
    if dirs.is_empty() {
        dirs.push(PathBuf::from("."));
    }
    let lan = network.bind.filter(|ip| !ip.is_loopback());
    let options = arena_viewer::ServeOptions {
        dirs,
        files: Vec::new(),
        port,
        rebuild: Some(arena_viewer::Rebuilder(std::sync::Arc::new(
            |dir, index| Box::pin(async move { rebuilt_replay(&dir, index, None).await }),
        ))),
        bind: network.bind,
        allowed_hosts: network.allow_hosts,
        request_timeout: Some(network.request_timeout),
        idle_timeout: Some(network.idle_timeout),
        games: games::viewer_games(),
    };
    server_runtime()?.block_on(interruptible(arena_viewer::serve(options, |server| {
        if let Some(ip) = lan {
            eprintln!(
                "warning: --bind {ip}: arena serve answers the network, with no authentication: \
                 anyone who can reach {} sees every game here, the bots' stderr included; \
                 browsers may use the address{} (add names with --allow-host)",
                server.local_addr(),
                if ip.is_unspecified() {
                    "es of this machine"
                } else {
                    ""
                }
            );
        }
        println!("arena serve: {} (Ctrl-C to stop)", server.url());
    })))??;
    Ok(ExitCode::SUCCESS)
}

fn view(file: PathBuf, port: u16) -> Result<ExitCode> {
    server_runtime()?.block_on(interruptible(async move {
        let server = arena_viewer::Server::bind(arena_viewer::ServeOptions::view(
            file,
            port,
            games::viewer_games(),
        ))
        .await?;
        println!(
            "arena view: {} (Ctrl-C to stop)",
            server.file_url(0).unwrap_or_else(|| server.url())
        );
        server.run().await
    }))??;
    Ok(ExitCode::SUCCESS)
}

/// Game `index` of the tournament in `dir` played again (every seat a built-in bot), as replay
/// JSON; `played` is its journal entry, when the caller has read it already.
async fn rebuilt_replay(
    dir: &Path,
    index: u64,
    played: Option<arena_tournament::Entry>,
) -> std::result::Result<Vec<u8>, String> {
    let plan = arena_tournament::load(dir).map_err(|e| e.to_string())?;
    let played = match played {
        Some(entry) => Some(entry),
        None => arena_tournament::rebuild::journaled(dir, index)?,
    };
    let game = find_game_of_plan(&plan).map_err(|e| e.to_string())?;
    arena_tournament::rebuild::rebuild_replay(dir, &plan, index, played.as_ref(), game.as_ref())
        .await
}

fn replay(dir: &Path, index: u64, output: Option<PathBuf>, view: bool) -> Result<ExitCode> {
    let played = arena_tournament::rebuild::journaled(dir, index)
        .map_err(|e| anyhow!("cannot read the journal of {}: {e}", dir.display()))?;
    let json = match played.as_ref().and_then(|entry| entry.replay.as_ref()) {
        Some(relative) => {
            let path = dir.join(relative);
            arena_viewer::read_replay(&path)
                .with_context(|| format!("cannot read the replay of game {index}"))?
                .into_bytes()
        }
        None => runtime()?
            .block_on(rebuilt_replay(dir, index, played))
            .map_err(|e| anyhow!(e))?,
    };
    let output = output.unwrap_or_else(|| {
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "game".into());
        PathBuf::from(format!("{name}-{index}.replay.json"))
    });
    std::fs::write(&output, &json).with_context(|| format!("cannot write {}", output.display()))?;
    if view {
        return self::view(output, 0);
    }
    println!("wrote {} (open it with: arena view {0})", output.display());
    Ok(ExitCode::SUCCESS)
}

fn export(file: &Path, output: &Path) -> Result<ExitCode> {
    let html = arena_viewer::export_file(file, &games::viewer_games())?;
    std::fs::write(output, html).with_context(|| format!("cannot write {}", output.display()))?;
    println!("wrote {}", output.display());
    Ok(ExitCode::SUCCESS)
}

fn bot(game: &str, name: &str, args: &[String]) -> Result<ExitCode> {
    let game = find_game(game)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    game.bot_main(name, args, &mut input, &mut output)
        .map_err(|e| anyhow!(e))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every subcommand and every option or argument, all the way down, says what it does.
    #[test]
    fn every_command_and_option_has_help() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_hide_set() || id == "help" || id == "version" {
                    continue;
                }
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                if help.trim().is_empty() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                let name = format!("{path} {}", sub.get_name());
                let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
                if about.trim().is_empty() {
                    missing.push(name.clone());
                }
                walk(sub, &name, missing);
            }
        }
        let command = Cli::command();
        command.clone().debug_assert();
        let mut missing = Vec::new();
        walk(&command, "arena", &mut missing);
        assert!(missing.is_empty(), "no help: {missing:?}");
        // The walk sees the options of flattened groups too.
        let tournament = command.find_subcommand("tournament").expect("tournament");
        for id in ["clock", "bots_dir", "file", "kind", "deck"] {
            assert!(
                tournament.get_arguments().any(|a| a.get_id() == id),
                "{id} not walked"
            );
        }
    }
}

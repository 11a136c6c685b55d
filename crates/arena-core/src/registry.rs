//! What the front ends (CLI, tournaments, server) can do with a game without knowing its types.
//! Each game crate provides one `GameEntry`; the binary lists them in one place.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use serde::Serialize;

use crate::agent::{Agent, BuiltinAgent};
use crate::define::GameDef;
use crate::folders::GameFolders;
use crate::game::{BotEntry, Fault, Game, Outcome, StreamProtocol};
use crate::record::{MatchRecord, RecordJson};
use crate::runner::{MatchOptions, Seat, run_match};
use crate::sandbox::PreparedSeat;
use crate::stream::{ProcessSpec, StreamAgent};
use crate::timing::TimePolicy;
pub use arena_game::builtin::{
    BenchLength, BenchReport, bench_in_process, bot_seed, bot_thinks, find_bot, make_bot,
    play_builtin_game, split_handicap, stream_bot_main,
};
pub use arena_game::define::ConformanceCase;
use arena_game::{GameError, GameOption, GameOptions};

/// A player as given on the command line: `builtin:NAME` or a command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum PlayerSpec {
    Builtin(String),
    Command(Vec<String>),
}

impl PlayerSpec {
    /// `builtin:NAME` (or a bare known bot name when `bots` lists it) or a command split on whitespace.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(name) = text.strip_prefix("builtin:") {
            return Ok(PlayerSpec::Builtin(name.to_string()));
        }
        let argv: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if argv.is_empty() {
            return Err("empty player: give `builtin:NAME` or a command line".into());
        }
        Ok(PlayerSpec::Command(argv))
    }

    pub fn label(&self) -> String {
        match self {
            PlayerSpec::Builtin(name) => format!("builtin:{name}"),
            PlayerSpec::Command(argv) => argv.join(" "),
        }
    }

    /// A short display name: the bot name, or the program (the script for an interpreter, the bot for
    /// `arena bot GAME NAME`).
    pub fn short_name(&self) -> String {
        const INTERPRETERS: [&str; 10] = [
            "python", "python2", "python3", "node", "ruby", "php", "sh", "bash", "java", "perl",
        ];
        match self {
            PlayerSpec::Builtin(name) => name.clone(),
            PlayerSpec::Command(argv) => {
                let file = |arg: &String| {
                    std::path::Path::new(arg)
                        .file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                        .unwrap_or_else(|| arg.clone())
                };
                let program = file(&argv[0]);
                if program == "arena"
                    && argv.get(1).map(String::as_str) == Some("bot")
                    && let Some(name) = argv.get(3)
                {
                    return name.clone();
                }
                if INTERPRETERS.contains(&program.as_str()) {
                    // The first argument that is neither an option nor an option's value (`java
                    // -cp . Lw` is `Lw`, not `.`).
                    const TAKE_A_VALUE: [&str; 9] = [
                        "-cp",
                        "-classpath",
                        "--class-path",
                        "-p",
                        "--module-path",
                        "-W",
                        "-X",
                        "-r",
                        "--require",
                    ];
                    let mut args = argv[1..].iter();
                    while let Some(arg) = args.next() {
                        if TAKE_A_VALUE.contains(&arg.as_str()) {
                            args.next();
                        } else if !arg.starts_with('-') && arg != "." && arg != ".." {
                            return file(arg);
                        }
                    }
                }
                program
            }
        }
    }
}

#[cfg(test)]
mod label_tests {
    use super::PlayerSpec;

    fn label(command: &str) -> String {
        PlayerSpec::parse(command).expect("a command").short_name()
    }

    #[test]
    fn labels_name_the_bot_not_an_option_or_a_folder() {
        assert_eq!(label("java -cp . Lw"), "Lw");
        assert_eq!(label("java -classpath bin/ Player"), "Player");
        assert_eq!(label("java -jar bots/bot.jar"), "bot.jar");
        assert_eq!(label("python3 -u lw/bot.py"), "bot.py");
        assert_eq!(label("python3 -W ignore x.py"), "x.py");
        assert_eq!(label("./mybot --fast"), "mybot");
        assert_eq!(label("arena bot langwars2 greedy"), "greedy");
        assert_eq!(label("builtin:focus"), "focus");
    }
}

/// One seat of a game request.
#[derive(Clone, Debug)]
pub struct SeatRequest {
    pub name: String,
    pub spec: PlayerSpec,
    pub workdir: Option<PathBuf>,
}

/// Everything needed to play one game.
#[derive(Clone, Debug)]
pub struct GameRequest {
    /// League / variant (`wood2`, ...) for games that have them.
    pub variant: Option<String>,
    pub seed: u64,
    pub seats: Vec<SeatRequest>,
    pub options: MatchOptions,
    pub stderr_cap: usize,
    /// Sandboxes set up for the process seats before the game (see [`ready_game`]); empty: the
    /// game sets them up itself.
    pub prepared: PreparedSandboxes,
}

/// Pooled sandboxes leased for a game's process seats, by seat; each is taken once.
#[derive(Clone, Debug, Default)]
pub struct PreparedSandboxes(std::sync::Arc<std::sync::Mutex<Vec<Option<crate::sandbox::Lease>>>>);

impl PreparedSandboxes {
    /// Seat `seat`'s sandbox, if one was leased for it and not taken yet.
    pub fn take(&self, seat: usize) -> Option<crate::sandbox::Lease> {
        self.0.lock().ok()?.get_mut(seat)?.take()
    }
}

/// A game whose seats' folders are copied and whose process seats' pooled sandboxes are leased
/// ([`ready_game`]), ready to play ([`play_ready`]).
#[derive(Debug)]
pub struct ReadyGame {
    request: GameRequest,
    folders: GameFolders,
}

/// Copies the seats' working folders and, for games whose bots play a whole game each
/// ([`GameEntry::stream_bots`]) in a sandbox with a resident helper, leases every process seat's
/// sandbox from `pool` when given (a sandbox kept from an earlier game of the same bot, its folder
/// refilled). Seats without one get theirs set up by the game, all at once, before any clock runs
/// (`StreamAgent::prepare_all`). Sandboxes die with the thread that set them up, so that thread
/// must outlive the game (and the pool).
pub fn ready_game(
    entry: &dyn GameEntry,
    mut request: GameRequest,
    pool: Option<&std::sync::Arc<crate::sandbox::SandboxPool>>,
) -> Result<ReadyGame, PlayError> {
    let calls = entry.pooled_calls();
    let pooled = pool.filter(|_| {
        (entry.stream_bots() || calls)
            && request
                .options
                .sandbox
                .as_ref()
                .is_some_and(|sandbox| sandbox.policy().helper.is_some())
    });
    let mut leases: Vec<Option<crate::sandbox::Lease>> =
        (0..request.seats.len()).map(|_| None).collect();
    if let Some(pool) = pooled {
        for (index, seat) in request.seats.iter_mut().enumerate() {
            let PlayerSpec::Command(argv) = &seat.spec else {
                continue;
            };
            // A failed lease leaves the seat to the game's own set-up, which reports any error.
            let folder = seat.workdir.as_deref();
            let leased = if calls {
                pool.lease_for_calls(argv, request.options.cpu, folder)
            } else {
                pool.lease(argv, request.options.cpu, folder)
            };
            match leased {
                Ok(lease) => {
                    seat.workdir = lease.folder().map(Path::to_path_buf);
                    leases[index] = Some(lease);
                }
                // A folder larger than the bot's disk (--disk-mib) cannot be bounded: the bot starts
                // without it, in a fresh bounded folder (and faults as a bot missing its files),
                // never in a copy on the host's disk.
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => seat.workdir = None,
                Err(_) => {}
            }
        }
    }
    // Leased seats already have their folder: only the others are copied.
    let leased: Vec<Option<PathBuf>> = request
        .seats
        .iter_mut()
        .zip(&leases)
        .map(|(seat, lease)| lease.as_ref().and_then(|_| seat.workdir.take()))
        .collect();
    let folders = GameFolders::prepare(request.seats.iter_mut().map(|seat| &mut seat.workdir))?;
    for (seat, folder) in request.seats.iter_mut().zip(leased) {
        if folder.is_some() {
            seat.workdir = folder;
        }
    }
    request.prepared = PreparedSandboxes(std::sync::Arc::new(std::sync::Mutex::new(leases)));
    Ok(ReadyGame { request, folders })
}

/// A game whose seats play in their working folders as given, not in copies (a run that keeps
/// each bot's one folder from game to game: Coup's KotH as the original ran it). The game sets up
/// its bots' sandboxes itself, each with the seat's own folder writable.
pub fn ready_game_in_place(request: GameRequest) -> ReadyGame {
    ReadyGame {
        request,
        folders: GameFolders::none(),
    }
}

/// Plays a game made ready by [`ready_game`]; its folders are removed when it ends.
pub fn play_ready(
    entry: &dyn GameEntry,
    ready: ReadyGame,
) -> BoxFuture<'static, Result<GameResult, PlayError>> {
    let ReadyGame { request, folders } = ready;
    let game = entry.play(request);
    Box::pin(async move {
        let result = game.await;
        drop(folders);
        result
    })
}

/// Why a game could not be set up and played: its rules, its seats, its folders. What a bot does
/// wrong is no error: it is a fault in the result.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Rules(#[from] GameError),
    #[error("{game} is a {players}-player game: give --bot {players} times (got {given})")]
    Seats {
        game: String,
        players: usize,
        given: usize,
    },
    /// A built-in bot that cannot be made (an unknown name, a bad handicap).
    #[error("{0}")]
    Builtin(String),
    #[error(transparent)]
    Folders(#[from] crate::folders::FolderError),
    #[error("cannot make a scratch folder for the game: {0}")]
    Scratch(std::io::Error),
}

/// A finished game, type-erased for front ends.
#[derive(Clone, Debug)]
pub struct GameResult {
    pub outcome: Outcome,
    pub names: Vec<String>,
    pub faults: Vec<Vec<Fault>>,
    /// How answer times were judged.
    pub time_policy: TimePolicy,
    /// Late answers counted per player (strike policy).
    pub strikes: Vec<u32>,
    /// What the rules accepted although it was not exactly the protocol, per player.
    pub warnings: Vec<Vec<String>>,
    /// Answer times per player, wall and CPU (`None` for built-in bots).
    pub timing: Vec<Option<crate::record::SeatTiming>>,
    /// The clock answers were judged on.
    pub clock: crate::timing::ClockKind,
    /// The replay record (JSON on demand).
    pub record: RecordJson,
}

/// A game's definition with the options a run set (none: every default).
pub struct Configured<D> {
    pub def: D,
    options: GameOptions,
}

impl<D: GameDef> Configured<D> {
    pub fn new(def: D) -> Self {
        Configured {
            def,
            options: GameOptions::default(),
        }
    }

    /// The rules' configuration for `variant` with this run's options.
    pub fn config(&self, variant: Option<&str>) -> Result<<D::Game as Game>::Config, GameError> {
        self.def.config(variant, &self.options)
    }
}

/// A game's definition with its types erased: what every entry answers the same way, whatever
/// runs its process bots. Implemented for every [`GameDef`] with its options ([`Configured`]).
pub trait DefinedGame: Send + Sync {
    fn id(&self) -> &'static str;
    fn about(&self) -> &'static str;
    fn rules(&self) -> &'static str;
    fn viewer_script(&self) -> &'static str;
    fn starters(&self) -> &'static [crate::define::Starter];
    fn conventions_2014(&self) -> bool;
    fn players(&self) -> usize;
    fn variants(&self) -> &'static [&'static str];
    fn bots(&self) -> Vec<(&'static str, &'static str)>;
    fn builtin_thinks(&self, name: &str) -> bool;
    /// Whether `variant` (a league, `None` for the default) is one of this game's, with the
    /// error that names the accepted ones.
    fn check_variant(&self, variant: Option<&str>) -> Result<(), GameError>;
    /// The options the game declares.
    fn options(&self) -> &'static [GameOption];
    /// The options this run set.
    fn options_set(&self) -> &GameOptions;
    /// Sets this run's options, once checked against the declarations and the rules.
    fn set_options(&mut self, options: GameOptions) -> Result<(), GameError>;
    fn play_builtin(
        &self,
        variant: Option<&str>,
        bots: &[String],
        seed: u64,
    ) -> Result<Outcome, PlayError>;
    fn conformance(&self, path: &Path) -> Result<Vec<ConformanceCase>, GameError>;
    fn bench(&self, variant: Option<&str>, length: BenchLength) -> Result<BenchReport, PlayError>;
}

impl<D: GameDef> DefinedGame for Configured<D> {
    fn id(&self) -> &'static str {
        self.def.id()
    }
    fn about(&self) -> &'static str {
        self.def.about()
    }
    fn rules(&self) -> &'static str {
        self.def.rules()
    }
    fn viewer_script(&self) -> &'static str {
        self.def.viewer_script()
    }
    fn starters(&self) -> &'static [crate::define::Starter] {
        self.def.starters()
    }
    fn conventions_2014(&self) -> bool {
        self.def.conventions_2014()
    }
    fn players(&self) -> usize {
        self.def.players()
    }
    fn variants(&self) -> &'static [&'static str] {
        self.def.variants()
    }
    fn bots(&self) -> Vec<(&'static str, &'static str)> {
        self.def
            .bots()
            .iter()
            .map(|bot| (bot.name, bot.about))
            .collect()
    }
    fn builtin_thinks(&self, name: &str) -> bool {
        bot_thinks(self.def.bots(), name)
    }
    fn check_variant(&self, variant: Option<&str>) -> Result<(), GameError> {
        self.config(variant).map(|_| ())
    }
    fn options(&self) -> &'static [GameOption] {
        self.def.options()
    }
    fn options_set(&self) -> &GameOptions {
        &self.options
    }
    fn set_options(&mut self, options: GameOptions) -> Result<(), GameError> {
        options.check(self.def.id(), self.def.options())?;
        self.def.config(None, &options)?;
        self.options = options;
        Ok(())
    }
    fn play_builtin(
        &self,
        variant: Option<&str>,
        bots: &[String],
        seed: u64,
    ) -> Result<Outcome, PlayError> {
        let config = self.config(variant)?;
        play_builtin_game(&config, self.def.bots(), bots, seed).map_err(PlayError::Builtin)
    }
    fn conformance(&self, path: &Path) -> Result<Vec<ConformanceCase>, GameError> {
        let text = std::fs::read_to_string(path).map_err(|e| GameError::Unreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        self.def.conformance(&text)
    }
    fn bench(&self, variant: Option<&str>, length: BenchLength) -> Result<BenchReport, PlayError> {
        let config = self.config(variant)?;
        let random = find_bot(self.def.bots(), "random").map_err(PlayError::Builtin)?;
        Ok(bench_in_process(&config, random, length))
    }
}

/// A game as the front ends see it: its definition, and how its process bots are played (one
/// process per game on a stream: [`StreamEntry`]; one per move: `call::CallEntry`).
pub trait GameEntry: Send + Sync {
    /// The game crate's definition (identity, rules, bots, conformance, benchmark) with this
    /// run's options.
    fn definition(&self) -> &dyn DefinedGame;
    fn definition_mut(&mut self) -> &mut dyn DefinedGame;
    fn id(&self) -> &'static str {
        self.definition().id()
    }
    fn about(&self) -> &'static str {
        self.definition().about()
    }
    /// The game's rules and protocol page (markdown, in the project's words): what `arena protocol`
    /// prints, so an installed binary carries it.
    fn rules(&self) -> &'static str {
        self.definition().rules()
    }
    /// The replay viewer's drawing of this game (JavaScript, see [`GameDef::viewer_script`]).
    fn viewer_script(&self) -> &'static str {
        self.definition().viewer_script()
    }
    /// The starter bots (`arena new`).
    fn starters(&self) -> &'static [crate::define::Starter] {
        self.definition().starters()
    }
    /// Whether submissions follow the 2014 contests' conventions (see [`GameDef::conventions_2014`]).
    fn conventions_2014(&self) -> bool {
        self.definition().conventions_2014()
    }
    fn players(&self) -> usize {
        self.definition().players()
    }
    /// Accepted `--league` values, default first (empty when the game has none).
    fn variants(&self) -> &'static [&'static str] {
        self.definition().variants()
    }
    /// Built-in bots: (name, description).
    fn bots(&self) -> Vec<(&'static str, &'static str)> {
        self.definition().bots()
    }
    /// Whether a process bot is one process for the whole game (its sandbox can be set up before
    /// the game: [`ready_game`]); false for games that start a process per move (Coup).
    fn stream_bots(&self) -> bool {
        true
    }
    /// Whether process bots are called once per move in a sandbox kept for the game (Coup): their
    /// sandboxes can be kept between games too ([`ready_game`] leases them for calls).
    fn pooled_calls(&self) -> bool {
        false
    }
    fn play(&self, request: GameRequest) -> BoxFuture<'static, Result<GameResult, PlayError>>;
    /// Whether built-in `name` searches within the time limit (it is timed like a process, so a
    /// game with it never takes the untimed fast path of [`GameEntry::play_builtin`]).
    fn builtin_thinks(&self, name: &str) -> bool {
        self.definition().builtin_thinks(name)
    }
    /// Whether `variant` is one of this game's leagues (checked before a run makes anything).
    fn check_variant(&self, variant: Option<&str>) -> Result<(), GameError> {
        self.definition().check_variant(variant)
    }
    /// The options the game declares (`--deck`, ...), for the front ends to offer.
    fn options(&self) -> &'static [GameOption] {
        self.definition().options()
    }
    /// The options this entry plays with (see [`with_options`]).
    fn options_set(&self) -> &GameOptions {
        self.definition().options_set()
    }
    /// Plays a game between built-in bots only, without recording it (tournaments' fast path).
    fn play_builtin(
        &self,
        variant: Option<&str>,
        bots: &[String],
        seed: u64,
    ) -> Result<Outcome, PlayError> {
        self.definition().play_builtin(variant, bots, seed)
    }
    fn conformance(&self, path: &Path) -> Result<Vec<ConformanceCase>, GameError> {
        self.definition().conformance(path)
    }
    /// In-process games of the `random` bot on this thread, for about a time or an exact count
    /// (seeds 0, 1, 2, ...).
    fn bench(&self, variant: Option<&str>, length: BenchLength) -> Result<BenchReport, PlayError> {
        self.definition().bench(variant, length)
    }
    /// Runs built-in bot `name` as an external program on the real protocol.
    fn bot_main(
        &self,
        name: &str,
        args: &[String],
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> Result<(), String>;
}

/// `entry` playing with `options` (a run's or a plan's), once they are checked against what the
/// game declares and what its rules accept.
pub fn with_options(
    mut entry: Box<dyn GameEntry>,
    options: GameOptions,
) -> Result<Box<dyn GameEntry>, GameError> {
    entry.definition_mut().set_options(options)?;
    Ok(entry)
}

/// The one check of a game's number of players.
pub fn check_seats(id: &str, players: usize, given: usize) -> Result<(), PlayError> {
    if given == players {
        return Ok(());
    }
    Err(PlayError::Seats {
        game: id.to_string(),
        players,
        given,
    })
}

/// A stream-protocol game as the front ends see it: a [`GameDef`] whose process bots play a whole
/// game on stdin/stdout.
pub struct StreamEntry<D>(pub Configured<D>);

/// The registry entry of a stream-protocol game.
pub fn stream_entry<D: GameDef>(def: D) -> Box<dyn GameEntry>
where
    D::Game: StreamProtocol,
{
    Box::new(StreamEntry(Configured::new(def)))
}

impl<D: GameDef> GameEntry for StreamEntry<D>
where
    D::Game: StreamProtocol,
{
    fn definition(&self) -> &dyn DefinedGame {
        &self.0
    }

    fn definition_mut(&mut self) -> &mut dyn DefinedGame {
        &mut self.0
    }

    fn play(&self, request: GameRequest) -> BoxFuture<'static, Result<GameResult, PlayError>> {
        let def = &self.0.def;
        let prepared = self
            .0
            .config(request.variant.as_deref())
            .map_err(PlayError::from)
            .and_then(|config| {
                check_seats(def.id(), def.players(), request.seats.len())?;
                Ok((config, stream_seats(def.bots(), &request)?))
            });
        Box::pin(async move {
            let (config, seats) = prepared?;
            play_seats::<D::Game>(config, request.seed, seats, request.options).await
        })
    }

    /// `arena bot GAME NAME [SEED | --seed SEED]`.
    fn bot_main(
        &self,
        name: &str,
        args: &[String],
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> Result<(), String> {
        let bot = find_bot(self.0.def.bots(), name)?;
        let seed = match args {
            [] => 0,
            [seed] | [_, seed] if args.len() == 1 || args[0] == "--seed" => seed
                .parse()
                .map_err(|_| format!("`{seed}` is not a seed (an unsigned integer)"))?,
            _ => return Err(format!("unknown arguments {args:?} (known: [--seed] SEED)")),
        };
        stream_bot_main(bot, seed, input, output)
    }
}

/// Plays one game with every seat in a fresh copy of its working folder (see [`GameFolders`]): what
/// the front ends call instead of `GameEntry::play`.
pub fn play_in_own_folders(
    entry: &dyn GameEntry,
    request: GameRequest,
) -> BoxFuture<'static, Result<GameResult, PlayError>> {
    match ready_game(entry, request, None) {
        Ok(ready) => play_ready(entry, ready),
        Err(e) => Box::pin(async move { Err(e) }),
    }
}

/// Built-in `name` behind the agent interface, timed on `clock` when it searches.
pub fn builtin_agent<G: Game>(
    bots: &[BotEntry<G>],
    name: &str,
    seed: u64,
    clock: crate::timing::ClockKind,
) -> Result<BuiltinAgent<G>, PlayError> {
    let bot = make_bot(bots, name, seed).map_err(PlayError::Builtin)?;
    Ok(if bot_thinks(bots, name) {
        BuiltinAgent::timed(bot, clock)
    } else {
        BuiltinAgent::new(bot)
    })
}

/// Builds the seats of a stream-protocol game: built-in bots in process, commands as stream processes.
pub fn stream_seats<G: StreamProtocol>(
    bots: &[BotEntry<G>],
    request: &GameRequest,
) -> Result<Vec<Seat<G>>, PlayError> {
    // Process bots' sandboxes are set up together, before any clock runs (see StreamAgent::prepare).
    let mut processes: Vec<Option<StreamAgent<G>>> = request
        .seats
        .iter()
        .map(|seat| match &seat.spec {
            PlayerSpec::Command(argv) => Some(StreamAgent::<G>::new(ProcessSpec {
                argv: argv.clone(),
                workdir: seat.workdir.clone(),
                stderr_cap: request.stderr_cap,
                time_scale: request.options.time_scale,
                cpu: request.options.cpu,
                sandbox: request.options.sandbox.clone(),
                clock: request.options.clock,
            })),
            PlayerSpec::Builtin(_) => None,
        })
        .collect();
    for (seat, process) in processes.iter_mut().enumerate() {
        if let (Some(process), Some(lease)) = (process.as_mut(), request.prepared.take(seat)) {
            process.give_sandbox(PreparedSeat::Lease(lease));
        }
    }
    if request.options.sandbox.is_some() {
        let mut agents: Vec<&mut StreamAgent<G>> = processes
            .iter_mut()
            .flatten()
            .filter(|agent| !agent.has_sandbox())
            .collect();
        if !agents.is_empty() {
            StreamAgent::prepare_all(&mut agents);
        }
    }
    request
        .seats
        .iter()
        .zip(processes)
        .enumerate()
        .map(|(index, (seat, process))| {
            let (agent, bot_seed): (Box<dyn Agent<G>>, _) = match (&seat.spec, process) {
                (_, Some(process)) => (Box::new(process), None),
                (PlayerSpec::Builtin(name), None) => {
                    let seed = bot_seed(request.seed, index);
                    (
                        Box::new(builtin_agent(bots, name, seed, request.options.clock)?),
                        Some(seed),
                    )
                }
                (PlayerSpec::Command(_), None) => {
                    unreachable!("every command seat was given its agent above")
                }
            };
            Ok(Seat {
                name: seat.name.clone(),
                spec: seat.spec.label(),
                bot_seed,
                agent,
            })
        })
        .collect()
}

/// Plays one game with already-built seats and erases its types.
pub async fn play_seats<G: Game>(
    config: G::Config,
    seed: u64,
    seats: Vec<Seat<G>>,
    options: MatchOptions,
) -> Result<GameResult, PlayError> {
    let record: MatchRecord<G> = run_match(&config, seed, seats, &options).await;
    let names = record.players.iter().map(|p| p.name.clone()).collect();
    let faults = record
        .players
        .iter()
        .map(|p| p.faults.iter().map(|f| f.fault.clone()).collect())
        .collect();
    let outcome = record.outcome.clone();
    let strikes = record.players.iter().map(|p| p.strikes).collect();
    let warnings = record.players.iter().map(|p| p.warnings.clone()).collect();
    let time_policy = record.time_policy;
    let timing = record.players.iter().map(|p| p.timing()).collect();
    let clock = record.clock;
    let record = RecordJson::new(record);
    Ok(GameResult {
        outcome,
        names,
        faults,
        time_policy,
        strikes,
        warnings,
        timing,
        clock,
        record,
    })
}

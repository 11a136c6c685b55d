//! `arena tournament` and `arena koth`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, anyhow, bail};
use arena_core::process::DEFAULT_STDERR_CAP;
use arena_core::registry::{GameEntry, PlayerSpec, SeatRequest};
use arena_stats::SprtConfig;
use arena_submit::resolve::ResolvedBot;
use arena_tournament::timing::MachineLoad;
use arena_tournament::{
    BotPlan, Plan, PlanRequest, RunOptions, RunSettings, Schedule, SeatOrders, SessionEvent,
    SessionObserver,
};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};

use crate::bots::{seat_requests, split_name, unique_names};
use crate::games::{find_game_of_plan, find_game_with};
use crate::options::{SandboxOptions, TimingOptions, clock_seed};
use crate::report::FormatArg;
use arena_core::options::GameOptions;
use arena_tournament::schedule::PlanSchedule as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    RoundRobin,
    Gauntlet,
    Koth,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReplaysArg {
    /// Store the replay of every game with a process bot; games between built-in bots are played
    /// again, recording, when watched (`arena serve`, `arena replay`).
    Auto,
    /// Store every game's replay, built-in games included (to publish or keep them as files).
    All,
    /// Store no replay (games between built-in bots can still be rebuilt).
    None,
}

#[derive(clap::Args, Debug)]
pub struct TournamentArgs {
    /// The game (not needed with --resume), or `run` followed by a tournament file.
    #[arg(value_name = "GAME | run")]
    pub(crate) game: Option<String>,
    /// After `run`: the tournament file (TOML: bots, game, games, jobs, time options, SPRT,
    /// output... see the README); options given here override it.
    #[arg(value_name = "FILE.toml")]
    pub(crate) file: Option<PathBuf>,
    /// Every submission in DIR (each folder and each source file) is a bot, labelled with its
    /// name; added to the --bot bots.
    #[arg(long, value_name = "DIR")]
    pub(crate) bots_dir: Option<PathBuf>,
    /// Working folders per bot, from a tournament file (`None`: that bot has none).
    #[arg(skip)]
    pub(crate) bot_workdirs: Vec<Option<PathBuf>>,
    /// A player: `builtin:NAME`, a built-in bot's NAME, or a command line, optionally `LABEL=...`.
    /// Default: every built-in bot of the game.
    #[arg(long = "bot")]
    pub(crate) bots: Vec<String>,
    /// About this many games in all (rounded up to whole rounds).
    #[arg(long, conflicts_with = "seeds")]
    pub(crate) games: Option<u64>,
    /// Seeds per group (rounds); every seed is played with every seat order of the group.
    #[arg(long, alias = "rounds")]
    pub(crate) seeds: Option<u64>,
    /// Games at once, at least 1 (default: the number of cores).
    #[arg(long, value_parser = crate::options::parse_jobs)]
    pub(crate) jobs: Option<usize>,
    /// Tournament seed: every game seed and group draw derives from it (default: from the clock).
    #[arg(long, value_parser = crate::options::parse_seed, allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// Where the journal, replays and reports go (default: arena-out/GAME-SEED).
    #[arg(long, alias = "dir")]
    pub(crate) out: Option<PathBuf>,
    /// Continue the interrupted tournament in DIR (its plan is reused; no game is lost or repeated).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "game"])]
    pub(crate) resume: Option<PathBuf>,
    /// Who meets whom: every pair or group (round-robin), one bot against the field (gauntlet), or
    /// Coup's rounds of ordered pairs (koth).
    #[arg(long, value_enum, default_value_t = ScheduleArg::RoundRobin)]
    pub(crate) schedule: ScheduleArg,
    /// The bot that plays every game of a gauntlet (its name).
    #[arg(long)]
    pub(crate) gauntlet: Option<String>,
    /// Play every seed with all 24 seat orders (4-player games) instead of the 4 rotations.
    #[arg(long)]
    pub(crate) permutations: bool,
    /// League or variant, for games that have them (spring2021: wood2, wood1, bronze).
    #[arg(long)]
    pub(crate) league: Option<String>,
    /// Which games keep a compressed replay: auto (games with a process bot; those between
    /// built-in bots are rebuilt from their seed when watched), all, or none.
    #[arg(long, value_enum, default_value_t = ReplaysArg::Auto)]
    pub(crate) replays: ReplaysArg,
    /// Working directory of the command bots: once for all, or once per --bot.
    #[arg(long = "workdir")]
    pub(crate) workdirs: Vec<PathBuf>,
    /// Do not freeze idle bots (SIGSTOP) while another one thinks.
    #[arg(long)]
    pub(crate) no_pause: bool,
    /// Do not pin each game's bot processes to a core of its own (pinning is on by default).
    #[arg(long)]
    pub(crate) no_pin: bool,
    /// Multiply every time limit (finite, above 0; slow machines, debugging).
    #[arg(long, default_value_t = 1.0, value_parser = crate::options::parse_time_scale)]
    pub(crate) time_scale: f64,
    /// Bytes of each bot's stderr kept in its replay.
    #[arg(long, default_value_t = DEFAULT_STDERR_CAP)]
    pub(crate) stderr_cap: usize,
    /// Stop as soon as a sequential test of the first bot against the second decides: H0 "the
    /// first is ELO0 stronger" against H1 "ELO1 stronger" (logistic Elo, ELO0 < ELO1).
    #[arg(long, num_args = 2, value_names = ["ELO0", "ELO1"], allow_negative_numbers = true)]
    pub(crate) sprt: Option<Vec<f64>>,
    /// The SPRT's chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    pub(crate) alpha: f64,
    /// The SPRT's chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    pub(crate) beta: f64,
    /// How the leaderboard is printed (summary.json and leaderboard.csv are always written).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub(crate) format: FormatArg,
    /// Bootstrap resamples for the rating intervals.
    #[arg(long, default_value_t = arena_tournament::summary::DEFAULT_BOOTSTRAP)]
    pub(crate) bootstrap: usize,
    /// After the run, list the first games this bot lost, each with the `arena play` command that
    /// plays it again (default: the gauntlet's bot, or the first bot of an SPRT).
    #[arg(long, value_name = "LABEL")]
    pub(crate) show_lost: Option<String>,
    /// Print the standings (and an SPRT's LLR) every SECONDS while games play, 0 for never.
    /// Default: every 10 s when stderr is a terminal and the games are of process bots or of
    /// built-ins that think; never for games of built-in rule bots, which end in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = crate::options::parse_seconds)]
    pub(crate) live: Option<f64>,
    #[command(flatten)]
    pub(crate) timing: TimingOptions,
    /// The game's own options given (see `options::with_game_options`), from the command line
    /// and the tournament file.
    #[arg(skip)]
    pub(crate) game_options: GameOptions,
    /// Each process bot plays every game in its one kept folder (`arena koth`: as the original
    /// KotH ran its entrants), see `RunSettings::kept_folders`.
    #[arg(skip)]
    pub(crate) kept_folders: bool,
    #[command(flatten)]
    pub(crate) sandbox: SandboxOptions,
    /// The ids of the options the command line gave (not their defaults), for `--resume`.
    #[arg(skip)]
    pub(crate) given: Vec<String>,
}

/// Set by the first Ctrl-C or SIGTERM: games stop starting, games in progress are abandoned.
static STOP: AtomicBool = AtomicBool::new(false);

fn install_stop_handler() -> Result<()> {
    ctrlc::set_handler(|| {
        let again = STOP.swap(true, Ordering::SeqCst);
        // Games block their threads on bots: wake them so they are abandoned at once (after STOP is
        // set, so that a game cut short this way is never journaled).
        arena_core::process::interrupt_waits();
        if again {
            // A second interrupt: the user insists.
            std::process::exit(130);
        }
    })
    .context("cannot install the Ctrl-C handler")
}

pub fn tournament(args: TournamentArgs) -> Result<ExitCode> {
    let (dir, plan, game) = match &args.resume {
        Some(dir) => {
            let plan = resume_plan(&args, dir)?;
            let game = find_game_of_plan(&plan)?;
            (dir.clone(), plan, game)
        }
        None => new_plan(&args)?,
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let processes = plan.bots.iter().any(|b| b.builtin().is_none());
    let jobs = args.jobs.unwrap_or(cores).max(1);
    if processes && jobs > cores {
        eprintln!(
            "warning: {jobs} games at once on {cores} cores: process bots will share cores and may time out \
             (each game has one bot thinking at a time; the default is one game per core)"
        );
    }
    let runnable = runnable_plan(&plan, game.as_ref(), &args.sandbox)?;
    // After the bots are prepared: their toolchains are part of what the sandbox shows.
    let sandbox = args.sandbox.sandbox(processes)?;
    // Before the probe: a probe's call blocks this thread, and only the handler's interrupt of the
    // waits ends it on Ctrl-C or SIGTERM (the probe's own signal watch runs on this thread too).
    install_stop_handler()?;
    if !STOP.load(Ordering::SeqCst) {
        crate::bots::probe(
            game.as_ref(),
            plan.variant.as_deref(),
            &runnable.bots,
            &plan.settings.rules,
            sandbox.clone(),
        )?;
    }
    // A new tournament's folder is made only once every bot has started.
    if args.resume.is_none() {
        arena_tournament::create(&dir, &plan)?;
    }
    let mut runnable = runnable;
    if plan.settings.kept_folders {
        keep_folders(&dir, &mut runnable.plan)?;
    }
    let total = plan.total_games();
    if let Some(asked) = args
        .games
        .filter(|&asked| asked != total && args.resume.is_none())
    {
        eprintln!(
            "--games {asked}: {total} games, whole rounds (every seed is played in every seat \
             order of its group, {} games a round)",
            total / plan.rounds.max(1)
        );
    }
    eprintln!(
        "{}: {} bots, {} games ({} round{}), {jobs} at a time, seed {}, in {}",
        plan.game,
        plan.bots.len(),
        total,
        plan.rounds,
        if plan.rounds == 1 { "" } else { "s" },
        plan.seed,
        dir.display()
    );
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            // The live standings, when shown on a terminal, are the message above the bar.
            "{msg}{elapsed_precise} [{bar:30}] {pos}/{len} games  {per_sec}  ETA {eta}",
        )
        .map_err(|e| anyhow!("progress bar: {e}"))?
        .progress_chars("=> "),
    );
    // The highest load average seen while games ran, sampled at most once a second, to tell
    // timeouts of a busy machine from slow bots.
    let max_load = std::sync::Mutex::new((
        arena_tournament::timing::sample_load(),
        std::time::Instant::now(),
    ));
    // The session's events drive the bar (and, below, the SPRT).
    let mut progress_bar = arena_tournament::Watch(|event: &SessionEvent<'_>| {
        let SessionEvent::Journaled { progress, .. } = event else {
            return;
        };
        bar.set_position(progress.done);
        if let Ok(mut seen) = max_load.lock()
            && seen.1.elapsed() >= std::time::Duration::from_secs(1)
        {
            let now = arena_tournament::timing::sample_load();
            seen.0 = match (seen.0, now) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            seen.1 = std::time::Instant::now();
        }
    });
    let started = std::time::Instant::now();
    let mut sprt = crate::report::sprt_rule(&plan, &dir)?;
    let slow_games = plan
        .bots
        .iter()
        .any(|bot| bot.builtin().is_none_or(|name| game.builtin_thinks(name)));
    let live_every = args.live.unwrap_or(
        if slow_games && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            LIVE_EVERY
        } else {
            0.0
        },
    );
    let mut live = match live_every > 0.0 {
        true => Some(LivePrinter::new(
            &plan,
            &dir,
            std::time::Duration::from_secs_f64(live_every),
            &bar,
        )?),
        false => None,
    };
    let mut observers: Vec<&mut dyn SessionObserver> = vec![&mut progress_bar];
    if let Some(rule) = sprt.as_mut() {
        observers.push(rule);
    }
    if let Some(live) = live.as_mut() {
        observers.push(live);
    }
    let outcome = arena_tournament::run(
        game.as_ref(),
        &dir,
        &runnable.plan,
        RunOptions {
            jobs,
            pin_cpus: !args.no_pin,
            stop: &STOP,
            observers,
            sandbox,
        },
    )?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{} of {} games done ({} played now in {seconds:.2} s: {:.0} games/s){}",
        outcome.done,
        outcome.total,
        outcome.played,
        outcome.played as f64 / seconds.max(1e-9),
        if outcome.interrupted {
            format!(
                "; interrupted: continue with `arena tournament --resume {}`",
                dir.display()
            )
        } else {
            String::new()
        }
    );
    if outcome.decided {
        eprintln!("the sequential test decided: no more games are played (resuming plays none)");
    }
    print_faults(&dir, &plan, FAULTS_SHOWN);
    let lost_of = match &args.show_lost {
        Some(label) => Some(
            plan.bots
                .iter()
                .position(|b| &b.name == label)
                .ok_or_else(|| anyhow!("--show-lost {label}: no bot of that name"))?,
        ),
        None => match plan.schedule {
            Schedule::Gauntlet { bot } => Some(bot),
            _ => plan.sprt.map(|_| 0),
        },
    };
    if let Some(bot) = lost_of {
        print_lost(&dir, &plan, bot, FAULTS_SHOWN);
    }
    let last = arena_tournament::timing::sample_load();
    let max_load = max_load.lock().ok().and_then(|seen| seen.0);
    let machine = MachineLoad {
        cores,
        max_load: match (max_load, last) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        },
    };
    crate::report::finish(&dir, &plan, args.format, args.bootstrap, machine)?;
    Ok(if outcome.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// Games whose faults are shown in full after a tournament (the others are counted).
const FAULTS_SHOWN: usize = 3;

/// Shows the first games with faults as `arena play` does (when, how the process ended, the last
/// lines of stderr), from their replays; counts the rest. On stderr: the leaderboard is the output.
///
/// The journal is read a line at a time (a million games make a journal of hundreds of megabytes),
/// and a line is parsed whole only when its faults are not all empty.
fn print_faults(dir: &std::path::Path, plan: &Plan, shown: usize) {
    use std::io::BufRead as _;
    /// The one field every line is read for.
    #[derive(serde::Deserialize)]
    struct Faults {
        #[serde(default)]
        faults: serde_json::Value,
    }
    let Ok(file) = std::fs::File::open(dir.join(arena_tournament::journal::RESULTS_FILE)) else {
        return;
    };
    let mut journal = std::io::BufReader::new(file);
    let mut text = String::new();
    let mut games = 0usize;
    loop {
        text.clear();
        match journal.read_line(&mut text) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = text.strip_suffix('\n').unwrap_or(&text);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Ok(Faults { faults }) = serde_json::from_str::<Faults>(line) else {
            continue;
        };
        let faulty = faults.as_array().is_some_and(|seats| {
            seats
                .iter()
                .any(|f| f.as_array().is_some_and(|f| !f.is_empty()))
        });
        if !faulty {
            continue;
        }
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        games += 1;
        if games > shown {
            continue;
        }
        let names: Vec<String> = serde_json::from_value(entry["bots"].clone()).unwrap_or_default();
        let replay = entry["replay"].as_str().map(|path| dir.join(path));
        let details = replay
            .as_deref()
            .and_then(|path| arena_viewer::read_replay(path).ok())
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .map(|record| crate::play::fault_details_of(&names, &record));
        eprintln!(
            "game {} (seed {}): {}",
            entry["index"],
            entry["seed"]
                .as_str()
                .map_or_else(|| entry["seed"].to_string(), str::to_string),
            names.join(" vs ")
        );
        match details {
            Some(details) => eprint!("{details}"),
            None => eprintln!("  faults {} (no replay kept)", entry["faults"]),
        }
        if let Ok(entry) = serde_json::from_value::<arena_tournament::Entry>(entry) {
            eprintln!(
                "  play it again: {}",
                arena_tournament::reproduce::entry_command(plan, &entry)
            );
        }
    }
    if games > shown {
        eprintln!(
            "{} more games with faults: their replays are in {} (`arena serve --dir {}` lists them \
             by fault, result and bot, each with its `arena play` command)",
            games - shown,
            dir.join(arena_tournament::run::REPLAY_DIR).display(),
            dir.display()
        );
    }
}

/// The first `shown` games `bot` lost (not first, not sharing first place), each with its command;
/// counts the rest. On stderr, like the faults.
fn print_lost(dir: &std::path::Path, plan: &Plan, bot: usize, shown: usize) {
    let Ok(entries) = arena_tournament::journal::entries_in_order(dir) else {
        return;
    };
    let name = &plan.bots[bot].name;
    let mut lost = 0usize;
    // One game per seed: the seat orders of one seed (a pair) are the same deal, and listing its
    // four rotations as the first four lost games showed one position four times.
    let mut seeds_shown = std::collections::HashSet::new();
    for entry in entries.flatten() {
        let Some(seat) = entry.seats.iter().position(|&b| b == bot) else {
            continue;
        };
        if entry.winner == Some(seat) || entry.ranks.get(seat) == Some(&1) {
            continue;
        }
        lost += 1;
        if seeds_shown.len() >= shown || !seeds_shown.insert(entry.pair) {
            continue;
        }
        let scores: Vec<String> = entry
            .bots
            .iter()
            .zip(&entry.scores)
            .map(|(bot, score)| format!("{bot} {score}"))
            .collect();
        eprintln!(
            "{name} lost game {} (seed {}): {}",
            entry.index,
            entry.seed,
            scores.join(", ")
        );
        eprintln!(
            "  play it again: {}",
            arena_tournament::reproduce::entry_command(plan, &entry)
        );
    }
    if lost > seeds_shown.len() {
        eprintln!(
            "{} more games {name} lost (other seat orders of these seeds included): `arena serve \
             --dir {}` lists them (bot {name}, result lost)",
            lost - seeds_shown.len(),
            dir.display()
        );
    } else if lost == 0 {
        eprintln!("{name} lost no game");
    }
}

/// A plan with its bots resolved: every submission built (or found in the cache) and started from
/// its build folder.
struct Runnable {
    plan: Plan,
    bots: Vec<ResolvedBot>,
}

/// The plan with every submission built (or found in the cache) and started from its build folder;
/// the other bots are played as the plan says (they were resolved when it was made).
fn runnable_plan(plan: &Plan, game: &dyn GameEntry, sandbox: &SandboxOptions) -> Result<Runnable> {
    let mut runnable = plan.clone();
    let builds = sandbox.build_sandbox(plan.bots.iter().any(|bot| bot.source.is_some()))?;
    let mut bots = Vec::new();
    for bot in &mut runnable.bots {
        let resolved = match &bot.source {
            Some(source) => {
                crate::bots::prepare_submission(game, &bot.name, source, builds.as_ref())?
            }
            None => ResolvedBot::of_seat(SeatRequest {
                name: bot.name.clone(),
                spec: PlayerSpec::parse(&bot.spec).map_err(|e| anyhow!(e))?,
                workdir: bot.workdir.clone(),
            }),
        };
        bot.spec = resolved.seat.spec.label();
        bot.workdir = resolved.seat.workdir.clone();
        bots.push(resolved);
    }
    Ok(Runnable {
        plan: runnable,
        bots,
    })
}

/// Points every process bot of `plan` at its one kept folder in the tournament folder `dir`
/// (`RunSettings::kept_folders`), made on the first run from the bot's folder (a submission's
/// build, a `--workdir`) or empty, and used as it was left on a resumed run: the state a bot
/// keeps there carries from game to game, as in the original KotH.
fn keep_folders(dir: &std::path::Path, plan: &mut Plan) -> Result<()> {
    for (index, bot) in plan.bots.iter_mut().enumerate() {
        if bot.builtin().is_some() {
            continue;
        }
        let kept = dir.join(arena_tournament::layout::kept_folder(index, &bot.name));
        if !kept.is_dir() {
            if let Some(parent) = kept.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot make {}", parent.display()))?;
            }
            match &bot.workdir {
                Some(from) if from.is_dir() => arena_core::folders::copy_tree(from, &kept)
                    .with_context(|| {
                        format!("cannot copy {} to {}", from.display(), kept.display())
                    })?,
                _ => std::fs::create_dir_all(&kept)
                    .with_context(|| format!("cannot make {}", kept.display()))?,
            }
        }
        bot.workdir = Some(kept);
    }
    Ok(())
}

/// The plan of the tournament in `dir`, extended when `--games`/`--seeds` ask for more rounds
/// (the plan file is rewritten). Every other option that changes what is played must be the
/// plan's: one that differs is refused, with the plan's value; options that only change how the
/// games are run (jobs, pinning, sandbox, output format) apply.
fn resume_plan(args: &TournamentArgs, dir: &std::path::Path) -> Result<Plan> {
    let plan = arena_tournament::load(dir)?;
    let differences = resume_differences(args, &plan)?;
    if !differences.is_empty() {
        bail!(
            "{} is resumed with its own plan; these options differ from it:\n  {}\n\
             drop them to resume, or start a new tournament with them (--out NEW_DIR)",
            dir.display(),
            differences.join("\n  ")
        );
    }
    let rounds = match (args.games, args.seeds) {
        (Some(games), _) => plan.rounds_for_games(games),
        (None, Some(rounds)) => rounds,
        (None, None) => return Ok(plan),
    };
    if rounds < plan.rounds {
        let asked = match args.games {
            Some(games) => format!("--games {games}"),
            None => format!("--seeds {rounds}"),
        };
        bail!(
            "{asked}: the plan of {} has more ({} games, {} rounds) and a tournament cannot \
             shrink; resume without it to finish the plan",
            dir.display(),
            plan.total_games(),
            plan.rounds
        );
    }
    if rounds == plan.rounds {
        return Ok(plan);
    }
    let longer = plan.extended(rounds)?;
    arena_tournament::rewrite(dir, &longer)?;
    eprintln!(
        "extending {} from {} to {} games ({} to {} rounds)",
        dir.display(),
        plan.total_games(),
        longer.total_games(),
        plan.rounds,
        longer.rounds
    );
    Ok(longer)
}

/// Each option given with `--resume` that would change what is played, as `--option VALUE (the
/// plan's: VALUE)`.
fn resume_differences(args: &TournamentArgs, plan: &Plan) -> Result<Vec<String>> {
    let given = |id: &str| args.given.iter().any(|g| g == id);
    let mut out = Vec::new();
    fn differ(out: &mut Vec<String>, option: &str, asked: String, kept: String) {
        if asked != kept {
            out.push(format!("--{option} {asked} (the plan's: {kept})"));
        }
    }
    if !args.bots.is_empty() {
        let same = args.bots.len() == plan.bots.len()
            && args.bots.iter().zip(&plan.bots).all(|(text, bot)| {
                let (label, spec) = split_name(text);
                let spec = spec.trim();
                let spec_same = spec == bot.spec
                    || format!("builtin:{spec}") == bot.spec
                    || bot
                        .source
                        .as_ref()
                        .is_some_and(|source| same_path(source, std::path::Path::new(spec)));
                spec_same && label.is_none_or(|label| label == bot.name)
            });
        let kept = plan
            .bots
            .iter()
            .map(|b| format!("{}={}", b.name, b.spec))
            .collect::<Vec<_>>()
            .join(" ");
        if !same {
            differ(&mut out, "bot", args.bots.join(" "), kept);
        }
    }
    if given("workdirs") {
        let kept: Vec<Option<&std::path::Path>> =
            plan.bots.iter().map(|b| b.workdir.as_deref()).collect();
        let same = match args.workdirs.len() {
            1 => plan.bots.iter().filter(|b| b.builtin().is_none()).all(|b| {
                b.workdir
                    .as_deref()
                    .is_some_and(|w| same_path(w, &args.workdirs[0]))
            }),
            n if n == kept.len() => args.workdirs.iter().zip(&kept).all(|(w, k)| match k {
                Some(k) => same_path(k, w),
                None => w.as_os_str() == "-",
            }),
            _ => false,
        };
        if !same {
            let show = |w: &Option<&std::path::Path>| {
                w.map_or("-".to_string(), |w| w.display().to_string())
            };
            out.push(format!(
                "--workdir {} (the plan's: {})",
                args.workdirs
                    .iter()
                    .map(|w| w.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                kept.iter().map(show).collect::<Vec<_>>().join(" ")
            ));
        }
    }
    if let Some(league) = &args.league {
        differ(
            &mut out,
            "league",
            league.clone(),
            plan.variant.clone().unwrap_or_else(|| "none".into()),
        );
    }
    if let Some(seed) = args.seed {
        differ(&mut out, "seed", seed.to_string(), plan.seed.to_string());
    }
    if given("schedule") || args.gauntlet.is_some() {
        let asked = match (args.schedule, &args.gauntlet) {
            (ScheduleArg::Koth, _) => "koth".to_string(),
            (_, Some(name)) => format!("gauntlet {name}"),
            (ScheduleArg::Gauntlet, None) => "gauntlet".to_string(),
            (ScheduleArg::RoundRobin, None) => "round-robin".to_string(),
        };
        let kept = match plan.schedule {
            Schedule::Gauntlet { bot } => format!(
                "gauntlet {}",
                plan.bots.get(bot).map_or("?", |b| b.name.as_str())
            ),
            other => other.to_string(),
        };
        let option = if given("schedule") {
            "schedule"
        } else {
            "gauntlet"
        };
        differ(&mut out, option, asked, kept);
    }
    if args.permutations && plan.seat_orders != SeatOrders::Permutations {
        out.push("--permutations (the plan's: rotations)".to_string());
    }
    if given("replays") {
        let kept = match (plan.settings.replays, plan.settings.builtin_replays) {
            (_, true) => ReplaysArg::All,
            (true, false) => ReplaysArg::Auto,
            (false, false) => ReplaysArg::None,
        };
        let name = |r: ReplaysArg| {
            r.to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string())
        };
        differ(&mut out, "replays", name(args.replays), name(kept));
    }
    if given("time_scale") {
        differ(
            &mut out,
            "time-scale",
            args.time_scale.to_string(),
            plan.settings.rules.time_scale.to_string(),
        );
    }
    if given("stderr_cap") {
        differ(
            &mut out,
            "stderr-cap",
            args.stderr_cap.to_string(),
            plan.settings.stderr_cap.to_string(),
        );
    }
    if args.no_pause && plan.settings.rules.pause_idle {
        out.push("--no-pause (the plan's: idle bots are paused)".to_string());
    }
    let timing = &args.timing;
    if timing.time_policy.is_some() || timing.grace.is_some() || timing.bank.is_some() {
        let show = |p: Option<arena_core::TimePolicy>| {
            p.map_or("the game's default".to_string(), |p| p.to_string())
        };
        let option = if timing.time_policy.is_some() {
            "time-policy"
        } else if timing.grace.is_some() {
            "grace"
        } else {
            "bank"
        };
        differ(
            &mut out,
            option,
            show(timing.rules(false, 1.0)?.time_policy),
            show(plan.settings.rules.time_policy),
        );
    }
    if let Some(clock) = &timing.clock
        && timing.rules(false, 1.0)?.clock != plan.settings.rules.clock
    {
        out.push(format!(
            "--clock {clock} (the plan's: {})",
            if plan.settings.rules.clock.is_wall() {
                "wall"
            } else {
                "cpu"
            }
        ));
    }
    if let Some(bounds) = &args.sprt {
        let asked = format!(
            "{} {} (alpha {}, beta {})",
            bounds[0],
            bounds.get(1).copied().unwrap_or(f64::NAN),
            args.alpha,
            args.beta
        );
        let kept = plan.sprt.map_or("none".to_string(), |s| {
            format!("{} {} (alpha {}, beta {})", s.elo0, s.elo1, s.alpha, s.beta)
        });
        differ(&mut out, "sprt", asked, kept);
    } else {
        for (option, asked, kept) in [
            ("alpha", args.alpha, plan.sprt.map(|s| s.alpha)),
            ("beta", args.beta, plan.sprt.map(|s| s.beta)),
        ] {
            if given(option) && Some(asked) != kept {
                out.push(format!(
                    "--{option} {asked} (the plan's: {})",
                    kept.map_or("no SPRT".to_string(), |k| k.to_string())
                ));
            }
        }
    }
    let kept = &plan.settings.game_options;
    for (name, value) in args.game_options.iter() {
        if kept.get(name) != Some(value) {
            let flag = arena_core::options::flag_of(name);
            out.push(format!(
                "--{flag} {value} (the plan's: {})",
                kept.get(name)
                    .map_or("not set".to_string(), ToString::to_string)
            ));
        }
    }
    Ok(out)
}

/// Two paths naming the same file (as written, or once resolved).
fn same_path(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

fn new_plan(args: &TournamentArgs) -> Result<(PathBuf, Plan, Box<dyn GameEntry>)> {
    let Some(game_id) = &args.game else {
        bail!("name the game (arena tournament GAME ...) or give --resume DIR");
    };
    let game = find_game_with(game_id, &args.game_options)?;
    // A wrong league is said before anything is made (it left an empty output folder).
    game.check_variant(args.league.as_deref())
        .map_err(|e| anyhow!(e))?;
    let texts: Vec<(Option<String>, String)> = if args.bots.is_empty() {
        game.bots()
            .into_iter()
            .map(|(name, _)| (None, format!("builtin:{name}")))
            .collect()
    } else {
        args.bots.iter().map(|b| split_name(b)).collect()
    };
    let players = if args.bot_workdirs.len() == texts.len() {
        // From a tournament file or --bots-dir: each bot with its own working folder or none.
        let submissions = texts
            .iter()
            .any(|(_, text)| arena_submit::is_submission(std::path::Path::new(text.trim())));
        let builds = args.sandbox.build_sandbox(submissions)?;
        texts
            .iter()
            .zip(&args.bot_workdirs)
            .map(|((name, text), workdir)| {
                crate::bots::resolve(
                    game.as_ref(),
                    name.as_deref(),
                    text,
                    workdir.as_deref(),
                    builds.as_ref(),
                )
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        seat_requests(game.as_ref(), &texts, &args.workdirs, &args.sandbox)?
    };
    let mut seats: Vec<_> = players.iter().map(|bot| bot.seat.clone()).collect();
    unique_names(&mut seats);
    let bots: Vec<BotPlan> = seats
        .into_iter()
        .zip(players)
        .map(|(seat, player)| match player.source {
            // The plan keeps the submission; its build is found again (in the cache) on --resume.
            Some(source) => BotPlan {
                name: seat.name,
                spec: source.to_string_lossy().into_owned(),
                workdir: None,
                source: Some(source),
            },
            None => BotPlan {
                name: seat.name,
                spec: seat.spec.label(),
                workdir: seat.workdir,
                source: None,
            },
        })
        .collect();
    let schedule = match (args.schedule, &args.gauntlet) {
        (ScheduleArg::Koth, _) => Schedule::Koth,
        (ScheduleArg::Gauntlet, None) => bail!("--schedule gauntlet needs --gauntlet NAME"),
        (_, Some(name)) => Schedule::Gauntlet {
            bot: bots
                .iter()
                .position(|b| &b.name == name)
                .ok_or_else(|| anyhow!("--gauntlet {name}: no bot of that name"))?,
        },
        (ScheduleArg::RoundRobin, None) => Schedule::RoundRobin,
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    let request = PlanRequest {
        game: game.id().to_string(),
        variant: args.league.clone(),
        players: game.players(),
        bots,
        schedule,
        seat_orders: if args.permutations {
            SeatOrders::Permutations
        } else {
            SeatOrders::Rotations
        },
        rounds: args.seeds,
        games: args.games,
        seed,
        settings: RunSettings {
            rules: args.timing.rules(args.no_pause, args.time_scale)?,
            stderr_cap: args.stderr_cap,
            replays: args.replays != ReplaysArg::None,
            builtin_replays: args.replays == ReplaysArg::All,
            game_options: game.options_set().clone(),
            kept_folders: args.kept_folders,
        },
        sprt: args.sprt.as_deref().map(|bounds| SprtConfig {
            elo0: bounds[0],
            elo1: bounds.get(1).copied().unwrap_or(f64::NAN),
            alpha: args.alpha,
            beta: args.beta,
        }),
    };
    let plan = Plan::new(request)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("arena-out/{}-{seed}", plan.game)));
    Ok((dir, plan, game))
}
/// Seconds between two prints of the live standings when `--live` is not given (on a terminal).
const LIVE_EVERY: f64 = 10.0;

/// Prints the standings while a run plays (`--live`): the run's statistics kept up to date game
/// by game ([`arena_tournament::stats::LiveStats`]) and shown at most every `every`, in the
/// leaderboard's own table: redrawn in place above the progress bar on a terminal, as plain
/// lines otherwise.
struct LivePrinter<'a> {
    stats: arena_tournament::stats::LiveStats,
    plan: &'a Plan,
    every: std::time::Duration,
    last: std::time::Instant,
    shown_games: u64,
    bar: &'a ProgressBar,
}

impl<'a> LivePrinter<'a> {
    fn new(
        plan: &'a Plan,
        dir: &std::path::Path,
        every: std::time::Duration,
        bar: &'a ProgressBar,
    ) -> Result<Self> {
        // One fit without resamples per print: the intervals of the ratings come with the report.
        let mut stats = arena_tournament::stats::LiveStats::new(plan, 0);
        stats.preload(dir)?;
        Ok(LivePrinter {
            shown_games: stats.games(),
            stats,
            plan,
            every,
            last: std::time::Instant::now(),
            bar,
        })
    }
}

impl SessionObserver for LivePrinter<'_> {
    fn wants_entries(&self) -> bool {
        true
    }

    fn observe(&mut self, event: &SessionEvent<'_>) -> bool {
        self.stats.observe(event);
        let counted = self.stats.games();
        if self.last.elapsed() >= self.every && counted > self.shown_games {
            let run =
                <arena_tournament::summary::RunSummary as arena_tournament::summary::SummaryOf>::of(
                    self.plan,
                    &self.stats.report(),
                    0,
                );
            let text =
                arena_tournament::report::live_text(self.plan, &run, self.plan.total_games());
            if self.bar.is_hidden() {
                // Not a terminal (a log, a pipe): plain lines, one table after another.
                eprint!("{text}");
            } else {
                // On a terminal the table is redrawn in place above the bar.
                self.bar.set_message(text);
            }
            self.shown_games = counted;
            self.last = std::time::Instant::now();
        }
        false
    }
}

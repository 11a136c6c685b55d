//! `arena play`: one game, its replay written, its result table printed (seats, scores, ranks,
//! faults, answer times); the fault details serve the tournament's list of faults too.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use arena_core::options::GameOptions;
use arena_core::process::DEFAULT_STDERR_CAP;
use arena_core::registry::{GameRequest, GameResult, PlayerSpec, SeatRequest};
use arena_core::{ClockKind, TimePolicy};

use crate::bots::{seat_requests, split_name, unique_names};
use crate::games::find_game_with;
use crate::options::{SandboxOptions, TimingOptions, clock_seed, parse_seed, parse_time_scale};
use crate::output::print_out;
use crate::runtime::{interruptible, runtime};
use arena_core::runner::RulesOptions as _;

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
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
    /// Where to write the replay: a file, a folder (GAME-SEED.replay.json in it; a name ending in
    /// `/` is made), or `none` (default: GAME-SEED.replay.json in the current folder)
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
    /// The game's own options given (see `options::with_game_options`).
    #[arg(skip)]
    pub(crate) game_options: GameOptions,
    #[command(flatten)]
    sandbox: SandboxOptions,
}

pub fn play(args: PlayArgs) -> Result<ExitCode> {
    let game = find_game_with(&args.game, &args.game_options)?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let named: Vec<(Option<String>, String)> = args.bots.iter().map(|b| split_name(b)).collect();
    let mut seats: Vec<SeatRequest> =
        seat_requests(game.as_ref(), &named, &args.workdirs, &args.sandbox)?
            .into_iter()
            .map(|player| player.seat)
            .collect();
    unique_names(&mut seats);
    arena_core::registry::check_seats(game.id(), game.players(), seats.len())
        .map_err(|e| anyhow!(e))?;
    let replay = replay_path(args.replay.as_deref(), game.id(), seed)?;
    let processes = seats
        .iter()
        .any(|seat| matches!(seat.spec, PlayerSpec::Command(_)));
    let request = GameRequest {
        variant: args.league.clone(),
        seed,
        seats,
        options: args
            .timing
            .rules(args.no_pause, args.time_scale)?
            .match_options(replay.is_some(), None, args.sandbox.sandbox(processes)?),
        stderr_cap: args.stderr_cap,
        prepared: Default::default(),
    };
    let result = runtime()?
        .block_on(interruptible(arena_core::registry::play_in_own_folders(
            game.as_ref(),
            request,
        )))?
        .map_err(|e| anyhow!(e))?;
    if let Some(replay) = &replay {
        write_replay(replay, &result)?;
    }
    print_out(&result_table(game.id(), seed, &result, replay.as_deref()))?;
    Ok(ExitCode::SUCCESS)
}

/// Where `--replay` puts the replay: `None` for `none`; in a folder (one ending in `/` is made)
/// under the default name; else the file given. The default: the default name here.
fn replay_path(asked: Option<&Path>, game: &str, seed: u64) -> Result<Option<PathBuf>> {
    let name = format!("{game}-{seed}.replay.json");
    let Some(asked) = asked else {
        return Ok(Some(PathBuf::from(name)));
    };
    if asked == Path::new("none") {
        return Ok(None);
    }
    if asked.as_os_str().to_string_lossy().ends_with('/') {
        std::fs::create_dir_all(asked)
            .with_context(|| format!("cannot make the folder {}", asked.display()))?;
    }
    Ok(Some(if asked.is_dir() {
        asked.join(name)
    } else {
        asked.to_path_buf()
    }))
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
pub fn result_table(game: &str, seed: u64, result: &GameResult, replay: Option<&Path>) -> String {
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
    match replay {
        Some(replay) => text.push_str(&format!("replay: {}\n", replay.display())),
        None => text.push_str("replay: not written (--replay none)\n"),
    }
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
/// process ended, and the last lines of the bot's stderr at the faulting answer.
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
        // The faulting answer's stderr, and what the bot wrote after it until it was ended (the
        // player's own text: what no step took), as it wrote them.
        let faulting_step = faults.iter().filter_map(|f| f["step"].as_u64()).next_back();
        let mut stderr = faulting_step
            .and_then(|step| steps?.get(step as usize)?["stderr"].as_str())
            .unwrap_or("")
            .to_string();
        stderr.push_str(player["stderr"].as_str().unwrap_or(""));
        if !stderr.trim().is_empty() {
            text.push_str(match faulting_step {
                Some(_) => "      its stderr at that answer (last lines):\n",
                None => "      its stderr (last lines):\n",
            });
            text.push_str(&crate::bots::stderr_tail(&stderr, 5));
        }
    }
    text
}

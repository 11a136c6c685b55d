//! The start-up probe: a process bot plays the start of a game (READY and its first answer in the
//! 2014 games, its first turn in the others) against built-in bots, in the sandbox its games will
//! use. `arena tournament` probes every bot before its first game; the contest server probes every
//! submission after its build, and its owner reads the outcome in the build log.

use std::sync::Arc;

use arena_core::FaultKind;
use arena_core::registry::{GameEntry, GameRequest, PlayerSpec, SeatRequest};
use arena_core::runner::RulesOptions as _;
use arena_core::sandbox::Sandbox;

use crate::resolve::ResolvedBot;

/// Why a probe failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The game has no built-in bot to seat beside the one probed.
    #[error("{game} has no built-in bot to probe against")]
    NoPartner { game: String },
    /// The probe's game could not be set up or played (its folders, its variant, its seats).
    #[error(transparent)]
    Game(#[from] arena_core::registry::PlayError),
    /// The bot did not start: its faults, the command, the launcher of a submission, its exit
    /// status and the end of its stderr, as the report says them.
    #[error("{report}")]
    DidNotStart { report: String },
}

/// The last `lines` lines of a bot's stderr, indented, or nothing.
pub fn stderr_tail(stderr: &str, lines: usize) -> String {
    let all: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = all.len().saturating_sub(lines);
    all[start..]
        .iter()
        .map(|line| format!("      | {line}\n"))
        .collect()
}

/// Probes every process bot of `bots` once (two seats with one command and folder are one bot),
/// in order; the first that cannot start is the error (see [`probe`]).
pub async fn probe_all(
    game: &dyn GameEntry,
    variant: Option<&str>,
    bots: &[ResolvedBot],
    rules: &arena_core::runner::RunRules,
    sandbox: Option<Arc<Sandbox>>,
) -> Result<(), ProbeError> {
    let mut probed: Vec<(&[String], Option<&std::path::Path>)> = Vec::new();
    for bot in bots {
        let PlayerSpec::Command(argv) = &bot.seat.spec else {
            continue;
        };
        let key = (argv.as_slice(), bot.seat.workdir.as_deref());
        if probed.contains(&key) {
            continue;
        }
        probed.push(key);
        probe(game, variant, bot, rules, sandbox.clone()).await?;
    }
    Ok(())
}

/// Probes the process bot of `bot` (a built-in seat passes at once). `Err` says why it could not
/// start: the faults, the command, the launcher of a submission, its exit status and the end of
/// its stderr.
pub async fn probe(
    game: &dyn GameEntry,
    variant: Option<&str>,
    bot: &ResolvedBot,
    rules: &arena_core::runner::RunRules,
    sandbox: Option<Arc<Sandbox>>,
) -> Result<(), ProbeError> {
    let seat = &bot.seat;
    let PlayerSpec::Command(argv) = &seat.spec else {
        return Ok(());
    };
    let builtin: Vec<&str> = game.bots().into_iter().map(|(name, _)| name).collect();
    let partner = builtin
        .iter()
        .find(|&&name| name == "random")
        .or_else(|| builtin.first())
        .ok_or_else(|| ProbeError::NoPartner {
            game: game.id().to_string(),
        })?
        .to_string();
    let mut request_seats = vec![seat.clone()];
    request_seats.extend((1..game.players()).map(|_| SeatRequest {
        name: partner.clone(),
        spec: PlayerSpec::Builtin(partner.clone()),
        workdir: None,
    }));
    let request = GameRequest {
        variant: variant.map(str::to_string),
        seed: 1,
        seats: request_seats,
        options: rules.probe_options(sandbox),
        stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
        prepared: Default::default(),
    };
    let result = arena_core::registry::play_in_own_folders(game, request)
        .await
        .map_err(ProbeError::Game)?;
    let fatal: Vec<String> = result.faults[0]
        .iter()
        .filter(|fault| fault.kind != FaultKind::Illegal)
        .map(ToString::to_string)
        .collect();
    if fatal.is_empty() {
        return Ok(());
    }
    let player = &result.record["players"][0];
    let mut message = format!(
        "the bot {} could not start: {}\n  command: `{}`{}\n",
        seat.name,
        fatal.join("; "),
        argv.join(" "),
        seat.workdir
            .as_ref()
            .map(|dir| format!(" in (a copy of) {}", dir.display()))
            .unwrap_or_default()
    );
    if let Some(dir) = &seat.workdir
        && let Ok(launcher) = std::fs::read_to_string(dir.join(".arena/launch.sh"))
    {
        message.push_str("  launcher:\n");
        for line in launcher.lines() {
            message.push_str(&format!("      | {line}\n"));
        }
    }
    if let Some(status) = player["exit_status"].as_str() {
        message.push_str(&format!("  {status}\n"));
    }
    let stderr = arena_core::record::seat_stderr(&result.record, 0);
    if stderr.trim().is_empty() {
        message.push_str("  (nothing on stderr)\n");
    } else {
        message.push_str("  its stderr (last lines):\n");
        message.push_str(&stderr_tail(&stderr, 12));
    }
    message.push_str("no game was played");
    Err(ProbeError::DidNotStart { report: message })
}

//! The option groups several commands share (the sandbox, timing, the games' own), their value parsers,
//! and the clock's seed for runs given none.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use arena_core::options::GameOptions;
use arena_core::seed::derive_seed;

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
    /// What each bot may write, in MiB: its folder (its own files included) and its /tmp, each
    /// (sandboxed, as root; writing past it fails with "no space left"; the files count in the
    /// bot's memory). 0: no limit (the bot's folder is on the host's disk).
    #[arg(long, value_name = "MIB", default_value_t = arena_core::sandbox::DEFAULT_DISK >> 20)]
    pub disk_mib: u64,
    /// The uids bots run as when arena is root, one per running sandbox, as FIRST-LAST: no user or
    /// group may have one (default 1900000000-1900004095).
    #[arg(long, value_name = "FIRST-LAST")]
    pub sandbox_uids: Option<arena_core::sandbox::UidRange>,
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

    /// The sandbox as these options make it, checked (no warning, whatever `kind` says).
    pub fn checked(&self) -> Result<Option<std::sync::Arc<arena_core::sandbox::Sandbox>>> {
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
                disk: (self.disk_mib > 0).then_some(self.disk_mib << 20),
                ..Default::default()
            },
            env,
            read_only,
            uids: self.sandbox_uids,
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
    /// The name of the policy asked for (`--grace` alone is `grace`, `--bank` alone `bank`),
    /// `None` for the game's default.
    fn policy_name(&self) -> Result<Option<&str>> {
        Ok(match (&self.time_policy, self.grace, self.bank) {
            (Some(name), _, _) => Some(name.as_str()),
            (None, Some(_), None) => Some("grace"),
            (None, None, Some(_)) => Some("bank"),
            (None, None, None) => None,
            (None, Some(_), Some(_)) => bail!("--grace and --bank are two different time policies"),
        })
    }

    /// The run's rules from the command line: these timing options, `--no-pause` and
    /// `--time-scale` (`arena play` and `arena tournament` build them here, checked by the one
    /// parser of time settings, `arena_core::runner::rules_from`).
    pub fn rules(&self, no_pause: bool, time_scale: f64) -> Result<arena_core::runner::RunRules> {
        arena_core::runner::rules_from(&arena_core::runner::TimeSettings {
            pause_idle: !no_pause,
            time_scale,
            time_policy: self.policy_name()?,
            grace_ms: self.grace,
            bank_ms: self.bank,
            clock: self.clock.as_deref(),
        })
        .map_err(|e| anyhow!(e))
    }
}

/// Every registered game's own options (`arena_game::GameOption`) as options of `command` (`play`,
/// `tournament`, `koth`): one per name, its help saying which games have it. Which game they are for
/// is known only once the command line is read; [`game_options_given`] collects them and the game
/// checks them ([`crate::games::find_game_with`]).
pub fn with_game_options(mut command: clap::Command) -> clap::Command {
    use arena_core::options::OptionKind;
    let games = crate::games::all();
    let mut seen: Vec<&str> = Vec::new();
    for game in &games {
        for option in game.options() {
            if seen.contains(&option.name) {
                continue;
            }
            seen.push(option.name);
            let owners: Vec<&str> = games
                .iter()
                .filter(|g| g.options().iter().any(|o| o.name == option.name))
                .map(|g| g.id())
                .collect();
            let mut help = format!("{}: {}", owners.join(", "), option.help);
            if let Some(env) = option.env {
                help.push_str(&format!(" [read from {env} when not given]"));
            }
            let arg = clap::Arg::new(option.name)
                .long(option.flag())
                .help(help)
                .help_heading("Game options");
            command = command.arg(match option.kind {
                OptionKind::Flag => arg.action(clap::ArgAction::SetTrue),
                OptionKind::Number => arg.value_name("N").value_parser(clap::value_parser!(u64)),
                OptionKind::Text => arg.value_name("TEXT"),
            });
        }
    }
    command
}

/// The game options the command line of one command gave (see [`with_game_options`]), not yet
/// checked against any game.
pub fn game_options_given(matches: &clap::ArgMatches) -> GameOptions {
    use arena_core::options::{OptionKind, OptionValue};
    let mut given = GameOptions::default();
    for game in crate::games::all() {
        for option in game.options() {
            let from_command_line =
                matches.value_source(option.name) == Some(clap::parser::ValueSource::CommandLine);
            if !from_command_line || given.get(option.name).is_some() {
                continue;
            }
            let value = match option.kind {
                OptionKind::Flag => Some(OptionValue::Flag),
                OptionKind::Number => matches
                    .get_one::<u64>(option.name)
                    .map(|n| OptionValue::Number(*n)),
                OptionKind::Text => matches
                    .get_one::<String>(option.name)
                    .map(|text| OptionValue::Text(text.clone())),
            };
            if let Some(value) = value {
                given.set(option.name, value);
            }
        }
    }
    given
}

/// `--time-scale`: a finite factor above 0 (see `arena_core::runner::check_time_scale`).
pub fn parse_time_scale(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    arena_core::runner::check_time_scale(value)
}

/// `--live`: seconds between two prints of the standings, 0 (never) or more.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("takes a number of seconds, 0 or more (got {text})")),
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

/// A seed: an unsigned 64-bit integer, or a signed one taken as its bit pattern.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    arena_core::seed::parse(text)
        .ok_or_else(|| format!("`{text}` is not a seed (a 64-bit integer)"))
}

/// A seed from the clock, for runs that were not given one (it is printed and recorded).
pub fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    derive_seed(nanos, 0) >> 1
}

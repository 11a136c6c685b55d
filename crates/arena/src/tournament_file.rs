//! `arena tournament run FILE.toml`: a tournament described in a file, and `--bots-dir DIR`.
//!
//! The file's keys are the options' names (`time-scale = 0.5`, `no-pause = true`), with the bots
//! as `[[bot]]` tables and the SPRT and Coup's options as tables of their own. Options given on
//! the command line override the file (`--bot` replaces its bots). Paths in the file are relative
//! to the file's folder.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::ValueEnum;
use clap::parser::ValueSource;
use serde::Deserialize;

use crate::report::FormatArg;
use crate::tournament::{ReplaysArg, ScheduleArg, TournamentArgs};

/// A tournament file. Unknown keys are errors (a misspelt key would otherwise be silently ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TournamentFile {
    game: Option<String>,
    league: Option<String>,
    #[serde(default, rename = "bot")]
    bots: Vec<BotEntry>,
    bots_dir: Option<PathBuf>,
    games: Option<u64>,
    seeds: Option<u64>,
    jobs: Option<usize>,
    seed: Option<SeedValue>,
    out: Option<PathBuf>,
    schedule: Option<String>,
    gauntlet: Option<String>,
    permutations: Option<bool>,
    replays: Option<String>,
    no_pause: Option<bool>,
    no_pin: Option<bool>,
    time_scale: Option<f64>,
    stderr_cap: Option<usize>,
    time_policy: Option<String>,
    grace: Option<u64>,
    bank: Option<u64>,
    clock: Option<String>,
    sprt: Option<SprtEntry>,
    format: Option<String>,
    bootstrap: Option<usize>,
    show_lost: Option<String>,
    sandbox: Option<String>,
    memory_mib: Option<u64>,
    max_tasks: Option<u32>,
    cpu_seconds: Option<u64>,
    disk_mib: Option<u64>,
    sandbox_uids: Option<String>,
    #[serde(default)]
    bot_env: Vec<String>,
    #[serde(default)]
    sandbox_bind: Vec<PathBuf>,
    /// The game's own options (`[options]`; `[coup]` in files of arena 0.2), named as on the
    /// command line without the dashes (`deck`, `no-shuffle`).
    #[serde(alias = "coup")]
    options: Option<arena_core::options::GameOptions>,
}

/// One `[[bot]]`: what `--bot` takes (a built-in bot, a source file, a folder or a command), an
/// optional label and working folder.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct BotEntry {
    label: Option<String>,
    bot: String,
    workdir: Option<PathBuf>,
}

/// A seed as a TOML integer or, above 2^63, as a string.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum SeedValue {
    Number(i64),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SprtEntry {
    elo0: f64,
    elo1: f64,
    alpha: Option<f64>,
    beta: Option<f64>,
}

/// Reads the tournament file of `arena tournament run FILE` into `args` (where the command line
/// did not give the option), and turns `--bots-dir` into bots.
pub fn apply(args: &mut TournamentArgs, matches: &clap::ArgMatches) -> Result<()> {
    let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    // Which options the command line gave, so that `--resume` can tell them from defaults.
    args.given = matches
        .ids()
        .map(|id| id.as_str())
        .filter(|id| given(id))
        .map(String::from)
        .collect();
    match (args.game.as_deref(), &args.file) {
        (Some("run"), Some(path)) => {
            let path = path.clone();
            let file = read(&path)?;
            let base = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            merge(args, file, &base, &given)
                .with_context(|| format!("in the tournament file {}", path.display()))?;
        }
        (Some("run"), None) => {
            bail!("`arena tournament run` needs a tournament file: run FILE.toml")
        }
        (_, Some(extra)) => bail!(
            "unexpected argument {}: a tournament file goes after `run` (arena tournament run FILE.toml)",
            extra.display()
        ),
        _ => {}
    }
    if let Some(dir) = args.bots_dir.take() {
        add_bots_dir(args, &dir)?;
    }
    Ok(())
}

fn read(path: &Path) -> Result<TournamentFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the tournament file {}", path.display()))?;
    // toml's message names the line and column and shows the line.
    toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// `value` where the command line did not give `id`.
fn set<T>(target: &mut T, id: &str, value: Option<T>, given: &dyn Fn(&str) -> bool) {
    if !given(id)
        && let Some(value) = value
    {
        *target = value;
    }
}

fn choice<T: ValueEnum>(key: &str, text: Option<String>) -> Result<Option<T>> {
    text.map(|text| {
        T::from_str(&text, false).map_err(|_| {
            let names: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            anyhow!("{key} = {text:?}: expected one of {}", names.join(", "))
        })
    })
    .transpose()
}

fn one_of(key: &str, text: Option<String>, names: &[&str]) -> Result<Option<String>> {
    match text {
        Some(text) if !names.contains(&text.as_str()) => {
            bail!("{key} = {text:?}: expected one of {}", names.join(", "))
        }
        other => Ok(other),
    }
}

fn merge(
    args: &mut TournamentArgs,
    file: TournamentFile,
    base: &Path,
    given: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let path = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
    args.game = match (file.game, given("game")) {
        (Some(game), _) => Some(game),
        (None, _) => bail!("the file names no game (game = \"negotiate\", say)"),
    };
    args.file = None;
    set(&mut args.league, "league", file.league.map(Some), given);
    set(&mut args.games, "games", file.games.map(Some), given);
    set(&mut args.seeds, "seeds", file.seeds.map(Some), given);
    if given("games") && !given("seeds") {
        args.seeds = None;
    }
    if given("seeds") && !given("games") {
        args.games = None;
    }
    if args.games.is_some() && args.seeds.is_some() {
        bail!("give games or seeds, not both");
    }
    let jobs = file
        .jobs
        .map(|jobs| crate::options::parse_jobs(&jobs.to_string()).map_err(|e| anyhow!("jobs: {e}")))
        .transpose()?;
    set(&mut args.jobs, "jobs", jobs.map(Some), given);
    let seed = match file.seed {
        Some(SeedValue::Number(n)) => Some(n as u64),
        Some(SeedValue::Text(text)) => {
            Some(crate::options::parse_seed(&text).map_err(|e| anyhow!("seed: {e}"))?)
        }
        None => None,
    };
    set(&mut args.seed, "seed", seed.map(Some), given);
    set(&mut args.out, "out", file.out.map(|p| Some(path(p))), given);
    set(
        &mut args.schedule,
        "schedule",
        choice::<ScheduleArg>("schedule", file.schedule)?,
        given,
    );
    set(
        &mut args.gauntlet,
        "gauntlet",
        file.gauntlet.map(Some),
        given,
    );
    set(
        &mut args.permutations,
        "permutations",
        file.permutations,
        given,
    );
    set(
        &mut args.replays,
        "replays",
        choice::<ReplaysArg>("replays", file.replays)?,
        given,
    );
    set(&mut args.no_pause, "no_pause", file.no_pause, given);
    set(&mut args.no_pin, "no_pin", file.no_pin, given);
    let time_scale = file
        .time_scale
        .map(|scale| {
            crate::options::parse_time_scale(&scale.to_string())
                .map_err(|e| anyhow!("time-scale: {e}"))
        })
        .transpose()?;
    set(&mut args.time_scale, "time_scale", time_scale, given);
    set(&mut args.stderr_cap, "stderr_cap", file.stderr_cap, given);
    let policy = one_of(
        "time-policy",
        file.time_policy,
        &["strict", "strikes", "grace", "bank"],
    )?;
    set(
        &mut args.timing.time_policy,
        "time_policy",
        policy.map(Some),
        given,
    );
    set(&mut args.timing.grace, "grace", file.grace.map(Some), given);
    set(&mut args.timing.bank, "bank", file.bank.map(Some), given);
    let clock = one_of("clock", file.clock, &["wall", "cpu"])?;
    set(&mut args.timing.clock, "clock", clock.map(Some), given);
    if let Some(sprt) = file.sprt
        && !given("sprt")
    {
        args.sprt = Some(vec![sprt.elo0, sprt.elo1]);
        set(&mut args.alpha, "alpha", sprt.alpha, given);
        set(&mut args.beta, "beta", sprt.beta, given);
    }
    set(
        &mut args.format,
        "format",
        choice::<FormatArg>("format", file.format)?,
        given,
    );
    set(&mut args.bootstrap, "bootstrap", file.bootstrap, given);
    set(
        &mut args.show_lost,
        "show_lost",
        file.show_lost.map(Some),
        given,
    );
    let kind = one_of("sandbox", file.sandbox, &["bwrap", "none"])?;
    set(&mut args.sandbox.kind, "kind", kind, given);
    set(
        &mut args.sandbox.memory_mib,
        "memory_mib",
        file.memory_mib,
        given,
    );
    set(
        &mut args.sandbox.max_tasks,
        "max_tasks",
        file.max_tasks,
        given,
    );
    set(
        &mut args.sandbox.cpu_seconds,
        "cpu_seconds",
        file.cpu_seconds.map(Some),
        given,
    );
    set(&mut args.sandbox.disk_mib, "disk_mib", file.disk_mib, given);
    let uids = file
        .sandbox_uids
        .map(|text| {
            text.parse()
                .map_err(|e: String| anyhow!("sandbox-uids = {e}"))
        })
        .transpose()?;
    set(
        &mut args.sandbox.sandbox_uids,
        "sandbox_uids",
        uids.map(Some),
        given,
    );
    if !given("env") {
        args.sandbox.env.extend(file.bot_env);
    }
    if !given("read_only") {
        args.sandbox
            .read_only
            .extend(file.sandbox_bind.into_iter().map(path));
    }
    // The command line's options win; the game checks them all when it is found.
    if let Some(options) = file.options {
        for (name, value) in options.iter() {
            if args.game_options.get(name).is_none() {
                args.game_options.set(name, value.clone());
            }
        }
    }
    if !given("bots_dir") {
        args.bots_dir = file.bots_dir.map(path);
    }
    // `--bot` on the command line replaces the file's bots (with their working folders).
    if !given("bots") && !file.bots.is_empty() {
        if given("workdirs") {
            bail!(
                "--workdir on the command line goes with --bot on the command line; give each \
                 [[bot]] of the file its `workdir`"
            );
        }
        args.bots.clear();
        args.bot_workdirs.clear();
        for bot in file.bots {
            // A file or folder named relative to the tournament file, if there is one.
            let relative = base.join(&bot.bot);
            let text = if !Path::new(&bot.bot).is_absolute() && relative.exists() {
                relative.to_string_lossy().into_owned()
            } else {
                bot.bot
            };
            args.bots.push(match bot.label {
                Some(label) => format!("{label}={text}"),
                None => text,
            });
            args.bot_workdirs.push(bot.workdir.map(path));
        }
    }
    Ok(())
}

/// Every submission in `dir` (each folder and each file that is a recognised source file, in name
/// order; hidden entries skipped) as a bot labelled with its name (a file's without its extension).
fn add_bots_dir(args: &mut TournamentArgs, dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("--bots-dir {}: cannot read the folder", dir.display()))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with('.'))
        })
        .filter(|path| arena_submit::is_submission(path))
        .collect();
    found.sort();
    if found.is_empty() {
        bail!(
            "--bots-dir {}: no submission in it (a folder with run.sh, arena.toml or one source \
             file, or a source file such as bot.py)",
            dir.display()
        );
    }
    let mut workdirs = std::mem::take(&mut args.bot_workdirs);
    if workdirs.is_empty() && !args.bots.is_empty() && !args.workdirs.is_empty() {
        // Per-bot working folders of the command line's --bot bots keep lining up with them.
        workdirs = match args.workdirs.len() {
            1 => vec![Some(args.workdirs[0].clone()); args.bots.len()],
            _ => args.workdirs.iter().cloned().map(Some).collect(),
        };
        args.workdirs.clear();
    } else if workdirs.is_empty() {
        workdirs = vec![None; args.bots.len()];
    }
    for path in found {
        let label = if path.is_dir() {
            path.file_name()
        } else {
            path.file_stem()
        }
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bot".into());
        // A label is a name, never a command: `=` or spaces would make it one.
        let label: String = label
            .chars()
            .map(|c| {
                if c == '=' || c.is_whitespace() {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        args.bots
            .push(format!("{label}={}", path.to_string_lossy()));
        workdirs.push(None);
    }
    args.bot_workdirs = workdirs;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's example names every key, and only keys the file takes.
    #[test]
    fn the_readme_example_is_a_valid_file() {
        let readme = include_str!("../../../README.md");
        let start = readme
            .find("```toml\ngame = \"negotiate\"")
            .expect("the example in the README");
        let body = &readme[start + "```toml\n".len()..];
        let example = &body[..body.find("```").expect("end of the example")];
        let file: TournamentFile = toml::from_str(example).expect("the example parses");
        assert_eq!(file.game.as_deref(), Some("negotiate"));
        assert_eq!(file.bots.len(), 3);
        assert!(file.sprt.is_some() && file.options.is_some());
        assert!(file.clock.is_some() && file.bots_dir.is_some() && file.cpu_seconds.is_some());
    }
}

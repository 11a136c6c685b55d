//! Players as people bring them: the `--bot` texts of a command turned into resolved bots
//! (`arena_submit::resolve::ResolvedBot`, which builds submissions and checks names and programs;
//! here its notices are printed), labels, unique names; the start-up probe that runs before a
//! tournament; `arena languages`, `arena new` and `arena bot`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use arena_core::registry::{GameEntry, SeatRequest};
use arena_core::sandbox::Sandbox;
use arena_submit::resolve::ResolvedBot;

use crate::options::SandboxOptions;

/// How submissions are built: the user's build cache, their build steps in `builds` (made for
/// builds by arena-submit), unconfined with `--sandbox none`.
fn build_options(builds: Option<&Arc<Sandbox>>) -> arena_submit::Options {
    arena_submit::Options {
        sandbox: builds.cloned(),
        ..arena_submit::Options::default()
    }
}

/// Tells the user what resolving `bot` did (its build, warnings, notes): the library says, the
/// binary prints.
fn tell(bot: &ResolvedBot) {
    for notice in bot.notices() {
        eprintln!("arena: {notice}");
    }
}

/// Builds (or finds in the cache) the submission at `source` for a plan's bot named `name`.
pub fn prepare_submission(
    game: &dyn GameEntry,
    name: &str,
    source: &Path,
    builds: Option<&Arc<Sandbox>>,
) -> Result<ResolvedBot> {
    let bot = ResolvedBot::submission(game, Some(name), source, &build_options(builds))?;
    tell(&bot);
    Ok(bot)
}

/// Resolves one `--bot` text (see [`ResolvedBot::from_text`]); a submission is built in `builds`.
pub fn resolve(
    game: &dyn GameEntry,
    name: Option<&str>,
    text: &str,
    workdir: Option<&Path>,
    builds: Option<&Arc<Sandbox>>,
) -> Result<ResolvedBot> {
    let bot = ResolvedBot::from_text(game, name, text, workdir, &build_options(builds))?;
    tell(&bot);
    Ok(bot)
}

/// The last `lines` lines of a bot's stderr, indented, or nothing.
pub fn stderr_tail(stderr: &str, lines: usize) -> String {
    arena_submit::probe::stderr_tail(stderr, lines)
}

/// Starts every process bot once before a tournament (see [`arena_submit::probe::probe_all`]): a
/// bot that cannot start is an error with what was run and its stderr, before any game of the
/// tournament. The probe runs in the tournament's sandbox, as its games will.
pub fn probe(
    game: &dyn GameEntry,
    variant: Option<&str>,
    bots: &[ResolvedBot],
    rules: &arena_core::runner::RunRules,
    sandbox: Option<Arc<Sandbox>>,
) -> Result<()> {
    crate::runtime::runtime()?
        .block_on(crate::runtime::interruptible(
            arena_submit::probe::probe_all(game, variant, bots, rules, sandbox),
        ))?
        .map_err(|e| anyhow!(e))
}

/// `arena languages`: every language of single-file bots, its toolchain's versions (or the package
/// to install), and the 2014 interpreter names.
pub fn languages() -> Result<std::process::ExitCode> {
    use std::fmt::Write as _;
    let mut out = String::new();
    writeln!(
        out,
        "Single-file bots and folders with one entry file (by extension):"
    )?;
    // Each tool is checked where builds run: in the sandbox (builds' limits, the toolchains found).
    let options = crate::options::SandboxOptions {
        kind: "bwrap".into(),
        memory_mib: arena_core::sandbox::DEFAULT_MEMORY >> 20,
        max_tasks: arena_core::sandbox::DEFAULT_TASKS,
        ..Default::default()
    };
    let sandbox = match options.checked() {
        Ok(sandbox) => sandbox,
        Err(e) => {
            writeln!(
                out,
                "(not checked in the sandbox, which cannot be set up: {e:#})"
            )?;
            None
        }
    };
    for language in arena_submit::LANGUAGES {
        writeln!(
            out,
            "  {:<11} {:<22} {}",
            language.id,
            arena_submit::resolve::extensions_text(language),
            language.name
        )?;
        let tools = match &sandbox {
            Some(sandbox) => arena_submit::languages::toolchain_in(language, sandbox),
            None => arena_submit::toolchain(language),
        };
        for tool in tools {
            match tool.version {
                Some(version) => match tool.sandbox_problem {
                    None => writeln!(out, "      {:<10} {version}", tool.program)?,
                    Some(why) => writeln!(
                        out,
                        "      {:<10} DOES NOT RUN IN THE SANDBOX: {version}: {why}",
                        tool.program
                    )?,
                },
                None => writeln!(
                    out,
                    "      {:<10} MISSING: {}",
                    tool.program,
                    if tool.package.contains(' ') {
                        tool.package.to_string()
                    } else {
                        format!("apt-get install {}", tool.package)
                    }
                )?,
            }
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Folders with run.sh (and compile.sh), 2014 games (langwars, langwars2, negotiate):"
    )?;
    for (name, target, why) in arena_submit::INTERPRETERS_2014 {
        writeln!(out, "  {name:<10} -> {target:<8} {why}")?;
    }
    writeln!(
        out,
        "The same in later games: `python` -> python3. An arena.toml's [interpreters] overrides both."
    )?;
    crate::output::print_out(&out)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// `arena new GAME --lang LANG [DIR]`: writes a starter bot into DIR (default `GAME-LANG`).
pub fn new_bot(game: &str, lang: &str, dir: Option<PathBuf>) -> Result<std::process::ExitCode> {
    let entry = crate::games::find_game(game)?;
    let lang = match lang {
        "python" | "py" => "python3",
        "c++" => "cpp",
        "js" | "node" => "javascript",
        "ts" => "typescript",
        other => other,
    };
    // The game's own starters (its folder's `starters/`, registered with the game).
    let starters = entry.starters();
    let Some(starter) = starters.iter().find(|starter| starter.lang == lang) else {
        let available: Vec<&str> = starters.iter().map(|starter| starter.lang).collect();
        bail!(
            "no {lang} starter for {game}; starters for {game}: {}",
            available.join(", ")
        );
    };
    let (file, text) = (starter.file, starter.text);
    let dir = dir.unwrap_or_else(|| PathBuf::from(format!("{game}-{lang}")));
    std::fs::create_dir_all(&dir).map_err(|e| anyhow!("cannot make {}: {e}", dir.display()))?;
    let path = dir.join(file);
    if path.exists() {
        bail!(
            "{} exists already: arena never overwrites a bot (choose another DIR)",
            path.display()
        );
    }
    std::fs::write(&path, text).map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    let others: Vec<String> = entry
        .bots()
        .into_iter()
        .take(entry.players() - 1)
        .map(|(name, _)| format!("--bot {name}"))
        .collect();
    println!("wrote {}", path.display());
    println!(
        "play it:  arena play {} --bot {} {}",
        entry.id(),
        dir.display(),
        others.join(" ")
    );
    println!("rules and protocol: arena protocol {}", entry.id());
    Ok(std::process::ExitCode::SUCCESS)
}

/// Turns `--bot` texts into players: a built-in bot's name (a misspelt one is an error that
/// suggests the closest), a source file or folder (built once, see `arena languages`), or a command
/// whose program must exist.
pub fn seat_requests(
    game: &dyn GameEntry,
    bots: &[(Option<String>, String)],
    workdirs: &[PathBuf],
    sandbox: &SandboxOptions,
) -> Result<Vec<ResolvedBot>> {
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
            resolve(game, name.as_deref(), text, workdir, builds.as_ref())
        })
        .collect()
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

pub fn bot(game: &str, name: &str, args: &[String]) -> Result<ExitCode> {
    let game = crate::games::find_game(game)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    game.bot_main(name, args, &mut input, &mut output)
        .map_err(|e| anyhow!(e))?;
    Ok(ExitCode::SUCCESS)
}

//! Players as people bring them: built-in names (with suggestions when misspelt), commands whose
//! program must exist, and submissions (a source file or a folder) built by `arena-submit`; the
//! `--bot` texts of a command turned into seats (`seat_requests`, labels, unique names); the
//! start-up probe that runs before a tournament; `arena languages`, `arena new` and `arena bot`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use arena_core::registry::{GameEntry, PlayerSpec, SeatRequest};
use arena_core::sandbox::Sandbox;

use crate::options::SandboxOptions;

/// A seat as resolved from a `--bot`, with the submission it came from (tournaments keep the path in
/// their plan and build it again, from the cache, when resumed).
pub struct Player {
    pub seat: SeatRequest,
    pub source: Option<PathBuf>,
}

/// Builds (or finds in the cache) the submission at `path`, telling the user when it builds. Build
/// steps run in `sandbox` (made for builds by arena-submit), unconfined with `--sandbox none`.
pub fn prepare_submission(
    game: &str,
    path: &Path,
    sandbox: Option<&Arc<Sandbox>>,
) -> Result<arena_submit::Prepared> {
    let options = arena_submit::Options {
        contest_2014: crate::games::find_game(game).is_ok_and(|entry| entry.conventions_2014()),
        sandbox: sandbox.cloned(),
        ..arena_submit::Options::default()
    };
    let prepared = arena_submit::prepare(path, &options).map_err(|e| anyhow!("{e}"))?;
    if !prepared.cached {
        eprintln!(
            "arena: built {} as {} in {}",
            path.display(),
            prepared.kind,
            prepared.folder.display()
        );
    }
    for warning in &prepared.warnings {
        eprintln!("arena: warning: {}: {warning}", path.display());
    }
    Ok(prepared)
}

/// Resolves one `--bot` text; a submission is built in `builds` (see [`prepare_submission`]).
pub fn resolve(
    game: &dyn GameEntry,
    name: Option<&str>,
    text: &str,
    workdir: Option<&Path>,
    builds: Option<&Arc<Sandbox>>,
) -> Result<Player> {
    let builtin: Vec<&str> = game.bots().into_iter().map(|(name, _)| name).collect();
    let text = text.trim();
    let suggest = |what: &str| {
        format!(
            "{what}; the closest built-in bots of {}: {} (all: {})",
            game.id(),
            arena_submit::closest(what_name(text), &builtin).join(", "),
            builtin.join(", ")
        )
    };
    // `builtin:NAME@P`: NAME with a handicap of P % (see arena_core::registry::make_bot).
    if let Some(bot) = text.strip_prefix("builtin:")
        && !builtin.contains(
            &arena_core::registry::split_handicap(bot)
                .map_err(|e| anyhow!(e))?
                .0,
        )
    {
        bail!(suggest(&format!(
            "{} has no built-in bot `{bot}`",
            game.id()
        )));
    }
    if builtin.contains(&text) || text.starts_with("builtin:") {
        let spec = PlayerSpec::parse(text).map_err(|e| anyhow!(e))?;
        let spec = match spec {
            PlayerSpec::Command(_) => PlayerSpec::Builtin(text.to_string()),
            builtin => builtin,
        };
        return Ok(Player {
            seat: SeatRequest {
                name: name.map_or_else(|| spec.short_name(), str::to_string),
                spec,
                workdir: None,
            },
            source: None,
        });
    }
    let path = Path::new(text);
    if arena_submit::is_submission(path) {
        let source = std::fs::canonicalize(path)
            .map_err(|e| anyhow!("cannot read the bot {}: {e}", path.display()))?;
        let prepared = prepare_submission(game.id(), &source, builds)?;
        if let Some(dir) = workdir {
            eprintln!(
                "arena: note: {} plays in a copy of its own build, not in --workdir {}",
                path.display(),
                dir.display()
            );
        }
        return Ok(Player {
            seat: SeatRequest {
                name: name.map_or_else(|| prepared.name.clone(), str::to_string),
                spec: PlayerSpec::Command(arena_submit::run_argv(None)),
                workdir: Some(prepared.folder),
            },
            source: Some(source),
        });
    }
    // A file that is neither a submission nor a program: its language is one arena does not know
    // (run as a command, it would only crash at the game's start).
    if !text.contains(char::is_whitespace) && path.is_file() && !executable(path) {
        bail!(unknown_language(path));
    }
    let spec = PlayerSpec::parse(text).map_err(|e| anyhow!(e))?;
    if let PlayerSpec::Command(argv) = &spec
        && let Err(missing) = arena_submit::check_program(argv, workdir)
    {
        // A single word that looks like a file's path or name: that file is missing.
        if argv.len() == 1 && (text.contains('/') || path.extension().is_some()) {
            let stem = path
                .file_stem()
                .map_or(text.into(), |stem| stem.to_string_lossy());
            let close: Vec<&str> = builtin
                .iter()
                .copied()
                .filter(|name| near(&stem, name))
                .collect();
            if close.is_empty() {
                bail!("no such file: {text}");
            }
            bail!(
                "no such file: {text}; or the built-in bot {} of {}?",
                close.join(" or "),
                game.id()
            );
        }
        // A single word that is no program is most likely a misspelt built-in bot.
        if argv.len() == 1 && !text.contains('/') {
            bail!(suggest(&format!(
                "no built-in bot, file, folder or program is called `{text}`"
            )));
        }
        bail!("{missing}");
    }
    Ok(Player {
        seat: SeatRequest {
            name: name.map_or_else(|| spec.short_name(), str::to_string),
            spec,
            workdir: workdir.map(Path::to_path_buf),
        },
        source: None,
    })
}

/// Whether a file may be run as a program (its execute permission).
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o111 != 0)
}

/// The error for a file whose language arena does not know, with the languages it knows.
fn unknown_language(path: &Path) -> String {
    let what = match path.extension() {
        Some(extension) => format!(
            "arena does not know the language of .{} files",
            extension.to_string_lossy()
        ),
        None => "arena cannot tell its language (no extension)".to_string(),
    };
    let known: Vec<String> = arena_submit::LANGUAGES
        .iter()
        .map(|language| format!("{} ({})", language.id, extensions_text(language)))
        .collect();
    format!(
        "{}: {what}, and it is not an executable program; the languages arena knows: {} \
         (see `arena languages`), or give the command that runs it: --bot \"PROGRAM {0}\"",
        path.display(),
        known.join(", ")
    )
}

/// Whether `name` is within a typo or two of `built_in` (or part of it, or it of `name`).
fn near(name: &str, built_in: &str) -> bool {
    let length = name.chars().count();
    if length >= 3 && (built_in.contains(name) || name.contains(built_in)) {
        return true;
    }
    arena_submit::edit_distance(name, built_in) <= (length / 4).clamp(1, 2)
}

/// A language's file extensions as a user types them: `.cpp .cc .cxx .c++`.
fn extensions_text(language: &arena_submit::Language) -> String {
    let extensions: Vec<String> = language
        .extensions
        .iter()
        .map(|e| format!(".{e}"))
        .collect();
    extensions.join(" ")
}

fn what_name(text: &str) -> &str {
    text.strip_prefix("builtin:").unwrap_or(text)
}

/// The last `lines` lines of a bot's stderr, indented, or nothing.
pub fn stderr_tail(stderr: &str, lines: usize) -> String {
    arena_submit::probe::stderr_tail(stderr, lines)
}

/// Starts every process bot once before a tournament (see [`arena_submit::probe::probe`]): a bot
/// that cannot start is an error with what was run and its stderr, before any game of the
/// tournament. The probe runs in the tournament's sandbox, as its games will.
pub fn probe(
    game: &dyn GameEntry,
    variant: Option<&str>,
    seats: &[SeatRequest],
    rules: &arena_core::runner::RunRules,
    sandbox: Option<std::sync::Arc<arena_core::sandbox::Sandbox>>,
) -> Result<()> {
    let runtime = crate::runtime::runtime()?;
    let mut probed: Vec<(String, Option<PathBuf>)> = Vec::new();
    for seat in seats {
        let PlayerSpec::Command(argv) = &seat.spec else {
            continue;
        };
        let key = (argv.join(" "), seat.workdir.clone());
        if probed.contains(&key) {
            continue;
        }
        probed.push(key);
        runtime
            .block_on(crate::runtime::interruptible(arena_submit::probe::probe(
                game,
                variant,
                seat,
                rules,
                sandbox.clone(),
            )))?
            .map_err(|e| anyhow!(e))?;
    }
    Ok(())
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
    for language in arena_submit::LANGUAGES {
        writeln!(
            out,
            "  {:<11} {:<22} {}",
            language.id,
            extensions_text(language),
            language.name
        )?;
        for tool in arena_submit::toolchain(language) {
            match tool.version {
                Some(version) => writeln!(out, "      {:<10} {version}", tool.program)?,
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
) -> Result<Vec<Player>> {
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

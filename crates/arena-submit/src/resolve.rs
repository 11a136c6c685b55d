//! One resolved bot: what every front end (`arena play`, `tournament`, `koth`, the contest server's
//! workers and its start-up probe) turns a bot into before it plays. A bot is a built-in bot's
//! name, a command whose program must exist, or a submission (a source file or a folder) built
//! here, or found in the build cache. Nothing is printed: what the user should be told comes back
//! as [`Notice`]s, and the caller shows them.

use std::fmt;
use std::path::{Path, PathBuf};

use arena_core::registry::{GameEntry, PlayerSpec, SeatRequest};

use crate::{Language, Options, Prepared};

/// A bot ready to take a seat: the seat the run layer plays, and where it came from.
#[derive(Clone, Debug)]
pub struct ResolvedBot {
    /// What the run layer plays: a built-in bot, or a command (for a submission, its launcher
    /// started in its built folder).
    pub seat: SeatRequest,
    /// The submission it was built from (a tournament keeps it in its plan and builds it again,
    /// from the cache, when resumed).
    pub source: Option<PathBuf>,
    /// The submission's build.
    pub build: Option<Prepared>,
    /// What else the user should be told (an ignored `--workdir`); see [`ResolvedBot::notices`].
    pub notes: Vec<Notice>,
}

/// Something the user should be told about a resolved bot (the caller prints it).
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    /// A submission was built now (not found in the cache).
    Built {
        source: PathBuf,
        kind: String,
        folder: PathBuf,
    },
    /// A build that was accepted anyway said this (TypeScript's type errors).
    Warning { source: PathBuf, text: String },
    /// A submission plays in a copy of its build, not in the `--workdir` given.
    WorkdirIgnored { source: PathBuf, workdir: PathBuf },
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Built {
                source,
                kind,
                folder,
            } => write!(
                f,
                "built {} as {kind} in {}",
                source.display(),
                folder.display()
            ),
            Notice::Warning { source, text } => {
                write!(f, "warning: {}: {text}", source.display())
            }
            Notice::WorkdirIgnored { source, workdir } => write!(
                f,
                "note: {} plays in a copy of its own build, not in --workdir {}",
                source.display(),
                workdir.display()
            ),
        }
    }
}

/// Why a bot cannot be resolved; each says what to give instead.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// A name that is no built-in bot, file or program: most likely a misspelt built-in bot.
    #[error("{what}; the closest built-in bots of {game}: {} (all: {})", closest.join(", "), all.join(", "))]
    NotABuiltin {
        what: String,
        game: String,
        closest: Vec<String>,
        all: Vec<String>,
    },
    /// A path to a file that does not exist (with the built-in bots whose name is close).
    #[error("no such file: {text}{}", if close.is_empty() { String::new() } else { format!("; or the built-in bot {} of {game}?", close.join(" or ")) })]
    NoSuchFile {
        text: String,
        game: String,
        close: Vec<String>,
    },
    /// A file that is neither a submission arena can build nor an executable program.
    #[error("{}", unknown_language(.0))]
    UnknownLanguage(PathBuf),
    #[error("cannot read the bot {}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The bot's text was refused (the message says why).
    #[error("{0}")]
    Refused(String),
    /// The submission could not be built, or the command's program is missing.
    #[error(transparent)]
    Submission(#[from] crate::SubmitError),
}

impl ResolvedBot {
    /// A built-in bot of the game (`NAME` or `NAME@P`), named `name`.
    pub fn builtin(name: &str, bot: &str) -> ResolvedBot {
        ResolvedBot::of_seat(SeatRequest {
            name: name.to_string(),
            spec: PlayerSpec::Builtin(bot.to_string()),
            workdir: None,
        })
    }

    /// A seat already resolved once (a tournament's plan): played as it is, with no check.
    pub fn of_seat(seat: SeatRequest) -> ResolvedBot {
        ResolvedBot {
            seat,
            source: None,
            build: None,
            notes: Vec::new(),
        }
    }

    /// The submission at `path`, built (or found in `options`' cache) with the game's
    /// conventions; it plays as its launcher in (a copy of) its built folder. `name` defaults to
    /// the submission's own.
    pub fn submission(
        game: &dyn GameEntry,
        name: Option<&str>,
        path: &Path,
        options: &Options,
    ) -> Result<ResolvedBot, ResolveError> {
        let options = Options {
            contest_2014: game.conventions_2014(),
            ..options.clone()
        };
        let prepared = crate::prepare(path, &options)?;
        Ok(ResolvedBot {
            seat: SeatRequest {
                name: name.map_or_else(|| prepared.name.clone(), str::to_string),
                spec: PlayerSpec::Command(crate::run_argv(None)),
                workdir: Some(prepared.folder.clone()),
            },
            source: Some(path.to_path_buf()),
            build: Some(prepared),
            notes: Vec::new(),
        })
    }

    /// Resolves one `--bot` text: a built-in bot's name (`builtin:NAME`, `NAME@P`; a misspelt one
    /// is an error that suggests the closest), a source file or folder (built with `builds`, see
    /// [`ResolvedBot::submission`]), or a command whose program must exist (run in `workdir`).
    pub fn from_text(
        game: &dyn GameEntry,
        name: Option<&str>,
        text: &str,
        workdir: Option<&Path>,
        builds: &Options,
    ) -> Result<ResolvedBot, ResolveError> {
        let builtin: Vec<&str> = game.bots().into_iter().map(|(name, _)| name).collect();
        let text = text.trim();
        let suggest = |what: String| ResolveError::NotABuiltin {
            what,
            game: game.id().to_string(),
            closest: crate::closest(what_name(text), &builtin)
                .into_iter()
                .map(str::to_string)
                .collect(),
            all: builtin.iter().map(|name| name.to_string()).collect(),
        };
        // `builtin:NAME@P`: NAME with a handicap of P % (see arena_core::registry::make_bot).
        if let Some(bot) = text.strip_prefix("builtin:")
            && !builtin.contains(
                &arena_core::registry::split_handicap(bot)
                    .map_err(ResolveError::Refused)?
                    .0,
            )
        {
            return Err(suggest(format!(
                "{} has no built-in bot `{bot}`",
                game.id()
            )));
        }
        if builtin.contains(&text) || text.starts_with("builtin:") {
            let spec = match PlayerSpec::parse(text).map_err(ResolveError::Refused)? {
                PlayerSpec::Command(_) => PlayerSpec::Builtin(text.to_string()),
                builtin => builtin,
            };
            return Ok(ResolvedBot::of_seat(SeatRequest {
                name: name.map_or_else(|| spec.short_name(), str::to_string),
                spec,
                workdir: None,
            }));
        }
        let path = Path::new(text);
        if crate::is_submission(path) {
            let source =
                std::fs::canonicalize(path).map_err(|source| ResolveError::Unreadable {
                    path: path.to_path_buf(),
                    source,
                })?;
            let mut bot = ResolvedBot::submission(game, name, &source, builds)?;
            if let Some(workdir) = workdir {
                bot.notes.push(Notice::WorkdirIgnored {
                    source: path.to_path_buf(),
                    workdir: workdir.to_path_buf(),
                });
            }
            return Ok(bot);
        }
        // A file that is neither a submission nor a program: its language is one arena does not
        // know (run as a command, it would only crash at the game's start).
        if !text.contains(char::is_whitespace) && path.is_file() && !executable(path) {
            return Err(ResolveError::UnknownLanguage(path.to_path_buf()));
        }
        let spec = PlayerSpec::parse(text).map_err(ResolveError::Refused)?;
        if let PlayerSpec::Command(argv) = &spec
            && let Err(missing) = crate::check_program(argv, workdir)
        {
            // A single word that looks like a file's path or name: that file is missing.
            if argv.len() == 1 && (text.contains('/') || path.extension().is_some()) {
                let stem = path
                    .file_stem()
                    .map_or(text.into(), |stem| stem.to_string_lossy());
                return Err(ResolveError::NoSuchFile {
                    text: text.to_string(),
                    game: game.id().to_string(),
                    close: builtin
                        .iter()
                        .filter(|name| near(&stem, name))
                        .map(|name| name.to_string())
                        .collect(),
                });
            }
            // A single word that is no program is most likely a misspelt built-in bot.
            if argv.len() == 1 && !text.contains('/') {
                return Err(suggest(format!(
                    "no built-in bot, file, folder or program is called `{text}`"
                )));
            }
            return Err(ResolveError::Submission(missing));
        }
        Ok(ResolvedBot::of_seat(SeatRequest {
            name: name.map_or_else(|| spec.short_name(), str::to_string),
            spec,
            workdir: workdir.map(Path::to_path_buf),
        }))
    }

    /// What the user should be told about this bot, in order: its build (when it was not in the
    /// cache), the build's warnings, then its notes.
    pub fn notices(&self) -> Vec<Notice> {
        let mut notices = Vec::new();
        let source = self.source.clone().unwrap_or_default();
        if let Some(build) = &self.build {
            if !build.cached {
                notices.push(Notice::Built {
                    source: source.clone(),
                    kind: build.kind.clone(),
                    folder: build.folder.clone(),
                });
            }
            notices.extend(build.warnings.iter().map(|text| Notice::Warning {
                source: source.clone(),
                text: text.clone(),
            }));
        }
        notices.extend(self.notes.iter().cloned());
        notices
    }
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
    let known: Vec<String> = crate::LANGUAGES
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
    crate::edit_distance(name, built_in) <= (length / 4).clamp(1, 2)
}

/// A language's file extensions as a user types them: `.cpp .cc .cxx .c++`.
pub fn extensions_text(language: &Language) -> String {
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

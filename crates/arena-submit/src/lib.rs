//! Bots as contestants bring them.
//!
//! A bot given as a path is a *submission*:
//! - a folder with `run.sh` (and optionally `compile.sh`): the 2014 contests' convention, with the
//!   interpreter names of the 2014 servers mapped to today's programs ([`INTERPRETERS_2014`]);
//! - a single source file, or a folder with one recognised entry file: built and started the way
//!   CodinGame does ([`languages::LANGUAGES`]);
//! - a folder with an `arena.toml` manifest ([`Manifest`]) for everything else.
//!
//! [`prepare`] builds a submission once per content (cached under the user's cache folder) and
//! gives the folder a game copies for each seat and the command that starts the bot there. Build
//! steps run in the bot sandbox ([`Options::sandbox`], made for builds by
//! [`Sandbox::for_builds`]): a `compile.sh` is the stranger's code as much as the bot is. The bot's
//! command is made in one place ([`run_argv`]) and started by the games, in the same sandbox.

pub mod codingame_api;
pub mod languages;
pub mod layouts;
pub mod probe;
pub mod redact;
pub mod resolve;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use std::sync::Arc;

use arena_core::sandbox::{Launch, Sandbox};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use languages::quote;
pub use languages::{LANGUAGES, Language, Tool, ToolStatus, locate, toolchain};

/// Why a submission could not be prepared or a command could not be run; each message names the
/// file or program and what to change.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The bot's path cannot be read (missing, or not readable by arena).
    #[error("cannot read the bot {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file of the submission cannot be read (to detect its language or hash its content).
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a submission arena knows how to build: no entry file, a bad manifest, an unknown
    /// language, a missing interpreter or compiler. The reason says which.
    #[error("the bot {}: {reason}", path.display())]
    Unusable { path: PathBuf, reason: String },
    /// A file whose extension is no language of arena's.
    #[error(
        "{}: arena does not know this kind of file (see `arena languages`; a program is run as \
         a command when it is executable)",
        path.display()
    )]
    UnknownLanguage { path: PathBuf },
    /// The submission's files could not be read to compute its cache key.
    #[error("{0}")]
    Content(String),
    /// The build cache (`ARENA_CACHE_DIR`, the user's cache folder) cannot be found or written.
    #[error("{0}")]
    Cache(String),
    /// A build step failed or did not finish in time: the step, its status and its output.
    #[error("{} ({kind}): {reason}", path.display())]
    Build {
        path: PathBuf,
        kind: String,
        reason: String,
    },
    /// A command with no program.
    #[error("empty command")]
    EmptyCommand,
    /// A command whose program is a path that does not exist.
    #[error("`{command}`: no such program ({} does not exist)", path.display())]
    NoSuchProgram { command: String, path: PathBuf },
    /// A command whose program is not on the PATH; `hint` names the package to install when the
    /// program is a known language's tool.
    #[error("`{command}`: `{program}` is not a program on the PATH{hint}")]
    NotOnPath {
        command: String,
        program: String,
        hint: String,
    },
}

/// The manifest's file name.
pub const MANIFEST: &str = "arena.toml";
/// Where arena's own files go inside a built folder.
const ARENA_DIR: &str = ".arena";
/// The launcher, relative to the built folder.
const LAUNCHER: &str = ".arena/launch.sh";
/// Bumped when the layout of built folders changes, so old builds are not reused.
const BUILD_FORMAT: &str = "arena-submit 1";

/// How the 2014 contest servers' interpreter names map to today's programs: (name in `run.sh` or
/// `compile.sh`, the program that runs it, why). The servers ran Ubuntu 14.04.
pub const INTERPRETERS_2014: &[(&str, &str, &str)] = &[
    (
        "python",
        "python2",
        "Ubuntu 14.04's `python` was Python 2.7.6",
    ),
    ("python2.7", "python2", "Python 2.7.6"),
    ("python3.4", "python3", "the servers' Python 3 was 3.4.0"),
    ("php5", "php", "PHP 5.5.9 was packaged as `php5`"),
    ("nodejs", "node", "Ubuntu's Node.js 0.10 was `nodejs`"),
    (
        "dmcs",
        "mcs",
        "Mono 3.2.8's C# compiler for .NET 4 (the C# samples' `compile.sh`)",
    ),
    ("gmcs", "mcs", "Mono 3.2.8's C# compiler for .NET 2"),
    ("ruby1.9.1", "ruby", "Ruby 1.9.3"),
    ("ruby2.0", "ruby", "Ruby 2.0"),
];

/// The same names for contests after 2014 (`python` is Python 3 there).
pub const INTERPRETERS_MODERN: &[(&str, &str, &str)] = &[
    ("python", "python3", "Python 3 since Debian 11"),
    ("php5", "php", "PHP"),
    ("nodejs", "node", "Node.js"),
    ("dmcs", "mcs", "Mono's C# compiler"),
    ("gmcs", "mcs", "Mono's C# compiler"),
];

/// How a submission is prepared.
#[derive(Clone, Debug)]
pub struct Options {
    /// Map interpreter names as the 2014 contest servers meant them (`python` = Python 2).
    pub contest_2014: bool,
    /// Where builds are kept (default: `ARENA_CACHE_DIR`, else the user's cache folder + `arena`).
    pub cache_dir: Option<PathBuf>,
    /// The time limit of each build step (a manifest may set its own).
    pub build_timeout: Duration,
    /// The sandbox build steps run in (see [`Sandbox::for_builds`]); `None`: unconfined, with the
    /// caller's privileges (`--sandbox none`: only for submissions the caller trusts).
    pub sandbox: Option<Arc<Sandbox>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            contest_2014: false,
            cache_dir: None,
            build_timeout: Duration::from_secs(120),
            sandbox: None,
        }
    }
}

/// A submission, built and ready to be started.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// A display name: the file's stem or the folder's name.
    pub name: String,
    /// What it was taken for: "Python 3 (bot.py)", "2014 folder (compile.sh, run.sh)", ...
    pub kind: String,
    /// The built folder. Every game plays in a fresh copy of it (never in it).
    pub folder: PathBuf,
    /// The command that starts the bot, run in (a copy of) `folder`.
    pub argv: Vec<String>,
    /// The launcher's text, for error messages (what was run).
    pub launcher: String,
    /// Messages of a build that was accepted anyway (TypeScript's type errors).
    pub warnings: Vec<String>,
    /// Whether the build was taken from the cache.
    pub cached: bool,
}

/// The optional manifest, `arena.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// A language id of `arena languages`: its build and run steps, for `entry`.
    pub language: Option<String>,
    /// The entry file, for `language`.
    pub entry: Option<String>,
    /// A shell command run once per content of the folder, in the build folder.
    pub build: Option<String>,
    /// The shell command that starts the bot, in its folder.
    pub run: Option<String>,
    /// Seconds each build step may take.
    pub build_timeout: Option<u64>,
    /// Environment of the build and of the bot.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Interpreter names used by `run.sh`/`compile.sh`/`run`/`build`, and the programs they mean
    /// (on top of the built-in table).
    #[serde(default)]
    pub interpreters: BTreeMap<String, String>,
}

/// What the bot's folder holds, as far as building and starting go.
#[derive(Clone, Debug)]
struct Recipe {
    kind: String,
    /// Copy only this file of the folder (a single-file bot), or the whole folder.
    only_file: Option<PathBuf>,
    /// Build steps (argv), run in the build folder.
    build: Vec<Vec<String>>,
    lenient_output: Option<String>,
    /// Whether a lenient step's failure is one anyway when its modules cannot be found
    /// ([`layouts::ts_unresolved`]).
    modules_must_resolve: bool,
    /// A build system's program, found after the build and linked at [`layouts::PRODUCT_LINK`].
    product: Option<layouts::Product>,
    /// The launcher's body, after arena's preamble (which sets `$bot` to the folder).
    run: String,
    /// Interpreter names and the programs they run (the launcher and build steps find them first).
    shims: Vec<(String, PathBuf)>,
    env: Vec<(String, String)>,
    /// arena's files in the built folder's `.arena/` (path below it, text).
    files: Vec<(String, String)>,
    build_timeout: Duration,
}

/// Whether `text` (a `--bot` value) names a submission: an existing folder, or an existing file with
/// a recognised extension. Anything else is a command or a built-in bot's name.
pub fn is_submission(path: &Path) -> bool {
    path.is_dir() || (path.is_file() && languages::by_extension(path).is_some())
}

/// Builds (or finds in the cache) the submission at `path` and says how to start it.
pub fn prepare(path: &Path, options: &Options) -> Result<Prepared, SubmitError> {
    let path = std::fs::canonicalize(path).map_err(|source| SubmitError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bot".into());
    let recipe = recipe(&path, options).map_err(|reason| SubmitError::Unusable {
        path: path.clone(),
        reason,
    })?;
    let (folder, source) = match &recipe.only_file {
        Some(file) => (
            path.parent().unwrap_or(Path::new("/")).to_path_buf(),
            Some(file.clone()),
        ),
        None => (path.clone(), None),
    };
    let key = content_key(&recipe, &folder, source.as_deref()).map_err(SubmitError::Content)?;
    let cache = cache_root(options).map_err(SubmitError::Cache)?;
    let built = cache.join(&key);
    let launcher = launcher_text(&recipe);
    let mut prepared = Prepared {
        name,
        kind: recipe.kind.clone(),
        argv: run_argv(None),
        launcher,
        folder: built.clone(),
        warnings: Vec::new(),
        cached: true,
    };
    if built.join(ARENA_DIR).join("built").is_file() {
        write_launcher(&recipe, &built, &prepared.launcher).map_err(SubmitError::Cache)?;
        if let Ok(warnings) = std::fs::read_to_string(built.join(ARENA_DIR).join("warnings")) {
            prepared.warnings.extend(
                warnings
                    .split("\n\u{1e}\n")
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
        }
        return Ok(prepared);
    }
    prepared.cached = false;
    let scratch = cache.join(format!("{key}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    // The toolchains the recipe located (pyenv's Python 2, npm's tsc) are shown to the build.
    let sandbox = options
        .sandbox
        .as_ref()
        .map(|sandbox| sandbox.for_builds(&languages::tool_roots()));
    let result = build_into(
        &recipe,
        &folder,
        source.as_deref(),
        &scratch,
        &prepared.launcher,
        sandbox.as_ref(),
    );
    let warnings = match result {
        Ok(warnings) => warnings,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(SubmitError::Build {
                path,
                kind: recipe.kind,
                reason: e,
            });
        }
    };
    let _ = std::fs::write(
        scratch.join(ARENA_DIR).join("warnings"),
        warnings.join("\n\u{1e}\n"),
    );
    std::fs::write(scratch.join(ARENA_DIR).join("built"), BUILD_FORMAT)
        .map_err(|e| SubmitError::Cache(format!("cannot write in {}: {e}", scratch.display())))?;
    if std::fs::rename(&scratch, &built).is_err() {
        // Another arena built the same content at the same time: theirs is as good.
        let _ = std::fs::remove_dir_all(&scratch);
        if !built.join(ARENA_DIR).join("built").is_file() {
            return Err(SubmitError::Cache(format!(
                "cannot move the build to {}",
                built.display()
            )));
        }
    }
    prepared.warnings = warnings;
    Ok(prepared)
}

/// The command that starts a prepared bot: its launcher, relative to the bot's (per-game) folder, or
/// at `absolute` when the bot is started elsewhere (Coup's KotH keeps a folder per bot of its own).
/// The one place the bot's command is made.
pub fn run_argv(absolute: Option<&Path>) -> Vec<String> {
    let launcher = match absolute {
        Some(folder) => folder.join(LAUNCHER).to_string_lossy().into_owned(),
        None => LAUNCHER.to_string(),
    };
    vec!["sh".to_string(), launcher]
}

fn cache_root(options: &Options) -> Result<PathBuf, String> {
    let root = match (&options.cache_dir, std::env::var_os("ARENA_CACHE_DIR")) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => PathBuf::from(dir),
        (None, None) => dirs::cache_dir()
            .ok_or("no cache folder (set HOME, XDG_CACHE_HOME or ARENA_CACHE_DIR)")?
            .join("arena"),
    }
    .join("builds");
    std::fs::create_dir_all(&root)
        .map_err(|e| format!("cannot make the build cache {}: {e}", root.display()))?;
    Ok(root)
}

/// What a folder or file is, and how to build and start it.
fn recipe(path: &Path, options: &Options) -> Result<Recipe, String> {
    if path.is_file() {
        let language = detect(path).map_err(|e| e.to_string())?;
        return language_recipe(language, path, options, &Manifest::default());
    }
    let manifest = match std::fs::read_to_string(path.join(MANIFEST)) {
        Ok(text) => toml::from_str::<Manifest>(&text)
            .map_err(|e| format!("{}: {e}", path.join(MANIFEST).display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Manifest::default(),
        Err(e) => {
            return Err(format!(
                "cannot read {}: {e}",
                path.join(MANIFEST).display()
            ));
        }
    };
    if let Some(run) = &manifest.run {
        return manifest_recipe(path, &manifest, run, options);
    }
    if manifest.language.is_none() && path.join("run.sh").is_file() {
        return folder_2014_recipe(path, &manifest, options);
    }
    if manifest.entry.is_none()
        && manifest.language.is_none()
        && let Some(layout) = layouts::detect(path)?
    {
        return layout_recipe(layout, &manifest, options);
    }
    let entry = match &manifest.entry {
        Some(entry) => path.join(entry),
        None => entry_file(path)?,
    };
    let language = match &manifest.language {
        Some(id) => languages::language(id).ok_or_else(|| {
            let ids: Vec<&str> = LANGUAGES.iter().map(|l| l.id).collect();
            format!(
                "{MANIFEST}: unknown language `{id}` (languages: {})",
                ids.join(", ")
            )
        })?,
        None => detect(&entry).map_err(|e| e.to_string())?,
    };
    let mut recipe = language_recipe(language, &entry, options, &manifest)?;
    // A folder's other files (data, modules) come along.
    recipe.only_file = None;
    Ok(recipe)
}

/// The one recognised source file of a folder (names CodinGame and the 2014 samples use first).
fn entry_file(folder: &Path) -> Result<PathBuf, String> {
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| format!("cannot read {}: {e}", folder.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && languages::by_extension(path).is_some())
        .collect();
    candidates.sort();
    match candidates.len() {
        0 => Err(format!(
            "{} has no run.sh, no {MANIFEST} and no source file arena recognises (see `arena languages`)",
            folder.display()
        )),
        1 => Ok(candidates.remove(0)),
        _ => {
            for preferred in ["Player", "player", "main", "Main", "bot", "Bot", "SampleAI"] {
                if let Some(found) = candidates
                    .iter()
                    .find(|path| path.file_stem().is_some_and(|stem| stem == preferred))
                {
                    return Ok(found.clone());
                }
            }
            let names: Vec<String> = candidates
                .iter()
                .filter_map(|path| path.file_name())
                .map(|name| name.to_string_lossy().into_owned())
                .collect();
            Err(format!(
                "{} has several source files ({}) and none is called Player, main or bot: name the \
                 entry in {MANIFEST} (`entry = \"...\"`) or give the file itself",
                folder.display(),
                names.join(", ")
            ))
        }
    }
}

/// The language of a source file: its extension, and for `.py` its syntax (a file that Python 3
/// cannot parse and Python 2 can, or one whose first line names python2, is Python 2).
pub fn detect(path: &Path) -> Result<&'static Language, SubmitError> {
    let language = languages::by_extension(path).ok_or_else(|| SubmitError::UnknownLanguage {
        path: path.to_path_buf(),
    })?;
    if language.id != "python3" {
        return Ok(language);
    }
    // Python 3 and Python 2 are entries of the same table: one without the other is not arena.
    let Some(python2) = languages::language("python2") else {
        return Ok(language);
    };
    let text = std::fs::read(path).map_err(|source| SubmitError::ReadFile {
        path: path.to_path_buf(),
        source,
    })?;
    let first_line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    if first_line.starts_with(b"#!") && String::from_utf8_lossy(first_line).contains("python2") {
        return Ok(python2);
    }
    let parses = |python: &Path| {
        let file = path.to_string_lossy();
        languages::output_of(
            python,
            &[
                "-c",
                "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
                &file,
            ],
        )
        .is_some_and(|(ok, _)| ok)
    };
    if let Some(python3) = locate("python3")
        && !parses(&python3)
        && let Some(python2) = locate("python2")
        && parses(&python2)
    {
        return Ok(languages::language("python2").unwrap_or(language));
    }
    Ok(language)
}

/// The main class (Java) or object (Scala) of a source file, as CodinGame names it: `Player` when
/// the file has one, else the first public class or object, else the file's stem.
fn main_name(language: &Language, text: &str, stem: &str) -> String {
    let keyword = match language.id {
        "java" => "class",
        "scala" => "object",
        _ => return stem.to_string(),
    };
    let names: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|pair| pair[0] == keyword && !pair[1].is_empty())
        .map(|pair| pair[1])
        .collect();
    if names.contains(&"Player") {
        return "Player".into();
    }
    let public = format!("public {keyword} ");
    if let Some(at) = text.find(&public) {
        let name: String = text[at + public.len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            return name;
        }
    }
    names
        .first()
        .map_or_else(|| stem.to_string(), |name| name.to_string())
}

fn language_recipe(
    language: &'static Language,
    entry: &Path,
    options: &Options,
    manifest: &Manifest,
) -> Result<Recipe, String> {
    let file_name = entry
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: not a file", entry.display()))?;
    if !entry.is_file() {
        return Err(format!("{}: no such file", entry.display()));
    }
    let stem = entry
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(entry).unwrap_or_default();
    let main = main_name(language, &text, &stem);
    let fill = |word: &str| {
        word.replace("{src}", &file_name)
            .replace("{stem}", &stem)
            .replace("{main}", &main)
    };
    let mut tools: BTreeMap<&str, PathBuf> = BTreeMap::new();
    for tool in language.tools {
        let found = locate(tool.program)
            .ok_or_else(|| languages::missing_tool_message(language.name, tool))?;
        tools.insert(tool.program, found);
    }
    let program = |word: &str| match tools.get(word) {
        Some(path) => path.to_string_lossy().into_owned(),
        None => fill(word),
    };
    let build = language
        .build
        .iter()
        .map(|step| {
            step.iter()
                .enumerate()
                .map(|(i, word)| if i == 0 { program(word) } else { fill(word) })
                .collect()
        })
        .collect();
    // The bot's files are referred to from the folder the launcher is in, so that it also runs from
    // another working folder (Coup's KotH).
    let run_words: Vec<String> = language
        .run
        .iter()
        .enumerate()
        .map(|(i, word)| {
            if i == 0 && tools.contains_key(word) {
                quote(&program(word))
            } else if let Some(relative) = word.strip_prefix("./") {
                format!("\"$bot\"/{}", quote(&fill(relative)))
            } else if i > 0 && (word.contains("{src}") || word.contains("{stem}") || *word == ".") {
                format!("\"$bot\"/{}", quote(&fill(word)))
            } else {
                quote(&fill(word))
            }
        })
        .collect();
    let mut files = Vec::new();
    let mut modules_must_resolve = false;
    if matches!(language.id, "javascript" | "typescript") {
        files.push(("cg_host.js".into(), codingame_api::CG_HOST_JS.into()));
    }
    if language.id == "typescript" {
        files.push(("cg.d.ts".into(), codingame_api::CG_DECLARATIONS_TS.into()));
        modules_must_resolve = true;
    }
    Ok(Recipe {
        kind: format!("{} ({file_name})", language.name),
        only_file: Some(entry.to_path_buf()),
        build,
        lenient_output: language.lenient_output.map(fill),
        modules_must_resolve,
        product: None,
        // Arguments (Coup's history file, coins, cards and moves) go to the bot.
        run: format!("exec {} \"$@\"\n", run_words.join(" ")),
        shims: interpreter_shims(manifest, options, "")?,
        env: manifest.env.clone().into_iter().collect(),
        files,
        build_timeout: manifest
            .build_timeout
            .map_or(options.build_timeout, Duration::from_secs),
    })
}

/// A project layout's recipe, with the manifest's environment, interpreters and time limit (a
/// manifest with neither `run` nor `entry` may still set those).
fn layout_recipe(
    layout: layouts::Layout,
    manifest: &Manifest,
    options: &Options,
) -> Result<Recipe, String> {
    let mut env = layout.env;
    env.extend(manifest.env.clone());
    Ok(Recipe {
        kind: layout.kind,
        only_file: None,
        build: layout.build,
        lenient_output: layout.lenient_output,
        modules_must_resolve: layout.modules_must_resolve,
        product: layout.product,
        run: layout.run,
        shims: interpreter_shims(manifest, options, "")?,
        env,
        files: layout.files,
        build_timeout: manifest
            .build_timeout
            .map_or(options.build_timeout, Duration::from_secs),
    })
}

fn folder_2014_recipe(
    folder: &Path,
    manifest: &Manifest,
    options: &Options,
) -> Result<Recipe, String> {
    let compile = folder.join("compile.sh").is_file();
    let mut scripts = std::fs::read_to_string(folder.join("run.sh")).unwrap_or_default();
    if compile {
        scripts.push('\n');
        scripts.push_str(&std::fs::read_to_string(folder.join("compile.sh")).unwrap_or_default());
    }
    Ok(Recipe {
        kind: if compile {
            "2014 folder (compile.sh, run.sh)".into()
        } else {
            "2014 folder (run.sh)".into()
        },
        only_file: None,
        build: if compile {
            vec![vec!["sh".into(), "compile.sh".into()]]
        } else {
            Vec::new()
        },
        lenient_output: None,
        modules_must_resolve: false,
        product: None,
        run: "cd \"$bot\" || exit 127\nexec sh run.sh \"$@\"\n".into(),
        shims: interpreter_shims(manifest, options, &scripts)?,
        env: manifest.env.clone().into_iter().collect(),
        files: Vec::new(),
        build_timeout: manifest
            .build_timeout
            .map_or(options.build_timeout, Duration::from_secs),
    })
}

fn manifest_recipe(
    folder: &Path,
    manifest: &Manifest,
    run: &str,
    options: &Options,
) -> Result<Recipe, String> {
    let scripts = format!("{run}\n{}", manifest.build.as_deref().unwrap_or(""));
    Ok(Recipe {
        kind: format!(
            "{MANIFEST} of {}",
            folder
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ),
        only_file: None,
        build: manifest
            .build
            .iter()
            .map(|build| vec!["sh".into(), "-c".into(), build.clone()])
            .collect(),
        lenient_output: None,
        modules_must_resolve: false,
        product: None,
        run: format!("cd \"$bot\" || exit 127\n{run}\n"),
        shims: interpreter_shims(manifest, options, &scripts)?,
        env: manifest.env.clone().into_iter().collect(),
        files: Vec::new(),
        build_timeout: manifest
            .build_timeout
            .map_or(options.build_timeout, Duration::from_secs),
    })
}

/// The interpreter names a folder's scripts use and the programs they mean: the built-in table for
/// the contest's era, with the manifest's `interpreters` over it. A name the scripts use whose
/// program is missing is an error that says what provides it.
fn interpreter_shims(
    manifest: &Manifest,
    options: &Options,
    scripts: &str,
) -> Result<Vec<(String, PathBuf)>, String> {
    let table = if options.contest_2014 {
        INTERPRETERS_2014
    } else {
        INTERPRETERS_MODERN
    };
    let mut mapping: BTreeMap<String, (String, String)> = table
        .iter()
        .map(|(name, target, why)| (name.to_string(), (target.to_string(), why.to_string())))
        .collect();
    for (name, target) in &manifest.interpreters {
        mapping.insert(
            name.clone(),
            (target.clone(), format!("{MANIFEST} says so")),
        );
    }
    let words: std::collections::BTreeSet<&str> = scripts
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '"' | '\'')
        })
        .collect();
    let mut shims = Vec::new();
    for (name, (target, why)) in &mapping {
        // Only names the scripts use are checked; the others are mapped when present.
        let used = words.contains(name.as_str());
        match locate(target) {
            Some(path) => shims.push((name.clone(), path)),
            None if used => {
                let tool = LANGUAGES
                    .iter()
                    .flat_map(|language| language.tools.iter())
                    .find(|tool| tool.program == target.as_str());
                let provider = match tool {
                    Some(tool) => languages::missing_tool_message(&format!("`{name}`"), tool),
                    None => format!("`{name}` needs `{target}`, which is not installed"),
                };
                return Err(format!(
                    "the scripts call `{name}`, which means `{target}` here ({why}); {provider}"
                ));
            }
            None => {}
        }
    }
    // Other programs the scripts call that arena knows: say which package provides a missing one.
    for language in LANGUAGES {
        for tool in language.tools {
            if words.contains(tool.program)
                && !mapping.contains_key(tool.program)
                && locate(tool.program).is_none()
            {
                return Err(format!(
                    "the scripts call `{}`: {}",
                    tool.program,
                    languages::missing_tool_message(language.name, tool)
                ));
            }
        }
    }
    Ok(shims)
}

/// Writes the launcher and the interpreter shims into a built folder. They name the toolchains
/// found on this machine now, so a build taken from the cache gets them again: the same content
/// may have been built when another program answered for `python3` (pyenv's shim, which a
/// sandboxed bot cannot run).
fn write_launcher(recipe: &Recipe, built: &Path, launcher: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let io = |path: &Path, e: std::io::Error| format!("cannot write in {}: {e}", path.display());
    let bin = built.join(ARENA_DIR).join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| io(&bin, e))?;
    for (name, target) in &recipe.shims {
        let shim = bin.join(name);
        let text = format!(
            "#!/bin/sh\n# Written by arena: `{name}` means {}.\nexec {} \"$@\"\n",
            target.display(),
            quote(&target.to_string_lossy())
        );
        if std::fs::read_to_string(&shim).ok() != Some(text.clone()) {
            std::fs::write(&shim, text).map_err(|e| io(&shim, e))?;
        }
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io(&shim, e))?;
    }
    // Rewritten only when it changed: another arena may be copying this folder for a game.
    let path = built.join(LAUNCHER);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(launcher) {
        std::fs::write(&path, launcher).map_err(|e| io(built, e))?;
    }
    Ok(())
}

/// The launcher: finds its folder, puts the interpreter shims first on the PATH, sets the manifest's
/// environment, then starts the bot.
fn launcher_text(recipe: &Recipe) -> String {
    // `$bot` from the launcher's own path by the shell alone: the usual `$(cd "$(dirname "$0")/.."
    // && pwd)` forks twice and execs `dirname` at every start of the bot (most of a trivial
    // bot's start). Only a launcher started by another path takes that way.
    let mut text = format!(
        "# Written by arena: starts the bot ({kind}).\n\
         case $0 in\n\
         \x20 {LAUNCHER} | ./{LAUNCHER}) bot=$PWD ;;\n\
         \x20 /*/{LAUNCHER}) bot=${{0%/{LAUNCHER}}} ;;\n\
         \x20 *) bot=$(cd \"$(dirname \"$0\")/..\" && pwd) || exit 127 ;;\n\
         esac\n",
        kind = recipe.kind
    );
    if !recipe.shims.is_empty() {
        text.push_str("PATH=\"$bot/.arena/bin:$PATH\"; export PATH\n");
    }
    for (key, value) in &recipe.env {
        let _ = writeln!(text, "{}={}; export {}", key, quote(value), key);
    }
    text.push_str(&recipe.run);
    text
}

/// The content key of a submission: arena's build format, the recipe, and every file's path,
/// permissions and bytes.
fn content_key(recipe: &Recipe, folder: &Path, only: Option<&Path>) -> Result<String, String> {
    let mut hasher = Sha256::new();
    hasher.update(BUILD_FORMAT);
    // The same content gives the same build wherever it lies: the recipe without its paths.
    let placeless = Recipe {
        kind: String::new(),
        only_file: recipe
            .only_file
            .as_ref()
            .and_then(|file| file.file_name())
            .map(PathBuf::from),
        ..recipe.clone()
    };
    hasher.update(format!("{placeless:?}"));
    hasher.update(launcher_text(&placeless));
    let files = match only {
        Some(file) => vec![file.to_path_buf()],
        None => {
            let mut files = Vec::new();
            list_files(folder, &mut files)
                .map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
            files.sort();
            files
        }
    };
    for file in files {
        use std::os::unix::fs::PermissionsExt;
        let relative = file.strip_prefix(folder).unwrap_or(&file);
        let meta = std::fs::symlink_metadata(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update(meta.permissions().mode().to_le_bytes());
        if meta.file_type().is_symlink() {
            let target =
                std::fs::read_link(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            hasher.update(target.to_string_lossy().as_bytes());
        } else {
            // A contestant's file: a FIFO or device would block or never end.
            let bytes = arena_core::folders::read_untrusted(&file, u64::MAX)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
    }
    let digest = hasher.finalize();
    Ok(digest.iter().take(16).map(|b| format!("{b:02x}")).collect())
}

/// Every file below `dir` (not `.git`, not arena's own `.arena`).
fn list_files(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == ".git" || name == ARENA_DIR {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            list_files(&entry.path(), files)?;
        } else {
            files.push(entry.path());
        }
    }
    Ok(())
}

/// Copies the submission into `scratch`, writes arena's files and runs the build steps there.
fn build_into(
    recipe: &Recipe,
    folder: &Path,
    only: Option<&Path>,
    scratch: &Path,
    launcher: &str,
    sandbox: Option<&Sandbox>,
) -> Result<Vec<String>, String> {
    let io = |what: &Path, e: std::io::Error| format!("cannot write {}: {e}", what.display());
    match only {
        Some(file) => {
            std::fs::create_dir_all(scratch).map_err(|e| io(scratch, e))?;
            let name = file.file_name().ok_or("no file name")?;
            arena_core::folders::copy_file(file, &scratch.join(name))
                .map_err(|e| io(scratch, e))?;
        }
        None => {
            if let Some(parent) = scratch.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            copy_submission(folder, scratch).map_err(|e| io(scratch, e))?;
        }
    }
    let own = scratch.join(ARENA_DIR);
    let bin = own.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| io(&bin, e))?;
    for (name, text) in &recipe.files {
        let path = own.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    // The programs already there (a committed binary is not what the build makes).
    let before = recipe
        .product
        .as_ref()
        .map(|product| layouts::executables(scratch, &product.under))
        .unwrap_or_default();
    write_launcher(recipe, scratch, launcher)?;
    let mut env = recipe.env.clone();
    if !recipe.shims.is_empty() {
        let path = std::env::var("PATH").unwrap_or_default();
        env.push(("PATH".into(), format!("{}:{path}", bin.display())));
    }
    let mut warnings = Vec::new();
    // What the build says is shown to contestants: the build folder is `.`, the server's paths go.
    let public = |text: &str| redact::for_contestants(text, &[(scratch, ".")]);
    for step in &recipe.build {
        let (status, output, seconds) =
            run_step(step, scratch, &env, recipe.build_timeout, sandbox)?;
        if status.is_some_and(|s| s.success()) {
            continue;
        }
        let unresolved = recipe.modules_must_resolve && !layouts::ts_unresolved(&output).is_empty();
        let lenient = recipe
            .lenient_output
            .as_ref()
            .is_some_and(|file| status.is_some() && scratch.join(file).is_file())
            && !unresolved;
        let what = match status {
            Some(status) => format!("failed ({status}) after {seconds:.1} s"),
            None => format!(
                "did not finish within {} s (the build time limit; a manifest's `build_timeout` sets another)",
                recipe.build_timeout.as_secs()
            ),
        };
        let mut message = format!(
            "the build step `{}` {what}:\n{}",
            step.join(" "),
            output.trim_end()
        );
        if lenient {
            warnings.push(public(&message));
            continue;
        }
        if unresolved && let Some(file) = only {
            let _ = write!(
                message,
                "\n(arena: a file given alone is built alone; give its project's folder, {}, to \
                 build it with its modules)",
                layouts::project_of(file).display()
            );
        }
        return Err(public(&message));
    }
    if let Some(product) = &recipe.product {
        let program = layouts::find_product(scratch, product, &before)?;
        let link = scratch.join(layouts::PRODUCT_LINK);
        // Relative, so that it holds in every copy of the folder.
        std::os::unix::fs::symlink(Path::new("..").join(&program), &link)
            .map_err(|e| io(&link, e))?;
    }
    Ok(warnings)
}

/// Output of a build step kept for its log and messages.
const BUILD_OUTPUT_CAP: usize = 1 << 20;

/// Runs one build step in the build folder `dir`, in the sandbox when there is one, with a time
/// limit: (exit status, or `None` on a timeout; its output, also written to `.arena/build.log`;
/// seconds taken). Nothing the step started outlives it.
fn run_step(
    step: &[String],
    dir: &Path,
    env: &[(String, String)],
    limit: Duration,
    sandbox: Option<&Sandbox>,
) -> Result<(Option<std::process::ExitStatus>, String, f64), String> {
    // The step's variables go through `env`: a sandboxed process gets a clean environment.
    let mut argv = vec!["env".to_string()];
    argv.extend(env.iter().map(|(name, value)| format!("{name}={value}")));
    argv.extend(step.iter().cloned());
    let launch = Launch {
        argv: &argv,
        workdir: Some(dir),
        cpu: None,
        stdin: false,
        writable: &[],
    };
    let finished = arena_core::sandbox::run_to_end(&launch, sandbox, limit, BUILD_OUTPUT_CAP)
        .map_err(|e| format!("cannot start the build step `{}`: {e}", step.join(" ")))?;
    let mut output = String::from_utf8_lossy(&finished.output).into_owned();
    if finished.memory_exceeded {
        output.push_str(
            "\n(arena: the build step ran out of memory; the sandbox's limit for builds is ",
        );
        let memory = sandbox.and_then(|s| s.policy().limits.memory).unwrap_or(0);
        let _ = write!(output, "{} MiB)", memory >> 20);
    }
    let log_path = dir.join(ARENA_DIR).join("build.log");
    std::fs::write(&log_path, &output)
        .map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
    Ok((finished.status, output, finished.elapsed.as_secs_f64()))
}

/// A submission's folder copied: without its `.git`, every folder writable by arena.
fn copy_submission(from: &Path, to: &Path) -> std::io::Result<()> {
    arena_core::folders::copy_tree_with(
        from,
        to,
        arena_core::folders::TreeCopy {
            skip_git: true,
            owner_writable: true,
            ..Default::default()
        },
    )
}

/// Whether a command's program can be found: a path (relative to `workdir` when given) that exists,
/// or a name on the PATH. An error says what is missing.
pub fn check_program(argv: &[String], workdir: Option<&Path>) -> Result<(), SubmitError> {
    let Some(program) = argv.first() else {
        return Err(SubmitError::EmptyCommand);
    };
    if program.contains('/') {
        let path = match workdir {
            Some(dir) if !Path::new(program).is_absolute() => dir.join(program),
            _ => PathBuf::from(program),
        };
        if !path.exists() {
            return Err(SubmitError::NoSuchProgram {
                command: argv.join(" "),
                path,
            });
        }
        return Ok(());
    }
    if locate(program).is_none() {
        let hint = LANGUAGES
            .iter()
            .flat_map(|language| language.tools.iter().map(move |tool| (language, tool)))
            .find(|(_, tool)| tool.program == program.as_str())
            .map(|(language, tool)| {
                format!("; {}", languages::missing_tool_message(language.name, tool))
            })
            .unwrap_or_default();
        return Err(SubmitError::NotOnPath {
            command: argv.join(" "),
            program: program.clone(),
            hint,
        });
    }
    Ok(())
}

/// Edits (insertions, deletions, substitutions) between two names, ignoring case.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(&a.to_lowercase(), &b.to_lowercase())
}

/// The names in `known` closest to `name` (for "did you mean"), best first.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Vec<&'a str> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .iter()
        .map(|candidate| {
            let distance = edit_distance(&lower, candidate);
            // A prefix or part of the name is as good as one typo.
            let distance = if candidate.contains(&lower) || lower.contains(*candidate) {
                distance.min(1)
            } else {
                distance
            };
            (distance, *candidate)
        })
        .collect();
    scored.sort();
    let limit = (name.len() / 2).max(2);
    let near: Vec<&str> = scored
        .iter()
        .filter(|(d, _)| *d <= limit)
        .map(|(_, n)| *n)
        .collect();
    if near.is_empty() {
        scored.iter().take(3).map(|(_, n)| *n).collect()
    } else {
        near.into_iter().take(3).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::Instant;

    fn options(cache: &Path) -> Options {
        Options {
            contest_2014: true,
            cache_dir: Some(cache.to_path_buf()),
            build_timeout: Duration::from_secs(30),
            sandbox: None,
        }
    }

    #[test]
    fn a_manifest_builds_once_sets_the_environment_and_runs_its_command() {
        let root = tempfile::tempdir().unwrap();
        let bot = root.path().join("bot");
        std::fs::create_dir(&bot).unwrap();
        std::fs::write(
            bot.join(MANIFEST),
            "build = \"echo built >> out.txt\"\nrun = \"cat out.txt\"\n[env]\nGREETING = \"hello world\"\n",
        )
        .unwrap();
        let first = prepare(&bot, &options(&root.path().join("cache"))).unwrap();
        assert!(!first.cached);
        assert!(
            first
                .launcher
                .contains("GREETING='hello world'; export GREETING"),
            "{}",
            first.launcher
        );
        assert!(
            first.launcher.ends_with("cat out.txt\n"),
            "{}",
            first.launcher
        );
        assert_eq!(
            std::fs::read_to_string(first.folder.join("out.txt")).unwrap(),
            "built\n"
        );
        // The source folder is never written; the same content is not built again.
        assert!(!bot.join("out.txt").exists());
        let second = prepare(&bot, &options(&root.path().join("cache"))).unwrap();
        assert!(second.cached);
        assert_eq!(second.folder, first.folder);
        // The launcher runs the bot in a copy of the build.
        let argv = run_argv(Some(&first.folder));
        let output = Command::new(&argv[0]).args(&argv[1..]).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), "built\n");
        // The same content elsewhere is the same build.
        let elsewhere = root.path().join("elsewhere");
        copy_submission(&bot, &elsewhere).unwrap();
        let moved = prepare(&elsewhere, &options(&root.path().join("cache"))).unwrap();
        assert!(moved.cached);
        assert_eq!(moved.folder, first.folder);
        // A change is a new build.
        std::fs::write(bot.join("data.txt"), "x").unwrap();
        let third = prepare(&bot, &options(&root.path().join("cache"))).unwrap();
        assert!(!third.cached);
        assert_ne!(third.folder, first.folder);
    }

    #[test]
    fn a_build_that_takes_too_long_is_stopped_and_said_so() {
        let root = tempfile::tempdir().unwrap();
        let bot = root.path().join("slow");
        std::fs::create_dir(&bot).unwrap();
        std::fs::write(
            bot.join(MANIFEST),
            "build = \"echo compiling; sleep 30\"\nrun = \"true\"\nbuild_timeout = 1\n",
        )
        .unwrap();
        let started = Instant::now();
        let error = prepare(&bot, &options(&root.path().join("cache")))
            .unwrap_err()
            .to_string();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(error.contains("did not finish within 1 s"), "{error}");
        assert!(error.contains("compiling"), "the output so far: {error}");
    }

    #[test]
    fn a_failing_build_shows_its_whole_output() {
        let root = tempfile::tempdir().unwrap();
        let bot = root.path().join("broken");
        std::fs::create_dir(&bot).unwrap();
        std::fs::write(bot.join("run.sh"), "./bot\n").unwrap();
        let lines: String = (0..200).map(|i| format!("echo line {i}\n")).collect();
        std::fs::write(bot.join("compile.sh"), format!("{lines}exit 3\n")).unwrap();
        let error = prepare(&bot, &options(&root.path().join("cache")))
            .unwrap_err()
            .to_string();
        assert!(error.contains("exit status: 3"), "{error}");
        assert!(
            error.contains("line 0\n") && error.contains("line 199"),
            "{error}"
        );
        assert!(error.contains("2014 folder"), "{error}");
    }

    #[test]
    fn interpreter_names_map_as_the_2014_servers_meant_them_and_a_manifest_overrides() {
        let root = tempfile::tempdir().unwrap();
        let bot = root.path().join("sample");
        std::fs::create_dir(&bot).unwrap();
        std::fs::write(bot.join("run.sh"), "nodejs bot.js\n").unwrap();
        std::fs::write(bot.join("bot.js"), "console.log('hi')\n").unwrap();
        let prepared = prepare(&bot, &options(&root.path().join("cache"))).unwrap();
        let shim = std::fs::read_to_string(prepared.folder.join(".arena/bin/nodejs"));
        match locate("node") {
            Some(node) => assert!(shim.unwrap().contains(&*node.to_string_lossy())),
            None => assert!(shim.is_err()),
        }
        // A name the scripts use whose program is missing is an error that says what it means.
        std::fs::write(bot.join("run.sh"), "frobnicate bot.js\n").unwrap();
        std::fs::write(
            bot.join(MANIFEST),
            "[interpreters]\nfrobnicate = \"no-such-interpreter-anywhere\"\n",
        )
        .unwrap();
        let error = prepare(&bot, &options(&root.path().join("cache")))
            .unwrap_err()
            .to_string();
        assert!(error.contains("`frobnicate`"), "{error}");
        assert!(error.contains("no-such-interpreter-anywhere"), "{error}");
        assert!(error.contains(MANIFEST), "{error}");
    }

    #[test]
    fn python_2_files_are_told_from_python_3_ones() {
        let root = tempfile::tempdir().unwrap();
        let two = root.path().join("two.py");
        std::fs::write(&two, "print \"READY\"\n").unwrap();
        let three = root.path().join("three.py");
        std::fs::write(&three, "print('READY', flush=True)\n").unwrap();
        assert_eq!(detect(&three).unwrap().id, "python3");
        let expected = if locate("python2").is_some() {
            "python2"
        } else {
            "python3"
        };
        assert_eq!(detect(&two).unwrap().id, expected);
        let shebang = root.path().join("bang.py");
        std::fs::write(&shebang, "#!/usr/bin/env python2\nprint('x')\n").unwrap();
        assert_eq!(detect(&shebang).unwrap().id, "python2");
    }

    #[test]
    fn a_folder_with_several_sources_needs_an_entry() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.py"), "").unwrap();
        std::fs::write(root.path().join("b.py"), "").unwrap();
        let error = entry_file(root.path()).unwrap_err();
        assert!(error.contains("entry = "), "{error}");
        std::fs::write(root.path().join("main.py"), "").unwrap();
        assert!(entry_file(root.path()).unwrap().ends_with("main.py"));
    }

    #[test]
    fn main_classes_are_found_as_codingame_names_them() {
        let java = languages::language("java").unwrap();
        assert_eq!(
            main_name(java, "import x;\nclass Player {\n}", "bot"),
            "Player"
        );
        assert_eq!(
            main_name(java, "public class Solution { }", "bot"),
            "Solution"
        );
        assert_eq!(
            main_name(java, "class Helper {} class Main {}", "bot"),
            "Helper"
        );
        let scala = languages::language("scala").unwrap();
        assert_eq!(
            main_name(scala, "object Player extends App {}", "x"),
            "Player"
        );
    }

    #[test]
    fn closest_names_come_first() {
        let known = ["greedy", "random", "planner", "calculator"];
        assert_eq!(closest("gredy", &known)[0], "greedy");
        assert_eq!(closest("rand", &known)[0], "random");
        assert!(!closest("zzzzzzzzzz", &known).is_empty());
    }

    #[test]
    fn quoting_keeps_words_whole() {
        assert_eq!(quote("bot.py"), "bot.py");
        assert_eq!(quote("my bot.py"), "'my bot.py'");
        assert_eq!(quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn a_missing_program_is_named() {
        let error = check_program(&["./no-such-bot".into()], None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("no such program"), "{error}");
        let error = check_program(&["no-such-program-anywhere".into()], None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a program on the PATH"), "{error}");
        assert!(check_program(&["sh".into(), "x".into()], None).is_ok());
    }

    #[test]
    fn command_lines_of_every_language_are_built_from_the_table() {
        // Whether or not the toolchain is installed: installed ones give a recipe whose launcher runs
        // the tools by full path; missing ones name their Debian package.
        let dir = tempfile::tempdir().unwrap();
        for language in LANGUAGES {
            let file = dir
                .path()
                .join(format!("Player.{}", language.extensions[0]));
            std::fs::write(&file, "class Player {}\nobject Player\n").unwrap();
            match language_recipe(language, &file, &Options::default(), &Manifest::default()) {
                Ok(recipe) => {
                    assert!(recipe.run.starts_with("exec "), "{}", recipe.run);
                    for step in &recipe.build {
                        assert!(step[0].starts_with('/'), "{}: {:?}", language.id, step);
                        assert!(step.iter().any(|w| w.contains("Player")), "{step:?}");
                    }
                }
                Err(message) => {
                    let tool = language
                        .tools
                        .iter()
                        .find(|tool| locate(tool.program).is_none())
                        .expect("a missing tool");
                    assert!(message.contains(tool.package), "{message}");
                }
            }
        }
    }
}

//! The languages a single source file may be written in, how each is built and started (the way
//! CodinGame does, with Debian's toolchains), and which Debian package provides each tool.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A program a language needs, and where it comes from.
#[derive(Clone, Copy, Debug)]
pub struct Tool {
    pub program: &'static str,
    /// The Debian package that provides it (or how to get it when Debian has none).
    pub package: &'static str,
    /// Arguments that make it print its version.
    pub version_args: &'static [&'static str],
}

/// One language of single-file bots.
///
/// In `build` and `run`, `{src}` is the source file's name, `{stem}` the name without extension and
/// `{main}` the main class (Java: `Player` when the file has one, as on CodinGame; Scala: the object).
/// The first word of every step is one of `tools`, replaced by its full path when the bot is built.
/// `run` is relative to the bot's folder, which is the working directory of the bot.
#[derive(Clone, Copy, Debug)]
pub struct Language {
    pub id: &'static str,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub build: &'static [&'static [&'static str]],
    pub run: &'static [&'static str],
    pub tools: &'static [Tool],
    /// A build whose step fails but leaves this file is accepted, its messages kept as warnings
    /// (TypeScript: type errors do not stop CodinGame's bots from running).
    pub lenient_output: Option<&'static str>,
}

const fn tool(
    program: &'static str,
    package: &'static str,
    version_args: &'static [&'static str],
) -> Tool {
    Tool {
        program,
        package,
        version_args,
    }
}

const GCC: Tool = tool("gcc", "gcc", &["--version"]);
const GXX: Tool = tool("g++", "g++", &["--version"]);
const JAVAC: Tool = tool("javac", "openjdk-17-jdk-headless", &["-version"]);
const JAVA: Tool = tool("java", "openjdk-17-jre-headless", &["-version"]);
const NODE: Tool = tool("node", "nodejs", &["--version"]);
pub(crate) const PYTHON2_TOOL: Tool = tool(
    "python2",
    "no Debian 12 package: install Python 2.7 with pyenv (`pyenv install 2.7.18`) or set ARENA_PYTHON2",
    &["--version"],
);
const PYTHON3: Tool = tool("python3", "python3", &["--version"]);

/// Every language of single-file bots, in the order `arena languages` lists them.
pub const LANGUAGES: &[Language] = &[
    Language {
        id: "c",
        name: "C",
        extensions: &["c"],
        build: &[&["gcc", "-std=gnu17", "-O2", "-o", "bot", "{src}", "-lm"]],
        run: &["./bot"],
        tools: &[GCC],
        lenient_output: None,
    },
    Language {
        id: "cpp",
        name: "C++",
        extensions: &["cpp", "cc", "cxx", "c++"],
        build: &[&["g++", "-std=gnu++17", "-O2", "-o", "bot", "{src}"]],
        run: &["./bot"],
        tools: &[GXX],
        lenient_output: None,
    },
    Language {
        id: "csharp",
        name: "C#",
        extensions: &["cs"],
        build: &[&["mcs", "-out:bot.exe", "{src}"]],
        run: &["mono", "./bot.exe"],
        tools: &[
            tool("mcs", "mono-mcs", &["--version"]),
            tool("mono", "mono-runtime", &["--version"]),
        ],
        lenient_output: None,
    },
    Language {
        id: "go",
        name: "Go",
        extensions: &["go"],
        build: &[&["go", "build", "-o", "bot", "{src}"]],
        run: &["./bot"],
        tools: &[tool("go", "golang-go", &["version"])],
        lenient_output: None,
    },
    Language {
        id: "java",
        name: "Java",
        extensions: &["java"],
        build: &[&["javac", "-encoding", "UTF-8", "-d", ".", "{src}"]],
        run: &["java", "-cp", ".", "{main}"],
        tools: &[JAVAC, JAVA],
        lenient_output: None,
    },
    Language {
        id: "javascript",
        name: "JavaScript (Node.js, with CodinGame's readline/print/printErr)",
        extensions: &["js", "mjs", "cjs"],
        build: &[],
        run: &["node", "--require", "./.arena/cg_host.js", "{src}"],
        tools: &[NODE],
        lenient_output: None,
    },
    Language {
        id: "typescript",
        name: "TypeScript (tsc, then Node.js with CodinGame's readline/print/printErr)",
        extensions: &["ts"],
        build: &[&[
            "tsc",
            "--target",
            "es2019",
            "--module",
            "commonjs",
            "--skipLibCheck",
            "--rootDir",
            ".",
            "--outDir",
            ".arena/ts",
            ".arena/cg.d.ts",
            "{src}",
        ]],
        run: &[
            "node",
            "--require",
            "./.arena/cg_host.js",
            ".arena/ts/{stem}.js",
        ],
        tools: &[tool("tsc", "node-typescript", &["--version"]), NODE],
        lenient_output: Some(".arena/ts/{stem}.js"),
    },
    Language {
        id: "kotlin",
        name: "Kotlin",
        extensions: &["kt"],
        build: &[&["kotlinc", "{src}", "-include-runtime", "-d", "bot.jar"]],
        run: &["java", "-jar", "./bot.jar"],
        tools: &[tool("kotlinc", "kotlin", &["-version"]), JAVA],
        lenient_output: None,
    },
    Language {
        id: "php",
        name: "PHP",
        extensions: &["php"],
        build: &[],
        run: &["php", "{src}"],
        tools: &[tool("php", "php-cli", &["--version"])],
        lenient_output: None,
    },
    Language {
        id: "python3",
        name: "Python 3 (unbuffered)",
        extensions: &["py", "py3"],
        build: &[],
        run: &["python3", "-u", "{src}"],
        tools: &[PYTHON3],
        lenient_output: None,
    },
    Language {
        id: "python2",
        name: "Python 2 (unbuffered; a .py file only Python 2 can parse, or #!...python2)",
        extensions: &["py2"],
        build: &[],
        run: &["python2", "-u", "{src}"],
        tools: &[PYTHON2_TOOL],
        lenient_output: None,
    },
    Language {
        id: "ruby",
        name: "Ruby",
        extensions: &["rb"],
        build: &[],
        run: &["ruby", "{src}"],
        tools: &[tool("ruby", "ruby", &["--version"])],
        lenient_output: None,
    },
    Language {
        id: "rust",
        name: "Rust",
        extensions: &["rs"],
        build: &[&["rustc", "--edition", "2021", "-O", "-o", "bot", "{src}"]],
        run: &["./bot"],
        tools: &[tool("rustc", "rustc", &["--version"])],
        lenient_output: None,
    },
    Language {
        id: "scala",
        name: "Scala",
        extensions: &["scala"],
        build: &[&["scalac", "-d", ".", "{src}"]],
        run: &["scala", "-cp", ".", "{main}"],
        tools: &[
            tool("scalac", "scala", &["-version"]),
            tool("scala", "scala", &["-version"]),
        ],
        lenient_output: None,
    },
    Language {
        id: "haskell",
        name: "Haskell",
        extensions: &["hs"],
        build: &[&["ghc", "-O2", "-o", "bot", "{src}"]],
        run: &["./bot"],
        tools: &[tool("ghc", "ghc", &["--version"])],
        lenient_output: None,
    },
    Language {
        id: "ocaml",
        name: "OCaml",
        extensions: &["ml"],
        build: &[&[
            "ocamlfind",
            "ocamlopt",
            "-package",
            "str,unix",
            "-linkpkg",
            "-o",
            "bot",
            "{src}",
        ]],
        run: &["./bot"],
        tools: &[tool(
            "ocamlfind",
            "ocaml-findlib",
            &["ocamlopt", "-version"],
        )],
        lenient_output: None,
    },
    Language {
        id: "perl",
        name: "Perl",
        extensions: &["pl"],
        build: &[],
        run: &["perl", "{src}"],
        tools: &[tool("perl", "perl", &["--version"])],
        lenient_output: None,
    },
];

/// The language with this id.
pub fn language(id: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|language| language.id == id)
}

/// The language a file's extension names (`.py` is Python 3 here; see `detect` for Python 2).
pub fn by_extension(path: &Path) -> Option<&'static Language> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|language| language.extensions.contains(&extension.as_str()))
}

/// The tool a language step names (the first word of a step), if it is one of the language's.
#[cfg(test)]
pub(crate) fn tool_of(language: &Language, program: &str) -> Option<Tool> {
    language
        .tools
        .iter()
        .copied()
        .find(|tool| tool.program == program)
}

/// Where a program is: `ARENA_PYTHON2` or a working `python2` for Python 2 (pyenv's shims answer
/// for versions that are not selected, so each candidate is tried), the `PATH` otherwise.
///
/// A real program is preferred to a version manager's shim (pyenv's `shims/python3` is a script
/// that reads the user's home and configuration, which a sandboxed bot cannot see). Every program
/// found outside the system's folders has its installation noted (see [`tool_roots`]).
///
/// Found once per process, and Python 2 once per toolchain (see [`python2_located`]): trying
/// pyenv's shims costs about a second, which every run with a Python bot paid twice.
pub fn locate(program: &str) -> Option<PathBuf> {
    // What the answer depends on besides the program's name.
    let key = (
        program.to_string(),
        std::env::var_os("PATH"),
        std::env::var_os("ARENA_PYTHON2"),
        std::env::var_os("PYENV_ROOT"),
    );
    if let Some(found) = LOCATED
        .lock()
        .ok()
        .and_then(|found| found.get(&key).cloned())
    {
        return found;
    }
    let found = if program == "python2" {
        python2_located()
    } else if program.contains('/') {
        let path = PathBuf::from(program);
        is_executable(&path).then_some(path)
    } else {
        let candidates = on_path(program);
        candidates
            .iter()
            .find(|path| !is_shim(path))
            .or(candidates.first())
            .map(|path| through_rustup(program, path))
    };
    if let Some(path) = &found {
        note_tool_root(path);
    }
    if let Ok(mut located) = LOCATED.lock() {
        located.insert(key, found.clone());
    }
    found
}

/// The programs [`locate`] found in this process, by name and the environment it looked in.
type LocateKey = (
    String,
    Option<std::ffi::OsString>,
    Option<std::ffi::OsString>,
    Option<std::ffi::OsString>,
);
static LOCATED: std::sync::Mutex<std::collections::BTreeMap<LocateKey, Option<PathBuf>>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// A working Python 2: the first candidate that runs, remembered in the user's cache folder
/// (`toolchains.json`) with the size and modification time of every candidate, so that a later
/// run only reads the candidates' metadata. Installing, removing or replacing any candidate (a new
/// pyenv version, another `ARENA_PYTHON2`) changes that list, and the candidates are tried again.
fn python2_located() -> Option<PathBuf> {
    let mut candidates = python2_candidates();
    let mut seen = std::collections::BTreeSet::new();
    candidates.retain(|candidate| seen.insert(candidate.clone()));
    let fingerprint: Vec<String> = candidates.iter().map(|c| file_fingerprint(c)).collect();
    // Runs with and without ARENA_PYTHON2 keep their own answers.
    let name = match std::env::var_os("ARENA_PYTHON2") {
        Some(given) => format!("python2 (ARENA_PYTHON2={})", given.to_string_lossy()),
        None => "python2".to_string(),
    };
    let cache = toolchain_cache_file();
    if let Some(cache) = &cache
        && let Some(found) = read_toolchain_cache(cache, &name, &fingerprint)
    {
        return found;
    }
    let found = candidates
        .into_iter()
        .find(|candidate| runs(candidate, &["-c", "pass"]));
    if let Some(cache) = &cache {
        write_toolchain_cache(cache, &name, &fingerprint, found.as_deref());
    }
    found
}

/// A file as a toolchain cache compares it: its path, size and modification time (`-` when missing).
fn file_fingerprint(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(meta) => {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {} {modified}", path.display(), meta.len())
        }
        Err(_) => format!("{} -", path.display()),
    }
}

/// `toolchains.json` in arena's cache folder (`ARENA_CACHE_DIR`, else the user's cache + `arena`).
fn toolchain_cache_file() -> Option<PathBuf> {
    let root = match std::env::var_os("ARENA_CACHE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => dirs::cache_dir()?.join("arena"),
    };
    Some(root.join("toolchains.json"))
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
struct CachedTool {
    /// The candidates' fingerprints when they were tried.
    candidates: Vec<String>,
    found: Option<PathBuf>,
    /// For a tool's check in the sandbox ([`toolchain_in`]): its version line there, or why it
    /// does not run there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    checked: Option<Result<String, String>>,
}

/// What the cache says of `program`, when its candidates are the same files as then.
fn read_toolchain_cache(
    cache: &Path,
    program: &str,
    fingerprint: &[String],
) -> Option<Option<PathBuf>> {
    let tool = read_cached(cache, program)?;
    (tool.candidates == fingerprint).then_some(tool.found)
}

/// One entry of the cache file.
fn read_cached(cache: &Path, program: &str) -> Option<CachedTool> {
    let text = std::fs::read(cache).ok()?;
    let mut tools: std::collections::BTreeMap<String, CachedTool> =
        serde_json::from_slice(&text).ok()?;
    tools.remove(program)
}

/// Records what was found (best effort: a cache that cannot be written only costs the next run the
/// search). Written to a temporary file and renamed, so that runs at the same time never read half
/// a file.
fn write_toolchain_cache(
    cache: &Path,
    program: &str,
    fingerprint: &[String],
    found: Option<&Path>,
) {
    let entry = CachedTool {
        candidates: fingerprint.to_vec(),
        found: found.map(Path::to_path_buf),
        checked: None,
    };
    write_cached(cache, program, entry);
}

/// Records one entry of the cache file (see [`write_toolchain_cache`]).
fn write_cached(cache: &Path, program: &str, entry: CachedTool) {
    let mut tools: std::collections::BTreeMap<String, CachedTool> = std::fs::read(cache)
        .ok()
        .and_then(|text| serde_json::from_slice(&text).ok())
        .unwrap_or_default();
    tools.insert(program.to_string(), entry);
    let Some(dir) = cache.parent() else { return };
    let Ok(text) = serde_json::to_vec_pretty(&tools) else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(mut file) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    if std::io::Write::write_all(&mut file, &text).is_ok() {
        let _ = file.persist(cache);
    }
}

/// The toolchain's own program behind a rustup proxy (`~/.cargo/bin/cargo` is rustup itself, which
/// reads the user's home folder and `RUSTUP_HOME`, neither of which a sandboxed build sees).
fn through_rustup(program: &str, path: &Path) -> PathBuf {
    let proxy = std::fs::canonicalize(path)
        .ok()
        .filter(|real| real.file_name().is_some_and(|name| name == "rustup"));
    let Some(rustup) = proxy else {
        return path.to_path_buf();
    };
    output_of(&rustup, &["which", program])
        .filter(|(ok, _)| *ok)
        .and_then(|(_, text)| {
            text.lines()
                .map(str::trim)
                .rfind(|line| line.starts_with('/'))
                .map(PathBuf::from)
        })
        .filter(|real| is_executable(real))
        .unwrap_or_else(|| path.to_path_buf())
}

fn is_shim(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == "shims")
}

/// Installations of the programs [`locate`] found outside the system's folders.
static TOOL_ROOTS: std::sync::Mutex<std::collections::BTreeSet<PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Folders outside the system's that hold the toolchains found so far (pyenv's Python 2 under the
/// home folder, say): a sandbox shows them read-only, or the bots' launchers could not start them.
pub fn tool_roots() -> Vec<PathBuf> {
    TOOL_ROOTS
        .lock()
        .map(|roots| roots.iter().cloned().collect())
        .unwrap_or_default()
}

fn note_tool_root(program: &Path) {
    let Ok(real) = std::fs::canonicalize(program) else {
        return;
    };
    let system = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"]
        .iter()
        .any(|dir| real.starts_with(dir));
    if system {
        return;
    }
    // `PREFIX/bin/program`: the whole prefix (a Python needs its `lib/` too).
    let Some(dir) = real.parent() else {
        return;
    };
    let root = match dir.file_name() {
        Some(name) if name == "bin" => dir.parent().unwrap_or(dir),
        _ => dir,
    };
    if let Ok(mut roots) = TOOL_ROOTS.lock() {
        roots.insert(root.to_path_buf());
    }
}

fn on_path(program: &str) -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .filter(|candidate| is_executable(candidate))
        .collect()
}

/// Where a Python 2 may be, most likely first: `ARENA_PYTHON2`, real programs on the `PATH`, pyenv's
/// 2.x versions (newest first), and version managers' shims last (each one costs a cascade of
/// scripts, and fails when the selected version is a 3.x).
fn python2_candidates() -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(given) = std::env::var_os("ARENA_PYTHON2") {
        candidates.push(PathBuf::from(given));
    }
    let (shims, programs): (Vec<PathBuf>, Vec<PathBuf>) = on_path("python2")
        .into_iter()
        .chain(on_path("python2.7"))
        .partition(|path| is_shim(path));
    candidates.extend(programs);
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|home| home.join(".pyenv")));
    if let Some(versions) = pyenv_root.map(|root| root.join("versions"))
        && let Ok(entries) = std::fs::read_dir(versions)
    {
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with("2."))
            .map(|entry| entry.path().join("bin").join("python2"))
            .filter(|candidate| is_executable(candidate))
            .collect();
        // The newest 2.x first.
        found.sort();
        found.reverse();
        candidates.extend(found);
    }
    candidates.extend(shims);
    candidates
}

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Whether `program args` runs and exits 0 within a few seconds.
fn runs(program: &Path, args: &[&str]) -> bool {
    output_of(program, args).is_some_and(|(ok, _)| ok)
}

/// Runs a short query (a version, a syntax check) with a time limit: (exited 0, stdout + stderr).
pub(crate) fn output_of(program: &Path, args: &[&str]) -> Option<(bool, String)> {
    let file = tempfile_for_output()?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(file.try_clone().ok()?)
        .stderr(file.try_clone().ok()?)
        .spawn()
        .ok()?;
    let until = Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut text = String::new();
    use std::io::{Read, Seek};
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    Some((status.success(), text))
}

/// An anonymous file for a child's output (no pipe to drain while waiting with a time limit).
fn tempfile_for_output() -> Option<std::fs::File> {
    let dir = std::env::temp_dir();
    for n in 0..100u32 {
        let path = dir.join(format!("arena-query-{}-{n}", std::process::id()));
        if let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            let _ = std::fs::remove_file(&path);
            return Some(file);
        }
    }
    None
}

/// One line of `arena languages`: the language and each tool's version, or how to install it.
#[derive(Clone, Debug)]
pub struct ToolStatus {
    pub program: &'static str,
    pub package: &'static str,
    /// The first line of the version output, `None` when the tool is missing.
    pub version: Option<String>,
    /// Why the tool, found, does not run in the builds' sandbox (checked by [`toolchain_in`]).
    pub sandbox_problem: Option<String>,
}

/// Every tool of `language`, found or not, with its version.
pub fn toolchain(language: &Language) -> Vec<ToolStatus> {
    language
        .tools
        .iter()
        .map(|tool| ToolStatus {
            program: tool.program,
            package: tool.package,
            version: locate(tool.program).map(|path| {
                output_of(&path, tool.version_args)
                    .and_then(|(_, text)| first_line(&text))
                    .unwrap_or_else(|| format!("{} (version unknown)", path.display()))
            }),
            sandbox_problem: None,
        })
        .collect()
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_string)
}

/// [`toolchain`] as a build sees it: each tool found is asked its version inside `sandbox` widened
/// for builds ([`Sandbox::for_builds`](arena_core::sandbox::Sandbox::for_builds), with the
/// toolchains found), so that what is reported is what builds; a tool that does not run there
/// says why. The answer is kept in `toolchains.json` with the program's fingerprint (its path,
/// size and modification time, and those of the file a link leads to), so a later run reads only
/// metadata, as for Python 2.
pub fn toolchain_in(
    language: &Language,
    sandbox: &arena_core::sandbox::Sandbox,
) -> Vec<ToolStatus> {
    let cache = toolchain_cache_file();
    let builds = std::cell::OnceCell::new();
    language
        .tools
        .iter()
        .map(|tool| {
            let Some(path) = locate(tool.program) else {
                return ToolStatus {
                    program: tool.program,
                    package: tool.package,
                    version: None,
                    sandbox_problem: None,
                };
            };
            let mut fingerprint = vec![file_fingerprint(&path)];
            if let Ok(real) = std::fs::canonicalize(&path) {
                fingerprint.push(file_fingerprint(&real));
            }
            let name = format!("sandboxed {} {}", tool.program, tool.version_args.join(" "));
            let cached = cache
                .as_deref()
                .and_then(|cache| read_cached(cache, &name))
                .filter(|entry| entry.candidates == fingerprint)
                .and_then(|entry| entry.checked);
            let checked = cached.unwrap_or_else(|| {
                let sandbox = builds.get_or_init(|| sandbox.for_builds(&tool_roots()));
                let checked = version_in(&path, tool.version_args, sandbox);
                if let Some(cache) = &cache {
                    let entry = CachedTool {
                        candidates: fingerprint,
                        found: Some(path.clone()),
                        checked: Some(checked.clone()),
                    };
                    write_cached(cache, &name, entry);
                }
                checked
            });
            let (version, sandbox_problem) = match checked {
                Ok(version) => (version, None),
                Err(why) => (format!("{} (found)", path.display()), Some(why)),
            };
            ToolStatus {
                program: tool.program,
                package: tool.package,
                version: Some(version),
                sandbox_problem,
            }
        })
        .collect()
}

/// The first line `program args` prints in `sandbox`, or why it did not run there.
fn version_in(
    program: &Path,
    args: &[&str],
    sandbox: &arena_core::sandbox::Sandbox,
) -> Result<String, String> {
    let mut argv = vec![program.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|arg| arg.to_string()));
    let launch = arena_core::sandbox::Launch {
        argv: &argv,
        workdir: None,
        cpu: None,
        stdin: false,
        writable: &[],
    };
    let finished =
        arena_core::sandbox::run_to_end(&launch, Some(sandbox), Duration::from_secs(20), 64 << 10)
            .map_err(|e| format!("cannot start it in the sandbox: {e}"))?;
    let text = String::from_utf8_lossy(&finished.output);
    match finished.status {
        Some(status) if status.success() => {
            Ok(first_line(&text)
                .unwrap_or_else(|| format!("{} (version unknown)", program.display())))
        }
        Some(status) => Err(format!(
            "in the sandbox it failed ({status}): {}",
            text.lines().last().unwrap_or("").trim()
        )),
        None => Err("in the sandbox it did not answer within 20 s".to_string()),
    }
}

/// A shell word that stays one word.
pub(crate) fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The message for a missing tool: which package provides it.
pub fn missing_tool_message(language: &str, tool: &Tool) -> String {
    if tool.package.contains(' ') {
        format!(
            "{language} needs `{}`, which is not installed ({})",
            tool.program, tool.package
        )
    } else {
        format!(
            "{language} needs `{}`, which is not installed: it is in Debian's package `{}` \
             (`apt-get install {}`)",
            tool.program, tool.package, tool.package
        )
    }
}

#[cfg(test)]
mod tests {

    /// A toolchain found once is read back while its candidates are the same files, and looked
    /// for again once one of them changes (a new install, a replaced program).
    #[test]
    fn the_toolchain_cache_holds_until_a_candidate_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache").join("toolchains.json");
        let program = dir.path().join("python2");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        let shim = dir.path().join("shim");
        let fingerprint = |paths: &[&Path]| -> Vec<String> {
            paths.iter().map(|p| file_fingerprint(p)).collect()
        };
        let before = fingerprint(&[&program, &shim]);
        assert_eq!(read_toolchain_cache(&cache, "python2", &before), None);
        write_toolchain_cache(&cache, "python2", &before, Some(&program));
        write_toolchain_cache(&cache, "other", &before, None);
        assert_eq!(
            read_toolchain_cache(&cache, "python2", &before),
            Some(Some(program.clone()))
        );
        assert_eq!(read_toolchain_cache(&cache, "other", &before), Some(None));
        // The shim appears (a new install): looked for again.
        std::fs::write(&shim, "#!/bin/sh\n").unwrap();
        assert_eq!(
            read_toolchain_cache(&cache, "python2", &fingerprint(&[&program, &shim])),
            None
        );
        // The program is replaced by another of another size.
        std::fs::write(&program, "#!/bin/sh\nexit 0\n").unwrap();
        assert_ne!(fingerprint(&[&program]), before[..1].to_vec());
        // A torn or foreign file is no answer, and is replaced.
        std::fs::write(&cache, "{not json").unwrap();
        assert_eq!(read_toolchain_cache(&cache, "python2", &before), None);
        write_toolchain_cache(&cache, "python2", &before, None);
        assert_eq!(read_toolchain_cache(&cache, "python2", &before), Some(None));
    }

    use super::*;

    #[test]
    fn every_extension_names_one_language() {
        let mut seen = std::collections::HashSet::new();
        for language in LANGUAGES {
            for extension in language.extensions {
                assert!(seen.insert(*extension), "{extension} twice");
            }
            // Every step starts with one of the language's tools, or the built program.
            for step in language.build {
                assert!(
                    tool_of(language, step[0]).is_some(),
                    "{}: {}",
                    language.id,
                    step[0]
                );
            }
            assert!(
                language.run[0].starts_with("./") || tool_of(language, language.run[0]).is_some(),
                "{}",
                language.id
            );
        }
    }

    #[test]
    fn the_languages_the_issue_names_are_all_there() {
        for id in [
            "c",
            "cpp",
            "csharp",
            "go",
            "java",
            "javascript",
            "typescript",
            "kotlin",
            "php",
            "python3",
            "ruby",
            "rust",
            "scala",
            "haskell",
            "ocaml",
            "perl",
            "python2",
        ] {
            assert!(language(id).is_some(), "{id}");
        }
        assert_eq!(
            by_extension(Path::new("a/Player.java")).map(|l| l.id),
            Some("java")
        );
        assert_eq!(
            by_extension(Path::new("bot.CPP")).map(|l| l.id),
            Some("cpp")
        );
        assert_eq!(by_extension(Path::new("bot.txt")).map(|l| l.id), None);
    }

    #[test]
    fn a_missing_tool_names_its_package() {
        let csharp = language("csharp").unwrap();
        let message = missing_tool_message(csharp.name, &csharp.tools[0]);
        assert!(message.contains("apt-get install mono-mcs"), "{message}");
        let message = missing_tool_message("Python 2", &PYTHON2_TOOL);
        assert!(message.contains("pyenv"), "{message}");
    }
}

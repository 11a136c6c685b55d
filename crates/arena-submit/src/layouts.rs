//! Bots in their languages' own project layouts, recognised with no manifest: a Cargo crate, a
//! CMake or Makefile project, a TypeScript (or JavaScript) npm project, a C or C++ folder of
//! several translation units with headers in subfolders, and a Java source tree in packages.
//!
//! Each layout says how it is built (argv steps whose first word is the tool's full path) and
//! how it is started (the launcher's body, with `$bot` the built folder). Build systems whose
//! product is known only after the build (CMake, Make) name a [`Product`] that arena finds in the
//! built folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::languages::{self, Language, Tool, locate, missing_tool_message, quote};

/// How a project layout is built and started.
#[derive(Clone, Debug)]
pub struct Layout {
    /// What it was taken for: "Cargo crate (Cargo.toml, bin `bot`)".
    pub kind: String,
    /// Build steps, run in the build folder.
    pub build: Vec<Vec<String>>,
    /// Environment of the build steps.
    pub env: Vec<(String, String)>,
    /// The launcher's body.
    pub run: String,
    /// arena's files written into the built folder's `.arena/` (path below it, text).
    pub files: Vec<(String, String)>,
    /// A failed build that leaves this file is accepted with warnings (TypeScript's type errors)...
    pub lenient_output: Option<String>,
    /// ...unless its output says modules cannot be found ([`ts_unresolved`]).
    pub modules_must_resolve: bool,
    /// The program to find after the build, linked at [`PRODUCT_LINK`].
    pub product: Option<Product>,
}

/// Where the launcher of a build system's project finds the program the build made.
pub const PRODUCT_LINK: &str = ".arena/bot";

/// The program a build makes, found after it: a new executable file, preferably one of `names`.
#[derive(Clone, Debug, PartialEq)]
pub struct Product {
    /// Names the project's build file gives its programs (CMake's `add_executable`, Make's targets).
    pub names: Vec<String>,
    /// Where to look (relative to the built folder; `.` for all of it).
    pub under: String,
}

/// TypeScript compiler messages that mean a module or file was not found.
const TS_UNRESOLVED: &[&str] = &[
    "error TS2307", // Cannot find module
    "error TS2792", // Cannot find module (with a moduleResolution hint)
    "error TS6053", // File not found
    "error TS6231", // Could not resolve the path
];

/// Node.js's own modules: tsc cannot find them without `@types/node`, Node.js always does.
const NODE_BUILTINS: &[&str] = &[
    "assert",
    "buffer",
    "child_process",
    "crypto",
    "events",
    "fs",
    "os",
    "path",
    "perf_hooks",
    "process",
    "readline",
    "stream",
    "string_decoder",
    "timers",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "worker_threads",
    "zlib",
];

/// The lines of tsc's output that say a module or file of the bot was not found: the bot would
/// crash at its first `require`, so the build fails with the compiler's output (type errors
/// alone do not stop CodinGame's bots from running). Node.js's own modules are found at run time.
pub fn ts_unresolved(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|line| TS_UNRESOLVED.iter().any(|code| line.contains(code)))
        .filter(|line| {
            let module = line.split('\'').nth(1).unwrap_or("");
            let module = module.strip_prefix("node:").unwrap_or(module);
            !NODE_BUILTINS.contains(&module)
        })
        .collect()
}

const CMAKE: Tool = Tool {
    program: "cmake",
    package: "cmake",
    version_args: &["--version"],
};
const MAKE: Tool = Tool {
    program: "make",
    package: "make",
    version_args: &["--version"],
};
const CARGO: Tool = Tool {
    program: "cargo",
    package: "cargo",
    version_args: &["--version"],
};

/// Folders a source search does not enter: version control, arena's and build systems' outputs,
/// installed dependencies.
fn skipped(name: &str) -> bool {
    name.starts_with('.')
        || matches!(name, "node_modules" | "target" | "build" | "CMakeFiles")
        || name.starts_with("cmake-build-")
}

/// Every file below `folder` (relative paths, sorted), outside [`skipped`] folders.
fn files_below(folder: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    if !skipped(&name) {
                        walk(root, &path, out);
                    }
                }
                Ok(_) => {
                    if let Ok(relative) = path.strip_prefix(root) {
                        out.push(relative.to_path_buf());
                    }
                }
                Err(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(folder, folder, &mut out);
    out.sort();
    out
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e.to_ascii_lowercase().as_str()))
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn relative_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// A tool's full path, or the message naming what provides it.
fn tool_path(language: &str, tool: &Tool) -> Result<String, String> {
    locate(tool.program)
        .map(|path| path.to_string_lossy().into_owned())
        .ok_or_else(|| missing_tool_message(language, tool))
}

fn table(id: &str) -> Result<&'static Language, String> {
    languages::language(id).ok_or_else(|| format!("arena has no language `{id}`"))
}

/// The project layout of `folder`, if it has one arena builds with no manifest. `Err` says why a
/// recognised layout cannot be built (a missing tool, no entry file, no main class).
pub fn detect(folder: &Path) -> Result<Option<Layout>, String> {
    if folder.join("Cargo.toml").is_file() {
        return cargo(folder).map(Some);
    }
    let files = files_below(folder);
    // The languages of the recognised sources at the top: a Python bot with a Makefile for its
    // tests, or with a stray C helper, stays a Python bot.
    let top: Vec<&'static str> = files
        .iter()
        .filter(|path| path.components().count() == 1)
        .filter_map(|path| languages::by_extension(path))
        .map(|language| language.id)
        .collect();
    let only = |ids: &[&str]| top.iter().all(|found| ids.contains(found));
    if only(&["c", "cpp"]) {
        if folder.join("CMakeLists.txt").is_file() {
            return cmake(folder).map(Some);
        }
        if let Some(makefile) = ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .find(|name| folder.join(name).is_file())
        {
            return make(folder, makefile).map(Some);
        }
    }
    if folder.join("package.json").is_file() || folder.join("tsconfig.json").is_file() {
        return node_project(folder).map(Some);
    }
    for id in ["cpp", "c"] {
        if only(&[id])
            && let Some(layout) = c_tree(folder, &files, table(id)?)?
        {
            return Ok(Some(layout));
        }
    }
    if only(&["java"])
        && let Some(layout) = java_tree(folder, &files)?
    {
        return Ok(Some(layout));
    }
    Ok(None)
}

/// A Cargo crate: `cargo build --release --offline` (dependencies vendored through the crate's
/// `.cargo/config.toml`), run as `target/release/NAME`.
fn cargo(folder: &Path) -> Result<Layout, String> {
    let manifest_path = folder.join("Cargo.toml");
    let manifest: toml::Value = toml::from_str(&text(&manifest_path))
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let bins: Vec<String> = manifest
        .get("bin")
        .and_then(toml::Value::as_array)
        .map(|bins| {
            bins.iter()
                .filter_map(|bin| bin.get("name")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let package = manifest
        .get("package")
        .and_then(|package| package.get("name"))
        .and_then(toml::Value::as_str)
        .map(str::to_string);
    let name = match (bins.as_slice(), package) {
        ([one], _) => one.clone(),
        ([], Some(package)) => package,
        ([], None) => {
            return Err(format!(
                "{}: no [package] name and no [[bin]]: which program is the bot?",
                manifest_path.display()
            ));
        }
        (several, _) => several
            .iter()
            .find(|name| matches!(name.as_str(), "bot" | "main" | "player" | "Player"))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "{}: several [[bin]] ({}) and none is called bot, main or player: name the bot's \
                     run command in arena.toml (`run = \"./target/release/NAME\"`)",
                    manifest_path.display(),
                    several.join(", ")
                )
            })?,
    };
    let cargo = tool_path("Rust (Cargo)", &CARGO)?;
    let rustc = tool_path(
        "Rust (Cargo)",
        &Tool {
            program: "rustc",
            package: "rustc",
            version_args: &["--version"],
        },
    )?;
    Ok(Layout {
        kind: format!("Cargo crate (Cargo.toml, bin `{name}`)"),
        build: vec![vec![
            cargo,
            "build".into(),
            "--release".into(),
            "--offline".into(),
            "--bin".into(),
            name.clone(),
        ]],
        // The toolchain's own rustc (a sandboxed build has no rustup), the crate's own target
        // folder whatever the caller's environment says.
        env: vec![
            ("RUSTC".into(), rustc),
            ("CARGO_TARGET_DIR".into(), "target".into()),
        ],
        run: format!("exec \"$bot\"/target/release/{} \"$@\"\n", quote(&name)),
        files: Vec::new(),
        lenient_output: None,
        modules_must_resolve: false,
        product: None,
    })
}

/// The words after each `keyword(` of a CMake file (`add_executable(bot main.cpp)` → `bot`).
fn cmake_calls<'a>(text: &'a str, keyword: &str) -> Vec<&'a str> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find(keyword) {
        let start = from + at + keyword.len();
        from = start;
        let rest = text[start..].trim_start();
        let Some(rest) = rest.strip_prefix('(') else {
            continue;
        };
        let word = rest
            .trim_start()
            .split(|c: char| c.is_whitespace() || c == ')')
            .next()
            .unwrap_or("");
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// A CMake project: configured in `.arena/cmake` (Release), built there; the bot is the program
/// of its `add_executable`, or the one new program.
fn cmake(folder: &Path) -> Result<Layout, String> {
    let cmake = tool_path("A CMake project", &CMAKE)?;
    // CMake's default generator is Make's.
    tool_path("A CMake project", &MAKE)?;
    let lists = text(&folder.join("CMakeLists.txt"));
    let project = cmake_calls(&lists, "project")
        .first()
        .map(|s| s.to_string());
    let names = cmake_calls(&lists, "add_executable")
        .into_iter()
        .map(|name| match &project {
            Some(project) => name.replace("${PROJECT_NAME}", project),
            None => name.to_string(),
        })
        .collect();
    Ok(Layout {
        kind: "CMake project (CMakeLists.txt)".into(),
        build: vec![
            vec![
                cmake.clone(),
                "-S".into(),
                ".".into(),
                "-B".into(),
                ".arena/cmake".into(),
                "-DCMAKE_BUILD_TYPE=Release".into(),
            ],
            vec![
                cmake,
                "--build".into(),
                ".arena/cmake".into(),
                "--parallel".into(),
                "2".into(),
            ],
        ],
        env: Vec::new(),
        run: format!("exec \"$bot\"/{PRODUCT_LINK} \"$@\"\n"),
        files: Vec::new(),
        lenient_output: None,
        modules_must_resolve: false,
        product: Some(Product {
            names,
            under: ".arena/cmake".into(),
        }),
    })
}

/// A Makefile project: `make`; the bot is the new program, preferably one the Makefile names as a
/// target.
fn make(folder: &Path, makefile: &str) -> Result<Layout, String> {
    let make = tool_path("A Makefile project", &MAKE)?;
    let names = text(&folder.join(makefile))
        .lines()
        .filter(|line| !line.starts_with(['\t', ' ', '.', '#']))
        .filter_map(|line| {
            let (targets, rest) = line.split_once(':')?;
            // `NAME = value` and `NAME := value` are variables, not rules.
            (!targets.contains('=') && !rest.starts_with('=')).then_some(targets)
        })
        .flat_map(str::split_whitespace)
        .map(str::to_string)
        .collect();
    Ok(Layout {
        kind: format!("Makefile project ({makefile})"),
        build: vec![vec![make]],
        env: Vec::new(),
        run: format!("exec \"$bot\"/{PRODUCT_LINK} \"$@\"\n"),
        files: Vec::new(),
        lenient_output: None,
        modules_must_resolve: false,
        product: Some(Product {
            names,
            under: ".".into(),
        }),
    })
}

/// Executable files below `folder` (relative paths), outside arena's own folder.
pub fn executables(folder: &Path, under: &str) -> BTreeSet<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    let name = entry.file_name();
                    if name != ".git" && name != "CMakeFiles" {
                        walk(root, &path, out);
                    }
                }
                Ok(kind) if kind.is_file() && languages::is_executable(&path) => {
                    if let Ok(relative) = path.strip_prefix(root) {
                        out.insert(relative.to_path_buf());
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(folder, &folder.join(under), &mut out);
    out.retain(|path| !path.starts_with(".arena/bin") && !path.starts_with(".arena/launch.sh"));
    // Scripts are not what a C or C++ build makes.
    // Only the first four bytes, of a regular file: the build made these files.
    out.retain(|path| {
        let mut magic = [0u8; 4];
        arena_core::folders::open_untrusted(&folder.join(path))
            .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic))
            .is_ok_and(|()| &magic == b"\x7fELF")
    });
    out
}

/// The program a build made: among the executables that were not there before the build (or all
/// of them when the build made none new), the first the build file names, else the only one, else
/// the one called bot, main or player.
pub fn find_product(
    folder: &Path,
    product: &Product,
    before: &BTreeSet<PathBuf>,
) -> Result<PathBuf, String> {
    let all = executables(folder, &product.under);
    let new: Vec<&PathBuf> = all.iter().filter(|path| !before.contains(*path)).collect();
    let candidates = if new.is_empty() {
        all.iter().collect()
    } else {
        new
    };
    let named = |names: &[&str]| -> Vec<&PathBuf> {
        candidates
            .iter()
            .copied()
            .filter(|path| {
                path.file_name()
                    .is_some_and(|name| names.contains(&&*name.to_string_lossy()))
            })
            .collect()
    };
    // The first program the build file names (CMake's first `add_executable`, Make's first
    // target: its default goal) that the build made.
    for name in &product.names {
        if let [one] = named(&[name.as_str()]).as_slice() {
            return Ok((*one).clone());
        }
    }
    for found in [
        candidates.clone(),
        named(&["bot", "main", "player", "Player"]),
    ] {
        if let [one] = found.as_slice() {
            return Ok((*one).clone());
        }
    }
    if candidates.is_empty() {
        return Err(
            "the build made no program: arena runs the executable file it makes (or name the \
             bot's command in arena.toml: `run = \"./PROGRAM\"`)"
                .into(),
        );
    }
    let names: Vec<String> = candidates.iter().map(|p| relative_text(p)).collect();
    Err(format!(
        "the build made several programs ({}) and none is the one the build file names or is \
         called bot, main or player: name the bot's command in arena.toml (`run = \"./PROGRAM\"`)",
        names.join(", ")
    ))
}

/// The few keys of a `tsconfig.json` arena reads. tsconfig files allow comments and trailing
/// commas, which JSON does not: they are removed first (a file that still does not parse is taken
/// as saying nothing).
fn tsconfig_dirs(folder: &Path) -> (Option<String>, Option<String>) {
    let Ok(raw) = std::fs::read_to_string(folder.join("tsconfig.json")) else {
        return (None, None);
    };
    let mut clean = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            clean.push(c);
            if c == '\\' {
                clean.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                clean.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
            }
            _ => clean.push(c),
        }
    }
    // Trailing commas: `,` followed by `}` or `]`.
    let mut json = String::with_capacity(clean.len());
    let chars: Vec<char> = clean.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == ','
            && chars[i + 1..]
                .iter()
                .find(|c| !c.is_whitespace())
                .is_some_and(|c| *c == '}' || *c == ']')
        {
            continue;
        }
        json.push(*c);
    }
    let Ok(config) = serde_json::from_str::<serde_json::Value>(&json) else {
        return (None, None);
    };
    let option = |key: &str| {
        config["compilerOptions"][key].as_str().map(|dir| {
            dir.trim_start_matches("./")
                .trim_end_matches('/')
                .to_string()
        })
    };
    (option("outDir"), option("rootDir"))
}

/// The folder of the npm project a source file belongs to: the nearest one above it with a
/// `package.json` or `tsconfig.json`, else the file's own folder.
pub fn project_of(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("/"));
    parent
        .ancestors()
        .take(4)
        .find(|dir| dir.join("package.json").is_file() || dir.join("tsconfig.json").is_file())
        .unwrap_or(parent)
        .to_path_buf()
}

/// The TypeScript source of an npm project's entry: `package.json`'s `main` (its `.ts` source when
/// it names the compiled `.js`, mapping the tsconfig's `outDir` back to its `rootDir` or `src`),
/// else `index.ts`, `main.ts` (at the top or in `src/`); or a JavaScript entry (`main` itself,
/// `index.js`) when the project has no TypeScript.
fn node_entry(folder: &Path) -> Result<(PathBuf, bool), String> {
    let package: serde_json::Value = std::fs::read_to_string(folder.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let main = package["main"]
        .as_str()
        .map(|main| main.trim_start_matches("./").to_string());
    let mut typescript: Vec<String> = Vec::new();
    let mut javascript: Vec<String> = Vec::new();
    if let Some(main) = &main {
        let stem = main
            .strip_suffix(".js")
            .or_else(|| main.strip_suffix(".mjs"))
            .or_else(|| main.strip_suffix(".cjs"))
            .or_else(|| main.strip_suffix(".ts"))
            .unwrap_or(main);
        typescript.push(format!("{stem}.ts"));
        let (out_dir, root_dir) = tsconfig_dirs(folder);
        for out in out_dir
            .iter()
            .map(String::as_str)
            .chain(["dist", "build", "out", "lib"])
        {
            if let Some(rest) = stem.strip_prefix(&format!("{out}/")) {
                for root in root_dir.iter().map(String::as_str).chain(["src", ""]) {
                    let root = if root.is_empty() || root == "." {
                        String::new()
                    } else {
                        format!("{root}/")
                    };
                    typescript.push(format!("{root}{rest}.ts"));
                }
            }
        }
        javascript.push(main.clone());
    }
    for name in ["index.ts", "src/index.ts", "main.ts", "src/main.ts"] {
        typescript.push(name.into());
    }
    for name in ["index.js", "src/index.js", "main.js"] {
        javascript.push(name.into());
    }
    if let Some(found) = typescript.iter().find(|name| folder.join(name).is_file()) {
        return Ok((PathBuf::from(found), true));
    }
    let has_typescript = files_below(folder)
        .iter()
        .any(|path| has_extension(path, &["ts"]) && !path.to_string_lossy().ends_with(".d.ts"));
    if !has_typescript
        && let Some(found) = javascript.iter().find(|name| folder.join(name).is_file())
    {
        return Ok((PathBuf::from(found), false));
    }
    Err(format!(
        "{} is an npm project whose entry arena cannot find: it looked for {}{}; set `main` in \
         package.json",
        folder.display(),
        typescript.join(", "),
        if has_typescript {
            String::new()
        } else {
            format!(", {}", javascript.join(", "))
        }
    ))
}

/// An npm project (package.json, tsconfig.json): TypeScript compiled by tsc from the entry, which
/// brings every module it imports (with the project's own tsconfig.json as the base, module
/// format CommonJS for Node.js), then run by Node.js with CodinGame's readline/print; JavaScript
/// run as it is. Modules in `node_modules` are found as Node.js finds them.
fn node_project(folder: &Path) -> Result<Layout, String> {
    let (entry, is_typescript) = node_entry(folder)?;
    let javascript = table("javascript")?;
    let node = tool_path(javascript.name, &javascript.tools[0])?;
    let entry_text = relative_text(&entry);
    let mut files = vec![(
        "cg_host.js".to_string(),
        crate::codingame_api::CG_HOST_JS.to_string(),
    )];
    if !is_typescript {
        return Ok(Layout {
            kind: format!("JavaScript project (package.json, {entry_text})"),
            build: Vec::new(),
            env: Vec::new(),
            run: format!(
                "exec {} --require \"$bot\"/.arena/cg_host.js \"$bot\"/{} \"$@\"\n",
                quote(&node),
                quote(&entry_text)
            ),
            files,
            lenient_output: None,
            modules_must_resolve: false,
            product: None,
        });
    }
    let typescript = table("typescript")?;
    let tsc = tool_path(typescript.name, &typescript.tools[0])?;
    let base = folder.join("tsconfig.json").is_file();
    let mut config = serde_json::json!({
        "compilerOptions": {
            "module": "commonjs",
            "moduleResolution": "node",
            "outDir": "ts",
            "rootDir": "..",
            "skipLibCheck": true,
            "noEmit": false,
            "noEmitOnError": false,
            "declaration": false,
            "composite": false,
            "incremental": false,
            "sourceMap": false,
        },
        "files": ["cg.d.ts", format!("../{entry_text}")],
    });
    if base {
        config["extends"] = "../tsconfig.json".into();
    } else {
        config["compilerOptions"]["target"] = "es2019".into();
    }
    files.push((
        "cg.d.ts".into(),
        crate::codingame_api::CG_DECLARATIONS_TS.into(),
    ));
    files.push((
        "tsconfig.json".into(),
        serde_json::to_string_pretty(&config).unwrap_or_default(),
    ));
    // The compiled files and arena's host are CommonJS, whatever `type` the project's
    // package.json says.
    files.push(("package.json".into(), "{\"type\": \"commonjs\"}\n".into()));
    let compiled = format!(".arena/ts/{}", relative_text(&entry.with_extension("js")));
    Ok(Layout {
        kind: format!("TypeScript project ({}, {entry_text})", {
            let marks: Vec<&str> = ["package.json", "tsconfig.json"]
                .into_iter()
                .filter(|name| folder.join(name).is_file())
                .collect();
            marks.join(", ")
        }),
        build: vec![vec![tsc, "-p".into(), ".arena/tsconfig.json".into()]],
        env: Vec::new(),
        run: format!(
            "exec {} --require \"$bot\"/.arena/cg_host.js \"$bot\"/{} \"$@\"\n",
            quote(&node),
            quote(&compiled)
        ),
        files,
        lenient_output: Some(compiled),
        modules_must_resolve: true,
        product: None,
    })
}

/// Whether a C or C++ source defines `main` (`int main(`, `int main (`, ...).
fn defines_main(text: &str) -> bool {
    ["int main", "void main", "auto main", "signed main"]
        .iter()
        .any(|head| {
            text.match_indices(head)
                .any(|(at, _)| text[at + head.len()..].trim_start().starts_with('('))
        })
}

/// A C or C++ folder of several translation units, or with sources or headers in subfolders: every
/// translation unit compiled together (but other files with their own `main`: older versions,
/// tests), `-I` for every folder with headers. `None` for a single source file at the top (the
/// language's own recipe).
fn c_tree(
    folder: &Path,
    files: &[PathBuf],
    language: &'static Language,
) -> Result<Option<Layout>, String> {
    let headers_ext: &[&str] = &["h", "hpp", "hh", "hxx", "h++", "inl", "ipp", "tpp"];
    // A source another one `#include`s (CodinGame bots often paste files that way) is not a
    // translation unit of its own: compiled twice, its definitions would clash.
    let included: BTreeSet<String> = files
        .iter()
        .filter(|path| has_extension(path, language.extensions) || has_extension(path, headers_ext))
        .flat_map(|path| {
            text(&folder.join(path))
                .lines()
                .filter_map(|line| {
                    let rest = line.trim_start().strip_prefix('#')?.trim_start();
                    let name = rest.strip_prefix("include")?.trim().strip_prefix('"')?;
                    let name = name.split('"').next()?;
                    Path::new(name)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let units: Vec<&PathBuf> = files
        .iter()
        .filter(|path| has_extension(path, language.extensions))
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|name| included.contains(&*name.to_string_lossy()))
        })
        .collect();
    let headers: Vec<&PathBuf> = files
        .iter()
        .filter(|path| has_extension(path, headers_ext))
        .collect();
    let nested = |path: &&PathBuf| path.components().count() > 1;
    let all_sources = files
        .iter()
        .filter(|path| has_extension(path, language.extensions))
        .count();
    // One file at the top with its headers beside it: the language's own recipe, as ever.
    if units.is_empty()
        || (all_sources == 1 && !units.iter().any(nested) && !headers.iter().any(nested))
    {
        return Ok(None);
    }
    let mains: Vec<&PathBuf> = units
        .iter()
        .copied()
        .filter(|path| defines_main(&text(&folder.join(path))))
        .collect();
    let main = match mains.as_slice() {
        [] => None,
        [one] => Some(*one),
        several => {
            let preferred = ["Player", "player", "main", "Main", "bot", "Bot"];
            let found = preferred.iter().find_map(|name| {
                several
                    .iter()
                    .find(|path| path.file_stem().is_some_and(|stem| stem == *name))
            });
            match found {
                Some(found) => Some(*found),
                None => {
                    let names: Vec<String> = several.iter().map(|p| relative_text(p)).collect();
                    return Err(format!(
                        "{} has several {} files with a main ({}) and none is called Player, main \
                         or bot: name the entry in arena.toml (`entry = \"...\"`)",
                        folder.display(),
                        language.name,
                        names.join(", ")
                    ));
                }
            }
        }
    };
    let sources: Vec<String> = units
        .iter()
        .filter(|path| !mains.contains(path) || Some(**path) == main)
        .map(|path| relative_text(path))
        .collect();
    let mut include: BTreeSet<String> = BTreeSet::new();
    include.insert(".".into());
    for header in &headers {
        if let Some(parent) = header.parent().filter(|p| !p.as_os_str().is_empty()) {
            include.insert(relative_text(parent));
        }
    }
    let tool = tool_path(language.name, &language.tools[0])?;
    // The language's own step, with every translation unit for `{src}` and the header folders.
    let step = language.build.first().ok_or("no build step")?;
    let mut argv = vec![tool];
    for word in &step[1..] {
        if *word == "{src}" {
            argv.extend(include.iter().map(|dir| format!("-I{dir}")));
            argv.extend(sources.iter().cloned());
        } else {
            argv.push(word.to_string());
        }
    }
    Ok(Some(Layout {
        kind: format!(
            "{} folder ({} translation unit{}, main in {})",
            language.name,
            sources.len(),
            if sources.len() == 1 { "" } else { "s" },
            main.map_or("none".into(), |m| relative_text(m))
        ),
        build: vec![argv],
        env: Vec::new(),
        run: "exec \"$bot\"/bot \"$@\"\n".into(),
        files: Vec::new(),
        lenient_output: None,
        modules_must_resolve: false,
        product: None,
    }))
}

/// The `package a.b;` of a Java source, if any.
fn java_package(text: &str) -> Option<String> {
    text.lines().map(str::trim).find_map(|line| {
        let rest = line.strip_prefix("package ")?;
        Some(rest.trim_end_matches(';').trim().to_string())
    })
}

/// A Java source tree with packages in subfolders (no Maven, no Gradle): every `.java` file
/// compiled together into `.arena/classes`; the main class is the one with
/// `public static void main`, `Player` preferred, with its package. `None` when every source is
/// at the top (the language's own recipe: javac finds the others there).
fn java_tree(folder: &Path, files: &[PathBuf]) -> Result<Option<Layout>, String> {
    let sources: Vec<&PathBuf> = files
        .iter()
        .filter(|path| has_extension(path, &["java"]))
        .collect();
    if !sources.iter().any(|path| path.components().count() > 1) {
        return Ok(None);
    }
    let mains: Vec<(&PathBuf, String)> = sources
        .iter()
        .filter_map(|path| {
            let source = text(&folder.join(path));
            let compact: String = source.split_whitespace().collect::<Vec<_>>().join(" ");
            compact.contains("static void main(").then(|| {
                let class = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let full = match java_package(&source) {
                    Some(package) => format!("{package}.{class}"),
                    None => class,
                };
                (*path, full)
            })
        })
        .collect();
    let main = match mains.as_slice() {
        [] => {
            return Err(format!(
                "{}: no Java class has `public static void main`",
                folder.display()
            ));
        }
        [(_, one)] => one.clone(),
        several => several
            .iter()
            .find(|(path, _)| path.file_stem().is_some_and(|s| s == "Player"))
            .map(|(_, class)| class.clone())
            .ok_or_else(|| {
                let names: Vec<&str> = several.iter().map(|(_, c)| c.as_str()).collect();
                format!(
                    "{} has several main classes ({}) and none is Player: name the run command \
                     in arena.toml",
                    folder.display(),
                    names.join(", ")
                )
            })?,
    };
    let java = table("java")?;
    let javac = tool_path(java.name, &java.tools[0])?;
    let runtime = tool_path(java.name, &java.tools[1])?;
    let mut argv = vec![
        javac,
        "-encoding".into(),
        "UTF-8".into(),
        "-d".into(),
        ".arena/classes".into(),
    ];
    argv.extend(sources.iter().map(|path| relative_text(path)));
    Ok(Some(Layout {
        kind: format!(
            "Java source tree ({} files, main class {main})",
            sources.len()
        ),
        build: vec![argv],
        env: Vec::new(),
        run: format!(
            "exec {} -cp \"$bot\"/.arena/classes {} \"$@\"\n",
            quote(&runtime),
            quote(&main)
        ),
        files: Vec::new(),
        lenient_output: None,
        modules_must_resolve: false,
        product: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_modules_node_cannot_find_fail_a_typescript_build() {
        let output = "src/index.ts(1,23): error TS2307: Cannot find module './strategy' or its corresponding type declarations.\nsrc/index.ts(2,27): error TS2307: Cannot find module 'readline' or its corresponding type declarations.\nsrc/index.ts(3,1): error TS2322: Type 'string' is not assignable to type 'number'.\n";
        assert_eq!(ts_unresolved(output).len(), 1);
        assert!(ts_unresolved(output)[0].contains("./strategy"));
    }

    #[test]
    fn build_files_name_their_programs() {
        let lists = "cmake_minimum_required(VERSION 3.10)\nproject(spring)\nadd_executable(${PROJECT_NAME} src/main.cpp)\nADD_EXECUTABLE( tool x.cpp)\n";
        assert_eq!(cmake_calls(lists, "project"), vec!["spring"]);
        assert_eq!(
            cmake_calls(lists, "add_executable"),
            vec!["${PROJECT_NAME}", "tool"]
        );
    }

    #[test]
    fn the_program_a_build_made_is_the_one_its_file_names_or_the_only_new_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let program = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, b"\x7fELF...").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        program("old");
        // A script is not a build's program.
        std::fs::write(dir.path().join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            dir.path().join("run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let before = executables(dir.path(), ".");
        assert_eq!(before.len(), 1);
        let product = |names: &[&str]| Product {
            names: names.iter().map(|n| n.to_string()).collect(),
            under: ".".into(),
        };
        // Nothing new: the one there.
        assert_eq!(
            find_product(dir.path(), &product(&[]), &before).unwrap(),
            PathBuf::from("old")
        );
        program("fresh");
        assert_eq!(
            find_product(dir.path(), &product(&["all", "clean"]), &before).unwrap(),
            PathBuf::from("fresh")
        );
        program("selftest");
        let error = find_product(dir.path(), &product(&[]), &before).unwrap_err();
        assert!(error.contains("fresh, selftest"), "{error}");
        assert_eq!(
            find_product(dir.path(), &product(&["fresh", "selftest"]), &before).unwrap(),
            PathBuf::from("fresh")
        );
    }

    #[test]
    fn a_c_plus_plus_folder_compiles_its_units_but_included_ones_and_other_mains() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "Player.cpp",
            "#include \"pasted.cpp\"\n#include \"grid.hpp\"\nint main() {}\n",
        );
        write("pasted.cpp", "int helper() { return 1; }\n");
        write("old.cpp", "int main() { return 0; }\n");
        write("engine/grid.cpp", "#include \"grid.hpp\"\n");
        write("engine/grid.hpp", "#pragma once\n");
        let files = files_below(dir.path());
        let cpp = table("cpp").unwrap();
        match c_tree(dir.path(), &files, cpp) {
            Ok(Some(layout)) => {
                let step = &layout.build[0];
                assert!(step.contains(&"-Iengine".to_string()), "{step:?}");
                assert!(step.contains(&"Player.cpp".to_string()), "{step:?}");
                assert!(step.contains(&"engine/grid.cpp".to_string()), "{step:?}");
                assert!(!step.contains(&"pasted.cpp".to_string()), "{step:?}");
                assert!(!step.contains(&"old.cpp".to_string()), "{step:?}");
                assert_eq!(
                    layout.kind,
                    "C++ folder (2 translation units, main in Player.cpp)"
                );
            }
            Ok(None) => panic!("not taken for a C++ folder"),
            // No g++ here: the message names its package.
            Err(message) => assert!(message.contains("g++"), "{message}"),
        }
    }

    #[test]
    fn a_makefile_beside_another_languages_bot_is_not_its_build() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "print(1)\n").unwrap();
        std::fs::write(dir.path().join("Makefile"), "test:\n\tpytest\n").unwrap();
        assert!(detect(dir.path()).unwrap().is_none());
    }

    #[test]
    fn an_npm_project_without_typescript_runs_its_main() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), "{\"main\": \"./app.js\"}").unwrap();
        std::fs::write(dir.path().join("app.js"), "").unwrap();
        std::fs::write(dir.path().join("helper.js"), "").unwrap();
        assert_eq!(
            node_entry(dir.path()).unwrap(),
            (PathBuf::from("app.js"), false)
        );
        // With TypeScript beside it, the compiled bundle is not the entry: its source is.
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/index.ts"), "").unwrap();
        std::fs::write(dir.path().join("package.json"), "{\"main\": \"index.js\"}").unwrap();
        std::fs::write(dir.path().join("index.js"), "").unwrap();
        assert_eq!(
            node_entry(dir.path()).unwrap(),
            (PathBuf::from("src/index.ts"), true)
        );
    }

    #[test]
    fn mains_are_told_from_other_sources() {
        assert!(defines_main("int main() {}"));
        assert!(defines_main("int main (int argc, char** argv) {}"));
        assert!(!defines_main("int domain(int x);\nint mainly = 3;"));
    }

    #[test]
    fn a_tsconfig_with_comments_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tsconfig.json"),
            "{\n  // built\n  \"compilerOptions\": { \"outDir\": \"./dist/\", /* src */ \"rootDir\": \"src\", },\n}\n",
        )
        .unwrap();
        assert_eq!(
            tsconfig_dirs(dir.path()),
            (Some("dist".into()), Some("src".into()))
        );
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/index.ts"), "").unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            "{\"main\": \"dist/index.js\"}",
        )
        .unwrap();
        assert_eq!(
            node_entry(dir.path()).unwrap(),
            (PathBuf::from("src/index.ts"), true)
        );
    }
}

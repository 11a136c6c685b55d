//! The workspace's structure, checked on its sources: no two files of one crate import each other
//! (directly or round a longer circle), and what must exist once exists once.
//!
//! A file's imports are the `crate::a::b` and `super::x` paths it names outside its unit tests
//! (doc-comment links count: they tie the modules as much as a `use` does).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's module path in its crate (`sandbox::pool`; `lib.rs`/`main.rs` is the empty path).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The identifier-path words after each occurrence of `prefix` (`crate::` → `a::b::c`).
fn paths_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c}`: each item's first word.
            let end = group.find('}').unwrap_or(group.len());
            out.extend(
                group[..end]
                    .split(',')
                    .map(|item| item.trim().split("::").next().unwrap_or("").trim()),
            );
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        out.push(rest[..end].trim_end_matches(':'));
    }
    out
}

/// The modules of one crate each module names.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeMap<String, &PathBuf> =
        files.iter().map(|f| (module_of(src, f), f)).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).expect("readable source");
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let mut named = BTreeSet::new();
        for path in paths_after(text, "crate::") {
            let parts: Vec<&str> = path.split("::").collect();
            if let Some(found) = (1..=parts.len())
                .rev()
                .map(|n| parts[..n].join("::"))
                .find(|m| modules.contains_key(m))
            {
                named.insert(found);
            }
        }
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        for word in paths_after(text, "super::") {
            let first = word.split("::").next().unwrap_or("");
            let sibling = if parent.is_empty() {
                first.to_string()
            } else {
                format!("{parent}::{first}")
            };
            if modules.contains_key(&sibling) {
                named.insert(sibling);
            }
        }
        named.remove(module);
        named.remove("");
        graph.insert(module.clone(), named);
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, v: &'a str) {
        walk.index.insert(v, walk.next);
        walk.low.insert(v, walk.next);
        walk.next += 1;
        walk.stack.push(v);
        for w in &walk.graph[v] {
            let w = w.as_str();
            if !walk.index.contains_key(w) {
                visit(walk, w);
                let low = walk.low[v].min(walk.low[w]);
                walk.low.insert(v, low);
            } else if walk.stack.contains(&w) {
                let low = walk.low[v].min(walk.index[w]);
                walk.low.insert(v, low);
            }
        }
        if walk.low[v] == walk.index[v] {
            let mut component = Vec::new();
            while let Some(w) = walk.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                walk.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    walk.found
}

fn crates() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(workspace().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.path().join("src"),
            )
        })
        .filter(|(_, src)| src.is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let mut found = Vec::new();
    for (name, src) in crates() {
        for circle in circles(&imports(&src)) {
            found.push(format!("{name}: {}", circle.join(" ↔ ")));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The checker finds a circle where there is one (so that the test above can fail).
#[test]
fn the_checker_sees_a_circle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("sandbox")).expect("dir");
    std::fs::write(src.join("lib.rs"), "mod a; mod sandbox;").expect("lib");
    std::fs::write(src.join("a.rs"), "use crate::sandbox::pool::Pool;").expect("a");
    std::fs::write(src.join("sandbox/mod.rs"), "pub mod pool;").expect("mod");
    std::fs::write(src.join("sandbox/pool.rs"), "use crate::{a, b};").expect("pool");
    assert_eq!(
        circles(&imports(src)),
        vec![vec!["a".to_string(), "sandbox::pool".to_string()]]
    );
    std::fs::write(src.join("sandbox/pool.rs"), "/// Not `xcrate::a`.").expect("pool");
    assert!(circles(&imports(src)).is_empty());
}

/// Things that must exist once in the workspace are defined once.
#[test]
fn one_of_each_thing() {
    for definition in [
        "fn copy_tree(",
        "struct MatchOptions",
        "struct RunRules",
        "fn find_game(",
    ] {
        let mut files = Vec::new();
        for (_, src) in crates() {
            let mut all = Vec::new();
            sources(&src, &mut all);
            for file in all {
                let text = std::fs::read_to_string(&file).expect("source");
                if text.contains(&format!("pub {definition}"))
                    || text.contains(&format!("pub(crate) {definition}"))
                    || text.lines().any(|l| l.trim_start().starts_with(definition))
                {
                    files.push(file.display().to_string());
                }
            }
        }
        assert_eq!(files.len(), 1, "{definition} is defined in {files:?}");
    }
}

/// The crates a game depends on, and the game crates themselves.
const PURE: &[&str] = &[
    "arena-game",
    "arena-langwars",
    "arena-spring2021",
    "arena-coup",
    "arena-connect4",
];

/// The pure game crate and the rule crates run no processes and no async runtime: their normal
/// dependencies hold no tokio, nix or libc, and their sources call no process or poll API.
#[test]
fn game_crates_know_rules_not_processes() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for krate in PURE {
        let output = std::process::Command::new(&cargo)
            .args([
                "tree",
                "-e",
                "normal",
                "--prefix",
                "none",
                "--offline",
                "-p",
                krate,
            ])
            .current_dir(workspace())
            .output()
            .expect("cargo tree runs");
        assert!(
            output.status.success(),
            "cargo tree -p {krate}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let tree = String::from_utf8_lossy(&output.stdout);
        for line in tree.lines() {
            let name = line.split_whitespace().next().unwrap_or("");
            assert!(
                !["tokio", "nix", "libc", "arena-core", "mio"].contains(&name),
                "{krate} depends on {name}:\n{tree}"
            );
        }
        let mut files = Vec::new();
        sources(
            &workspace().join("crates").join(krate).join("src"),
            &mut files,
        );
        for file in files {
            let text = std::fs::read_to_string(&file).expect("source");
            for call in [
                "std::process",
                "Command::new",
                "libc::",
                "nix::",
                "waitid",
                "poll(",
            ] {
                assert!(
                    !text.contains(call),
                    "{} calls {call}: a game crate states its protocol, the run layer runs it",
                    file.display()
                );
            }
        }
    }
}

/// Library crates return what happened; only the binary prints (a library's `println!` would write
/// into a user's terminal or a bot's pipe).
#[test]
fn library_crates_do_not_print() {
    let mut found = Vec::new();
    for (name, src) in crates() {
        if name == "arena" {
            continue;
        }
        let mut files = Vec::new();
        sources(&src, &mut files);
        for file in files {
            if file.components().any(|c| c.as_os_str() == "bin") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("source");
            let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if ["print!(", "println!(", "eprintln!(", "eprint!(", "dbg!("]
                    .iter()
                    .any(|m| code.contains(m) && !code.contains(&format!("s{m}")))
                {
                    found.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "printing in library crates:\n{}",
        found.join("\n")
    );
}

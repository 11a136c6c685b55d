//! Bots as contestants bring them: 2014 folders (`compile.sh`/`run.sh` with the 2014 servers'
//! interpreter names), CodinGame-style single files, the starter bots against every built-in bot,
//! a tournament that stops before its first game when a bot cannot start, and per-game folders for
//! submissions.
//!
//! Bots in their languages' own layouts (an npm TypeScript project, CMake, Make, a C++ folder of
//! several translation units, a Cargo crate, a Java source tree) build with no manifest.
//!
//! The toolchains these need (Python 2, PHP, Node.js, TypeScript, Java, g++, make, CMake) are
//! installed by `scripts/test`; a missing one fails the test with what to install rather than
//! skipping it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// A game crate's starter bots (`crates/arena-FOLDER/starters`).
fn starters(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../arena-{folder}/starters"))
}

fn require(program: &str, how: &str) {
    assert!(
        arena_submit::locate(program).is_some(),
        "this test needs `{program}` ({how}); scripts/test installs it"
    );
}

/// `arena ARGS` with a build cache of its own, in `dir`.
fn arena(dir: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .current_dir(dir)
        .env("ARENA_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Plays one game with `bot` in seat 0 and built-in bots elsewhere; returns seat 0's record.
fn play_one(game: &str, bot: &Path, others: &[&str]) -> serde_json::Value {
    let root = tempfile::tempdir().unwrap();
    let replay = root.path().join("game.json");
    let mut args = vec!["play", game, "--seed", "7", "--bot"];
    let bot = bot.to_string_lossy().into_owned();
    args.push(&bot);
    for other in others {
        args.extend(["--bot", other]);
    }
    let replay_text = replay.to_string_lossy().into_owned();
    args.extend(["--replay", &replay_text]);
    let output = arena(root.path(), &root.path().join("cache"), &args);
    assert!(output.status.success(), "{}", text(&output));
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).unwrap()).unwrap();
    let player = record["players"][0].clone();
    assert!(
        player.get("faults").is_none(),
        "{bot} faulted in {game}: {player}\n{}",
        text(&output)
    );
    player
}

/// The repository's 2014-style examples (also in the README).
fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

#[test]
fn a_2014_python_folder_whose_run_sh_says_python_plays_langwars2_in_python_2() {
    require("python2", "pyenv install 2.7.18, or ARENA_PYTHON2");
    let folder = example("langwars-2014-python2");
    let run = std::fs::read_to_string(folder.join("run.sh")).unwrap();
    assert_eq!(run.trim(), "python SampleAI.py");
    let source = std::fs::read_to_string(folder.join("SampleAI.py")).unwrap();
    assert!(source.contains("print \"READY\""), "Python 2 syntax");
    let player = play_one("langwars2", &folder, &["random", "greedy", "focus"]);
    assert_eq!(player["answers"], 9, "{player}");
}

#[test]
fn a_2014_php_folder_whose_run_sh_says_php5_plays_langwars2() {
    require("php", "apt-get install php-cli");
    let folder = example("langwars-2014-php5");
    let run = std::fs::read_to_string(folder.join("run.sh")).unwrap();
    assert_eq!(run.trim(), "php5 SampleAI.php");
    let player = play_one("langwars2", &folder, &["random", "greedy", "focus"]);
    assert_eq!(player["answers"], 9, "{player}");
}

#[test]
fn codingame_style_files_play_full_spring2021_games() {
    require("node", "apt-get install nodejs");
    require("tsc", "npm install typescript");
    require("javac", "apt-get install openjdk-17-jdk-headless");
    // JavaScript and TypeScript with the global readline()/print(), a Java `Player` class, and a
    // Python bot that prints without ever flushing (the CodinGame template).
    for file in ["bot.js", "bot.ts", "Player.java", "bot.py"] {
        let path = starters("spring2021").join(file);
        let source = std::fs::read_to_string(&path).unwrap();
        match file {
            "bot.py" => assert!(!source.contains("flush=") && !source.contains(".flush(")),
            "Player.java" => assert!(source.contains("class Player")),
            _ => assert!(source.contains("readline()") && !source.contains("require(")),
        }
        let player = play_one("spring2021", &path, &["wood1"]);
        assert!(player["answers"].as_u64().unwrap() > 20, "{file}: {player}");
    }
}

/// The journal's lines: (bot names per seat, fault kinds per seat).
fn journal(dir: &Path) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("journal")
        .lines()
        .map(|line| {
            let entry: serde_json::Value = serde_json::from_str(line).unwrap();
            (
                serde_json::from_value(entry["bots"].clone()).unwrap(),
                serde_json::from_value(entry["faults"].clone()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_starter_bot_plays_every_built_in_bot_of_every_game_without_a_fault() {
    require("node", "apt-get install nodejs");
    require("tsc", "npm install typescript");
    require("javac", "apt-get install openjdk-17-jdk-headless");
    require("g++", "apt-get install g++");
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    let mut tournaments = 0;
    for (game, folder) in [
        ("langwars", "langwars"),
        ("langwars2", "langwars"),
        ("negotiate", "langwars"),
        ("spring2021", "spring2021"),
        ("coup", "coup"),
        ("connect4", "connect4"),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(starters(folder))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let out = root.path().join(format!("{game}-{tournaments}"));
            tournaments += 1;
            let file_text = file.to_string_lossy().into_owned();
            let mut args = vec![
                "tournament".to_string(),
                game.to_string(),
                "--schedule".into(),
                "gauntlet".into(),
                "--gauntlet".into(),
                "starter".into(),
                "--seeds".into(),
                "1".into(),
                "--jobs".into(),
                jobs.to_string(),
                "--time-scale".into(),
                "5".into(),
                "--out".into(),
                out.to_string_lossy().into_owned(),
                "--bot".into(),
                format!("starter={file_text}"),
            ];
            // The built-in bots of the game, from `arena list`.
            let listed = Command::new(ARENA).arg("list").output().unwrap();
            let listing = String::from_utf8_lossy(&listed.stdout).into_owned();
            let section = listing
                .split(&format!("\n{game} ("))
                .nth(1)
                .or_else(|| listing.strip_prefix(&format!("{game} (")))
                .expect("the game is listed");
            // The rule bots: a built-in that searches (listed as timed) plays in process as the
            // others do, and in a debug build takes seconds a game; its own tests cover it.
            let builtins: Vec<&str> = section
                .lines()
                .skip(1)
                .take_while(|line| line.starts_with("  "))
                .filter(|line| !line.contains(" (timed) "))
                .filter_map(|line| line.trim().strip_prefix("builtin:"))
                .filter_map(|line| line.split_whitespace().next())
                .collect();
            for builtin in &builtins {
                args.extend(["--bot".to_string(), builtin.to_string()]);
            }
            let output = Command::new(ARENA)
                .args(&args)
                .env("ARENA_CACHE_DIR", &cache)
                .stdin(Stdio::null())
                .output()
                .expect("arena runs");
            assert!(output.status.success(), "{file_text}: {}", text(&output));
            args.clear();
            let games = journal(&out);
            assert!(!builtins.is_empty());
            // Every built-in bot took part.
            for builtin in &builtins {
                assert!(
                    games
                        .iter()
                        .any(|(bots, _)| bots.iter().any(|b| b.split('#').next() == Some(builtin))),
                    "{file_text} never met {builtin} in {game}"
                );
            }
            for (bots, faults) in &games {
                for (bot, faults) in bots.iter().zip(faults) {
                    assert!(
                        faults.is_empty(),
                        "{file_text} in {game}: {bot} faulted ({faults:?})"
                    );
                }
            }
        }
    }
}

#[test]
fn a_tournament_with_a_missing_program_stops_before_its_first_game() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    for missing in [
        "./no-such-bot",
        "python3 no_such_bot.py",
        "nosuchbot",
        "builtin:gredy",
    ] {
        let out = root.path().join("out");
        let output = arena(
            root.path(),
            &cache,
            &[
                "tournament",
                "langwars2",
                "--bot",
                missing,
                "--bot",
                "random",
                "--bot",
                "greedy",
                "--bot",
                "focus",
                "--seeds",
                "2",
                "--out",
                &out.to_string_lossy(),
            ],
        );
        assert!(!output.status.success(), "{missing}: {}", text(&output));
        assert!(
            !out.join("results.jsonl").exists(),
            "{missing}: a game was played"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        match missing {
            "python3 no_such_bot.py" => {
                assert!(stderr.contains("could not start"), "{stderr}");
                assert!(stderr.contains("no_such_bot.py"), "{stderr}");
                assert!(stderr.contains("No such file"), "its stderr: {stderr}");
            }
            "nosuchbot" => assert!(stderr.contains("closest built-in bots"), "{stderr}"),
            "builtin:gredy" => assert!(stderr.contains("greedy"), "{stderr}"),
            // A path-looking bot that is not there.
            _ => assert!(stderr.contains("no such file: ./no-such-bot"), "{stderr}"),
        }
    }
}

/// A Lang Wars bot that appends a line to `state.txt` in its folder every turn, and exits at once
/// (a fault in the journal) if the file is not empty when its game starts.
const APPENDING_BOT: &str = r#"
import os, sys
def lines():
    try:
        with open("state.txt") as f:
            return len(f.readlines())
    except FileNotFoundError:
        return 0
if lines() != 0:
    sys.stderr.write("state.txt was not empty\n")
    sys.exit(3)
print("READY", flush=True)
turns, players, targets = map(int, input().split())
input()
for _ in range(turns):
    turn = int(input().split()[0])
    for _ in range(targets + (2 if turn % 2 == 1 else 1)):
        input()
    with open("state.txt", "a") as f:
        f.write("turn %d\n" % turn)
    print(" ".join(str((lines() + i) % targets) for i in range(5 if turn % 2 == 1 else 2)), flush=True)
"#;

#[test]
fn four_copies_of_a_folder_bot_each_start_every_game_from_an_empty_file() {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("appender");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("bot.py"), APPENDING_BOT).unwrap();
    let out = root.path().join("out");
    let folder_text = folder.to_string_lossy().into_owned();
    let mut args = vec!["tournament", "langwars2", "--seeds", "3", "--jobs", "2"];
    for _ in 0..4 {
        args.extend(["--bot", &folder_text]);
    }
    let out_text = out.to_string_lossy().into_owned();
    args.extend(["--out", &out_text]);
    let output = arena(root.path(), &root.path().join("cache"), &args);
    assert!(output.status.success(), "{}", text(&output));
    let games = journal(&out);
    assert_eq!(games.len(), 12);
    for (bots, faults) in &games {
        assert_eq!(bots.len(), 4);
        assert!(
            faults.iter().all(Vec::is_empty),
            "a bot found another game's state: {bots:?} {faults:?}"
        );
    }
    // The submission itself is never written.
    assert!(!folder.join("state.txt").exists());
}

#[test]
fn a_build_error_is_shown_in_full_and_nothing_is_played() {
    require("g++", "apt-get install g++");
    let root = tempfile::tempdir().unwrap();
    let source = root.path().join("broken.cpp");
    std::fs::write(&source, "int main() { this is not C++; }\n").unwrap();
    let output = arena(
        root.path(),
        &root.path().join("cache"),
        &[
            "play",
            "spring2021",
            "--bot",
            &source.to_string_lossy(),
            "--bot",
            "random",
        ],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("g++"), "{stderr}");
    assert!(stderr.contains("error"), "the compiler's message: {stderr}");
    assert!(stderr.contains("this is not C++"), "{stderr}");
}

#[test]
fn builds_are_cached_by_content() {
    require("g++", "apt-get install g++");
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    let source = starters("spring2021").join("bot.cpp");
    let copy = root.path().join("bot.cpp");
    std::fs::copy(&source, &copy).unwrap();
    let args = [
        "play",
        "spring2021",
        "--bot",
        "bot.cpp",
        "--bot",
        "random",
        "--seed",
        "1",
    ];
    let first = arena(root.path(), &cache, &args);
    assert!(first.status.success(), "{}", text(&first));
    assert!(String::from_utf8_lossy(&first.stderr).contains("built"));
    let second = arena(root.path(), &cache, &args);
    assert!(second.status.success(), "{}", text(&second));
    assert!(
        !String::from_utf8_lossy(&second.stderr).contains("built"),
        "rebuilt unchanged source: {}",
        text(&second)
    );
    // A changed file is built again.
    let mut changed = std::fs::read_to_string(&copy).unwrap();
    changed.push_str("\n// changed\n");
    std::fs::write(&copy, changed).unwrap();
    let third = arena(root.path(), &cache, &args);
    assert!(String::from_utf8_lossy(&third.stderr).contains("built"));
}

#[test]
fn arena_languages_lists_versions_and_packages() {
    let output = Command::new(ARENA).arg("languages").output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for id in [
        "c ",
        "cpp",
        "csharp",
        "go",
        "java",
        "javascript",
        "typescript",
        "kotlin",
        "php",
        "python3",
        "python2",
        "ruby",
        "rust",
        "scala",
        "haskell",
        "ocaml",
        "perl",
    ] {
        assert!(stdout.contains(&format!("\n  {id}")), "{id}: {stdout}");
    }
    assert!(stdout.contains("python     -> python2"), "{stdout}");
    assert!(stdout.contains("php5       -> php"), "{stdout}");
    // An installed tool shows its version; a missing one its package.
    assert!(stdout.contains("g++ (Debian"), "{stdout}");
}

#[test]
fn a_file_bot_plays_coups_king_of_the_hill() {
    let root = tempfile::tempdir().unwrap();
    let bot = starters("coup").join("bot.py");
    let kd = root.path().join("koth");
    let output = arena(
        root.path(),
        &root.path().join("cache"),
        &[
            "koth",
            "coup",
            "--bot",
            &format!("Mine={}", bot.display()),
            "--bot",
            "Calc=calculator",
            "--rounds",
            "1",
            "--dir",
            &kd.to_string_lossy(),
        ],
    );
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("King of the Hill (2 games)"), "{stdout}");
    // The file bot played both games through without a fault.
    let row = stdout
        .lines()
        .find(|line| line.contains(" Mine ") && line.contains("-"))
        .expect("its row");
    assert!(row.trim_end().ends_with(" -"), "{row}");
    // The KotH's folder is a tournament's: journal, replays (each game's history) and report.
    for file in ["results.jsonl", "summary.json", "report.html"] {
        assert!(kd.join(file).is_file(), "{file}");
    }
    // And the bot's one folder for the whole KotH, as the original arbiter had: its build.
    assert!(kd.join("bots/Mine").is_dir());
    assert!(
        std::fs::read_dir(kd.join("bots/Mine"))
            .expect("the kept folder")
            .next()
            .is_some(),
        "a copy of the build"
    );
}

/// A test bot of `crates/arena/tests/bots`.
fn test_bot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots")
        .join(name)
}

#[test]
fn bots_in_their_languages_own_layouts_build_with_no_manifest_and_play() {
    require("node", "apt-get install nodejs");
    require("tsc", "npm install typescript");
    require("g++", "apt-get install g++");
    require("make", "apt-get install make");
    require("cmake", "apt-get install cmake");
    require("javac", "apt-get install openjdk-17-jdk-headless");
    require("cargo", "rustup, or apt-get install cargo");
    let cache = tempfile::tempdir().unwrap();
    for (folder, kind) in [
        // package.json's `main` is dist/index.js: its source is src/index.ts (tsconfig's rootDir),
        // which imports ./strategy; the package is an ES module one, with tsconfig comments.
        (
            "c4_typescript",
            "TypeScript project (package.json, tsconfig.json, src/index.ts)",
        ),
        // Two programs: the first add_executable is the bot.
        ("c4_cmake", "CMake project (CMakeLists.txt)"),
        ("c4_make", "Makefile project (Makefile)"),
        // engine/strategy.cpp and its header in engine/; old_version.cpp has a main of its own.
        (
            "c4_cpp",
            "C++ folder (2 translation units, main in main.cpp)",
        ),
        // Two modules and a dependency vendored through .cargo/config.toml (built offline).
        ("c4_cargo", "Cargo crate (Cargo.toml, bin `c4bot`)"),
        (
            "c4_java",
            "Java source tree (2 files, main class com.example.Player)",
        ),
    ] {
        let bot = test_bot(folder);
        assert!(!bot.join(arena_submit::MANIFEST).exists(), "{folder}");
        let options = arena_submit::Options {
            cache_dir: Some(cache.path().to_path_buf()),
            ..arena_submit::Options::default()
        };
        let prepared =
            arena_submit::prepare(&bot, &options).unwrap_or_else(|e| panic!("{folder}: {e}"));
        assert_eq!(prepared.kind, kind, "{folder}");
        assert!(
            prepared.warnings.is_empty(),
            "{folder}: {:?}",
            prepared.warnings
        );
        // Built again in the sandbox by `arena play`, and played to the end.
        let player = play_one("connect4", &bot, &["random"]);
        assert!(
            player["answers"].as_u64().unwrap() >= 4,
            "{folder}: {player}"
        );
    }
}

#[test]
fn a_typescript_file_whose_modules_are_not_given_is_a_build_error_with_the_compilers_output() {
    require("node", "apt-get install nodejs");
    require("tsc", "npm install typescript");
    let root = tempfile::tempdir().unwrap();
    let entry = test_bot("c4_typescript").join("src/index.ts");
    let entry = entry.to_string_lossy().into_owned();
    let output = arena(
        root.path(),
        &root.path().join("cache"),
        &["play", "connect4", "--bot", &entry, "--bot", "random"],
    );
    assert!(!output.status.success(), "{}", text(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).is_empty(),
        "a game was played: {}",
        text(&output)
    );
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("error TS2307: Cannot find module './strategy'"),
        "{error}"
    );
    assert!(error.contains("give its project's folder"), "{error}");
    assert!(error.contains("c4_typescript,"), "{error}");
}

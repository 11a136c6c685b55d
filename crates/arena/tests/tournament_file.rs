//! `arena tournament run FILE.toml` and `--bots-dir DIR`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(dir: &Path, args: &[&str]) -> Output {
    Command::new(ARENA)
        .current_dir(dir)
        .args(args)
        .output()
        .expect("arena runs")
}

fn ok(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn starter() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../arena-langwars/starters/bot.py")
}

fn plan(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).expect("plan"))
        .expect("JSON")
}

fn names(plan: &serde_json::Value) -> Vec<String> {
    plan["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .map(|b| b["name"].as_str().expect("name").to_string())
        .collect()
}

/// A file with every kind of bot: a folder submission, a command with its working folder (run
/// from a path relative to the file), built-in bots, one labelled and one not.
fn write_setup(root: &Path) {
    let bots = root.join("setup/bots");
    std::fs::create_dir_all(bots.join("folderbot")).expect("folders");
    std::fs::copy(starter(), bots.join("folderbot/bot.py")).expect("copy");
    std::fs::create_dir_all(root.join("setup/cmd")).expect("folder");
    std::fs::copy(starter(), root.join("setup/cmd/play.py")).expect("copy");
    std::fs::write(
        root.join("setup/t.toml"),
        r#"
game = "langwars2"
seeds = 1
seed = "18446744073709551615"
jobs = 1
out = "results"
time-scale = 2.5
clock = "cpu"
replays = "all"
disk-mib = 128
sandbox-uids = "1900000000-1900004095"

[[bot]]
label = "mine"
bot = "bots/folderbot"

[[bot]]
label = "cmd"
bot = "python3 play.py"
workdir = "cmd"

[[bot]]
bot = "greedy"

[[bot]]
label = "rnd"
bot = "builtin:random"
"#,
    )
    .expect("file");
}

#[test]
fn a_tournament_file_gives_every_option() {
    let root = tempfile::tempdir().expect("temp dir");
    write_setup(root.path());
    // Run from elsewhere: the file's paths are relative to the file.
    let output = arena(root.path(), &["tournament", "run", "setup/t.toml"]);
    ok(&output);
    let out = root.path().join("setup/results");
    let plan = plan(&out);
    assert_eq!(plan["game"], "langwars2");
    assert_eq!(names(&plan), ["mine", "cmd", "greedy", "rnd"]);
    assert_eq!(plan["seed"], "18446744073709551615");
    assert_eq!(plan["rounds"], 1);
    assert_eq!(plan["settings"]["time_scale"], 2.5);
    assert_eq!(plan["settings"]["clock"], "cpu");
    assert_eq!(plan["settings"]["builtin_replays"], true);
    let workdir = plan["bots"][1]["workdir"].as_str().expect("a workdir");
    assert!(workdir.ends_with("setup/cmd"), "{workdir}");
    let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
    assert_eq!(journal.lines().count(), 4, "one seed, four rotations");
    for line in journal.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert!(
            entry["faults"]
                .as_array()
                .expect("faults")
                .iter()
                .all(|f| f.as_array().is_some_and(Vec::is_empty)),
            "{line}"
        );
    }
}

#[test]
fn options_on_the_command_line_override_the_file() {
    let root = tempfile::tempdir().expect("temp dir");
    write_setup(root.path());
    let output = arena(
        root.path(),
        &[
            "tournament",
            "run",
            "setup/t.toml",
            "--out",
            "here",
            "--seeds",
            "2",
            "--seed",
            "9",
            "--clock",
            "wall",
            "--time-scale",
            "3",
            "--bot",
            "a=greedy",
            "--bot",
            "focus",
            "--bot",
            "spread",
            "--bot",
            "random",
        ],
    );
    ok(&output);
    let plan = plan(&root.path().join("here"));
    assert_eq!(names(&plan), ["a", "focus", "spread", "random"]);
    assert_eq!(plan["rounds"], 2);
    assert_eq!(plan["seed"], "9");
    assert_eq!(plan["settings"]["time_scale"], 3.0);
    assert!(
        plan["settings"].get("clock").is_none(),
        "wall is the default"
    );
    assert_eq!(
        plan["settings"]["builtin_replays"], true,
        "what the command line did not give stays"
    );
}

#[test]
fn a_tournament_file_sets_the_sequential_test_and_game_options() {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        root.path().join("ab.toml"),
        r#"
game = "coup"
games = 40
seed = 3
out = "ab"

[sprt]
elo0 = 0
elo1 = 50
alpha = 0.1

[coup]
strict-moves = true

[[bot]]
label = "new"
bot = "calculator"

[[bot]]
label = "old"
bot = "random"
"#,
    )
    .expect("file");
    let output = arena(
        root.path(),
        &["tournament", "run", "ab.toml", "--beta", "0.2"],
    );
    ok(&output);
    let plan = plan(&root.path().join("ab"));
    assert_eq!(names(&plan), ["new", "old"]);
    assert_eq!(plan["sprt"]["elo1"], 50.0);
    assert_eq!(plan["sprt"]["alpha"], 0.1);
    assert_eq!(plan["sprt"]["beta"], 0.2, "the command line's --beta wins");
    assert_eq!(plan["settings"]["game_options"]["strict_moves"], true);
}

#[test]
fn unknown_keys_are_errors_with_the_file_and_line() {
    let root = tempfile::tempdir().expect("temp dir");
    let file = root.path().join("t.toml");
    for (text, line, key) in [
        (
            "game = \"negotiate\"\nseeds = 1\ntime-scal = 2\n",
            3,
            "time-scal",
        ),
        (
            "game = \"negotiate\"\n\n[[bot]]\nbot = \"greedy\"\nlable = \"x\"\n",
            5,
            "lable",
        ),
        (
            "game = \"negotiate\"\n[sprt]\nelo0 = 0\nelo1 = 5\nbeat = 0.1\n",
            5,
            "beat",
        ),
    ] {
        std::fs::write(&file, text).expect("file");
        let output = arena(root.path(), &["tournament", "run", "t.toml"]);
        assert!(!output.status.success());
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(
            error.contains("t.toml")
                && error.contains(&format!("line {line}"))
                && error.contains(&format!("unknown field `{key}`")),
            "{error}"
        );
        assert!(!root.path().join("arena-out").exists(), "nothing made");
    }
    // Values are checked as the options are.
    std::fs::write(&file, "game = \"negotiate\"\njobs = 0\n").expect("file");
    let output = arena(root.path(), &["tournament", "run", "t.toml"]);
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && error.contains("at least 1"),
        "{error}"
    );
    std::fs::write(&file, "game = \"negotiate\"\nclock = \"cpus\"\n").expect("file");
    let output = arena(root.path(), &["tournament", "run", "t.toml"]);
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && error.contains("wall, cpu"),
        "{error}"
    );
    let output = arena(root.path(), &["tournament", "run"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("run FILE.toml"));
}

#[test]
fn bots_dir_takes_every_submission_with_its_name() {
    let root = tempfile::tempdir().expect("temp dir");
    let subs = root.path().join("subs");
    std::fs::create_dir_all(subs.join("alice")).expect("folder");
    std::fs::copy(starter(), subs.join("alice/bot.py")).expect("copy");
    std::fs::copy(starter(), subs.join("bob.py")).expect("copy");
    std::fs::write(subs.join(".hidden.py"), "print('no')").expect("hidden");
    std::fs::write(subs.join("notes.txt"), "not a bot").expect("notes");
    let output = arena(
        root.path(),
        &[
            "tournament",
            "langwars2",
            "--bots-dir",
            "subs",
            "--bot",
            "greedy",
            "--bot",
            "random",
            "--seeds",
            "1",
            "--out",
            "t",
        ],
    );
    ok(&output);
    assert_eq!(
        names(&plan(&root.path().join("t"))),
        ["greedy", "random", "alice", "bob"]
    );
    // An empty folder is an error that says what counts.
    std::fs::create_dir_all(root.path().join("empty")).expect("folder");
    let output = arena(
        root.path(),
        &["tournament", "langwars2", "--bots-dir", "empty"],
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("no submission"));
}

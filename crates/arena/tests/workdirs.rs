//! Per-game working folders: every seat with a `--workdir` plays in a fresh copy of it, so a bot that
//! keeps state in its folder gives the same tournament on any number of workers, starts every game
//! from the folder as given, and (Coup: one process per call) still finds its state between the calls
//! of a game.

use arena_core::record::seat_stderr;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// A Lang Wars bot that appends a line to `state.txt` in its folder every turn and answers according
/// to the number of lines there, and exits at once (a fault in the journal) if the file is not empty
/// when its game starts.
const STATEFUL_BOT: &str = r#"
import os, sys
def lines():
    try:
        with open("state.txt") as f:
            return len(f.readlines())
    except FileNotFoundError:
        return 0
if lines() != 0:
    sys.exit(3)
sys.stdout.write("READY\n"); sys.stdout.flush()
targets = None
while True:
    if targets is None:
        settings = sys.stdin.readline()
        if not settings:
            break
        targets = int(settings.split()[2])
        sys.stdin.readline()
    header = sys.stdin.readline()
    if not header:
        break
    turn = int(header.split()[0])
    for _ in range(targets + (2 if turn % 2 == 1 else 1)):
        sys.stdin.readline()
    with open("state.txt", "a") as f:
        f.write("turn %d\n" % turn)
    count = lines()
    slots = 5 if turn % 2 == 1 else 2
    sys.stdout.write(" ".join(str((count * 7 + i * 3) % targets) for i in range(slots)) + "\n")
    sys.stdout.flush()
"#;

/// The journal as index → line, without the replay path.
fn journal(dir: &Path) -> BTreeMap<u64, serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("journal");
    text.lines()
        .map(|line| {
            let mut entry: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let fields = entry.as_object_mut().expect("object");
            fields.remove("replay");
            // Answer times are measurements, different in every run; the results are compared.
            assert!(
                fields.remove("timing").is_some(),
                "process games have timing"
            );
            (entry["index"].as_u64().expect("index"), entry)
        })
        .collect()
}

fn tournament(workdir: &Path, out: &Path, jobs: &str) {
    let mut command = Command::new(ARENA);
    command.args([
        "tournament",
        "langwars2",
        "--seed",
        "5",
        "--seeds",
        "3",
        "--jobs",
        jobs,
    ]);
    for name in ["a", "b", "c", "d"] {
        command.args(["--bot", &format!("{name}=python3 stateful_bot.py")]);
    }
    let status = command
        .arg("--workdir")
        .arg(workdir)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("arena runs");
    assert!(status.success());
}

#[test]
fn stateful_bots_give_the_same_journal_on_one_and_two_workers() {
    let root = tempfile::tempdir().expect("temp dir");
    let workdir = root.path().join("bot");
    std::fs::create_dir(&workdir).unwrap();
    std::fs::write(workdir.join("stateful_bot.py"), STATEFUL_BOT).unwrap();
    let one = root.path().join("one");
    let two = root.path().join("two");
    tournament(&workdir, &one, "1");
    tournament(&workdir, &two, "2");
    let (one, two) = (journal(&one), journal(&two));
    // Four copies of the bot in a 4-seat game, 4 seat orders of 3 seeds.
    assert_eq!(one.len(), 12);
    // Every game started from an empty state file: no bot quit.
    for entry in one.values().chain(two.values()) {
        let faults = entry["faults"].as_array().expect("faults");
        assert!(
            faults
                .iter()
                .all(|f| f.as_array().is_some_and(Vec::is_empty)),
            "a bot found state from another game: {entry}"
        );
    }
    assert_eq!(one, two, "the journals differ between 1 and 2 workers");
    // The folder as given is untouched: the games wrote only to their copies.
    assert!(!workdir.join("state.txt").exists());
}

/// A Coup bot (one process per call): appends a line to `state.txt` in its folder on every call,
/// prints how many lines the file has to stderr (kept in the replay), and plays the first legal move.
const COUP_BOT: &str = r#"
history=$1
shift 4
echo call >> state.txt
echo "calls $(wc -l < state.txt)" >&2
printf '%s' "$1" >> "$history"
"#;

#[test]
fn coup_bots_keep_their_state_between_the_calls_of_a_game_and_only_there() {
    let root = tempfile::tempdir().expect("temp dir");
    let workdir = root.path().join("bot");
    std::fs::create_dir(&workdir).unwrap();
    std::fs::write(workdir.join("bot.sh"), COUP_BOT).unwrap();
    let replay = root.path().join("game.json");
    let status = Command::new(ARENA)
        .args(["play", "coup", "--seed", "3"])
        .arg("--bot")
        .arg("A=sh bot.sh")
        .arg("--bot")
        .arg("B=sh bot.sh")
        .arg("--workdir")
        .arg(&workdir)
        .arg("--replay")
        .arg(&replay)
        .stdout(Stdio::null())
        .status()
        .expect("arena runs");
    assert!(status.success());
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).unwrap()).unwrap();
    // Every call of each seat, and only this seat's: its own copy of the folder, for the game.
    assert_each_seat_counted_its_calls(&record, "the game");
    assert!(!workdir.join("state.txt").exists());
}

/// Each seat of a game of [`COUP_BOT`]s counted, on its last call, as many calls as the game made
/// of that seat (more than one), as its stderr in the replay `record` says.
fn assert_each_seat_counted_its_calls(record: &serde_json::Value, game: &str) {
    let steps = record["steps"].as_array().expect("steps");
    for seat in 0..2 {
        let calls = steps.iter().filter(|s| s["player"] == seat).count();
        // The count the bot saw on its last call (the sandbox lets it write only its own folder).
        let stderr = seat_stderr(record, seat);
        let counted: usize = stderr
            .lines()
            .last()
            .and_then(|line| line.strip_prefix("calls "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        assert_eq!(counted, calls, "{game}, seat {seat}");
        assert!(calls > 1, "{game}, seat {seat}");
    }
}

/// A Coup tournament keeps each bot's sandbox between its games (a worker's pool): the bot's state
/// is kept between the calls of a game and never carried into the next game, the history file it
/// appends to is its own copy, and the results equal those of unsandboxed bots.
#[test]
fn coup_tournament_bots_keep_state_within_a_game_only_in_kept_sandboxes() {
    let root = tempfile::tempdir().expect("temp dir");
    let workdir = root.path().join("bot");
    std::fs::create_dir(&workdir).unwrap();
    std::fs::write(workdir.join("bot.sh"), COUP_BOT).unwrap();
    let run = |out: &Path, sandbox: &str| {
        let status = Command::new(ARENA)
            .args(["tournament", "coup", "--seed", "9", "--seeds", "4"])
            .args(["--jobs", "1", "--sandbox", sandbox])
            .args(["--bot", "A=sh bot.sh", "--bot", "B=sh bot.sh"])
            .arg("--workdir")
            .arg(&workdir)
            .arg("--out")
            .arg(out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("arena runs");
        assert!(status.success());
    };
    let (kept, bare) = (root.path().join("kept"), root.path().join("bare"));
    run(&kept, "bwrap");
    run(&bare, "none");
    let journal_kept = journal(&kept);
    assert_eq!(journal_kept.len(), 8);
    assert_eq!(journal_kept, journal(&bare));
    for index in journal_kept.keys() {
        let path = kept.join(format!("replays/{index:06}.json.gz"));
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("a replay")),
            &mut text,
        )
        .expect("gzip");
        let record: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        // This game's calls of each seat, none from an earlier game in the same sandbox.
        assert_each_seat_counted_its_calls(&record, &format!("game {index}"));
    }
    assert!(!workdir.join("state.txt").exists());
}

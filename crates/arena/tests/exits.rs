//! How a bot's process ended is recorded as it happened: its own exit, a signal, or arena ending
//! it at the end of the game (never arena's SIGKILL passed off as the bot's). Limits are scaled by
//! 20 (the 30 ms a bot has to exit after its input ends becomes 600 ms): Python's shutdown takes a
//! few ms of CPU, which a machine at a load of 20 on 2 cores stretches tenfold.

use std::path::PathBuf;
use std::process::Command;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// One langwars2 game of `player` in seat 0 against three built-in bots, seed 4, with `extra`
/// options; its replay.
fn play(player: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let replay = dir.path().join("game.json");
    let output = Command::new(ARENA)
        .args(["play", "langwars2", "--bot", player])
        .args(["--bot", "greedy", "--bot", "random", "--bot", "focus"])
        .args(["--seed", "4"])
        .args(extra)
        .arg("--replay")
        .arg(&replay)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("JSON")
}

fn exit_status(end: &str, sandbox: &str) -> (String, serde_json::Value) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots/lw_clock.py");
    let player = format!("python3 {} burn 0 {end}", script.display());
    let record = play(&player, &["--time-scale", "20", "--sandbox", sandbox]);
    let status = record["players"][0]["exit_status"]
        .as_str()
        .expect("an exit status")
        .to_string();
    (status, record)
}

#[test]
fn a_bot_that_exits_at_the_end_is_recorded_as_exiting() {
    for sandbox in ["bwrap", "none"] {
        let (status, record) = exit_status("exit", sandbox);
        assert_eq!(status, "exited (code 0)", "{sandbox}");
        assert!(record["players"][0].get("faults").is_none(), "{record}");
    }
}

#[test]
fn a_bot_still_running_at_the_end_is_ended_by_arena() {
    for sandbox in ["bwrap", "none"] {
        let (status, _) = exit_status("linger", sandbox);
        assert_eq!(status, "ended by arena at game end", "{sandbox}");
    }
}

#[test]
fn a_bot_killed_by_a_signal_is_recorded_with_the_signal() {
    for sandbox in ["bwrap", "none"] {
        let (status, record) = exit_status("segv", sandbox);
        assert_eq!(status, "killed by signal 11 (SIGSEGV)", "{sandbox}");
        let fault = &record["players"][0]["faults"][0]["fault"];
        assert_eq!(fault["kind"], "crashed", "{fault}");
        assert!(
            fault["detail"]
                .as_str()
                .is_some_and(|d| d.contains("killed by signal 11 (SIGSEGV)")),
            "{fault}"
        );
    }
}

/// A bot that writes each line and its newline in two writes, with a pause between (what Python
/// does unbuffered, stretched by a loaded machine): arena takes the text once the bot is quiet, and
/// the late newline ends that same line. It must not become an empty answer to the next question,
/// which would shift every later answer by one turn (seen at a load of 30 before the fix).
#[test]
fn a_newline_written_late_ends_its_own_line_not_the_next_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("split.py");
    std::fs::write(
        &script,
        r#"import os, sys, time
def say(text):
    os.write(1, text.encode())
    time.sleep(0.1)
    os.write(1, b"\n")
say("READY")
turns, players, targets = map(int, sys.stdin.readline().split())
sys.stdin.readline()
for _ in range(turns):
    turn = int(sys.stdin.readline().split()[0])
    for _ in range(targets + 1 + turn % 2):
        sys.stdin.readline()
    say(" ".join(["1"] * (5 if turn % 2 == 1 else 2)))
"#,
    )
    .expect("the bot");
    let record = play(
        &format!("python3 {}", script.display()),
        &["--sandbox", "none"],
    );
    let answers: Vec<String> = record["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["player"] == 0)
        .map(|s| s["output"].as_str().unwrap_or("").to_string())
        .collect();
    let expected: Vec<&str> = (1..=9)
        .map(|turn| if turn % 2 == 1 { "1 1 1 1 1" } else { "1 1" })
        .collect();
    assert_eq!(answers, expected, "{}", record["players"][0]);
}

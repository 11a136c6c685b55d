//! How a bot's process ended is recorded as it happened: its own exit, a signal, or arena ending
//! it at the end of the game (never arena's SIGKILL passed off as the bot's). Limits are scaled by
//! 20 (the 30 ms a bot has to exit after its input ends becomes 600 ms): Python's shutdown takes a
//! few ms of CPU, which a machine at a load of 20 on 2 cores stretches tenfold.

use std::path::PathBuf;
use std::process::Command;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn exit_status(end: &str, sandbox: &str) -> (String, serde_json::Value) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots/lw_clock.py");
    let player = format!("python3 {} burn 0 {end}", script.display());
    let dir = tempfile::tempdir().expect("temp dir");
    let replay = dir.path().join("game.json");
    let output = Command::new(ARENA)
        .args([
            "play",
            "langwars2",
            "--bot",
            &player,
            "--bot",
            "greedy",
            "--bot",
            "random",
            "--bot",
            "focus",
            "--seed",
            "4",
            "--time-scale",
            "20",
            "--sandbox",
            sandbox,
            "--replay",
            replay.to_str().expect("utf-8"),
        ])
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("JSON");
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

//! Real processes under the official protocol: every misbehaviour ends with the rule's outcome, is
//! reported, and leaves no process behind.

use std::path::{Path, PathBuf};

use arena_core::registry::{GameEntry, GameRequest, GameResult, PlayerSpec, SeatRequest};
use arena_core::testing::assert_no_process_left;
use arena_core::{FaultKind, MatchOptions};
use serde_json::Value;

fn langwars2() -> Box<dyn GameEntry> {
    arena_langwars::definitions()
        .into_iter()
        .map(arena_core::registry::stream_entry)
        .find(|g| g.id() == "langwars2")
        .expect("langwars2 is registered")
}

fn script() -> String {
    format!("{}/tests/misbehaving_bot.py", env!("CARGO_MANIFEST_DIR"))
}

/// Plays `modes` (one per seat; `builtin:NAME` for an in-process bot) and returns the result.
async fn play(modes: [&str; 4], piddir: &Path) -> GameResult {
    let seats = modes
        .iter()
        .map(|mode| {
            let spec = match mode.strip_prefix("builtin:") {
                Some(name) => PlayerSpec::Builtin(name.to_string()),
                None => PlayerSpec::Command(vec![
                    "python3".into(),
                    script(),
                    mode.to_string(),
                    piddir.display().to_string(),
                ]),
            };
            SeatRequest {
                name: mode.to_string(),
                spec,
                workdir: None,
            }
        })
        .collect();
    langwars2()
        .play(GameRequest {
            variant: None,
            seed: 4,
            seats,
            options: MatchOptions::default(),
            stderr_cap: 4096,
            prepared: Default::default(),
        })
        .await
        .expect("the game runs")
}

fn fault_kinds(result: &GameResult, seat: usize) -> Vec<FaultKind> {
    result.faults[seat].iter().map(|f| f.kind).collect()
}

/// The sanitised moves seat `seat` played, turn by turn (from the replay's frames).
fn moves_of(result: &GameResult, seat: usize) -> Vec<Vec<u64>> {
    result.record["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|frame| {
            frame["moves"][seat]
                .as_array()
                .expect("moves")
                .iter()
                .map(|t| t.as_u64().expect("target"))
                .collect()
        })
        .collect()
}

fn zeros_from(moves: &[Vec<u64>], turn: usize) -> bool {
    moves[turn - 1..].iter().all(|m| m.iter().all(|&t| t == 0))
}

fn tempdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().to_path_buf();
    (dir, path)
}

#[tokio::test]
async fn well_behaved_processes_play_like_in_process_bots() {
    let (_guard, dir) = tempdir();
    let result = play(["ok", "ok", "builtin:random", "ok"], &dir).await;
    for seat in 0..4 {
        assert!(
            result.faults[seat].is_empty(),
            "seat {seat}: {:?}",
            result.faults[seat]
        );
    }
    let moves = moves_of(&result, 0);
    assert_eq!(moves.len(), 9);
    assert_eq!(moves[0], vec![1, 1, 1, 1, 1]);
    assert_eq!(moves[1], vec![1, 1]);
    // Inputs and raw outputs are recorded for process seats only.
    let steps = result.record["steps"].as_array().expect("steps");
    assert!(
        steps[0]["input"]
            .as_str()
            .expect("input")
            .starts_with("9 4 6\n")
    );
    assert_eq!(steps[0]["output"], "1 1 1 1 1");
    assert!(steps[2].get("input").is_none());
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn never_ready_and_late_ready_play_zeros_all_game() {
    let (_guard, dir) = tempdir();
    let result = play(["never_ready", "late_ready", "ok", "ok"], &dir).await;
    for seat in 0..2 {
        assert_eq!(fault_kinds(&result, seat), vec![FaultKind::NotReady]);
        assert!(zeros_from(&moves_of(&result, seat), 1));
    }
    assert!(result.faults[2].is_empty() && result.faults[3].is_empty());
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn hang_crash_and_early_exit_are_faults_then_target_zero() {
    let (_guard, dir) = tempdir();
    let result = play(["hang", "crash", "exit_early", "ok"], &dir).await;
    assert_eq!(fault_kinds(&result, 0), vec![FaultKind::Timeout]);
    assert_eq!(fault_kinds(&result, 1), vec![FaultKind::Crashed]);
    // A clean exit is an exit, not a crash.
    assert_eq!(fault_kinds(&result, 2), vec![FaultKind::Exited]);
    let hang = moves_of(&result, 0);
    assert_eq!(hang[1], vec![1, 1], "it played turns 1 and 2");
    assert!(zeros_from(&hang, 3));
    assert!(zeros_from(&moves_of(&result, 1), 2));
    assert!(zeros_from(&moves_of(&result, 2), 2));
    // The timeout is reported with the step it happened at.
    let step = result.record["players"][0]["faults"][0]["step"]
        .as_u64()
        .expect("step");
    assert_eq!(result.record["steps"][step as usize]["player"], 0);
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn malformed_answers_are_sanitised_like_the_official_runner() {
    let (_guard, dir) = tempdir();
    let result = play(["garbage", "few", "many", "debug"], &dir).await;
    for seat in 0..4 {
        assert!(
            result.faults[seat].is_empty(),
            "seat {seat}: {:?}",
            result.faults[seat]
        );
    }
    assert!(
        zeros_from(&moves_of(&result, 0), 1),
        "garbage plays target 0"
    );
    assert_eq!(
        moves_of(&result, 1)[0],
        vec![1, 0, 0, 0, 0],
        "missing slots are 0"
    );
    assert_eq!(
        moves_of(&result, 2)[0],
        vec![1, 1, 1, 1, 1],
        "extra tokens ignored"
    );
    // Debug text on stdout is the answer (as in 2014): target 0; the real move line is stale next turn.
    assert!(zeros_from(&moves_of(&result, 3), 1));
    assert_eq!(result.record["steps"][3]["output"], "thinking hard");
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn what_2014_bots_did_is_accepted() {
    let (_guard, dir) = tempdir();
    let result = play(["php", "early_answer", "unterminated", "trailing"], &dir).await;
    for seat in 0..4 {
        assert!(
            result.faults[seat].is_empty(),
            "seat {seat}: {:?}",
            result.faults[seat]
        );
        let moves = moves_of(&result, seat);
        assert_eq!(moves[0], vec![1, 1, 1, 1, 1], "seat {seat}");
        assert_eq!(moves[8], vec![1, 1, 1, 1, 1], "seat {seat}");
    }
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn stray_text_floods_children_and_bad_endings_are_contained() {
    let (_guard, dir) = tempdir();
    let result = play(
        ["stray", "flood_stderr", "child_holds_pipe", "spin_at_end"],
        &dir,
    )
    .await;
    for seat in 0..4 {
        assert!(
            result.faults[seat].is_empty(),
            "seat {seat}: {:?}",
            result.faults[seat]
        );
        assert_eq!(
            moves_of(&result, seat)[0],
            vec![1, 1, 1, 1, 1],
            "seat {seat}"
        );
    }
    let flood = &result.record["players"][1];
    // Kept with the answers it was written for, and after the last one: the cap in all.
    let kept: usize = result.record["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["player"] == 1)
        .filter_map(|s| s["stderr"].as_str())
        .chain(flood["stderr"].as_str())
        .map(str::len)
        .sum();
    assert_eq!(kept, 4096, "stderr is capped");
    assert!(flood["stderr_dropped"].as_u64().expect("dropped") > 1_000_000);
    assert_no_process_left(&dir);

    let (_guard, dir) = tempdir();
    let result = play(["banner", "abort_at_end", "ok", "builtin:greedy"], &dir).await;
    for seat in 0..4 {
        assert!(
            result.faults[seat].is_empty(),
            "seat {seat}: {:?}",
            result.faults[seat]
        );
    }
    assert_eq!(moves_of(&result, 0)[0], vec![1, 1, 1, 1, 1]);
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn a_command_that_cannot_start_plays_zeros() {
    let seats = (0..4)
        .map(|seat| SeatRequest {
            name: format!("p{seat}"),
            spec: if seat == 0 {
                PlayerSpec::Command(vec!["/nonexistent/bot".into()])
            } else {
                PlayerSpec::Builtin("random".into())
            },
            workdir: None,
        })
        .collect();
    let result = langwars2()
        .play(GameRequest {
            variant: None,
            seed: 1,
            seats,
            options: MatchOptions::default(),
            stderr_cap: 1024,
            prepared: Default::default(),
        })
        .await
        .expect("runs");
    assert_eq!(fault_kinds(&result, 0), vec![FaultKind::SpawnFailed]);
    assert!(zeros_from(&moves_of(&result, 0), 1));
    let _: &Value = &result.record;
}

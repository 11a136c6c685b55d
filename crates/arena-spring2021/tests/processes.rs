//! Real processes over the CodinGame protocol: timeouts (1000 ms first turn, 100 ms later),
//! unparsable output and crashes deactivate the bot (score -1, it loses), floods and bots that spin at
//! the end are contained, and no process is left behind.

use std::path::{Path, PathBuf};

use std::time::Duration;

use arena_core::game::{Answer, Game};
use arena_core::registry::{GameRequest, GameResult, PlayerSpec, SeatRequest};
use arena_core::testing::assert_no_process_left;
use arena_core::{Agent, ClockKind, FaultKind, MatchOptions, ProcessSpec, StreamAgent};
use arena_spring2021::{League, Obs, Spring2021};
/// The game as the front ends see it.
fn entry() -> Box<dyn arena_core::registry::GameEntry> {
    arena_core::registry::stream_entry(arena_spring2021::definition())
}

fn script() -> String {
    format!("{}/tests/spring_bot.py", env!("CARGO_MANIFEST_DIR"))
}

/// `time_scale` multiplies the 1000/100 ms limits: generous for the games that must not time out (the
/// tests may run on a loaded machine), 2 for the timeout tests, whose bots sleep well past the limit.
/// Limits scaled for tests whose bots should never come near them. (The "stalled Python start-ups"
/// once blamed for missed first turns of 10.5 s and 31.5 s were bots left stopped by a pause: see
/// `a_bot_stopped_and_continued_while_it_forks_still_answers`.)
const ROOMY: f64 = 30.0;

async fn play(modes: [&str; 2], piddir: &Path, time_scale: f64) -> GameResult {
    let seats = modes
        .iter()
        .map(|mode| SeatRequest {
            name: mode.to_string(),
            spec: match mode.strip_prefix("builtin:") {
                Some(name) => PlayerSpec::Builtin(name.to_string()),
                None => PlayerSpec::Command(vec![
                    "python3".into(),
                    script(),
                    mode.to_string(),
                    piddir.display().to_string(),
                ]),
            },
            workdir: None,
        })
        .collect();
    entry()
        .play(GameRequest {
            variant: None,
            seed: 42,
            seats,
            options: MatchOptions {
                time_scale,
                ..MatchOptions::default()
            },
            stderr_cap: 4096,
            prepared: Default::default(),
        })
        .await
        .expect("the game runs")
}

fn tempdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().to_path_buf();
    (dir, path)
}

fn scores(result: &GameResult) -> Vec<i64> {
    result.outcome.scores.iter().map(|s| s.numer()).collect()
}

fn kinds(result: &GameResult, seat: usize) -> Vec<FaultKind> {
    result.faults[seat].iter().map(|f| f.kind).collect()
}

/// The faulty seat `bad` is out with `kind`: score -1, the other one wins.
fn assert_deactivated(result: &GameResult, bad: usize, kind: FaultKind) {
    assert_eq!(kinds(result, bad), vec![kind], "{:?}", result.faults);
    assert_eq!(scores(result)[bad], -1);
    assert_eq!(result.outcome.winner, Some(1 - bad));
    let active = &result.record["frames"]
        .as_array()
        .expect("frames")
        .last()
        .expect("a frame")["active"];
    assert_eq!(active[bad], false);
}

#[tokio::test]
async fn well_behaved_process_plays_a_whole_game() {
    let (_guard, dir) = tempdir();
    let result = play(["ok", "builtin:random"], &dir, ROOMY).await;
    assert!(result.faults[0].is_empty(), "{:?}", result.faults[0]);
    assert!(scores(&result).iter().all(|&s| s >= 0));
    let steps = result.record["steps"].as_array().expect("steps");
    let first = steps[0]["input"].as_str().expect("input");
    assert!(
        first.starts_with("37\n0 3 1 2 3 4 5 6\n"),
        "init block first"
    );
    let later = steps
        .iter()
        .filter(|s| s["player"] == 0)
        .nth(1)
        .expect("a second turn");
    assert!(!later["input"].as_str().expect("input").starts_with("37\n"));
    // The message after the command is kept for the viewer.
    let frames = result.record["frames"].as_array().expect("frames");
    assert!(frames.iter().any(|f| f["messages"][0] == "message 1"));
    let last = frames.last().expect("frames");
    assert_eq!(last["day"], 24);
    assert_eq!(last["executions"].as_u64(), Some(steps.len() as u64));
    assert_eq!(last["richness"].as_array().map(Vec::len), Some(37));
    assert!(
        frames
            .iter()
            .any(|f| f["kind"] == "gathering" && f["gathered"][0].as_i64() > Some(0))
    );
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn first_turn_timeout_deactivates() {
    let (_guard, dir) = tempdir();
    let result = play(["slow_first", "ok"], &dir, 2.0).await;
    assert_deactivated(&result, 0, FaultKind::Timeout);
    // The referee still served player 1 in that frame, then ended the game.
    let steps = result.record["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2);
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn later_turn_timeout_deactivates() {
    let (_guard, dir) = tempdir();
    let result = play(["ok", "slow_later"], &dir, 2.0).await;
    assert_deactivated(&result, 1, FaultKind::Timeout);
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn unparsable_output_deactivates() {
    let (_guard, dir) = tempdir();
    let result = play(["garbage", "ok"], &dir, ROOMY).await;
    assert_deactivated(&result, 0, FaultKind::Unparsable);
    let steps = result.record["steps"].as_array().expect("steps");
    assert!(steps.iter().any(|s| {
        s["output"]
            .as_str()
            .is_some_and(|o| o.starts_with("hello world"))
    }));
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn crash_deactivates() {
    let (_guard, dir) = tempdir();
    let result = play(["ok", "crash"], &dir, ROOMY).await;
    assert_deactivated(&result, 1, FaultKind::Crashed);
    assert_no_process_left(&dir);
}

#[tokio::test]
async fn stderr_flood_and_spinning_at_the_end_are_contained() {
    let (_guard, dir) = tempdir();
    let result = play(["flood", "spin_at_end"], &dir, ROOMY).await;
    assert!(
        result.faults[0].is_empty() && result.faults[1].is_empty(),
        "{:?}",
        result.faults
    );
    assert!(scores(&result).iter().all(|&s| s >= 0));
    let flood = &result.record["players"][0];
    // Kept with the answers it was written for, and after the last one: 4096 bytes in all.
    let kept: usize = result.record["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["player"] == 0)
        .filter_map(|s| s["stderr"].as_str())
        .chain(flood["stderr"].as_str())
        .map(str::len)
        .sum();
    assert!(kept > 0 && kept <= 4096, "{kept} bytes kept");
    assert!(flood["stderr_dropped"].as_u64().expect("dropped counted") > 0);
    assert_no_process_left(&dir);
}

/// Regression: a stop and a continue back to back, while the bot's shell forks, could leave the
/// forked child stopped: Linux gave it the stop but not the continue, and the bot waited on it until
/// its first answer timed out (3 games in 39 of this file's tests, with `python3` a pyenv shim).
/// Here each bot forks while it starts and is stopped and continued at once, at a different
/// moment each time; every one must answer.
#[tokio::test]
async fn a_bot_stopped_and_continued_while_it_forks_still_answers() {
    let (_guard, dir) = tempdir();
    // Forks for a while (each `$(...)` is one), then answers every ask with WAIT.
    let script = format!(
        "echo > {}/$$.pid; for i in $(seq 40); do x=$(true); done; \
         while read -r line; do case $line in *WAIT*) echo WAIT;; esac; done",
        dir.display()
    );
    let mut game = Spring2021::new(&League::Bronze, 42);
    let mut obs = Obs::default();
    game.observe(0, &mut obs);
    for attempt in 0..80u64 {
        let mut agent = StreamAgent::<Spring2021>::new(ProcessSpec {
            argv: vec!["bash".into(), "-c".into(), script.clone()],
            workdir: None,
            stderr_cap: 4096,
            time_scale: 1.0,
            cpu: None,
            sandbox: None,
            clock: ClockKind::Wall,
        });
        agent.start().await.expect("the bot starts");
        std::thread::sleep(Duration::from_micros(attempt % 10 * 700));
        agent.pause();
        agent.resume();
        // Roomy: a stuck bot never answers, a loaded machine only answers late.
        let reply = agent.act(&obs, true, Duration::from_secs(20)).await;
        assert!(
            matches!(reply.answer, Answer::Action(_)),
            "attempt {attempt}: {:?}",
            reply.answer
        );
        agent.finish().await;
    }
    assert_no_process_left(&dir);
}

//! Kill -9 a real tournament at random moments and resume it: the journal ends with exactly the
//! scheduled games, no duplicates, no gaps, and the same results as an uninterrupted run.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn tournament(args: &[&str]) -> Command {
    let mut command = Command::new(ARENA);
    command
        .arg("tournament")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// The journal as index → line, checking there is no duplicate and every line parses.
fn journal(dir: &Path) -> BTreeMap<u64, serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("journal");
    let mut games = BTreeMap::new();
    for line in text.lines() {
        let mut entry: serde_json::Value = serde_json::from_str(line).expect("a whole JSON line");
        let index = entry["index"].as_u64().expect("index");
        // The replay path is the same in both runs, its content is checked separately.
        entry.as_object_mut().expect("object").remove("replay");
        assert!(
            games.insert(index, entry).is_none(),
            "game {index} journaled twice"
        );
    }
    games
}

/// A small deterministic generator for the kill moments (the test must not depend on the clock's luck
/// for what it checks, only for where the kills land).
fn next(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

#[test]
fn kill_9_at_random_moments_then_resume_loses_and_repeats_nothing() {
    let root = tempfile::tempdir().expect("temp dir");
    let reference = root.path().join("reference");
    // The four rule bots: a searching built-in would add measured answer times to the journal,
    // which differ between two runs by nature.
    let common = [
        "langwars2",
        "--bot",
        "random",
        "--bot",
        "spread",
        "--bot",
        "focus",
        "--bot",
        "greedy",
        "--seed",
        "77",
        "--games",
        "2400",
        "--replays",
        "all",
        "--jobs",
        "2",
    ];
    let status = tournament(&common)
        .args(["--out", reference.to_str().expect("utf-8 path")])
        .status()
        .expect("arena runs");
    assert!(status.success());
    let expected = journal(&reference);
    assert_eq!(expected.len(), 2400);
    assert_eq!(*expected.keys().last().expect("games"), 2399);

    let killed = root.path().join("killed");
    let killed_arg = killed.to_str().expect("utf-8 path");
    let mut rng = 12345u64;
    let mut kills = 0;
    let mut kills_mid_run = 0;
    let mut child = tournament(&common)
        .args(["--out", killed_arg])
        .spawn()
        .expect("starts");
    // Up to KILLS kills at random moments, then the last resumed run is left to finish (its final
    // statistics take longer than the longest delay in a debug build).
    const KILLS: u32 = 12;
    loop {
        if kills == KILLS {
            let status = child.wait().expect("waits");
            assert!(status.success(), "the last resumed run ends normally");
            break;
        }
        let delay = Duration::from_millis(30 + next(&mut rng) % 400);
        let started = Instant::now();
        let mut finished = None;
        while started.elapsed() < delay {
            if let Some(status) = child.try_wait().expect("wait") {
                finished = Some(status);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(status) = finished {
            assert!(status.success(), "a resumed run ends normally");
            break;
        }
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        kills += 1;
        let journaled = std::fs::read_to_string(killed.join("results.jsonl"))
            .map(|text| text.lines().count())
            .unwrap_or(0);
        if journaled < 2400 {
            kills_mid_run += 1;
        }
        child = tournament(&["--resume", killed_arg])
            .spawn()
            .expect("resumes");
    }
    assert!(
        kills_mid_run >= 2,
        "only {kills_mid_run} of {kills} kills came before the last game; make the run longer"
    );

    let resumed = journal(&killed);
    assert_eq!(resumed.len(), expected.len(), "no gaps");
    assert_eq!(
        resumed, expected,
        "identical results to the uninterrupted run"
    );

    // Every journaled game has its whole replay.
    for index in [0u64, 1, 777, 2399] {
        let path = killed.join(format!("replays/{index:06}.json.gz"));
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("replay exists"))
            .read_to_string(&mut text)
            .expect("complete gzip");
        let record: serde_json::Value = serde_json::from_str(&text).expect("replay JSON");
        assert_eq!(record["seed"], expected[&index]["seed"]);
    }
    assert!(killed.join("report.html").exists());
}

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
    // Up to KILLS kills, then the last resumed run is left to finish.
    const KILLS: u32 = 12;
    loop {
        if kills == KILLS {
            let status = child.wait().expect("waits");
            assert!(status.success(), "the last resumed run ends normally");
            break;
        }
        // Every other kill comes once the journal reaches a random point of what is left (so it
        // lands mid-run however fast this machine is); the others after a random short delay
        // (start-up, a batch being written, the final statistics).
        let lines_now = journaled_lines(&killed);
        let target = lines_now + 1 + next(&mut rng) % ((2400 - lines_now.min(2400)) / 2).max(1);
        let delay = Duration::from_millis(20 + next(&mut rng) % 200);
        let by_progress = kills % 2 == 0;
        let started = Instant::now();
        let mut finished = None;
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                finished = Some(status);
                break;
            }
            let due = if by_progress {
                journaled_lines(&killed) >= target
            } else {
                started.elapsed() >= delay
            };
            if due {
                break;
            }
            std::thread::sleep(Duration::from_millis(3));
        }
        if let Some(status) = finished {
            assert!(status.success(), "a resumed run ends normally");
            break;
        }
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        kills += 1;
        if journaled_lines(&killed) < 2400 {
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

/// `arena tournament ARGS`, its exit status and stderr.
fn run_tournament(args: &[&str]) -> (bool, String) {
    run_tournament_with(args, &[])
}

/// [`run_tournament`] with these environment variables set.
fn run_tournament_with(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let output = Command::new(ARENA)
        .arg("tournament")
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("arena runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The journal's lines as they are (replay paths included), by index.
fn journal_lines(dir: &Path) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("journal");
    text.lines()
        .map(|line| {
            let entry: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            (entry["index"].as_u64().expect("index"), line.to_string())
        })
        .collect()
}

/// A finished 2-bot built-in tournament in `dir`.
fn finished<'a>(dir: &'a Path, games: &str) -> &'a str {
    let out = dir.to_str().expect("utf-8 path");
    let (ok, stderr) = run_tournament(&[
        "langwars2",
        "--bot",
        "random",
        "--bot",
        "spread",
        "--seed",
        "41",
        "--games",
        games,
        "--jobs",
        "2",
        "--out",
        out,
    ]);
    assert!(ok, "{stderr}");
    out
}

#[test]
fn resume_with_more_games_extends_the_plan_and_keeps_the_games_played() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    let out = finished(&dir, "24");
    let before = journal_lines(&dir);
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).expect("plan"))
            .expect("plan JSON");
    let rounds = plan["rounds"].as_u64().expect("rounds");
    let per_round = before.len() as u64 / rounds;
    assert_eq!(before.len() as u64, rounds * per_round);

    let (ok, stderr) = run_tournament(&["--resume", out, "--games", "48", "--jobs", "2"]);
    assert!(ok, "{stderr}");
    let total = 48u64.div_ceil(per_round) * per_round;
    assert!(
        stderr.contains(&format!(
            "extending {out} from {} to {total} games ({rounds} to {} rounds)",
            before.len(),
            total / per_round
        )),
        "{stderr}"
    );
    let after = journal_lines(&dir);
    assert_eq!(after.len() as u64, total, "the new total is played");
    assert_eq!(*after.keys().last().expect("games"), total - 1);
    for (index, line) in &before {
        assert_eq!(&after[index], line, "game {index} is unchanged");
    }
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).expect("plan"))
            .expect("plan JSON");
    assert_eq!(plan["rounds"].as_u64(), Some(total / per_round));
    assert!(!dir.join("tournament.json.new").exists());
    let summary = std::fs::read_to_string(dir.join("summary.json")).expect("summary");
    let summary: serde_json::Value = serde_json::from_str(&summary).expect("summary JSON");
    assert!(
        summary.to_string().contains(&format!("\"games\":{total}")),
        "the summary counts every game: {summary}"
    );

    // The same number again: nothing to extend; fewer: refused, the plan kept.
    let (ok, stderr) = run_tournament(&["--resume", out, "--games", &total.to_string()]);
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("extending"), "{stderr}");
    let (ok, stderr) = run_tournament(&["--resume", out, "--games", "10"]);
    assert!(!ok, "shrinking is refused");
    assert!(stderr.contains("cannot shrink"), "{stderr}");
    assert_eq!(journal_lines(&dir).len() as u64, total);
}

#[test]
fn resume_refuses_options_that_change_the_plan_and_accepts_equal_ones() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    let out = finished(&dir, "12");
    let refused: &[(&[&str], &str)] = &[
        (&["--bot", "random", "--bot", "focus"], "--bot"),
        (&["--seed", "42"], "--seed"),
        (&["--league", "bronze"], "--league"),
        (&["--schedule", "koth"], "--schedule"),
        (&["--gauntlet", "random"], "--gauntlet"),
        (&["--permutations"], "--permutations"),
        (&["--replays", "none"], "--replays"),
        (&["--time-scale", "2"], "--time-scale"),
        (&["--stderr-cap", "10"], "--stderr-cap"),
        (&["--time-policy", "strikes"], "--time-policy"),
        (&["--clock", "cpu"], "--clock"),
        (&["--workdir", "/tmp", "--workdir", "/tmp"], "--workdir"),
        (&["--sprt", "0", "10"], "--sprt"),
        (&["--no-pause"], "--no-pause"),
    ];
    for (options, name) in refused {
        let mut args = vec!["--resume", out];
        args.extend_from_slice(options);
        let (ok, stderr) = run_tournament(&args);
        assert!(!ok, "{options:?} is refused");
        assert!(stderr.contains(name), "{options:?}: {stderr}");
        assert!(stderr.contains("--out"), "{options:?}: {stderr}");
    }
    // Several at once: one error naming each.
    let (ok, stderr) = run_tournament(&["--resume", out, "--seed", "1", "--time-scale", "3"]);
    assert!(!ok);
    assert!(stderr.contains("--seed 1 (the plan's: 41)"), "{stderr}");
    assert!(stderr.contains("--time-scale 3"), "{stderr}");
    // Options equal to the plan's, and those about how it runs, pass.
    let (ok, stderr) = run_tournament(&[
        "--resume",
        out,
        "--bot",
        "random",
        "--bot",
        "spread",
        "--seed",
        "41",
        "--schedule",
        "round-robin",
        "--replays",
        "auto",
        "--time-scale",
        "1",
        "--jobs",
        "1",
        "--format",
        "json",
        "--no-pin",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(journal_lines(&dir).len(), 12);
}

/// Whole lines in the tournament's journal so far (a torn last line is not counted).
fn journaled_lines(dir: &std::path::Path) -> u64 {
    std::fs::read(dir.join("results.jsonl"))
        .map(|bytes| bytes.iter().filter(|&&b| b == b'\n').count() as u64)
        .unwrap_or(0)
}

/// A game's own options are kept in the plan (with those the environment set), a resumed run plays
/// with them, and a resume that gives other values is refused naming each one.
#[test]
fn game_options_are_kept_in_the_plan_and_checked_on_resume() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("coup");
    let out = dir.to_str().expect("utf-8 path");
    let deck = "_0'<'<0<_=0=_'=";
    let (ok, stderr) = run_tournament_with(
        &[
            "coup",
            "--bot",
            "random",
            "--bot",
            "income",
            "--games",
            "4",
            "--seed",
            "5",
            "--strict-moves",
            "--call-limit-ms",
            "900",
            "--out",
            out,
        ],
        &[("COUP_DECK", deck)],
    );
    assert!(ok, "{stderr}");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).expect("plan"))
            .expect("plan JSON");
    assert_eq!(
        plan["settings"]["game_options"],
        serde_json::json!({"call_limit_ms": 900, "deck": deck, "strict_moves": true}),
        "the options given and the variable's deck are kept, typed"
    );

    let (ok, stderr) = run_tournament(&["--resume", out, "--call-limit-ms", "100", "--no-shuffle"]);
    assert!(!ok, "other values are refused");
    assert!(
        stderr.contains("--call-limit-ms 100 (the plan's: 900)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--no-shuffle on (the plan's: not set)"),
        "{stderr}"
    );
    // The same values pass, and the environment no longer matters: the plan's deck is played.
    let (ok, stderr) = run_tournament_with(
        &["--resume", out, "--strict-moves", "--games", "8"],
        &[("COUP_DECK", "______")],
    );
    assert!(ok, "{stderr}");
    assert_eq!(journal_lines(&dir).len(), 8);
}

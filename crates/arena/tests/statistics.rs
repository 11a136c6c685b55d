//! The statistics a user bets on, through the real command: the SPRT's verdict (printed, saved,
//! resumed), shared ranks for bots that always draw, and a journal that refuses forged lines.

use std::path::Path;
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary"))
        .expect("summary is JSON")
}

fn journal_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("journal")
        .lines()
        .count()
}

#[test]
fn a_stronger_bot_accepts_h1_and_every_output_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let out_text = out.to_str().expect("utf-8");
    let run = arena(&[
        "tournament",
        "spring2021",
        "--bot",
        "planner",
        "--bot",
        "random",
        "--sprt",
        "0",
        "50",
        "--games",
        "2000",
        "--seed",
        "3",
        "--out",
        out_text,
    ]);
    succeeded(&run);
    assert!(
        !text(&run.stderr).contains("standings after"),
        "no live standings without a terminal unless asked"
    );
    let printed = text(&run.stdout);
    let verdict_line = printed
        .lines()
        .find(|line| line.starts_with("SPRT of planner against random"))
        .expect("the verdict is printed")
        .to_string();
    assert!(verdict_line.contains("H1 accepted"), "{verdict_line}");

    let sprt = &summary(&out)["stats"]["sprt"];
    assert_eq!(sprt["decision"]["verdict"], "accept_h1");
    let units = sprt["units"].as_u64().expect("units");
    assert_eq!(sprt["decision"]["units"].as_u64(), Some(units));
    // Every unit is a whole pair, and no verdict comes before the test allows one.
    assert!(units >= sprt["min_units"].as_u64().expect("min units"));
    let csv = std::fs::read_to_string(out.join("leaderboard.csv")).expect("csv");
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let verdict_column = header
        .iter()
        .position(|&h| h == "sprt_verdict")
        .expect("column");
    for row in csv.lines().skip(1) {
        assert_eq!(row.split(',').nth(verdict_column), Some("H1"), "{row}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).expect("report");
    assert!(html.contains("H1 accepted"));

    // Resuming a decided run plays nothing and reports the same verdict.
    let games = journal_lines(&out);
    let resumed = arena(&["tournament", "--resume", out_text]);
    succeeded(&resumed);
    assert_eq!(journal_lines(&out), games);
    assert!(text(&resumed.stdout).contains(&verdict_line));
    assert_eq!(summary(&out)["stats"]["sprt"], *sprt);
}

/// `--live`: the standings and the SPRT's LLR while games play, on stderr, as the counts grow; the
/// last ones printed never pass the final verdict's.
#[test]
fn live_standings_show_the_table_and_the_llr_as_games_come_in() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let run = arena(&[
        "tournament",
        "spring2021",
        "--bot",
        "planner",
        "--bot",
        "random",
        "--sprt",
        "0",
        "50",
        "--games",
        "400",
        "--seed",
        "3",
        "--live",
        "0.000001",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    succeeded(&run);
    let said = text(&run.stderr);
    let counts: Vec<u64> = said
        .lines()
        .filter_map(|line| line.strip_prefix("standings after "))
        .map(|rest| {
            rest.split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a count")
        })
        .collect();
    assert!(counts.len() >= 2, "{said}");
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");
    let blocks: Vec<&str> = said.split("standings after ").skip(1).collect();
    for block in &blocks {
        assert!(
            block.contains(" planner ") && block.contains(" random "),
            "{block}"
        );
        assert!(block.contains("the LLR is"), "{block}");
    }
    // The last print came after the deciding game: its evidence is the final verdict's.
    let printed = text(&run.stdout);
    let evidence = printed
        .lines()
        .find(|line| line.trim_start().starts_with("After ") && line.contains("the LLR is"))
        .expect("the final evidence")
        .trim();
    assert!(
        blocks.last().expect("a block").contains(evidence),
        "{evidence}\n{said}"
    );
}

#[test]
fn identical_bots_never_stop_within_forty_games() {
    let dir = tempfile::tempdir().expect("temp dir");
    for seed in ["1", "2", "3"] {
        let out = dir.path().join(seed);
        let run = arena(&[
            "tournament",
            "spring2021",
            "--bot",
            "a=random",
            "--bot",
            "b=random",
            "--sprt",
            "0",
            "5",
            "--games",
            "1000",
            "--seed",
            seed,
            "--format",
            "csv",
            "--replays",
            "none",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        succeeded(&run);
        let sprt = &summary(&out)["stats"]["sprt"];
        assert_ne!(sprt["decision"]["verdict"], "accept_h1", "seed {seed}");
        if let Some(units) = sprt["decision"]["units"].as_u64() {
            assert!(units * 2 >= 40, "seed {seed}: stopped after {units} pairs");
        }
    }
}

#[test]
fn bots_that_always_draw_share_first_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let run = arena(&[
        "tournament",
        "langwars2",
        "--bot",
        "s1=spread",
        "--bot",
        "s2=spread",
        "--bot",
        "s3=spread",
        "--bot",
        "s4=spread",
        "--games",
        "200",
        "--seed",
        "5",
        "--format",
        "csv",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    succeeded(&run);
    let csv = text(&run.stdout);
    for row in csv.lines().skip(1) {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields[0], "1", "every bot is first: {row}");
        // A shared first place is half a point, everywhere.
        assert_eq!(fields[7], "0.5", "{row}");
    }
    let stats = &summary(&out)["stats"];
    for bot in stats["global_fit"]["bots"].as_array().expect("fit") {
        assert_eq!(bot["rank"], 1);
        assert_eq!(bot["rank_interval"], serde_json::json!([1, 1]));
    }
}

#[test]
fn resume_refuses_a_forged_or_garbled_journal_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let out_text = out.to_str().expect("utf-8");
    succeeded(&arena(&[
        "tournament",
        "spring2021",
        "--bot",
        "planner",
        "--bot",
        "random",
        "--games",
        "20",
        "--seed",
        "8",
        "--out",
        out_text,
    ]));
    let journal = out.join("results.jsonl");
    let original = std::fs::read_to_string(&journal).expect("journal");
    let first: serde_json::Value =
        serde_json::from_str(original.lines().next().expect("a line")).expect("JSON");

    // A game the schedule has not played yet, claimed with a fat score: its index is outside the
    // plan, or its seed and seats are not the schedule's.
    let mut forged = first.clone();
    forged["index"] = serde_json::json!(5000);
    let mut wrong_seats = first.clone();
    wrong_seats["seats"] = serde_json::json!([1, 0]);
    wrong_seats["bots"] = serde_json::json!(["random", "planner"]);
    let mut inflated = first.clone();
    inflated["scores"] = serde_json::json!([1000, 0]);
    inflated["ranks"] = serde_json::json!([2, 1]);
    for (what, line) in [
        ("not scheduled", forged.to_string()),
        ("seat order", wrong_seats.to_string()),
        ("ranking", inflated.to_string()),
    ] {
        let mut lines: Vec<String> = original.lines().skip(1).map(str::to_string).collect();
        lines.insert(3, line);
        std::fs::write(&journal, lines.join("\n") + "\n").expect("write");
        let resumed = arena(&["tournament", "--resume", out_text]);
        assert!(!resumed.status.success(), "{what} accepted");
        let error = text(&resumed.stderr);
        assert!(
            error.contains("line 4") && error.contains(what),
            "{what}: {error}"
        );
    }
    let mut garbled = original.clone().into_bytes();
    garbled.splice(0..0, b"\xff\xfe{}\n".iter().copied());
    std::fs::write(&journal, garbled).expect("write");
    let resumed = arena(&["tournament", "--resume", out_text]);
    assert!(!resumed.status.success());
    let error = text(&resumed.stderr);
    assert!(
        error.contains("line 1") && error.contains("UTF-8"),
        "{error}"
    );
}

#[test]
fn a_missing_game_holds_the_test_until_resume_plays_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let out_text = out.to_str().expect("utf-8");
    succeeded(&arena(&[
        "tournament",
        "spring2021",
        "--bot",
        "planner",
        "--bot",
        "random",
        "--sprt",
        "0",
        "50",
        "--games",
        "2000",
        "--seed",
        "3",
        "--replays",
        "none",
        "--out",
        out_text,
    ]));
    let decided = summary(&out)["stats"]["sprt"].clone();
    assert_eq!(decided["decision"]["verdict"], "accept_h1");

    // Take out game 5 (as an interrupted run leaves a hole): the statistics stop the test there.
    let journal = out.join("results.jsonl");
    let text = std::fs::read_to_string(&journal).expect("journal");
    let kept: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with("{\"index\":5,"))
        .collect();
    assert_eq!(kept.len() + 1, text.lines().count());
    std::fs::write(&journal, kept.join("\n") + "\n").expect("write");

    // Resume plays the missing game (workers already busy may finish a few more, which the test
    // does not count), and the test decides exactly as before.
    let resumed = arena(&["tournament", "--resume", out_text]);
    succeeded(&resumed);
    let after = std::fs::read_to_string(&journal).expect("journal");
    assert!(after.lines().any(|line| line.starts_with("{\"index\":5,")));
    let sprt = &summary(&out)["stats"]["sprt"];
    for field in ["decision", "units", "counts", "status", "games"] {
        assert_eq!(sprt[field], decided[field], "{field}");
    }
}

//! `arena koth`: Coup's King of the Hill as a tournament of its own schedule, so it has what a
//! tournament has: games on several jobs with the same results, a journal that resumes, a report.

use std::path::Path;
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn koth(args: &[&str]) -> Output {
    let output = Command::new(ARENA)
        .arg("koth")
        .args(args)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{args:?}\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

const BOTS: [&str; 8] = [
    "--bot",
    "Calc=calculator",
    "--bot",
    "Chal=challenger",
    "--bot",
    "Tax=taxman",
    "--bot",
    "Inc=income",
];

/// The original's leaderboard block: `points name` rows under its heading.
fn points(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .split("\n\n")
        .next()
        .expect("the KotH block")
        .to_string()
}

fn journal_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("journal")
        .lines()
        .count()
}

#[test]
fn a_koth_on_two_jobs_is_the_koth_on_one_and_resumes_to_the_same() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = |name: &str| root.path().join(name);
    let run = |name: &str, jobs: &str, rounds: &str| {
        let out = dir(name);
        let mut args = vec!["coup"];
        args.extend(BOTS);
        args.extend(["--seed", "5", "--jobs", jobs, "--rounds", rounds, "--dir"]);
        args.push(out.to_str().expect("utf-8"));
        koth(&args)
    };
    let one = run("one", "1", "3");
    let block = points(&one);
    assert!(block.starts_with("King of the Hill (36 games):"), "{block}");
    // 1 point per win: the points and the games without a winner make the games.
    let total: u32 = block
        .lines()
        .skip(1)
        .map(|line| {
            line.split_whitespace()
                .next()
                .expect("points")
                .parse::<u32>()
                .expect("a number")
        })
        .sum();
    assert!(total <= 36 && total > 0, "{block}");
    assert_eq!(journal_lines(&dir("one")), 36);
    assert!(dir("one").join("report.html").is_file());

    let two = run("two", "2", "3");
    assert_eq!(points(&two), block, "the same KotH on two jobs");

    // A KotH of one round, then resumed to three: the same as three at once.
    run("grown", "2", "1");
    assert_eq!(journal_lines(&dir("grown")), 12);
    let resumed = koth(&[
        "--resume",
        dir("grown").to_str().expect("utf-8"),
        "--rounds",
        "3",
    ]);
    assert_eq!(points(&resumed), block);
    assert_eq!(journal_lines(&dir("grown")), 36);
}

#[test]
fn a_koth_refuses_the_options_of_other_schedules() {
    let mut args = BOTS.to_vec();
    args.extend(["--sprt", "0", "5"]);
    let output = Command::new(ARENA)
        .arg("koth")
        .arg("coup")
        .args(&args)
        .output()
        .expect("arena runs");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("takes no --sprt"), "{said}");
}

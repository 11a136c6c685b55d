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

/// Each entrant plays every game in its one folder, kept for the whole KotH as the original kept
/// `NAME/` (entrants may keep state between games), and never in two games at once, even on two
/// jobs: each call takes a lock in the folder and forfeits if it is held, and logs itself there.
#[test]
fn entrants_keep_one_folder_for_the_whole_koth_and_never_share_it() {
    let root = tempfile::tempdir().expect("temp dir");
    let starter = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../arena-coup/starters/bot.py")
        .canonicalize()
        .expect("the Coup starter");
    let script = root.path().join("locking.sh");
    // The starter is named in the command, so that the sandbox shows it.
    std::fs::write(
        &script,
        "starter=$1; shift\nmkdir lock 2>/dev/null || exit 3\necho \"$1\" >> calls.log\n\
         python3 \"$starter\" \"$@\"\nstatus=$?\nrmdir lock\nexit $status\n",
    )
    .expect("the bot");
    let bot = |name: &str| format!("{name}=sh {} {}", script.display(), starter.display());
    let out = root.path().join("koth");
    let out_text = out.to_str().expect("utf-8");
    let (a, b) = (bot("LockA"), bot("LockB"));
    let args = [
        "coup",
        "--bot",
        &a,
        "--bot",
        &b,
        "--bot",
        "Calc=calculator",
        "--bot",
        "Inc=income",
        "--rounds",
        "1",
        "--jobs",
        "2",
        "--seed",
        "9",
        "--dir",
        out_text,
    ];
    let played = koth(&args);
    let stdout = String::from_utf8_lossy(&played.stdout);
    for name in ["LockA", "LockB"] {
        let row = stdout
            .lines()
            .find(|line| line.split_whitespace().nth(1) == Some(name) && line.contains('-'))
            .expect("its row");
        assert!(row.trim_end().ends_with(" -"), "no fault: {row}\n{stdout}");
        // Every call of its 6 games logged in the one folder.
        let log = std::fs::read_to_string(out.join("bots").join(name).join("calls.log"))
            .expect("the kept folder's log");
        assert!(log.lines().count() >= 6, "{log}");
    }
    // A resumed KotH goes on in the same folders.
    let before = std::fs::read_to_string(out.join("bots/LockA/calls.log")).expect("log");
    koth(&["--resume", out_text, "--rounds", "2"]);
    let after = std::fs::read_to_string(out.join("bots/LockA/calls.log")).expect("log");
    assert!(after.starts_with(&before) && after.len() > before.len());
}

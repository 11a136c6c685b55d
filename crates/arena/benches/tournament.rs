//! Tournament figures (issue 5), each from real `arena tournament` runs:
//! - `scaling`: games/s of built-in bots with 1 and with 2 worker threads (the play phase);
//! - `memory`: peak RSS of a 1 000 000-game langwars2 tournament;
//! - `timeouts`: process bots that think for half their time limit, at the default concurrency and at
//!   twice the cores: how many answers time out;
//! - `stats`: the statistics pass (journal read, every tally, the fit with its bootstrap) over
//!   1 000 000 langwars2 games and over 2 000 Spring 2021 games of an undefeated bot, in µs per game,
//!   best of 3, with the peak memory of this process.
//!
//! Run: `cargo bench -p arena --bench tournament [-- scaling|memory|timeouts|stats]` (all by default).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn main() {
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |name: &str| wanted.is_empty() || wanted.iter().any(|w| w == name);
    let dir = tempfile::tempdir().expect("temp dir");
    if run("scaling") {
        scaling(dir.path());
    }
    if run("memory") {
        memory(dir.path());
    }
    if run("timeouts") {
        timeouts(dir.path());
    }
    if run("stats") {
        stats(dir.path());
    }
}

/// The statistics pass, in process, on journals made by real runs.
fn stats(dir: &Path) {
    let cases: [(&str, &[&str]); 2] = [
        (
            "stats-langwars2",
            &[
                "langwars2",
                "--seed",
                "6",
                "--games",
                "1000000",
                "--replays",
                "none",
                "--bot",
                "random",
                "--bot",
                "random",
                "--bot",
                "random",
                "--bot",
                "random",
            ],
        ),
        (
            "stats-spring2021",
            &[
                "spring2021",
                "--seed",
                "6",
                "--games",
                "2000",
                "--replays",
                "none",
                "--bot",
                "planner",
                "--bot",
                "random",
            ],
        ),
    ];
    for (name, args) in cases {
        tournament(dir, name, args);
        let out = dir.join(name);
        let plan = arena_tournament::load(&out).expect("plan");
        let games = plan.total_games() as f64;
        let mut best = f64::MAX;
        for _ in 0..3 {
            let started = Instant::now();
            let (report, _) = arena_tournament::report::compute(&out, &plan, 200).expect("stats");
            best = best.min(started.elapsed().as_secs_f64());
            assert_eq!(report.games as f64, games);
        }
        println!(
            "stats: {} {} games: {:.2} µs per game ({:.2} s, 200 bootstrap resamples, best of 3), peak RSS of this process {:.1} MB",
            plan.game,
            games,
            best / games * 1e6,
            best,
            peak_self_rss_kb() as f64 / 1024.0
        );
    }
}

/// Peak RSS of this process, in KiB.
fn peak_self_rss_kb() -> i64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss
}

/// Runs a tournament and returns (games/s of the play phase as arena reports it, stderr).
fn tournament(dir: &Path, name: &str, args: &[&str]) -> (f64, String) {
    tournament_on(None, dir, name, args)
}

/// The same, confined to the CPUs in `cpus` (a `taskset -c` list) when given.
fn tournament_on(cpus: Option<&str>, dir: &Path, name: &str, args: &[&str]) -> (f64, String) {
    let out = dir.join(name);
    let mut command = match cpus {
        Some(list) => {
            let mut taskset = Command::new("taskset");
            taskset.args(["-c", list, ARENA]);
            taskset
        }
        None => Command::new(ARENA),
    };
    let output = command
        .arg("tournament")
        .args(args)
        .args(["--out", out.to_str().expect("utf-8"), "--format", "csv"])
        .output()
        .expect("arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "arena failed: {stderr}");
    let rate = stderr
        .lines()
        .find_map(|line| {
            line.split(": ")
                .nth(1)?
                .strip_suffix(" games/s)")?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no rate in: {stderr}"));
    (rate, stderr)
}

fn scaling(dir: &Path) {
    for (label, bots) in [
        ("langwars2, the four built-in bots", vec![]),
        ("langwars2, four random bots", vec!["random"; 4]),
    ] {
        let mut args = vec!["langwars2", "--seed", "5", "--replays", "none"];
        for bot in &bots {
            args.extend(["--bot", bot]);
        }
        let games = if bots.is_empty() { "20000" } else { "2000000" };
        args.extend(["--games", games]);
        let mut one = Vec::new();
        let mut two = Vec::new();
        for round in 0..3 {
            // The whole process on one core (its journal writer included), then on two.
            let one_core = [args.as_slice(), &["--jobs", "1"]].concat();
            let (rate, _) =
                tournament_on(Some("0"), dir, &format!("one-{label}-{round}"), &one_core);
            one.push(rate);
            let two_cores = [args.as_slice(), &["--jobs", "2"]].concat();
            let (rate, _) = tournament_on(
                Some("0,1"),
                dir,
                &format!("two-{label}-{round}"),
                &two_cores,
            );
            two.push(rate);
        }
        let best = |rates: &[f64]| rates.iter().copied().fold(0.0, f64::max);
        println!(
            "scaling ({label}, {games} games): 1 core {:.0} games/s, 2 cores {:.0} games/s: {:.2}x (best of 3)",
            best(&one),
            best(&two),
            best(&two) / best(&one)
        );
    }
}

fn memory(dir: &Path) {
    let started = Instant::now();
    let (rate, _) = tournament(
        dir,
        "memory",
        &[
            "langwars2",
            "--seed",
            "6",
            "--games",
            "1000000",
            "--replays",
            "none",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
        ],
    );
    let peak = peak_child_rss_kb();
    println!(
        "memory: 1 000 000 langwars2 games (play {:.0} games/s, whole run with statistics {:.1} s): peak RSS {:.1} MB",
        rate,
        started.elapsed().as_secs_f64(),
        peak as f64 / 1024.0
    );
}

/// Largest peak RSS of the children waited for so far, in KiB.
fn peak_child_rss_kb() -> i64 {
    // SAFETY: getrusage only writes the struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage.ru_maxrss
    }
}

fn timeouts(dir: &Path) {
    let bot = dir.join("cpu_bot");
    let source = format!("{}/benches/cpu_bot.c", env!("CARGO_MANIFEST_DIR"));
    let status = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bot)
        .arg(&source)
        .status()
        .expect("cc builds the thinking bot");
    assert!(status.success());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Lang Wars limits scaled to 100 ms (time-scale 0.1, to keep the run under half an hour); each
    // answer burns 50 ms of CPU. The default concurrency plays 1000 games (36 000 answers); twice the
    // cores plays 200, enough to show what happens.
    let command = format!("{} 50000", bot.display());
    for (jobs, games) in [(cores, "1000"), (2 * cores, "200")] {
        let name = format!("timeouts-{jobs}");
        let jobs_text = jobs.to_string();
        let args = [
            "langwars2",
            "--seed",
            "8",
            "--games",
            games,
            "--time-scale",
            "0.1",
            "--replays",
            "none",
            "--jobs",
            &jobs_text,
            "--bot",
            &command,
            "--bot",
            &command,
            "--bot",
            &command,
            "--bot",
            &command,
        ];
        let (rate, _) = tournament(dir, &name, &args);
        let journal =
            std::fs::read_to_string(dir.join(&name).join("results.jsonl")).expect("journal");
        let timeouts = journal.matches("\"timeout\"").count();
        let games = journal.lines().count();
        println!(
            "timeouts: {games} games ({} answers) with bots thinking half their limit, {jobs} games at once on \
             {cores} cores ({}): {timeouts} timeouts ({rate:.1} games/s)",
            games * 36,
            if jobs == cores {
                "the default"
            } else {
                "forced to twice the cores"
            }
        );
    }
}

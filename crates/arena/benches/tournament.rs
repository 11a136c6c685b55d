//! Tournament figures (issue 5), each from real `arena tournament` runs:
//! - `scaling`: games/s of built-in bots with 1 and with 2 worker threads (the play phase);
//! - `memory`: peak RSS of a 1 000 000-game langwars2 tournament, the whole command (after the last
//!   game included), and sampled while games play and after;
//! - `timeouts`: process bots that think for half their time limit, at the default concurrency and at
//!   twice the cores: how many answers time out;
//! - `stats`: the statistics pass (journal read, every tally, the fit with its bootstrap) over
//!   1 000 000 langwars2 games and over 2 000 Spring 2021 games of an undefeated bot, in µs per game,
//!   best of 3, with the peak memory of this process over the three passes and over the first.
//!
//! Run: `cargo bench -p arena --bench tournament [-- scaling|memory|timeouts|stats]` (all by default).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
        let mut first_pass = None;
        // The peak from here on: this case's passes only.
        reset_peak_rss();
        for _ in 0..3 {
            let started = Instant::now();
            let (report, _) = arena_tournament::report::compute(&out, &plan, 200).expect("stats");
            best = best.min(started.elapsed().as_secs_f64());
            assert_eq!(report.games as f64, games);
            first_pass.get_or_insert_with(peak_rss_kb);
        }
        let first_pass = first_pass.unwrap_or(0);
        // The kernel's counts lag by a few pages: the peak of three passes is never below the first's.
        let all_passes = peak_rss_kb().max(first_pass);
        println!(
            "stats: {} {} games: {:.2} µs per game ({:.2} s, 200 bootstrap resamples, best of 3), peak RSS of this process {:.1} MB over the 3 passes, {:.1} MB over the first (the later ones add what the allocator kept of the earlier)",
            plan.game,
            games,
            best / games * 1e6,
            best,
            all_passes as f64 / 1024.0,
            first_pass as f64 / 1024.0
        );
    }
}

/// Peak RSS of this process since the last [`reset_peak_rss`], in KiB (VmHWM).
fn peak_rss_kb() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Starts the peak RSS over from the current RSS (Linux: `/proc/self/clear_refs`).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
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
    (rate_of(&stderr), stderr)
}

/// The play phase's games/s, from the line arena prints after the last game.
fn rate_of(stderr: &str) -> f64 {
    stderr
        .lines()
        .find_map(|line| {
            line.split(": ")
                .nth(1)?
                .strip_suffix(" games/s)")?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no rate in: {stderr}"))
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

/// The whole `arena tournament` command's peak RSS, as `/usr/bin/time -v` gives it: the kernel's
/// figure for that one process (`wait4`), after the last game included (the statistics, the
/// report, the faults and lost games read back from the journal). Its RSS is also sampled every
/// 10 ms, to tell the play phase from what comes after the last game.
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped by wait4, which gives its own peak RSS"
)]
fn memory(dir: &Path) {
    let out = dir.join("memory");
    let started = Instant::now();
    let mut child = Command::new(ARENA)
        .arg("tournament")
        .args([
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
        ])
        .args(["--out", out.to_str().expect("utf-8"), "--format", "csv"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena runs");
    let pid = child.id();
    let stderr = child.stderr.take().expect("stderr");
    // The line that closes the play phase ("N of M games done ...").
    let played = Arc::new(AtomicBool::new(false));
    let reader = {
        let played = Arc::clone(&played);
        std::thread::spawn(move || {
            let mut text = String::new();
            for line in BufReader::new(stderr).lines() {
                let line = line.expect("stderr");
                if line.contains(" games done (") {
                    played.store(true, Ordering::SeqCst);
                }
                text.push_str(&line);
                text.push('\n');
            }
            text
        })
    };
    let (mut playing, mut after) = (0i64, 0i64);
    while let Some(rss) = rss_kb(pid) {
        let phase = if played.load(Ordering::SeqCst) {
            &mut after
        } else {
            &mut playing
        };
        *phase = (*phase).max(rss);
        std::thread::sleep(Duration::from_millis(10));
    }
    let (status, peak) = wait_with_peak(pid);
    let stderr = reader.join().expect("stderr reader");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "arena failed: {stderr}"
    );
    println!(
        "memory: 1 000 000 langwars2 games (play {:.0} games/s, whole run with statistics {:.1} s): \
         peak RSS {:.1} MB (the whole command); sampled every 10 ms: {:.1} MB while games play, \
         {:.1} MB after the last game",
        rate_of(&stderr),
        started.elapsed().as_secs_f64(),
        peak as f64 / 1024.0,
        playing as f64 / 1024.0,
        after as f64 / 1024.0
    );
}

/// The RSS of a running process in KiB; `None` once it has exited.
fn rss_kb(pid: u32) -> Option<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    // An exited process (a zombie until it is waited for) has no VmRSS line.
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Waits for the child `pid`: its exit status and its own peak RSS in KiB (not the largest of
/// every child waited for so far, which is what `RUSAGE_CHILDREN` gives).
fn wait_with_peak(pid: u32) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: wait4 only writes the status and the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let waited = libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage);
        assert_eq!(waited, pid as libc::pid_t, "wait4");
        usage
    };
    (status, usage.ru_maxrss)
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

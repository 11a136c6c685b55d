//! The speed guard: every performance figure that once slipped unseen, measured in a way that does
//! not depend on what else the machine is doing, against baselines kept in the repository
//! (`tests/speed_baseline.json`).
//!
//! - **Instructions** (valgrind's callgrind, which counts the instructions this program executes,
//!   whatever the load): one game of each of the five games with the bench bots (`arena bench GAME
//!   --games N`), a stored replay (`arena bench GAME --replays --games N`: the game played,
//!   recorded, encoded and compressed), and the statistics pass with the report
//!   (`arena tournament --resume DIR` over a finished journal). Each is the difference of two runs
//!   (N and 2N games) over N, so the program's start-up cancels out.
//! - **Peak memory** of a 10^5- and a 10^6-game Lang Wars 2 tournament (`--replays none`, four
//!   `random` bots), from the kernel's count of the child's largest resident size.
//! - **One process answer**: the CPU time of the whole process tree of `arena tournament langwars2
//!   --jobs 1` with four trivial C bots and the defaults (sandbox, pausing, replays stored), per
//!   answer, over the CPU time of a bare loop that starts the same bots and asks them as many times,
//!   measured in the same run (a ratio, so the machine's speed and load mostly cancel out).
//!
//! A figure more than its tolerance above its baseline fails with the figure, the baseline and how to
//! update it on purpose: `ARENA_SPEED_BASELINE=update cargo test -p arena --test speed_guard` rewrites
//! the file (commit it with the change that explains it). Instruction counts are exact for one
//! compiler: with another `rustc` than the baseline's the tolerance widens (code generation differs
//! by a few percent) but a regression of the kind this guard exists for (a 6× slower engine) still
//! fails. The figures come from the test build (`cargo test`'s profile, where the engines and the
//! statistics are optimized: see the workspace's Cargo.toml); release figures are in
//! docs/benchmarks.md.

mod common;

use common::cpu_group::CpuGroup;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn baseline_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/speed_baseline.json")
}

#[derive(Serialize, Deserialize, Clone, Debug)]
struct Figure {
    value: f64,
    unit: String,
    /// The largest accepted rise over `value`, as a fraction (0.03: 3 % more fails).
    tolerance: f64,
}

#[derive(Serialize, Deserialize, Default, Debug)]
struct Baseline {
    /// `rustc --version` of the build that counted the instructions.
    rustc: String,
    figures: BTreeMap<String, Figure>,
}

/// How much wider the instruction tolerance is under another compiler than the baseline's.
const OTHER_RUSTC_TOLERANCE: f64 = 0.25;

fn rustc_version() -> String {
    Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn valgrind_missing() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .map_or(true, |o| !o.status.success())
}

/// Instructions callgrind counts for `arena ARGS` (the whole program, every thread).
fn instructions(args: &[&str]) -> u64 {
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(ARENA)
        .args(args)
        .output()
        .expect("valgrind runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "arena {args:?} under callgrind: {stderr}"
    );
    stderr
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no instruction count in callgrind's output: {stderr}"))
}

/// Instructions per unit of `args(n)`: runs with n and 2n, the difference over n.
fn per_unit(n: u64, args: impl Fn(u64) -> Vec<String>) -> f64 {
    let run = |n: u64| {
        let args = args(n);
        instructions(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (one, two) = (run(n), run(2 * n));
    two.saturating_sub(one) as f64 / n as f64
}

fn bench_args(game: &str, replays: bool) -> impl Fn(u64) -> Vec<String> + '_ {
    move |n| {
        let mut args = vec!["bench".to_string(), game.to_string()];
        if replays {
            args.push("--replays".into());
        }
        args.extend(["--games".into(), n.to_string()]);
        args
    }
}

/// `arena tournament` of four `random` Lang Wars 2 bots, `games` games, one at a time, no replays.
fn tournament_command(out: &Path, games: u64) -> Command {
    let mut command = Command::new(ARENA);
    command
        .args(["tournament", "langwars2", "--replays", "none"])
        .args(["--jobs", "1", "--seed", "1", "--games", &games.to_string()])
        .args(["--bot", "random", "--bot", "random", "--bot", "random"])
        .args(["--bot", "random", "--out"])
        .arg(out)
        .stdout(Stdio::null());
    command
}

fn tournament(dir: &Path, games: u64) {
    let output = tournament_command(dir, games).output().expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Peak resident memory (bytes) of `arena tournament` of `games` games: the largest resident size
/// of the child the kernel reports when it is reaped.
fn peak_memory(dir: &Path, games: u64) -> f64 {
    let out = dir.join(format!("memory-{games}"));
    let child = tournament_command(&out, games)
        .stderr(Stdio::null())
        .spawn()
        .expect("arena runs");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data, zeroed is a valid value; wait4 writes it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the {games}-game tournament failed"
    );
    // Reaped already; dropping a `Child` does not wait for it.
    drop(child);
    let _ = std::fs::remove_dir_all(&out);
    usage.ru_maxrss as f64 * 1024.0
}

fn c_bot(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c/lw2_bot.c");
    let binary = dir.join("lw2_bot");
    let built = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
        .expect("cc runs (apt-get install gcc)");
    assert!(built.success(), "cc {}", source.display());
    binary
}

/// The answers of one game: 4 bots × 9 turns.
const ANSWERS_PER_GAME: u64 = 36;

/// CPU seconds of a `games`-game arena tournament of four C bots, one game at a time, with the
/// defaults otherwise (sandbox, replays stored).
fn arena_answers(out: &Path, bot: &Path, games: u64) -> f64 {
    let group = CpuGroup::new("arena");
    let mut command = Command::new(ARENA);
    group.enter(&mut command);
    command.args(["tournament", "langwars2", "--jobs", "1", "--seed", "1"]);
    for _ in 0..4 {
        command.arg("--bot").arg(bot);
    }
    let output = command
        .args(["--games", &games.to_string()])
        .arg("--out")
        .arg(out)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    group.seconds()
}

/// CPU seconds of `games` bare games: the four bots started, READY read, the settings and nine
/// turns of asks of Lang Wars 2's size written and answered, the bots ended.
fn bare_answers(bot: &Path, games: u64) -> f64 {
    let ask = {
        let mut ask = String::from("1 W\n");
        for _ in 0..6 {
            ask.push_str("0 0 0 0\n");
        }
        ask.push_str("0 0 0 0 0 0\n0 0 0 0\n");
        ask
    };
    let group = CpuGroup::new("bare");
    for _ in 0..games {
        let mut bots: Vec<_> = (0..4)
            .map(|_| {
                let mut command = Command::new(bot);
                group.enter(&mut command);
                let mut child = command
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("the bot starts");
                let stdin = child.stdin.take().expect("stdin");
                let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
                let mut line = String::new();
                stdout.read_line(&mut line).expect("READY");
                (child, stdin, stdout)
            })
            .collect();
        for (_, stdin, _) in &mut bots {
            stdin.write_all(b"9 4 6\n3 4 5 6 3 4\n").expect("settings");
        }
        for _ in 0..9 {
            for (_, stdin, stdout) in &mut bots {
                stdin.write_all(ask.as_bytes()).expect("ask");
                stdin.flush().expect("flush");
                let mut line = String::new();
                stdout.read_line(&mut line).expect("answer");
            }
        }
        for (mut child, stdin, _) in bots {
            drop(stdin);
            let _ = child.wait();
        }
    }
    group.seconds()
}

#[test]
fn no_figure_slips_past_its_baseline() {
    assert!(
        !valgrind_missing(),
        "the speed guard counts instructions with valgrind: apt-get install valgrind \
         (scripts/test installs it)"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let mut measured: BTreeMap<String, Figure> = BTreeMap::new();
    let mut put = |name: &str, value: f64, unit: &str, tolerance: f64| {
        measured.insert(
            name.to_string(),
            Figure {
                // Counts and bytes as whole numbers, ratios to three decimals.
                value: if value >= 100.0 {
                    value.round()
                } else {
                    (value * 1000.0).round() / 1000.0
                },
                unit: unit.to_string(),
                tolerance,
            },
        );
    };
    let per_game = "instructions per game";
    for (game, n) in [
        ("langwars", 400),
        ("langwars2", 400),
        ("negotiate", 400),
        ("spring2021", 100),
        ("coup", 400),
    ] {
        put(
            &format!("game/{game}"),
            per_unit(n, bench_args(game, false)),
            per_game,
            0.03,
        );
    }
    for (game, n) in [("langwars2", 20), ("spring2021", 10)] {
        put(
            &format!("replay/{game}"),
            per_unit(n, bench_args(game, true)),
            "instructions per game (played unrecorded, played recorded, encoded, compressed)",
            0.03,
        );
    }
    // The statistics pass and the report, over finished journals of N and 2N games.
    let stats_n = 2_000;
    for games in [stats_n, 2 * stats_n] {
        tournament(&dir.path().join(format!("stats-{games}")), games);
    }
    let resume = |games: u64| -> Vec<String> {
        vec![
            "tournament".into(),
            "--resume".into(),
            dir.path()
                .join(format!("stats-{games}"))
                .display()
                .to_string(),
        ]
    };
    put(
        "statistics/langwars2",
        per_unit(stats_n, resume),
        "instructions per game (statistics pass and report, --resume of a finished run)",
        0.03,
    );
    for games in [100_000, 1_000_000] {
        // The least of two runs: the peak (in the final statistics) moves by a few MB from run to
        // run with how the allocator's per-thread arenas were left by the game and writer threads.
        let peak = peak_memory(dir.path(), games).min(peak_memory(dir.path(), games));
        put(
            &format!("memory/langwars2-{games}"),
            peak,
            "bytes, peak resident (tournament, --replays none; least of 2 runs)",
            // The same run's peak moved 54.9-60.6 MB on this machine (10 % would flag noise); the
            // regressions this guards against were 6x, and the 10^6 figure has its 64 MB bar too.
            0.15,
        );
    }
    // Three interleaved rounds of each side; the least CPU time per answer of each (what the work
    // costs when the rest of the machine disturbs it least), then their ratio.
    let bot = c_bot(dir.path());
    let games = 20;
    let per_answer = |seconds: f64| seconds * 1e6 / (games * ANSWERS_PER_GAME) as f64;
    let (mut arena, mut bare) = (f64::MAX, f64::MAX);
    for round in 0..3 {
        let out = dir.path().join(format!("answers-{round}"));
        arena = arena.min(per_answer(arena_answers(&out, &bot, games)));
        bare = bare.min(per_answer(bare_answers(&bot, games)));
    }
    put(
        "process-answer/langwars2",
        arena / bare,
        &format!(
            "CPU time of arena's whole tree per answer over a bare loop's, in cgroups, least of 3 \
             rounds ({arena:.0} µs over {bare:.0} µs)"
        ),
        0.5,
    );

    let rustc = rustc_version();
    let path = baseline_path();
    if std::env::var("ARENA_SPEED_BASELINE").as_deref() == Ok("update") {
        let baseline = Baseline {
            rustc,
            figures: measured,
        };
        let text = serde_json::to_string_pretty(&baseline).expect("JSON") + "\n";
        std::fs::write(&path, text).expect("the baseline written");
        eprintln!("wrote {}", path.display());
        return;
    }
    let baseline: Baseline =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("tests/speed_baseline.json"))
            .expect("the baseline's JSON");
    let same_rustc = baseline.rustc == rustc;
    let mut report = Vec::new();
    let mut failed = Vec::new();
    for (name, figure) in &measured {
        let Some(base) = baseline.figures.get(name) else {
            failed.push(format!(
                "{name}: {} {} has no baseline",
                figure.value, figure.unit
            ));
            continue;
        };
        let mut tolerance = base.tolerance;
        if !same_rustc && base.unit.starts_with("instructions") {
            tolerance = tolerance.max(OTHER_RUSTC_TOLERANCE);
        }
        let ratio = figure.value / base.value;
        let line = format!(
            "{name}: {} against a baseline of {} ({:+.1} %, tolerance +{:.0} %) — {}",
            figure.value,
            base.value,
            (ratio - 1.0) * 100.0,
            tolerance * 100.0,
            figure.unit
        );
        if ratio > 1.0 + tolerance {
            failed.push(line.clone());
        }
        report.push(line);
    }
    eprintln!("{}", report.join("\n"));
    let memory = measured["memory/langwars2-1000000"].value;
    assert!(
        memory < 64.0 * 1024.0 * 1024.0,
        "a 10^6-game tournament peaked at {:.1} MB (bar: under 64 MB)",
        memory / 1048576.0
    );
    assert!(
        failed.is_empty(),
        "figures above their baselines{}:\n{}\nIf the change is meant (a feature that costs, a new \
         compiler), update the baseline on purpose and commit it with the change: \
         ARENA_SPEED_BASELINE=update cargo test -p arena --test speed_guard",
        if same_rustc {
            String::new()
        } else {
            format!(
                " (baseline counted with {}, this is {rustc})",
                baseline.rustc
            )
        },
        failed.join("\n")
    );
}

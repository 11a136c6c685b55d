//! CPU time beside wall time, and `--clock cpu`: judged by behaviour, with bots that burn CPU or
//! sleep for a set time per answer (`tests/bots/lw_clock.py`). The margins hold on a shared machine
//! at a load of 20 on 2 cores, where a CPU-bound bot gets about a tenth of a core: on the wall clock
//! an answer "in time" burns a twentieth of its limit, one "late" sleeps or burns three times it; on
//! the CPU clock the load does not count, but the wall-clock cap (3 × the limit + 1 s) still does, so
//! the CPU burnt stays a tenth of that cap.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn bot(mode: &str, ms: u64) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots/lw_clock.py");
    format!("python3 {} {mode} {ms}", script.display())
}

/// One langwars2 game: three built-in bots and `player` in seat 3, limits at half (500 ms).
fn play(player: &str, extra: &[&str]) -> (Output, serde_json::Value) {
    play_scaled(player, "0.5", extra)
}

/// One langwars2 game: three built-in bots and `player` in seat 3, limits times `scale`.
fn play_scaled(player: &str, scale: &str, extra: &[&str]) -> (Output, serde_json::Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let replay = dir.path().join("game.json");
    let mut args = vec![
        "play",
        "langwars2",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--bot",
        "focus",
        "--bot",
        player,
        "--seed",
        "4",
        "--time-scale",
        scale,
        "--replay",
        replay.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let output = Command::new(ARENA)
        .args(&args)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record = serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay"))
        .expect("replay JSON");
    (output, record)
}

fn faults(record: &serde_json::Value) -> Vec<String> {
    record["players"][3]["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| format!("{}: {}", f["fault"]["kind"], f["fault"]["detail"]))
        .collect()
}

fn cpu_ms(record: &serde_json::Value) -> Vec<f64> {
    record["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["player"] == 3)
        .filter_map(|s| s["cpu_us"].as_u64())
        .map(|us| us as f64 / 1000.0)
        .collect()
}

#[test]
fn cpu_time_is_recorded_beside_wall_time_sandboxed_or_not() {
    for sandbox in ["bwrap", "none"] {
        // Limits at 4 s (wall-clock): 100 ms of CPU is in time even at a tenth of a core.
        let (output, record) = play_scaled(&bot("burn", 100), "4", &["--sandbox", sandbox]);
        assert!(faults(&record).is_empty(), "{:?}", faults(&record));
        let cpu = cpu_ms(&record);
        assert_eq!(cpu.len(), 9, "every answer has its CPU time ({sandbox})");
        // 100 ms burnt per answer; /proc counts in 10 ms ticks.
        for ms in &cpu {
            assert!((85.0..400.0).contains(ms), "{sandbox}: {ms} ms of CPU");
        }
        let player = &record["players"][3];
        assert!(player["total_cpu_us"].as_u64().expect("total") >= 9 * 85_000);
        assert!(player["max_cpu_us"].as_u64().is_some());
        assert_eq!(record["clock"], "wall", "the default clock");
        // Built-in bots are never timed.
        assert!(record["players"][0].get("total_cpu_us").is_none());
        let table = String::from_utf8_lossy(&output.stdout);
        assert!(
            table.contains("answer times, ms (limits judged on the wall clock)")
                && table.contains("cpu mean"),
            "{table}"
        );
    }
}

#[test]
fn a_bot_burning_cpu_is_judged_inside_and_outside_the_limit_on_either_clock() {
    // Limits at 1 s (2 s for the wall clock's answer in time). In time: a hundredth of its limit on
    // the wall clock (20 ms of CPU: 1.3 s at the 1.6 % of a core a bot got at a load of 30 on 2
    // cores), a fifth on the CPU clock (2 s at a tenth of a core, within the 4 s cap).
    for (clock, inside_ms, scale) in [("wall", 20, "2"), ("cpu", 200, "1")] {
        let (_, inside) = play_scaled(&bot("burn", inside_ms), scale, &["--clock", clock]);
        assert!(faults(&inside).is_empty(), "{clock}: {:?}", faults(&inside));
        assert_eq!(inside["clock"], clock);
        // Three times the limit: out at its first answer.
        let (_, outside) = play_scaled(&bot("burn", 3000), "1", &["--clock", clock]);
        let found = faults(&outside);
        assert_eq!(found.len(), 1, "{clock}: {found:?}");
        assert!(found[0].starts_with("\"timeout\""), "{clock}: {found:?}");
        // On the CPU clock the verdict names the CPU time, unless the machine is so loaded that the
        // wall-clock cap came first (which says so).
        if clock == "cpu" {
            assert!(
                found[0].contains("of CPU") || found[0].contains("wall-clock cap"),
                "{found:?}"
            );
        }
    }
}

#[test]
fn a_sleeping_bot_uses_wall_time_not_cpu_time_and_still_meets_the_wall_cap() {
    // 800 ms asleep per answer, limit 500 ms: late on the wall clock, nothing on the CPU clock.
    let (_, wall) = play(&bot("sleep", 800), &[]);
    assert_eq!(faults(&wall).len(), 1, "{:?}", faults(&wall));
    let (output, cpu) = play(&bot("sleep", 800), &["--clock", "cpu"]);
    assert!(faults(&cpu).is_empty(), "{:?}", faults(&cpu));
    for ms in cpu_ms(&cpu) {
        assert!(ms < 100.0, "a sleeping bot used {ms} ms of CPU");
    }
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(
        table.contains("wall-clock cap of 3 × the limit + 1 s"),
        "{table}"
    );
    // Asleep beyond the wall-clock cap (3 × 500 ms + 1 s = 2.5 s): out, said so.
    let (_, capped) = play(&bot("sleep", 6000), &["--clock", "cpu"]);
    let found = faults(&capped);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("wall-clock cap of 2500 ms"), "{found:?}");
}

/// Busy threads on every core until dropped: a loaded machine, made by the test itself.
struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn start(threads: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        for i in 0..10_000u64 {
                            x = x.wrapping_mul(31).wrapping_add(i);
                        }
                        std::hint::black_box(x);
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A negotiate tournament of four slow bots (each answer burns 20 % of its 200 ms limit, a fortieth
/// of the 1.6 s wall-clock cap) on the CPU clock; returns the timeouts per bot from summary.json.
fn slow_tournament(jobs: &str) -> (Vec<u64>, serde_json::Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let slow = bot("burn", 40);
    let labelled: Vec<String> = (0..4).map(|i| format!("slow{i}={slow}")).collect();
    let mut args = vec!["tournament", "negotiate"];
    for bot in &labelled {
        args.extend(["--bot", bot.as_str()]);
    }
    args.extend([
        "--seeds",
        "1",
        "--seed",
        "7",
        "--time-scale",
        "0.2",
        "--clock",
        "cpu",
        "--jobs",
        jobs,
        "--no-pin",
        "--format",
        "json",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let output = Command::new(ARENA)
        .args(&args)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    let timeouts = summary["timing"]["bots"]
        .as_array()
        .expect("timing per bot")
        .iter()
        .map(|b| b["timeouts"].as_u64().expect("timeouts"))
        .collect();
    (timeouts, summary)
}

#[test]
fn on_the_cpu_clock_a_loaded_machine_gives_the_same_timeouts_as_an_idle_one() {
    let (alone, summary) = slow_tournament("1");
    assert_eq!(alone, vec![0, 0, 0, 0], "{summary}");
    assert_eq!(summary["timing"]["clock"], "cpu");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let loaded = {
        let _load = Load::start(cores);
        slow_tournament("2")
    };
    assert_eq!(loaded.0, alone, "{}", loaded.1);
    // Every bot's answers were measured, and cost about what they burn.
    for bot in summary["timing"]["bots"].as_array().expect("bots") {
        let cpu = bot["cpu_mean_ms"].as_f64().expect("cpu mean");
        assert!((35.0..150.0).contains(&cpu), "{bot}");
    }
}

#[test]
fn timeouts_with_far_less_cpu_than_wall_time_are_flagged_with_what_to_do() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    // Asleep 800 ms per answer at a 500 ms limit: a timeout with almost no CPU time, as a bot
    // waiting for a busy core would show.
    let sleeper = format!("sleeper={}", bot("sleep", 800));
    let output = Command::new(ARENA)
        .args([
            "tournament",
            "langwars2",
            "--bot",
            &sleeper,
            "--bot",
            "greedy",
            "--bot",
            "random",
            "--bot",
            "focus",
            "--seeds",
            "1",
            "--seed",
            "3",
            "--time-scale",
            "0.5",
            "--out",
            out.to_str().expect("utf-8"),
        ])
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    // The warning is wrapped at 100 columns: read it as one line.
    let text = text.replace("\n  ", " ");
    assert!(
        text.contains("4 timeouts happened while the machine was busy")
            && text.contains("--clock cpu")
            && text.contains("--jobs 1"),
        "{text}"
    );
    assert!(
        text.contains("wall mean") && text.contains("sleeper"),
        "{text}"
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    let warning = summary["timing"]["warning"].as_str().expect("a warning");
    assert!(warning.contains("--clock cpu"), "{warning}");
    assert_eq!(summary["timing"]["bots"][0]["starved_timeouts"], 4);
    let report = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(report.contains("Answer times (ms)") && report.contains("--clock cpu"));
    // Every journal line of a process game has the seats' timing; built-in seats have none.
    let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
    for line in journal.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let timing = entry["timing"].as_array().expect("timing");
        let seat = entry["bots"]
            .as_array()
            .expect("bots")
            .iter()
            .position(|b| b == "sleeper")
            .expect("the sleeper plays");
        for (index, seat_timing) in timing.iter().enumerate() {
            assert_eq!(seat_timing.is_null(), index != seat, "{line}");
        }
        assert!(timing[seat]["wall_us"].as_u64().expect("wall") >= 400_000);
    }
}

#[test]
fn every_coup_call_has_its_cpu_time_sandboxed_or_not() {
    for sandbox in ["bwrap", "none"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let replay = dir.path().join("coup.json");
        let bot = format!("{ARENA} bot coup calculator");
        let output = Command::new(ARENA)
            .args([
                "play",
                "coup",
                "--bot",
                &bot,
                "--bot",
                "random",
                "--seed",
                "3",
                "--sandbox",
                sandbox,
                "--replay",
                replay.to_str().expect("utf-8"),
            ])
            .output()
            .expect("arena runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("JSON");
        let calls: Vec<&serde_json::Value> = record["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .filter(|s| s["player"] == 0)
            .collect();
        assert!(!calls.is_empty());
        for call in calls {
            // A process start costs some CPU, however small the bot.
            assert!(
                call["cpu_us"].as_u64().is_some_and(|us| us > 0),
                "{sandbox}: {call}"
            );
        }
    }
}

/// A built-in that searches is timed like a process bot: its answer times are in the journal and
/// in summary.json's timing table, and the rule bots beside it have none.
#[test]
fn a_searching_builtin_has_answer_times_and_rule_bots_have_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["tournament", "langwars2", "--games", "8", "--seed", "3"])
        .args(["--time-scale", "20", "--format", "json"])
        .args(["--bot", "montecarlo", "--bot", "greedy", "--bot", "focus"])
        .args(["--bot", "random", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("arena runs");
    assert!(status.success());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary"))
            .expect("JSON");
    let bots = summary["timing"]["bots"].as_array().expect("timing bots");
    assert_eq!(bots.len(), 1, "{bots:?}");
    assert_eq!(bots[0]["bot"], "montecarlo");
    assert!(bots[0]["answers"].as_u64().is_some_and(|n| n > 0));
    assert!(bots[0]["cpu_mean_ms"].as_f64().is_some_and(|ms| ms > 0.0));
    let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
    for line in journal.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let timed: Vec<bool> = entry["timing"]
            .as_array()
            .expect("timing")
            .iter()
            .map(|seat| !seat.is_null())
            .collect();
        let searching: Vec<bool> = entry["bots"]
            .as_array()
            .expect("bots")
            .iter()
            .map(|bot| bot == "montecarlo")
            .collect();
        assert_eq!(timed, searching, "{line}");
    }
}

//! `cargo bench -p arena-coup --bench calls`: the three speed bars in one run.
//!
//! 1. In-process games/s of the random bot (bar: ≥ 500 000 on one core).
//! 2. With a tiny compiled bot (`benches/tinybot.c`, built with `cc` here): arena's time per call
//!    (history written, process spawned in its own group, waited for, group killed, file read back and
//!    judged) against a bare spawn-and-wait of the same bot with the same arguments (bar: ≤ 1.25×).
//! 3. Games/s of whole games between two tiny bots, one at a time: arena against the reference arbiter
//!    (its `arbiter.py` under Python 2.7, in the folder `ARENA_COUP_REFERENCE` names; the arbiter is
//!    not part of arena: it is the Python 2 program published with the Code Golf KotH) (bar: ≥ 1.5×).
//!
//! Environment: `COUP_BENCH_CALLS` (default 1000), `COUP_BENCH_GAMES` (default 40), `PYTHON2`,
//! `ARENA_COUP_REFERENCE`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena_core::call::{CallSpec, GameSandbox, call_bot, call_bot_in};
use arena_core::game::Answer;
use arena_core::game::Game;
use arena_coup::rules::{Coup, CoupConfig, CoupObs};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn build_bot(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/tinybot.c");
    let binary = dir.join("tinybot");
    let status = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc failed");
    binary
}

fn python2() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("PYTHON2") {
        return Some(PathBuf::from(path));
    }
    let out = Command::new("pyenv").arg("root").output().ok()?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut found: Vec<PathBuf> = std::fs::read_dir(root.join("versions"))
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("2.7"))
        .map(|e| e.path().join("bin/python"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.pop()
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn mean(values: &[Duration]) -> Duration {
    values.iter().sum::<Duration>() / values.len().max(1) as u32
}

fn main() {
    // cargo passes `--bench`; nothing else is taken from the command line.
    let calls = env_number("COUP_BENCH_CALLS", 1000);
    let games = env_number("COUP_BENCH_GAMES", 40);
    let dir = std::env::temp_dir().join(format!("arena-coup-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");

    // 1. In process.
    let report = arena_core::call::call_entry(arena_coup::definition())
        .bench(None, arena_core::registry::BenchLength::Seconds(3.0))
        .expect("in-process bench");
    println!(
        "in-process: {} games in {:.2} s = {:.0} games/s (bar 500000)",
        report.games,
        report.elapsed.as_secs_f64(),
        report.games_per_second()
    );

    // 2. Per call.
    let bot = build_bot(&dir);
    let workdir = dir.join("Tiny");
    std::fs::create_dir_all(&workdir).unwrap();
    let history = dir.join("Tiny_Tiny_0_0.txt");
    let mut game = Coup::new(&CoupConfig::default(), 3);
    let mut obs = CoupObs::default();
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    let spec = CallSpec {
        argv: vec![bot.to_string_lossy().into_owned()],
        workdir: Some(workdir.clone()),
        history: history.clone(),
        stderr_cap: 4096,
        sandbox: None,
    };
    let mut argv = vec![history.to_string_lossy().into_owned()];
    argv.extend(obs.args());
    let mut bare = Vec::with_capacity(calls);
    let mut ours = Vec::with_capacity(calls);
    for _ in 0..calls {
        // Interleaved so both see the same machine load.
        std::fs::write(&history, b"").unwrap();
        let started = Instant::now();
        let status = Command::new(&bot)
            .args(&argv)
            .current_dir(&workdir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .expect("bare spawn");
        bare.push(started.elapsed());
        assert!(status.success());
        // The referee's copy of the history is restored outside the timing, as before the bare spawn.
        std::fs::write(&history, b"").unwrap();
        let started = Instant::now();
        let report = call_bot::<Coup>(&spec, &obs, Duration::from_secs(10), 4096);
        ours.push(started.elapsed());
        assert!(
            matches!(report.answer, arena_core::game::Answer::Action(_)),
            "{:?}",
            report.answer
        );
    }
    let (bare_mean, ours_mean) = (mean(&bare), mean(&ours));
    let (bare_median, ours_median) = (median(&mut bare), median(&mut ours));
    println!(
        "per call ({calls} calls): bare spawn-and-wait mean {:.1} µs median {:.1} µs; arena mean {:.1} µs median {:.1} µs; ratio mean {:.3}x median {:.3}x (bar 1.25x)",
        bare_mean.as_secs_f64() * 1e6,
        bare_median.as_secs_f64() * 1e6,
        ours_mean.as_secs_f64() * 1e6,
        ours_median.as_secs_f64() * 1e6,
        ours_mean.as_secs_f64() / bare_mean.as_secs_f64(),
        ours_median.as_secs_f64() / bare_median.as_secs_f64(),
    );

    // 3. Whole games, one at a time.
    // The KotH's game loop (as `arena koth` plays it), one game at a time.
    let mut arena_calls = 0usize;
    let started = Instant::now();
    for seed in 0..games as u64 {
        let specs = ["A", "B"].map(|name| {
            let own = dir.join(name);
            std::fs::create_dir_all(&own).unwrap();
            CallSpec {
                argv: vec![bot.to_string_lossy().into_owned()],
                workdir: Some(own),
                history: dir.join(format!("A_B_0_{seed}.txt")),
                stderr_cap: 4096,
                sandbox: None,
            }
        });
        let mut kept: [GameSandbox; 2] = Default::default();
        let mut game = Coup::new(&CoupConfig::default(), seed);
        let mut obs = CoupObs::default();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            let limit = game.time_limit(player);
            let answer =
                call_bot_in::<Coup>(&specs[player], &obs, limit, 4096, &mut kept[player]).answer;
            assert!(matches!(answer, Answer::Action(_)), "{answer:?}");
            game.apply(player, answer);
        }
        arena_calls += game.calls() as usize;
    }
    let arena_time = started.elapsed().as_secs_f64();
    let arena_rate = games as f64 / arena_time;
    println!(
        "arena: {games} games, {arena_calls} calls in {arena_time:.2} s = {arena_rate:.1} games/s, {:.0} µs/call",
        arena_time * 1e6 / arena_calls as f64
    );

    let Some(python2) = python2() else {
        println!("reference arbiter: skipped (no Python 2.7; set PYTHON2)");
        return;
    };
    let Some(arbiter) = std::env::var_os("ARENA_COUP_REFERENCE")
        .map(|dir| PathBuf::from(dir).join("arbiter.py"))
        .filter(|arbiter| arbiter.is_file())
    else {
        println!(
            "reference arbiter: skipped (set ARENA_COUP_REFERENCE to the folder of the KotH's \
             arbiter.py, the Python 2 arbiter published with the Code Golf challenge)"
        );
        return;
    };
    let reference_dir = dir.join("reference");
    std::fs::create_dir_all(&reference_dir).unwrap();
    // Two entrants play 2 games a round.
    let rounds = games.div_ceil(2);
    let started = Instant::now();
    let output = Command::new(&python2)
        .arg(&arbiter)
        .arg(format!("A={}", bot.display()))
        .arg(format!("B={}", bot.display()))
        .current_dir(&reference_dir)
        .env("ROUNDS", rounds.to_string())
        .output()
        .expect("the arbiter runs");
    let reference_time = started.elapsed().as_secs_f64();
    let log = String::from_utf8_lossy(&output.stdout);
    let reference_games = log.matches("--- Game ").count();
    let reference_calls = log
        .lines()
        .filter(|l| l.starts_with(&*bot.to_string_lossy()))
        .count();
    if !output.status.success() {
        println!(
            "reference arbiter stopped early (its draw bug B1?): {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
        );
    }
    let reference_rate = reference_games as f64 / reference_time;
    println!(
        "reference arbiter: {reference_games} games, {reference_calls} calls in {reference_time:.2} s = {reference_rate:.1} games/s, {:.0} µs/call",
        reference_time * 1e6 / reference_calls.max(1) as f64
    );
    println!(
        "games/s ratio arena / arbiter: {:.2}x (bar 1.5x); calls/s ratio {:.2}x",
        arena_rate / reference_rate,
        (arena_calls as f64 / arena_time) / (reference_calls as f64 / reference_time)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

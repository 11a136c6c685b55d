//! What the sandbox costs where it costs: at a bot's start, and per call for Coup (a new process per
//! move). Interleaved rounds, medians, ratios against the targets of issue 14:
//! - stream start-to-first-answer of a trivial C bot, sandboxed ≤ 2 × unsandboxed + 5 ms;
//! - one Coup call, sandboxed ≤ 3 × a bare fork+exec+wait of the same bot.
//!
//! Also the per-answer cost of a stream bot in its kept sandbox (a tournament's default) against
//! the same bot unsandboxed, with pausing and a CPU time read per answer as a game does, the
//! measuring thread and the bots on CPU 0 (issue 13's path, where the sandbox changes what is
//! paused and where the CPU time comes from: its cgroup instead of `/proc`).
//!
//! `cargo bench -p arena --bench sandbox [-- ROUNDS]` (default 200). Needs `cc`, bubblewrap and
//! cgroups (root), as the sandbox does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arena_core::process::{BotProcess, Chunk};
use arena_core::sandbox::{Resident, Sandbox, SandboxPolicy};

const STREAM_BOT: &str = r#"
#include <stdio.h>
int main(void) {
    char line[256];
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) fputs("1 2 3 4 5\n", stdout);
    return 0;
}
"#;

/// A Coup call that only appends the first legal move (the least a bot can do).
const CALL_BOT: &str = r#"
#include <stdio.h>
int main(int argc, char **argv) {
    if (argc < 6) return 2;
    FILE *f = fopen(argv[1], "ab");
    if (!f) return 3;
    fputs(argv[5], f);
    fclose(f);
    return 0;
}
"#;

fn compile(dir: &Path, name: &str, source: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    let binary = dir.join(name);
    std::fs::write(&c, source).expect("write the C source");
    let status = std::process::Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&c)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc failed");
    binary
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Writes a turn's input and reads the answer line.
fn ask_once(process: &mut BotProcess) {
    process.write(b"1\n");
    read_answer(process);
}

/// Reads up to the end of the bot's answer line.
fn read_answer(process: &mut BotProcess) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match process.next_chunk(deadline) {
            Chunk::Data(bytes) if bytes.contains(&b'\n') => break,
            Chunk::Data(_) => {}
            other => panic!("no answer: {other:?}"),
        }
    }
}

/// Spawn, ask, read the answer: the time until the first answer; then end the bot (not timed).
fn first_answer(bot: &Path, sandbox: Option<&Sandbox>) -> Duration {
    let started = Instant::now();
    let mut process = BotProcess::spawn_in(
        &[bot.to_string_lossy().into_owned()],
        None,
        4096,
        Some(0),
        sandbox,
    )
    .expect("the bot starts");
    ask_once(&mut process);
    let elapsed = started.elapsed();
    process.end();
    elapsed
}

/// arena's default for stream bots: the sandbox set up before the game (timed apart), then the bot
/// exec'd in it, until its first answer. Returns (set-up, start to first answer).
fn prepared_first_answer(bot: &Path, sandbox: &Sandbox) -> (Duration, Duration) {
    let argv = [bot.to_string_lossy().into_owned()];
    let setting_up = Instant::now();
    let resident = Resident::start(sandbox, &argv, None, Some(0), &[]).expect("the sandbox starts");
    let setup = setting_up.elapsed();
    let started = Instant::now();
    let spawned = resident.exec(&argv).expect("the bot starts");
    let mut process = BotProcess::from_spawned(spawned, 4096).expect("the bot runs");
    ask_once(&mut process);
    let elapsed = started.elapsed();
    process.end();
    (setup, elapsed)
}

/// Answers per measured run of [`per_answer`].
const ANSWERS: u32 = 2_000;

/// One answer as a paused game asks it: write, continue the bot, read its line, read its CPU time,
/// stop it.
fn ask(process: &mut BotProcess) {
    process.write(b"1\n");
    process.resume();
    read_answer(process);
    assert!(
        process.cpu_time().is_some(),
        "the bot's CPU time is readable"
    );
    process.pause();
}

/// Mean time of an answer over [`ANSWERS`] answers.
fn answers(process: &mut BotProcess) -> Duration {
    ask(process);
    let started = Instant::now();
    for _ in 0..ANSWERS {
        ask(process);
    }
    started.elapsed() / ANSWERS
}

/// Per-answer cost, unsandboxed against the kept sandbox, interleaved over 7 rounds.
fn per_answer(bot: &Path, pool: &std::sync::Arc<arena_core::sandbox::SandboxPool>) {
    let argv = [bot.to_string_lossy().into_owned()];
    let (plain, pooled) = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                // SAFETY: a zeroed CPU set with CPU 0 in it, for the calling thread.
                let pinned = unsafe {
                    let mut only: libc::cpu_set_t = std::mem::zeroed();
                    libc::CPU_SET(0, &mut only);
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &only)
                };
                assert_eq!(pinned, 0, "pin the measuring thread");
                let (mut plain, mut pooled) = (Vec::new(), Vec::new());
                for _ in 0..7 {
                    let mut process = BotProcess::spawn_in(&argv, None, 4096, Some(0), None)
                        .expect("the bot starts");
                    plain.push(answers(&mut process));
                    process.end();
                    let lease = pool.lease(&argv, Some(0), None).expect("a sandbox");
                    let mut process =
                        BotProcess::spawn_leased(lease, &argv, 4096).expect("the bot starts");
                    pooled.push(answers(&mut process));
                    process.end();
                }
                (median(&mut plain), median(&mut pooled))
            })
            .join()
            .expect("measuring thread")
    });
    println!(
        "stream answer with pausing and a CPU time read, thread and bot on CPU 0 (median of 7 runs of \
         {ANSWERS}): unsandboxed {:.2} µs, kept sandbox {:.2} µs ({:.2}x)",
        plain.as_secs_f64() * 1e6,
        pooled.as_secs_f64() * 1e6,
        pooled.as_secs_f64() / plain.as_secs_f64()
    );
}

/// A tournament's default for stream bots after a bot's first game: its sandbox kept from its last
/// game (SandboxPool), the bot started in it by the helper. Returns (lease and start to first
/// answer, the game's end and the sandbox's reset: between games, off any bot's clock).
fn pooled_first_answer(
    bot: &Path,
    pool: &std::sync::Arc<arena_core::sandbox::SandboxPool>,
) -> (Duration, Duration) {
    let argv = [bot.to_string_lossy().into_owned()];
    let started = Instant::now();
    let lease = pool.lease(&argv, Some(0), None).expect("a sandbox");
    let mut process = BotProcess::spawn_leased(lease, &argv, 4096).expect("the bot starts");
    ask_once(&mut process);
    let elapsed = started.elapsed();
    let ending = Instant::now();
    process.end();
    (elapsed, ending.elapsed())
}

fn bare_call(bot: &Path, history: &Path) -> Duration {
    std::fs::write(history, b"").expect("history");
    let started = Instant::now();
    let status = std::process::Command::new(bot)
        .arg(history)
        .args(["1", "1", "!$", "I\n", "F", "E", "S", "T"])
        .status()
        .expect("runs");
    assert!(status.success());
    started.elapsed()
}

fn arena_call(bot: &Path, history: &Path, sandbox: Option<&Sandbox>) -> Duration {
    std::fs::write(history, b"").expect("history");
    let mut argv = vec![bot.to_string_lossy().into_owned()];
    argv.push(history.to_string_lossy().into_owned());
    argv.extend(["1", "1", "!$", "I\n", "F", "E", "S", "T"].map(String::from));
    let writable = [history.to_path_buf()];
    let started = Instant::now();
    let raw = arena_core::call::run_process_in(
        &argv,
        None,
        &writable,
        Duration::from_secs(10),
        4096,
        sandbox,
    )
    .expect("runs");
    let elapsed = started.elapsed();
    assert!(
        matches!(raw.end, arena_core::call::CallEnd::Exited(s) if s.success()),
        "the call failed: {}",
        String::from_utf8_lossy(&raw.stderr)
    );
    elapsed
}

/// One call in the game's sandbox (arena's default for Coup).
fn resident_call(resident: &mut Resident, bot: &Path, history: &Path) -> Duration {
    std::fs::write(history, b"").expect("history");
    let mut argv = vec![bot.to_string_lossy().into_owned()];
    argv.push(history.to_string_lossy().into_owned());
    argv.extend(["1", "1", "!$", "I\n", "F", "E", "S", "T"].map(String::from));
    let started = Instant::now();
    let call = resident
        .call(&argv, Duration::from_secs(10), 4096)
        .expect("the call runs");
    let elapsed = started.elapsed();
    assert!(
        call.status.is_some_and(|s| s.success()),
        "the call failed: {}",
        String::from_utf8_lossy(&call.stderr)
    );
    elapsed
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().expect("temp dir");
    // The sandbox shows only what the command names: the bots live in a folder of their own.
    let stream_bot = compile(dir.path(), "stream_bot", STREAM_BOT);
    let call_bot = compile(dir.path(), "call_bot", CALL_BOT);
    // The resident helper (Coup's calls, stream bots set up before the game) is arena itself;
    // `ARENA_BENCH_HELPER` names another build of it (to run two builds side by side).
    let helper = std::env::var_os("ARENA_BENCH_HELPER")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_arena")), PathBuf::from);
    let policy = SandboxPolicy {
        helper: Some(helper),
        ..SandboxPolicy::default()
    };
    let sandbox = match Sandbox::new(policy) {
        Ok(sandbox) => sandbox,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let history_dir = Path::new("/dev/shm").join(format!("arena-bench-{}", std::process::id()));
    std::fs::create_dir_all(&history_dir).expect("history dir");
    let history = history_dir.join("history.txt");

    let sandbox = std::sync::Arc::new(sandbox);
    let pool = arena_core::sandbox::SandboxPool::new(sandbox.clone(), 4).expect("a helper");
    // The bot's first game sets its sandbox up; the rounds measure the games after.
    pooled_first_answer(&stream_bot, &pool);
    let (mut plain, mut boxed, mut setups, mut prepared, mut pooled, mut resets) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for _ in 0..rounds {
        plain.push(first_answer(&stream_bot, None));
        boxed.push(first_answer(&stream_bot, Some(&*sandbox)));
        let (setup, start) = prepared_first_answer(&stream_bot, &sandbox);
        setups.push(setup);
        prepared.push(start);
        let (start, reset) = pooled_first_answer(&stream_bot, &pool);
        pooled.push(start);
        resets.push(reset);
    }
    let (plain, boxed, setup, prepared, pooled, reset) = (
        median(&mut plain),
        median(&mut boxed),
        median(&mut setups),
        median(&mut prepared),
        median(&mut pooled),
        median(&mut resets),
    );
    let target = plain * 2 + Duration::from_millis(5);
    let verdict = |d: Duration| if d <= target { "met" } else { "missed" };
    println!(
        "stream start to first answer (median of {rounds}), target <= 2 x unsandboxed + 5 ms = {:.3} ms:\n  \
         unsandboxed {:.3} ms\n  \
         tournament game (the bot's sandbox kept from its last game): {:.3} ms ({:.2}x): {}; \
         the end of a game and the sandbox's reset, between games: {:.3} ms\n  \
         single game, sandbox built at start: {:.3} ms ({:.2}x): {}\n  \
         single game, sandbox set up before the clocks start ({:.3} ms), then {:.3} ms ({:.2}x)",
        ms(target),
        ms(plain),
        ms(pooled),
        ms(pooled) / ms(plain),
        verdict(pooled),
        ms(reset),
        ms(boxed),
        ms(boxed) / ms(plain),
        verdict(boxed),
        ms(setup),
        ms(prepared),
        ms(prepared) / ms(plain),
    );

    per_answer(&stream_bot, &pool);

    let bot_argv = [call_bot.to_string_lossy().into_owned()];
    let writable = [history.clone()];
    std::fs::write(&history, b"").expect("history");
    let mut resident = Resident::start(&sandbox, &bot_argv, None, None, &writable)
        .expect("the resident sandbox starts");
    let (mut bare, mut plain, mut boxed, mut kept) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        bare.push(bare_call(&call_bot, &history));
        plain.push(arena_call(&call_bot, &history, None));
        boxed.push(arena_call(&call_bot, &history, Some(&*sandbox)));
        kept.push(resident_call(&mut resident, &call_bot, &history));
    }
    let (bare, plain, boxed, kept) = (
        median(&mut bare),
        median(&mut plain),
        median(&mut boxed),
        median(&mut kept),
    );
    println!(
        "coup call (median of {rounds}): bare fork+exec+wait {:.3} ms, arena unsandboxed {:.3} ms, \
         sandbox per call {:.3} ms ({:.2}x bare), one sandbox per game {:.3} ms ({:.2}x bare); \
         target <= 3x: {}",
        ms(bare),
        ms(plain),
        ms(boxed),
        ms(boxed) / ms(bare),
        ms(kept),
        ms(kept) / ms(bare),
        if kept <= bare * 3 { "met" } else { "missed" }
    );
    let _ = std::fs::remove_dir_all(&history_dir);
}

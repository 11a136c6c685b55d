//! Per-answer cost of arena's stream-process path against a bare pipe round trip to the same trivial
//! bot, measured in one run (issue 13: ≤ 1.3× with pausing on). Run:
//! `cargo bench -p arena-langwars --bench stream_overhead`.
//!
//! Both sides send the same turn input (a Lang Wars 2 holiday block, 8 lines) and read one answer line.
//! The bare side uses blocking std pipes and does nothing else; its paused figure adds the SIGCONT
//! before and the SIGSTOP after each answer. The arena side is `StreamAgent::act`: input encoding, the
//! non-blocking writer, `ppoll` with the deadline, line splitting and answer parsing, on the runtime a
//! tournament worker uses, from a thread that asked for priority as a worker does; its paused figure adds
//! the runner's SIGCONT/SIGSTOP pair.
//!
//! Each side runs on a thread of its own, made the same way: on an idle machine, whether the
//! scheduler wakes the referee and the bot on one CPU or across two decides more than the path
//! (a wake-up across CPUs costs tens of microseconds in a VM whose other CPU idles). So the
//! comparison runs on the machine as it is, then with both sides' threads (and so their bots) on
//! CPU 0, which shows the path's own cost, then with one busy process per core (`yes > /dev/null`,
//! as two thinking bots of parallel games), which shows whether reading and timing answers waits
//! behind busy processes.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena_core::{Agent, Game, ProcessSpec, StreamAgent, StreamProtocol};
use arena_langwars::{Edition, LangWars, Observation};

const ANSWERS_PER_ROUND: usize = 2_000;
const ROUNDS: usize = 7;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bot = dir.path().join("echo_bot");
    let source = format!("{}/benches/echo_bot.c", env!("CARGO_MANIFEST_DIR"));
    let status = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bot)
        .arg(&source)
        .status()
        .expect("a C compiler (cc) to build the trivial bot");
    assert!(status.success(), "cc failed on {source}");

    // A holiday turn of Lang Wars 2: header, 6 rows, the R line.
    let mut game = LangWars::with_edition(Edition::Lw2, 4);
    let mut obs = Observation::default();
    for _ in 0..4 {
        let player = game.to_act().expect("turn 1");
        game.observe(player, &mut obs);
        game.apply(
            player,
            arena_core::Answer::Action(arena_langwars::Move::new(&[1, 2, 3, 4, 5])),
        );
    }
    let player = game.to_act().expect("turn 2");
    game.observe(player, &mut obs);
    let mut input = String::new();
    LangWars::encode_input(&obs, false, &mut input);
    let lines = input.lines().count().to_string();
    let argv = vec![bot.display().to_string(), lines];

    if let Some(profile) = std::env::var_os("STREAM_BENCH_PROFILE") {
        // Only arena's paused path, on CPU 0 (or unpinned with `STREAM_BENCH_PROFILE=idle`), for a
        // profiler (`perf record`, `strace -c`).
        let cpu = (profile != "idle").then_some(0);
        for _ in 0..ROUNDS {
            let per_answer = on_thread(cpu, || {
                arena_core::process::favour_this_thread();
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                runtime.block_on(arena_round_trip(&argv, &obs, true))
            });
            println!("arena, pausing: {:7.2} µs/answer", micros(per_answer));
        }
        return;
    }
    compare("idle", &argv, &input, &obs, None);
    // Referee and bot on one CPU, as a paused game needs no more: the path's own cost.
    compare(
        "idle, referee and bot on CPU 0",
        &argv,
        &input,
        &obs,
        Some(0),
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut load: Vec<std::process::Child> = (0..cores)
        .map(|_| {
            let mut command = Command::new("yes");
            command.stdout(Stdio::null());
            // They die with the bench however it ends (killed mid-run, a broken pipe into
            // `head`): left behind, they load the machine for good.
            // SAFETY: prctl is async-signal-safe and touches nothing of the parent.
            unsafe {
                command.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
            command.spawn().expect("yes runs")
        })
        .collect();
    compare(
        &format!("{cores} busy processes"),
        &argv,
        &input,
        &obs,
        None,
    );
    for child in load.iter_mut() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn compare(label: &str, argv: &[String], input: &str, obs: &Observation, cpu: Option<usize>) {
    let mut bare = Vec::new();
    let mut bare_paused = Vec::new();
    let mut bare_polled = Vec::new();
    let mut agent = Vec::new();
    let mut paused = Vec::new();
    for _ in 0..ROUNDS {
        // Every side on a thread of its own, made the same way (where the scheduler places a
        // thread and the bot it wakes decides more than the path itself on an idle machine).
        bare.push(on_thread(cpu, || bare_round_trip(argv, input, false)));
        bare_paused.push(on_thread(cpu, || bare_round_trip(argv, input, true)));
        bare_polled.push(on_thread(cpu, || {
            bare_round_trip_with(argv, input, true, BareWait::Poll)
        }));
        let (plain, with_pauses) = on_thread(cpu, || {
            // As a tournament worker does (`STREAM_BENCH_NO_FAVOUR` to compare without).
            if std::env::var_os("STREAM_BENCH_NO_FAVOUR").is_none() {
                arena_core::process::favour_this_thread();
            }
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            (
                runtime.block_on(arena_round_trip(argv, obs, false)),
                runtime.block_on(arena_round_trip(argv, obs, true)),
            )
        });
        agent.push(plain);
        paused.push(with_pauses);
    }
    let bare = median(bare);
    let bare_paused = median(bare_paused);
    let bare_polled = median(bare_polled);
    let agent = median(agent);
    let paused = median(paused);
    println!(
        "{label}: answers per round: {ANSWERS_PER_ROUND}, rounds: {ROUNDS} (medians), load {}",
        loadavg()
    );
    println!(
        "  bare pipe round trip:               {:7.2} µs/answer",
        micros(bare)
    );
    println!(
        "  bare pipe round trip, pausing:      {:7.2} µs/answer",
        micros(bare_paused)
    );
    println!(
        "  bare, pausing, ppoll before read:   {:7.2} µs/answer  ({:.2}x bare with pausing)",
        micros(bare_polled),
        bare_polled.as_secs_f64() / bare_paused.as_secs_f64()
    );
    println!(
        "  arena stream agent:                 {:7.2} µs/answer  ({:.2}x bare)",
        micros(agent),
        agent.as_secs_f64() / bare.as_secs_f64()
    );
    println!(
        "  arena stream agent, pausing:        {:7.2} µs/answer  ({:.2}x bare with pausing)",
        micros(paused),
        paused.as_secs_f64() / bare_paused.as_secs_f64()
    );
}

/// Runs `measure` on a new thread, kept on `cpu` when given (the bot it starts inherits the CPU).
fn on_thread<T: Send>(cpu: Option<usize>, measure: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                if let Some(cpu) = cpu {
                    let mut only = nix::sched::CpuSet::new();
                    only.set(cpu).expect("a CPU index");
                    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &only)
                        .expect("pin the measuring thread");
                }
                measure()
            })
            .join()
            .expect("measuring thread")
    })
}

fn micros(per_answer: Duration) -> f64 {
    per_answer.as_secs_f64() * 1e6
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// How the bare referee waits for the answer.
#[derive(Clone, Copy, PartialEq)]
enum BareWait {
    /// A blocking read, nothing else.
    Read,
    /// `ppoll` on stdout (and the bot's stderr, as arena drains it) before each read, as arena
    /// waits with a deadline: the cost of the wait itself, apart from the rest of arena's path.
    Poll,
}

fn bare_round_trip(argv: &[String], input: &str, pause: bool) -> Duration {
    bare_round_trip_with(argv, input, pause, BareWait::Read)
}

fn bare_round_trip_with(argv: &[String], input: &str, pause: bool, wait: BareWait) -> Duration {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("bot starts");
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let signal = |signal| {
        if pause {
            let _ = nix::sys::signal::killpg(group, signal);
        }
    };
    let mut stdin = child.stdin.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("READY");
    signal(nix::sys::signal::Signal::SIGSTOP);
    let started = Instant::now();
    for _ in 0..ANSWERS_PER_ROUND {
        stdin.write_all(input.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        signal(nix::sys::signal::Signal::SIGCONT);
        line.clear();
        if wait == BareWait::Poll {
            use std::os::fd::AsRawFd;
            let mut fds = [
                libc::pollfd {
                    fd: stdout.get_ref().as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: stderr.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let timeout = libc::timespec {
                tv_sec: 1,
                tv_nsec: 0,
            };
            // SAFETY: two valid pollfd entries for descriptors this process owns.
            unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &timeout, std::ptr::null()) };
        }
        stdout.read_line(&mut line).expect("answer");
        signal(nix::sys::signal::Signal::SIGSTOP);
    }
    signal(nix::sys::signal::Signal::SIGCONT);
    let elapsed = started.elapsed();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    elapsed / ANSWERS_PER_ROUND as u32
}

async fn arena_round_trip(argv: &[String], obs: &Observation, pause: bool) -> Duration {
    let mut agent = StreamAgent::<LangWars>::new(ProcessSpec {
        argv: argv.to_vec(),
        workdir: None,
        stderr_cap: 4096,
        time_scale: 1.0,
        cpu: None,
        sandbox: None,
        clock: arena_core::ClockKind::Wall,
    });
    agent.start().await.expect("READY");
    let limit = LangWars::with_edition(Edition::Lw2, 0).time_limit(0);
    if pause {
        agent.pause();
    }
    let started = Instant::now();
    for _ in 0..ANSWERS_PER_ROUND {
        if pause {
            agent.resume();
        }
        let reply = agent.act(obs, false, limit).await;
        if pause {
            agent.pause();
        }
        assert!(
            matches!(reply.answer, arena_core::Answer::Action(_)),
            "{reply:?}"
        );
    }
    let elapsed = started.elapsed();
    agent.finish().await;
    elapsed / ANSWERS_PER_ROUND as u32
}

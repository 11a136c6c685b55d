//! Per-answer cost of arena's stream-process path against a bare pipe round trip to the same trivial
//! bot, measured in one run (issue: ≤ 2×). Run: `cargo bench -p arena-langwars --bench stream_overhead`.
//!
//! Both sides send the same turn input (a Lang Wars 2 holiday block, 8 lines) and read one answer line.
//! The bare side uses blocking std pipes and does nothing else. The arena side is `StreamAgent::act`:
//! input encoding, the non-blocking writer, the chunk reader, line splitting with a deadline timer and
//! answer parsing, on the runtime the CLI uses; a second arena figure adds the SIGCONT/SIGSTOP pair the
//! runner sends around every answer when idle bots are paused.

use std::io::{BufRead, BufReader, Write};
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

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut bare = Vec::new();
    let mut agent = Vec::new();
    let mut paused = Vec::new();
    for _ in 0..ROUNDS {
        bare.push(bare_round_trip(&argv, &input));
        agent.push(runtime.block_on(arena_round_trip(&argv, &obs, false)));
        paused.push(runtime.block_on(arena_round_trip(&argv, &obs, true)));
    }
    let bare = median(bare);
    let agent = median(agent);
    let paused = median(paused);
    println!("answers per round: {ANSWERS_PER_ROUND}, rounds: {ROUNDS} (medians)");
    println!(
        "bare pipe round trip:               {:7.2} µs/answer",
        micros(bare)
    );
    println!(
        "arena stream agent:                 {:7.2} µs/answer  ({:.2}x bare)",
        micros(agent),
        agent.as_secs_f64() / bare.as_secs_f64()
    );
    println!(
        "arena stream agent, pausing others: {:7.2} µs/answer  ({:.2}x bare)",
        micros(paused),
        paused.as_secs_f64() / bare.as_secs_f64()
    );
}

fn micros(per_answer: Duration) -> f64 {
    per_answer.as_secs_f64() * 1e6
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn bare_round_trip(argv: &[String], input: &str) -> Duration {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("bot starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("READY");
    let started = Instant::now();
    for _ in 0..ANSWERS_PER_ROUND {
        stdin.write_all(input.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        line.clear();
        stdout.read_line(&mut line).expect("answer");
    }
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

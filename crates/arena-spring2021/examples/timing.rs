//! How a bot that answers 95–99 ms after its own first read of each turn (as the Legend-level bots of
//! 2021 budget their time) fares under Spring 2021's default time policy (CodinGame's strikes), with
//! real processes at the real limits (scale 1). Prints timeouts, strikes and the answer times arena
//! measured, with the load average before and after (time limits are wall-clock: say the load).
//!
//! ```sh
//! cargo run --release -p arena-spring2021 --example timing -- [GAMES=200] [AT_ONCE=2]
//! ```

use std::time::Instant;

use arena_core::registry::{GameRequest, PlayerSpec, SeatRequest};
use arena_core::{FaultKind, MatchOptions};
/// The game as the front ends see it.
fn entry() -> Box<dyn arena_core::registry::GameEntry> {
    arena_core::registry::stream_entry(arena_spring2021::definition())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let at_once: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(2).max(1);
    let piddir = tempfile::tempdir().expect("temp dir");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/timed_bot.py");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    println!("load average before: {}", loadavg());
    let started = Instant::now();
    let results = runtime.block_on(async {
        let mut results = Vec::new();
        let mut seed = 0;
        while seed < games {
            let batch: Vec<_> = (seed..(seed + at_once).min(games))
                .map(|seed| {
                    let seats = vec![
                        SeatRequest {
                            name: "inside".into(),
                            spec: PlayerSpec::Command(vec![
                                "python3".into(),
                                script.into(),
                                "inside".into(),
                                "1".into(),
                                piddir.path().display().to_string(),
                            ]),
                            workdir: None,
                        },
                        SeatRequest {
                            name: "planner".into(),
                            spec: PlayerSpec::Builtin("planner".into()),
                            workdir: None,
                        },
                    ];
                    entry().play(GameRequest {
                        variant: None,
                        seed: 1000 + seed,
                        seats,
                        options: MatchOptions::default(),
                        stderr_cap: 4096,
                        prepared: Default::default(),
                    })
                })
                .collect();
            results.extend(futures::future::join_all(batch).await);
            seed += at_once;
        }
        results
    });
    let elapsed = started.elapsed();
    let mut timeouts = 0;
    let mut other_faults = 0;
    let mut strikes = [0u64; 4];
    let mut times = Vec::new();
    // Arena's measure minus the bot's own clock (from its first read to its write), per answer.
    let mut overheads = Vec::new();
    for result in &results {
        let result = result.as_ref().expect("the game runs");
        for fault in &result.faults[0] {
            if fault.kind == FaultKind::Timeout {
                timeouts += 1;
            } else {
                other_faults += 1;
            }
        }
        strikes[result.strikes[0].min(3) as usize] += 1;
        let steps = result.record["steps"].as_array().expect("steps");
        let own: Vec<f64> = result.record["players"][0]["stderr"]
            .as_str()
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        let arena: Vec<f64> = steps
            .iter()
            .filter(|s| s["player"] == 0 && s["output"].is_string())
            .filter_map(|s| s["elapsed_us"].as_u64())
            .map(|us| us as f64 / 1000.0)
            .collect();
        // The stderr excerpt may be cut: pair only what both kept, from the start.
        overheads.extend(arena.iter().zip(&own).skip(1).map(|(a, o)| a - o));
        // The bot's answers after its first (which has 1000 ms).
        times.extend(
            steps
                .iter()
                .filter(|s| s["player"] == 0)
                .skip(1)
                .filter_map(|s| s["elapsed_us"].as_u64()),
        );
    }
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0;
    println!("load average after:  {}", loadavg());
    println!(
        "{games} games ({at_once} at once) in {:.0} s: {timeouts} lost by timeout, {other_faults} other faults",
        elapsed.as_secs_f64()
    );
    println!(
        "games with 0/1/2/3 strikes: {}/{}/{}/{}",
        strikes[0], strikes[1], strikes[2], strikes[3]
    );
    println!(
        "{} answers after the first, measured by arena: median {:.2} ms, p99 {:.2} ms, max {:.2} ms, over 100 ms: {}",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0),
        times.iter().filter(|&&t| t > 100_000).count()
    );
    overheads.sort_by(f64::total_cmp);
    if !overheads.is_empty() {
        let at = |q: f64| overheads[((overheads.len() - 1) as f64 * q).round() as usize];
        println!(
            "arena's measure minus the bot's own clock ({} answers): median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            overheads.len(),
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
}

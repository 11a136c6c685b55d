//! `cargo bench -p arena-coup --bench decision_time`: each built-in that searches (`king`,
//! `oracle`) against every other built-in, in process, on paired seeds (each seed played in both
//! seat orders): its win rate per opponent with a 95 % interval, and the wall and thread-CPU time of
//! every one of its calls (median, p99, max). The per-call limit is 10 s; the aim is tens of ms at
//! the maximum.
//!
//! Environment: `COUP_BENCH_GAMES` (games per pair, default 200, rounded up to even),
//! `COUP_BENCH_BOTS` (the measured bots, comma-separated; default every bot that searches),
//! `COUP_BENCH_AGAINST` (the opponents; default every other built-in).

use std::time::Instant;

use arena_core::game::{Bot, Game};
use arena_core::testing::{play_timed, spread};
use arena_coup::catalog;
use arena_coup::rules::{Coup, CoupConfig, CoupObs};

fn names(variable: &str) -> Option<Vec<String>> {
    let text = std::env::var(variable).ok()?;
    Some(
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
    )
}

fn main() {
    let games = std::env::var("COUP_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(200)
        .div_ceil(2);
    let catalog = catalog::catalog();
    let measured = names("COUP_BENCH_BOTS").unwrap_or_else(|| {
        catalog
            .iter()
            .filter(|b| b.thinks)
            .map(|b| b.name.to_string())
            .collect()
    });
    let make = |name: &str, seed: u64| -> Box<dyn Bot<Coup>> {
        arena_core::registry::make_bot(&catalog, name, seed).expect("in the catalog")
    };
    for bot in &measured {
        let against = names("COUP_BENCH_AGAINST").unwrap_or_else(|| {
            catalog
                .iter()
                .map(|b| b.name.to_string())
                .filter(|name| name != bot)
                .collect()
        });
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        let started = Instant::now();
        for opponent in &against {
            let (mut wins, mut draws, mut played) = (0u32, 0u32, 0u32);
            for seed in 0..games {
                for seat in 0..2 {
                    let mut players: Vec<Box<dyn Bot<Coup>>> = (0..2)
                        .map(|s| {
                            let name = if s == seat { bot } else { opponent };
                            make(name, seed * 2 + s as u64)
                        })
                        .collect();
                    let mut game = Coup::new(&CoupConfig::default(), seed);
                    let mut obs = CoupObs::default();
                    let outcome =
                        play_timed(&mut game, &mut players, &mut obs, seat, &mut wall, &mut cpu);
                    played += 1;
                    match outcome.winner {
                        Some(w) if w == seat => wins += 1,
                        None => draws += 1,
                        _ => {}
                    }
                }
            }
            // A draw counts half; the interval is the normal one of a proportion.
            let n = played as f64;
            let rate = (wins as f64 + draws as f64 / 2.0) / n;
            let half = 1.96 * (rate * (1.0 - rate) / n).sqrt();
            println!(
                "coup: {bot} vs {opponent}: {:.1} % ± {:.1} ({wins} won, {draws} drawn of {played})",
                rate * 100.0,
                half * 100.0
            );
        }
        let calls = wall.len();
        let (w50, w99, wmax) = spread(&mut wall).expect("decisions were timed");
        let (c50, c99, cmax) = spread(&mut cpu).expect("decisions were timed");
        println!(
            "coup: {bot}, {calls} calls in {:.1} s: wall median {w50:.2} ms, p99 {w99:.2} ms, max {wmax:.2} ms; \
             CPU median {c50:.2} ms, p99 {c99:.2} ms, max {cmax:.2} ms",
            started.elapsed().as_secs_f64()
        );
    }
}

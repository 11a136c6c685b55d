//! `cargo bench -p arena-langwars --bench decision_time`: `montecarlo` against every other built-in
//! at once (its seat rotated per seed), per edition: how often it finishes first (a shared first
//! place counts its share) with a 95 % interval, and the wall and thread-CPU time of every decision
//! (median, p99, max). The time limit is 1 s per answer; the aim is at most 200 ms even at the
//! maximum.
//!
//! Environment: `LW_BENCH_GAMES` (default 100 per edition), `LW_BENCH_AGAINST` (the three
//! opponents, comma-separated; default `greedy,focus,spread`).

use std::time::Instant;

use arena_core::{Answer, Bot, Game};
use arena_langwars::{Edition, LangWars, Observation, catalog};

/// CPU time of this thread in ms (what the bot used, whatever the machine's load).
fn thread_cpu_ms() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    now.tv_sec as f64 * 1e3 + now.tv_nsec as f64 / 1e6
}

/// median, p99, max of `times` (sorted here).
fn spread(times: &mut [f64]) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), times[times.len() - 1])
}

fn main() {
    let games: u64 = std::env::var("LW_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let against: Vec<String> = std::env::var("LW_BENCH_AGAINST")
        .unwrap_or_else(|_| "greedy,focus,spread".into())
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let catalog = catalog::catalog();
    let make = |name: &str, seed: u64| -> Box<dyn Bot<LangWars>> {
        arena_core::registry::make_bot(&catalog, name, seed).expect("in the catalog")
    };
    for edition in Edition::ALL {
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        let mut firsts = 0.0;
        for seed in 0..games {
            let seat = (seed % 4) as usize;
            let mut players: Vec<Box<dyn Bot<LangWars>>> = (0..4)
                .map(|s| {
                    let name = if s == seat {
                        "montecarlo"
                    } else {
                        // The opponents keep their order around the measured seat.
                        &against[(s + 3 - seat) % 4 % against.len()]
                    };
                    make(name, seed * 4 + s as u64)
                })
                .collect();
            let mut game = LangWars::with_edition(edition, seed);
            let mut obs = Observation::default();
            while let Some(player) = game.to_act() {
                game.observe(player, &mut obs);
                let (start, cpu_start) = (Instant::now(), thread_cpu_ms());
                let action = players[player].act(&obs);
                if player == seat {
                    wall.push(start.elapsed().as_secs_f64() * 1e3);
                    cpu.push(thread_cpu_ms() - cpu_start);
                }
                game.apply(player, Answer::Action(action));
            }
            let ranks = game.outcome().ranks;
            if ranks[seat] == 1 {
                firsts += 1.0 / ranks.iter().filter(|&&r| r == 1).count() as f64;
            }
        }
        let rate = firsts / games as f64;
        let half = 1.96 * (rate * (1.0 - rate) / games as f64).sqrt();
        let decisions = wall.len();
        let (w50, w99, wmax) = spread(&mut wall);
        let (c50, c99, cmax) = spread(&mut cpu);
        println!(
            "{}: montecarlo first in {:.1} % ± {:.1} of {games} games against {}; {decisions} decisions: \
             wall median {w50:.2} ms, p99 {w99:.2} ms, max {wmax:.2} ms; CPU median {c50:.2} ms, \
             p99 {c99:.2} ms, max {cmax:.2} ms",
            edition.game_id(),
            rate * 100.0,
            half * 100.0,
            against.join(", "),
        );
    }
}

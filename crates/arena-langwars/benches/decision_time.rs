//! `cargo bench -p arena-langwars --bench decision_time`: `montecarlo` against every other built-in
//! at once (its seat rotated per seed), per edition: how often it finishes first (a shared first
//! place counts its share) with a 95 % interval, and the wall and thread-CPU time of every decision
//! (median, p99, max). The time limit is 1 s per answer; the aim is at most 200 ms even at the
//! maximum.
//!
//! Environment: `LW_BENCH_GAMES` (default 100 per edition), `LW_BENCH_AGAINST` (the three
//! opponents, comma-separated; default `greedy,focus,spread`).

use arena_core::Bot;
use arena_core::testing::{play_timed, spread};
use arena_langwars::{Edition, LangWars, Observation, catalog};

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
            let ranks =
                play_timed(&mut game, &mut players, &mut obs, seat, &mut wall, &mut cpu).ranks;
            if ranks[seat] == 1 {
                firsts += 1.0 / ranks.iter().filter(|&&r| r == 1).count() as f64;
            }
        }
        let rate = firsts / games as f64;
        let half = 1.96 * (rate * (1.0 - rate) / games as f64).sqrt();
        let decisions = wall.len();
        let (w50, w99, wmax) = spread(&mut wall).expect("decisions were timed");
        let (c50, c99, cmax) = spread(&mut cpu).expect("decisions were timed");
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

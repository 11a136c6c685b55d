//! `cargo bench -p arena-langwars --bench decision_time`: wall time of every `montecarlo` decision
//! in games against three `greedy` (seat rotated per seed), per edition: median, p99 and max.
//! The time limit is 1 s per answer; the aim is at most 200 ms even at the maximum.
//!
//! Environment: `LW_BENCH_GAMES` (default 100 per edition).

use std::time::Instant;

use arena_core::{Answer, Bot, Game};
use arena_langwars::{Edition, LangWars, Observation, catalog};

fn main() {
    let games: u64 = std::env::var("LW_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let catalog = catalog::catalog();
    let make = |name: &str, seed: u64| -> Box<dyn Bot<LangWars>> {
        arena_core::registry::make_bot(&catalog, name, seed).expect("in the catalog")
    };
    for edition in Edition::ALL {
        let mut times = Vec::new();
        for seed in 0..games {
            let seat = (seed % 4) as usize;
            let mut players: Vec<Box<dyn Bot<LangWars>>> = (0..4)
                .map(|s| {
                    make(
                        if s == seat { "montecarlo" } else { "greedy" },
                        seed * 4 + s as u64,
                    )
                })
                .collect();
            let mut game = LangWars::with_edition(edition, seed);
            let mut obs = Observation::default();
            while let Some(player) = game.to_act() {
                game.observe(player, &mut obs);
                let start = Instant::now();
                let action = players[player].act(&obs);
                if player == seat {
                    times.push(start.elapsed().as_secs_f64() * 1e3);
                }
                game.apply(player, Answer::Action(action));
            }
        }
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{}: montecarlo, {} decisions in {games} games: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            edition.game_id(),
            times.len(),
            at(0.5),
            at(0.99),
            times[times.len() - 1]
        );
    }
}

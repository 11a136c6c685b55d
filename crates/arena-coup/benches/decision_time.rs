//! `cargo bench -p arena-coup --bench decision_time`: wall time of every `oracle` call in games
//! against `calculator` (both seat orders per seed): median, p99 and max. The per-call limit is
//! 10 s; the aim is at most 2 s even at the maximum.
//!
//! Environment: `COUP_BENCH_GAMES` (default 200).

use std::time::Instant;

use arena_core::game::{Answer, Bot, Game};
use arena_coup::catalog;
use arena_coup::rules::{Coup, CoupConfig, CoupObs};

fn main() {
    let games: u64 = std::env::var("COUP_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let catalog = catalog::catalog();
    let make = |name: &str, seed: u64| -> Box<dyn Bot<Coup>> {
        arena_core::registry::make_bot(&catalog, name, seed).expect("in the catalog")
    };
    let mut times = Vec::new();
    let mut wins = 0;
    for seed in 0..games {
        let seat = (seed % 2) as usize;
        let mut players: Vec<Box<dyn Bot<Coup>>> = (0..2)
            .map(|s| {
                make(
                    if s == seat { "oracle" } else { "calculator" },
                    seed * 2 + s as u64,
                )
            })
            .collect();
        let mut game = Coup::new(&CoupConfig::default(), seed / 2);
        let mut obs = CoupObs::default();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            let start = Instant::now();
            let action = players[player].act(&obs);
            if player == seat {
                times.push(start.elapsed().as_secs_f64() * 1e3);
            }
            game.apply(player, Answer::Action(action));
        }
        wins += usize::from(game.outcome().winner == Some(seat));
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "coup: oracle, {} calls in {games} games (won {wins}): median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        at(0.5),
        at(0.99),
        times[times.len() - 1]
    );
}

//! Feeds synthetic 2-player games (two seat orders per seed, consecutive pair ids) through an
//! [`Accumulator`] with the default settings and prints the feeding rate and the time of one
//! report, to check that streaming a large tournament stays cheap. Run with
//! `cargo run --release -p arena-stats --example stream -- GAMES [BOTS]` under `/usr/bin/time -v`
//! to see the peak memory.

use std::time::Instant;

use arena_stats::{Accumulator, GameResult, StatsConfig};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let bots: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8).max(2);
    let names = (0..bots).map(|bot| format!("bot{bot}")).collect();
    let mut accumulator = Accumulator::new(names, StatsConfig::default());
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let started = Instant::now();
    for seed in 0..games / 2 {
        let a = (rng.next_u64() % bots as u64) as usize;
        let b = (a + 1 + (rng.next_u64() % (bots as u64 - 1)) as usize) % bots;
        for (first, second) in [(a, b), (b, a)] {
            // The lower-numbered bot is a little stronger, so the ratings have something to find.
            let first_wins =
                rng.next_u64() % 100 < 50 + (second as u64).saturating_sub(first as u64);
            let ranks = if first_wins { vec![1, 2] } else { vec![2, 1] };
            let game = GameResult {
                players: vec![first, second],
                scores: ranks
                    .iter()
                    .map(|&rank| f64::from(3 - rank) * 10.0)
                    .collect(),
                winner: Some(if first_wins { 0 } else { 1 }),
                ranks,
                faults: Vec::new(),
                pair_id: Some(seed),
            };
            if let Err(error) = accumulator.add(&game) {
                eprintln!("{error}");
                return;
            }
        }
    }
    let fed = started.elapsed();
    let report_started = Instant::now();
    let report = accumulator.report();
    println!(
        "{} games fed in {:.2?} ({:.0} games/s); report in {:.2?}; fit sample {:?}; {:?}",
        report.games,
        fed,
        report.games as f64 / fed.as_secs_f64(),
        report_started.elapsed(),
        report.fit_sample,
        accumulator.footprint(),
    );
}

//! Plays a fixed number of random-vs-random games (for instruction-count profiling).
use arena_core::registry::bench_in_process;
fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.01);
    let bots = arena_spring2021::bots::catalog();
    let report = bench_in_process(&arena_spring2021::League::Bronze, &bots[0], seconds);
    println!("{}", report.games);
}

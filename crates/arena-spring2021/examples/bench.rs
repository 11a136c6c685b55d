//! `cargo run --release -p arena-spring2021 --example bench [LEAGUE] [SECONDS | GAMESg]`: what
//! `arena bench spring2021` measures (random boss against itself, one thread), for a time or for
//! an exact number of games (`20000g`: the same work every run, for instruction counts).

use arena_core::registry::BenchLength;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let league = args.first().map(String::as_str);
    let length = match args.get(1) {
        Some(arg) if arg.ends_with('g') => {
            BenchLength::Games(arg.trim_end_matches('g').parse().unwrap_or(20_000))
        }
        arg => BenchLength::Seconds(arg.and_then(|s| s.parse().ok()).unwrap_or(3.0)),
    };
    match arena_core::registry::stream_entry(arena_spring2021::definition()).bench(league, length) {
        Ok(report) => println!(
            "{} games in {:.2} s: {:.0} games/s",
            report.games,
            report.elapsed.as_secs_f64(),
            report.games_per_second()
        ),
        Err(e) => eprintln!("{e}"),
    }
}

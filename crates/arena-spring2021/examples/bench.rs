//! `cargo run --release -p arena-spring2021 --example bench [LEAGUE] [SECONDS]`: what
//! `arena bench spring2021` measures (random boss against itself, one thread).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let league = args.first().map(String::as_str);
    let seconds = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let length = arena_core::registry::BenchLength::Seconds(seconds);
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

//! The statistics pass of an existing tournament directory, timed (for profiling it alone):
//! `cargo run --release -p arena-tournament --example stats_pass -- DIR [BOOTSTRAP]`.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: stats_pass DIR [BOOTSTRAP]")?);
    let bootstrap: usize = args.next().map_or(Ok(200), |b| b.parse())?;
    let plan = arena_tournament::load(&dir)?;
    let started = Instant::now();
    let (report, _) = arena_tournament::report::compute(&dir, &plan, bootstrap)?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} games: {:.3} s, {:.2} µs per game",
        report.games,
        seconds,
        seconds / report.games as f64 * 1e6
    );
    Ok(())
}

//! `arena bench`: games per second of a game's built-in bots, and what a replay costs per game.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use arena_core::MatchOptions;
use arena_core::registry::{BenchLength, GameRequest, PlayerSpec, SeatRequest};

use crate::games::find_game;
use crate::runtime::runtime;

pub fn bench(game: &str, length: BenchLength, league: Option<&str>) -> Result<ExitCode> {
    let game = find_game(game)?;
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; measure with `cargo run --release -- bench ...`");
    }
    // A short warm-up so the figure is not the cold start (a count of games is measured as it is).
    if let BenchLength::Seconds(seconds) = length {
        game.bench(league, BenchLength::Seconds(seconds.min(0.2)))
            .map_err(|e| anyhow!(e))?;
    }
    let report = game.bench(league, length).map_err(|e| anyhow!(e))?;
    println!(
        "{} games in {:.3} s on one thread",
        report.games,
        report.elapsed.as_secs_f64()
    );
    println!("{}: {:.0} games/s", game.id(), report.games_per_second());
    Ok(ExitCode::SUCCESS)
}

/// Per game of built-in `random` bots: the game unrecorded (the tournaments' fast path), the same game
/// recorded (frames and record, on the game's thread), then the record encoded to JSON and compressed
/// (a tournament's replay writer thread). Means over the games played in about `seconds`.
pub fn bench_replays(game: &str, length: BenchLength, league: Option<&str>) -> Result<ExitCode> {
    let game = find_game(game)?;
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; measure with `cargo run --release -- bench ...`");
    }
    let bot = game
        .bots()
        .iter()
        .map(|(name, _)| *name)
        .find(|&name| name == "random")
        .or_else(|| game.bots().first().map(|(name, _)| *name))
        .ok_or_else(|| anyhow!("{} has no built-in bot", game.id()))?
        .to_string();
    let bots = vec![bot.clone(); game.players()];
    let runtime = runtime()?;
    let (mut json, mut compressed) = (Vec::new(), Vec::new());
    let mut compressor = arena_tournament::run::ReplayCompressor::default();
    let mut totals = [Duration::ZERO; 4];
    let (mut json_bytes, mut compressed_bytes, mut games) = (0usize, 0usize, 0u32);
    let started = Instant::now();
    let more = |games: u32| match length {
        BenchLength::Seconds(seconds) => started.elapsed().as_secs_f64() < seconds || games == 0,
        BenchLength::Games(count) => u64::from(games) < count,
    };
    while more(games) {
        let seed = u64::from(games);
        let t0 = Instant::now();
        game.play_builtin(league, &bots, seed)
            .map_err(|e| anyhow!(e))?;
        let t1 = Instant::now();
        let request = GameRequest {
            variant: league.map(str::to_string),
            seed,
            seats: bots
                .iter()
                .map(|name| SeatRequest {
                    name: name.clone(),
                    spec: PlayerSpec::Builtin(name.clone()),
                    workdir: None,
                })
                .collect(),
            options: MatchOptions::default(),
            stderr_cap: 4096,
            prepared: Default::default(),
        };
        let result = runtime
            .block_on(game.play(request))
            .map_err(|e| anyhow!(e))?;
        let t2 = Instant::now();
        json.clear();
        result.record.write_json(&mut json)?;
        let t3 = Instant::now();
        compressor.compress(&json, &mut compressed)?;
        let t4 = Instant::now();
        for (total, (from, to)) in totals
            .iter_mut()
            .zip([(t0, t1), (t1, t2), (t2, t3), (t3, t4)])
        {
            *total += to - from;
        }
        json_bytes += json.len();
        compressed_bytes += compressed.len();
        games += 1;
    }
    if games == 0 {
        bail!("--games 0: no game to measure");
    }
    let [bare, recorded, encode, compress] =
        totals.map(|total| total.as_secs_f64() * 1e6 / f64::from(games));
    let n = games as usize;
    println!("{} games of {bot}, means per game:", games);
    println!("  game, unrecorded:      {bare:9.1} µs");
    println!("  game, recorded:        {recorded:9.1} µs");
    println!(
        "  encode JSON:           {encode:9.1} µs  ({} bytes)",
        json_bytes / n
    );
    println!(
        "  compress:              {compress:9.1} µs  ({} bytes)",
        compressed_bytes / n
    );
    println!(
        "{}: replay {:.1} µs per game ({:.1} µs on the game's thread, {:.1} µs on the writer's)",
        game.id(),
        recorded - bare + encode + compress,
        recorded - bare,
        encode + compress
    );
    Ok(ExitCode::SUCCESS)
}

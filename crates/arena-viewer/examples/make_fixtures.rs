//! Regenerates the two-player fixtures of the browser tests (the Lang Wars ones come from `arena play`,
//! see `tests/data/README.md`):
//! `cargo run -p arena-viewer --example make_fixtures -- crates/arena-viewer/tests/data`

use arena_core::registry::{GameEntry, GameRequest, PlayerSpec, SeatRequest};
use arena_core::runner::MatchOptions;

fn play(entry: &dyn GameEntry, variant: Option<&str>, bots: &[&str], seed: u64) -> String {
    let request = GameRequest {
        variant: variant.map(str::to_string),
        seed,
        seats: bots
            .iter()
            .map(|bot| SeatRequest {
                name: bot.to_string(),
                spec: PlayerSpec::Builtin(bot.to_string()),
                workdir: None,
            })
            .collect(),
        options: MatchOptions::default(),
        stderr_cap: 4096,
        prepared: Default::default(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let result = runtime.block_on(entry.play(request)).expect("game");
    serde_json::to_string(&result.record).expect("json")
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let dir = std::path::Path::new(&dir);
    let spring = play(
        arena_core::registry::stream_entry(arena_spring2021::definition()).as_ref(),
        Some("bronze"),
        &["planner", "wood1"],
        7,
    );
    std::fs::write(dir.join("spring2021.json"), spring).expect("write");
    let coup = play(
        arena_core::call::call_entry(arena_coup::definition()).as_ref(),
        None,
        &["calculator", "bandit"],
        3,
    );
    std::fs::write(dir.join("coup.json"), coup).expect("write");
}

//! Coup's built-in bots as external programs, called once per move on the arbiter's protocol by the
//! run layer's call agent, play exactly as they do in process.

use arena_core::registry::{GameRequest, PlayerSpec, SeatRequest};
use arena_core::runner::MatchOptions;

/// The same bots called once per move through `arena bot coup NAME` give the same game as in process
/// (every bot decides from its arguments and the history alone; random is seeded from them, so it
/// is left out).
#[test]
fn external_bots_play_like_in_process_ones() {
    let exe = env!("CARGO_BIN_EXE_arena");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let entry = arena_core::call::call_entry(arena_coup::definition());
    for (seed, names) in [
        (1u64, ["calculator", "lawyer"]),
        (2, ["taxman", "challenger"]),
        (3, ["bandit", "assassin"]),
        (4, ["income", "calculator"]),
    ] {
        let request = |external: bool| GameRequest {
            variant: None,
            seed,
            seats: names
                .iter()
                .map(|name| SeatRequest {
                    name: name.to_string(),
                    spec: if external {
                        PlayerSpec::Command(vec![
                            exe.to_string(),
                            "bot".to_string(),
                            "coup".to_string(),
                            name.to_string(),
                        ])
                    } else {
                        PlayerSpec::Builtin(name.to_string())
                    },
                    workdir: None,
                })
                .collect(),
            options: MatchOptions {
                pause_idle: true,
                time_scale: 1.0,
                record_frames: true,
                cpu: None,
                time_policy: None,
                probe: false,
                sandbox: None,
                clock: arena_core::ClockKind::Wall,
            },
            stderr_cap: 4096,
            prepared: Default::default(),
        };
        let inside = runtime.block_on(entry.play(request(false))).unwrap();
        let outside = runtime.block_on(entry.play(request(true))).unwrap();
        assert!(
            outside.faults.iter().all(Vec::is_empty),
            "{names:?}: {:?}",
            outside.faults
        );
        let moves = |record: &serde_json::Value| -> Vec<serde_json::Value> {
            record["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["action"].clone())
                .collect()
        };
        assert_eq!(moves(&inside.record), moves(&outside.record), "{names:?}");
        assert_eq!(inside.outcome.winner, outside.outcome.winner);
        // Frames for viewers: one per call, with coins and cards.
        let frames = outside.record["frames"].as_array().unwrap();
        assert_eq!(frames.len(), moves(&outside.record).len());
        assert!(frames[0]["cards"].as_array().unwrap().len() == 2);
    }
}

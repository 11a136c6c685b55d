//! Built-in bots: always legal, in process and as external programs, and sensible against each other.

use arena_core::game::{Game, play_in_process};
use arena_core::registry::{GameRequest, PlayerSpec, SeatRequest, bot_seed};
use arena_core::runner::MatchOptions;
use arena_coup::catalog;
use arena_coup::rules::{Coup, CoupConfig, CoupObs};

#[test]
fn every_pair_plays_legal_games() {
    // Bots that search (`oracle`) are too slow for 300 games a pair in the debug profile; their own
    // tests (`tests/oracle.rs`) play them against every built-in bot.
    let all: Vec<_> = catalog::catalog()
        .into_iter()
        .filter(|b| !b.thinks)
        .collect();
    let config = CoupConfig::default();
    for a in &all {
        for b in &all {
            let mut wins = [0; 3];
            for seed in 0..300u64 {
                let mut game = Coup::new(&config, seed);
                let mut players = vec![(a.make)(bot_seed(seed, 0)), (b.make)(bot_seed(seed, 1))];
                let outcome = play_in_process(&mut game, &mut players, &mut CoupObs::default());
                assert!(
                    game.rule_faults().is_empty(),
                    "{} vs {}: {:?} in {:?}",
                    a.name,
                    b.name,
                    game.rule_faults(),
                    game.history()
                );
                wins[outcome.winner.unwrap_or(2)] += 1;
            }
            let _ = wins;
        }
    }
}

#[test]
fn stand_ins_say_so() {
    for bot in catalog::catalog() {
        // `oracle` is arena's own bot, not modelled on a leaderboard entry.
        let published = ["random", "challenger", "calculator", "oracle"].contains(&bot.name);
        assert_eq!(
            !published,
            bot.about.contains("STAND-IN"),
            "{}: {}",
            bot.name,
            bot.about
        );
    }
}

#[test]
fn calculator_beats_random_and_income() {
    let entry = arena_core::call::call_entry(arena_coup::definition());
    for opponent in ["random", "income", "challenger"] {
        let mut calculator = 0;
        for seed in 0..400u64 {
            let names = if seed % 2 == 0 {
                ["calculator", opponent]
            } else {
                [opponent, "calculator"]
            };
            let names = names.map(String::from);
            let outcome = entry.play_builtin(None, &names, seed).unwrap();
            if outcome.winner.is_some_and(|w| names[w] == "calculator") {
                calculator += 1;
            }
        }
        assert!(
            calculator > 220,
            "calculator won {calculator}/400 against {opponent}"
        );
    }
}

/// The same bots called once per move through `coup-bot` give the same game as in process (every bot
/// decides from its arguments and the history alone; random is seeded from them, so it is left out).
#[test]
fn external_bots_play_like_in_process_ones() {
    let exe = env!("CARGO_BIN_EXE_coup-bot");
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
                        PlayerSpec::Command(vec![exe.to_string(), name.to_string()])
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

#[test]
fn bot_main_appends_and_prints_the_keep() {
    let dir = std::env::temp_dir().join(format!("arena-coup-botmain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let history = dir.join("h.txt");
    std::fs::write(&history, "Ep").unwrap();
    let args: Vec<String> = [history.to_str().unwrap(), "1", "1", "$!~^", "\n"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut out = Vec::new();
    arena_core::call::call_bot_main(&catalog::catalog(), "calculator", &args, &mut out).unwrap();
    assert_eq!(std::fs::read_to_string(&history).unwrap(), "Ep\n");
    let kept = String::from_utf8(out).unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    // And what it printed is a legal keep for the referee.
    let obs = CoupObs {
        history: "Ep".into(),
        cards: arena_coup::Cards::parse_reveal("$!~^").unwrap(),
        keep: 2,
        legal: arena_coup::Legal::from_moves(&[arena_coup::Move::END]),
        ..CoupObs::default()
    };
    assert!(arena_coup::decode_answer(&obs, b"\n", kept.as_bytes()).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

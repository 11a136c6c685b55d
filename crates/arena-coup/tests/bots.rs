//! Built-in bots: always legal, as programs (`call_bot_main`), and sensible against each other; as
//! processes through the call agent: `crates/arena/tests/coup_processes.rs`.

use arena_core::game::{Game, play_in_process};
use arena_core::registry::bot_seed;
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
        // `oracle` and `king` are arena's own bots, not modelled on a leaderboard entry.
        let published =
            ["random", "challenger", "calculator", "oracle", "king"].contains(&bot.name);
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

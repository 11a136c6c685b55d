//! The `oracle` bot: reproducible, always legal, its simulations follow the real game, and it beats
//! `calculator` clearly on fixed seeds (deterministic games, so the check cannot flake).

use arena_core::game::{Answer, Bot, Game};
use arena_core::seed::bot_rng;
use arena_coup::catalog;
use arena_coup::rules::{Coup, CoupConfig, CoupObs};
use arena_coup::search::OracleBot;

/// Fewer guesses than the built-in bot: tests run in the debug profile.
const TEST_SAMPLES: usize = 16;

fn opponent(name: &str, seed: u64) -> Box<dyn Bot<Coup>> {
    arena_core::registry::make_bot(&catalog::catalog(), name, seed).expect("built in")
}

/// One game, oracle in `seat`; returns the history, the winner and the rule faults.
fn play(seed: u64, seat: usize, against: &str) -> (String, Option<usize>, usize) {
    let mut players: Vec<Box<dyn Bot<Coup>>> = (0..2)
        .map(|s| {
            if s == seat {
                Box::new(OracleBot::new(seed, TEST_SAMPLES)) as Box<dyn Bot<Coup>>
            } else {
                opponent(against, seed + 1)
            }
        })
        .collect();
    let mut game = Coup::new(&CoupConfig::default(), seed);
    let mut obs = CoupObs::default();
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        let action = players[player].act(&obs);
        assert!(
            Coup::check_action(&obs, &action).is_ok(),
            "seed {seed}: {action:?} is not legal in {obs:?}"
        );
        game.apply(player, Answer::Action(action));
    }
    let faults = game.rule_faults().len();
    (game.history().to_string(), game.outcome().winner, faults)
}

#[test]
fn same_seed_same_game() {
    for seed in 0..6 {
        assert_eq!(
            play(seed, (seed % 2) as usize, "calculator"),
            play(seed, (seed % 2) as usize, "calculator")
        );
    }
}

#[test]
fn legal_against_every_built_in() {
    for entry in catalog::catalog() {
        for seed in 0..12 {
            let (history, _, faults) = play(seed, (seed % 2) as usize, entry.name);
            assert_eq!(faults, 0, "against {}: {history:?}", entry.name);
        }
    }
}

#[test]
fn simulations_reproduce_every_call() {
    // Every guess at the hidden cards must give back the very call being answered; otherwise the
    // bot falls back to calculator's answer, which would hide a modelling bug.
    for seed in 0..20 {
        let seat = (seed % 2) as usize;
        let mut players = [
            opponent("calculator", seed),
            opponent("calculator", seed + 1),
        ];
        let oracle = OracleBot::new(seed, 1);
        let mut rng = bot_rng(seed);
        let mut game = Coup::new(&CoupConfig::default(), seed);
        let mut obs = CoupObs::default();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            if player == seat {
                for _ in 0..4 {
                    assert!(
                        oracle.determinize(&obs, &mut rng).is_some(),
                        "seed {seed}: no consistent guess for {obs:?}"
                    );
                }
            }
            let action = players[player].act(&obs);
            game.apply(player, Answer::Action(action));
        }
    }
}

#[test]
fn beats_calculator_on_fixed_seeds() {
    // 150 fixed games, both seat orders; the built-in bot wins about 75 % (notes of issue 12). With
    // the test budget a win rate below 60 % would mean the search is broken.
    let wins = (0..150u64)
        .filter(|&seed| {
            let seat = (seed % 2) as usize;
            play(seed, seat, "calculator").1 == Some(seat)
        })
        .count();
    eprintln!("oracle won {wins} of 150 against calculator");
    assert!(
        wins >= 90,
        "oracle won only {wins} of 150 against calculator"
    );
}

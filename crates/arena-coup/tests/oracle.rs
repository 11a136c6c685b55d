//! The searching bots, `oracle` and `king`: reproducible, always legal, their simulations follow the
//! real game, and they beat `calculator` clearly on fixed seeds (deterministic games, so the check
//! cannot flake).

use arena_core::game::{Answer, Bot, Game};
use arena_core::seed::bot_rng;
use arena_coup::catalog;
use arena_coup::rules::{Coup, CoupAction, CoupConfig, CoupObs, Move};
use arena_coup::search::{Model, OracleBot};

/// Fewer guesses than the built-in bot: tests run in the debug profile.
const TEST_SAMPLES: usize = 48;

fn opponent(name: &str, seed: u64) -> Box<dyn Bot<Coup>> {
    arena_core::registry::make_bot(&catalog::catalog(), name, seed).expect("built in")
}

/// One game, the searching bot of `model` in `seat`; returns the history, the winner and the rule
/// faults.
fn play(seed: u64, seat: usize, against: &str, model: Model) -> (String, Option<usize>, usize) {
    let mut players: Vec<Box<dyn Bot<Coup>>> = (0..2)
        .map(|s| {
            if s == seat {
                Box::new(OracleBot::with_model(seed, TEST_SAMPLES, model)) as Box<dyn Bot<Coup>>
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

const MODELS: [Model; 2] = [Model::Oracle, Model::King];

#[test]
fn same_seed_same_game() {
    for model in MODELS {
        for seed in 0..6 {
            let seat = (seed % 2) as usize;
            assert_eq!(
                play(seed, seat, "calculator", model),
                play(seed, seat, "calculator", model)
            );
        }
    }
}

#[test]
fn legal_against_every_built_in() {
    for model in MODELS {
        for entry in catalog::catalog() {
            for seed in 0..12 {
                let (history, _, faults) = play(seed, (seed % 2) as usize, entry.name, model);
                assert_eq!(faults, 0, "{model:?} against {}: {history:?}", entry.name);
            }
        }
    }
}

/// Calculator as the published one sometimes answered: `<` written before a lone `\n`, which the
/// original arbiter (and arena without `--strict-moves`) accepts.
struct JunkWriter(Box<dyn Bot<Coup>>);

impl Bot<Coup> for JunkWriter {
    fn act(&mut self, obs: &CoupObs) -> CoupAction {
        let mut action = self.0.act(obs);
        if action.wrote == Move::END && obs.legal.len() == 1 && obs.keep == 0 {
            action.junk = Some('<');
        }
        action
    }
}

#[test]
fn junk_in_the_history_keeps_the_search_going() {
    // After the opponent's junk the guesses must still reproduce the call (else the bot would
    // play calculator's answer for the rest of the game), and the junk is no lost card.
    let mut junk_games = 0;
    for seed in 0..12 {
        let seat = (seed % 2) as usize;
        let mut opponent = JunkWriter(opponent("calculator", seed + 1));
        let king = OracleBot::with_model(seed, 1, Model::King);
        let mut me = OracleBot::with_model(seed, TEST_SAMPLES, Model::King);
        let mut rng = bot_rng(seed);
        let mut game = Coup::new(&CoupConfig::default(), seed);
        let mut obs = CoupObs::default();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            let action = if player == seat {
                assert!(
                    king.determinize(&obs, &mut rng).is_some(),
                    "seed {seed}: no consistent guess for {obs:?}"
                );
                me.act(&obs)
            } else {
                opponent.act(&obs)
            };
            game.apply(player, Answer::Action(action));
        }
        assert!(
            game.rule_faults().is_empty(),
            "seed {seed}: {:?}",
            game.history()
        );
        junk_games += usize::from(game.history().contains("p<\n"));
    }
    assert!(junk_games > 0, "no game had junk: the test tests nothing");
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

/// Games won of 150 fixed ones (both seat orders) against `against`.
fn wins_of(model: Model, against: &str) -> usize {
    (0..150u64)
        .filter(|&seed| {
            let seat = (seed % 2) as usize;
            play(seed, seat, against, model).1 == Some(seat)
        })
        .count()
}

#[test]
fn beats_calculator_on_fixed_seeds() {
    // 150 fixed games, both seat orders. With the built-in budget both win about 62 % against
    // calculator (which plays as the published Calculator: docs/benchmarks.md), and calculator
    // against itself wins half; with the test budget a win rate under 56 % would mean the search
    // lost its edge.
    for model in MODELS {
        let wins = wins_of(model, "calculator");
        eprintln!("{model:?} won {wins} of 150 against calculator");
        assert!(
            wins >= 84,
            "{model:?} won only {wins} of 150 against calculator"
        );
    }
}

#[test]
fn king_reads_an_honest_opponent() {
    // `lawyer` never bluffs and challenges only what is provably false: king, which weighs what
    // kind of opponent it faces, must beat it clearly (oracle, taking it for calculator, wins
    // about half).
    let wins = wins_of(Model::King, "lawyer");
    eprintln!("king won {wins} of 150 against lawyer");
    assert!(wins >= 90, "king won only {wins} of 150 against lawyer");
}

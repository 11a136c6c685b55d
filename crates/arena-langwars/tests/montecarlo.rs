//! The `montecarlo` bot: reproducible, always a well-formed move, and clearly above par against three
//! `greedy` on fixed seeds in every edition (games are deterministic, so the check cannot flake).

use arena_core::{Answer, Bot, Game};
use arena_langwars::montecarlo::{Budget, MonteCarloBot};
use arena_langwars::{Edition, LangWars, Move, Observation, catalog};

/// A small budget: tests run in the debug profile.
const TEST_BUDGET: Budget = Budget {
    shortlist: 8,
    rollouts: 2,
};

fn other(name: &str, seed: u64) -> Box<dyn Bot<LangWars>> {
    arena_core::registry::make_bot(&catalog::catalog(), name, seed).expect("built in")
}

/// One game with montecarlo in `seat` and `field` in the other seats (in order); returns its moves
/// and the winner.
fn play(edition: Edition, seed: u64, seat: usize, field: [&str; 3]) -> (Vec<Move>, Option<usize>) {
    let mut names = field.iter();
    let mut players: Vec<Box<dyn Bot<LangWars>>> = (0..4)
        .map(|s| {
            if s == seat {
                Box::new(MonteCarloBot::new(seed, TEST_BUDGET)) as Box<dyn Bot<LangWars>>
            } else {
                other(names.next().copied().unwrap_or("greedy"), seed + s as u64)
            }
        })
        .collect();
    let mut game = LangWars::with_edition(edition, seed);
    let mut obs = Observation::default();
    let mut moves = Vec::new();
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        let action = players[player].act(&obs);
        if player == seat {
            assert_eq!(
                action.targets().len(),
                obs.slots(),
                "{edition:?} seed {seed}"
            );
            assert!(
                action.targets().iter().all(|&t| (t as usize) < obs.targets),
                "{edition:?} seed {seed}: {action:?}"
            );
            moves.push(action);
        }
        game.apply(player, Answer::Action(action));
    }
    (moves, game.outcome().winner)
}

#[test]
fn same_seed_same_game() {
    for edition in Edition::ALL {
        for seed in 0..3 {
            let field = ["random", "focus", "greedy"];
            assert_eq!(
                play(edition, seed, (seed % 4) as usize, field),
                play(edition, seed, (seed % 4) as usize, field)
            );
        }
    }
}

#[test]
fn well_formed_moves_against_every_field() {
    let fields = [
        ["random", "random", "random"],
        ["spread", "focus", "greedy"],
        ["greedy", "greedy", "random"],
    ];
    for edition in Edition::ALL {
        for seed in 0..8u64 {
            play(
                edition,
                seed,
                (seed % 4) as usize,
                fields[seed as usize % 3],
            );
        }
    }
}

#[test]
fn beats_three_greedy_on_fixed_seeds() {
    // Par is a quarter of the games (6 of 24). The built-in budget wins about all of them (notes of
    // issue 12); the test budget must still win at least two thirds.
    for edition in Edition::ALL {
        let wins = (0..24u64)
            .filter(|&seed| {
                let seat = (seed % 4) as usize;
                play(edition, seed, seat, ["greedy"; 3]).1 == Some(seat)
            })
            .count();
        eprintln!(
            "{}: montecarlo won {wins} of 24 against three greedy",
            edition.game_id()
        );
        assert!(wins >= 16, "{edition:?}: montecarlo won only {wins} of 24");
    }
}

#[test]
fn odd_observations_do_not_break_it() {
    // Turns out of sequence, past the end, tables that do not add up: what a process bot could be
    // sent by a broken referee. The bot must still answer with a well-formed move.
    use arena_langwars::engine::Lanes;
    let mut bot = MonteCarloBot::new(3, TEST_BUDGET);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    for step in 0..60u32 {
        let targets = if step % 2 == 0 { 6 } else { 8 };
        let mut values = [0u8; 8];
        for value in values.iter_mut().take(targets) {
            *value = 3 + next(4) as u8;
        }
        let mut table = || {
            let row: Vec<u16> = (0..targets).map(|_| next(256) as u16).collect();
            Lanes::from_values(&row).expect("below 256")
        };
        let visible = [table(), table(), table(), table()];
        let real = table();
        let counts = Some(table());
        let turn = [1, 2, 3, 9, 10, 40, 5, 6, 7][step as usize % 9];
        let letter = ['W', 'H', 'D', 'N'][step as usize % 4];
        let obs = Observation::from_tables(
            (10, targets, values),
            turn,
            letter,
            visible,
            real,
            if turn % 2 == 1 { counts } else { None },
        );
        let action = bot.act(&obs);
        assert_eq!(action.targets().len(), obs.slots());
        assert!(action.targets().iter().all(|&t| (t as usize) < targets));
    }
}

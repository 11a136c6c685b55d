//! Connect Four's rules and protocol: the wins in every direction, a full column or a fault loses,
//! the opening comes from the seed, and what the referee writes is what a bot reads.

use arena_connect4::rules::{COLUMNS, Connect4, Obs, ROWS};
use arena_connect4::{Config, definition};
use arena_game::game::{Answer, Fault, FaultKind, Game, StreamProtocol};
use arena_game::score::Score;
use arena_game::{GameDef, find_bot};

/// A game after its opening, with the moves `columns` played in turn.
fn after(seed: u64, columns: &[usize]) -> Connect4 {
    let mut game = Connect4::new(&Config::default(), seed);
    for &column in columns {
        let player = game.to_act().expect("the game goes on");
        game.apply(player, Answer::Action(column));
    }
    game
}

/// A seed whose opening puts both discs in columns `0` and `6` (out of the way of the tests).
fn seed_with_opening(first: usize, second: usize) -> u64 {
    (0..10_000)
        .find(|&seed| {
            let rows = Connect4::new(&Config::default(), seed).rows();
            rows[ROWS - 1].as_bytes()[first] == b'0' && rows[ROWS - 1].as_bytes()[second] == b'1'
        })
        .expect("such a seed")
}

#[test]
fn four_across_down_and_diagonal_win() {
    let seed = seed_with_opening(0, 6);
    // Down: player 0 plays column 2 four times (player 1 plays column 4 in between).
    let game = after(seed, &[2, 4, 2, 4, 2, 4, 2]);
    assert_eq!(game.clone().to_act(), None);
    assert_eq!(game.outcome().winner, Some(0));
    // Across: 1, 2, 3 beside the opening disc in column 0.
    let game = after(seed, &[1, 1, 2, 2, 3]);
    assert_eq!(game.outcome().winner, Some(0));
    // Diagonal up to the right for player 1: the columns fill so that 1's discs climb.
    let mut game = after(seed, &[2, 1, 3, 2, 4, 3, 4, 3, 4, 4]);
    assert_eq!(game.to_act(), None, "{:?}", game.rows());
    assert_eq!(game.outcome().winner, Some(1), "{:?}", game.rows());
}

#[test]
fn a_full_column_or_a_fault_loses_at_once() {
    let seed = seed_with_opening(0, 6);
    let mut game = after(seed, &[3, 3, 3, 3, 3, 3]);
    let player = game.to_act().expect("the game goes on");
    game.apply(player, Answer::Action(3));
    assert_eq!(game.to_act(), None);
    assert_eq!(game.outcome().winner, Some(1 - player));
    assert_eq!(game.rule_faults()[0].1.kind, FaultKind::Illegal);

    let mut game = after(seed, &[]);
    game.apply(0, Answer::Fault(Fault::new(FaultKind::Timeout, "late")));
    assert_eq!(game.outcome().scores, vec![Score::ZERO, Score::int(1)]);
    assert!(
        game.rule_faults().is_empty(),
        "the runner records a timeout itself"
    );
}

#[test]
fn the_seed_draws_the_opening() {
    let openings: std::collections::HashSet<Vec<String>> = (0..50)
        .map(|seed| Connect4::new(&Config::default(), seed).rows())
        .collect();
    assert!(
        openings.len() > 10,
        "{} openings of 50 seeds",
        openings.len()
    );
    assert_eq!(
        Connect4::new(&Config::default(), 7).rows(),
        Connect4::new(&Config::default(), 7).rows()
    );
}

#[test]
fn a_bot_reads_what_the_referee_writes() {
    let mut game = after(3, &[2, 5, 2]);
    let mut obs = Obs::default();
    let player = game.to_act().expect("the game goes on");
    game.observe(player, &mut obs);
    let mut text = String::new();
    Connect4::encode_input(&obs, false, &mut text);
    assert_eq!(text.lines().count(), 1 + ROWS);
    assert!(text.lines().skip(1).all(|row| row.len() == COLUMNS));
    let mut input = text.as_bytes();
    let read = Connect4::read_input(&mut input, None).expect("readable");
    assert_eq!(read, Some(obs.clone()));
    assert_eq!(Connect4::decode_output(&obs, " 4 "), Ok(4));
    assert!(Connect4::decode_output(&obs, "left").is_err());
}

#[test]
fn greedy_beats_random() {
    let def = definition();
    let names = |first: &str, second: &str| vec![first.to_string(), second.to_string()];
    let mut greedy = 0;
    for seed in 0..200u64 {
        let seats = if seed % 2 == 0 {
            names("greedy", "random")
        } else {
            names("random", "greedy")
        };
        let outcome = arena_game::builtin::play_builtin_game(
            &def.config(None, &Default::default()).expect("no league"),
            def.bots(),
            &seats,
            seed,
        )
        .expect("a game");
        if outcome.winner.is_some_and(|w| seats[w] == "greedy") {
            greedy += 1;
        }
    }
    assert!(greedy > 150, "greedy won {greedy} of 200");
    assert!(
        find_bot(def.bots(), "random").is_ok(),
        "arena bench plays `random`"
    );
}

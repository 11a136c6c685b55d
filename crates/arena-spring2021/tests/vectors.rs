//! The reference's test vectors (spring2021-reference.md §1.5, §2.3, §3.4, §3.5, §4, §6.2).

use arena_core::{Answer, Game, StreamProtocol};
use arena_spring2021::board::bits;
use arena_spring2021::{Action, Cmd, League, Obs, Spring2021};

fn cells(mask: u64) -> Vec<usize> {
    bits(mask).collect()
}

/// §1.5: seeds → holes and starting trees (Bronze rules).
#[test]
fn seeds_give_the_official_boards() {
    // (seed, holes, player 0's trees, player 1's trees)
    type Board = (i64, &'static [usize], [usize; 2], [usize; 2]);
    let table: [Board; 5] = [
        (7308340236785320085, &[], [19, 22], [28, 31]),
        (1, &[1, 4, 24, 33], [21, 26], [30, 35]),
        (42, &[8, 11, 14, 17, 20, 29], [21, 24], [30, 33]),
        (123456789, &[19, 22, 28, 31], [20, 33], [24, 29]),
        (-5, &[0, 9, 15, 19, 20, 24, 28, 29, 33], [22, 36], [27, 31]),
    ];
    for (seed, holes, p0, p1) in table {
        let game = Spring2021::new(&League::Bronze, seed as u64);
        assert_eq!(cells(game.holes()), holes.to_vec(), "holes of seed {seed}");
        assert_eq!(
            cells(game.trees_of(0)),
            p0.to_vec(),
            "player 0 of seed {seed}"
        );
        assert_eq!(
            cells(game.trees_of(1)),
            p1.to_vec(),
            "player 1 of seed {seed}"
        );
        assert_eq!(cells(game.size_masks()[1]).len(), 4);
    }
}

/// §6.2: the day-0 input of player 0 for the local runner's seed.
#[test]
fn first_turn_input_matches_the_example() {
    let mut game = Spring2021::new(&League::Bronze, 7308340236785320085);
    assert_eq!(game.to_act(), Some(0));
    let mut obs = Obs::default();
    game.observe(0, &mut obs);
    let mut text = String::new();
    Spring2021::encode_input(&obs, false, &mut text);
    let expected = "0\n20\n2 0\n2 0 0\n4\n19 1 1 0\n22 1 1 0\n28 1 0 0\n31 1 0 0\n7\nWAIT\n\
                    SEED 22 9\nSEED 22 21\nSEED 19 20\nSEED 19 7\nSEED 22 23\nSEED 19 36\n";
    assert_eq!(text, expected);
}

/// §2.3: shadows and the spooky rule.
#[test]
fn shadow_example() {
    let mut game = Spring2021::from_position(
        League::Bronze,
        0,
        &[(0, 2, 0), (1, 1, 1), (7, 2, 1), (19, 3, 1)],
        [0, 0],
        0,
    );
    let shadows = game.shadow_sizes();
    let shaded: Vec<(usize, u8)> = shadows
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0)
        .map(|(c, s)| (c, *s))
        .collect();
    assert_eq!(shaded, vec![(1, 2), (7, 2), (19, 2)]);
    assert_eq!(game.gather_now(), [2, 3]);
}

/// Plays one ACTIONS frame from a position: gathering first, then the two commands.
fn one_frame(game: &mut Spring2021, commands: [Cmd; 2]) {
    let mut obs = Obs::default();
    for expected in 0..2 {
        let player = game.to_act().expect("an ACTIONS frame");
        assert_eq!(player, expected);
        game.observe(player, &mut obs);
        game.apply(player, Answer::Action(Action::new(commands[player])));
    }
}

/// §3.4: simultaneous COMPLETE scores both with the same nutrients, then nutrients drop by 2.
#[test]
fn simultaneous_complete() {
    let mut game =
        Spring2021::from_position(League::Bronze, 0, &[(0, 3, 0), (19, 3, 1)], [10, 10], 0);
    one_frame(&mut game, [Cmd::Complete(0), Cmd::Complete(19)]);
    let player = game.to_act();
    assert_eq!(player, Some(0), "both still awake");
    assert_eq!(game.score(), [24, 20]);
    assert_eq!(game.nutrients(), 18);
    assert_eq!(game.trees_of(0) | game.trees_of(1), 0);
}

/// §3.5: a seed conflict plants nothing, refunds both and leaves both sources dormant.
#[test]
fn seed_conflict_refunds() {
    // Each player already owns a seed, so the conflicting seeds cost 1 each.
    let mut game = Spring2021::from_position(
        League::Bronze,
        0,
        &[(2, 2, 0), (5, 2, 1), (20, 0, 0), (29, 0, 1)],
        [5, 5],
        0,
    );
    let mut probe = game.clone();
    probe.to_act();
    let after_gathering = probe.sun();
    one_frame(&mut game, [Cmd::Seed(2, 0), Cmd::Seed(5, 0)]);
    assert_eq!(game.to_act(), Some(0), "both still awake");
    assert_eq!(game.sun(), after_gathering, "sun refunded");
    assert_eq!(
        (game.trees_of(0) | game.trees_of(1)) & 1,
        0,
        "no seed planted"
    );
    let sources = 1 << 2 | 1 << 5;
    assert_eq!(game.dormant() & sources, sources);
    // Retrying from the dormant source is illegal: player 0 sleeps, nothing else happens.
    let mut obs = Obs::default();
    game.observe(0, &mut obs);
    game.apply(0, Answer::Action(Action::new(Cmd::Seed(2, 3))));
    assert_eq!(game.to_act(), Some(1));
    game.observe(1, &mut obs);
    game.apply(1, Answer::Action(Action::WAIT));
    assert_eq!(game.to_act(), Some(0), "next day");
    assert_eq!(game.day(), 1);
    let faults = game.rule_faults();
    assert_eq!(faults.len(), 1);
    assert!(faults[0].1.detail.contains("dormant"), "{}", faults[0].1);
}

struct Waiter;
impl arena_core::Bot<Spring2021> for Waiter {
    fn act(&mut self, _: &Obs) -> Action {
        Action::WAIT
    }
}

/// §4: two players who only WAIT draw 18 : 18 after 72 frames.
#[test]
fn all_wait_game() {
    let mut game = Spring2021::new(&League::Bronze, 7308340236785320085);
    let mut bots: Vec<Box<dyn arena_core::Bot<Spring2021>>> =
        vec![Box::new(Waiter), Box::new(Waiter)];
    let outcome = arena_core::play_in_process(&mut game, &mut bots, &mut Obs::default());
    assert_eq!(game.frames(), 72);
    assert_eq!(game.sun(), [48, 48]);
    let scores: Vec<i64> = outcome.scores.iter().map(|s| s.numer()).collect();
    assert_eq!(scores, vec![18, 18]);
    assert_eq!(outcome.winner, None);
}

/// Wood 2 lasts one day; every tree yields 3.
#[test]
fn wood2_one_day() {
    let mut game = Spring2021::new(&League::Wood2, 3);
    let mut bots: Vec<Box<dyn arena_core::Bot<Spring2021>>> =
        vec![Box::new(Waiter), Box::new(Waiter)];
    arena_core::play_in_process(&mut game, &mut bots, &mut Obs::default());
    assert_eq!(game.frames(), 3);
    assert_eq!(game.sun(), [18, 18]);
}

/// §6.4: 1000 ms for a player's first execution, 100 ms afterwards.
#[test]
fn time_limits() {
    use std::time::Duration;
    let mut game = Spring2021::new(&League::Bronze, 1);
    let mut obs = Obs::default();
    assert_eq!(game.to_act(), Some(0));
    assert_eq!(game.time_limit(0), Duration::from_millis(1000));
    game.observe(0, &mut obs);
    game.apply(0, Answer::Action(Action::WAIT));
    assert_eq!(game.time_limit(0), Duration::from_millis(100));
    assert_eq!(game.to_act(), Some(1));
    assert_eq!(game.time_limit(1), Duration::from_millis(1000));
}

/// An unparsable answer or a timeout deactivates: score -1, the other player wins and gets the
/// tree bonus (the referee adds it whenever the active players' scores are all equal, i.e. always
/// with a single active player).
#[test]
fn fault_deactivates() {
    use arena_core::{Fault, FaultKind};
    let mut game = Spring2021::new(&League::Bronze, 1);
    let mut obs = Obs::default();
    assert_eq!(game.to_act(), Some(0));
    game.observe(0, &mut obs);
    game.apply(
        0,
        Answer::Fault(Fault::new(FaultKind::Timeout, "no answer")),
    );
    assert_eq!(
        game.to_act(),
        Some(1),
        "the other player is still served in that frame"
    );
    game.observe(1, &mut obs);
    assert_eq!(obs.score[1], -1, "the deactivation shows at once");
    game.apply(1, Answer::Action(Action::WAIT));
    assert_eq!(game.to_act(), None);
    let outcome = game.outcome();
    let scores: Vec<i64> = outcome.scores.iter().map(|s| s.numer()).collect();
    // Player 1: 2 sun (0 points) + 2 trees.
    assert_eq!(scores, vec![-1, 2]);
    assert_eq!(outcome.winner, Some(1));
    assert_eq!(game.active(), [false, true]);
}

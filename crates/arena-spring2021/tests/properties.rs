//! Rule invariants over random seeds and random (partly illegal) play.

use arena_core::seed::{BotRng, below, bot_rng};
use arena_core::{Answer, Game, Outcome};
use arena_spring2021::board::{BOARD, CELLS};
use arena_spring2021::{Action, Cmd, League, Obs, Spring2021};
use proptest::prelude::*;

const LEAGUES: [League; 3] = [League::Wood2, League::Wood1, League::Bronze];

/// Plays listed moves most of the time, arbitrary (often illegal) commands sometimes, WAIT rarely.
fn chaotic(rng: &mut BotRng, obs: &Obs) -> Cmd {
    match below(rng, 10) {
        0 => Cmd::Wait,
        1 => {
            let kind = below(rng, 3);
            let a = below(rng, CELLS as u32 + 3);
            let b = below(rng, CELLS as u32 + 3);
            match kind {
                0 => Cmd::Grow(a),
                1 => Cmd::Complete(a),
                _ => Cmd::Seed(a, b),
            }
        }
        _ => {
            let total = obs.total_possible();
            if total == 0 {
                Cmd::Wait
            } else {
                obs.nth_possible(below(rng, total)).unwrap_or(Cmd::Wait)
            }
        }
    }
}

fn check_state(game: &Spring2021, nutrients_before: i32) -> Result<(), TestCaseError> {
    let sizes = game.size_masks();
    let trees = game.trees_of(0) | game.trees_of(1);
    prop_assert_eq!(game.trees_of(0) & game.trees_of(1), 0, "one owner per tree");
    prop_assert_eq!(
        sizes.iter().fold(0, |m, s| m | s),
        trees,
        "every tree has a size"
    );
    for a in 0..4 {
        for b in a + 1..4 {
            prop_assert_eq!(sizes[a] & sizes[b], 0, "one size per tree");
        }
    }
    prop_assert_eq!(trees & !BOARD, 0);
    prop_assert_eq!(trees & game.holes(), 0, "no tree on a hole");
    prop_assert!(game.sun().iter().all(|&s| s >= 0), "sun never negative");
    prop_assert!(game.nutrients() >= 0 && game.nutrients() <= nutrients_before);
    Ok(())
}

fn play(league: League, seed: u64, bot_seed: u64) -> Result<(Outcome, u32), TestCaseError> {
    let mut game = Spring2021::new(&league, seed);
    let mut rngs = [bot_rng(bot_seed), bot_rng(bot_seed ^ 1)];
    let mut obs = Obs::default();
    let mut asks = 0;
    let mut nutrients = game.nutrients();
    while let Some(player) = game.to_act() {
        check_state(&game, nutrients)?;
        nutrients = game.nutrients();
        game.observe(player, &mut obs);
        prop_assert_eq!(obs.counts, obs.count_possible());
        let cmd = chaotic(&mut rngs[player], &obs);
        game.apply(player, Answer::Action(Action::new(cmd)));
        asks += 1;
        prop_assert!(asks < 5000, "the game must end");
    }
    check_state(&game, nutrients)?;
    Ok((game.outcome(), game.frames()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn invariants_hold_and_games_end(seed: i64, bot_seed: u64, league in 0usize..3) {
        let (outcome, _) = play(LEAGUES[league], seed as u64, bot_seed)?;
        prop_assert!(outcome.scores.iter().all(|s| s.numer() >= 0), "nobody is deactivated by rule errors");
        // The same seed and answers give the same game.
        let (again, _) = play(LEAGUES[league], seed as u64, bot_seed)?;
        prop_assert_eq!(outcome, again);
    }

    #[test]
    fn listed_actions_are_exactly_the_legal_ones(seed: i64, bot_seed: u64) {
        // Every listed move is legal (never a rule fault) and the list has no duplicates.
        let mut game = Spring2021::new(&League::Bronze, seed as u64);
        let mut rng = bot_rng(bot_seed);
        let mut obs = Obs::default();
        let mut listed = Vec::new();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            obs.listed_actions(&mut listed);
            prop_assert_eq!(listed.len() as u32, obs.total_possible() + 1);
            let mut sorted = listed.clone();
            sorted.sort_by_key(|c| format!("{c}"));
            sorted.dedup();
            prop_assert_eq!(sorted.len(), listed.len());
            let pick = listed[below(&mut rng, listed.len() as u32) as usize];
            game.apply(player, Answer::Action(Action::new(pick)));
        }
        prop_assert!(game.rule_faults().is_empty(), "{:?}", game.rule_faults());
    }

    #[test]
    fn waiting_players_draw_by_symmetry(seed: i64, league in 0usize..3) {
        let mut game = Spring2021::new(&LEAGUES[league], seed as u64);
        let mut obs = Obs::default();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            game.apply(player, Answer::Action(Action::WAIT));
        }
        let outcome = game.outcome();
        prop_assert_eq!(outcome.winner, None);
        prop_assert_eq!(outcome.scores[0], outcome.scores[1]);
        prop_assert_eq!(game.frames(), 3 * LEAGUES[league].rules().max_days);
    }
}

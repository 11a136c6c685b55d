//! Property tests: order invariance of the global fit, symmetry of the pairwise table, sane
//! Wilson intervals, conservation in the 2014 Elo.

use arena_stats::*;
use proptest::prelude::*;

/// Competition ranks ("1224") from scores, higher score better.
fn ranks_from_scores(scores: &[i32]) -> Vec<u32> {
    scores
        .iter()
        .map(|mine| 1 + scores.iter().filter(|other| *other > mine).count() as u32)
        .collect()
}

fn game(players: Vec<usize>, scores: Vec<i32>, pair_id: Option<u64>) -> GameResult {
    let ranks = ranks_from_scores(&scores);
    let firsts: Vec<usize> = (0..ranks.len()).filter(|&s| ranks[s] == 1).collect();
    GameResult {
        faults: vec![Vec::new(); players.len()],
        players,
        scores: scores.iter().map(|&s| f64::from(s)).collect(),
        winner: (firsts.len() == 1).then(|| firsts[0]),
        ranks,
        pair_id,
    }
}

/// A bot count and games among them with 2 or 4 seats (fixed per log), small scores so that
/// ties happen, and sometimes a pair id.
fn bots_and_games() -> impl Strategy<Value = (usize, Vec<GameResult>)> {
    (2usize..6, prop_oneof![Just(2usize), Just(4usize)]).prop_flat_map(|(bots, seats)| {
        let one_game = (
            prop::collection::vec(0..bots, seats),
            prop::collection::vec(0i32..4, seats),
            prop::option::of(0u64..6),
        )
            .prop_map(|(players, scores, pair)| game(players, scores, pair));
        (Just(bots), prop::collection::vec(one_game, 0..25))
    })
}

fn names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("bot{i}")).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn global_fit_ignores_game_order(
        (bots, games, shuffled) in bots_and_games().prop_flat_map(|(bots, games)| {
            let shuffled = Just(games.clone()).prop_shuffle();
            (Just(bots), Just(games), shuffled)
        })
    ) {
        let config = FitConfig { bootstrap_resamples: 20, seed: 7, ..FitConfig::default() };
        let in_order = global_fit(&GameLog::new(names(bots), games.clone()).unwrap(), &config);
        let reordered = global_fit(&GameLog::new(names(bots), shuffled.clone()).unwrap(), &config);
        // Games are put in a canonical order before fitting, so the answer is bit-identical.
        prop_assert_eq!(in_order, reordered);

        let no_prior = FitConfig { prior_draws: 0.0, ..config };
        let plain = fit_ratings(&GameLog::new(names(bots), games).unwrap(), &no_prior);
        let plain_shuffled = fit_ratings(&GameLog::new(names(bots), shuffled).unwrap(), &no_prior);
        prop_assert_eq!(plain, plain_shuffled);
    }

    #[test]
    fn fitted_ratings_have_mean_zero((bots, games) in bots_and_games()) {
        let log = GameLog::new(names(bots), games).unwrap();
        let ratings = fit_ratings(&log, &FitConfig::default()).unwrap();
        prop_assert!(ratings.iter().all(|r| r.is_finite()));
        prop_assert!(ratings.iter().sum::<f64>().abs() < 1e-6);
    }

    #[test]
    fn pairwise_table_is_symmetric((bots, games) in bots_and_games()) {
        let log = GameLog::new(names(bots), games).unwrap();
        let table = pairwise(&log);
        for a in 0..bots {
            for b in 0..bots {
                let ab = table.get(a, b).unwrap();
                let ba = table.get(b, a).unwrap();
                prop_assert_eq!(ab.games, ba.games);
                prop_assert_eq!((ab.wins, ab.draws, ab.losses), (ba.losses, ba.draws, ba.wins));
                match (ab.score, ba.score) {
                    (Some(x), Some(y)) => prop_assert!((x.estimate + y.estimate - 1.0).abs() < 1e-12),
                    (None, None) => prop_assert_eq!(ab.games, 0),
                    _ => prop_assert!(false, "one side has a score, the other none"),
                }
                if let (Some(x), Some(y)) = (ab.los, ba.los) {
                    prop_assert!((x + y - 1.0).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn summaries_add_up((bots, games) in bots_and_games()) {
        let log = GameLog::new(names(bots), games).unwrap();
        for summary in summarize(&log) {
            prop_assert_eq!(summary.wins + summary.draws + summary.losses, summary.games);
            prop_assert_eq!(summary.seats.iter().map(|s| s.games).sum::<u64>(), summary.games);
        }
    }

    #[test]
    fn elo_2014_conserves_total_rating((bots, games) in bots_and_games()) {
        let log = GameLog::new(names(bots), games).unwrap();
        let config = EloConfig::default();
        let total: f64 = elo_2014_ratings(&log, &config).ratings.iter().sum();
        prop_assert!((total - config.initial * bots as f64).abs() < 1e-6);
    }

    #[test]
    fn wilson_interval_is_inside_unit_range_and_contains_estimate(
        trials in 1u32..2000,
        fraction in 0.0f64..=1.0,
        half_points in any::<bool>(),
    ) {
        let mut successes = (fraction * f64::from(trials)).floor();
        if half_points && successes >= 0.5 {
            successes -= 0.5;
        }
        let interval = wilson(successes, f64::from(trials)).unwrap();
        prop_assert!(0.0 <= interval.low);
        prop_assert!(interval.low <= interval.estimate);
        prop_assert!(interval.estimate <= interval.high);
        prop_assert!(interval.high <= 1.0);
    }
}

#[test]
fn undefeated_bots_converge_and_are_marked_unbounded() {
    // Bot 0 wins every 4-player game; the others finish in varying orders behind it.
    let mut games = Vec::new();
    for round in 0..500u64 {
        let rest = [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2]][(round % 4) as usize];
        let players = vec![0, rest[0], rest[1], rest[2]];
        games.push(GameResult {
            players,
            scores: vec![4.0, 3.0, 2.0, 1.0],
            ranks: vec![1, 2, 3, 4],
            winner: Some(0),
            faults: Vec::new(),
            pair_id: Some(round / 4),
        });
    }
    let log = GameLog::new((0..4).map(|i| format!("bot{i}")).collect(), games).expect("valid");
    let config = FitConfig {
        bootstrap_resamples: 50,
        ..FitConfig::default()
    };
    let fit = global_fit(&log, &config).expect("a fit with the prior");
    assert!(fit.converged, "{} iterations", fit.iterations);
    assert!(fit.iterations < 200, "{} iterations", fit.iterations);
    let top = &fit.bots[0];
    assert_eq!(top.unbounded, Some(Unbounded::Above));
    assert!(top.rating_interval.is_none());
    let bound = top.rating_bound.expect("a finite lower bound");
    assert!(bound.is_finite());
    // The others beat each other, so their ratings are bounded and have intervals.
    for bot in &fit.bots[1..] {
        assert_eq!(bot.unbounded, None);
        assert!(bot.rating_interval.is_some());
    }
}

#[test]
fn a_clean_sweep_bounds_the_winner_from_below_and_the_loser_from_above() {
    // Issue 31: two bots, 10–0, read `≥-21` for the winner and `≤+21` for the loser — each bound
    // was put on a scale where the other bot stood still, not on the centred scale shown.
    let games: Vec<GameResult> = (0..10u64)
        .map(|g| {
            let players = if g % 2 == 0 { vec![0, 1] } else { vec![1, 0] };
            let scores = if g % 2 == 0 { vec![1, 0] } else { vec![0, 1] };
            game(players, scores, None)
        })
        .collect();
    let log = GameLog::new(vec!["planner".into(), "idle".into()], games).expect("valid");
    let fit = global_fit(&log, &FitConfig::default()).expect("a fit with the prior");
    let (winner, loser) = (&fit.bots[0], &fit.bots[1]);
    assert_eq!(winner.unbounded, Some(Unbounded::Above));
    assert_eq!(loser.unbounded, Some(Unbounded::Below));
    let low = winner.rating_bound.expect("the winner's lower bound");
    let high = loser.rating_bound.expect("the loser's upper bound");
    assert!(
        low > 0.0 && high < 0.0,
        "winner ≥{low:+.0}, loser ≤{high:+.0}"
    );
    // Symmetric games, so symmetric bounds on the centred scale; and a bound of a side the fit
    // leaves open lies on the far side of nothing the prior-pulled estimate claims: the winner
    // is at least `low`, which its estimate exceeds.
    assert!(
        (low + high).abs() < 1e-6,
        "winner ≥{low:+.0}, loser ≤{high:+.0}"
    );
    assert!(winner.rating >= low && loser.rating <= high);
    // 10–0 is a win rate of at least 82.5 % by the likelihood-ratio test: about +270 Elo apart.
    assert!((low - high - 270.0).abs() < 15.0, "{} apart", low - high);
}

//! The streaming accumulator against the batch functions: same games in the same order must give
//! bit-identical statistics (the global fit too, while every unit fits in the sample), and the
//! accumulator's retained state must stay bounded however many games stream through.

use arena_stats::*;
use proptest::prelude::*;

/// Competition ranks ("1224") from scores, higher score better.
fn ranks_from_scores(scores: &[i32]) -> Vec<u32> {
    scores
        .iter()
        .map(|mine| 1 + scores.iter().filter(|other| *other > mine).count() as u32)
        .collect()
}

fn game(
    players: Vec<usize>,
    scores: Vec<i32>,
    faults: Vec<Vec<String>>,
    pair_id: Option<u64>,
) -> GameResult {
    let ranks = ranks_from_scores(&scores);
    let firsts: Vec<usize> = (0..ranks.len()).filter(|&s| ranks[s] == 1).collect();
    GameResult {
        players,
        scores: scores.iter().map(|&s| f64::from(s)).collect(),
        winner: (firsts.len() == 1).then(|| firsts[0]),
        ranks,
        faults,
        pair_id,
    }
}

fn names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("bot{i}")).collect()
}

/// Bots and games with 2 or 4 seats (or both in one log), mirror seats now and then, small
/// scores so that ties happen, faults, and pair ids from a small range so that units have
/// several games spread over the log.
fn bots_and_games() -> impl Strategy<Value = (usize, Vec<GameResult>)> {
    (2usize..6, 0usize..3).prop_flat_map(|(bots, seat_choice)| {
        let seats = match seat_choice {
            0 => Just(2usize).boxed(),
            1 => Just(4usize).boxed(),
            _ => prop_oneof![Just(2usize), Just(4usize)].boxed(),
        };
        let fault = prop_oneof![
            Just(Vec::new()),
            Just(Vec::new()),
            Just(vec!["timeout".to_owned()]),
            Just(vec!["crashed".to_owned(), "illegal".to_owned()]),
        ];
        let one_game = seats
            .prop_flat_map(move |seats| {
                (
                    prop::collection::vec(0..bots, seats),
                    prop::collection::vec(-2i32..2, seats),
                    prop::collection::vec(fault.clone(), seats),
                    prop::option::of(0u64..8),
                )
            })
            .prop_map(|(players, scores, faults, pair)| game(players, scores, faults, pair));
        (Just(bots), prop::collection::vec(one_game, 0..30))
    })
}

fn sprt_config() -> SprtConfig {
    SprtConfig {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    }
}

fn stats_config(fit_sample_units: usize, sprt: Option<SprtSetup>) -> StatsConfig {
    StatsConfig {
        fit: FitConfig {
            bootstrap_resamples: 20,
            seed: 11,
            ..FitConfig::default()
        },
        fit_sample_units,
        sprt,
        ..StatsConfig::default()
    }
}

fn accumulate(bots: usize, games: &[GameResult], config: StatsConfig) -> Accumulator {
    let mut accumulator = Accumulator::new(names(bots), config);
    for game in games {
        accumulator.add(game).expect("generated games are valid");
    }
    accumulator
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn streaming_equals_batch((bots, games) in bots_and_games(), a in 0usize..3, b in 0usize..3) {
        let setup = SprtSetup { config: sprt_config(), a, b, unit_games: 2 };
        let config = stats_config(1_000, Some(setup));
        let accumulator = accumulate(bots, &games, config);
        let report = accumulator.report();
        let log = GameLog::new(names(bots), games.clone()).unwrap();

        prop_assert_eq!(report.games, games.len() as u64);
        prop_assert_eq!(&report.summaries, &summarize(&log));
        prop_assert_eq!(&report.pairwise, &pairwise(&log));
        prop_assert_eq!(&report.trueskill, &trueskill_ratings(&log, &config.trueskill));
        prop_assert_eq!(&report.weng_lin, &weng_lin_ratings(&log, &config.weng_lin));
        prop_assert_eq!(&report.elo_2014, &elo_2014_ratings(&log, &config.elo));
        let batch_fit = global_fit(&log, &config.fit).map_err(|error| error.to_string());
        prop_assert_eq!(&report.global_fit, &batch_fit);
        prop_assert!(!report.fit_sample.sampled());
        prop_assert_eq!(report.fit_sample.games_used, games.len() as u64);

        let sprt = report.sprt.expect("an SPRT was set up");
        prop_assert_eq!(&sprt, &sequential_sprt(&log, setup));
        // Every A-vs-B game is either in a counted unit or reported as uncounted.
        let trinomial = trinomial_results(&log, a, b);
        let all = trinomial.wins + trinomial.draws + trinomial.losses;
        let counted = sprt.games.wins + sprt.games.draws + sprt.games.losses;
        prop_assert_eq!(counted + sprt.uncounted_games, all);
        prop_assert_eq!(sprt.counts.iter().sum::<u64>(), sprt.units);

        for (bot, histogram) in report.score_histograms.iter().enumerate() {
            prop_assert_eq!(histogram.count, report.summaries[bot].games);
            prop_assert_eq!(histogram.bins.iter().map(|bin| bin.count).sum::<u64>(), histogram.count);
        }
    }

    #[test]
    fn sprt_after_every_game_equals_batch_on_the_prefix(
        (bots, games) in bots_and_games(),
    ) {
        let setup = SprtSetup { config: sprt_config(), a: 0, b: 1, unit_games: 1 };
        let mut accumulator = Accumulator::new(names(bots), stats_config(0, Some(setup)));
        for (played, game) in games.iter().enumerate() {
            accumulator.add(game).unwrap();
            let log = GameLog::new(names(bots), games[..=played].to_vec()).unwrap();
            let sprt = accumulator.sprt().unwrap();
            prop_assert_eq!(&sprt, &sequential_sprt(&log, setup));
            // Units of one game: until a decision, the counts are the plain W/D/L.
            if sprt.decision.is_none() {
                prop_assert_eq!(sprt.games, trinomial_results(&log, 0, 1));
                prop_assert_eq!(sprt.uncounted_games, 0);
            }
        }
    }

    /// Batches (TrueSkill on a second thread) give the report of one game at a time, SPRT holds at
    /// the gaps included, and a rejected game stops a batch where `add` would.
    #[test]
    fn batches_equal_one_game_at_a_time(
        (bots, games) in bots_and_games(),
        batch in 1usize..40,
        gap in proptest::option::of(0usize..60),
        bad in proptest::option::of(0usize..60),
    ) {
        let setup = SprtSetup { config: sprt_config(), a: 0, b: 1, unit_games: 2 };
        let config = stats_config(1_000, Some(setup));
        let mut games = games;
        if let Some(bad) = bad.filter(|&bad| bad < games.len()) {
            games[bad].players[0] = bots;
        }
        let gaps: Vec<bool> = (0..games.len()).map(|index| Some(index) == gap).collect();
        let mut single = Accumulator::new(names(bots), config);
        let mut single_error = None;
        for (game, &gap) in games.iter().zip(&gaps) {
            if gap {
                single.hold_sprt();
            }
            if let Err(error) = single.add(game) {
                single_error = Some(error);
                break;
            }
        }
        let mut batched = Accumulator::new(names(bots), config);
        let mut batched_error = None;
        for (chunk, chunk_gaps) in games.chunks(batch).zip(gaps.chunks(batch)) {
            if let Err(error) = batched.add_batch(chunk, chunk_gaps) {
                batched_error = Some(error);
                break;
            }
        }
        prop_assert_eq!(batched_error, single_error);
        prop_assert_eq!(batched.games(), single.games());
        prop_assert_eq!(batched.report(), single.report());
    }
}

/// `units` two-game units (pair ids 0..units) of bots drawn round-robin among `bots`; the two
/// games of unit u are `spread` games apart (0 = adjacent).
fn paired_games(units: u64, bots: usize, spread: u64) -> Vec<GameResult> {
    let mut games = Vec::new();
    for unit in 0..units {
        let a = (unit as usize) % bots;
        let b = (a + 1 + (unit as usize / bots) % (bots - 1)) % bots;
        // The first bot wins both games of two units in three: a signal with some noise.
        let first_wins = unit % 3 != 0;
        let scores = if first_wins { [1, 0] } else { [0, 1] };
        games.push(game(
            vec![a, b],
            scores.to_vec(),
            vec![Vec::new(); 2],
            Some(unit),
        ));
        games.push(game(
            vec![b, a],
            vec![scores[1], scores[0]],
            vec![Vec::new(); 2],
            Some(unit),
        ));
    }
    if spread > 0 {
        // Move every second game `spread` places later, so units are split across the stream.
        let (firsts, seconds): (Vec<_>, Vec<_>) = games
            .chunks(2)
            .map(|pair| (pair[0].clone(), pair[1].clone()))
            .unzip();
        let spread = spread as usize;
        games = Vec::new();
        for index in 0..firsts.len() + spread {
            if let Some(first) = firsts.get(index) {
                games.push(first.clone());
            }
            if let Some(second) = index.checked_sub(spread).and_then(|i| seconds.get(i)) {
                games.push(second.clone());
            }
        }
    }
    games
}

#[test]
fn sampled_fit_keeps_whole_units_and_is_deterministic() {
    let games = paired_games(300, 5, 7);
    let config = stats_config(40, None);
    let first = accumulate(5, &games, config).report();
    let again = accumulate(5, &games, config).report();
    assert_eq!(
        first.fit_sample,
        FitSample {
            units_used: 40,
            units_seen: 300,
            games_used: 80,
        }
    );
    assert!(first.fit_sample.sampled());
    assert_eq!(first.global_fit, again.global_fit);
    assert!(first.global_fit.is_ok());

    let other_seed = StatsConfig {
        fit: FitConfig {
            seed: 12,
            ..config.fit
        },
        ..config
    };
    let reseeded = accumulate(5, &games, other_seed).report();
    assert_eq!(reseeded.fit_sample, first.fit_sample);
    assert_ne!(reseeded.global_fit, first.global_fit);

    // The sample is a sample: the fit on it differs from the fit on everything.
    let log = GameLog::new(names(5), games).unwrap();
    let everything = global_fit(&log, &config.fit).map_err(|error| error.to_string());
    assert_ne!(first.global_fit, everything);
}

#[test]
fn games_without_pair_ids_are_units_of_their_own() {
    let games: Vec<GameResult> = paired_games(30, 3, 0)
        .into_iter()
        .map(|game| GameResult {
            pair_id: None,
            ..game
        })
        .collect();
    let report = accumulate(3, &games, stats_config(25, None)).report();
    assert_eq!(
        report.fit_sample,
        FitSample {
            units_used: 25,
            units_seen: 60,
            games_used: 25,
        }
    );
}

#[test]
fn retained_state_stays_bounded_over_200_000_games() {
    const CAPACITY: usize = 500;
    let mut accumulator = Accumulator::new(names(6), stats_config(CAPACITY, None));
    let mut largest_unit = 0;
    let mut fed = 0u64;
    // 100 000 two-game units with increasing pair ids, in schedule order.
    for chunk in 0..100u64 {
        let mut games = paired_games(1_000, 6, 0);
        for game in &mut games {
            game.pair_id = game.pair_id.map(|id| id + chunk * 1_000);
        }
        largest_unit = largest_unit.max(2);
        for game in &games {
            accumulator.add(game).unwrap();
            fed += 1;
        }
        let footprint = accumulator.footprint();
        assert!(footprint.sample_units <= CAPACITY);
        assert!(footprint.sample_games <= CAPACITY * largest_unit);
        // Consecutive pair ids collapse into one remembered range.
        assert_eq!(footprint.seen_id_ranges, 1);
        assert_eq!(footprint.sprt_ids, 0);
    }
    assert_eq!(accumulator.games(), fed);
    assert_eq!(fed, 200_000);
    let report = accumulator.report();
    assert_eq!(report.fit_sample.units_seen, 100_000);
    assert_eq!(report.fit_sample.units_used, CAPACITY as u64);
    assert_eq!(report.fit_sample.games_used, 2 * CAPACITY as u64);
    assert_eq!(
        report.summaries.iter().map(|s| s.games).sum::<u64>(),
        400_000
    );
}

#[test]
fn a_rejected_game_changes_nothing() {
    let mut accumulator = Accumulator::new(names(2), StatsConfig::default());
    let good = game(vec![0, 1], vec![1, 0], Vec::new(), Some(0));
    accumulator.add(&good).unwrap();
    let before = accumulator.report();
    let bad = GameResult {
        players: vec![0, 2],
        ..good.clone()
    };
    assert_eq!(
        accumulator.add(&bad),
        Err(InputError::BadGame {
            index: 1,
            reason: "bot index 2 is not below 2".to_owned(),
        })
    );
    assert_eq!(accumulator.games(), 1);
    assert_eq!(accumulator.report(), before);
}

#[test]
fn empty_accumulator_reports_without_panicking() {
    for bots in [0, 1, 3] {
        let setup = SprtSetup {
            config: sprt_config(),
            a: 0,
            b: 1,
            unit_games: 2,
        };
        let accumulator = Accumulator::new(names(bots), stats_config(10, Some(setup)));
        let report = accumulator.report();
        assert_eq!(report.games, 0);
        assert_eq!(report.summaries.len(), bots);
        assert_eq!(report.score_histograms.len(), bots);
        let sprt = report.sprt.as_ref().expect("an SPRT was set up");
        assert_eq!(sprt.unit, SprtUnit::Pair);
        assert_eq!(sprt.status().as_ref().map(|s| s.llr), Ok(0.0));
    }
}

#[test]
fn sprt_counts_complete_pairs_only_and_freezes_at_the_decision() {
    let setup = SprtSetup {
        config: sprt_config(),
        a: 0,
        b: 1,
        unit_games: 2,
    };
    let mut accumulator = Accumulator::new(names(2), stats_config(0, Some(setup)));
    let games = paired_games(10_000, 2, 0);
    accumulator.add(&games[0]).unwrap();
    let first = accumulator.sprt().unwrap();
    assert_eq!((first.units, first.uncounted_games), (0, 1));
    assert_eq!(first.status().as_ref().map(|s| s.llr), Ok(0.0));
    let mut decided = None;
    for (played, game) in games.iter().enumerate().skip(1) {
        accumulator.add(game).unwrap();
        let sprt = accumulator.sprt().unwrap();
        // A verdict only ever comes with the second game of a pair.
        assert_eq!(sprt.uncounted_games, (played as u64 + 1) % 2);
        if let Some(decision) = sprt.decision {
            assert_eq!(played % 2, 1);
            assert_eq!(decision.units, sprt.units);
            decided = Some((played, decision.verdict, sprt));
            break;
        }
    }
    // Bot 0 wins two units in three as the first player of the unit, and the first player
    // alternates between the bots, so neither is stronger: H0 (0 Elo, not 10) wins eventually.
    let (played, verdict, at_decision) = decided.expect("the test decides within 20 000 games");
    assert_eq!(verdict, SprtVerdict::AcceptH0);
    assert!(at_decision.units >= sprt_config().min_units());
    let log = GameLog::new(names(2), games[..=played].to_vec()).unwrap();
    let batch = sprt_pentanomial(&setup.config, &paired_results(&log, 0, 1).pairs).unwrap();
    assert_eq!(at_decision.status(), &Ok(batch));
    // Games after the decision are kept out of the test.
    for game in &games[played + 1..played + 41] {
        accumulator.add(game).unwrap();
    }
    let later = accumulator.sprt().unwrap();
    assert_eq!(later.status(), at_decision.status());
    assert_eq!(later.uncounted_games, 40);
}

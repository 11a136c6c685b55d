//! Checks against values computed independently (python3 `statistics`/`math`, by hand, or by
//! calling `skillratings` directly). Literals carry the python output they came from.

use arena_stats::skillratings::trueskill::{
    TrueSkillConfig, TrueSkillRating, trueskill, trueskill_multi_team,
};
use arena_stats::skillratings::weng_lin::{
    WengLinConfig, WengLinRating, weng_lin, weng_lin_multi_team,
};
use arena_stats::skillratings::{MultiTeamOutcome, Outcomes};
use arena_stats::*;

fn close(actual: f64, expected: f64, tolerance: f64) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{actual} differs from {expected} by more than {tolerance}"
    );
}

/// A game whose ranks come from the finishing order given best first (no ties).
fn ordered_game(order: &[usize]) -> GameResult {
    let mut ranks = vec![0; order.len()];
    for (position, &seat) in order.iter().enumerate() {
        ranks[seat] = position as u32 + 1;
    }
    game_with_ranks(&(0..order.len()).collect::<Vec<_>>(), &ranks)
}

/// Bots in seat order with the given ranks; scores mirror the ranks, winner derived.
fn game_with_ranks(players: &[usize], ranks: &[u32]) -> GameResult {
    let firsts: Vec<usize> = (0..ranks.len()).filter(|&s| ranks[s] == 1).collect();
    GameResult {
        players: players.to_vec(),
        scores: ranks.iter().map(|&r| -f64::from(r)).collect(),
        ranks: ranks.to_vec(),
        winner: (firsts.len() == 1).then(|| firsts[0]),
        faults: vec![Vec::new(); players.len()],
        pair_id: None,
    }
}

fn two_player(a: usize, b: usize, points_of_a: f64) -> GameResult {
    let ranks = if points_of_a == 1.0 {
        [1, 2]
    } else if points_of_a == 0.0 {
        [2, 1]
    } else {
        [1, 1]
    };
    game_with_ranks(&[a, b], &ranks)
}

fn names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("bot{i}")).collect()
}

#[test]
fn wilson_intervals_match_python() {
    // python3: z = NormalDist().inv_cdf(0.975); centre ± half-width as in the doc comment,
    // cross-checked against the roots of (p - p̂)² = z² p(1-p)/n.
    let cases = [
        (0.0, 10.0, 0.0, 0.27753279986288915),
        (5.0, 10.0, 0.23659309051256405, 0.763406909487436),
        (10.0, 10.0, 0.7224672001371109, 1.0),
        (50.0, 100.0, 0.4038315303659957, 0.5961684696340044),
        (7.0, 20.0, 0.1811918241010821, 0.5671457233147637),
    ];
    for (successes, trials, low, high) in cases {
        let interval = wilson(successes, trials).expect("trials > 0");
        close(interval.low, low, 1e-12);
        close(interval.high, high, 1e-12);
        close(interval.estimate, successes / trials, 0.0);
    }
    assert_eq!(wilson(0.0, 0.0), None);
    close(normal_quantile(0.975), 1.9599639845400536, 1e-12);
}

#[test]
fn mean_interval_uses_student_t() {
    // Values 1..=5: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.7764451051977987 (tables: 2.776).
    let interval = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0]).expect("five values");
    let half_width = 2.7764451051977987 * (2.5f64 / 5.0).sqrt();
    close(interval.estimate, 3.0, 1e-12);
    close(interval.low, 3.0 - half_width, 1e-6);
    close(interval.high, 3.0 + half_width, 1e-6);
    assert_eq!(mean_interval(&[4.0]), None);
}

#[test]
fn sprt_bounds_for_five_percent_errors() {
    // python3: math.log(0.05/0.95) = -2.9444389791664403
    let (lower, upper) = sprt_bounds(0.05, 0.05);
    close(lower, -2.9444389791664403, 1e-12);
    close(upper, 2.9444389791664403, 1e-12);
}

#[test]
fn trinomial_llr_matches_python() {
    // The exact GSPRT (constrained MLEs, fishtest's LLR_logistic), from an independent python3
    // implementation by bisection: L,D,W = 80,200,120, elo0 = 0, elo1 = 5 → 1.069887725714.
    // (The old normal approximation gave 1.0902.)
    let results = Trinomial {
        wins: 120,
        draws: 200,
        losses: 80,
    };
    close(llr_trinomial(&results, 0.0, 5.0), 1.069887725714, 1e-9);
    // Zero counts raised to 1e-3 as fishtest does: W,D,L = 10,0,0 → 0.14287586706131325, about
    // 10 · ln(s1/s0): ten straight wins are weak evidence for a 5-Elo difference (the normal
    // approximation said 285.8 and stopped the test at once).
    let all_wins = Trinomial {
        wins: 10,
        draws: 0,
        losses: 0,
    };
    close(
        llr_trinomial(&all_wins, 0.0, 5.0),
        0.14287586706131325,
        1e-9,
    );
    assert_eq!(llr_trinomial(&Trinomial::default(), 0.0, 5.0), 0.0);
}

#[test]
fn pentanomial_llr_matches_python() {
    // python3, the same exact GSPRT on pair totals 0, ¼, ½, ¾, 1 → 1.103914777391288.
    let results = Pentanomial {
        counts: [10, 40, 100, 60, 20],
    };
    close(llr_pentanomial(&results, 0.0, 5.0), 1.103914777391288, 1e-9);
}

#[test]
fn sprt_verdicts() {
    let config = SprtConfig {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let undecided = Trinomial {
        wins: 120,
        draws: 200,
        losses: 80,
    };
    let status = sprt_trinomial(&config, &undecided).expect("valid config");
    assert_eq!(status.verdict, SprtVerdict::Continue);
    close(status.upper, 2.9444389791664403, 1e-12);

    let strong = Trinomial {
        wins: 1200,
        draws: 2000,
        losses: 800,
    };
    assert_eq!(
        sprt_trinomial(&config, &strong).expect("valid").verdict,
        SprtVerdict::AcceptH1
    );
    // python3, exact GSPRT: 10000/20000/10000 at 0..5 Elo → LLR −8.283072601273922.
    let even = Trinomial {
        wins: 10_000,
        draws: 20_000,
        losses: 10_000,
    };
    assert_eq!(
        sprt_trinomial(&config, &even).expect("valid").verdict,
        SprtVerdict::AcceptH0
    );
    let bad = SprtConfig {
        elo0: 5.0,
        elo1: 0.0,
        ..config
    };
    assert_eq!(sprt_trinomial(&bad, &even), Err(SprtError::BadHypotheses));
}

#[test]
fn paired_results_group_games_by_pair_id() {
    let mut games = Vec::new();
    let mut add = |a: usize, b: usize, points_of_a: f64, pair: Option<u64>| {
        let mut game = two_player(a, b, points_of_a);
        game.pair_id = pair;
        games.push(game);
    };
    add(0, 1, 1.0, Some(7)); // pair 7: win + draw = 1.5 → counts[3]
    add(1, 0, 0.5, Some(7));
    add(0, 1, 0.0, Some(8)); // pair 8: loss + loss (bot 1 wins seat 0) → counts[0]
    add(1, 0, 1.0, Some(8));
    add(0, 1, 1.0, Some(9)); // pair 9 incomplete
    add(0, 1, 0.5, None);
    let log = GameLog::new(names(2), games).expect("valid");
    let paired = paired_results(&log, 0, 1);
    assert_eq!(paired.pairs.counts, [1, 0, 0, 1, 0]);
    assert_eq!(paired.unpaired_games, 2);
    assert_eq!(
        trinomial_results(&log, 0, 1),
        Trinomial {
            wins: 2,
            draws: 2,
            losses: 2
        }
    );
}

#[test]
fn bradley_terry_hand_solved() {
    // Strengths 4 : 2 : 1 reproduce every pairing's observed score exactly (A–B 2-1, B–C 2-1,
    // A–C 4-1), so they solve the likelihood equations: ratings 400·log10(4, 2, 1) centred =
    // (+120.412, 0, −120.412). A–B is 2 wins and 1 loss; B–C is 1 win and 2 draws, which the
    // half-win rule also scores 2 of 3, so draws are checked along the way.
    let mut games = vec![
        two_player(0, 1, 1.0),
        two_player(1, 0, 0.0),
        two_player(1, 0, 1.0),
        two_player(1, 2, 1.0),
        two_player(2, 1, 0.5),
        two_player(1, 2, 0.5),
    ];
    games.extend((0..4).map(|_| two_player(0, 2, 1.0)));
    games.push(two_player(2, 0, 1.0));
    let log = GameLog::new(names(3), games).expect("valid");
    let config = FitConfig {
        prior_draws: 0.0,
        bootstrap_resamples: 0,
        ..FitConfig::default()
    };
    let fit = global_fit(&log, &config).expect("identifiable");
    assert_eq!(fit.model, FitModel::BradleyTerry);
    assert!(fit.converged);
    let expected = [120.41199826559247, 0.0, -120.41199826559247];
    for (bot, want) in fit.bots.iter().zip(expected) {
        close(bot.rating, want, 1e-6);
    }
    assert_eq!(
        fit.bots.iter().map(|b| b.rank).collect::<Vec<_>>(),
        [1, 2, 3]
    );
}

#[test]
fn plackett_luce_matches_python_gradient_ascent() {
    // python3: plain gradient ascent on the PL log-likelihood (no MM), centred, 400/ln 10 scale.
    let orders: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [2, 1, 0],
        [0, 1, 2],
        [1, 2, 0],
    ];
    let games = orders.iter().map(|order| ordered_game(order)).collect();
    let log = GameLog::new(names(3), games).expect("valid");
    let config = FitConfig {
        prior_draws: 0.0,
        ..FitConfig::default()
    };
    let ratings = fit_ratings(&log, &config).expect("identifiable");
    let expected = [27.29359643378599, 44.95810690515608, -72.25170333894206];
    for (got, want) in ratings.iter().zip(expected) {
        close(*got, want, 1e-6);
    }
}

#[test]
fn plackett_luce_tie_counts_both_orders_at_half_weight() {
    // python3 as above, the tied game (ranks 1,1,3) entered as orders 0>1>2 and 1>0>2, ½ each.
    let games = vec![
        ordered_game(&[0, 1, 2]),
        ordered_game(&[2, 0, 1]),
        ordered_game(&[1, 2, 0]),
        game_with_ranks(&[0, 1, 2], &[1, 1, 3]),
        ordered_game(&[0, 2, 1]),
    ];
    let log = GameLog::new(names(3), games).expect("valid");
    let config = FitConfig {
        prior_draws: 0.0,
        bootstrap_resamples: 50,
        ..FitConfig::default()
    };
    let fit = global_fit(&log, &config).expect("identifiable");
    assert_eq!(fit.model, FitModel::PlackettLuce);
    let expected = [69.44451212156439, -29.309211544005468, -40.135300577558915];
    for (bot, want) in fit.bots.iter().zip(expected) {
        close(bot.rating, want, 1e-6);
    }
}

#[test]
fn fit_without_prior_reports_unbeaten_bot() {
    // Bot 0 never loses: its maximum-likelihood rating is infinite.
    let games = vec![two_player(0, 1, 1.0), two_player(1, 2, 0.5)];
    let log = GameLog::new(names(3), games).expect("valid");
    let no_prior = FitConfig {
        prior_draws: 0.0,
        ..FitConfig::default()
    };
    assert_eq!(fit_ratings(&log, &no_prior), Err(FitError::NotIdentifiable));
    let ratings = fit_ratings(&log, &FitConfig::default()).expect("prior keeps it finite");
    assert!(ratings.iter().all(|r| r.is_finite()));
    assert!(ratings[0] > ratings[1]);
}

#[test]
fn bootstrap_is_seeded_and_brackets_the_fit() {
    let mut games = Vec::new();
    for round in 0..30u64 {
        let mut first = two_player(0, 1, if round % 3 == 0 { 0.0 } else { 1.0 });
        first.pair_id = Some(round);
        let mut second = two_player(1, 0, if round % 4 == 0 { 1.0 } else { 0.5 });
        second.pair_id = Some(round);
        games.extend([first, second, two_player(1, 2, 1.0), two_player(2, 0, 0.5)]);
    }
    let log = GameLog::new(names(3), games).expect("valid");
    let config = FitConfig {
        bootstrap_resamples: 200,
        seed: 42,
        ..FitConfig::default()
    };
    let fit = global_fit(&log, &config).expect("fit");
    assert_eq!(fit, global_fit(&log, &config).expect("fit"));
    assert_eq!(fit.resamples_used, 200);
    for bot in &fit.bots {
        let interval = bot.rating_interval.expect("resampled");
        assert!(interval.low < interval.high);
        assert!(interval.low <= bot.rating && bot.rating <= interval.high);
        let (best, worst) = bot.rank_interval.expect("resampled");
        assert!(best <= bot.rank && bot.rank <= worst);
    }
    let other_seed = FitConfig { seed: 43, ..config };
    assert_ne!(fit, global_fit(&log, &other_seed).expect("fit"));
}

#[test]
fn elo_2014_hand_computed_four_player_game() {
    // Before: 1600, 1500, 1500, 1400; seat 1 wins. Six pairings, K = 32, scale 400:
    // seat 1 gains 32·E(0 beats 1) + 16 + 32·(1 − E(1 beats 3)) = 32 + 16 = 48 exactly, since
    // both expectations are for a 100-point gap; seat 2 loses 16 to the winner and its two draws
    // cancel (+/-4.482); seats 0 and 3 from python3: -33.276061640119295 and 1.2760616401192983.
    let config = EloConfig::default();
    let changes = elo_2014_changes(&[1600.0, 1500.0, 1500.0, 1400.0], Some(1), &config);
    let expected = [-33.276061640119295, 48.0, -16.0, 1.2760616401192983];
    for (got, want) in changes.iter().zip(expected) {
        close(*got, want, 1e-9);
    }

    // The same game through the log, from everyone at 1500: winner +3·16, the rest draw among
    // themselves at equal ratings and lose 16 each to the winner.
    let log = GameLog::new(names(4), vec![ordered_game(&[1, 0, 2, 3])]).expect("valid");
    let ratings = elo_2014_ratings(&log, &config).ratings;
    assert_eq!(ratings, vec![1484.0, 1548.0, 1484.0, 1484.0]);

    // No winner: every pair draws, so equal ratings stay put.
    let drawn = game_with_ranks(&[0, 1, 2, 3], &[1, 1, 3, 4]);
    let log = GameLog::new(names(4), vec![drawn]).expect("valid");
    assert_eq!(elo_2014_ratings(&log, &config).ratings, vec![1500.0; 4]);
}

#[test]
fn trueskill_and_weng_lin_equal_direct_crate_calls() {
    let games = vec![
        two_player(0, 1, 1.0),
        game_with_ranks(&[2, 0, 3, 1], &[2, 1, 4, 2]),
        two_player(1, 2, 0.5),
        game_with_ranks(&[3, 2, 1, 0], &[1, 2, 3, 4]),
    ];
    let log = GameLog::new(names(4), games).expect("valid");

    let config = TrueSkillConfig::new();
    let mut expected = [TrueSkillRating::new(); 4];
    let (a, b) = trueskill(&expected[0], &expected[1], &Outcomes::WIN, &config);
    (expected[0], expected[1]) = (a, b);
    let seats_and_ranks = [(2, 2), (0, 1), (3, 4), (1, 2)];
    let teams: Vec<[TrueSkillRating; 1]> = seats_and_ranks
        .iter()
        .map(|&(bot, _)| [expected[bot]])
        .collect();
    let input: Vec<(&[TrueSkillRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(seats_and_ranks)
        .map(|(team, (_, rank))| (&team[..], MultiTeamOutcome::new(rank)))
        .collect();
    let updated = trueskill_multi_team(&input, &config, None).expect("no weights");
    for ((bot, _), team) in seats_and_ranks.iter().zip(&updated) {
        expected[*bot] = team[0];
    }
    let (a, b) = trueskill(&expected[1], &expected[2], &Outcomes::DRAW, &config);
    (expected[1], expected[2]) = (a, b);
    let order = [(3, 1), (2, 2), (1, 3), (0, 4)];
    let teams: Vec<[TrueSkillRating; 1]> = order.iter().map(|&(bot, _)| [expected[bot]]).collect();
    let input: Vec<(&[TrueSkillRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(order)
        .map(|(team, (_, rank))| (&team[..], MultiTeamOutcome::new(rank)))
        .collect();
    let updated = trueskill_multi_team(&input, &config, None).expect("no weights");
    for ((bot, _), team) in order.iter().zip(&updated) {
        expected[*bot] = team[0];
    }

    // 4-player games go through arena's allocation-free copy of the crate's factor graph, equal to
    // rounding (see trueskill_ffa); 2-player games call the crate itself.
    let ours = trueskill_ratings(&log, &config);
    assert_eq!(ours.games_rated, 4);
    for (got, want) in ours.ratings.iter().zip(&expected) {
        close(got.mean, want.rating, 1e-12);
        close(got.uncertainty, want.uncertainty, 1e-12);
        close(
            got.conservative,
            want.rating - 3.0 * want.uncertainty,
            1e-11,
        );
    }

    // Weng-Lin: first two games only, the same way.
    let log = GameLog::new(names(4), log.games()[..2].to_vec()).expect("valid");
    let config = WengLinConfig::new();
    let mut expected = [WengLinRating::new(); 4];
    let (a, b) = weng_lin(&expected[0], &expected[1], &Outcomes::WIN, &config);
    (expected[0], expected[1]) = (a, b);
    let teams: Vec<[WengLinRating; 1]> = seats_and_ranks
        .iter()
        .map(|&(bot, _)| [expected[bot]])
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(seats_and_ranks)
        .map(|(team, (_, rank))| (&team[..], MultiTeamOutcome::new(rank)))
        .collect();
    for ((bot, _), team) in seats_and_ranks
        .iter()
        .zip(weng_lin_multi_team(&input, &config))
    {
        expected[*bot] = team[0];
    }
    let ours = weng_lin_ratings(&log, &config);
    for (got, want) in ours.ratings.iter().zip(&expected) {
        assert_eq!(got.mean, want.rating);
        assert_eq!(got.uncertainty, want.uncertainty);
    }
}

#[test]
fn summary_counts_four_player_results() {
    let mut first = game_with_ranks(&[0, 1, 2, 3], &[1, 2, 3, 4]);
    first.faults[2] = vec!["timeout".into(), "timeout".into()];
    let second = game_with_ranks(&[1, 0, 3, 2], &[1, 1, 3, 3]);
    let log = GameLog::new(names(4), vec![first, second]).expect("valid");
    let summaries = summarize(&log);
    let bot0 = &summaries[0];
    assert_eq!(
        (bot0.games, bot0.wins, bot0.draws, bot0.losses),
        (2, 1, 1, 0)
    );
    assert_eq!(bot0.mean_rank, Some(1.0));
    assert_eq!(bot0.seats[0].wins, 1);
    assert_eq!(bot0.seats[1].draws, 1);
    assert_eq!(bot0.seats[1].mean_score, Some(-1.0));
    // One sole first (1) and one shared first (½): 0.75 points per game, as the pairwise table
    // and the SPRT count a draw.
    close(bot0.score_rate.expect("games").estimate, 0.75, 0.0);
    assert_eq!(summaries[2].faults.get("timeout"), Some(&2));
    assert_eq!(summaries[3].losses, 2);

    let table = pairwise(&log);
    let zero_vs_one = table.get(0, 1).expect("in range");
    assert_eq!(
        (zero_vs_one.wins, zero_vs_one.draws, zero_vs_one.losses),
        (1, 1, 0)
    );
    // LOS with one decisive win: Φ(1) = 0.8413447460685429 (python3 NormalDist().cdf(1)).
    // statrs' erfc is good to about 1e-11 here, far below any statistical meaning.
    close(zero_vs_one.los.expect("decisive"), 0.8413447460685429, 1e-9);
    // python3: NormalDist().cdf(10/sqrt(50)) for 30 wins, 20 losses.
    close(
        likelihood_of_superiority(30, 20).expect("decisive"),
        0.9213503964748574,
        1e-9,
    );
}

#[test]
fn empty_and_single_bot_inputs_do_not_panic() {
    for bots in [0, 1, 3] {
        let log = GameLog::new(names(bots), Vec::new()).expect("empty is valid");
        let summaries = summarize(&log);
        assert!(
            summaries
                .iter()
                .all(|s| s.score_rate.is_none() && s.score.is_none())
        );
        assert_eq!(pairwise(&log).records.len(), bots * bots);
        assert_eq!(
            trueskill_ratings(&log, &TrueSkillConfig::new())
                .ratings
                .len(),
            bots
        );
        assert_eq!(
            weng_lin_ratings(&log, &WengLinConfig::new()).ratings.len(),
            bots
        );
        assert_eq!(
            elo_2014_ratings(&log, &EloConfig::default()).ratings.len(),
            bots
        );
        let fit = global_fit(&log, &FitConfig::default()).expect("prior makes it defined");
        assert!(
            fit.bots
                .iter()
                .all(|b| b.rating == 0.0 && b.rating_interval.is_none())
        );
        assert_eq!(paired_results(&log, 0, 1), PairedResults::default());
    }
    // One bot playing itself.
    let mirror = two_player(0, 0, 1.0);
    let log = GameLog::new(names(1), vec![mirror]).expect("valid");
    let summary = &summarize(&log)[0];
    assert_eq!((summary.wins, summary.losses), (1, 1));
    assert_eq!(
        trueskill_ratings(&log, &TrueSkillConfig::new()).games_skipped,
        1
    );
    assert_eq!(
        elo_2014_ratings(&log, &EloConfig::default()).ratings,
        vec![1500.0]
    );
    let no_prior = FitConfig {
        prior_draws: 0.0,
        ..FitConfig::default()
    };
    assert_eq!(fit_ratings(&log, &no_prior), Ok(vec![0.0]));
}

#[test]
fn malformed_games_are_rejected() {
    let mut bad_index = two_player(0, 1, 1.0);
    bad_index.players[1] = 5;
    assert!(GameLog::new(names(2), vec![bad_index]).is_err());
    let mut wrong_winner = two_player(0, 1, 1.0);
    wrong_winner.winner = Some(1);
    assert!(GameLog::new(names(2), vec![wrong_winner]).is_err());
    let mut short_scores = two_player(0, 1, 0.5);
    short_scores.scores.pop();
    assert!(GameLog::new(names(2), vec![short_scores]).is_err());
    let mut nan_score = two_player(0, 1, 0.5);
    nan_score.scores[0] = f64::NAN;
    assert!(GameLog::new(names(2), vec![nan_score]).is_err());
}

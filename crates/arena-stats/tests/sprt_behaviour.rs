//! The SPRT judged by what it does, not only by values: error rates and average sample numbers
//! from thousands of simulated runs, known values of the exact GSPRT against an independent
//! implementation, and no verdict from a handful of games.

use arena_stats::*;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn close(got: f64, want: f64, tolerance: f64) {
    assert!(
        (got - want).abs() <= tolerance,
        "got {got}, want {want} (±{tolerance})"
    );
}

#[test]
fn exact_gsprt_matches_an_independent_implementation() {
    // python3, fishtest's method written out independently (constrained MLE by bisection,
    // empty categories raised to 1e-3), elo 0..5:
    close(
        llr_units(&[0, 0, 0, 0, 1], 0.0, 5.0),
        0.014315849412829712,
        1e-9,
    );
    close(
        llr_units(&[0, 0, 1, 0, 0], 0.0, 5.0),
        -0.011281921403603191,
        1e-9,
    );
    close(
        llr_units(&[3, 0, 0, 0, 5, 0, 0, 0, 2], 0.0, 5.0),
        -0.030815209698529935,
        1e-9,
    );
    close(
        llr_units(&[10_000, 20_000, 10_000], 0.0, 5.0),
        -8.283072601273922,
        1e-7,
    );
    close(
        llr_units(&[0, 0, 0, 0, 1], 0.0, 10.0),
        0.028423811539487056,
        1e-9,
    );
}

#[test]
fn one_unit_moves_the_llr_by_at_most_its_bound() {
    let config = SprtConfig {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    // ln(s1/s0) per won pair at 0..5 Elo: 2.944 / 0.014316 → 206 pairs before H1;
    // ln((1−s1)/(1−s0)) per lost pair: 2.944 / 0.014480 → 204 pairs before H0.
    assert_eq!(config.min_units(), 204);
    for units in [1u64, 10, 100, 203] {
        let all_won = llr_units(&[0, 0, 0, 0, units], 0.0, 5.0);
        assert!(all_won < config.bounds().1, "{units} won pairs: {all_won}");
        let all_lost = llr_units(&[units, 0, 0, 0, 0], 0.0, 5.0);
        assert!(
            all_lost > config.bounds().0,
            "{units} lost pairs: {all_lost}"
        );
    }
    assert!(llr_units(&[0, 0, 0, 0, 210], 0.0, 5.0) > config.bounds().1);
}

/// Pair outcomes (A's half-points 0..=4) of two independent games at a true Elo difference,
/// with a draw rate: the distribution the simulation draws from.
fn pair_distribution(elo: f64, draw_rate: f64) -> [f64; 5] {
    let score = 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
    let win = score - draw_rate / 2.0;
    let loss = 1.0 - score - draw_rate / 2.0;
    let game = [loss, draw_rate, win];
    let mut pair = [0.0; 5];
    for (first, p) in game.iter().enumerate() {
        for (second, q) in game.iter().enumerate() {
            pair[first + second] += p * q;
        }
    }
    pair
}

fn draw(rng: &mut Pcg64Mcg, distribution: &[f64; 5]) -> usize {
    let uniform = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut cumulative = 0.0;
    for (outcome, p) in distribution.iter().enumerate() {
        cumulative += p;
        if uniform < cumulative {
            return outcome;
        }
    }
    distribution.len() - 1
}

/// Runs the test on simulated pairs until it decides; (verdict, pairs used).
fn run_once(rng: &mut Pcg64Mcg, config: SprtConfig, distribution: &[f64; 5]) -> (SprtVerdict, u64) {
    let mut test = SequentialSprt::new(SprtSetup {
        config,
        a: 0,
        b: 1,
        unit_games: 2,
    });
    for pair in 0u64.. {
        let half_points = draw(rng, distribution);
        // The pair as two games: A's points per game add up to the pair's half-points.
        let (first, second) = match half_points {
            0 => (0.0, 0.0),
            1 => (0.5, 0.0),
            2 => (0.5, 0.5),
            3 => (1.0, 0.5),
            _ => (1.0, 1.0),
        };
        for points in [first, second] {
            test.add(&two_player_game(points, pair));
        }
        if let Some(verdict) = test.decided() {
            return (verdict, pair + 1);
        }
    }
    unreachable!("the loop only ends by deciding")
}

fn two_player_game(points_of_a: f64, pair: u64) -> GameResult {
    let (ranks, winner) = if points_of_a == 1.0 {
        (vec![1, 2], Some(0))
    } else if points_of_a == 0.0 {
        (vec![2, 1], Some(1))
    } else {
        (vec![1, 1], None)
    };
    GameResult {
        players: vec![0, 1],
        scores: vec![points_of_a, 1.0 - points_of_a],
        ranks,
        winner,
        faults: Vec::new(),
        pair_id: Some(pair),
    }
}

#[test]
fn error_rates_and_average_sample_numbers_from_simulated_runs() {
    const RUNS: u32 = 2000;
    let config = SprtConfig {
        elo0: 0.0,
        elo1: 30.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let mut rng = Pcg64Mcg::seed_from_u64(20_261_122);
    let mut report = Vec::new();
    for (true_elo, wrong_verdict, allowed) in [
        (config.elo0, SprtVerdict::AcceptH1, config.alpha + 0.02),
        (config.elo1, SprtVerdict::AcceptH0, config.beta + 0.03),
    ] {
        let distribution = pair_distribution(true_elo, 0.3);
        let (mut wrong, mut pairs, mut fewest) = (0u32, 0u64, u64::MAX);
        for _ in 0..RUNS {
            let (verdict, used) = run_once(&mut rng, config, &distribution);
            wrong += u32::from(verdict == wrong_verdict);
            pairs += used;
            fewest = fewest.min(used);
        }
        let rate = f64::from(wrong) / f64::from(RUNS);
        let average = pairs as f64 / f64::from(RUNS);
        report.push(format!(
            "true Elo {true_elo}: wrong verdict {rate:.4} (allowed {allowed:.2}), average {average:.1} pairs, fewest {fewest}"
        ));
        assert!(rate <= allowed, "{}", report.join("; "));
        assert!(fewest >= config.min_units(), "{}", report.join("; "));
    }
    println!("{}", report.join("\n"));
}

#[test]
fn identical_bots_do_not_stop_early() {
    // Twenty seeds of two equal bots under elo 0..5: none may stop before 40 games, at most two
    // may accept H1.
    let config = SprtConfig {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let distribution = pair_distribution(0.0, 0.1);
    let mut accepted_h1 = 0;
    for seed in 0..20 {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let (verdict, pairs) = run_once(&mut rng, config, &distribution);
        assert!(
            pairs * 2 >= 40,
            "seed {seed} stopped after {} games",
            pairs * 2
        );
        accepted_h1 += u32::from(verdict == SprtVerdict::AcceptH1);
    }
    assert!(accepted_h1 <= 2, "{accepted_h1} of 20 accepted H1");
}

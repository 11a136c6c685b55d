//! Sequential probability ratio test between two bots, as engine testers (fishtest, cutechess,
//! fastchess) run it.
//!
//! Hypotheses are Elo differences on the logistic scale: H0 says A is elo0 stronger than B, H1
//! says elo1 (elo0 < elo1). Each maps to an expected score s = 1 / (1 + 10^(−elo/400)).
//!
//! LLR. The generalized SPRT (GSPRT) normal approximation of fishtest's `LLR_logistic`, for
//! outcomes with values xᵢ = i/(k−1) seen nᵢ times (k = 3 for W/D/L per game, k = 5 for the total
//! of a game pair):
//!
//! ```text
//! N = Σ nᵢ,  μ = Σ nᵢ xᵢ / N,  σ² = Σ nᵢ (xᵢ − μ)² / N
//! LLR = N · (s1 − s0) · (2μ − s0 − s1) / (2σ²)
//! ```
//!
//! As fishtest does, every count below 10⁻³ is raised to 10⁻³ first, so that σ² > 0 even when
//! one outcome has not been seen yet (all wins, say); no data at all gives LLR = 0.
//! For paired games N counts pairs and the variance is that of a pair's mean score, which is what
//! lets pairing (same seed, swapped seats) cancel the seed's luck.
//!
//! Bounds (Wald): lower = ln(β / (1 − α)), upper = ln((1 − β) / α).

use serde::{Deserialize, Serialize};

use crate::game::{GameLog, GameResult, count_points, head_to_head_points};

/// Test settings: the two hypotheses (Elo) and the error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtConfig {
    pub elo0: f64,
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    pub beta: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum SprtError {
    #[error("alpha and beta must lie in (0, 1) with alpha + beta < 1")]
    BadErrorRates,
    #[error("elo0 and elo1 must be finite with elo0 < elo1")]
    BadHypotheses,
}

impl SprtConfig {
    fn check(&self) -> Result<(), SprtError> {
        let rate_ok = |rate: f64| rate > 0.0 && rate < 1.0;
        if !(rate_ok(self.alpha) && rate_ok(self.beta) && self.alpha + self.beta < 1.0) {
            return Err(SprtError::BadErrorRates);
        }
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return Err(SprtError::BadHypotheses);
        }
        Ok(())
    }

    /// Wald's stopping bounds (lower, upper) on the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        sprt_bounds(self.alpha, self.beta)
    }
}

/// Wald's stopping bounds: (ln(β/(1−α)), ln((1−β)/α)); ±2.944 for α = β = 0.05.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtVerdict {
    /// Neither bound reached: play more games.
    Continue,
    /// LLR at or below the lower bound: A is not elo1 stronger (H0 holds).
    AcceptH0,
    /// LLR at or above the upper bound: A is elo1 stronger (H1 holds).
    AcceptH1,
}

/// The state of a test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub verdict: SprtVerdict,
}

/// Game results of A against B, from A's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trinomial {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Game-pair results of A against B: `counts[i]` is the number of pairs in which A scored i/2
/// points out of 2 (0, ½, 1, 1½, 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    pub counts: [u64; 5],
}

/// Pentanomial counts plus the A-vs-B games that could not be paired (no `pair_id`, or a
/// `pair_id` shared by other than exactly two such games, e.g. the four rotations of a
/// 4-player seed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedResults {
    pub pairs: Pentanomial,
    pub unpaired_games: u64,
}

/// Expected score of the stronger side at an Elo difference, on the logistic scale.
fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The GSPRT LLR for outcome counts over equally spaced values 0..=1 (see module docs).
fn llr_from_counts(counts: &[u64], elo0: f64, elo1: f64) -> f64 {
    const SMALLEST_COUNT: f64 = 1e-3;
    if counts.len() < 2 || counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let top = (counts.len() - 1) as f64;
    let regularized: Vec<f64> = counts
        .iter()
        .map(|&c| (c as f64).max(SMALLEST_COUNT))
        .collect();
    let total: f64 = regularized.iter().sum();
    let value = |i: usize| i as f64 / top;
    let mean = regularized
        .iter()
        .enumerate()
        .map(|(i, c)| c * value(i))
        .sum::<f64>()
        / total;
    let variance = regularized
        .iter()
        .enumerate()
        .map(|(i, c)| c * (value(i) - mean).powi(2))
        .sum::<f64>()
        / total;
    let (s0, s1) = (expected_score(elo0), expected_score(elo1));
    total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
}

/// LLR of H1 against H0 from per-game W/D/L.
pub fn llr_trinomial(results: &Trinomial, elo0: f64, elo1: f64) -> f64 {
    llr_from_counts(&[results.losses, results.draws, results.wins], elo0, elo1)
}

/// LLR of H1 against H0 from paired games.
pub fn llr_pentanomial(results: &Pentanomial, elo0: f64, elo1: f64) -> f64 {
    llr_from_counts(&results.counts, elo0, elo1)
}

/// Verdict for an LLR under the config's bounds.
pub fn sprt_status(config: &SprtConfig, llr: f64) -> Result<SprtStatus, SprtError> {
    config.check()?;
    let (lower, upper) = config.bounds();
    let verdict = if llr >= upper {
        SprtVerdict::AcceptH1
    } else if llr <= lower {
        SprtVerdict::AcceptH0
    } else {
        SprtVerdict::Continue
    };
    Ok(SprtStatus {
        llr,
        lower,
        upper,
        verdict,
    })
}

/// SPRT on per-game W/D/L.
pub fn sprt_trinomial(config: &SprtConfig, results: &Trinomial) -> Result<SprtStatus, SprtError> {
    config.check()?;
    sprt_status(config, llr_trinomial(results, config.elo0, config.elo1))
}

/// SPRT on game pairs.
pub fn sprt_pentanomial(
    config: &SprtConfig,
    results: &Pentanomial,
) -> Result<SprtStatus, SprtError> {
    config.check()?;
    sprt_status(config, llr_pentanomial(results, config.elo0, config.elo1))
}

/// A's points against B in a game where both played (first seat of each), if they both did.
pub(crate) fn points_against(game: &GameResult, a: usize, b: usize) -> Option<f64> {
    let seat_a = game.players.iter().position(|&bot| bot == a)?;
    let seat_b = game.players.iter().position(|&bot| bot == b)?;
    Some(head_to_head_points(game.ranks[seat_a], game.ranks[seat_b]))
}

impl Trinomial {
    /// Counts one game worth `points` (1, ½ or 0) to A.
    pub(crate) fn record(&mut self, points: f64) {
        count_points(points, &mut self.wins, &mut self.draws, &mut self.losses);
    }
}

/// W/D/L of `a` against `b` over the games both played (ranks compared between the two, so
/// 4-player games count too). Same bot twice gives all zeros.
pub fn trinomial_results(log: &GameLog, a: usize, b: usize) -> Trinomial {
    let mut results = Trinomial::default();
    if a == b {
        return results;
    }
    for points in log.games().iter().filter_map(|g| points_against(g, a, b)) {
        results.record(points);
    }
    results
}

/// Pairs `a`-vs-`b` games by `pair_id` (exactly two games per id make a pair).
pub fn paired_results(log: &GameLog, a: usize, b: usize) -> PairedResults {
    let mut pairing = Pairing::default();
    if a != b {
        for game in log.games() {
            if let Some(points) = points_against(game, a, b) {
                pairing.record(game.pair_id, points);
            }
        }
    }
    pairing.results
}

/// [`PairedResults`] kept up to date game by game, for [`paired_results`] and the streaming
/// accumulator alike.
///
/// Every id's games so far are remembered as a count and a point total, because a later game of
/// the same id can still turn a complete pair into unpaired games; the current results are
/// adjusted in O(1) per game, so they can be read after every game.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pairing {
    by_id: std::collections::HashMap<u64, IdTally>,
    pub(crate) results: PairedResults,
}

#[derive(Clone, Copy, Debug, Default)]
struct IdTally {
    // u32: one entry per id is the SPRT's only per-pair memory, so it is kept small.
    games: u32,
    /// Twice A's points: points are multiples of ½, so this is an exact small integer.
    half_points: u32,
}

impl Pairing {
    /// Counts one A-vs-B game worth `points` to A.
    pub(crate) fn record(&mut self, pair_id: Option<u64>, points: f64) {
        let Some(id) = pair_id else {
            self.results.unpaired_games += 1;
            return;
        };
        let tally = self.by_id.entry(id).or_default();
        Self::contribute(&mut self.results, tally, false);
        tally.games = tally.games.saturating_add(1);
        tally.half_points = tally
            .half_points
            .saturating_add((points * 2.0).round() as u32);
        Self::contribute(&mut self.results, tally, true);
    }

    /// Adds (or, with `add == false`, takes back) what one id's games count for: a pentanomial
    /// entry when there are exactly two, unpaired games otherwise.
    fn contribute(results: &mut PairedResults, tally: &IdTally, add: bool) {
        let slot = if tally.games == 2 {
            &mut results.pairs.counts[(tally.half_points as usize).min(4)]
        } else {
            &mut results.unpaired_games
        };
        let amount = if tally.games == 2 {
            1
        } else {
            u64::from(tally.games)
        };
        if add {
            *slot += amount;
        } else {
            *slot -= amount;
        }
    }

    /// Ids remembered (for memory accounting).
    pub(crate) fn ids(&self) -> usize {
        self.by_id.len()
    }
}

//! Ratings updated game by game, in play order: TrueSkill and Weng-Lin (through the
//! `skillratings` crate) and the 4-player Elo of the 2014 contests (hand-written: it is a
//! contest-specific pairing rule that no crate implements).

use serde::{Deserialize, Serialize};
use skillratings::trueskill::{TrueSkillConfig, TrueSkillRating, trueskill, trueskill_multi_team};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin, weng_lin_multi_team};
use skillratings::{MultiTeamOutcome, Outcomes};

use crate::game::{GameLog, GameResult};

/// A Bayesian skill estimate: mean μ, uncertainty σ, and the leaderboard value μ − 3σ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillRating {
    pub mean: f64,
    pub uncertainty: f64,
    /// μ − 3σ, the conservative value TrueSkill leaderboards sort by.
    pub conservative: f64,
}

impl SkillRating {
    fn new(mean: f64, uncertainty: f64) -> Self {
        Self {
            mean,
            uncertainty,
            conservative: mean - 3.0 * uncertainty,
        }
    }
}

/// Ratings after every game, one per bot, and how many games fed them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillRatings {
    pub ratings: Vec<SkillRating>,
    pub games_rated: u64,
    /// Games with fewer than two seats or one bot in several seats: a player cannot take two
    /// different updates from one game, so these are left out.
    pub games_skipped: u64,
}

/// Outcome of seat 0 against seat 1 in a 2-seat game, by rank.
fn two_seat_outcome(game: &GameResult) -> Outcomes {
    match game.ranks[0].cmp(&game.ranks[1]) {
        std::cmp::Ordering::Less => Outcomes::WIN,
        std::cmp::Ordering::Equal => Outcomes::DRAW,
        std::cmp::Ordering::Greater => Outcomes::LOSS,
    }
}

/// Shared driver: 1v1 update for 2-seat games, free-for-all (every seat a team of one, ranked by
/// its competition rank, ties sharing a rank) for larger games.
fn rate_in_order<R: Copy>(
    log: &GameLog,
    initial: R,
    one_vs_one: impl Fn(&R, &R, &Outcomes) -> (R, R),
    free_for_all: impl Fn(&[(&[R], MultiTeamOutcome)]) -> Option<Vec<Vec<R>>>,
) -> (Vec<R>, u64, u64) {
    let mut ratings = vec![initial; log.bot_count()];
    let (mut rated, mut skipped) = (0u64, 0u64);
    for game in log.games() {
        if game.seat_count() < 2 || game.has_repeated_bot() {
            skipped += 1;
            continue;
        }
        if game.seat_count() == 2 {
            let (a, b) = (game.players[0], game.players[1]);
            let (new_a, new_b) = one_vs_one(&ratings[a], &ratings[b], &two_seat_outcome(game));
            ratings[a] = new_a;
            ratings[b] = new_b;
            rated += 1;
            continue;
        }
        let teams: Vec<[R; 1]> = game.players.iter().map(|&bot| [ratings[bot]]).collect();
        let teams_and_ranks: Vec<(&[R], MultiTeamOutcome)> = teams
            .iter()
            .zip(&game.ranks)
            .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(rank as usize)))
            .collect();
        match free_for_all(&teams_and_ranks) {
            Some(updated) if updated.len() == game.seat_count() => {
                for (&bot, team) in game.players.iter().zip(&updated) {
                    if let Some(&rating) = team.first() {
                        ratings[bot] = rating;
                    }
                }
                rated += 1;
            }
            _ => skipped += 1,
        }
    }
    (ratings, rated, skipped)
}

/// TrueSkill over all games in play order, every bot starting from the crate's default prior.
pub fn trueskill_ratings(log: &GameLog, config: &TrueSkillConfig) -> SkillRatings {
    let (ratings, games_rated, games_skipped) = rate_in_order(
        log,
        TrueSkillRating::new(),
        |a, b, outcome| trueskill(a, b, outcome, config),
        |teams| trueskill_multi_team(teams, config, None).ok(),
    );
    SkillRatings {
        ratings: ratings
            .iter()
            .map(|r| SkillRating::new(r.rating, r.uncertainty))
            .collect(),
        games_rated,
        games_skipped,
    }
}

/// Weng-Lin (Bradley-Terry full-pair variant, as in OpenSkill) over all games in play order.
pub fn weng_lin_ratings(log: &GameLog, config: &WengLinConfig) -> SkillRatings {
    let (ratings, games_rated, games_skipped) = rate_in_order(
        log,
        WengLinRating::new(),
        |a, b, outcome| weng_lin(a, b, outcome, config),
        |teams| Some(weng_lin_multi_team(teams, config)),
    );
    SkillRatings {
        ratings: ratings
            .iter()
            .map(|r| SkillRating::new(r.rating, r.uncertainty))
            .collect(),
        games_rated,
        games_skipped,
    }
}

/// Parameters of the 2014 contests' Elo.
///
/// The contests never published their constants; K = 32, scale = 400 and a start of 1500 are
/// the usual chess values and only our defaults.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloConfig {
    /// Points moved per pairing (each of a 4-player game's six pairings moves up to K).
    pub k: f64,
    /// Rating difference at which the stronger side is expected to score 10:1.
    pub scale: f64,
    /// Everyone's rating before their first game.
    pub initial: f64,
}

impl Default for EloConfig {
    fn default() -> Self {
        Self {
            k: 32.0,
            scale: 400.0,
            initial: 1500.0,
        }
    }
}

/// Final Elo ratings, one per bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloRatings {
    pub ratings: Vec<f64>,
    pub games_rated: u64,
}

/// Rating changes of one game under the 2014 rule, one per seat, all computed from the ratings
/// before the game (so the order of pairs inside a game does not matter).
///
/// Every pair of seats is one Elo match: the winner beats each other seat, the other seats draw
/// with each other, and with no winner every pair draws. Seat i gains
/// Σ_j K · (S_ij − E_ij), with E_ij = 1 / (1 + 10^((R_j − R_i)/scale)).
/// For 2-seat games this is plain Elo. If `winner` is out of range the game counts as drawn.
pub fn elo_2014_changes(before: &[f64], winner: Option<usize>, config: &EloConfig) -> Vec<f64> {
    let mut changes = vec![0.0; before.len()];
    for i in 0..before.len() {
        for j in (i + 1)..before.len() {
            let actual_i = if winner == Some(i) {
                1.0
            } else if winner == Some(j) {
                0.0
            } else {
                0.5
            };
            let expected_i = 1.0 / (1.0 + 10f64.powf((before[j] - before[i]) / config.scale));
            let change = config.k * (actual_i - expected_i);
            changes[i] += change;
            changes[j] -= change;
        }
    }
    changes
}

/// The 2014 contests' Elo over all games in play order (see [`elo_2014_changes`]).
/// A bot in several seats of one game takes the sum of its seats' changes.
pub fn elo_2014_ratings(log: &GameLog, config: &EloConfig) -> EloRatings {
    let mut ratings = vec![config.initial; log.bot_count()];
    let mut games_rated = 0;
    for game in log.games() {
        if game.seat_count() < 2 {
            continue;
        }
        let before: Vec<f64> = game.players.iter().map(|&bot| ratings[bot]).collect();
        for (&bot, change) in
            game.players
                .iter()
                .zip(elo_2014_changes(&before, game.winner, config))
        {
            ratings[bot] += change;
        }
        games_rated += 1;
    }
    EloRatings {
        ratings,
        games_rated,
    }
}

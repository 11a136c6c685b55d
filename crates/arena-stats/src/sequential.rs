//! Ratings updated game by game, in play order: TrueSkill and Weng-Lin (through the
//! `skillratings` crate) and the 4-player Elo of the 2014 contests (hand-written: it is a
//! contest-specific pairing rule that no crate implements).

use skillratings::trueskill::{TrueSkillConfig, TrueSkillRating, trueskill, trueskill_multi_team};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin, weng_lin_multi_team};
use skillratings::{MultiTeamOutcome, Outcomes, Rating};

use crate::game::{GameLog, GameResult, Tally};
use crate::{trueskill_ffa, weng_lin_ffa};

/// A Bayesian skill estimate: mean μ, uncertainty σ, and the leaderboard value μ − 3σ.
#[derive(Clone, Copy, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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

/// A Bayesian rating system from `skillratings`, seen through its config: the 1v1 update and the
/// free-for-all update (every seat a team of one). One trait so that TrueSkill and Weng-Lin share
/// the per-game driver in [`SkillTally`].
pub(crate) trait SkillSystem: Copy {
    /// The crate's `Rating` gives the default prior (`new(None, None)`) and μ, σ back.
    type Rating: Rating + Copy;

    fn one_vs_one(
        &self,
        a: &Self::Rating,
        b: &Self::Rating,
        outcome: &Outcomes,
    ) -> (Self::Rating, Self::Rating);

    /// `None` when the crate rejects the input.
    fn free_for_all(
        &self,
        teams: &[(&[Self::Rating], MultiTeamOutcome)],
    ) -> Option<Vec<Vec<Self::Rating>>>;

    /// The free-for-all update of single players by rank, without allocating, when the system
    /// has such a path (`None`: use [`Self::free_for_all`]).
    fn free_for_all_players(
        &self,
        _ratings: &[Self::Rating],
        _ranks: &[u32],
    ) -> Option<[Self::Rating; trueskill_ffa::MAX_SEATS]> {
        None
    }
}

impl SkillSystem for TrueSkillConfig {
    type Rating = TrueSkillRating;

    fn one_vs_one(
        &self,
        a: &TrueSkillRating,
        b: &TrueSkillRating,
        outcome: &Outcomes,
    ) -> (TrueSkillRating, TrueSkillRating) {
        trueskill(a, b, outcome, self)
    }

    fn free_for_all(
        &self,
        teams: &[(&[TrueSkillRating], MultiTeamOutcome)],
    ) -> Option<Vec<Vec<TrueSkillRating>>> {
        trueskill_multi_team(teams, self, None).ok()
    }

    fn free_for_all_players(
        &self,
        ratings: &[TrueSkillRating],
        ranks: &[u32],
    ) -> Option<[TrueSkillRating; trueskill_ffa::MAX_SEATS]> {
        trueskill_ffa::rate(ratings, ranks, self)
    }
}

impl SkillSystem for WengLinConfig {
    type Rating = WengLinRating;

    fn one_vs_one(
        &self,
        a: &WengLinRating,
        b: &WengLinRating,
        outcome: &Outcomes,
    ) -> (WengLinRating, WengLinRating) {
        weng_lin(a, b, outcome, self)
    }

    fn free_for_all(
        &self,
        teams: &[(&[WengLinRating], MultiTeamOutcome)],
    ) -> Option<Vec<Vec<WengLinRating>>> {
        Some(weng_lin_multi_team(teams, self))
    }

    fn free_for_all_players(
        &self,
        ratings: &[WengLinRating],
        ranks: &[u32],
    ) -> Option<[WengLinRating; trueskill_ffa::MAX_SEATS]> {
        weng_lin_ffa::rate(ratings, ranks, self)
    }
}

/// Ratings of every bot under one [`SkillSystem`], updated game by game: 1v1 for 2-seat games,
/// free-for-all (ranked by competition rank, ties sharing a rank) for larger games.
#[derive(Clone, Debug)]
pub(crate) struct SkillTally<S: SkillSystem> {
    system: S,
    ratings: Vec<S::Rating>,
    rated: u64,
    skipped: u64,
}

impl<S: SkillSystem> SkillTally<S> {
    pub(crate) fn new(bot_count: usize, system: S) -> Self {
        Self {
            system,
            ratings: vec![S::Rating::new(None, None); bot_count],
            rated: 0,
            skipped: 0,
        }
    }
}

impl<S: SkillSystem> Tally for SkillTally<S> {
    type Output = SkillRatings;

    fn add(&mut self, game: &GameResult) {
        if game.seat_count() < 2 || game.has_repeated_bot() {
            self.skipped += 1;
            return;
        }
        let ratings = &mut self.ratings;
        if game.seat_count() == 2 {
            let (a, b) = (game.players[0], game.players[1]);
            let (new_a, new_b) =
                self.system
                    .one_vs_one(&ratings[a], &ratings[b], &two_seat_outcome(game));
            ratings[a] = new_a;
            ratings[b] = new_b;
            self.rated += 1;
            return;
        }
        let seats = game.seat_count();
        if seats <= trueskill_ffa::MAX_SEATS {
            let mut before = [S::Rating::new(None, None); trueskill_ffa::MAX_SEATS];
            for (slot, &bot) in before.iter_mut().zip(&game.players) {
                *slot = ratings[bot];
            }
            if let Some(updated) = self
                .system
                .free_for_all_players(&before[..seats], &game.ranks)
            {
                for (&bot, rating) in game.players.iter().zip(updated) {
                    ratings[bot] = rating;
                }
                self.rated += 1;
                return;
            }
        }
        let teams: Vec<[S::Rating; 1]> = game.players.iter().map(|&bot| [ratings[bot]]).collect();
        let teams_and_ranks: Vec<(&[S::Rating], MultiTeamOutcome)> = teams
            .iter()
            .zip(&game.ranks)
            .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(rank as usize)))
            .collect();
        match self.system.free_for_all(&teams_and_ranks) {
            Some(updated) if updated.len() == game.seat_count() => {
                for (&bot, team) in game.players.iter().zip(&updated) {
                    if let Some(&rating) = team.first() {
                        ratings[bot] = rating;
                    }
                }
                self.rated += 1;
            }
            _ => self.skipped += 1,
        }
    }

    fn finish(&self) -> SkillRatings {
        SkillRatings {
            ratings: self
                .ratings
                .iter()
                .map(|rating| {
                    SkillRating::new(rating.rating(), rating.uncertainty().unwrap_or(0.0))
                })
                .collect(),
            games_rated: self.rated,
            games_skipped: self.skipped,
        }
    }
}

/// TrueSkill over all games in play order, every bot starting from the crate's default prior.
pub fn trueskill_ratings(log: &GameLog, config: &TrueSkillConfig) -> SkillRatings {
    SkillTally::new(log.bot_count(), *config).over(log)
}

/// Weng-Lin (Bradley-Terry full-pair variant, as in OpenSkill) over all games in play order.
pub fn weng_lin_ratings(log: &GameLog, config: &WengLinConfig) -> SkillRatings {
    SkillTally::new(log.bot_count(), *config).over(log)
}

/// Parameters of the 2014 contests' Elo.
///
/// The contests never published their constants; K = 32, scale = 400 and a start of 1500 are
/// the usual chess values and only our defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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
    EloTally::new(log.bot_count(), *config).over(log)
}

/// The 2014 Elo updated game by game.
#[derive(Clone, Debug)]
pub(crate) struct EloTally {
    config: EloConfig,
    ratings: EloRatings,
}

impl EloTally {
    pub(crate) fn new(bot_count: usize, config: EloConfig) -> Self {
        Self {
            config,
            ratings: EloRatings {
                ratings: vec![config.initial; bot_count],
                games_rated: 0,
            },
        }
    }
}

impl Tally for EloTally {
    type Output = EloRatings;

    fn add(&mut self, game: &GameResult) {
        if game.seat_count() < 2 {
            return;
        }
        let ratings = &mut self.ratings.ratings;
        let before: Vec<f64> = game.players.iter().map(|&bot| ratings[bot]).collect();
        let changes = elo_2014_changes(&before, game.winner, &self.config);
        for (&bot, change) in game.players.iter().zip(changes) {
            ratings[bot] += change;
        }
        self.ratings.games_rated += 1;
    }

    fn finish(&self) -> EloRatings {
        self.ratings.clone()
    }
}

//! Per-bot results: win/draw/loss, score and rank statistics, per-seat results, faults.

use std::collections::BTreeMap;

use crate::game::{GameLog, GameResult, SeatOutcome, Tally};
use crate::interval::{Interval, UnitTally};

/// Results of one bot in one seat index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatSummary {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// `None` when the bot never sat there.
    pub mean_score: Option<f64>,
}

/// Everything about one bot's own results.
///
/// Counts are per seat taken: in a mirror match (one bot in two seats) both seats count.
#[derive(Clone, Debug, PartialEq)]
pub struct BotSummary {
    pub bot: usize,
    pub name: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points per game, the one meaning of a draw everywhere in arena: a sole first place 1, a
    /// shared first place ½, anything else 0 (for 2-player games the usual (W + D/2) / games).
    /// The 95 % interval is Wilson's at the effective sample size measured between units
    /// ([`crate::UnitSums::rate_interval`]); `None` without games.
    pub score_rate: Option<Interval>,
    /// Independent units the intervals rest on: seeds (a pair or seed group of games), or single
    /// games when games carry no pair id.
    pub units: u64,
    /// Mean of the game's scores, with a Student-t 95 % interval between units; `None` with fewer
    /// than 2 units.
    pub score: Option<Interval>,
    /// Mean score alone, present from the first game (where `score` has no interval yet).
    pub mean_score: Option<f64>,
    /// Mean competition rank (1 = best); the 4-player measure, also filled for 2-player games.
    pub mean_rank: Option<f64>,
    /// Results by seat index, `seats[i]` for seat i; as long as the largest game in the log.
    pub seats: Vec<SeatSummary>,
    /// Fault occurrences by kind (a seat with two faults of one kind counts two).
    pub faults: BTreeMap<String, u64>,
}

/// One [`BotSummary`] per bot, in bot order.
pub fn summarize(log: &GameLog) -> Vec<BotSummary> {
    SummaryTally::new(log.bot_names()).over(log)
}

/// Running per-bot counts: what [`summarize`] folds over a log and the streaming accumulator
/// keeps between games. Memory is O(bots × seats + fault kinds), whatever the number of games.
#[derive(Clone, Debug)]
pub(crate) struct SummaryTally {
    /// Counts only; the derived fields (rates, means, intervals) are filled by `finish`.
    summaries: Vec<BotSummary>,
    /// Per bot: points (1, ½, 0) and game scores, summed per unit.
    points: Vec<UnitTally>,
    scores: Vec<UnitTally>,
    rank_sums: Vec<u64>,
    /// Score sums per bot and seat, indexed like `summaries[bot].seats`.
    seat_scores: Vec<Vec<f64>>,
    max_seats: usize,
}

impl SummaryTally {
    pub(crate) fn new(bot_names: &[String]) -> Self {
        let bot_count = bot_names.len();
        Self {
            summaries: bot_names
                .iter()
                .enumerate()
                .map(|(bot, name)| BotSummary {
                    bot,
                    name: name.clone(),
                    games: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    score_rate: None,
                    units: 0,
                    score: None,
                    mean_score: None,
                    mean_rank: None,
                    seats: Vec::new(),
                    faults: BTreeMap::new(),
                })
                .collect(),
            points: vec![Default::default(); bot_count],
            scores: vec![Default::default(); bot_count],
            rank_sums: vec![0; bot_count],
            seat_scores: vec![Vec::new(); bot_count],
            max_seats: 0,
        }
    }
}

impl Tally for SummaryTally {
    type Output = Vec<BotSummary>;

    /// Counts one checked game (bot indices below the bot count).
    fn add(&mut self, game: &GameResult) {
        self.max_seats = self.max_seats.max(game.seat_count());
        for (seat, &bot) in game.players.iter().enumerate() {
            let summary = &mut self.summaries[bot];
            if summary.seats.len() <= seat {
                summary.seats.resize(seat + 1, SeatSummary::default());
                self.seat_scores[bot].resize(seat + 1, 0.0);
            }
            let seat_summary = &mut summary.seats[seat];
            summary.games += 1;
            seat_summary.games += 1;
            let points = match game.seat_outcome(seat) {
                SeatOutcome::Win => {
                    summary.wins += 1;
                    seat_summary.wins += 1;
                    1.0
                }
                SeatOutcome::Draw => {
                    summary.draws += 1;
                    seat_summary.draws += 1;
                    0.5
                }
                SeatOutcome::Loss => {
                    summary.losses += 1;
                    seat_summary.losses += 1;
                    0.0
                }
            };
            self.points[bot].add(game.pair_id, points);
            self.scores[bot].add(game.pair_id, game.scores[seat]);
            self.seat_scores[bot][seat] += game.scores[seat];
            self.rank_sums[bot] += u64::from(game.ranks[seat]);
            for fault in game.seat_faults(seat) {
                *summary.faults.entry(fault.clone()).or_insert(0) += 1;
            }
        }
    }

    /// The summaries so far, every bot's `seats` as long as the largest game seen.
    fn finish(&self) -> Vec<BotSummary> {
        let mut summaries = self.summaries.clone();
        for (bot, summary) in summaries.iter_mut().enumerate() {
            summary.seats.resize(self.max_seats, SeatSummary::default());
            if summary.games > 0 {
                let games = summary.games as f64;
                let points = self.points[bot].sums();
                let scores = self.scores[bot].sums();
                summary.score_rate = points.rate_interval();
                summary.units = points.units;
                summary.mean_score = scores.ratio();
                summary.score = scores.mean_interval();
                summary.mean_rank = Some(self.rank_sums[bot] as f64 / games);
            }
            for (seat, seat_summary) in summary.seats.iter_mut().enumerate() {
                if seat_summary.games > 0 {
                    seat_summary.mean_score =
                        Some(self.seat_scores[bot][seat] / seat_summary.games as f64);
                }
            }
        }
        summaries
    }
}

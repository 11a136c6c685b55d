//! Per-bot results: win/draw/loss, score and rank statistics, per-seat results, faults.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::game::{GameLog, SeatOutcome};
use crate::interval::{Interval, mean_interval, wilson};

/// Results of one bot in one seat index.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotSummary {
    pub bot: usize,
    pub name: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// wins / games with its Wilson 95 % interval; `None` without games.
    pub win_rate: Option<Interval>,
    /// Mean of the game's scores, with a Student-t 95 % interval; `None` with fewer than 2 games.
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
    let max_seats = log
        .games()
        .iter()
        .map(|g| g.seat_count())
        .max()
        .unwrap_or(0);
    let mut scores: Vec<Vec<f64>> = vec![Vec::new(); log.bot_count()];
    let mut rank_sums = vec![0u64; log.bot_count()];
    let mut seat_scores = vec![vec![0.0f64; max_seats]; log.bot_count()];
    let mut summaries: Vec<BotSummary> = log
        .bot_names()
        .iter()
        .enumerate()
        .map(|(bot, name)| BotSummary {
            bot,
            name: name.clone(),
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            win_rate: None,
            score: None,
            mean_score: None,
            mean_rank: None,
            seats: vec![SeatSummary::default(); max_seats],
            faults: BTreeMap::new(),
        })
        .collect();

    for game in log.games() {
        for (seat, &bot) in game.players.iter().enumerate() {
            let summary = &mut summaries[bot];
            let seat_summary = &mut summary.seats[seat];
            summary.games += 1;
            seat_summary.games += 1;
            match game.seat_outcome(seat) {
                SeatOutcome::Win => {
                    summary.wins += 1;
                    seat_summary.wins += 1;
                }
                SeatOutcome::Draw => {
                    summary.draws += 1;
                    seat_summary.draws += 1;
                }
                SeatOutcome::Loss => {
                    summary.losses += 1;
                    seat_summary.losses += 1;
                }
            }
            scores[bot].push(game.scores[seat]);
            seat_scores[bot][seat] += game.scores[seat];
            rank_sums[bot] += u64::from(game.ranks[seat]);
            for fault in game.seat_faults(seat) {
                *summary.faults.entry(fault.clone()).or_insert(0) += 1;
            }
        }
    }

    for (bot, summary) in summaries.iter_mut().enumerate() {
        if summary.games > 0 {
            let games = summary.games as f64;
            summary.win_rate = wilson(summary.wins as f64, games);
            summary.mean_score = Some(scores[bot].iter().sum::<f64>() / games);
            summary.score = mean_interval(&scores[bot]);
            summary.mean_rank = Some(rank_sums[bot] as f64 / games);
        }
        for (seat, seat_summary) in summary.seats.iter_mut().enumerate() {
            if seat_summary.games > 0 {
                seat_summary.mean_score = Some(seat_scores[bot][seat] / seat_summary.games as f64);
            }
        }
    }
    summaries
}

//! Head-to-head table: how each bot fared against each other bot in the games both played.

use crate::game::{GameLog, GameResult, Tally, count_points, head_to_head_points};
use crate::interval::{Interval, UnitSums, UnitTally, normal_cdf};

/// Row bot against column bot, counted from the row bot's side.
///
/// An encounter is one (seat of A, seat of B) pair in one game: one per game when each bot sits
/// once, more in mirror games. The result of an encounter compares the two ranks only, so in a
/// 4-player game A "beats" B whenever A finished ahead of B, whoever won the game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairRecord {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// (wins + draws/2) / games with a Wilson 95 % interval at the effective sample size measured
    /// between units (seeds), as [`crate::BotSummary::score_rate`]; `None` without games.
    pub score: Option<Interval>,
    /// Units (seeds) in which the two met.
    pub units: u64,
    /// Likelihood of superiority Φ((w − l)/√(w + l)); `None` without decisive games.
    pub los: Option<f64>,
}

impl PairRecord {
    fn finish(&mut self, units: &UnitSums) {
        self.score = units.rate_interval();
        self.units = units.units;
        self.los = likelihood_of_superiority(self.wins, self.losses);
    }
}

/// Likelihood of superiority as chess engine testers compute it, Φ((w − l)/√(w + l)): the
/// probability that the first side is the stronger one given the decisive games (draws carry no
/// information under this model). `None` when there is no decisive game.
pub fn likelihood_of_superiority(wins: u64, losses: u64) -> Option<f64> {
    let decisive = wins + losses;
    (decisive > 0).then(|| normal_cdf((wins as f64 - losses as f64) / (decisive as f64).sqrt()))
}

/// Square table of [`PairRecord`]s, row-major; the diagonal stays empty.
#[derive(Clone, Debug, PartialEq)]
pub struct PairwiseTable {
    pub bot_count: usize,
    /// `records[row * bot_count + column]`.
    pub records: Vec<PairRecord>,
}

impl PairwiseTable {
    /// Record of `row` against `column`; `None` when either index is out of range.
    pub fn get(&self, row: usize, column: usize) -> Option<&PairRecord> {
        if row >= self.bot_count || column >= self.bot_count {
            return None;
        }
        self.records.get(row * self.bot_count + column)
    }
}

/// Builds the table from every game: `get(a, b)` and `get(b, a)` mirror each other
/// (wins ↔ losses), so their scores add up to 1 wherever there are games.
pub fn pairwise(log: &GameLog) -> PairwiseTable {
    PairwiseTally::new(log.bot_count()).over(log)
}

/// Running encounter counts: what [`pairwise()`] folds over a log and the streaming accumulator
/// keeps between games (O(bots²) memory).
#[derive(Clone, Debug)]
pub(crate) struct PairwiseTally {
    /// Counts only; `score` and `los` are filled by `finish`.
    table: PairwiseTable,
    /// Row's points against column, summed per unit, row-major like the table.
    units: Vec<UnitTally>,
}

impl PairwiseTally {
    pub(crate) fn new(bot_count: usize) -> Self {
        Self {
            table: PairwiseTable {
                bot_count,
                records: vec![PairRecord::default(); bot_count * bot_count],
            },
            units: vec![Default::default(); bot_count * bot_count],
        }
    }
}

impl Tally for PairwiseTally {
    type Output = PairwiseTable;

    /// Counts every encounter of one checked game.
    fn add(&mut self, game: &GameResult) {
        let bot_count = self.table.bot_count;
        for (seat_a, &bot_a) in game.players.iter().enumerate() {
            for (seat_b, &bot_b) in game.players.iter().enumerate() {
                if bot_a == bot_b {
                    continue;
                }
                let cell = bot_a * bot_count + bot_b;
                let record = &mut self.table.records[cell];
                record.games += 1;
                let points = head_to_head_points(game.ranks[seat_a], game.ranks[seat_b]);
                self.units[cell].add(game.pair_id, points);
                count_points(
                    points,
                    &mut record.wins,
                    &mut record.draws,
                    &mut record.losses,
                );
            }
        }
    }

    fn finish(&self) -> PairwiseTable {
        let mut table = self.table.clone();
        for (record, units) in table.records.iter_mut().zip(&self.units) {
            record.finish(&units.sums());
        }
        table
    }
}

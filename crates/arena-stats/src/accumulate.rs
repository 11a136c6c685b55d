//! Streaming statistics: everything the batch functions compute from a
//! [`GameLog`](crate::GameLog), kept up to date game by game in memory that does not grow with
//! the number of games, so that a tournament of a million games can report at any moment without
//! holding its games.
//!
//! Exactness. Summaries, the pairwise table, the sequential ratings and the SPRT counts go through
//! the same per-game update as the batch functions (see [`crate::game`]'s `Tally`), so they are
//! bit-identical to the batch results on the same games in the same order. The global fit is
//! order-invariant but needs the games themselves; it runs on a sample of whole units (below),
//! which is every unit, and then the result is identical to [`global_fit`], until there are
//! more than [`StatsConfig::fit_sample_units`].
//!
//! Fit sample. A unit is every game of one `pair_id` (or a game without one), as in the
//! bootstrap. Units are reservoir-sampled (Algorithm R, a `Pcg64Mcg` seeded from `fit.seed`)
//! when their first game arrives; the kept units' later games are added to them, and the later
//! games of a unit not kept are dropped, so the sample only ever holds whole units whichever
//! way a unit's games are spread over the stream. Recognizing "first game" needs the set of
//! pair ids seen, kept as ranges of consecutive ids: one range when ids are handed out in
//! increasing order (as a schedule's seed index is), one per id in the worst case.
//!
//! [`global_fit`]: crate::fit::global_fit

use std::collections::{BTreeMap, HashMap};

use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;
use skillratings::trueskill::TrueSkillConfig;
use skillratings::weng_lin::WengLinConfig;

use crate::fit::{FitConfig, FitGame, FitModel, GlobalFit, global_fit_of, uniform_index};
use crate::game::{GameResult, InputError, Tally};
use crate::histogram::{Histogram, ScoreHistogram};
use crate::pairwise::{PairwiseTable, PairwiseTally};
use crate::sequential::{EloConfig, EloRatings, EloTally, SkillRatings, SkillTally};
use crate::sprt::{SequentialSprt, SprtReport, SprtSetup};
use crate::summary::{BotSummary, SummaryTally};

/// Settings of an [`Accumulator`].
#[derive(Clone, Copy, Debug)]
pub struct StatsConfig {
    pub trueskill: TrueSkillConfig,
    pub weng_lin: WengLinConfig,
    pub elo: EloConfig,
    pub fit: FitConfig,
    /// Units (a `pair_id`'s games, or a lone game) kept for the global fit; reservoir-sampled
    /// with a `Pcg64Mcg` seeded from `fit.seed` once there are more.
    pub fit_sample_units: usize,
    pub sprt: Option<SprtSetup>,
    /// Histogram bins per bot once its scores are too varied to count exactly.
    pub score_bins: usize,
}

impl Default for StatsConfig {
    fn default() -> Self {
        Self {
            trueskill: TrueSkillConfig::new(),
            weng_lin: WengLinConfig::new(),
            elo: EloConfig::default(),
            fit: FitConfig::default(),
            fit_sample_units: 20_000,
            sprt: None,
            score_bins: 20,
        }
    }
}

/// How much of the stream the global fit saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitSample {
    /// Units in the sample the fit ran on.
    pub units_used: u64,
    /// Units seen (games with fewer than two seats play no part in the fit and are not counted).
    pub units_seen: u64,
    /// Games in the sample.
    pub games_used: u64,
}

impl FitSample {
    /// Whether the fit ran on part of the units only.
    pub fn sampled(&self) -> bool {
        self.units_used < self.units_seen
    }
}

/// Everything the accumulator knows. It does not serialise itself: `summary.json` has its own
/// types (arena-formats), filled in from this by arena-tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct StatsReport {
    pub bots: Vec<String>,
    pub games: u64,
    pub summaries: Vec<BotSummary>,
    pub pairwise: PairwiseTable,
    pub trueskill: SkillRatings,
    pub weng_lin: SkillRatings,
    pub elo_2014: EloRatings,
    /// The fit, or why there is none.
    pub global_fit: Result<GlobalFit, String>,
    pub fit_sample: FitSample,
    pub sprt: Option<SprtReport>,
    /// One per bot, in bot order.
    pub score_histograms: Vec<Histogram>,
}

/// What an accumulator holds, for checking that memory stays bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    pub sample_units: usize,
    pub sample_games: usize,
    /// Ranges of consecutive pair ids remembered as seen.
    pub seen_id_ranges: usize,
    /// Units the SPRT holds open (incomplete).
    pub sprt_ids: usize,
}

/// Streaming statistics over games fed in play order; see the module docs.
///
/// Memory: O(bots² + bots × (seats + fault kinds + histogram bins)) for the counts, plus the fit
/// sample (at most `fit_sample_units` units), the seen pair-id ranges, and with an SPRT its open
/// (incomplete) units.
#[derive(Clone, Debug)]
pub struct Accumulator {
    bot_names: Vec<String>,
    config: StatsConfig,
    games: u64,
    max_seats: usize,
    summary: SummaryTally,
    pairwise: PairwiseTally,
    trueskill: SkillTally<TrueSkillConfig>,
    weng_lin: SkillTally<WengLinConfig>,
    elo: EloTally,
    sample: FitSampler,
    sprt: Option<SequentialSprt>,
    sprt_held: bool,
    histograms: Vec<ScoreHistogram>,
}

impl Accumulator {
    pub fn new(bot_names: Vec<String>, config: StatsConfig) -> Self {
        let bot_count = bot_names.len();
        Self {
            summary: SummaryTally::new(&bot_names),
            pairwise: PairwiseTally::new(bot_count),
            trueskill: SkillTally::new(bot_count, config.trueskill),
            weng_lin: SkillTally::new(bot_count, config.weng_lin),
            elo: EloTally::new(bot_count, config.elo),
            sample: FitSampler::new(config.fit_sample_units, config.fit.seed),
            sprt: config.sprt.map(SequentialSprt::new),
            sprt_held: false,
            histograms: vec![ScoreHistogram::new(config.score_bins); bot_count],
            bot_names,
            config,
            games: 0,
            max_seats: 0,
        }
    }

    /// Adds the next game. Games must come in a fixed order (the tournament feeds them in
    /// schedule-index order) for the sequential ratings and the fit sample to be reproducible.
    ///
    /// The game is checked as [`crate::GameLog::new`] checks it (its index in the error is its
    /// position in the stream); a rejected game changes nothing.
    pub fn add(&mut self, game: &GameResult) -> Result<(), InputError> {
        let index = usize::try_from(self.games).unwrap_or(usize::MAX);
        game.check(index, self.bot_names.len())?;
        self.trueskill.add(game);
        self.add_checked_but_trueskill(game, false);
        Ok(())
    }

    /// Adds the next games in order, exactly as [`Accumulator::add`] on each would (with
    /// [`Accumulator::hold_sprt`] first where `gap_before` is true), but the TrueSkill tally, the
    /// costliest, runs on a second thread meanwhile. For long journals: worth it from a few
    /// hundred games per call. Stops at the first rejected game, which changes nothing; the games
    /// before it are added.
    pub fn add_batch(
        &mut self,
        games: &[GameResult],
        gap_before: &[bool],
    ) -> Result<(), InputError> {
        let first = usize::try_from(self.games).unwrap_or(usize::MAX);
        let mut accepted = games.len();
        let mut rejected = None;
        for (offset, game) in games.iter().enumerate() {
            if let Err(error) = game.check(first.saturating_add(offset), self.bot_names.len()) {
                accepted = offset;
                rejected = Some(error);
                break;
            }
        }
        let games = &games[..accepted];
        // Out of `self` for the batch, so that the two threads hold disjoint parts.
        let placeholder = SkillTally::new(0, self.config.trueskill);
        let mut trueskill = std::mem::replace(&mut self.trueskill, placeholder);
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| {
                for game in games {
                    trueskill.add(game);
                }
            });
            for (offset, game) in games.iter().enumerate() {
                self.add_checked_but_trueskill(game, gap_before.get(offset).copied() == Some(true));
            }
            // A panic there would be a bug in the tally; it is passed on as one.
            if let Err(panic) = helper.join() {
                std::panic::resume_unwind(panic);
            }
        });
        self.trueskill = trueskill;
        rejected.map_or(Ok(()), Err)
    }

    /// Every tally but TrueSkill's, for a game that passed the checks.
    fn add_checked_but_trueskill(&mut self, game: &GameResult, gap_before: bool) {
        if gap_before {
            self.hold_sprt();
        }
        self.games += 1;
        self.max_seats = self.max_seats.max(game.seat_count());
        self.summary.add(game);
        self.pairwise.add(game);
        self.weng_lin.add(game);
        self.elo.add(game);
        self.sample.add(game);
        if let Some(sprt) = &mut self.sprt {
            if self.sprt_held {
                sprt.skip(game);
            } else {
                sprt.add(game);
            }
        }
        for (&bot, &score) in game.players.iter().zip(&game.scores) {
            self.histograms[bot].add(score);
        }
    }

    /// Stops feeding the sequential test: later games count everywhere else but are reported as
    /// uncounted by the test. For a reader that finds a game missing from a schedule-ordered
    /// journal: the test may only see games in order.
    pub fn hold_sprt(&mut self) {
        self.sprt_held = true;
    }

    /// Games added so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// SPRT status from the games so far; `None` without an SPRT setup. O(1).
    pub fn sprt(&self) -> Option<SprtReport> {
        self.sprt.as_ref().map(SequentialSprt::report)
    }

    /// Every statistic over the games so far. Runs the global fit (with its bootstrap) on the
    /// sample, which is the expensive part; the rest is O(bots²).
    pub fn report(&self) -> StatsReport {
        StatsReport {
            bots: self.bot_names.clone(),
            games: self.games,
            summaries: self.summary.finish(),
            pairwise: self.pairwise.finish(),
            trueskill: self.trueskill.finish(),
            weng_lin: self.weng_lin.finish(),
            elo_2014: self.elo.finish(),
            global_fit: global_fit_of(
                self.bot_names.len(),
                self.sample.games(),
                FitModel::for_max_seats(self.max_seats),
                &self.config.fit,
            )
            .map_err(|error| error.to_string()),
            fit_sample: self.sample.summary(),
            sprt: self.sprt(),
            score_histograms: self.histograms.iter().map(ScoreHistogram::finish).collect(),
        }
    }

    pub fn footprint(&self) -> Footprint {
        Footprint {
            sample_units: self.sample.units.len(),
            sample_games: self.sample.units.iter().map(|unit| unit.seats.len()).sum(),
            seen_id_ranges: self.sample.seen_ids.ranges.len(),
            sprt_ids: self.sprt.as_ref().map_or(0, SequentialSprt::open_units),
        }
    }
}

/// One unit's games as the fit reads them, packed: game g has `seats[g]` seats, whose bots and
/// ranks follow those of the games before it in `players` and `ranks`.
#[derive(Clone, Debug)]
struct StoredUnit {
    pair_id: Option<u64>,
    seats: Vec<u32>,
    players: Vec<usize>,
    ranks: Vec<u32>,
}

impl StoredUnit {
    fn new(pair_id: Option<u64>) -> Self {
        Self {
            pair_id,
            seats: Vec::new(),
            players: Vec::new(),
            ranks: Vec::new(),
        }
    }

    fn push(&mut self, game: &GameResult) {
        // Seat counts are far below u32::MAX in any real game; saturating keeps this total.
        self.seats
            .push(u32::try_from(game.seat_count()).unwrap_or(u32::MAX));
        self.players.extend_from_slice(&game.players);
        self.ranks.extend_from_slice(&game.ranks);
    }

    fn games(&self) -> impl Iterator<Item = FitGame<'_>> {
        let mut start = 0;
        self.seats.iter().map(move |&seats| {
            let range = start..start + seats as usize;
            start = range.end;
            FitGame {
                pair_id: self.pair_id,
                players: &self.players[range.clone()],
                ranks: &self.ranks[range],
            }
        })
    }
}

/// Reservoir of whole units for the global fit (see the module docs).
#[derive(Clone, Debug)]
struct FitSampler {
    capacity: usize,
    rng: Pcg64Mcg,
    units_seen: u64,
    units: Vec<StoredUnit>,
    /// Slot in `units` of each kept unit that has a pair id.
    slot_of: HashMap<u64, usize>,
    seen_ids: IdRanges,
}

impl FitSampler {
    fn new(capacity: usize, seed: u64) -> Self {
        Self {
            capacity,
            rng: Pcg64Mcg::seed_from_u64(seed),
            units_seen: 0,
            units: Vec::new(),
            slot_of: HashMap::new(),
            seen_ids: IdRanges::default(),
        }
    }

    fn add(&mut self, game: &GameResult) {
        // The fit ignores games with fewer than two seats; so does the sample and its count.
        if game.seat_count() < 2 {
            return;
        }
        if let Some(id) = game.pair_id {
            if let Some(&slot) = self.slot_of.get(&id) {
                self.units[slot].push(game);
                return;
            }
            if !self.seen_ids.insert(id) {
                // A later game of a unit that was not kept (or was evicted): drop it, so the
                // sample never holds part of a unit.
                return;
            }
        }
        self.units_seen += 1;
        let slot = if self.units.len() < self.capacity {
            self.units.push(StoredUnit::new(game.pair_id));
            self.units.len() - 1
        } else {
            // Algorithm R: the n-th unit replaces a random kept one with probability k/n.
            let bound = usize::try_from(self.units_seen).unwrap_or(usize::MAX);
            let draw = uniform_index(&mut self.rng, bound);
            if draw >= self.capacity {
                return;
            }
            if let Some(evicted) = self.units[draw].pair_id {
                self.slot_of.remove(&evicted);
            }
            self.units[draw] = StoredUnit::new(game.pair_id);
            draw
        };
        if let Some(id) = game.pair_id {
            self.slot_of.insert(id, slot);
        }
        self.units[slot].push(game);
    }

    fn games(&self) -> impl Iterator<Item = FitGame<'_>> {
        self.units.iter().flat_map(StoredUnit::games)
    }

    fn summary(&self) -> FitSample {
        FitSample {
            units_used: self.units.len() as u64,
            units_seen: self.units_seen,
            games_used: self.units.iter().map(|unit| unit.seats.len() as u64).sum(),
        }
    }
}

/// A set of u64 ids stored as disjoint ranges of consecutive ids (start → inclusive end), so that
/// ids handed out in order cost one entry in total.
#[derive(Clone, Debug, Default)]
struct IdRanges {
    ranges: BTreeMap<u64, u64>,
}

impl IdRanges {
    /// Adds `id`; false if it was already present.
    fn insert(&mut self, id: u64) -> bool {
        let before = self
            .ranges
            .range(..=id)
            .next_back()
            .map(|(&start, &end)| (start, end));
        if before.is_some_and(|(_, end)| end >= id) {
            return false;
        }
        let start = match before {
            Some((start, end)) if end.checked_add(1) == Some(id) => start,
            _ => id,
        };
        let end = match id.checked_add(1).and_then(|next| self.ranges.remove(&next)) {
            Some(end) => end,
            None => id,
        };
        self.ranges.insert(start, end);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::IdRanges;

    #[test]
    fn id_ranges_merge_neighbours() {
        let mut ids = IdRanges::default();
        for id in [5, 7, 6, 0, u64::MAX, 1, 3] {
            assert!(ids.insert(id), "{id} is new");
        }
        for id in [5, 6, 7, 0, 1, 3, u64::MAX] {
            assert!(!ids.insert(id), "{id} is known");
        }
        let ranges: Vec<(u64, u64)> = ids.ranges.iter().map(|(&s, &e)| (s, e)).collect();
        assert_eq!(ranges, vec![(0, 1), (3, 3), (5, 7), (u64::MAX, u64::MAX)]);
        assert!(ids.insert(2));
        assert_eq!(ids.ranges.len(), 3);
    }
}

//! arena-stats: statistics and ratings over finished games. Pure and deterministic: no I/O, no
//! printing, no global randomness (the bootstrap takes an explicit seed).
//!
//! Start from a [`GameLog`] (bot names plus [`GameResult`]s in play order, checked once), then:
//! - [`summarize`]: per bot W/D/L, Wilson win rate, mean score (Student t), mean rank, per-seat
//!   results, faults by kind;
//! - [`pairwise()`]: head-to-head score of every ordered pair with Wilson interval and likelihood of
//!   superiority;
//! - [`trueskill_ratings`], [`weng_lin_ratings`]: `skillratings` updates in play order (1v1 for
//!   two seats, free-for-all by rank for more);
//! - [`elo_2014_ratings`]: the 2014 contests' 4-player Elo;
//! - [`global_fit`]: order-invariant Bradley–Terry / Plackett–Luce with bootstrap intervals;
//! - [`sprt_trinomial`], [`sprt_pentanomial`] with [`trinomial_results`], [`paired_results`]:
//!   sequential test between two bots.
//!
//! Or stream games into an [`Accumulator`], which keeps all of the above up to date in memory
//! that does not grow with the number of games (the global fit runs on a seeded sample of whole
//! units once there are too many) and reports a serializable [`StatsReport`].
//!
//! Every function accepts an empty log or a single bot and returns empty or `None` fields
//! rather than panicking.

pub mod accumulate;
pub mod fit;
pub mod game;
pub mod histogram;
pub mod interval;
pub mod pairwise;
pub mod sequential;
pub mod sprt;
pub mod summary;
mod trueskill_ffa;
mod weng_lin_ffa;

pub use accumulate::{Accumulator, FitSample, Footprint, StatsConfig, StatsReport};
pub use fit::{
    BotFit, FitConfig, FitError, FitModel, GlobalFit, Unbounded, fit_ratings, global_fit,
};
pub use game::{GameLog, GameResult, InputError, SeatOutcome};
pub use histogram::{EXACT_VALUES, Histogram, HistogramBin};
pub use interval::{
    CONFIDENCE, Interval, Moments, UnitSums, mean_interval, mean_interval_from_moments, normal_cdf,
    normal_quantile, quantile_sorted, wilson,
};
pub use pairwise::{PairRecord, PairwiseTable, likelihood_of_superiority, pairwise};
pub use sequential::{
    EloConfig, EloRatings, SkillRating, SkillRatings, elo_2014_changes, elo_2014_ratings,
    trueskill_ratings, weng_lin_ratings,
};
/// The rating crate whose configs ([`skillratings::trueskill::TrueSkillConfig`],
/// [`skillratings::weng_lin::WengLinConfig`]) the sequential ratings take.
pub use skillratings;
pub use sprt::{
    PairedResults, Pentanomial, SequentialSprt, SprtConfig, SprtDecision, SprtError, SprtReport,
    SprtSetup, SprtStatus, SprtUnit, SprtVerdict, Trinomial, llr_pentanomial, llr_trinomial,
    llr_units, paired_results, sequential_sprt, sprt_bounds, sprt_pentanomial, sprt_status,
    sprt_trinomial, trinomial_results,
};
pub use summary::{BotSummary, SeatSummary, summarize};

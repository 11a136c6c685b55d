//! `summary.json`: a run's statistics, rewritten from the journal after every run. These are the
//! file's own types: the statistics crate's types do not serialise themselves, and arena-tournament
//! fills these in from them (`summary_file`).
//!
//! The file carries no version of its own: it is made again from the journal (which the folder's
//! plan versions), and a reader that cannot read it computes the run's summary from the journal.

use std::collections::BTreeMap;

use arena_game::ClockKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plan::{Schedule, SprtSettings};

/// The whole of `summary.json`. arena writes it with its keys in alphabetical order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Summary {
    /// The game's id, as `arena list` names it.
    #[schemars(regex(pattern = "^[a-z][a-z0-9]*$"))]
    pub game: String,
    pub variant: Option<String>,
    #[serde(with = "arena_game::seed::as_text")]
    #[schemars(with = "arena_game::seed::SeedText")]
    pub seed: u64,
    pub schedule: Schedule,
    /// The statistics of the journal, bots in the order of tournament.json.
    pub stats: Stats,
    /// The run's statistics as every view shows them (absent from summaries written before it
    /// existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunSummary>,
    pub timing: Timing,
}

/// The schema of fault counts by kind: a fault kind's name, and a count of at least 1.
fn fault_counts(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let kind = generator.subschema_for::<arena_game::FaultKind>();
    schemars::json_schema!({
        "type": "object",
        "propertyNames": kind,
        "additionalProperties": { "type": "integer", "minimum": 1 }
    })
}

/// A point estimate with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

/// Every statistic of the run, bots referred to by their index in `bots`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Stats {
    pub bots: Vec<String>,
    pub games: u64,
    pub summaries: Vec<BotStats>,
    pub pairwise: Pairwise,
    pub trueskill: SkillRatings,
    pub weng_lin: SkillRatings,
    pub elo_2014: EloRatings,
    /// The order-invariant fit (Bradley-Terry or Plackett-Luce), or why there is none.
    pub global_fit: FitOrError,
    pub fit_sample: FitSample,
    /// The sequential test, when the tournament has one; `sprt.decision` is its verdict once
    /// decided.
    pub sprt: Option<Sprt>,
    /// One per bot, in bot order.
    pub score_histograms: Vec<Histogram>,
}

/// One bot's own results. Counts are per seat taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BotStats {
    pub bot: usize,
    pub name: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points per game (a shared first place ½) with its Wilson interval.
    pub score_rate: Option<Interval>,
    /// Independent units (seeds) the intervals rest on.
    pub units: u64,
    /// Mean score with its Student-t interval (from 2 units).
    pub score: Option<Interval>,
    pub mean_score: Option<f64>,
    pub mean_rank: Option<f64>,
    /// Results by seat index.
    pub seats: Vec<SeatStats>,
    /// Fault occurrences by kind (a kind that never happened is left out).
    #[schemars(schema_with = "fault_counts")]
    pub faults: BTreeMap<String, u64>,
}

/// One bot's results in one seat index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SeatStats {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub mean_score: Option<f64>,
}

/// Row bot against column bot, `records[row * bot_count + column]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Pairwise {
    pub bot_count: usize,
    pub records: Vec<PairStats>,
}

/// One bot against another, from the row bot's side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PairStats {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Share of points (a draw half) with its Wilson interval.
    pub score: Option<Interval>,
    /// Units (seeds) in which the two met.
    pub units: u64,
    /// Likelihood of superiority.
    pub los: Option<f64>,
}

/// A Bayesian skill estimate: mean μ, uncertainty σ, and μ − 3σ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SkillRating {
    pub mean: f64,
    pub uncertainty: f64,
    pub conservative: f64,
}

/// TrueSkill or Weng-Lin ratings, one per bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SkillRatings {
    pub ratings: Vec<SkillRating>,
    pub games_rated: u64,
    pub games_skipped: u64,
}

/// The 2014 contests' Elo, one per bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct EloRatings {
    pub ratings: Vec<f64>,
    pub games_rated: u64,
}

/// The global fit, or why there is none (`{"error": WHY}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FitOrError {
    Fit(GlobalFit),
    Error { error: String },
}

/// Which model the fit used: Bradley-Terry when no game had more than two seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FitModel {
    BradleyTerry,
    PlackettLuce,
}

/// The order-invariant fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GlobalFit {
    pub model: FitModel,
    pub bots: Vec<BotFit>,
    pub iterations: usize,
    pub converged: bool,
    pub resamples_used: usize,
}

/// One bot in the global fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BotFit {
    pub bot: usize,
    /// Fitted rating (Elo-like scale, mean 0 over bots).
    pub rating: f64,
    /// 1 = best.
    #[schemars(range(min = 1))]
    pub rank: u32,
    /// Bootstrap 2.5 % and 97.5 % percentiles around `rating`.
    pub rating_interval: Option<Interval>,
    /// Bootstrap percentiles of the rank, rounded outward.
    pub rank_interval: Option<(u32, u32)>,
    /// Set when the games cannot bound this bot's rating on one side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbounded: Option<Unbounded>,
    /// For an unbounded bot, the finite end of its 95 % profile-likelihood interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_bound: Option<f64>,
}

/// Which side of a rating the games leave open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unbounded {
    Above,
    Below,
    Both,
}

/// How much of the run the global fit saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FitSample {
    pub units_used: u64,
    pub units_seen: u64,
    pub games_used: u64,
}

/// The sequential test's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Sprt {
    pub setup: SprtSetup,
    pub unit: SprtUnit,
    /// `counts[h]`: complete units in which the first bot scored h half-points.
    pub counts: Vec<u64>,
    pub units: u64,
    /// The first bot's games inside the counted units.
    pub games: Trinomial,
    pub uncounted_games: u64,
    /// The test's state, or why it cannot be evaluated.
    pub status: Result<SprtStatus, SprtProblem>,
    /// Set once a bound was reached.
    pub decision: Option<SprtDecision>,
    /// The fewest units after which any verdict was possible.
    pub min_units: u64,
}

/// The test: its settings and the two bots (indices into `stats.bots`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SprtSetup {
    pub config: SprtSettings,
    pub a: usize,
    pub b: usize,
    /// Games that make one unit.
    pub unit_games: u32,
}

/// What a unit of the test is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SprtUnit {
    Game,
    Pair,
    SeedGroup,
}

/// Wins, draws and losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Trinomial {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Where the test stands.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub verdict: SprtVerdict,
}

/// Why a test cannot be evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SprtProblem {
    BadErrorRates,
    BadHypotheses,
}

/// The test's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SprtVerdict {
    /// Neither bound reached: play more games.
    Continue,
    /// The first bot is not elo1 stronger (H0 holds).
    AcceptH0,
    /// The first bot is elo1 stronger (H1 holds).
    AcceptH1,
}

/// Where the test stopped.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SprtDecision {
    pub verdict: SprtVerdict,
    pub units: u64,
    pub pair_id: Option<u64>,
}

/// The distribution of one bot's scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Histogram {
    pub count: u64,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Whether every bin is one distinct score.
    pub exact: bool,
    pub bins: Vec<HistogramBin>,
}

/// Scores in `[low, high)` (the last bin also holds `high`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct HistogramBin {
    pub low: f64,
    pub high: f64,
    pub count: u64,
}

/// Everything the views show about a run's results (the terminal, report.html, arena serve):
/// the figures in leaderboard order, each with the exact text printed for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RunSummary {
    /// Games counted: every line of the journal.
    pub games: u64,
    /// Two-sided confidence level of every interval here (0.95).
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    pub confidence: f64,
    /// Bootstrap resamples asked for the rating intervals.
    pub bootstrap: usize,
    /// What an independent unit of the intervals is, in words.
    pub units: String,
    /// One row per bot, in leaderboard order.
    pub bots: Vec<BotRow>,
    /// The rating model in words, or why there is no rating.
    pub rating_note: String,
    /// One sentence per bot whose rating the games leave open on one side.
    pub rating_bounds: Vec<String>,
    /// `pairwise[i][j]`: the bot of row `bots[i]` against the bot of `bots[j]` (leaderboard
    /// order both ways); null on the diagonal and for bots that never met.
    pub pairwise: Vec<Vec<Option<PairCell>>>,
    /// The sequential test, when the run has one.
    pub sprt: Option<SprtSummary>,
}

/// One bot's line of the leaderboard: the figures, and the text every view prints for them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BotRow {
    /// Index in `tournament.json`'s bots.
    pub bot: usize,
    pub name: String,
    /// 1 = best; tied bots share the better place.
    #[schemars(range(min = 1))]
    pub place: u32,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Independent units (seeds) the intervals rest on.
    pub units: u64,
    /// Points per game (a shared first place ½) with its Wilson interval.
    pub score_rate: Option<Interval>,
    pub mean_score: Option<f64>,
    /// Mean score with its Student-t interval (from 2 units).
    pub score: Option<Interval>,
    pub mean_rank: Option<f64>,
    /// This bot's entry of `stats.global_fit.bots`, or null without a fit.
    pub rating: Option<BotFit>,
    pub trueskill: Option<SkillRating>,
    pub weng_lin: Option<SkillRating>,
    pub elo_2014: Option<f64>,
    /// Fault occurrences by kind (a kind that never happened is left out).
    #[schemars(schema_with = "fault_counts")]
    pub faults: BTreeMap<String, u64>,
    pub text: BotText,
}

/// The printed form of a [`BotRow`]'s figures; `-` for a figure there is none of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BotText {
    /// `81.2% [66.3, 90.1]`.
    pub score_rate: String,
    /// `7.48 ± 2.05`.
    pub mean_score: String,
    /// `1.20`.
    pub mean_rank: String,
    /// `+323 [+257, +430]`.
    pub rating: String,
    /// `29.1 ± 1.2`.
    pub trueskill: String,
    pub weng_lin: String,
    /// `1719`.
    pub elo_2014: String,
    /// `timeout 3, crashed 1`.
    pub faults: String,
}

/// One bot's results against another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PairCell {
    #[schemars(range(min = 1))]
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Share of points (a draw half) with its Wilson interval.
    pub score: Option<Interval>,
    /// Likelihood of superiority.
    pub los: Option<f64>,
    /// The score in percent with its half-width, `84±13`.
    pub text: String,
    /// `LOS 97%`, or empty without decisive games.
    pub los_text: String,
}

/// The sequential test's state, from the first bot's side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SprtSummary {
    pub a: String,
    pub b: String,
    /// Null when the test could not be evaluated (`text` says why).
    pub verdict: Option<SprtVerdict>,
    pub llr: Option<f64>,
    /// Units counted.
    pub units: u64,
    /// Whether a bound was reached (the run stopped there).
    pub decided: bool,
    /// `H1 accepted: a is stronger than b by about elo1 or more`.
    pub verdict_text: String,
    /// The whole statement as printed, one or more lines (each ending in a newline).
    pub text: String,
}

/// Answer times of every bot with process games, and the warning about timeouts on a busy
/// machine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Timing {
    /// The clock time limits were judged on.
    pub clock: ClockKind,
    /// Bots with process games: their answer times over the tournament.
    pub bots: Vec<BotTiming>,
    pub machine: MachineLoad,
    /// Present when timeouts happened while the machine was busy, with what to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// One bot's answer times over the tournament (its process games).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BotTiming {
    pub bot: String,
    pub answers: u64,
    pub wall_mean_ms: Option<f64>,
    pub wall_max_ms: Option<f64>,
    /// Over the answers whose CPU time was measured.
    pub cpu_mean_ms: Option<f64>,
    pub cpu_max_ms: Option<f64>,
    pub timeouts: u64,
    /// Timeouts whose answer got less than half its wall time as CPU time.
    pub starved_timeouts: u64,
}

/// What the machine was like while the games ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct MachineLoad {
    #[schemars(range(min = 1))]
    pub cores: usize,
    /// The highest 1-minute load average seen during the run (null: not sampled, e.g. a
    /// report made again later).
    pub max_load: Option<f64>,
}

impl MachineLoad {
    pub fn busy(&self) -> bool {
        self.max_load.is_some_and(|load| load > self.cores as f64)
    }
}

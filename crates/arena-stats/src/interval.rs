//! Confidence intervals and the normal distribution helpers they need.

use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::function::erf::{erfc, erfc_inv};

/// Two-sided confidence level used throughout the crate.
pub const CONFIDENCE: f64 = 0.95;

/// A point estimate with a confidence interval. Analytic intervals here always satisfy
/// `low <= estimate <= high`; a bootstrap percentile interval usually does but need not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

/// Standard normal cumulative distribution function Φ(x).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Standard normal quantile Φ⁻¹(p) for p in (0, 1).
pub fn normal_quantile(p: f64) -> f64 {
    -std::f64::consts::SQRT_2 * erfc_inv(2.0 * p)
}

/// z such that a standard normal lies in [-z, z] with probability [`CONFIDENCE`] (≈ 1.959964).
pub fn two_sided_z() -> f64 {
    normal_quantile(0.5 + CONFIDENCE / 2.0)
}

/// Wilson score interval at [`CONFIDENCE`] for `successes` out of `trials`.
///
/// `successes` may be fractional (draws counted as half a success, as in score rates); the
/// interval then treats the score rate as a binomial proportion, the usual approximation.
/// Returns `None` when there are no trials. Formula, with p = successes/trials, n = trials:
/// centre = (p + z²/2n) / (1 + z²/n), half-width = z/(1 + z²/n) · sqrt(p(1-p)/n + z²/4n²).
pub fn wilson(successes: f64, trials: f64) -> Option<Interval> {
    if trials.is_nan() || trials <= 0.0 || !successes.is_finite() {
        return None;
    }
    let p = (successes / trials).clamp(0.0, 1.0);
    let z = two_sided_z();
    let z2 = z * z;
    let denominator = 1.0 + z2 / trials;
    let centre = (p + z2 / (2.0 * trials)) / denominator;
    let half_width =
        z / denominator * (p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)).sqrt();
    // Clamping only removes rounding residue: mathematically the interval lies in [0, 1] and
    // contains p, but at p = 0 or 1 the two sides can miss by one ulp.
    Some(Interval {
        estimate: p,
        low: (centre - half_width).clamp(0.0, p),
        high: (centre + half_width).clamp(p, 1.0),
    })
}

/// Running count, mean and sum of squared deviations of a stream of values (Welford's update).
///
/// Both [`mean_interval`] and the streaming accumulator go through this one update, so a batch
/// of values and the same values fed one by one give bit-identical intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    pub count: u64,
    pub mean: f64,
    /// Σ (x − mean)², kept instead of the variance because it updates without division.
    pub squared_deviations: f64,
}

impl Moments {
    pub fn push(&mut self, value: f64) {
        self.count += 1;
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.squared_deviations += delta * (value - self.mean);
    }

    /// Sample variance (n − 1 denominator); `None` for fewer than two values.
    pub fn variance(&self) -> Option<f64> {
        (self.count >= 2).then(|| self.squared_deviations / (self.count - 1) as f64)
    }

    /// The Student-t interval of the mean (see [`mean_interval_from_moments`]).
    pub fn interval(&self) -> Option<Interval> {
        mean_interval_from_moments(self.count, self.mean, self.variance()?)
    }
}

/// Sample mean with its Student-t interval at [`CONFIDENCE`]:
/// mean ± t(0.975, n-1) · s/√n, with s the sample standard deviation (n-1 denominator).
///
/// The t quantile (rather than the normal 1.96) keeps short runs honest. Returns `None` for fewer
/// than two values, where no spread can be estimated. Mean and variance come from [`Moments`]
/// (Welford), the same update the streaming accumulator uses.
pub fn mean_interval(values: &[f64]) -> Option<Interval> {
    let mut moments = Moments::default();
    values.iter().for_each(|&value| moments.push(value));
    moments.interval()
}

/// The interval of [`mean_interval`] from precomputed moments: `count` values with this `mean`
/// and sample `variance` (n − 1 denominator). `None` for fewer than two values or a variance that
/// is negative or not finite.
pub fn mean_interval_from_moments(count: u64, mean: f64, variance: f64) -> Option<Interval> {
    if count < 2 || !(variance >= 0.0 && variance.is_finite()) || !mean.is_finite() {
        return None;
    }
    let n = count as f64;
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .map(|t| t.inverse_cdf(0.5 + CONFIDENCE / 2.0))
        .unwrap_or_else(|_| two_sided_z());
    let half_width = t * (variance / n).sqrt();
    Some(Interval {
        estimate: mean,
        low: mean - half_width,
        high: mean + half_width,
    })
}

/// Quantile of sorted values by linear interpolation between order statistics (Hyndman–Fan
/// type 7, the default of R and NumPy): position q·(n-1). `None` when empty.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q.clamp(0.0, 1.0) * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let fraction = position - below as f64;
    Some(sorted[below] + fraction * (sorted[above] - sorted[below]))
}

/// Sums over independent *units* (a seed's games: a seat-swapped pair, a 4-player seed group, or
/// a single game when games are not paired) of a per-game quantity, for estimates of a mean per
/// game whose spread is measured between units, not between games: games of one seed share its
/// luck, so treating them as independent misstates the error (by a factor of 0.8 to 1.3 on real
/// journals).
///
/// Unit j has m_j games and total v_j; the estimate is the ratio R = Σv / Σm and its variance the
/// usual cluster (linearization) estimate n/(n−1) · Σ(v_j − R m_j)² / (Σm)².
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnitSums {
    pub units: u64,
    pub games: f64,
    pub total: f64,
    total_sq: f64,
    cross: f64,
    games_sq: f64,
}

impl UnitSums {
    /// Adds one unit of `games` games whose values add up to `total`.
    pub fn push_unit(&mut self, total: f64, games: f64) {
        self.units += 1;
        self.games += games;
        self.total += total;
        self.total_sq += total * total;
        self.cross += total * games;
        self.games_sq += games * games;
    }

    /// Σv / Σm; `None` without games.
    pub fn ratio(&self) -> Option<f64> {
        (self.games > 0.0).then(|| self.total / self.games)
    }

    /// Variance of [`Self::ratio`] between units; `None` with fewer than two units.
    pub fn ratio_variance(&self) -> Option<f64> {
        if self.units < 2 {
            return None;
        }
        let ratio = self.ratio()?;
        let n = self.units as f64;
        let spread = self.total_sq - 2.0 * ratio * self.cross + ratio * ratio * self.games_sq;
        Some(n / (n - 1.0) * spread.max(0.0) / (self.games * self.games))
    }

    /// The mean per game with a Student-t interval on n − 1 degrees of freedom (n units).
    pub fn mean_interval(&self) -> Option<Interval> {
        let ratio = self.ratio()?;
        let variance = self.ratio_variance()?;
        let n = self.units;
        // mean_interval_from_moments divides the variance by n; hand it n·Var(R).
        mean_interval_from_moments(n, ratio, variance * n as f64)
    }

    /// A rate in [0, 1] (points per game) with a Wilson interval whose sample size is the
    /// effective number of independent games, n_eff = p(1−p) / Var(p) from the units, kept
    /// between the number of units (games of a unit counted as one trial) and the number of
    /// games (pairing never claims more than independent games would). When every unit scored
    /// all or nothing (p = 0 or 1) n_eff is the number of units.
    pub fn rate_interval(&self) -> Option<Interval> {
        let rate = self.ratio()?.clamp(0.0, 1.0);
        let units = self.units as f64;
        let effective = match self.ratio_variance() {
            Some(variance) if rate > 0.0 && rate < 1.0 && variance > 0.0 => {
                (rate * (1.0 - rate) / variance).clamp(units, self.games)
            }
            Some(_) if rate > 0.0 && rate < 1.0 => self.games,
            _ => units,
        };
        wilson(rate * effective, effective).map(|interval| Interval {
            estimate: rate,
            ..interval
        })
    }
}

/// [`UnitSums`] fed game by game: units are runs of consecutive games that share a pair id (a
/// schedule lists a seed's games together); a game without an id is a unit of its own. The unit
/// being filled is kept open until a game of another unit arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct UnitTally {
    closed: UnitSums,
    open_id: Option<u64>,
    open_games: u32,
    open_total: f64,
}

impl UnitTally {
    /// Adds a game of unit `id` worth `value`.
    pub(crate) fn add(&mut self, id: Option<u64>, value: f64) {
        if self.open_games > 0 && (id.is_none() || id != self.open_id) {
            self.close();
        }
        self.open_id = id;
        self.open_games += 1;
        self.open_total += value;
    }

    fn close(&mut self) {
        if self.open_games > 0 {
            self.closed
                .push_unit(self.open_total, f64::from(self.open_games));
        }
        self.open_id = None;
        self.open_games = 0;
        self.open_total = 0.0;
    }

    /// The sums over every game so far, the open unit counted as complete.
    pub(crate) fn sums(&self) -> UnitSums {
        let mut all = *self;
        all.close();
        all.closed
    }
}

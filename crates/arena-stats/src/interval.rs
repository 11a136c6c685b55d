//! Confidence intervals and the normal distribution helpers they need.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::function::erf::{erfc, erfc_inv};

/// Two-sided confidence level used throughout the crate.
pub const CONFIDENCE: f64 = 0.95;

/// A point estimate with a confidence interval. Analytic intervals here always satisfy
/// `low <= estimate <= high`; a bootstrap percentile interval usually does but need not.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
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

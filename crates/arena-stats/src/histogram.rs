//! Score distributions in bounded memory, for the report's histograms.
//!
//! Rule (deterministic, depends only on the scores and their order):
//! - while a bot has at most [`EXACT_VALUES`] distinct scores, every distinct score keeps its own
//!   exact count (most games score in small integers, and then the histogram is exact);
//! - at the first score beyond that, the histogram switches to `bins` equal bins spanning the
//!   smallest to the largest score seen so far, and pours the exact counts into them;
//! - a later score outside the bins' span doubles the bin width (merging neighbouring bins in
//!   pairs) toward that side until the score fits, so bins never move and counts are never split.
//!
//! The bins' upper edge is inclusive so that the largest score lands in the last bin.

/// Distinct scores counted exactly before falling back to bins.
pub const EXACT_VALUES: usize = 64;

/// One bar: scores in `[low, high)` (the last bin also holds `high`); `low == high` for an exact
/// count of one distinct score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistogramBin {
    pub low: f64,
    pub high: f64,
    pub count: u64,
}

/// Distribution of one bot's scores (one entry per seat taken).
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    pub count: u64,
    /// Smallest and largest score; `None` without games.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Whether every bin is one distinct score (see the module docs).
    pub exact: bool,
    /// Bins in increasing order of score.
    pub bins: Vec<HistogramBin>,
}

#[derive(Clone, Debug)]
enum Counts {
    /// Distinct scores in increasing order with their counts.
    Exact(Vec<(f64, u64)>),
    /// `counts[i]` holds scores in `[origin + i·width, origin + (i+1)·width)`.
    Binned {
        origin: f64,
        width: f64,
        counts: Vec<u64>,
    },
}

/// A [`Histogram`] being filled score by score.
#[derive(Clone, Debug)]
pub(crate) struct ScoreHistogram {
    bins: usize,
    count: u64,
    min: f64,
    max: f64,
    counts: Counts,
}

impl ScoreHistogram {
    /// `bins` is the bin count once the histogram stops being exact (at least 1).
    pub(crate) fn new(bins: usize) -> Self {
        Self {
            bins: bins.max(1),
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            counts: Counts::Exact(Vec::new()),
        }
    }

    /// Counts one finite score.
    pub(crate) fn add(&mut self, score: f64) {
        // −0.0 and 0.0 are one score; the total order used below would tell them apart.
        let score = score + 0.0;
        self.count += 1;
        self.min = self.min.min(score);
        self.max = self.max.max(score);
        match &mut self.counts {
            Counts::Exact(values) => {
                match values.binary_search_by(|(value, _)| value.total_cmp(&score)) {
                    Ok(index) => values[index].1 += 1,
                    Err(index) if values.len() < EXACT_VALUES => values.insert(index, (score, 1)),
                    Err(_) => self.switch_to_bins(score),
                }
            }
            Counts::Binned {
                origin,
                width,
                counts,
            } => {
                widen_to(origin, width, counts, score);
                let index = bin_index(*origin, *width, counts.len(), score);
                counts[index] += 1;
            }
        }
    }

    /// Leaves exact counting at a new distinct `score` (already in `min`/`max`, not yet counted).
    fn switch_to_bins(&mut self, score: f64) {
        let Counts::Exact(values) = &self.counts else {
            return;
        };
        let origin = self.min;
        // Positive: by now there are more than EXACT_VALUES distinct scores, so max > min.
        let width = (self.max - self.min) / self.bins as f64;
        let mut counts = vec![0; self.bins];
        for &(value, count) in values.iter().chain([(score, 1)].iter()) {
            counts[bin_index(origin, width, self.bins, value)] += count;
        }
        self.counts = Counts::Binned {
            origin,
            width,
            counts,
        };
    }

    pub(crate) fn finish(&self) -> Histogram {
        let (bins, exact) = match &self.counts {
            Counts::Exact(values) => (
                values
                    .iter()
                    .map(|&(value, count)| HistogramBin {
                        low: value,
                        high: value,
                        count,
                    })
                    .collect(),
                true,
            ),
            Counts::Binned {
                origin,
                width,
                counts,
            } => (
                counts
                    .iter()
                    .enumerate()
                    .map(|(index, &count)| HistogramBin {
                        low: origin + index as f64 * width,
                        high: origin + (index + 1) as f64 * width,
                        count,
                    })
                    .collect(),
                false,
            ),
        };
        Histogram {
            count: self.count,
            min: (self.count > 0).then_some(self.min),
            max: (self.count > 0).then_some(self.max),
            exact,
            bins,
        }
    }
}

/// Bin of `score` within the span; rounding at the edges is clamped into the first or last bin.
fn bin_index(origin: f64, width: f64, bins: usize, score: f64) -> usize {
    // `as` saturates (and maps NaN to 0), so extreme spans cannot index out of range.
    (((score - origin) / width).floor() as usize).min(bins - 1)
}

/// Doubles the bin width toward `score` until the span holds it. Each doubling merges bins in
/// pairs: growing upward keeps the origin (bin i → i/2); growing downward puts the old span in
/// the upper half (bin i → (i + bins)/2), so every old bin lies inside exactly one new bin.
fn widen_to(origin: &mut f64, width: &mut f64, counts: &mut [u64], score: f64) {
    let bins = counts.len();
    // A span that overflowed to infinity already holds every finite score: stop there.
    while (score < *origin || score > *origin + *width * bins as f64) && width.is_finite() {
        let downward = score < *origin;
        let mut merged = vec![0; bins];
        for (index, &count) in counts.iter().enumerate() {
            let target = if downward {
                (index + bins) / 2
            } else {
                index / 2
            };
            merged[target] += count;
        }
        counts.copy_from_slice(&merged);
        if downward {
            *origin -= *width * bins as f64;
        }
        *width *= 2.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integer_scores_stay_exact() {
        let mut histogram = ScoreHistogram::new(20);
        for score in [3.0, -0.0, 0.0, 3.0, 1.0] {
            histogram.add(score);
        }
        let result = histogram.finish();
        assert!(result.exact);
        let counts: Vec<(f64, u64)> = result.bins.iter().map(|b| (b.low, b.count)).collect();
        assert_eq!(counts, vec![(0.0, 2), (1.0, 1), (3.0, 2)]);
        assert_eq!((result.min, result.max), (Some(0.0), Some(3.0)));
    }

    #[test]
    fn many_distinct_scores_fall_back_to_bins_and_widen() {
        let mut histogram = ScoreHistogram::new(10);
        for step in 0..100 {
            histogram.add(f64::from(step));
        }
        histogram.add(1000.0);
        histogram.add(-500.0);
        let result = histogram.finish();
        assert!(!result.exact);
        assert_eq!(result.bins.len(), 10);
        assert_eq!(result.bins.iter().map(|b| b.count).sum::<u64>(), 102);
        assert!(result.bins[0].low <= -500.0 && result.bins[9].high >= 1000.0);
        for pair in result.bins.windows(2) {
            assert_eq!(pair[0].high, pair[1].low);
        }
    }

    #[test]
    fn empty_histogram_has_no_range() {
        let result = ScoreHistogram::new(0).finish();
        assert_eq!((result.count, result.min, result.max), (0, None, None));
        assert!(result.bins.is_empty());
    }
}

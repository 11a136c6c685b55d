//! TrueSkill for free-for-all games of single players (every 4-player game of the 2014 contests),
//! without allocation.
//!
//! Hand-written for speed, not for a different result: `skillratings::trueskill_multi_team` runs
//! the same factor graph (Herbrich, Minka & Graepel 2006; the message schedule of the reference
//! Python `trueskill` package) through `Rc<RefCell<_>>` nodes with SipHash-keyed message maps, about
//! 12 µs per 4-player game, which was 60 % of a million-game statistics pass. Here the graph of n
//! ≤ [`MAX_SEATS`] players is a handful of fixed arrays and one update costs well under a
//! microsecond. The schedule, the convergence test and the formulas follow the crate step by
//! step (plain multiply-adds where it writes `mul_add`), including the normal distribution's
//! functions: Numerical Recipes' `erfcc` rational
//! approximation (relative error below 1.2e-7) and its inverse refined by two Newton steps, which
//! the crate and the reference Python `trueskill` package both use. Ratings therefore agree with
//! the crate to rounding (checked in the tests on random games), not merely to 1e-7.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, PI, SQRT_2};

use skillratings::trueskill::{TrueSkillConfig, TrueSkillRating};

/// Largest game handled here; larger ones go to the crate.
pub(crate) const MAX_SEATS: usize = 8;
/// The crate's convergence threshold on the truncation messages.
const MIN_DELTA: f64 = 0.0001;
/// The crate's cap on passes over the chain of rank differences.
const MAX_PASSES: usize = 10;

/// A Gaussian in natural parameters: precision π and precision-adjusted mean τ = π μ.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Gaussian {
    pi: f64,
    tau: f64,
}

impl Gaussian {
    fn with_mu_sigma(mu: f64, sigma: f64) -> Self {
        let pi = sigma.powi(-2);
        Self { pi, tau: pi * mu }
    }

    fn mu(self) -> f64 {
        if self.pi == 0.0 {
            0.0
        } else {
            self.tau / self.pi
        }
    }

    fn sigma(self) -> f64 {
        if self.pi == 0.0 {
            f64::INFINITY
        } else {
            self.pi.recip().sqrt()
        }
    }

    fn times(self, other: Self) -> Self {
        Self {
            pi: self.pi + other.pi,
            tau: self.tau + other.tau,
        }
    }

    fn over(self, other: Self) -> Self {
        Self {
            pi: self.pi - other.pi,
            tau: self.tau - other.tau,
        }
    }
}

/// A variable's marginal; its messages live with the edges below.
#[derive(Clone, Copy, Debug, Default)]
struct Variable {
    value: Gaussian,
}

impl Variable {
    fn set(&mut self, value: Gaussian) -> f64 {
        let pi_delta = (self.value.pi - value.pi).abs();
        let delta = if pi_delta.is_infinite() {
            0.0
        } else {
            (self.value.tau - value.tau).abs().max(pi_delta.sqrt())
        };
        self.value = value;
        delta
    }

    /// A factor sends a new message: the marginal trades the old message for the new one.
    fn update_message(&mut self, edge: &mut Gaussian, message: Gaussian) -> f64 {
        let old = *edge;
        *edge = message;
        self.set(self.value.over(old).times(message))
    }

    /// A factor sets the marginal outright; its message becomes what that implies.
    fn update_value(&mut self, edge: &mut Gaussian, value: Gaussian) -> f64 {
        let old = *edge;
        *edge = value.times(old).over(self.value);
        self.set(value)
    }
}

/// Numerical Recipes' `erfcc` (Chebyshev fit, |relative error| < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = (1.0 + z / 2.0).recip();
    let coefficients = [
        0.170_872_77,
        -0.822_152_23,
        1.488_515_87,
        -1.135_203_98,
        0.278_868_07,
        -0.186_288_06,
        0.096_784_18,
        0.374_091_96,
        1.000_023_68,
    ];
    // Plain multiply-adds: `mul_add` without the FMA instruction is a libm call (the crate's choice
    // of `mul_add` changes results only in the last bits).
    let mut polynomial = coefficients[0];
    for &c in &coefficients[1..] {
        polynomial = t * polynomial + c;
    }
    let r = t * (t * polynomial + (-z * z - 1.265_512_23)).exp();
    if x < 0.0 { 2.0 - r } else { r }
}

/// Inverse of [`erfc`]: a rational first guess refined by two Newton steps.
fn inverse_erfc(y: f64) -> f64 {
    if y >= 2.0 {
        return -100.0;
    }
    if y <= 0.0 {
        return 100.0;
    }
    let below_one = y < 1.0;
    let y = if below_one { y } else { 2.0 - y };
    let t = (-2.0 * (y / 2.0).ln()).sqrt();
    let mut x = -FRAC_1_SQRT_2
        * (t.mul_add(0.27061, 2.30753) / t.mul_add(t.mul_add(0.04481, 0.99229), 1.0) - t);
    for _ in 0..2 {
        let error = erfc(x) - y;
        x += error / FRAC_2_SQRT_PI.mul_add((-(x.powi(2))).exp(), -x * error);
    }
    if below_one { x } else { -x }
}

fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / SQRT_2)
}

fn normal_quantile(p: f64) -> f64 {
    SQRT_2.mul_add(-inverse_erfc(2.0 * p), 0.0)
}

fn pdf(x: f64) -> f64 {
    ((2.0 * PI).sqrt()).recip() * (-(x.powi(2) / 2.0)).exp()
}

/// The crate's cut-off below which the truncated normal's ratios are taken from their limits.
const TINY: f64 = 2.222_758_749e-162;

/// The truncated normal's mean and variance corrections (v, w) of a won comparison, each
/// normal function evaluated once (the crate's v and w evaluate them twice).
fn win_corrections(difference: f64, margin: f64, c: f64) -> (f64, f64) {
    let (x, m) = (difference / c, margin / c);
    let norm = normal_cdf(x - m);
    if norm < TINY {
        return (-x + m, if x < 0.0 { 1.0 } else { 0.0 });
    }
    let v = pdf(x - m) / norm;
    (v, v * (v + x - m))
}

/// (v, w) of a drawn comparison.
fn draw_corrections(difference: f64, margin: f64, c: f64) -> (f64, f64) {
    let (x, m) = (difference / c, margin / c);
    let a = x.abs();
    let norm = normal_cdf(m - a) - normal_cdf(-m - a);
    if norm < TINY {
        return (if x < 0.0 { -x - m } else { -x + m }, 1.0);
    }
    let (p1, p2) = (pdf(m - a), pdf(-m - a));
    let numerator = p2 - p1;
    let v = if x < 0.0 {
        -numerator / norm
    } else {
        numerator / norm
    };
    (v, v * v + ((m - a) * p1 - (-m - a) * p2) / norm)
}

/// A sum factor's update of `target` from the other variables (`values`, the messages this
/// factor last sent them, and the coefficients), as the crate computes it.
fn sum_update(
    target: &mut Variable,
    edge: &mut Gaussian,
    values: [(Gaussian, Gaussian); 2],
    coefficients: [f64; 2],
    terms: usize,
) -> f64 {
    let mut pi_inverse = 0.0_f64;
    let mut mu = 0.0;
    for ((value, message), coefficient) in values.iter().zip(coefficients).take(terms) {
        let divided = value.over(*message);
        mu += coefficient * divided.mu();
        if pi_inverse.is_infinite() {
            continue;
        }
        if divided.pi == 0.0 {
            pi_inverse = f64::INFINITY;
        } else {
            pi_inverse += coefficient.powi(2) / divided.pi;
        }
    }
    let pi = pi_inverse.recip();
    target.update_message(edge, Gaussian { pi, tau: pi * mu })
}

/// The chain of team performances t_k and their differences d_k = t_k − t_{k+1}, with the
/// messages on its edges: difference factor k to t_k (`to_left`), to t_{k+1} (`to_right`) and to
/// d_k (`to_difference`), truncation factor k to d_k.
struct Chain {
    team: [Variable; MAX_SEATS],
    difference: [Variable; MAX_SEATS - 1],
    to_left: [Gaussian; MAX_SEATS - 1],
    to_right: [Gaussian; MAX_SEATS - 1],
    to_difference: [Gaussian; MAX_SEATS - 1],
    truncation: [Gaussian; MAX_SEATS - 1],
    /// Whether the players on each side of link k drew.
    drawn: [bool; MAX_SEATS - 1],
    margin: f64,
}

impl Chain {
    /// Difference factor k sends to d_k: coefficients (1, −1) over (t_k, t_{k+1}).
    fn down(&mut self, k: usize) {
        let values = [
            (self.team[k].value, self.to_left[k]),
            (self.team[k + 1].value, self.to_right[k]),
        ];
        sum_update(
            &mut self.difference[k],
            &mut self.to_difference[k],
            values,
            [1.0, -1.0],
            2,
        );
    }

    /// Truncation factor k updates d_k; returns how much it moved.
    fn truncate(&mut self, k: usize) -> f64 {
        let divided = self.difference[k].value.over(self.truncation[k]);
        let pi_sqrt = divided.pi.sqrt();
        let (x, m) = (divided.tau, self.margin * divided.pi);
        let (v, w) = if self.drawn[k] {
            draw_corrections(x, m, pi_sqrt)
        } else {
            win_corrections(x, m, pi_sqrt)
        };
        let denominator = 1.0 - w;
        let pi = divided.pi / denominator;
        let tau = (pi_sqrt * v + divided.tau) / denominator;
        self.difference[k].update_value(&mut self.truncation[k], Gaussian { pi, tau })
    }

    /// Difference factor k sends to t_k: coefficients (1, 1) over (d_k, t_{k+1}).
    fn up_left(&mut self, k: usize) {
        let values = [
            (self.difference[k].value, self.to_difference[k]),
            (self.team[k + 1].value, self.to_right[k]),
        ];
        sum_update(
            &mut self.team[k],
            &mut self.to_left[k],
            values,
            [1.0, 1.0],
            2,
        );
    }

    /// Difference factor k sends to t_{k+1}: coefficients (1, −1) over (t_k, d_k).
    fn up_right(&mut self, k: usize) {
        let values = [
            (self.team[k].value, self.to_left[k]),
            (self.difference[k].value, self.to_difference[k]),
        ];
        sum_update(
            &mut self.team[k + 1],
            &mut self.to_right[k],
            values,
            [1.0, -1.0],
            2,
        );
    }
}

/// New ratings for players in the given ranks (1 = best, equal ranks drawn), seat order kept.
/// `None` when the game is larger than [`MAX_SEATS`] or has fewer than two players.
pub(crate) fn rate(
    ratings: &[TrueSkillRating],
    ranks: &[u32],
    config: &TrueSkillConfig,
) -> Option<[TrueSkillRating; MAX_SEATS]> {
    let n = ratings.len();
    if !(2..=MAX_SEATS).contains(&n) || ranks.len() != n {
        return None;
    }
    // Players by rank, ties in seat order (the crate's stable sort).
    let mut order = [0usize; MAX_SEATS];
    for (slot, seat) in order.iter_mut().zip(0..n) {
        *slot = seat;
    }
    order[..n].sort_by_key(|&seat| ranks[seat]);

    let beta_squared = config.beta.powi(2);
    let mut skill = [Variable::default(); MAX_SEATS];
    let mut performance = [Variable::default(); MAX_SEATS];
    let mut chain = Chain {
        team: [Variable::default(); MAX_SEATS],
        difference: [Variable::default(); MAX_SEATS - 1],
        to_left: [Gaussian::default(); MAX_SEATS - 1],
        to_right: [Gaussian::default(); MAX_SEATS - 1],
        to_difference: [Gaussian::default(); MAX_SEATS - 1],
        truncation: [Gaussian::default(); MAX_SEATS - 1],
        drawn: std::array::from_fn(|k| k + 1 < n && ranks[order[k]] == ranks[order[k + 1]]),
        margin: normal_quantile(f64::midpoint(config.draw_probability, 1.0)) * SQRT_2 * config.beta,
    };
    // Messages, one per edge: prior→skill, likelihood↔skill, likelihood↔performance,
    // team sum↔performance, team sum↔team (the chain's edges are in `Chain`).
    let mut prior_skill = [Gaussian::default(); MAX_SEATS];
    let mut likelihood_skill = [Gaussian::default(); MAX_SEATS];
    let mut likelihood_performance = [Gaussian::default(); MAX_SEATS];
    let mut sum_performance = [Gaussian::default(); MAX_SEATS];
    let mut sum_team = [Gaussian::default(); MAX_SEATS];

    for i in 0..n {
        let rating = ratings[order[i]];
        let prior = Gaussian::with_mu_sigma(rating.rating, rating.uncertainty);
        let sigma = prior.sigma().hypot(config.dynamics_factor);
        skill[i].update_value(
            &mut prior_skill[i],
            Gaussian::with_mu_sigma(prior.mu(), sigma),
        );
    }
    let likelihood = |from: Gaussian, message: Gaussian| {
        let divided = from.over(message);
        let a = (beta_squared * divided.pi + 1.0).recip();
        Gaussian {
            pi: a * divided.pi,
            tau: a * divided.tau,
        }
    };
    for i in 0..n {
        let message = likelihood(skill[i].value, likelihood_skill[i]);
        performance[i].update_message(&mut likelihood_performance[i], message);
    }
    for i in 0..n {
        let values = [(performance[i].value, sum_performance[i]); 2];
        sum_update(&mut chain.team[i], &mut sum_team[i], values, [1.0, 0.0], 1);
    }

    // The chain of rank differences d_k = t_k − t_{k+1}, each with its truncation factor, in the
    // crate's schedule: forward then backward until the truncations settle.
    let links = n - 1;
    for _ in 0..MAX_PASSES {
        let mut delta = 0.0f64;
        if links == 1 {
            chain.down(0);
            delta = chain.truncate(0);
        } else {
            for k in 0..links - 1 {
                chain.down(k);
                delta = delta.max(chain.truncate(k));
                chain.up_right(k);
            }
            for k in (1..links).rev() {
                chain.down(k);
                delta = delta.max(chain.truncate(k));
                chain.up_left(k);
            }
        }
        if delta <= MIN_DELTA {
            break;
        }
    }
    chain.up_left(0);
    chain.up_right(links - 1);
    for i in 0..n {
        // The team sum sends back to its single term: coefficient 1 over the team variable.
        let values = [(chain.team[i].value, sum_team[i]); 2];
        sum_update(
            &mut performance[i],
            &mut sum_performance[i],
            values,
            [1.0, 0.0],
            1,
        );
    }
    for i in 0..n {
        let message = likelihood(performance[i].value, likelihood_performance[i]);
        skill[i].update_message(&mut likelihood_skill[i], message);
    }

    let mut updated = [TrueSkillRating::new(); MAX_SEATS];
    for i in 0..n {
        updated[order[i]] = TrueSkillRating {
            rating: skill[i].value.mu(),
            uncertainty: skill[i].value.sigma(),
        };
    }
    Some(updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::MultiTeamOutcome;
    use skillratings::trueskill::trueskill_multi_team;

    #[test]
    fn agrees_with_the_crate_on_many_games() {
        let config = TrueSkillConfig::new();
        // A small deterministic generator (splitmix64) for ratings and ranks.
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut largest = 0.0f64;
        for game in 0..3000 {
            let seats = 2 + (game % 7);
            let ratings: Vec<TrueSkillRating> = (0..seats)
                .map(|_| TrueSkillRating {
                    rating: 10.0 + (next() % 3000) as f64 / 100.0,
                    uncertainty: 0.5 + (next() % 800) as f64 / 100.0,
                })
                .collect();
            // Small rank range so that draws of two, three or more players happen.
            let ranks: Vec<u32> = (0..seats).map(|_| 1 + (next() % 3) as u32).collect();
            let teams: Vec<[TrueSkillRating; 1]> = ratings.iter().map(|r| [*r]).collect();
            let input: Vec<(&[TrueSkillRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(&ranks)
                .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(rank as usize)))
                .collect();
            let expected = trueskill_multi_team(&input, &config, None).expect("valid");
            let ours = rate(&ratings, &ranks, &config).expect("small game");
            for seat in 0..seats {
                let (want, got) = (expected[seat][0], ours[seat]);
                largest = largest
                    .max((want.rating - got.rating).abs())
                    .max((want.uncertainty - got.uncertainty).abs());
            }
        }
        assert!(largest < 1e-12, "largest difference {largest}");
    }
}

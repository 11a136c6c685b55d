//! Order-invariant global fit: Bradley–Terry (2-player games) and Plackett–Luce (rankings of more
//! players), both by Hunter's (2004) MM algorithm, with a seeded bootstrap for intervals on
//! ratings and ranks.
//!
//! Hand-written: no maintained crate fits Plackett–Luce with ties, weights and a prior.
//!
//! Model. Bot i has strength γᵢ > 0. A game's finishing order (best first) a₁…a_m has
//! probability Π_{k<m} γ_{a_k} / Σ_{l≥k} γ_{a_l}: the winner is drawn in proportion to strength
//! among everyone, the second among the rest, and so on. With two players this is Bradley–Terry,
//! P(i beats j) = γᵢ/(γᵢ+γⱼ), so one engine serves both models.
//!
//! Ties. A group of g seats sharing a rank is expanded into every order of its members, each with
//! weight 1/g! (for g ≤ 5; larger groups use the g rotations with weight 1/g to stay cheap). For two
//! players this makes a draw exactly half a win and half a loss, the usual Bradley–Terry rule.
//!
//! Prior. Each bot may get `prior_draws` virtual drawn games against a fixed virtual opponent of
//! rating 0. That keeps every rating finite (a bot that never won or never lost otherwise goes to
//! ∓∞) at the cost of a slight pull toward the middle; with `prior_draws = 0` the fit is the plain
//! maximum-likelihood estimate, which exists only when every bot both finished ahead of and
//! behind the others through some chain of games (Hunter's condition, checked here).
//!
//! Scale. Ratings are 400·log10 γ, shifted so the bots' mean rating is 0: a 400-point gap means
//! 10:1 odds in a head-to-head game.

use std::collections::BTreeMap;

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::game::{GameLog, GameResult};
use crate::interval::{CONFIDENCE, Interval, quantile_sorted};

/// Which model the fit used: Bradley–Terry when no game had more than two seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitModel {
    BradleyTerry,
    PlackettLuce,
}

impl std::fmt::Display for FitModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FitModel::BradleyTerry => "Bradley-Terry",
            FitModel::PlackettLuce => "Plackett-Luce",
        })
    }
}

/// Settings of [`global_fit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitConfig {
    /// Virtual drawn games per bot against a rating-0 opponent (0 = pure maximum likelihood).
    pub prior_draws: f64,
    /// Cap on MM iterations per fit.
    pub max_iterations: usize,
    /// Stop when no log-strength moves by more than this in one iteration.
    pub tolerance: f64,
    /// Bootstrap resamples B (0 = no intervals).
    pub bootstrap_resamples: usize,
    /// Seed of the bootstrap's `Pcg64Mcg`; the same seed and games give the same intervals.
    pub seed: u64,
}

impl Default for FitConfig {
    fn default() -> Self {
        Self {
            prior_draws: 1.0,
            max_iterations: 10_000,
            tolerance: 1e-10,
            bootstrap_resamples: 1000,
            seed: 0,
        }
    }
}

/// One bot in the global fit.
#[derive(Clone, Debug, PartialEq)]
pub struct BotFit {
    pub bot: usize,
    /// Fitted rating (Elo-like scale, mean 0 over bots).
    pub rating: f64,
    /// 1 = best; equal ratings share the better rank.
    pub rank: u32,
    /// Bootstrap 2.5 % and 97.5 % percentiles around `rating`; `None` without resamples.
    pub rating_interval: Option<Interval>,
    /// Bootstrap 2.5 % / 97.5 % percentiles of the rank, rounded outward to whole ranks.
    pub rank_interval: Option<(u32, u32)>,
    /// Set when the games cannot bound this bot's rating on one side (it never finished behind,
    /// or never ahead of, any bot outside its group): its maximum-likelihood rating is infinite,
    /// `rating` is then only where the prior holds it, and `rating_interval` is `None`.
    pub unbounded: Option<Unbounded>,
    /// For an unbounded bot, the finite end of its 95 % profile-likelihood interval (the lowest
    /// rating the games allow for one unbounded above, the highest for one unbounded below), on
    /// the scale the other bots' ratings are shown on.
    pub rating_bound: Option<f64>,
}

/// Which side of a rating the games leave open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unbounded {
    /// Never finished behind a bot outside its group: no upper limit.
    Above,
    /// Never finished ahead of a bot outside its group: no lower limit.
    Below,
    /// No game decided against any bot outside its group: not comparable at all.
    Both,
}

/// Result of [`global_fit`].
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalFit {
    pub model: FitModel,
    pub bots: Vec<BotFit>,
    /// MM iterations of the fit on all games.
    pub iterations: usize,
    /// Whether that fit met `tolerance` within `max_iterations`.
    pub converged: bool,
    /// Resamples that produced a fit (those without a maximum-likelihood estimate are dropped;
    /// this only happens with `prior_draws = 0`).
    pub resamples_used: usize,
}

/// Why the global fit has no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error(
        "no finite maximum-likelihood ratings: some group of bots never finished ahead of (or \
         behind) the rest; use a prior (prior_draws > 0) or play more games"
    )]
    NotIdentifiable,
    #[error("invalid fit setting: {0}")]
    BadConfig(&'static str),
}

impl FitModel {
    /// Bradley–Terry when no game has more than two seats, Plackett–Luce otherwise.
    pub fn for_max_seats(max_seats: usize) -> Self {
        if max_seats <= 2 {
            Self::BradleyTerry
        } else {
            Self::PlackettLuce
        }
    }
}

/// What the fit reads of a game: its pair id, and the bot and rank of every seat (scores and
/// faults play no part). A view, so that the streaming accumulator can keep its sample compact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct FitGame<'a> {
    pub(crate) pair_id: Option<u64>,
    pub(crate) players: &'a [usize],
    pub(crate) ranks: &'a [u32],
}

impl<'a> From<&'a GameResult> for FitGame<'a> {
    fn from(game: &'a GameResult) -> Self {
        Self {
            pair_id: game.pair_id,
            players: &game.players,
            ranks: &game.ranks,
        }
    }
}

/// A weighted finishing order, bots best first.
type Ordering = Vec<usize>;

/// Finishing orders of one game after tie expansion, weights summing to 1.
fn expand_ties(game: &FitGame) -> Vec<(Ordering, f64)> {
    let mut seats: Vec<usize> = (0..game.players.len()).collect();
    seats.sort_by_key(|&seat| (game.ranks[seat], game.players[seat]));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &seat in &seats {
        match groups.last_mut() {
            Some(group) if game.ranks[group[0]] == game.ranks[seat] => group.push(seat),
            _ => groups.push(vec![seat]),
        }
    }
    let mut orders: Vec<(Ordering, f64)> = vec![(Vec::new(), 1.0)];
    for group in groups {
        let bots: Vec<usize> = group.iter().map(|&seat| game.players[seat]).collect();
        let arrangements = arrangements_of(&bots);
        let share = 1.0 / arrangements.len() as f64;
        orders = orders
            .iter()
            .flat_map(|(prefix, weight)| {
                arrangements.iter().map(move |arrangement| {
                    let mut order = prefix.clone();
                    order.extend_from_slice(arrangement);
                    (order, weight * share)
                })
            })
            .collect();
    }
    orders
}

/// Every order of a tie group (≤ 5 members, at most 120), or its rotations beyond that.
fn arrangements_of(bots: &[usize]) -> Vec<Vec<usize>> {
    const FULL_EXPANSION_LIMIT: usize = 5;
    if bots.len() > FULL_EXPANSION_LIMIT {
        return (0..bots.len())
            .map(|shift| {
                bots[shift..]
                    .iter()
                    .chain(&bots[..shift])
                    .copied()
                    .collect()
            })
            .collect();
    }
    let mut all = Vec::new();
    permute(&mut bots.to_vec(), 0, &mut all);
    all
}

fn permute(items: &mut Vec<usize>, start: usize, out: &mut Vec<Vec<usize>>) {
    if start + 1 >= items.len() {
        out.push(items.clone());
        return;
    }
    for i in start..items.len() {
        items.swap(start, i);
        permute(items, start + 1, out);
        items.swap(start, i);
    }
}

/// The games in a canonical form: distinct orderings, and resampling units (a pair_id group or a
/// lone game) as weights over those orderings. Sorting everything by content makes the fit and the
/// bootstrap independent of the order games were played in, to the last bit.
struct Design {
    orderings: Vec<Ordering>,
    units: Vec<Vec<(usize, f64)>>,
}

impl Design {
    /// `games` in any order: they are sorted by content here. The field order of [`FitGame`]
    /// (pair id, players, ranks) is the sort key, which also brings each unit's games together.
    fn new<'a>(games: impl IntoIterator<Item = FitGame<'a>>) -> Self {
        let mut games: Vec<FitGame> = games
            .into_iter()
            .filter(|game| game.players.len() >= 2)
            .collect();
        games.sort();
        let mut unit_games: Vec<Vec<FitGame>> = Vec::new();
        for game in games {
            match (unit_games.last_mut(), game.pair_id) {
                (Some(unit), Some(id)) if unit[0].pair_id == Some(id) => unit.push(game),
                _ => unit_games.push(vec![game]),
            }
        }
        let expanded: Vec<Vec<(Ordering, f64)>> = unit_games
            .iter()
            .map(|unit| unit.iter().flat_map(|game| expand_ties(game)).collect())
            .collect();
        let mut index_of: BTreeMap<Ordering, usize> = expanded
            .iter()
            .flatten()
            .map(|(ordering, _)| (ordering.clone(), 0))
            .collect();
        for (index, slot) in index_of.values_mut().enumerate() {
            *slot = index;
        }
        let units = expanded
            .into_iter()
            .map(|unit| {
                let mut weights: BTreeMap<usize, f64> = BTreeMap::new();
                for (ordering, weight) in unit {
                    *weights.entry(index_of[&ordering]).or_insert(0.0) += weight;
                }
                weights.into_iter().collect()
            })
            .collect();
        Self {
            orderings: index_of.into_keys().collect(),
            units,
        }
    }

    /// Total weight of each ordering when unit u is counted `multiplicity[u]` times.
    fn ordering_weights(&self, multiplicity: &[u32]) -> Vec<f64> {
        let mut weights = vec![0.0; self.orderings.len()];
        for (unit, &count) in self.units.iter().zip(multiplicity) {
            for &(ordering, weight) in unit {
                weights[ordering] += f64::from(count) * weight;
            }
        }
        weights
    }
}

/// Strength per bot from weighted orderings, by MM; `None` when the MLE does not exist.
struct MmFit {
    log_strength: Vec<f64>,
    iterations: usize,
    converged: bool,
}

fn fit_strengths(
    bot_count: usize,
    orderings: &[Ordering],
    weights: &[f64],
    config: &FitConfig,
) -> Option<MmFit> {
    if config.prior_draws > 0.0 && bot_count <= NEWTON_MAX_BOTS {
        // With the prior the posterior mode always exists and the log-posterior is strictly
        // concave: Newton's method gets there in a few steps, where MM crawls (10 000 iterations
        // without converging when one bot wins every 4-player game).
        return newton_strengths(bot_count, orderings, weights, config);
    }
    mm_strengths(bot_count, orderings, weights, config)
}

/// Largest field fitted by Newton's method: each step solves a bots × bots system, which beyond
/// this costs more than MM's iterations save.
const NEWTON_MAX_BOTS: usize = 64;

/// Log-posterior (weighted orderings plus the prior's virtual draws against a rating-0 anchor),
/// its gradient and its Hessian in the bots' log-strengths θ.
fn posterior_terms(
    bot_count: usize,
    orderings: &[Ordering],
    weights: &[f64],
    prior_draws: f64,
    theta: &[f64],
    want_derivatives: bool,
) -> (f64, Vec<f64>, Vec<f64>) {
    let mut log_posterior = 0.0;
    let mut gradient = vec![0.0; bot_count];
    let mut hessian = vec![0.0; bot_count * bot_count];
    let mut chances: Vec<f64> = Vec::new();
    let mut stage = |members: &[usize], chosen: usize, weight: f64, anchor: bool| {
        // Stage of an ordering: `chosen` is picked among `members` (plus the anchor, θ = 0).
        let top = members
            .iter()
            .map(|&b| theta[b])
            .fold(if anchor { 0.0 } else { f64::MIN }, f64::max);
        let mut total = if anchor { (-top).exp() } else { 0.0 };
        for &b in members {
            total += (theta[b] - top).exp();
        }
        let chosen_theta = if chosen == usize::MAX {
            0.0
        } else {
            theta[chosen]
        };
        log_posterior += weight * (chosen_theta - top - total.ln());
        if !want_derivatives {
            return;
        }
        if chosen != usize::MAX {
            gradient[chosen] += weight;
        }
        // Each member's chance of being picked at this stage, computed once.
        chances.clear();
        chances.extend(members.iter().map(|&b| (theta[b] - top).exp() / total));
        for (&j, &pj) in members.iter().zip(chances.iter()) {
            gradient[j] -= weight * pj;
            hessian[j * bot_count + j] -= weight * pj;
            for (&l, &pl) in members.iter().zip(chances.iter()) {
                hessian[j * bot_count + l] += weight * pj * pl;
            }
        }
    };
    for (ordering, &weight) in orderings.iter().zip(weights) {
        if weight <= 0.0 || ordering.len() < 2 {
            continue;
        }
        for k in 0..ordering.len() - 1 {
            stage(&ordering[k..], ordering[k], weight, false);
        }
    }
    for bot in 0..bot_count {
        // Half a win and half a loss against the anchor.
        stage(&[bot], bot, prior_draws / 2.0, true);
        stage(&[bot], usize::MAX, prior_draws / 2.0, true);
    }
    (log_posterior, gradient, hessian)
}

/// Solves A x = b for a symmetric positive definite A (n × n, row-major) by Cholesky; `None` if
/// A is not positive definite. Hand-written: a few lines for the small systems here.
fn solve_positive_definite(a: &[f64], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i * n + j];
            for k in 0..j {
                sum -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if sum <= 0.0 || !sum.is_finite() {
                    return None;
                }
                l[i * n + i] = sum.sqrt();
            } else {
                l[i * n + j] = sum / l[j * n + j];
            }
        }
    }
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut sum = b[i];
        for k in 0..i {
            sum -= l[i * n + k] * y[k];
        }
        y[i] = sum / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut sum = y[i];
        for k in i + 1..n {
            sum -= l[k * n + i] * x[k];
        }
        x[i] = sum / l[i * n + i];
    }
    Some(x)
}

/// The posterior mode by Newton's method with step halving (the log-posterior never decreases).
fn newton_strengths(
    bot_count: usize,
    orderings: &[Ordering],
    weights: &[f64],
    config: &FitConfig,
) -> Option<MmFit> {
    let mut theta = vec![0.0; bot_count];
    let mut iterations = 0;
    let mut converged = false;
    let value = |theta: &[f64]| {
        posterior_terms(
            bot_count,
            orderings,
            weights,
            config.prior_draws,
            theta,
            false,
        )
        .0
    };
    while iterations < config.max_iterations {
        iterations += 1;
        let (current, gradient, hessian) = posterior_terms(
            bot_count,
            orderings,
            weights,
            config.prior_draws,
            &theta,
            true,
        );
        let negated: Vec<f64> = hessian.iter().map(|h| -h).collect();
        let step = solve_positive_definite(&negated, &gradient)?;
        let mut scale = 1.0;
        let mut next: Vec<f64> = theta.iter().zip(&step).map(|(t, d)| t + d).collect();
        for _ in 0..60 {
            if value(&next) >= current - 1e-12 * current.abs().max(1.0) {
                break;
            }
            scale *= 0.5;
            next = theta
                .iter()
                .zip(&step)
                .map(|(t, d)| t + scale * d)
                .collect();
        }
        let largest_move = theta
            .iter()
            .zip(&next)
            .map(|(old, new)| (new - old).abs())
            .fold(0.0, f64::max);
        theta = next;
        if !largest_move.is_finite() {
            return None;
        }
        if largest_move < config.tolerance {
            converged = true;
            break;
        }
    }
    Some(MmFit {
        log_strength: theta,
        iterations,
        converged,
    })
}

/// Hunter's MM iterations (used for the plain maximum-likelihood fit, without a prior).
fn mm_strengths(
    bot_count: usize,
    orderings: &[Ordering],
    weights: &[f64],
    config: &FitConfig,
) -> Option<MmFit> {
    let use_prior = config.prior_draws > 0.0;
    if !use_prior && !identifiable(bot_count, orderings, weights) {
        return None;
    }
    // The virtual opponent is item `bot_count`, its strength pinned at 1.
    let anchor = bot_count;
    let mut items: Vec<(&[usize], f64)> = orderings
        .iter()
        .zip(weights)
        .filter(|(ordering, weight)| **weight > 0.0 && ordering.len() >= 2)
        .map(|(ordering, &weight)| (ordering.as_slice(), weight))
        .collect();
    let prior_orders: Vec<[usize; 2]> = (0..bot_count)
        .flat_map(|bot| [[bot, anchor], [anchor, bot]])
        .collect();
    if use_prior {
        items.extend(
            prior_orders
                .iter()
                .map(|order| (order.as_slice(), config.prior_draws / 2.0)),
        );
    }

    // Wins: weight of the stages where the bot was picked, fixed across iterations.
    let mut stage_wins = vec![0.0; bot_count + 1];
    for &(ordering, weight) in &items {
        for &bot in &ordering[..ordering.len() - 1] {
            stage_wins[bot] += weight;
        }
    }

    let mut strength = vec![1.0; bot_count + 1];
    let mut iterations = 0;
    let mut converged = false;
    let mut suffix = Vec::new();
    while iterations < config.max_iterations {
        iterations += 1;
        // Denominator of Hunter's update: Σ over stages where the bot was still in the running
        // of weight / (total strength still in the running).
        let mut exposure = vec![0.0; bot_count + 1];
        for &(ordering, weight) in &items {
            suffix.clear();
            suffix.resize(ordering.len(), 0.0);
            let mut running = 0.0;
            for (position, &bot) in ordering.iter().enumerate().rev() {
                running += strength[bot];
                suffix[position] = running;
            }
            let mut accumulated = 0.0;
            for (position, &bot) in ordering.iter().enumerate() {
                if position + 1 < ordering.len() {
                    accumulated += weight / suffix[position];
                }
                exposure[bot] += accumulated;
            }
        }
        let mut updated: Vec<f64> = (0..=bot_count)
            .map(|bot| {
                if exposure[bot] > 0.0 {
                    stage_wins[bot] / exposure[bot]
                } else {
                    // A bot in no game (possible only without a prior) keeps its strength.
                    strength[bot]
                }
            })
            .collect();
        if use_prior {
            updated[anchor] = 1.0;
            rescale_toward_anchor(&mut updated[..bot_count]);
        } else {
            // Without an anchor only ratios are identified; fix the geometric mean at 1.
            let mean_log =
                updated[..bot_count].iter().map(|s| s.ln()).sum::<f64>() / bot_count.max(1) as f64;
            updated.iter_mut().for_each(|s| *s /= mean_log.exp());
        }
        let largest_move = updated[..bot_count]
            .iter()
            .zip(&strength)
            .map(|(new, old)| (new.ln() - old.ln()).abs())
            .fold(0.0, f64::max);
        strength = updated;
        if !largest_move.is_finite() {
            return None;
        }
        if largest_move < config.tolerance {
            converged = true;
            break;
        }
    }
    Some(MmFit {
        log_strength: strength[..bot_count].iter().map(|s| s.ln()).collect(),
        iterations,
        converged,
    })
}

/// Multiplies every bot's strength by the factor c that maximizes the likelihood with the rest
/// held fixed: an exact coordinate step along the one direction MM alone crawls along.
///
/// Real games only see strength ratios, so c moves only the prior's virtual draws (γ against the
/// anchor's 1), whose likelihood peaks where Σᵢ tanh((ln c + ln γᵢ)/2) = 0. Without this step the
/// overall level converges at a rate set by the small prior weight (thousands of iterations).
fn rescale_toward_anchor(strength: &mut [f64]) {
    let logs: Vec<f64> = strength.iter().map(|s| s.ln()).collect();
    let slope = |shift: f64| logs.iter().map(|l| ((shift + l) / 2.0).tanh()).sum::<f64>();
    let (Some(lowest), Some(highest)) = (
        logs.iter().copied().reduce(f64::min),
        logs.iter().copied().reduce(f64::max),
    ) else {
        return;
    };
    // The root lies in [−highest, −lowest]: there every term, resp., is ≤ 0 and ≥ 0.
    let (mut below, mut above) = (-highest, -lowest);
    for _ in 0..100 {
        let middle = 0.5 * (below + above);
        if slope(middle) < 0.0 {
            below = middle;
        } else {
            above = middle;
        }
    }
    let factor = (0.5 * (below + above)).exp();
    strength.iter_mut().for_each(|s| *s *= factor);
}

/// Hunter's condition for a finite MLE: in the graph with an edge a → b whenever a finished
/// ahead of b in some weighted ordering, every bot reaches every other.
fn identifiable(bot_count: usize, orderings: &[Ordering], weights: &[f64]) -> bool {
    if bot_count <= 1 {
        return true;
    }
    let ahead_of = ahead_of_graph(bot_count, orderings, weights);
    reachable(&ahead_of, 0, true).iter().all(|&seen| seen)
        && reachable(&ahead_of, 0, false).iter().all(|&seen| seen)
}

/// `ahead_of[a][b]`: a finished ahead of b in some ordering of positive weight.
fn ahead_of_graph(bot_count: usize, orderings: &[Ordering], weights: &[f64]) -> Vec<Vec<bool>> {
    let mut ahead_of = vec![vec![false; bot_count]; bot_count];
    for (ordering, &weight) in orderings.iter().zip(weights) {
        if weight <= 0.0 {
            continue;
        }
        for (position, &better) in ordering.iter().enumerate() {
            for &worse in &ordering[position + 1..] {
                if better != worse {
                    ahead_of[better][worse] = true;
                }
            }
        }
    }
    ahead_of
}

/// The bots reachable from `start` along the graph's edges (`forward`) or against them.
fn reachable(ahead_of: &[Vec<bool>], start: usize, forward: bool) -> Vec<bool> {
    let bot_count = ahead_of.len();
    let mut seen = vec![false; bot_count];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(bot) = stack.pop() {
        for other in 0..bot_count {
            let edge = if forward {
                ahead_of[bot][other]
            } else {
                ahead_of[other][bot]
            };
            if edge && !seen[other] {
                seen[other] = true;
                stack.push(other);
            }
        }
    }
    seen
}

/// Ratings on the Elo-like scale, mean 0.
fn to_ratings(log_strength: &[f64]) -> Vec<f64> {
    let scale = 400.0 / std::f64::consts::LN_10;
    let ratings: Vec<f64> = log_strength.iter().map(|s| s * scale).collect();
    let mean = ratings.iter().sum::<f64>() / ratings.len().max(1) as f64;
    ratings.iter().map(|r| r - mean).collect()
}

/// Ratings closer than this (Elo points) are equal: the fit's rounding noise is around 1e-13, and
/// no contest cares about a millionth of a point.
const RATING_TIE: f64 = 1e-6;

/// Competition ranks of ratings, highest first; equal ratings share the better rank.
fn ranks_of(ratings: &[f64]) -> Vec<u32> {
    ratings
        .iter()
        .map(|mine| {
            1 + ratings
                .iter()
                .filter(|other| **other > mine + RATING_TIE)
                .count() as u32
        })
        .collect()
}

/// Groups of bots that the games tie together (strongly connected components of the "finished
/// ahead of" graph) whose ratings nothing outside them bounds on one side, with that side.
fn unbounded_groups(
    bot_count: usize,
    orderings: &[Ordering],
    weights: &[f64],
) -> Vec<(Vec<usize>, Unbounded)> {
    if bot_count < 2 {
        return Vec::new();
    }
    let ahead_of = ahead_of_graph(bot_count, orderings, weights);
    let reach = |start: usize, forward: bool| reachable(&ahead_of, start, forward);
    let mut component = vec![usize::MAX; bot_count];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for bot in 0..bot_count {
        if component[bot] != usize::MAX {
            continue;
        }
        let (down, up) = (reach(bot, true), reach(bot, false));
        let members: Vec<usize> = (0..bot_count).filter(|&b| down[b] && up[b]).collect();
        for &member in &members {
            component[member] = groups.len();
        }
        groups.push(members);
    }
    if groups.len() < 2 {
        return Vec::new();
    }
    // The ratings are shown on the scale of the largest group: its members are bounded relative to
    // each other and are the reference the others are unbounded against. With no single largest
    // group (two lone bots, say) every source or sink group is marked.
    let largest = groups.iter().map(Vec::len).max().unwrap_or(0);
    let main_group = match groups.iter().filter(|g| g.len() == largest).count() {
        1 => groups.iter().position(|g| g.len() == largest),
        _ => None,
    };
    groups
        .into_iter()
        .enumerate()
        .filter(|(index, _)| Some(*index) != main_group)
        .filter_map(|(index, members)| {
            let outside = |b: usize| component[b] != index;
            let beaten_by_outside =
                (0..bot_count).any(|o| outside(o) && members.iter().any(|&m| ahead_of[o][m]));
            let beats_outside =
                (0..bot_count).any(|o| outside(o) && members.iter().any(|&m| ahead_of[m][o]));
            let side = match (beaten_by_outside, beats_outside) {
                (true, true) => return None,
                (false, true) => Unbounded::Above,
                (true, false) => Unbounded::Below,
                (false, false) => Unbounded::Both,
            };
            Some((members, side))
        })
        .collect()
}

/// Log-likelihood of the weighted orderings (no prior) with the group's log-strengths shifted
/// by `shift`.
fn log_likelihood(
    orderings: &[Ordering],
    weights: &[f64],
    log_strength: &[f64],
    group: &[bool],
    shift: f64,
) -> f64 {
    let theta = |bot: usize| log_strength[bot] + if group[bot] { shift } else { 0.0 };
    let mut total = 0.0;
    let mut rest = Vec::new();
    for (ordering, &weight) in orderings.iter().zip(weights) {
        if weight <= 0.0 || ordering.len() < 2 {
            continue;
        }
        // log Σ exp θ over each suffix, built from the end: subtracting the picked bot from a
        // running total loses everything when one strength dwarfs the rest.
        rest.clear();
        let mut log_sum = f64::NEG_INFINITY;
        for &bot in ordering.iter().rev() {
            let t = theta(bot);
            let (high, low) = if t > log_sum {
                (t, log_sum)
            } else {
                (log_sum, t)
            };
            log_sum = high + (low - high).exp().ln_1p();
            rest.push(log_sum);
        }
        rest.reverse();
        for (position, &bot) in ordering[..ordering.len() - 1].iter().enumerate() {
            total += weight * (theta(bot) - rest[position]);
        }
    }
    total
}

/// The finite end of a one-sided 95 % profile-likelihood interval for a group the games leave
/// unbounded on one side: the shift (in log-strength) at which the log-likelihood is χ²₁(0.95)/2
/// below its limit on the open side.
fn profile_bound(
    orderings: &[Ordering],
    weights: &[f64],
    log_strength: &[f64],
    members: &[usize],
    side: Unbounded,
) -> Option<f64> {
    // χ²₁ 95 % quantile / 2: the usual likelihood-ratio interval.
    const DROP: f64 = 3.841_458_820_694_124 / 2.0;
    // Far enough that the open side's limit is reached to double precision for any real field.
    const FAR: f64 = 60.0;
    let mut group = vec![false; log_strength.len()];
    members.iter().for_each(|&m| group[m] = true);
    let ll = |shift: f64| log_likelihood(orderings, weights, log_strength, &group, shift);
    let (open, closed) = match side {
        Unbounded::Above => (FAR, -FAR),
        Unbounded::Below => (-FAR, FAR),
        Unbounded::Both => return None,
    };
    let target = ll(open) - DROP;
    if !(target.is_finite()) || ll(closed) >= target {
        return None;
    }
    let (mut inside, mut outside) = (open, closed);
    for _ in 0..200 {
        let middle = 0.5 * (inside + outside);
        if ll(middle) >= target {
            inside = middle;
        } else {
            outside = middle;
        }
    }
    Some(0.5 * (inside + outside))
}

/// Uniform index below `bound` (> 0), by rejection so every index is exactly equally likely.
/// Hand-written rather than `rand`'s range sampling so that results stay bit-identical across
/// `rand` releases, which do not promise value stability of their range algorithms.
pub(crate) fn uniform_index(rng: &mut Pcg64Mcg, bound: usize) -> usize {
    let bound = bound as u64;
    // Largest value such that [0, accept_max] holds a whole number of copies of [0, bound).
    let accept_max = u64::MAX - (u64::MAX % bound + 1) % bound;
    loop {
        let draw = rng.next_u64();
        if draw <= accept_max {
            return (draw % bound) as usize;
        }
    }
}

/// Ratings of all bots from all games, without intervals (see the module docs for the model).
pub fn fit_ratings(log: &GameLog, config: &FitConfig) -> Result<Vec<f64>, FitError> {
    check_config(config)?;
    let design = Design::new(log.games().iter().map(FitGame::from));
    let weights = design.ordering_weights(&vec![1; design.units.len()]);
    fit_strengths(log.bot_count(), &design.orderings, &weights, config)
        .map(|fit| to_ratings(&fit.log_strength))
        .ok_or(FitError::NotIdentifiable)
}

fn check_config(config: &FitConfig) -> Result<(), FitError> {
    if !(config.prior_draws >= 0.0 && config.prior_draws.is_finite()) {
        return Err(FitError::BadConfig("prior_draws must be finite and >= 0"));
    }
    if config.tolerance.is_nan() || config.tolerance <= 0.0 {
        return Err(FitError::BadConfig("tolerance must be > 0"));
    }
    Ok(())
}

/// Bradley–Terry or Plackett–Luce ratings with bootstrap intervals.
///
/// The bootstrap resamples units with replacement, as many as there are: a unit is every game
/// of one `pair_id` (so seat-rotated games stay together, as the paired design intends) or a
/// game without one. Each resample is refitted; the intervals are the 2.5 % and 97.5 %
/// percentiles (linear interpolation between order statistics) of the resampled ratings and ranks.
pub fn global_fit(log: &GameLog, config: &FitConfig) -> Result<GlobalFit, FitError> {
    let max_seats = log.games().iter().map(GameResult::seat_count).max();
    global_fit_of(
        log.bot_count(),
        log.games().iter().map(FitGame::from),
        FitModel::for_max_seats(max_seats.unwrap_or(0)),
        config,
    )
}

/// [`global_fit`] on games given as views (checked against `bot_count`, in any order), with the
/// model chosen by the caller: the streaming accumulator fits a sample of the games but names
/// the model from all of them.
pub(crate) fn global_fit_of<'a>(
    bot_count: usize,
    games: impl IntoIterator<Item = FitGame<'a>>,
    model: FitModel,
    config: &FitConfig,
) -> Result<GlobalFit, FitError> {
    check_config(config)?;
    let design = Design::new(games);
    let weights = design.ordering_weights(&vec![1; design.units.len()]);
    let point = fit_strengths(bot_count, &design.orderings, &weights, config)
        .ok_or(FitError::NotIdentifiable)?;
    let ratings = to_ratings(&point.log_strength);
    let ranks = ranks_of(&ratings);

    let mut resampled_ratings: Vec<Vec<f64>> = vec![Vec::new(); bot_count];
    let mut resampled_ranks: Vec<Vec<f64>> = vec![Vec::new(); bot_count];
    let mut resamples_used = 0;
    let unit_count = design.units.len();
    if unit_count > 0 && bot_count > 0 {
        let mut rng = Pcg64Mcg::seed_from_u64(config.seed);
        let mut multiplicity = vec![0u32; unit_count];
        for _ in 0..config.bootstrap_resamples {
            multiplicity.iter_mut().for_each(|m| *m = 0);
            for _ in 0..unit_count {
                multiplicity[uniform_index(&mut rng, unit_count)] += 1;
            }
            let weights = design.ordering_weights(&multiplicity);
            let Some(fit) = fit_strengths(bot_count, &design.orderings, &weights, config) else {
                continue;
            };
            resamples_used += 1;
            let sample_ratings = to_ratings(&fit.log_strength);
            for (bot, rank) in ranks_of(&sample_ratings).into_iter().enumerate() {
                resampled_ratings[bot].push(sample_ratings[bot]);
                resampled_ranks[bot].push(f64::from(rank));
            }
        }
    }

    let mut unbounded: Vec<Option<(Unbounded, Option<f64>)>> = vec![None; bot_count];
    let scale = 400.0 / std::f64::consts::LN_10;
    for (members, side) in unbounded_groups(bot_count, &design.orderings, &weights) {
        let shift = profile_bound(
            &design.orderings,
            &weights,
            &point.log_strength,
            &members,
            side,
        );
        // The ratings shown are centred (mean zero), so moving the group by `shift` against the
        // rest moves each member by only `shift · (1 − k/n)` on the shown scale, the others by
        // `−shift · k/n`. Adding the whole shift to the member's centred rating put the bound on
        // another scale: with two bots 10–0 the winner's lower bound came out below the loser's
        // upper bound (`≥-21` against `≤+21`).
        let moved = 1.0 - members.len() as f64 / bot_count as f64;
        for &member in &members {
            let bound = shift.map(|shift| ratings[member] + shift * moved * scale);
            unbounded[member] = Some((side, bound));
        }
    }

    let tail = (1.0 - CONFIDENCE) / 2.0;
    let bots = (0..bot_count)
        .map(|bot| {
            resampled_ratings[bot].sort_by(f64::total_cmp);
            resampled_ranks[bot].sort_by(f64::total_cmp);
            let samples = &resampled_ratings[bot];
            let rating_interval = quantile_sorted(samples, tail)
                .zip(quantile_sorted(samples, 1.0 - tail))
                .map(|(low, high)| Interval {
                    estimate: ratings[bot],
                    low,
                    high,
                });
            let rank_samples = &resampled_ranks[bot];
            let rank_interval = quantile_sorted(rank_samples, tail)
                .zip(quantile_sorted(rank_samples, 1.0 - tail))
                .map(|(low, high)| (low.floor() as u32, high.ceil() as u32));
            BotFit {
                bot,
                rating: ratings[bot],
                rank: ranks[bot],
                // The bootstrap of an unbounded rating only resamples the prior's pull.
                rating_interval: rating_interval.filter(|_| unbounded[bot].is_none()),
                rank_interval,
                unbounded: unbounded[bot].map(|(side, _)| side),
                rating_bound: unbounded[bot].and_then(|(_, bound)| bound),
            }
        })
        .collect();
    Ok(GlobalFit {
        model,
        bots,
        iterations: point.iterations,
        converged: point.converged,
        resamples_used,
    })
}

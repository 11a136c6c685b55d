//! `montecarlo`: a Monte Carlo bot that models every opponent as a copy of a known strategy and
//! simulates the rest of the game for each of its own candidate moves.
//!
//! - **Belief.** It keeps an estimated real table for every opponent. Weekday moves are seen exactly
//!   (visible deltas). Holiday moves are hidden; the P line gives the opponents' total per target.
//!   The bot splits that total between them by what each opponent's model predicted, and gives the
//!   slots no prediction explains to whoever's prediction missed. The full reveal (Lang Wars 2, N&C)
//!   replaces the estimates with the truth.
//! - **Opponent model.** A replica of `greedy` per opponent, fed the observation that opponent would
//!   get under the estimated table. How often its predictions hit (seen weekday moves, holiday moves
//!   consistent with the P line) sets how often that opponent plays a random move instead in the
//!   simulations.
//! - **Search.** Every candidate multiset is ranked by its standing after this turn, against the
//!   predicted moves. The best few are each played out to the end of the game several times: the
//!   opponents follow their models, this bot follows a greedy replica of itself. The candidate with
//!   the best mean result (win 1, draw ½, plus a small term for the margin) is played.
//!
//! The work is bounded by a budget (shortlist × rollouts), never by the clock, and the only randomness
//! is the seat's `bot_rng`: the same seed plays the same game.

use arena_game::Bot;
use arena_game::seed::{BotRng, below, bot_rng, derive_seed};
use rand_core::RngCore;

use crate::bots::{GreedyCore, candidate_set};
use crate::engine::{Lanes, LangWars, MAX_SLOTS, MAX_TARGETS, Move, Observation, PLAYERS};

/// How much the bot searches per decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Candidates played out (after ranking all of them by their immediate standing).
    pub shortlist: usize,
    /// Simulated games per shortlisted candidate.
    pub rollouts: usize,
}

impl Budget {
    /// The built-in bot's budget: a few tens of milliseconds per decision (see the crate's bench).
    pub const FULL: Budget = Budget {
        shortlist: 48,
        rollouts: 6,
    };
}

/// The edition's parameters as a player can tell them from its observation.
#[derive(Clone, Copy, Debug)]
struct Rules {
    turns: u32,
    targets: usize,
    holiday_gain: u16,
    /// Turn after which the visible table becomes the real one (0: never).
    reveal_after: u32,
    /// Bit `t`: the real table is scored after turn `t`.
    scoring: u32,
    letters: [char; 2],
    values: [u8; MAX_TARGETS],
}

impl Rules {
    fn of(obs: &Observation) -> Rules {
        // Lang Wars has 8 targets; Lang Wars 2 and N&C have 6 and differ only by the letters (D/N for
        // N&C, which also scores after turn 5).
        let targets = obs.targets.clamp(1, MAX_TARGETS);
        let nc = matches!(obs.letter, 'D' | 'N');
        let turns = obs.turns.min(31);
        Rules {
            turns,
            targets,
            holiday_gain: if targets == 8 { 1 } else { 2 },
            reveal_after: if targets == 8 { 0 } else { 5 },
            scoring: if nc { 1 << 5 | 1 << turns } else { 1 << turns },
            letters: if nc { ['D', 'N'] } else { ['W', 'H'] },
            values: obs.values,
        }
    }
}

type Counts = [u8; MAX_TARGETS];

/// A game state in the columns of this bot's observation (0 = this bot, 1..=3 = the opponents), with
/// each player's model. For opponents the real table is an estimate.
#[derive(Clone, Copy, Debug)]
struct World {
    turn: u32,
    real: [[u16; MAX_TARGETS]; PLAYERS],
    visible: [[u16; MAX_TARGETS]; PLAYERS],
    /// Actions per target in the previous turn.
    counts: [u16; MAX_TARGETS],
    /// Scores so far in 1/24 units.
    totals: [i64; PLAYERS],
    models: [GreedyCore; PLAYERS],
}

impl World {
    fn new() -> World {
        World {
            turn: 1,
            real: [[0; MAX_TARGETS]; PLAYERS],
            visible: [[0; MAX_TARGETS]; PLAYERS],
            counts: [0; MAX_TARGETS],
            totals: [0; PLAYERS],
            models: [GreedyCore::default(); PLAYERS],
        }
    }

    /// What `player` is told at the start of the current turn.
    fn observe(&self, rules: &Rules, player: usize) -> Observation {
        let lanes = |row: &[u16; MAX_TARGETS]| Lanes::from_values(row).unwrap_or_default();
        let mut visible = [Lanes::default(); PLAYERS];
        visible[0] = lanes(&self.visible[player]);
        let mut column = 1;
        for (other, row) in self.visible.iter().enumerate() {
            if other != player {
                visible[column] = lanes(row);
                column += 1;
            }
        }
        let odd = self.turn % 2 == 1;
        Observation::from_tables(
            (rules.turns, rules.targets, rules.values),
            self.turn,
            rules.letters[usize::from(!odd)],
            visible,
            lanes(&self.real[player]),
            odd.then(|| lanes(&self.counts)),
        )
    }

    /// Adds this turn's moves to the tables (no reveal, no scoring: see `finish_turn`).
    fn apply_moves(&mut self, rules: &Rules, moves: &[Counts; PLAYERS]) {
        let odd = self.turn % 2 == 1;
        let gain = if odd { 1 } else { rules.holiday_gain };
        self.counts = [0; MAX_TARGETS];
        for (player, counts) in moves.iter().enumerate() {
            for (target, &n) in counts.iter().enumerate().take(rules.targets) {
                let n = n as u16;
                // Saturating: a long hostile input must not overflow the estimates.
                let real = &mut self.real[player][target];
                *real = real.saturating_add(n * gain);
                if odd {
                    let visible = &mut self.visible[player][target];
                    *visible = visible.saturating_add(n);
                }
                self.counts[target] = self.counts[target].saturating_add(n);
            }
        }
    }

    fn finish_turn(&mut self, rules: &Rules) {
        if rules.reveal_after == self.turn {
            self.visible = self.real;
        }
        // A turn number from a hostile input may be past any bit of the mask.
        if self.turn < 32 && rules.scoring & (1 << self.turn) != 0 {
            self.score(rules);
        }
        self.turn += 1;
    }

    /// The rules' scoring (§2.3) in 1/24 units.
    fn score(&mut self, rules: &Rules) {
        const SHARE_24THS: [i64; PLAYERS + 1] = [0, 24, 12, 8, 6];
        for target in 0..rules.targets {
            let row: [u16; PLAYERS] = std::array::from_fn(|p| self.real[p][target]);
            let value = rules.values[target] as i64;
            let max = row.iter().copied().max().unwrap_or(0);
            let min = row.iter().copied().min().unwrap_or(0);
            let tops = row.iter().filter(|&&r| r == max).count();
            let bottoms = row.iter().filter(|&&r| r == min).count();
            for (total, &believers) in self.totals.iter_mut().zip(&row) {
                if believers == max {
                    *total += value * SHARE_24THS[tops];
                }
                if believers == min {
                    *total -= value * SHARE_24THS[bottoms];
                }
            }
        }
    }
}

/// The Monte Carlo bot (module documentation).
pub struct MonteCarloBot {
    rng: BotRng,
    budget: Budget,
    /// The estimated state before the current turn; `None` before the first ask.
    world: Option<World>,
    /// Last turn's moves: this bot's own (column 0) and the models' predictions.
    predicted: [Counts; PLAYERS],
    /// Per opponent column: predictions that hit and predictions checked.
    fit: [(u32, u32); PLAYERS],
}

impl MonteCarloBot {
    pub fn new(seed: u64, budget: Budget) -> Self {
        MonteCarloBot {
            rng: bot_rng(seed),
            budget,
            world: None,
            predicted: [[0; MAX_TARGETS]; PLAYERS],
            fit: [(0, 0); PLAYERS],
        }
    }

    /// Brings the world up to the start of `obs.turn`: last turn's moves (seen, predicted or fitted to
    /// the P line), then every exact fact of the observation over the estimates.
    fn sync(&mut self, rules: &Rules, obs: &Observation) -> World {
        let fresh = || {
            let mut world = World::new();
            world.turn = obs.turn;
            world
        };
        let mut world = match self.world {
            Some(world) if world.turn + 1 == obs.turn => world,
            // First ask, or an ask out of sequence (never from the referee): start from the facts.
            _ => {
                self.fit = [(0, 0); PLAYERS];
                let mut world = fresh();
                self.overwrite_facts(&mut world, rules, obs, true);
                return world;
            }
        };
        let previous = world.turn;
        let mut moves = self.predicted;
        let revealed = rules.reveal_after == previous;
        if previous % 2 == 1 {
            if !revealed {
                for (column, slot) in moves.iter_mut().enumerate().skip(1) {
                    let seen: Counts = std::array::from_fn(|target| {
                        let delta = if target < rules.targets {
                            obs.visible(target, column)
                                .saturating_sub(world.visible[column][target])
                        } else {
                            0
                        };
                        delta.min(MAX_SLOTS as u16) as u8
                    });
                    *slot = seen;
                    self.check_fit(column, &seen);
                }
            }
        } else {
            let pool: Counts = std::array::from_fn(|target| {
                if target < rules.targets {
                    let all = obs.count(target).unwrap_or(0);
                    all.saturating_sub(self.predicted[0][target] as u16)
                        .min(u8::MAX as u16) as u8
                } else {
                    0
                }
            });
            let fitted = fit_to_pool(&self.predicted, pool, rules.targets);
            for column in 1..PLAYERS {
                self.check_fit(column, &fitted[column]);
                moves[column] = fitted[column];
                world.models[column].my_holiday_move =
                    std::array::from_fn(|t| fitted[column][t] as u16);
            }
        }
        world.apply_moves(rules, &moves);
        self.overwrite_facts(&mut world, rules, obs, revealed);
        world.finish_turn(rules);
        world
    }

    fn overwrite_facts(&self, world: &mut World, rules: &Rules, obs: &Observation, all_real: bool) {
        for target in 0..rules.targets {
            for column in 0..PLAYERS {
                world.visible[column][target] = obs.visible(target, column);
                if all_real && column > 0 {
                    world.real[column][target] = obs.visible(target, column);
                }
                // Estimates never go below what is visible.
                world.real[column][target] =
                    world.real[column][target].max(world.visible[column][target]);
            }
            world.real[0][target] = obs.real(target);
            if obs.is_odd_turn() {
                world.counts[target] = obs.count(target).unwrap_or(0);
            }
        }
    }

    fn check_fit(&mut self, column: usize, actual: &Counts) {
        let (hits, checks) = &mut self.fit[column];
        *checks += 1;
        if *actual == self.predicted[column] {
            *hits += 1;
        }
    }

    /// How often an opponent is simulated as random rather than by its model.
    fn surprise(&self, column: usize) -> f64 {
        let (hits, checks) = self.fit[column];
        let misses = (checks - hits) as f64;
        ((misses + 0.3) / (checks as f64 + 1.0)).clamp(0.02, 0.9)
    }

    fn decide(&mut self, obs: &Observation) -> Counts {
        let rules = Rules::of(obs);
        let mut world = self.sync(&rules, obs);
        let slots = obs.slots();
        let odd = obs.is_odd_turn();
        let gain = if odd { 1 } else { rules.holiday_gain };
        let set = candidate_set(slots, rules.targets);

        // The models' moves this turn (they act at the same time as this bot).
        let mut predicted = [[0u8; MAX_TARGETS]; PLAYERS];
        for (column, prediction) in predicted.iter_mut().enumerate() {
            let seen = if column == 0 {
                obs.clone()
            } else {
                world.observe(&rules, column)
            };
            let index = world.models[column].decide(&seen);
            *prediction = set.counts[index];
        }
        let own_greedy = predicted[0];

        // Rank every candidate by its standing after this turn against the predicted moves.
        let mut table = [[0i64; MAX_SLOTS + 1]; MAX_TARGETS];
        for (target, row) in table.iter_mut().enumerate().take(rules.targets) {
            let others: [u16; PLAYERS - 1] = std::array::from_fn(|i| {
                world.real[i + 1][target].saturating_add(predicted[i + 1][target] as u16 * gain)
            });
            for (count, cell) in row.iter_mut().enumerate().take(slots + 1) {
                let mine = world.real[0][target].saturating_add(count as u16 * gain);
                *cell = standing_24ths(rules.values[target] as i64, mine, &others);
            }
        }
        let mut ranked: Vec<(i64, usize)> = set
            .counts
            .iter()
            .enumerate()
            .map(|(index, counts)| {
                let total: i64 = (0..rules.targets)
                    .map(|t| table[t][counts[t] as usize])
                    .sum();
                (total, index)
            })
            .collect();
        // Stable: equal standings keep the enumeration order, so the choice is reproducible.
        ranked.sort_by_key(|&(total, _)| std::cmp::Reverse(total));
        // Lang Wars' 8 targets make every simulated greedy decision about 3 times dearer (792
        // candidates, not 252) and games a turn longer: fewer play-outs keep its answers as short.
        let scale = |n: usize| (n * 6 / rules.targets.max(6)).max(1);
        let rollouts = scale(self.budget.rollouts);
        let mut shortlist: Vec<usize> = ranked
            .iter()
            .take(scale(self.budget.shortlist))
            .map(|&(_, index)| index)
            .collect();
        if let Some(own) = set.counts.iter().position(|c| *c == own_greedy)
            && !shortlist.contains(&own)
        {
            shortlist.push(own);
        }

        let surprise: [f64; PLAYERS] =
            std::array::from_fn(|c| if c == 0 { 0.0 } else { self.surprise(c) });
        let base = self.rng.next_u64();
        let mut best = (f64::MIN, shortlist[0]);
        for &index in &shortlist {
            let mine = set.counts[index];
            let mut sum = 0.0;
            for rollout in 0..rollouts {
                // The same random stream for every candidate (common random numbers): candidates are
                // compared on the same simulated futures.
                let mut rng = bot_rng(derive_seed(base, rollout as u64));
                let mut sim = world;
                let mut moves = predicted;
                moves[0] = mine;
                for column in 1..PLAYERS {
                    if unit(&mut rng) < surprise[column] {
                        moves[column] = random_move(&mut rng, slots, rules.targets);
                    }
                }
                if !odd {
                    for (column, counts) in moves.iter().enumerate() {
                        sim.models[column].my_holiday_move =
                            std::array::from_fn(|t| counts[t] as u16);
                    }
                }
                sim.apply_moves(&rules, &moves);
                sim.finish_turn(&rules);
                play_out(&mut sim, &rules, &surprise, &mut rng);
                sum += utility(&sim.totals);
            }
            if sum > best.0 {
                best = (sum, index);
            }
        }
        let chosen = set.counts[best.1];
        if !odd {
            world.models[0].my_holiday_move = std::array::from_fn(|t| chosen[t] as u16);
        }
        predicted[0] = chosen;
        self.predicted = predicted;
        self.world = Some(world);
        chosen
    }
}

/// Plays the simulated game to its end: every player follows its model, opponents sometimes a
/// random move instead.
fn play_out(sim: &mut World, rules: &Rules, surprise: &[f64; PLAYERS], rng: &mut BotRng) {
    while sim.turn <= rules.turns {
        let slots = if sim.turn % 2 == 1 { 5 } else { 2 };
        let set = candidate_set(slots, rules.targets);
        let mut moves = [[0u8; MAX_TARGETS]; PLAYERS];
        for (column, counts) in moves.iter_mut().enumerate() {
            let seen = sim.observe(rules, column);
            let index = sim.models[column].decide(&seen);
            *counts = set.counts[index];
            if column > 0 && unit(rng) < surprise[column] {
                *counts = random_move(rng, slots, rules.targets);
                if slots == 2 {
                    sim.models[column].my_holiday_move = std::array::from_fn(|t| counts[t] as u16);
                }
            }
        }
        sim.apply_moves(rules, &moves);
        sim.finish_turn(rules);
    }
}

/// A win is worth 1, a draw ½; the margin over the best opponent breaks near-ties between candidates.
fn utility(totals: &[i64; PLAYERS]) -> f64 {
    let best_other = totals[1..].iter().copied().max().unwrap_or(0);
    let margin = totals[0] - best_other;
    let result = match margin.signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    };
    result + 0.003 * margin as f64 / 24.0
}

/// This player's share of one target's scoring with `mine` believers against `others`, in 1/24.
fn standing_24ths(value: i64, mine: u16, others: &[u16; PLAYERS - 1]) -> i64 {
    const SHARE_24THS: [i64; PLAYERS + 1] = [0, 24, 12, 8, 6];
    let max = others.iter().copied().max().unwrap_or(0);
    let min = others.iter().copied().min().unwrap_or(0);
    let mut score = 0;
    if mine >= max {
        let tops = 1 + others.iter().filter(|&&o| o == mine).count();
        score += value * SHARE_24THS[tops];
    }
    if mine <= min {
        let bottoms = 1 + others.iter().filter(|&&o| o == mine).count();
        score -= value * SHARE_24THS[bottoms];
    }
    score
}

/// Splits the opponents' holiday actions `pool` (per target) between them: each keeps the slots of
/// its predicted move that the pool still has, then the slots left over go, in target order, to the
/// opponents whose predictions missed.
fn fit_to_pool(
    predicted: &[Counts; PLAYERS],
    mut pool: Counts,
    targets: usize,
) -> [Counts; PLAYERS] {
    let mut fitted = [[0u8; MAX_TARGETS]; PLAYERS];
    let mut missing = [0u8; PLAYERS];
    for column in 1..PLAYERS {
        for target in 0..targets {
            let keep = predicted[column][target].min(pool[target]);
            fitted[column][target] = keep;
            pool[target] -= keep;
            missing[column] += predicted[column][target] - keep;
        }
    }
    let mut column = 1;
    for target in 0..targets {
        while pool[target] > 0 {
            while column < PLAYERS && missing[column] == 0 {
                column += 1;
            }
            if column == PLAYERS {
                return fitted;
            }
            fitted[column][target] += 1;
            pool[target] -= 1;
            missing[column] -= 1;
        }
    }
    fitted
}

fn unit(rng: &mut BotRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// What the official sample AIs play: every slot a uniformly random target.
fn random_move(rng: &mut BotRng, slots: usize, targets: usize) -> Counts {
    let mut counts = [0u8; MAX_TARGETS];
    for _ in 0..slots {
        counts[below(rng, targets as u32) as usize] += 1;
    }
    counts
}

impl Bot<LangWars> for MonteCarloBot {
    fn act(&mut self, obs: &Observation) -> Move {
        let counts = self.decide(obs);
        let mut picks = [0u8; MAX_SLOTS];
        let mut slot = 0;
        for (target, &n) in counts.iter().enumerate() {
            for _ in 0..n {
                if slot < MAX_SLOTS {
                    picks[slot] = target as u8;
                    slot += 1;
                }
            }
        }
        Move::from_slots(picks, obs.slots())
    }

    fn reset(&mut self, seed: u64) -> bool {
        *self = MonteCarloBot::new(seed, self.budget);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_fitting_keeps_hits_and_hands_out_the_rest() {
        let mut predicted = [[0u8; MAX_TARGETS]; PLAYERS];
        predicted[1][0] = 2;
        predicted[2][1] = 2;
        predicted[3][0] = 1;
        predicted[3][2] = 1;
        let mut pool = [0u8; MAX_TARGETS];
        pool[0] = 2;
        pool[1] = 2;
        pool[3] = 2;
        let fitted = fit_to_pool(&predicted, pool, 6);
        assert_eq!(fitted[1][..4], [2, 0, 0, 0]);
        assert_eq!(fitted[2][..4], [0, 2, 0, 0]);
        assert_eq!(fitted[3][..4], [0, 0, 0, 2]);
    }

    #[test]
    fn standing_splits_ties() {
        assert_eq!(standing_24ths(6, 3, &[3, 1, 0]), 6 * 12);
        assert_eq!(standing_24ths(6, 0, &[3, 1, 0]), -6 * 12);
        assert_eq!(standing_24ths(6, 0, &[0, 0, 0]), 0);
    }
}

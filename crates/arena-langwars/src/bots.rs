//! Built-in bots. Each runs in process on typed observations, or as an external program through
//! `arena bot GAME NAME` (the same code behind the real protocol).
//!
//! The list of built-in bots, in the order `arena list` shows them, is in the `catalog` module, which
//! also names the searching bot (whose module imports this one for greedy). Written without a link:
//! this module refers to neither.

use arena_game::Bot;
use arena_game::seed::{BotRng, bot_rng};
use std::sync::OnceLock;

use rand_core::RngCore;

use crate::engine::{LangWars, MAX_SLOTS, MAX_TARGETS, Move, Observation, PLAYERS};

/// What the official sample AIs do: every slot a uniformly random target.
pub struct RandomBot {
    rng: BotRng,
}

impl RandomBot {
    pub fn new(seed: u64) -> Self {
        RandomBot { rng: bot_rng(seed) }
    }
}

impl Bot<LangWars> for RandomBot {
    fn act(&mut self, obs: &Observation) -> Move {
        // Each pick is a 32-bit draw scaled to the target count (Lemire's multiply-shift; the bias is
        // below 2^-29 for 8 targets). Independent picks keep the multiplications off one long chain.
        let slots = obs.slots();
        let targets = obs.targets as u64;
        let scale = |draw: u64| (((draw & 0xffff_ffff) * targets) >> 32) as u8;
        let mut picks = [0u8; MAX_SLOTS];
        let first = self.rng.next_u64();
        picks[0] = scale(first);
        picks[1] = scale(first >> 32);
        if slots > 2 {
            let second = self.rng.next_u64();
            picks[2] = scale(second);
            picks[3] = scale(second >> 32);
            picks[4] = scale(self.rng.next_u64());
        }
        Move::from_slots(picks, slots)
    }

    fn reset(&mut self, seed: u64) -> bool {
        self.rng = bot_rng(seed);
        true
    }
}

/// Round-robin over the targets in order of value, carrying on where the last turn stopped.
#[derive(Default)]
pub struct SpreadBot {
    next: usize,
}

impl Bot<LangWars> for SpreadBot {
    fn act(&mut self, obs: &Observation) -> Move {
        let order = by_value(obs);
        let mut picks = [0u8; MAX_SLOTS];
        for pick in picks.iter_mut().take(obs.slots()) {
            *pick = order[self.next % obs.targets] as u8;
            self.next += 1;
        }
        Move::from_slots(picks, obs.slots())
    }
}

/// Targets sorted by value, highest first (ties by index).
fn by_value(obs: &Observation) -> Vec<usize> {
    let mut order: Vec<usize> = (0..obs.targets).collect();
    order.sort_by_key(|&t| (std::cmp::Reverse(obs.values[t]), t));
    order
}

/// Priorities by value: targets 1–2 must be led, targets 3–5 must not be last, the rest are given up.
/// Each action goes to the first priority target where it is not yet ahead by a margin (the real
/// believers of the others are unknown, so it compares visible counts with visible counts).
pub struct FocusBot;

impl Bot<LangWars> for FocusBot {
    fn act(&mut self, obs: &Observation) -> Move {
        let order = by_value(obs);
        let mut mine: Vec<i32> = (0..obs.targets).map(|t| obs.visible(t, 0) as i32).collect();
        let mut picks = [0u8; MAX_SLOTS];
        for pick in picks.iter_mut().take(obs.slots()) {
            let need = |target: usize, mine: &[i32], rank: usize| -> i32 {
                let others: Vec<i32> = (1..PLAYERS)
                    .map(|c| obs.visible(target, c) as i32)
                    .collect();
                let best = others.iter().copied().max().unwrap_or(0);
                let worst = others.iter().copied().min().unwrap_or(0);
                if rank < 2 {
                    best + 2 - mine[target]
                } else {
                    worst + 1 - mine[target]
                }
            };
            let choice = order
                .iter()
                .take(5.min(obs.targets))
                .enumerate()
                .map(|(rank, &target)| (need(target, &mine, rank), target))
                .filter(|&(gap, _)| gap > 0)
                .max_by_key(|&(gap, target)| (gap.min(3), std::cmp::Reverse(target)))
                .map_or(order[0], |(_, target)| target);
            mine[choice] += 1;
            *pick = choice as u8;
        }
        Move::from_slots(picks, obs.slots())
    }
}

/// A strategy of the kind 2014 participants wrote (`games/langwars-reference.md` §8): it keeps an
/// estimate of each opponent's hidden believers, spreading the opponents' share of each published
/// holiday count evenly between them, and plays the multiset of targets that maximises its expected
/// score on the estimated table after this turn.
#[derive(Default)]
pub struct GreedyBot {
    core: GreedyCore,
}

/// Greedy's whole state and decision. Copyable, so that the Monte Carlo bot can run replicas of it
/// (for opponents and for itself) inside simulated games.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GreedyCore {
    /// Estimated hidden believers per target of the opponents (observation columns 1..=3).
    hidden: [[f64; PLAYERS]; MAX_TARGETS],
    previous_real: [u16; MAX_TARGETS],
    /// This player's actions of the last holiday, per target (set by `decide`; a replica's owner may
    /// overwrite it with what the player is believed to have played).
    pub(crate) my_holiday_move: [u16; MAX_TARGETS],
    had_hidden: bool,
}

impl GreedyCore {
    fn update_estimates(&mut self, obs: &Observation) {
        let targets = obs.targets;
        let own_hidden = (0..targets).any(|t| obs.real(t) != obs.visible(t, 0));
        if self.had_hidden && !own_hidden {
            // The full reveal (after turn 5 in Lang Wars 2 / N&C): the visible table is the real one.
            self.hidden = [[0.0; PLAYERS]; MAX_TARGETS];
        }
        self.had_hidden = own_hidden;
        if !obs.is_odd_turn() {
            return;
        }
        let my_actions: u16 = self.my_holiday_move.iter().sum();
        if my_actions == 0 {
            return;
        }
        // My own real gain over the holiday tells how much one holiday action is worth.
        let gained: u16 = (0..targets)
            .map(|t| obs.real(t).saturating_sub(self.previous_real[t]))
            .sum();
        let gain_per_action = gained as f64 / my_actions as f64;
        for target in 0..targets {
            let others = obs
                .count(target)
                .unwrap_or(0)
                .saturating_sub(self.my_holiday_move[target]) as f64;
            for column in 1..PLAYERS {
                self.hidden[target][column] += others / (PLAYERS - 1) as f64 * gain_per_action;
            }
        }
        self.my_holiday_move = [0; MAX_TARGETS];
    }

    /// The chosen move as an index into `candidate_set(obs.slots(), obs.targets)`.
    pub(crate) fn decide(&mut self, obs: &Observation) -> usize {
        self.update_estimates(obs);
        let targets = obs.targets.min(MAX_TARGETS);
        let slots = obs.slots();
        let odd = obs.is_odd_turn();
        // One action is worth 1 on weekdays; on holidays 1 in the 8-language edition, 2 in the others.
        let gain = if odd || targets == 8 { 1.0 } else { 2.0 };
        // Opponents act at the same time: expect each to spread this turn's actions evenly.
        let their_turn = slots as f64 * gain / targets as f64;
        let real: [u16; MAX_TARGETS] =
            std::array::from_fn(|t| if t < targets { obs.real(t) } else { 0 });
        // A candidate's score is a sum over targets of a standing that depends only on how many of its
        // slots name the target: tabulate those standings once instead of once per candidate.
        let mut table = [[0.0f64; MAX_SLOTS + 1]; MAX_TARGETS];
        for (target, row) in table.iter_mut().enumerate().take(targets) {
            let estimates: [f64; PLAYERS - 1] = std::array::from_fn(|index| {
                let column = index + 1;
                obs.visible(target, column) as f64 + self.hidden[target][column] + their_turn
            });
            let mut added = 0.0;
            for (count, cell) in row.iter_mut().enumerate().take(slots + 1) {
                if count > 0 {
                    added += gain;
                }
                *cell = standing(
                    obs.values[target] as f64,
                    real[target] as f64 + added,
                    &estimates,
                );
            }
        }
        let set = candidate_set(slots, targets);
        let mut best = (0usize, f64::MIN);
        for (index, counts) in set.counts.iter().enumerate() {
            let mut total = 0.0;
            for target in 0..targets {
                total += table[target][counts[target] as usize];
            }
            if total > best.1 {
                best = (index, total);
            }
        }
        self.previous_real = real;
        if !odd {
            for &target in &set.picks[best.0][..slots] {
                self.my_holiday_move[target as usize] += 1;
            }
        }
        best.0
    }
}

/// Every multiset of `slots` targets among `targets`, in the order `multisets` makes them, as the
/// sorted targets and as counts per target.
pub(crate) struct CandidateSet {
    pub(crate) picks: Vec<[u8; MAX_SLOTS]>,
    pub(crate) counts: Vec<[u8; MAX_TARGETS]>,
}

/// The candidate moves of a turn shape, built once per process.
pub(crate) fn candidate_set(slots: usize, targets: usize) -> &'static CandidateSet {
    static SETS: [[OnceLock<CandidateSet>; MAX_TARGETS + 1]; MAX_SLOTS + 1] =
        [const { [const { OnceLock::new() }; MAX_TARGETS + 1] }; MAX_SLOTS + 1];
    let (slots, targets) = (slots.min(MAX_SLOTS), targets.clamp(1, MAX_TARGETS));
    SETS[slots][targets].get_or_init(|| {
        let mut picks = Vec::new();
        let mut current = [0u8; MAX_SLOTS];
        multisets(slots, targets, 0, 0, &mut current, &mut picks);
        let counts = picks
            .iter()
            .map(|pick| {
                let mut counts = [0u8; MAX_TARGETS];
                for &target in &pick[..slots] {
                    counts[target as usize] += 1;
                }
                counts
            })
            .collect();
        CandidateSet { picks, counts }
    })
}

/// Every non-decreasing sequence of `slots` targets (multisets).
fn multisets(
    slots: usize,
    targets: usize,
    position: usize,
    from: u8,
    current: &mut [u8; MAX_SLOTS],
    out: &mut Vec<[u8; MAX_SLOTS]>,
) {
    if position == slots {
        out.push(*current);
        return;
    }
    for target in from..targets as u8 {
        current[position] = target;
        multisets(slots, targets, position + 1, target, current, out);
    }
}

/// Expected share of `value` for a player with `mine` believers against estimated opponents: near-equal
/// estimates (within half a believer) count as ties, split as the rules split them.
fn standing(value: f64, mine: f64, others: &[f64]) -> f64 {
    const TIE: f64 = 0.5;
    let max = others.iter().copied().fold(f64::MIN, f64::max);
    let min = others.iter().copied().fold(f64::MAX, f64::min);
    let mut score = 0.0;
    if mine > max + TIE {
        score += value;
    } else if mine >= max - TIE {
        let tied = 1 + others
            .iter()
            .filter(|&&o| o >= mine - TIE && o >= max - TIE)
            .count();
        score += value / tied as f64;
    }
    if mine < min - TIE {
        score -= value;
    } else if mine <= min + TIE {
        let tied = 1 + others
            .iter()
            .filter(|&&o| o <= mine + TIE && o <= min + TIE)
            .count();
        score -= value / tied as f64;
    }
    score
}

impl Bot<LangWars> for GreedyBot {
    fn act(&mut self, obs: &Observation) -> Move {
        let index = self.core.decide(obs);
        let slots = obs.slots();
        let set = candidate_set(slots, obs.targets);
        Move::new(&set.picks[index][..slots])
    }
}

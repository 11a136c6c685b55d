//! Built-in bots: the three official bosses (reference §5) and `planner`, a rule-based day planner.
//!
//! The list of built-in bots, in the order `arena list` shows them, is in the `catalog` module, which
//! also names the searching bot (whose module imports this one for planner). Written without a link:
//! this module refers to neither.

use std::sync::LazyLock;

use arena_game::Bot;

use crate::board::{BOARD, DIST, RANGE, RAY, bits};
use crate::game::{Action, Cmd, Obs, Spring2021};
use crate::pyrand::{PyRandom, Recording, Replay};

/// The seed of the official boss: `random.seed('🌱')` ("Get it?").
pub const BOSS_SEED: &str = "🌱";

/// Outputs of Python's `random` after `random.seed(BOSS_SEED)`, recorded once per process. A boss
/// draws a word or two per move and makes some tens of moves a game, so 2048 words cover a game;
/// a longer one goes on from a copy of the generator (see `Replay`).
static BOSS_WORDS: LazyLock<Recording> =
    LazyLock::new(|| Recording::new(PyRandom::from_str_seed(BOSS_SEED), 2048));

/// `config/Boss.py`: Python's `random.choice` over the listed non-WAIT moves, in the listed order,
/// with `random` seeded by the string `'🌱'` once per game (WAIT when nothing else is listed). The
/// game seed does not enter: like the official boss, it plays the same moves for the same inputs.
///
/// In process, the choice is made among `total_possible()` moves and only the chosen one is looked up
/// in the listing (`Obs::listed_nth`); reading the input text, the list is read.
pub struct RandomBot {
    rng: Replay,
    moves: Vec<Cmd>,
    draws: Vec<u32>,
}

impl RandomBot {
    pub fn new() -> Self {
        RandomBot {
            rng: Replay::new(&BOSS_WORDS),
            moves: Vec::new(),
            draws: Vec::new(),
        }
    }
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot::new()
    }
}

impl Bot<Spring2021> for RandomBot {
    fn act(&mut self, obs: &Obs) -> Action {
        if obs.listed.is_empty() {
            let total = obs.total_possible();
            if total == 0 {
                return Action::WAIT;
            }
            let k = self.rng.randbelow(total);
            return Action::new(obs.listed_nth(k, &mut self.draws).unwrap_or(Cmd::Wait));
        }
        self.moves.clear();
        self.moves
            .extend(obs.listed.iter().copied().filter(|cmd| *cmd != Cmd::Wait));
        Action::new(self.rng.choice(&self.moves).copied().unwrap_or(Cmd::Wait))
    }

    fn reset(&mut self, _seed: u64) -> bool {
        self.rng.rewind();
        true
    }
}

/// `config/level1/Boss.py` and `config/level2/Boss.py`: `moves.sort(key=evaluate, reverse=True)` over
/// the listed moves, with `evaluate = (is_complete, is_grow, is_seed, -index)` (index: the last number,
/// the target of a SEED), and play the second move (`moves[1 % len]`). Python's sort is stable, also
/// with `reverse`, so equal keys (SEEDs to the same target) stay in the listed order.
pub struct SortedBoss {
    wood1: bool,
    moves: Vec<Cmd>,
}

impl SortedBoss {
    pub fn new(wood1: bool) -> Self {
        SortedBoss {
            wood1,
            moves: Vec::new(),
        }
    }
}

/// The official bosses' `evaluate(move)`.
fn evaluate(cmd: &Cmd) -> (bool, bool, bool, i64) {
    match *cmd {
        Cmd::Complete(i) => (true, false, false, -i64::from(i)),
        Cmd::Grow(i) => (false, true, false, -i64::from(i)),
        Cmd::Seed(_, t) => (false, false, true, -i64::from(t)),
        Cmd::Wait => (false, false, false, -999),
    }
}

impl Bot<Spring2021> for SortedBoss {
    fn act(&mut self, obs: &Obs) -> Action {
        obs.listed_into(&mut self.moves);
        if self.moves.is_empty() {
            return Action::WAIT;
        }
        // `sort_by_key` is stable: descending keys, listed order among equals, as Python's `reverse=True`.
        self.moves
            .sort_by_key(|cmd| std::cmp::Reverse(evaluate(cmd)));
        if self.wood1 && matches!(self.moves[0], Cmd::Complete(_)) && obs.score[0] == 0 {
            return Action::new(self.moves[0]);
        }
        Action::new(self.moves[1 % self.moves.len()])
    }
}

/// A day planner with fixed rules, in the move order that is cheapest in sun (COMPLETE, then GROW from
/// the biggest tree, then SEED):
/// - COMPLETE when the remaining days no longer let the sun pay back more than the points now, or to
///   keep about one completion per day in the second half of a Bronze game;
/// - GROW only a tree that can still reach size 3 and be completed before the end;
/// - SEED only for free, early enough to grow, on the richest cell no closer than 2 to its own trees;
/// - WAIT otherwise.
#[derive(Clone, Copy, Debug, Default)]
pub struct Planner {
    pub params: PlannerParams,
}

/// The planner's thresholds (public so that variants can be compared head to head).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlannerParams {
    /// First day on which a tall tree is completed before the last day (Bronze+).
    pub first_complete_day: u32,
    /// Complete when at least this many tall trees stand.
    pub tall_cap: u32,
    /// Complete every day from this many days before the end.
    pub endgame_days: u32,
    /// Highest seed cost the planner pays.
    pub max_seed_cost: i32,
    /// No seeding when fewer days remain.
    pub min_seed_days: u32,
}

impl Default for PlannerParams {
    fn default() -> Self {
        PlannerParams {
            first_complete_day: 11,
            tall_cap: 5,
            endgame_days: 5,
            max_seed_cost: 0,
            min_seed_days: 5,
        }
    }
}

impl Planner {
    fn complete(&self, obs: &Obs, days_left: u32) -> Option<Cmd> {
        let awake = obs.mine & !obs.dormant;
        let ready = awake & obs.size[3];
        if ready == 0 || obs.sun[0] < 4 {
            return None;
        }
        let best = bits(ready).max_by_key(|&c| (obs.richness(c), std::cmp::Reverse(c)))?;
        let points = obs.nutrients + crate::board::richness_bonus(obs.richness(best));
        let tall = (obs.mine & obs.size[3]).count_ones();
        let short_game = obs.max_days() <= 6;
        let want = if short_game {
            true
        } else if days_left == 0 {
            // 4 sun is worth 1 point at the end; a completion must beat that.
            points >= 2
        } else {
            // Second half: keep the number of tall trees about the number of days left, and
            // complete at least when there are many.
            let p = &self.params;
            obs.day >= p.first_complete_day
                && (tall > days_left.min(p.tall_cap)
                    || tall >= p.tall_cap
                    || days_left <= p.endgame_days)
        };
        want.then_some(Cmd::Complete(best as u32))
    }

    fn grow(&self, obs: &Obs, days_left: u32) -> Option<Cmd> {
        let awake = obs.mine & !obs.dormant;
        let sun = obs.sun[0];
        if !obs.grow_enabled {
            return None;
        }
        for size in (0..3).rev() {
            // Reaching size 3 takes 3 - size more days (one growth per day), then a completion.
            if days_left + 1 < (3 - size as u32) + u32::from(obs.max_days() > 6) {
                continue;
            }
            if obs.cost(size + 1) > sun {
                continue;
            }
            let candidates = awake & obs.size[size];
            let tomorrow = next_day_shadow(obs, size + 1);
            let best = bits(candidates).max_by_key(|&c| {
                (
                    u8::from(tomorrow >> c & 1 == 0),
                    obs.richness(c),
                    std::cmp::Reverse(c),
                )
            });
            if let Some(cell) = best {
                return Some(Cmd::Grow(cell as u32));
            }
        }
        None
    }

    fn seed(&self, obs: &Obs, days_left: u32) -> Option<Cmd> {
        if !obs.seed_enabled
            || obs.cost(0) > self.params.max_seed_cost
            || obs.cost(0) > obs.sun[0]
            || days_left < self.params.min_seed_days
        {
            return None;
        }
        let awake = obs.mine & !obs.dormant;
        let free = BOARD & !obs.holes & !obs.trees();
        let mut best: Option<(i32, usize, usize)> = None;
        for size in 1..4 {
            for source in bits(awake & obs.size[size]) {
                for target in bits(RANGE[source][size] & free) {
                    let near_own = bits(obs.mine).any(|own| DIST[own][target] <= 1);
                    if near_own {
                        continue;
                    }
                    let crowd = bits(obs.trees()).filter(|&t| DIST[t][target] <= 2).count() as i32;
                    let value = obs.richness(target) as i32 * 4 - crowd;
                    if best.is_none_or(|(v, _, _)| value > v) {
                        best = Some((value, source, target));
                    }
                }
            }
        }
        best.map(|(_, s, t)| Cmd::Seed(s as u32, t as u32))
    }
}

/// Cells shaded tomorrow enough to stop a tree of `size` (today's trees, tomorrow's sun).
fn next_day_shadow(obs: &Obs, size: usize) -> u64 {
    let dir = ((obs.day + 1) % 6) as usize;
    let mut shade = 0;
    for caster in size.max(1)..4 {
        for cell in bits(obs.size[caster]) {
            shade |= RAY[dir][cell][caster];
        }
    }
    shade
}

impl Bot<Spring2021> for Planner {
    fn act(&mut self, obs: &Obs) -> Action {
        let days_left = obs.max_days().saturating_sub(obs.day + 1);
        let cmd = self
            .complete(obs, days_left)
            .or_else(|| self.grow(obs, days_left))
            .or_else(|| self.seed(obs, days_left))
            .unwrap_or(Cmd::Wait);
        Action::new(cmd)
    }
}

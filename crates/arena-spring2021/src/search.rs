//! `search`: a rollout search with the exact rules.
//!
//! Each answer rebuilds the position from the observation (`Spring2021::from_obs`), lists the legal
//! moves exactly as the referee does (`Obs::for_each_possible`, so an illegal move is impossible),
//! keeps the candidates (the rule player's move, WAIT, every COMPLETE and GROW, the 4 best SEED
//! targets, and no SEED at all while a seed of mine is on the board) and plays each to the end of
//! the game with the engine itself: the candidate now, then rule players for both sides (`planner`
//! with later completions for me, `planner` as it is for the opponent, who is asked on the same
//! positions as in a real game, simultaneous moves included). The value of a candidate is the final
//! score difference (points, sun / 3, the tie-break on trees) with a bonus for winning. Then a beam
//! over the rest of my day: the 4 best lines are extended by each of my candidate moves of the same
//! day (the opponent's answers in between from the model), each extension valued by its rollout, up
//! to 8 moves; a root candidate is worth its best line. It is policy improvement over the rule
//! player, redone at every answer, with a lookahead to the end of the game.
//!
//! The search is bounded by a step budget (one step = one simulated answer, about 0.2-0.3 µs), never
//! by the clock: the move depends only on the position, so a game is reproducible, and the bot
//! draws nothing at random. Decisions take well under 5 ms of CPU (the `search_timing` example).

use arena_game::{Answer, Bot, Game};

use crate::board::{BOARD, DIST, bits};
use crate::bots::{Planner, PlannerParams};
use crate::game::{Action, Cmd, Obs, Spring2021};

/// Simulated answers per decision (later answers).
pub const STEP_BUDGET: u64 = 20_000;
/// Simulated answers for the first answer of a game (1000 ms limit instead of 100 ms).
pub const FIRST_STEP_BUDGET: u64 = 100_000;
/// SEED candidates kept (best targets by a cheap score).
const SEED_CANDIDATES: usize = 4;
/// My rule player in the rollouts: `planner` completing two days later and completing daily over
/// the last 7 days instead of 5 (tuned in self-play: 58 % against rolling out with `planner` itself,
/// then 57 % for 7 days over 6; 400 games each); the other player is modelled by `planner` as it is.
const ROLLOUT_POLICY: PlannerParams = PlannerParams {
    first_complete_day: 13,
    tall_cap: 5,
    endgame_days: 7,
    max_seed_cost: 0,
    min_seed_days: 5,
};
/// See `SearchBot::deepen` (beam width; 4 wide and 8 deep: 61 % against 3 wide and 2 deep, 400
/// games in self-play).
const DEEPEN: usize = 4;
/// See `SearchBot::depth`.
const DEPTH: usize = 8;
/// See `SearchBot::win_bonus`.
const WIN_BONUS: i64 = 20;
/// See `SearchBot::max_own_seeds`.
const MAX_OWN_SEEDS: u32 = 1;

/// The search bot; `budget` and `first_budget` are in simulated answers.
#[derive(Clone, Debug)]
pub struct SearchBot {
    pub budget: u64,
    pub first_budget: u64,
    /// Simulated answers spent on the last decision (for measurements).
    pub last_steps: u64,
    first: bool,
    /// My moves after the searched ones.
    pub policy: Planner,
    /// The other player's moves.
    pub model: Planner,
    obs: Obs,
    legal: Vec<Cmd>,
    candidates: Vec<Cmd>,
    second: Vec<Cmd>,
    seeds: Vec<(i32, Cmd)>,
    /// SEED candidates kept per position (best targets by a cheap score).
    pub seed_candidates: usize,
    /// Beam width: lines (best first) extended by one more of my moves of the same day.
    pub deepen: usize,
    /// My moves of the day searched in a line (1 = only the root candidates).
    pub depth: usize,
    /// No SEED candidate while I have this many seeds on the board (the rollouts, where seeds are
    /// grown by the rule player, tend to overrate more).
    pub max_own_seeds: u32,
    /// Value of winning over losing, in quarter points of margin.
    pub win_bonus: i64,
    /// Whether a SEED next to one of my trees may be a candidate (they would shade each other).
    pub seed_next_to_own: bool,
}

impl Default for SearchBot {
    fn default() -> Self {
        SearchBot::with_budget(STEP_BUDGET, FIRST_STEP_BUDGET)
    }
}

impl SearchBot {
    pub fn with_budget(budget: u64, first_budget: u64) -> Self {
        SearchBot {
            budget,
            first_budget,
            last_steps: 0,
            first: true,
            policy: Planner {
                params: ROLLOUT_POLICY,
            },
            model: Planner::default(),
            obs: Obs::default(),
            legal: Vec::new(),
            candidates: Vec::new(),
            second: Vec::new(),
            seeds: Vec::new(),
            seed_candidates: SEED_CANDIDATES,
            deepen: DEEPEN,
            depth: DEPTH,
            max_own_seeds: MAX_OWN_SEEDS,
            win_bonus: WIN_BONUS,
            seed_next_to_own: true,
        }
    }

    /// The candidates in the order they are tried (the budget may stop before the last): the rule
    /// player's move, WAIT, every COMPLETE and GROW, the best few SEEDs.
    fn candidates(&mut self, obs: &Obs, out: &mut Vec<Cmd>) {
        self.legal.clear();
        obs.for_each_possible(|_, cmd| self.legal.push(cmd));
        out.clear();
        let mut policy = self.policy;
        let first = policy.act(obs).cmd;
        // The rule player only picks listed moves; checked anyway, as a bot must never play an
        // illegal move.
        if first == Cmd::Wait || self.legal.contains(&first) {
            out.push(first);
        }
        if !out.contains(&Cmd::Wait) {
            out.push(Cmd::Wait);
        }
        for &cmd in &self.legal {
            if matches!(cmd, Cmd::Complete(_)) && !out.contains(&cmd) {
                out.push(cmd);
            }
        }
        // Bigger trees first: they are the likelier good growths.
        for size in (0..3).rev() {
            for &cmd in &self.legal {
                if let Cmd::Grow(cell) = cmd
                    && obs.size[size] >> cell & 1 == 1
                    && !out.contains(&cmd)
                {
                    out.push(cmd);
                }
            }
        }
        // One source per target (the smallest tree: seeding puts the source to sleep), targets
        // ranked by richness, away from my trees (they would shade each other), away from crowds.
        self.seeds.clear();
        if (obs.mine & obs.size[0]).count_ones() >= self.max_own_seeds {
            return;
        }
        let free = BOARD & !obs.holes & !obs.trees();
        for &cmd in &self.legal {
            let Cmd::Seed(source, target) = cmd else {
                continue;
            };
            let (source, target) = (source as usize, target as usize);
            if free >> target & 1 == 0 {
                continue;
            }
            let near_own = bits(obs.mine).filter(|&t| DIST[t][target] <= 1).count() as i32;
            if near_own > 0 && !self.seed_next_to_own {
                continue;
            }
            let crowd = bits(obs.trees()).filter(|&t| DIST[t][target] <= 2).count() as i32;
            let source_size = obs.size_of(source).unwrap_or(3) as i32;
            let value =
                i32::from(obs.richness(target)) * 16 - near_own * 24 - crowd * 4 - source_size;
            if let Some(slot) = self
                .seeds
                .iter_mut()
                .find(|(_, c)| matches!(c, Cmd::Seed(_, t) if *t as usize == target))
            {
                if value > slot.0 {
                    *slot = (value, cmd);
                }
            } else {
                self.seeds.push((value, cmd));
            }
        }
        // Stable sort: equal values keep the listing order, so the choice is reproducible.
        self.seeds
            .sort_by_key(|&(value, _)| std::cmp::Reverse(value));
        for &(_, cmd) in self.seeds.iter().take(self.seed_candidates) {
            if !out.contains(&cmd) {
                out.push(cmd);
            }
        }
    }

    /// The move to play: every candidate played out once; then, best first while the budget lasts,
    /// the candidates followed by each of my candidate moves of the same day (my moves of a day are
    /// a sequence, and a move can be worth it only for the one it allows next).
    pub fn decide(&mut self, obs: &Obs) -> Cmd {
        let budget = if self.first {
            self.first_budget
        } else {
            self.budget
        };
        self.first = false;
        let mut root_moves = std::mem::take(&mut self.candidates);
        self.candidates(obs, &mut root_moves);
        self.last_steps = 0;
        if root_moves.len() == 1 {
            let only = root_moves[0];
            self.candidates = root_moves;
            return only;
        }
        let me = usize::from(obs.player & 1);
        let root = Spring2021::from_obs(obs);
        let mut steps = 0u64;
        let mut values: Vec<(i64, usize)> = Vec::with_capacity(root_moves.len());
        for (i, &cmd) in root_moves.iter().enumerate() {
            // At least the rule player's move and WAIT are weighed.
            if i >= 2 && steps >= budget {
                break;
            }
            let mut game = root.clone();
            let value = self.rollout(&mut game, me, cmd, &mut steps);
            values.push((value, i));
        }
        // Best first; equal values keep the candidates' order (stable sort), so ties are reproducible.
        values.sort_by_key(|&(value, _)| std::cmp::Reverse(value));
        // A beam over my next moves of the same day: the `deepen` best lines of each level are
        // extended by each of my candidate moves, every extension valued by its rollout; a root
        // candidate is worth its best line.
        let mut second = std::mem::take(&mut self.second);
        let mut frontier: Vec<(i64, usize, Spring2021)> = Vec::new();
        for &(value, i) in values.iter().take(self.deepen) {
            let mut game = root.clone();
            // The other player may be asked first in this frame.
            if !self.play_until_mine(&mut game, me, obs.day, &mut steps) {
                continue;
            }
            game.apply(me, Answer::Action(Action::new(root_moves[i])));
            if self.play_until_mine(&mut game, me, obs.day, &mut steps) {
                frontier.push((value, i, game));
            }
        }
        for level in 2..=self.depth {
            let mut next: Vec<(i64, usize, Spring2021)> = Vec::new();
            for (_, root_index, game) in &frontier {
                if steps >= budget {
                    break;
                }
                game.clone().observe(me, &mut self.obs);
                let here = self.obs.clone();
                self.candidates(&here, &mut second);
                for &cmd in &second {
                    if steps >= budget {
                        break;
                    }
                    let mut line = game.clone();
                    let value = self.rollout(&mut line, me, cmd, &mut steps);
                    if let Some(slot) = values.iter_mut().find(|(_, i)| i == root_index)
                        && value > slot.0
                    {
                        slot.0 = value;
                    }
                    if level < self.depth {
                        let mut child = game.clone();
                        child.apply(me, Answer::Action(Action::new(cmd)));
                        if self.play_until_mine(&mut child, me, obs.day, &mut steps) {
                            next.push((value, *root_index, child));
                        }
                    }
                }
            }
            // Stable: equal values keep the order they were found in.
            next.sort_by_key(|&(value, _, _)| std::cmp::Reverse(value));
            next.truncate(self.deepen);
            frontier = next;
            if frontier.is_empty() {
                break;
            }
        }
        self.second = second;
        // The first best (candidate order among equals).
        let mut best = values[0];
        for &(value, i) in &values {
            if value > best.0 || (value == best.0 && i < best.1) {
                best = (value, i);
            }
        }
        let cmd = root_moves[best.1];
        self.candidates = root_moves;
        self.last_steps = steps;
        cmd
    }

    /// Plays the other player's answers (the rule player) until I am asked again on `day`: false if
    /// the day or the game ended first.
    fn play_until_mine(
        &mut self,
        game: &mut Spring2021,
        me: usize,
        day: u32,
        steps: &mut u64,
    ) -> bool {
        let mut model = self.model;
        while let Some(player) = game.to_act() {
            if game.day() != day {
                return false;
            }
            if player == me {
                return true;
            }
            game.observe(player, &mut self.obs);
            let action = model.act(&self.obs);
            game.apply(player, Answer::Action(action));
            *steps += 1;
        }
        false
    }

    /// Plays `cmd` for `me`, then the rule player for both to the end; my final margin.
    fn rollout(&mut self, game: &mut Spring2021, me: usize, cmd: Cmd, steps: &mut u64) -> i64 {
        let mut policy = self.policy;
        let mut model = self.model;
        let mut mine_done = false;
        while let Some(player) = game.to_act() {
            game.observe(player, &mut self.obs);
            let action = if player == me && !mine_done {
                mine_done = true;
                Action::new(cmd)
            } else if player == me {
                policy.act(&self.obs)
            } else {
                model.act(&self.obs)
            };
            game.apply(player, Answer::Action(action));
            *steps += 1;
        }
        margin(game, me, self.win_bonus)
    }
}

/// Final score difference from `me`'s side (in quarter points) plus `win_bonus` for the result:
/// the tie-break on trees decides equal scores.
fn margin(game: &Spring2021, me: usize, win_bonus: i64) -> i64 {
    let score = game.score();
    let sun = game.sun();
    let final_of = |p: usize| i64::from(score[p]) + i64::from(sun[p] / 3);
    let diff = final_of(me) - final_of(1 - me);
    let trees =
        i64::from(game.trees_of(me).count_ones()) - i64::from(game.trees_of(1 - me).count_ones());
    let result = if diff == 0 {
        trees.signum()
    } else {
        diff.signum()
    };
    diff * 4 + result * win_bonus
}

impl Bot<Spring2021> for SearchBot {
    fn act(&mut self, obs: &Obs) -> Action {
        Action::new(self.decide(obs))
    }

    fn reset(&mut self, _seed: u64) -> bool {
        self.first = true;
        true
    }
}

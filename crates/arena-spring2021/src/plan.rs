//! `plan`: a beam search over my own moves for the next days, after a smaller one over the other
//! player's.
//!
//! The strong contest bots did not play the game out with rule players: they planned their own
//! moves several days ahead (every COMPLETE, GROW, one free SEED, WAIT, day after day, with the sun
//! and its shadows exact) and valued the plans with a formula: points, sun, and what the trees
//! standing at the plan's end will still earn. This module is that idea, written for arena's
//! bitboards: a layered beam (each of my moves of a day is one layer, WAIT opens the next day),
//! states deduplicated by a hash (or by their trees, the best-valued kept: `PlanBot::by_trees`),
//! the best `width` kept per layer; the move played is the first of the best plan.
//!
//! The other player moves too. With `PlanBot::predict`, a first beam of that width plans *their*
//! moves the same way (my trees held still, my completions guessed from the falling nutrients),
//! and the trees and completions of their best plan, day by day, stand for theirs in my search:
//! their shade on my sun, the trees in a line with mine, the cells my seeds cannot take, and the
//! nutrients left for my completions (as the 4th of the contest's Legend league described its bot).
//! Without it, their trees stay as they are and their completions are a guess of one a day.
//!
//! It is bounded by a count of evaluated states (`budget`), never by the clock, so a position always
//! gets the same answer.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use arena_game::Bot;

use crate::board::{BASE_RICHNESS, BOARD, CELLS, RANGE, RAY, bits, richness_bonus};
use crate::game::{Action, BASE_COST, COMPLETE_COST, Cmd, Obs, Spring2021};

/// Days searched ahead (the day of the answer included).
const HORIZON: u32 = 6;
/// My moves searched per day.
const MOVES_PER_DAY: usize = 8;
/// States kept per layer.
const WIDTH: usize = 120;
/// SEED moves only while I have fewer seeds than this (1: only the free seed).
const MAX_SEEDS: u32 = 1;
/// Evaluated states per answer at most.
pub const BUDGET: u64 = 400_000;

/// My side of a planned position.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// My trees by size.
    size: [u64; 4],
    dormant: u64,
    sun: i32,
    /// Points gained in the plan (completions).
    points: i32,
    /// My completions in the plan.
    completed: i32,
    day: u32,
    first: Option<Cmd>,
    /// Whether a move other than COMPLETE was made this day: COMPLETEs come first in a planned day
    /// (their order among my other moves changes nothing but the nutrients, which the first
    /// completions take), which spares the beam the same day in other orders.
    others_today: bool,
    /// The plan's place in the day-start layer it came from (to read a plan's days back: the
    /// other player's predicted trees). Not part of its hash.
    origin: u32,
    /// The trees in a line with mine ([`Frame::lined`]), kept as the plan goes. Not part of its
    /// hash (the trees make it).
    lined: u32,
}

/// FNV-1a over whole words, with a shift to spread the high bits: the plans' hashes.
fn fold_hash<const N: usize>(seed: u64, values: [u64; N]) -> u64 {
    values.into_iter().fold(seed, |h, v| {
        let h = (h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
        h ^ (h >> 29)
    })
}

impl Plan {
    fn mine(&self) -> u64 {
        self.size[0] | self.size[1] | self.size[2] | self.size[3]
    }

    /// The size of my tree on `cell`, if I have one there.
    fn size_at(&self, cell: usize) -> Option<usize> {
        (0..4).find(|&s| self.size[s] >> cell & 1 == 1)
    }

    fn hash(&self) -> u64 {
        fold_hash(
            0xcbf2_9ce4_8422_2325,
            [
                self.size[0],
                self.size[1],
                self.size[2],
                self.size[3],
                self.dormant,
                self.sun as u64,
                self.points as u64 | (self.completed as u64) << 32,
                u64::from(self.day) | u64::from(self.others_today) << 8,
            ],
        )
    }

    /// The plan's trees only (sizes, dormancy, day, and whether COMPLETE is still open today):
    /// plans that differ only in sun and points go on alike, so a layer keeps the best of them
    /// (as btk15049's beam does), which leaves its width to different trees.
    fn tree_hash(&self) -> u64 {
        fold_hash(
            0x84222325cbf29ce4,
            [
                self.size[0],
                self.size[1],
                self.size[2],
                self.size[3],
                self.dormant,
                u64::from(self.day) | u64::from(self.others_today) << 8,
            ],
        )
    }
}

/// The position around the plans: what does not change while I plan.
#[derive(Clone)]
struct Frame {
    /// The other player's trees day by day (`[0]` today's, the last one held for later days).
    other: Vec<Other>,
    /// Whether `other` is a prediction: its completions then count in the nutrients instead of
    /// the guess of one a day.
    predicted: bool,
    shadows: bool,
    seed: bool,
    grow: bool,
    /// SEED moves only while I have fewer seeds than this.
    max_seeds: u32,
    holes: u64,
    today: u32,
    nutrients: i32,
    max_days: u32,
    weights: Weights,
}

/// The other player's trees on one day of the plans.
#[derive(Clone, Copy, Debug)]
struct Other {
    all: u64,
    /// The shade their trees cast, by sun direction and size of the casting tree.
    cast: [[u64; 4]; 6],
    /// Their trees of a size at least s (s = 1 for s = 0: their seeds cast nothing; with
    /// `Weights::taller`, of a size over s).
    at_least: [u64; 4],
    /// Their completions before this day (predicted).
    completed: i32,
}

impl Other {
    fn new(size: [u64; 4], completed: i32, taller: bool) -> Other {
        let mut cast = [[0u64; 4]; 6];
        for (dir, cast) in cast.iter_mut().enumerate() {
            for s in 1..4 {
                for cell in bits(size[s]) {
                    cast[s] |= RAY[dir][cell][s];
                }
            }
        }
        // With `taller`, one size more than the tree they line up with (none for k = 4).
        let at_least = |k: usize| size[k.min(4)..].iter().fold(0, |all, &t| all | t);
        let over = usize::from(taller);
        Other {
            all: size[0] | size[1] | size[2] | size[3],
            cast,
            at_least: [1, 1 + over, 2 + over, 3 + over].map(at_least),
            completed,
        }
    }
}

impl Frame {
    /// The other player's trees on `day`.
    fn other(&self, day: u32) -> &Other {
        let k = (day.saturating_sub(self.today) as usize).min(self.other.len() - 1);
        &self.other[k]
    }

    /// Nutrients left for a completion on `day`: the other player completes about once a day from
    /// day 10 to `their_end` (a guess), and my own earlier completions count exactly.
    fn nutrients_at(&self, day: u32, completed: i32) -> i32 {
        if self.predicted {
            return (self.nutrients - completed - self.other(day).completed).max(0);
        }
        let end = self.weights.their_end.max(9);
        let theirs = |d: u32| d.clamp(9, end) as i32 - 9;
        (self.nutrients - completed - (theirs(day) - theirs(self.today))).max(0)
    }

    /// Sun my trees gather on `day` (its direction), every tree of both players casting shade.
    fn gather(&self, p: &Plan, day: u32) -> i32 {
        if !self.shadows {
            return unshaded_sun(p);
        }
        let dir = (day % 6) as usize;
        let rays = &RAY[dir];
        let mut shadow = self.other(day).cast[dir];
        for s in 1..4 {
            for cell in bits(p.size[s]) {
                shadow[s] |= rays[cell][s];
            }
        }
        let shade3 = shadow[3];
        let shade2 = shade3 | shadow[2];
        let shade1 = shade2 | shadow[1];
        (p.size[1] & !shade1).count_ones() as i32
            + 2 * (p.size[2] & !shade2).count_ones() as i32
            + 3 * (p.size[3] & !shade3).count_ones() as i32
    }

    /// The part of [`Frame::value`] that is not the trees': points and sun (plans with the same
    /// trees on the same day differ by this alone).
    fn own_value(&self, p: &Plan) -> f64 {
        let day = p.day.min(self.max_days);
        if day >= self.max_days {
            return f64::from(p.points) + f64::from(p.sun / 3);
        }
        f64::from(p.points) * f64::from(day) / f64::from(self.max_days) + f64::from(p.sun) / 3.0
    }

    /// The plan's worth: points, sun at the final rate, and, until day 20, what the standing trees
    /// are worth (more the bigger, less for each tree near enough in a line to shade them, now or
    /// later, and, with that weight, for each day of the week they would stand in shade).
    fn value(&self, p: &Plan) -> f64 {
        let own = self.own_value(p);
        let day = p.day.min(self.max_days);
        if day >= self.max_days {
            return own;
        }
        let w = &self.weights;
        let standing = f64::from(20u32.saturating_sub(day));
        let mut growth = 0.0;
        for s in 1..4 {
            growth += s as f64 * f64::from(p.size[s].count_ones());
        }
        // Shade over the coming week: the sun my trees would lose, with the trees as they stand.
        let mut lost = 0;
        if w.shade != 0.0 {
            let full = unshaded_sun(p);
            for d in 0..6 {
                lost += full - self.gather(p, day + d);
            }
        }
        // Trees in a line within 3 cells of one of mine: mine of any size (they will grow) and
        // theirs at least as tall; they shade it, now or once grown, on some day of the week.
        debug_assert_eq!(p.lined, self.lined(p), "kept count of trees in a line");
        let lined = p.lined;
        own + standing * growth
            - w.shade * standing * f64::from(lost) / 20.0
            - w.line * standing * f64::from(lined) / 20.0
    }

    /// The trees in a line within 3 cells of one of mine, counted for each of mine (see
    /// [`Frame::value`]); a plan keeps this count as it goes ([`Plan::lined`]), from here at the
    /// start of each day, when the other player's trees may change.
    fn lined(&self, p: &Plan) -> u32 {
        let mine = p.mine();
        let theirs = &self.other(p.day).at_least;
        let mut lined = 0;
        for s in 0..4 {
            let near = mine | theirs[s];
            for cell in bits(p.size[s]) {
                lined += (LINE3[cell] & near).count_ones();
            }
        }
        lined
    }

    /// My moves in the plan (WAIT apart): COMPLETE first in a day, GROW, and one SEED when I have no
    /// seed (free), never next to my own trees.
    fn moves(&self, p: &Plan, out: &mut Vec<Cmd>) {
        out.clear();
        let mine = p.mine();
        let all = mine | self.other(p.day).all;
        let free = BOARD & !self.holes & !all;
        let awake = mine & !p.dormant;
        if !p.others_today && p.sun >= COMPLETE_COST {
            for cell in bits(p.size[3] & awake) {
                out.push(Cmd::Complete(cell as u32));
            }
        }
        for s in (0..3).rev() {
            if !self.grow {
                break;
            }
            let cost = BASE_COST[s + 1] + p.size[s + 1].count_ones() as i32;
            if p.sun >= cost {
                for cell in bits(p.size[s] & awake) {
                    out.push(Cmd::Grow(cell as u32));
                }
            }
        }
        if self.seed && p.size[0].count_ones() < self.max_seeds {
            let mut near_mine = 0u64;
            for cell in bits(mine) {
                near_mine |= RANGE[cell][1];
            }
            let mut targets = 0u64;
            for s in 1..4 {
                for cell in bits(p.size[s] & awake) {
                    let reach = RANGE[cell][s] & free & !near_mine & !targets;
                    for target in bits(reach) {
                        out.push(Cmd::Seed(cell as u32, target as u32));
                    }
                    targets |= reach;
                }
            }
        }
    }

    fn apply(&self, p: &Plan, cmd: Cmd) -> Plan {
        let mut n = *p;
        if n.first.is_none() {
            n.first = Some(cmd);
        }
        let mine = p.mine();
        let other = self.other(p.day);
        let theirs = &other.at_least;
        // The count of trees in a line, kept: only the moved tree's own count changes, and the
        // counts of my trees in a line with a tree that comes or goes.
        let own = |c: usize, s: usize| (LINE3[c] & (mine | theirs[s])).count_ones();
        match cmd {
            Cmd::Complete(c) => {
                let c = c as usize;
                n.size[3] &= !(1 << c);
                n.dormant &= !(1 << c);
                if other.all >> c & 1 == 0 {
                    n.lined -= own(c, 3) + (LINE3[c] & mine).count_ones();
                } else {
                    // A predicted tree of theirs on the same cell (their plan did not know of my
                    // seed there): my trees in a line may still count it; counted again.
                    n.lined = self.lined(&n);
                }
                n.sun -= COMPLETE_COST;
                n.points +=
                    self.nutrients_at(p.day, p.completed) + richness_bonus(BASE_RICHNESS[c]);
                n.completed += 1;
            }
            Cmd::Grow(c) => {
                let c = c as usize;
                let s = p.size_at(c).unwrap_or(0);
                n.lined = n.lined - own(c, s) + own(c, s + 1);
                n.sun -= BASE_COST[s + 1] + p.size[s + 1].count_ones() as i32;
                n.size[s] &= !(1 << c);
                n.size[s + 1] |= 1 << c;
                n.dormant |= 1 << c;
                n.others_today = true;
            }
            Cmd::Seed(from, to) => {
                let t = to as usize;
                n.lined += own(t, 0) + (LINE3[t] & mine).count_ones();
                n.sun -= p.size[0].count_ones() as i32;
                n.size[0] |= 1 << to;
                n.dormant |= 1 << from | 1 << to;
                n.others_today = true;
            }
            Cmd::Wait => {}
        }
        n
    }

    fn next_day(&self, p: &Plan) -> Plan {
        let mut n = *p;
        if n.first.is_none() {
            n.first = Some(Cmd::Wait);
        }
        n.day += 1;
        n.dormant = 0;
        n.others_today = false;
        n.lined = self.lined(&n);
        if n.day < self.max_days {
            n.sun += self.gather(&n, n.day);
        }
        n
    }
}

/// Sun my trees gather on a day without shade: each its size.
fn unshaded_sun(p: &Plan) -> i32 {
    (1..4)
        .map(|s| s as i32 * p.size[s].count_ones() as i32)
        .sum()
}

/// Weights of the plan's valuation (development knobs; the defaults are `legend`'s).
///
/// The defaults count the trees in a line and not the week's shade: the line also sees the shade
/// of trees still too small to cast it (my seeds, once grown), costs half the time, and won 65 % of
/// 40 games of self-play against the week's shade (docs/benchmarks.md).
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// The sun my trees would lose to shade over the coming week, the trees as they stand.
    pub shade: f64,
    /// Trees in a line within 3 cells of mine (mine of any size, theirs at least as tall), each a
    /// tree that shades it now or later on some day of the week.
    pub line: f64,
    /// The last day of the other player's guessed completions (one a day from day 10).
    pub their_end: u32,
    /// The line counts only the other player's trees taller than mine (as btk15049's valuation),
    /// not those as tall.
    pub taller: bool,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            shade: 0.0,
            line: 1.0,
            their_end: 19,
            taller: false,
        }
    }
}

/// `LINE3[c]`: the cells in a straight line within 3 of c, in the six directions.
const LINE3: [u64; CELLS] = {
    let mut out = [0u64; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut d = 0;
        while d < 6 {
            out[c] |= RAY[d][c][3];
            d += 1;
        }
        c += 1;
    }
    out
};

/// The plans' hashes are mixed already: a set of them needs no other hashing.
#[derive(Default)]
struct Mixed(u64);

impl Hasher for Mixed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type HashSeen = HashSet<u64, BuildHasherDefault<Mixed>>;

/// One layer of the beam being filled: its plans, deduplicated (see [`PlanBot::by_trees`]).
#[derive(Default)]
struct Layer {
    plans: Vec<(f64, Plan)>,
    /// Without `by_trees`: the plans' hashes.
    seen: HashSeen,
    /// With `by_trees`: a plan's trees to its place in `plans`.
    at: HashMap<u64, usize, BuildHasherDefault<Mixed>>,
}

impl Layer {
    fn clear(&mut self) {
        self.plans.clear();
        self.seen.clear();
        self.at.clear();
    }

    /// Takes `p` into the layer; returns whether it counts as an evaluated state (a step of the
    /// budget).
    fn offer(&mut self, frame: &Frame, p: Plan, by_trees: bool) -> bool {
        if !by_trees {
            if self.seen.insert(p.hash()) {
                self.plans.push((frame.value(&p), p));
                return true;
            }
            return false;
        }
        match self.at.entry(p.tree_hash()) {
            Entry::Occupied(e) => {
                // The same trees: the worth of the trees is the same, only points and sun differ
                // (spares the valuation of the trees, most of its cost).
                let slot = &mut self.plans[*e.get()];
                if frame.own_value(&p) > frame.own_value(&slot.1) {
                    *slot = (frame.value(&p), p);
                }
            }
            Entry::Vacant(e) => {
                e.insert(self.plans.len());
                self.plans.push((frame.value(&p), p));
            }
        }
        true
    }
}

/// The best `width` of `plans`, best first (a partial selection: a layer holds many more).
fn keep_best(plans: &mut Vec<(f64, Plan)>, width: usize) {
    if plans.len() > width {
        plans.select_nth_unstable_by(width, |a, b| b.0.total_cmp(&a.0));
        plans.truncate(width);
    }
    plans.sort_by(|a, b| b.0.total_cmp(&a.0));
}

/// The `plan` bot (see the module).
#[derive(Clone, Debug)]
pub struct PlanBot {
    pub budget: u64,
    pub width: usize,
    pub horizon: u32,
    /// SEED moves in the plans only while I have fewer seeds than this.
    pub max_seeds: u32,
    /// The valuation's weights.
    pub weights: Weights,
    /// Plans of a layer count as the same when their trees are (sun and points apart), and the
    /// best-valued is kept; otherwise only exact repeats are dropped.
    pub by_trees: bool,
    /// The width of a first search for the other player (their moves planned the same way, my trees
    /// held still), whose best plan's trees and completions, day by day, stand for theirs in mine;
    /// 0: their trees held still and their completions guessed.
    pub predict: usize,
    /// States evaluated for the last answer (for measurements).
    pub last_steps: u64,
}

impl Default for PlanBot {
    fn default() -> Self {
        PlanBot {
            budget: BUDGET,
            width: WIDTH,
            horizon: HORIZON,
            max_seeds: MAX_SEEDS,
            weights: Weights::default(),
            by_trees: false,
            predict: 0,
            last_steps: 0,
        }
    }
}

/// The plans' root: a player's trees (`owned`: `obs.mine` or `obs.theirs`, `seat`: 0 for me, 1
/// for the other player) as they stand.
fn root(obs: &Obs, owned: u64, seat: usize) -> Plan {
    Plan {
        size: obs.size.map(|s| s & owned),
        dormant: obs.dormant & owned,
        sun: obs.sun[seat],
        points: 0,
        completed: 0,
        day: obs.day,
        first: None,
        others_today: false,
        origin: 0,
        lined: 0,
    }
}

/// What a beam search found.
struct Found {
    /// The best plan's value and first move.
    best: Option<(f64, Cmd)>,
    steps: u64,
    /// With `trace`: the best plan at the start of each day, from the root's day on.
    days: Vec<Plan>,
}

impl PlanBot {
    pub fn decide(&mut self, obs: &Obs) -> Cmd {
        let mut legal = Vec::new();
        obs.for_each_possible(|_, cmd| legal.push(cmd));
        self.last_steps = 0;
        if legal.is_empty() {
            return Cmd::Wait;
        }
        let mut frame = self.frame(obs);
        if self.predict > 0 {
            let found = self.their_plan(obs, &frame);
            self.last_steps += found.steps;
            if found.days.len() > 1 {
                let taller = self.weights.taller;
                frame.other = found
                    .days
                    .iter()
                    .map(|p| Other::new(p.size, p.completed, taller))
                    .collect();
                frame.predicted = true;
            }
        }
        let root = root(obs, obs.mine, 0);
        let found = self.beam(&frame, root, self.width, Some(&legal), false);
        self.last_steps += found.steps;
        match found.best {
            Some((_, cmd)) if cmd == Cmd::Wait || legal.contains(&cmd) => cmd,
            _ => Cmd::Wait,
        }
    }

    /// My plans' frame, the other player's trees held as they stand.
    fn frame(&self, obs: &Obs) -> Frame {
        let rules = obs.league.rules();
        Frame {
            other: vec![Other::new(
                obs.size.map(|s| s & obs.theirs),
                0,
                self.weights.taller,
            )],
            predicted: false,
            shadows: rules.shadows,
            seed: rules.seed,
            grow: rules.grow,
            max_seeds: self.max_seeds,
            holes: obs.holes,
            today: obs.day,
            nutrients: obs.nutrients,
            max_days: obs.max_days(),
            weights: self.weights,
        }
    }

    /// The other player's plans (`predict` wide), my trees held as they stand for theirs; the best
    /// one traced day by day. A player who has waited plays no more today.
    fn their_plan(&self, obs: &Obs, frame: &Frame) -> Found {
        let their_frame = Frame {
            other: vec![Other::new(
                obs.size.map(|s| s & obs.mine),
                0,
                self.weights.taller,
            )],
            ..frame.clone()
        };
        let mut their_root = root(obs, obs.theirs, 1);
        if obs.opp_waiting {
            their_root.others_today = true;
            their_root.dormant = obs.theirs;
        }
        self.beam(&their_frame, their_root, self.predict, None, true)
    }

    /// The layered beam from `root` to the horizon: each of the plan's moves of a day is a layer,
    /// WAIT leads to the next day's first layer. `legal`: the moves the referee lists, which the
    /// first move must be one of. `trace`: keep the day-start layers, to read the best plan's days
    /// back.
    fn beam(
        &self,
        frame: &Frame,
        root: Plan,
        width: usize,
        legal: Option<&[Cmd]>,
        trace: bool,
    ) -> Found {
        let end_day = (root.day + self.horizon).min(frame.max_days);
        let mut steps = 0u64;
        let root = Plan {
            lined: frame.lined(&root),
            ..root
        };
        let mut layer = vec![root];
        // With `trace`: each day's kept first layer (the root's day: the root alone).
        let mut kept: Vec<Vec<Plan>> = Vec::new();
        if trace {
            kept.push(layer.clone());
        }
        let mut moves = Vec::new();
        let mut best: Option<(f64, Cmd)> = None;
        let mut best_at = None;
        let mut day = root.day;
        // Filled and emptied layer after layer: their sets keep their capacity (growing them again
        // for every layer cost a fifth of the search).
        let mut tomorrow = Layer::default();
        let mut next = Layer::default();
        'days: while day < end_day {
            tomorrow.clear();
            for turn in 0..=MOVES_PER_DAY {
                next.clear();
                for p in &layer {
                    if steps >= self.budget {
                        break 'days;
                    }
                    if tomorrow.offer(frame, frame.next_day(p), self.by_trees) {
                        steps += 1;
                    }
                    if turn == MOVES_PER_DAY {
                        continue;
                    }
                    frame.moves(p, &mut moves);
                    for &cmd in &moves {
                        // The first move must be one the referee lists.
                        if p.first.is_none() && legal.is_some_and(|legal| !legal.contains(&cmd)) {
                            continue;
                        }
                        if next.offer(frame, frame.apply(p, cmd), self.by_trees) {
                            steps += 1;
                        }
                    }
                }
                if next.plans.is_empty() {
                    break;
                }
                keep_best(&mut next.plans, width);
                layer.clear();
                layer.extend(next.plans.iter().map(|(_, p)| *p));
            }
            keep_best(&mut tomorrow.plans, width);
            day += 1;
            if day >= end_day {
                for (i, (v, p)) in tomorrow.plans.iter().enumerate() {
                    if best.is_none_or(|(b, _)| *v > b) {
                        best = Some((*v, p.first.unwrap_or(Cmd::Wait)));
                        best_at = Some(i);
                    }
                }
            }
            layer.clear();
            layer.extend(tomorrow.plans.iter().map(|(_, p)| *p));
            if trace {
                kept.push(layer.clone());
                // The next day's plans point into this layer.
                for (i, p) in layer.iter_mut().enumerate() {
                    p.origin = i as u32;
                }
            }
        }
        // Out of budget: the best of what was reached.
        if best.is_none() {
            for p in &layer {
                let v = frame.value(p);
                if best.is_none_or(|(b, _)| v > b) {
                    best = Some((v, p.first.unwrap_or(Cmd::Wait)));
                }
            }
        }
        let mut days = Vec::new();
        if let (true, Some(mut at)) = (trace, best_at) {
            for layer in kept.iter().rev() {
                let p = layer[at];
                days.push(p);
                at = p.origin as usize;
            }
            days.reverse();
        }
        Found { best, steps, days }
    }
}

impl Bot<Spring2021> for PlanBot {
    fn act(&mut self, obs: &Obs) -> Action {
        Action::new(self.decide(obs))
    }

    fn reset(&mut self, _seed: u64) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::League;
    use arena_game::{Answer, Game};
    use proptest::prelude::*;

    fn small() -> PlanBot {
        PlanBot {
            width: 200,
            predict: 100,
            ..crate::legend::legend()
        }
    }

    /// The position asked after `answers` answers of a game between two small plan searches.
    fn position(seed: u64, answers: usize) -> Obs {
        let mut game = Spring2021::new(&League::Bronze, seed);
        let mut bots = [small(), small()];
        let mut obs = Obs::default();
        let mut n = 0;
        while let Some(p) = game.to_act() {
            game.observe(p, &mut obs);
            if n == answers {
                break;
            }
            let action = bots[p].act(&obs);
            game.apply(p, Answer::Action(action));
            n += 1;
        }
        obs
    }

    /// The other player's plan read back day by day is one plan: a position at the start of each
    /// day from today to the horizon, their trees as they stand first, each day's trees grown from
    /// the day before's (a size at most, seeds new, gone trees completed), and its first move the
    /// best plan's. A wrong link back would join unrelated plans, whose trees do not follow.
    #[test]
    fn their_plan_reads_back_day_by_day() {
        for (seed, answers) in [(1, 6), (2, 40), (3, 70), (4, 100), (5, 130)] {
            let obs = position(seed, answers);
            let bot = small();
            let found = bot.their_plan(&obs, &bot.frame(&obs));
            let end = (obs.day + bot.horizon).min(obs.max_days());
            assert_eq!(found.days.len() as u32, end - obs.day + 1, "seed {seed}");
            assert_eq!(found.days[0].size, obs.size.map(|s| s & obs.theirs));
            for (k, p) in found.days.iter().enumerate() {
                assert_eq!(p.day, obs.day + k as u32);
            }
            for pair in found.days.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                let mut gone = 0;
                for cell in bits(a.mine()) {
                    match (a.size_at(cell), b.size_at(cell)) {
                        // Completed, and the cell seeded again the same day.
                        (Some(3), Some(0)) | (Some(3), None) => gone += 1,
                        (Some(x), Some(y)) => {
                            assert!(y == x || y == x + 1, "seed {seed}: {x} to {y}")
                        }
                        other => panic!("seed {seed}: cell {cell} went {other:?}"),
                    }
                }
                for cell in bits(b.mine() & !a.mine()) {
                    assert_eq!(
                        b.size_at(cell),
                        Some(0),
                        "seed {seed}: a new tree is a seed"
                    );
                }
                assert_eq!(b.completed - a.completed, gone, "seed {seed}");
            }
            let last = found.days.last().map(|p| p.first.unwrap_or(Cmd::Wait));
            assert_eq!(last, found.best.map(|(_, cmd)| cmd), "seed {seed}");
        }
    }

    /// Trees from one code per cell: 0 none, k a tree of size k - 1.
    fn trees(codes: &[u8]) -> [u64; 4] {
        let mut size = [0u64; 4];
        for (cell, &code) in codes.iter().enumerate() {
            if code > 0 {
                size[usize::from(code - 1)] |= 1 << cell;
            }
        }
        size
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The count of trees in a line a plan keeps move after move is the count made again from
        /// its trees, day after day, with the other player's trees changing from one day to the
        /// next and even on my own trees' cells (a prediction does not know my plan's seeds).
        #[test]
        fn kept_line_count_is_the_count(
            mine in proptest::collection::vec(0u8..5, CELLS),
            today in proptest::collection::vec(0u8..5, CELLS),
            later in proptest::collection::vec(0u8..5, CELLS),
            taller in any::<bool>(),
            sun in 0i32..60,
            picks in proptest::collection::vec(any::<u16>(), 1..80),
        ) {
            let size = trees(&mine);
            let frame = Frame {
                other: vec![Other::new(trees(&today), 0, taller), Other::new(trees(&later), 1, taller)],
                predicted: true,
                shadows: true,
                seed: true,
                grow: true,
                max_seeds: 3,
                holes: 0,
                today: 5,
                nutrients: 20,
                max_days: 24,
                weights: Weights { taller, ..Weights::default() },
            };
            let mut p = Plan {
                size,
                dormant: 0,
                sun,
                points: 0,
                completed: 0,
                day: 5,
                first: None,
                others_today: false,
                origin: 0,
                lined: 0,
            };
            p.lined = frame.lined(&p);
            let mut moves = Vec::new();
            for pick in picks {
                frame.moves(&p, &mut moves);
                let pick = usize::from(pick) % (moves.len() + 1);
                p = match moves.get(pick) {
                    Some(&cmd) => frame.apply(&p, cmd),
                    None => frame.next_day(&p),
                };
                // The plan's own trees, never two sizes on one cell.
                prop_assert_eq!(p.mine().count_ones(), p.size.iter().map(|s| s.count_ones()).sum::<u32>());
                prop_assert_eq!(p.lined, frame.lined(&p));
            }
        }
    }
}

//! The rules, as the official `game/game.js` of the three editions implements them
//! (`games/langwars-reference.md` §2).

use std::time::Duration;

use arena_game::{Answer, Game, Outcome, Score};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::mt::{LANES, genrand_prefix, genrand_prefix_lanes};

pub const PLAYERS: usize = 4;
pub const MAX_TARGETS: usize = 8;
pub const MAX_SLOTS: usize = 5;
/// Scores are kept in 1/24 units: every tie split (1..4 players) is then an integer.
pub const SCORE_UNIT: i64 = 24;

/// The three contests that used this engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Edition {
    /// Lang Wars, JavaChallenge 2014.
    Lw1,
    /// Lang Wars 2 / Language Survival, CODE FESTIVAL 2014 (after the 2014-11-05 fix: holiday +2).
    Lw2,
    /// Negotiate and Conquer, SamurAI Coding 2014-15.
    Nc,
}

impl Edition {
    pub const ALL: [Edition; 3] = [Edition::Lw1, Edition::Lw2, Edition::Nc];

    pub fn game_id(self) -> &'static str {
        match self {
            Edition::Lw1 => "langwars",
            Edition::Lw2 => "langwars2",
            Edition::Nc => "negotiate",
        }
    }

    /// The edition code used in the conformance transcripts.
    pub fn code(self) -> &'static str {
        match self {
            Edition::Lw1 => "lw1",
            Edition::Lw2 => "lw2",
            Edition::Nc => "nc",
        }
    }

    pub fn targets(self) -> usize {
        match self {
            Edition::Lw1 => 8,
            Edition::Lw2 | Edition::Nc => 6,
        }
    }

    pub fn turns(self) -> u32 {
        match self {
            Edition::Lw1 => 10,
            Edition::Lw2 | Edition::Nc => 9,
        }
    }

    /// Real believers gained per holiday (even-turn) action.
    pub fn holiday_gain(self) -> u16 {
        match self {
            Edition::Lw1 => 1,
            Edition::Lw2 | Edition::Nc => 2,
        }
    }

    /// After this turn's actions the visible table becomes the real one.
    pub fn reveal_after(self) -> Option<u32> {
        match self {
            Edition::Lw1 => None,
            Edition::Lw2 | Edition::Nc => Some(5),
        }
    }

    /// Turns after which the real table is scored (summed).
    pub fn scoring_after(self) -> &'static [u32] {
        match self {
            Edition::Lw1 => &[10],
            Edition::Lw2 => &[9],
            Edition::Nc => &[5, 9],
        }
    }

    /// Letters of odd and even turns (weekday/holiday, day/night).
    pub fn letters(self) -> [char; 2] {
        match self {
            Edition::Lw1 | Edition::Lw2 => ['W', 'H'],
            Edition::Nc => ['D', 'N'],
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            Edition::Lw1 => {
                "Lang Wars, JavaChallenge 2014: 4 players, 8 languages, 10 turns, holiday +1"
            }
            Edition::Lw2 => {
                "Lang Wars 2 / Language Survival, CODE FESTIVAL 2014: 6 languages, 9 turns, holiday +2, reveal after turn 5"
            }
            Edition::Nc => {
                "Negotiate and Conquer, SamurAI Coding 2014-15: Lang Wars 2 scored after turns 5 and 9"
            }
        }
    }
}

/// Actions per turn: 5 on odd turns, 2 on even ones.
#[inline]
pub fn slots_in_turn(turn: u32) -> usize {
    if turn % 2 == 1 { 5 } else { 2 }
}

/// The sanitised target indices of one answer (5 or 2 slots).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Move {
    slots: [u8; MAX_SLOTS],
    len: u8,
}

impl Move {
    pub fn new(targets: &[u8]) -> Self {
        let mut slots = [0u8; MAX_SLOTS];
        for (slot, &target) in slots.iter_mut().zip(targets) {
            *slot = target;
        }
        Move {
            slots,
            len: targets.len().min(MAX_SLOTS) as u8,
        }
    }

    /// The first `len` of `slots` (no copy loop: the hot path of in-process bots).
    pub fn from_slots(slots: [u8; MAX_SLOTS], len: usize) -> Self {
        Move {
            slots,
            len: len.min(MAX_SLOTS) as u8,
        }
    }

    pub fn targets(&self) -> &[u8] {
        &self.slots[..self.len as usize]
    }
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len as usize))?;
        for target in self.targets() {
            seq.serialize_element(target)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let targets = Vec::<u8>::deserialize(deserializer)?;
        if targets.len() > MAX_SLOTS {
            return Err(serde::de::Error::custom("a move has at most 5 targets"));
        }
        Ok(Move::new(&targets))
    }
}

/// Believer counts of up to 8 targets packed 8 bits per target. Per-target totals never exceed 41
/// (5 actions on each of 5 weekdays, 2 × 2 on each of 4 holidays), so lanes never carry into each other,
/// and a whole move is added with one instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Lanes(u64);

impl Lanes {
    pub fn get(self, target: usize) -> u16 {
        ((self.0 >> (8 * target)) & 0xff) as u16
    }

    /// Lanes from per-target values (each below 256).
    pub fn from_values(values: &[u16]) -> Result<Lanes, String> {
        let mut packed = 0u64;
        for (target, &value) in values.iter().enumerate().take(MAX_TARGETS) {
            if value > 0xff {
                return Err(format!("{value} believers is more than a game can hold"));
            }
            packed |= (value as u64) << (8 * target);
        }
        Ok(Lanes(packed))
    }

    fn add(&mut self, other: Lanes, times: u64) {
        self.0 += other.0 * times;
    }
}

/// One action on target `byte` as lanes, for each possible byte of an answer: `1 << (8 * byte)` for
/// targets of the game, 1 (target 0) for the others.
const fn one_hot(targets: usize) -> [u64; 256] {
    let mut table = [1u64; 256];
    let mut target = 0;
    while target < targets {
        table[target] = 1 << (8 * target);
        target += 1;
    }
    table
}

/// The [`one_hot`] table of a game of `targets` targets (at most [`MAX_TARGETS`]).
fn one_hot_table(targets: usize) -> &'static [u64; 256] {
    static TABLES: [[u64; 256]; MAX_TARGETS + 1] = {
        let mut tables = [[0u64; 256]; MAX_TARGETS + 1];
        let mut targets = 0;
        while targets <= MAX_TARGETS {
            tables[targets] = one_hot(targets);
            targets += 1;
        }
        tables
    };
    &TABLES[targets.min(MAX_TARGETS)]
}

/// A game's [`one_hot_table`] (its `Debug` names it rather than print 256 numbers).
#[derive(Clone, Copy)]
struct OneHot(&'static [u64; 256]);

impl std::fmt::Debug for OneHot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OneHot")
    }
}

/// What one player is told at the start of a turn (`games/langwars-reference.md` §4.2–4.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    pub turn: u32,
    pub turns: u32,
    pub players: usize,
    pub targets: usize,
    pub letter: char,
    pub values: [u8; MAX_TARGETS],
    /// Visible believers per column: this player first, then the others in ascending index.
    visible: [Lanes; PLAYERS],
    real: Lanes,
    counts: Option<Lanes>,
}

impl Observation {
    /// An observation from its tables (bot side, parsed from the input text).
    pub fn from_tables(
        settings: (u32, usize, [u8; MAX_TARGETS]),
        turn: u32,
        letter: char,
        visible: [Lanes; PLAYERS],
        real: Lanes,
        counts: Option<Lanes>,
    ) -> Self {
        let (turns, targets, values) = settings;
        Observation {
            turn,
            turns,
            players: PLAYERS,
            targets,
            letter,
            values,
            visible,
            real,
            counts,
        }
    }

    /// Number of targets this turn's answer must name.
    pub fn slots(&self) -> usize {
        slots_in_turn(self.turn)
    }

    pub fn is_odd_turn(&self) -> bool {
        self.turn % 2 == 1
    }

    /// Visible believers of `target` in `column` (0 = this player, 1..=3 = the others, ascending index).
    pub fn visible(&self, target: usize, column: usize) -> u16 {
        self.visible[column].get(target)
    }

    /// This player's real believers of `target`.
    pub fn real(&self, target: usize) -> u16 {
        self.real.get(target)
    }

    /// Actions of all players on `target` in the previous (even) turn; odd turns only.
    pub fn count(&self, target: usize) -> Option<u16> {
        self.counts.map(|counts| counts.get(target))
    }
}

/// The state after a turn, for replays and viewers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    pub turn: u32,
    pub letter: char,
    pub values: Vec<u8>,
    /// Sanitised moves of the turn, per player.
    pub moves: Vec<Move>,
    /// `[target][player]` after the turn.
    pub real: Vec<[u16; PLAYERS]>,
    pub visible: Vec<[u16; PLAYERS]>,
    /// Actions per target in this turn.
    pub counts: Vec<u16>,
    /// Players that are out (killed after a fault) and played target 0.
    pub out: Vec<bool>,
    /// Scores so far, present after a scoring turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<Score>>,
}

/// `Score::ratio(total, SCORE_UNIT)`, without the general reduction (a division loop) for whole
/// numbers: they reduce to `total / 24` over 1.
fn score_of_24ths(total: i64) -> Score {
    if total % SCORE_UNIT == 0 {
        Score::int(total / SCORE_UNIT)
    } else {
        Score::ratio(total, SCORE_UNIT)
    }
}

/// One game of any edition.
#[derive(Clone, Debug)]
pub struct LangWars {
    edition: Edition,
    // Edition parameters, cached: they are read on every ask.
    turns: u32,
    holiday_gain: u64,
    /// Turn after which the visible table becomes the real one (0: never).
    reveal_after: u32,
    /// Bit `t` set: the real table is scored after turn `t`.
    scoring_turns: u32,
    letters: [char; 2],
    targets: usize,
    values: [u8; MAX_TARGETS],
    /// [`one_hot_table`] of `targets`, looked up once per game rather than once per answer.
    one_hot: OneHot,
    /// Per player, per target.
    real: [Lanes; PLAYERS],
    visible: [Lanes; PLAYERS],
    /// Actions per target in the last processed turn.
    counts: Lanes,
    turn: u32,
    next_player: usize,
    /// This turn's answers as given, and as action counts per target (sanitised).
    moves: [Move; PLAYERS],
    actions: [Lanes; PLAYERS],
    out: [bool; PLAYERS],
    totals: [i64; PLAYERS],
    frames: Option<Vec<Frame>>,
}

impl LangWars {
    pub fn with_edition(edition: Edition, seed: u64) -> Self {
        let mut draws = [0u32; MAX_TARGETS];
        // The official engine seeds with `seed >>> 0`: the low 32 bits.
        genrand_prefix(seed as u32, &mut draws[..edition.targets()]);
        Self::with_draws(edition, &draws)
    }

    /// A game per seed, seeding MT19937 for several seeds at once (see [`crate::mt::genrand_prefix_lanes`]).
    pub fn batch(edition: Edition, seeds: &[u64], out: &mut Vec<LangWars>) {
        let mut chunks = seeds.chunks_exact(LANES);
        for chunk in &mut chunks {
            let mut lanes = [0u32; LANES];
            for (lane, &seed) in lanes.iter_mut().zip(chunk) {
                *lane = seed as u32;
            }
            let draws = genrand_prefix_lanes(lanes, edition.targets());
            out.extend(draws.iter().map(|draws| Self::with_draws(edition, draws)));
        }
        out.extend(
            chunks
                .remainder()
                .iter()
                .map(|&seed| Self::with_edition(edition, seed)),
        );
    }

    fn with_draws(edition: Edition, draws: &[u32; MAX_TARGETS]) -> Self {
        let targets = edition.targets();
        let mut values = [0u8; MAX_TARGETS];
        for (value, draw) in values.iter_mut().zip(&draws[..targets]) {
            *value = (draw >> 30) as u8 + 3;
        }
        LangWars {
            edition,
            turns: edition.turns(),
            holiday_gain: edition.holiday_gain() as u64,
            reveal_after: edition.reveal_after().unwrap_or(0),
            scoring_turns: edition
                .scoring_after()
                .iter()
                .fold(0, |mask, &turn| mask | 1 << turn),
            letters: edition.letters(),
            targets,
            values,
            one_hot: OneHot(one_hot_table(targets)),
            real: [Lanes::default(); PLAYERS],
            visible: [Lanes::default(); PLAYERS],
            counts: Lanes::default(),
            turn: 1,
            next_player: 0,
            moves: [Move::default(); PLAYERS],
            actions: [Lanes::default(); PLAYERS],
            out: [false; PLAYERS],
            totals: [0; PLAYERS],
            frames: None,
        }
    }

    pub fn edition(&self) -> Edition {
        self.edition
    }

    pub fn values(&self) -> &[u8] {
        &self.values[..self.targets]
    }

    /// Current turn (1-based; `turns + 1` once the game is over).
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The live players still to answer this turn, in seat order (the turn's moves are played
    /// only once all have answered, so none of them changes what the others are told).
    pub fn to_answer_this_turn(&self) -> Vec<usize> {
        if self.turn > self.turns {
            return Vec::new();
        }
        (self.next_player..PLAYERS)
            .filter(|&player| !self.out[player])
            .collect()
    }

    /// Scores so far in 1/24 units.
    pub fn totals_24ths(&self) -> [i64; PLAYERS] {
        self.totals
    }

    /// Records `player`'s move for this turn: exactly as many slots as the turn has, missing or
    /// out-of-range targets as target 0 (§2.2). The answer is kept as given (sanitised again only for
    /// a frame: see [`LangWars::sanitised`]); the action counts are what the rules use.
    #[inline(always)]
    fn set_move(&mut self, player: usize, action: &Move) {
        let slots = slots_in_turn(self.turn);
        let one_hot = self.one_hot.0;
        let slot = |index: usize| one_hot[action.slots[index] as usize];
        // Every answer of every game passes here: the usual answer names all its slots, and each
        // target costs one table load (out-of-range targets count as target 0 in the table).
        let actions = if action.len as usize >= slots {
            let holiday = slot(0) + slot(1);
            if slots == MAX_SLOTS {
                holiday + slot(2) + slot(3) + slot(4)
            } else {
                holiday
            }
        } else {
            // Missing slots are target 0.
            let len = action.len as usize;
            (0..slots)
                .map(|index| if index < len { slot(index) } else { 1 })
                .sum()
        };
        self.moves[player] = *action;
        self.actions[player] = Lanes(actions);
    }

    /// A recorded answer as the rules read it: `slots` targets, missing or out-of-range ones as 0.
    fn sanitised(&self, action: &Move, slots: usize) -> Move {
        let len = (action.len as usize).min(slots);
        let mut clean = action.slots;
        for (slot, target) in clean.iter_mut().enumerate() {
            if slot >= len || (*target as usize) >= self.targets {
                *target = 0;
            }
        }
        Move::from_slots(clean, slots)
    }

    /// [`Game::to_act`] past the usual ask: the end of a turn, players that are out, the end.
    #[inline(never)]
    fn next_to_act(&mut self) -> Option<usize> {
        loop {
            if self.turn > self.turns {
                return None;
            }
            if self.next_player == PLAYERS {
                self.process_turn();
                continue;
            }
            if self.out[self.next_player] {
                // A player that is out plays target 0 in every slot (§3.1 "dead AIs").
                self.set_move(self.next_player, &Move::default());
                self.next_player += 1;
                continue;
            }
            return Some(self.next_player);
        }
    }

    fn process_turn(&mut self) {
        let turn = self.turn;
        let odd = turn % 2 == 1;
        let gain = if odd { 1 } else { self.holiday_gain };
        let mut counts = Lanes::default();
        for player in 0..PLAYERS {
            let actions = self.actions[player];
            self.real[player].add(actions, gain);
            if odd {
                self.visible[player].add(actions, 1);
            }
            counts.add(actions, 1);
        }
        self.counts = counts;
        if self.reveal_after == turn {
            self.visible = self.real;
        }
        let scored = self.scoring_turns & (1 << turn) != 0;
        if scored {
            self.score_real_table();
        }
        if self.frames.is_some() {
            let frame = self.frame(turn, scored);
            if let Some(frames) = self.frames.as_mut() {
                frames.push(frame);
            }
        }
        self.turn += 1;
        self.next_player = 0;
    }

    fn table(&self, tables: &[Lanes; PLAYERS]) -> Vec<[u16; PLAYERS]> {
        (0..self.targets)
            .map(|target| std::array::from_fn(|player| tables[player].get(target)))
            .collect()
    }

    fn frame(&self, turn: u32, scored: bool) -> Frame {
        let odd = turn % 2 == 1;
        Frame {
            turn,
            letter: self.letters[if odd { 0 } else { 1 }],
            values: self.values[..self.targets].to_vec(),
            moves: self
                .moves
                .iter()
                .map(|action| self.sanitised(action, slots_in_turn(turn)))
                .collect(),
            real: self.table(&self.real),
            visible: self.table(&self.visible),
            counts: (0..self.targets).map(|t| self.counts.get(t)).collect(),
            out: self.out.to_vec(),
            scores: scored.then(|| self.totals.iter().map(|&t| score_of_24ths(t)).collect()),
        }
    }

    /// §2.3: per target, the top players share +A and the bottom players share −A.
    fn score_real_table(&mut self) {
        score_table(&self.real, &self.values, self.targets, &mut self.totals);
    }
}

/// 24ths of one unit of value split between 1..=4 tied players (a table: no division).
const SHARE_24THS: [i64; PLAYERS + 1] = [0, 24, 12, 8, 6];

/// §2.3 on a table: per target, the top players share +A and the bottom players share −A. All
/// targets are compared at once, a byte lane each (totals are at most 41, below 128: no lane borrows).
fn score_table(
    real: &[Lanes; PLAYERS],
    values: &[u8; MAX_TARGETS],
    targets: usize,
    totals: &mut [i64; PLAYERS],
) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    debug_assert!(real.iter().all(|lanes| lanes.0 & HIGH == 0));
    // 1 in each lane where a >= b.
    let at_least = |a: u64, b: u64| (((a | HIGH) - b) & HIGH) >> 7;
    let max = |a: u64, b: u64| {
        let keep_a = at_least(a, b) * 0xff;
        (a & keep_a) | (b & !keep_a)
    };
    let min = |a: u64, b: u64| {
        let keep_b = at_least(a, b) * 0xff;
        (b & keep_b) | (a & !keep_b)
    };
    let rows = real.map(|lanes| lanes.0);
    let highest = max(max(rows[0], rows[1]), max(rows[2], rows[3]));
    let lowest = min(min(rows[0], rows[1]), min(rows[2], rows[3]));
    let top = rows.map(|row| at_least(row, highest));
    let bottom = rows.map(|row| at_least(lowest, row));
    let tops: u64 = top.iter().sum();
    let bottoms: u64 = bottom.iter().sum();
    for (target, &value) in values.iter().enumerate().take(targets) {
        let shift = 8 * target;
        let value = value as i64;
        let up = value * SHARE_24THS[(tops >> shift) as usize & 0xff];
        let down = value * SHARE_24THS[(bottoms >> shift) as usize & 0xff];
        for (player, total) in totals.iter_mut().enumerate() {
            *total += up * ((top[player] >> shift) & 1) as i64;
            *total -= down * ((bottom[player] >> shift) & 1) as i64;
        }
    }
}

impl Game for LangWars {
    const ID: &'static str = "langwars";
    type Config = Edition;
    type Obs = Observation;
    type Action = Move;
    type Frame = Frame;

    fn new(config: &Edition, seed: u64) -> Self {
        LangWars::with_edition(*config, seed)
    }

    fn new_batch(config: &Edition, seeds: &[u64], out: &mut Vec<Self>) {
        LangWars::batch(*config, seeds, out);
    }

    fn game_id(config: &Edition) -> &'static str {
        config.game_id()
    }

    fn num_players(&self) -> usize {
        PLAYERS
    }

    #[inline]
    fn to_act(&mut self) -> Option<usize> {
        // The usual ask: a live player of a turn in progress (inlined into the driver's loop).
        let player = self.next_player;
        if player < PLAYERS && !self.out[player] && self.turn <= self.turns {
            return Some(player);
        }
        self.next_to_act()
    }

    #[inline]
    fn observe(&mut self, player: usize, obs: &mut Observation) {
        let odd = self.turn % 2 == 1;
        obs.turn = self.turn;
        obs.turns = self.turns;
        obs.players = PLAYERS;
        obs.targets = self.targets;
        obs.letter = self.letters[!odd as usize];
        obs.values = self.values;
        obs.visible[0] = self.visible[player & (PLAYERS - 1)];
        // The others in ascending absolute index, skipping self (not a rotation): column `c` shows
        // player `c - 1` if that is below `player`, else player `c`.
        for column in 1..PLAYERS {
            let other = column - 1 + (column > player) as usize;
            obs.visible[column] = self.visible[other];
        }
        obs.real = self.real[player & (PLAYERS - 1)];
        obs.counts = odd.then_some(self.counts);
    }

    #[inline]
    fn apply(&mut self, player: usize, answer: Answer<Move>) {
        debug_assert_eq!(player, self.next_player, "answers come in seat order");
        let player = player & (PLAYERS - 1);
        match answer {
            Answer::Action(action) => self.set_move(player, &action),
            Answer::Fault(_) => {
                self.out[player] = true;
                self.set_move(player, &Move::default());
            }
        }
        self.next_player += 1;
    }

    fn outcome(&self) -> Outcome {
        // What `Outcome::from_scores` makes of these scores, computed on the totals (all in 24ths,
        // so they order as the scores do).
        let totals = self.totals;
        let ranks: [u32; PLAYERS] = std::array::from_fn(|player| {
            1 + totals
                .iter()
                .filter(|&&other| other > totals[player])
                .count() as u32
        });
        let mut top = ranks.iter().enumerate().filter(|&(_, &rank)| rank == 1);
        let winner = match (top.next(), top.next()) {
            (Some((player, _)), None) => Some(player),
            _ => None,
        };
        Outcome {
            scores: totals.iter().map(|&total| score_of_24ths(total)).collect(),
            winner,
            ranks: ranks.to_vec(),
        }
    }

    fn time_limit(&self, _player: usize) -> Duration {
        Duration::from_secs(1)
    }

    fn record_frames(&mut self) {
        self.frames.get_or_insert_with(Vec::new);
    }

    fn take_frames(&mut self) -> Vec<Frame> {
        self.frames.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §2.3 target by target, as the official engine loops.
    fn score_table_by_target(
        real: &[Lanes; PLAYERS],
        values: &[u8; MAX_TARGETS],
        targets: usize,
        totals: &mut [i64; PLAYERS],
    ) {
        for (target, &value) in values.iter().enumerate().take(targets) {
            let row: [u16; PLAYERS] = std::array::from_fn(|player| real[player].get(target));
            let value = value as i64;
            let max = row.iter().copied().max().unwrap_or(0);
            let min = row.iter().copied().min().unwrap_or(0);
            let tops = row.iter().filter(|&&r| r == max).count();
            let bottoms = row.iter().filter(|&&r| r == min).count();
            for (total, &believers) in totals.iter_mut().zip(&row) {
                if believers == max {
                    *total += value * SHARE_24THS[tops];
                }
                if believers == min {
                    *total -= value * SHARE_24THS[bottoms];
                }
            }
        }
    }

    #[test]
    fn scoring_all_targets_at_once_matches_target_by_target() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % below
        };
        for case in 0..200_000 {
            let targets = if case % 2 == 0 { 6 } else { 8 };
            // Small ranges make ties common; 41 is the most a game can hold.
            let top = [2, 4, 42][case % 3];
            let mut values = [0u8; MAX_TARGETS];
            let mut real = [Lanes::default(); PLAYERS];
            for (target, value) in values.iter_mut().enumerate().take(targets) {
                *value = 3 + next(4) as u8;
                for lanes in &mut real {
                    lanes.0 |= next(top) << (8 * target);
                }
            }
            let start: [i64; PLAYERS] = std::array::from_fn(|_| next(100) as i64 - 50);
            let (mut fast, mut slow) = (start, start);
            score_table(&real, &values, targets, &mut fast);
            score_table_by_target(&real, &values, targets, &mut slow);
            assert_eq!(fast, slow, "{real:?} {values:?}");
        }
    }
}

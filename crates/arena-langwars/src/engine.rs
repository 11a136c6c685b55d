//! The rules, as the official `game/game.js` of the three editions implements them
//! (`games/langwars-reference.md` §2).

use std::time::Duration;

use arena_core::{Answer, Game, Outcome, Score};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::mt::genrand_prefix;

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
        let len = targets.len().min(MAX_SLOTS);
        slots[..len].copy_from_slice(&targets[..len]);
        Move {
            slots,
            len: len as u8,
        }
    }

    pub fn targets(&self) -> &[u8] {
        &self.slots[..self.len as usize]
    }

    /// The move the rules play: exactly `slots` targets, missing or out-of-range ones as target 0.
    fn sanitised(&self, slots: usize, targets: usize) -> Move {
        let mut clean = Move {
            slots: [0; MAX_SLOTS],
            len: slots as u8,
        };
        for (slot, &target) in clean.slots[..slots].iter_mut().zip(self.targets()) {
            if (target as usize) < targets {
                *slot = target;
            }
        }
        clean
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

/// What one player is told at the start of a turn (`games/langwars-reference.md` §4.2–4.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    pub turn: u32,
    pub turns: u32,
    pub players: usize,
    pub targets: usize,
    pub letter: char,
    pub values: [u8; MAX_TARGETS],
    /// Visible believers per target: this player's own column first, then the others in ascending index.
    pub visible: [[u16; PLAYERS]; MAX_TARGETS],
    /// This player's real believers per target.
    pub real: [u16; MAX_TARGETS],
    /// Actions of all players per target in the previous (even) turn; odd turns only.
    pub counts: Option<[u16; MAX_TARGETS]>,
}

impl Observation {
    /// Number of targets this turn's answer must name.
    pub fn slots(&self) -> usize {
        slots_in_turn(self.turn)
    }

    pub fn is_odd_turn(&self) -> bool {
        self.turn % 2 == 1
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

/// One game of any edition.
#[derive(Clone, Debug)]
pub struct LangWars {
    edition: Edition,
    targets: usize,
    values: [u8; MAX_TARGETS],
    real: [[u16; PLAYERS]; MAX_TARGETS],
    visible: [[u16; PLAYERS]; MAX_TARGETS],
    counts: [u16; MAX_TARGETS],
    turn: u32,
    next_player: usize,
    moves: [Move; PLAYERS],
    out: [bool; PLAYERS],
    totals: [i64; PLAYERS],
    frames: Option<Vec<Frame>>,
}

impl LangWars {
    pub fn with_edition(edition: Edition, seed: u64) -> Self {
        let targets = edition.targets();
        let mut draws = [0u32; MAX_TARGETS];
        // The official engine seeds with `seed >>> 0`: the low 32 bits.
        genrand_prefix(seed as u32, &mut draws[..targets]);
        let mut values = [0u8; MAX_TARGETS];
        for (value, draw) in values.iter_mut().zip(&draws[..targets]) {
            *value = (draw >> 30) as u8 + 3;
        }
        LangWars {
            edition,
            targets,
            values,
            real: [[0; PLAYERS]; MAX_TARGETS],
            visible: [[0; PLAYERS]; MAX_TARGETS],
            counts: [0; MAX_TARGETS],
            turn: 1,
            next_player: 0,
            moves: [Move::default(); PLAYERS],
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

    /// Scores so far in 1/24 units.
    pub fn totals_24ths(&self) -> [i64; PLAYERS] {
        self.totals
    }

    fn process_turn(&mut self) {
        let turn = self.turn;
        let odd = turn % 2 == 1;
        let slots = slots_in_turn(turn);
        let gain = if odd { 1 } else { self.edition.holiday_gain() };
        self.counts = [0; MAX_TARGETS];
        for player in 0..PLAYERS {
            let clean = self.moves[player].sanitised(slots, self.targets);
            self.moves[player] = clean;
            for &target in clean.targets() {
                let target = target as usize;
                self.real[target][player] += gain;
                if odd {
                    self.visible[target][player] += 1;
                }
                self.counts[target] += 1;
            }
        }
        if self.edition.reveal_after() == Some(turn) {
            self.visible = self.real;
        }
        let scored = self.edition.scoring_after().contains(&turn);
        if scored {
            self.score_real_table();
        }
        if let Some(frames) = self.frames.as_mut() {
            let targets = self.targets;
            frames.push(Frame {
                turn,
                letter: self.edition.letters()[if odd { 0 } else { 1 }],
                values: self.values[..targets].to_vec(),
                moves: self.moves.to_vec(),
                real: self.real[..targets].to_vec(),
                visible: self.visible[..targets].to_vec(),
                counts: self.counts[..targets].to_vec(),
                out: self.out.to_vec(),
                scores: scored.then(|| {
                    self.totals
                        .iter()
                        .map(|&t| Score::ratio(t, SCORE_UNIT))
                        .collect()
                }),
            });
        }
        self.turn += 1;
        self.next_player = 0;
    }

    /// §2.3: per target, the top players share +A and the bottom players share −A.
    fn score_real_table(&mut self) {
        for target in 0..self.targets {
            let row = &self.real[target];
            let value = self.values[target] as i64 * SCORE_UNIT;
            let max = *row.iter().max().unwrap_or(&0);
            let min = *row.iter().min().unwrap_or(&0);
            let tops = row.iter().filter(|&&r| r == max).count() as i64;
            let bottoms = row.iter().filter(|&&r| r == min).count() as i64;
            for player in 0..PLAYERS {
                if row[player] == max {
                    self.totals[player] += value / tops;
                }
                if row[player] == min {
                    self.totals[player] -= value / bottoms;
                }
            }
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

    fn game_id(config: &Edition) -> &'static str {
        config.game_id()
    }

    fn num_players(&self) -> usize {
        PLAYERS
    }

    fn to_act(&mut self) -> Option<usize> {
        loop {
            if self.turn > self.edition.turns() {
                return None;
            }
            if self.next_player == PLAYERS {
                self.process_turn();
                continue;
            }
            if self.out[self.next_player] {
                // A player that is out plays target 0 in every slot (§3.1 "dead AIs").
                self.moves[self.next_player] = Move::default();
                self.next_player += 1;
                continue;
            }
            return Some(self.next_player);
        }
    }

    fn observe(&mut self, player: usize, obs: &mut Observation) {
        let targets = self.targets;
        let odd = self.turn % 2 == 1;
        obs.turn = self.turn;
        obs.turns = self.edition.turns();
        obs.players = PLAYERS;
        obs.targets = targets;
        obs.letter = self.edition.letters()[if odd { 0 } else { 1 }];
        obs.values = self.values;
        for target in 0..targets {
            let row = &self.visible[target];
            let out = &mut obs.visible[target];
            out[0] = row[player];
            // The others in ascending absolute index, skipping self (not a rotation).
            let mut column = 1;
            for (other, &believers) in row.iter().enumerate() {
                if other != player {
                    out[column] = believers;
                    column += 1;
                }
            }
            obs.real[target] = self.real[target][player];
        }
        obs.counts = odd.then_some(self.counts);
    }

    fn apply(&mut self, player: usize, answer: Answer<Move>) {
        debug_assert_eq!(player, self.next_player, "answers come in seat order");
        self.moves[player] = match answer {
            Answer::Action(action) => action,
            Answer::Fault(_) => {
                self.out[player] = true;
                Move::default()
            }
        };
        self.next_player += 1;
    }

    fn outcome(&self) -> Outcome {
        Outcome::from_scores(
            self.totals
                .iter()
                .map(|&total| Score::ratio(total, SCORE_UNIT))
                .collect(),
        )
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

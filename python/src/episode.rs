//! One environment: a [`Core`] game with the protocol's text, the action table and the replay.

use std::marker::PhantomData;
use std::sync::Arc;

use arena_game::record::RECORD_FORMAT;
use arena_game::{Answer, ClockKind, EnvSpec, Game, GameDef, MatchRecord, PlayerRecord, StepFault};

use crate::core::{Core, SeatKind};
use crate::text::TextSide;

/// A finished game for Python: scores as floats and as exact text, ranks, the winner.
pub type OutcomeParts = (Vec<f64>, Vec<String>, Vec<u32>, Option<usize>);

/// One answer of a parallel step: a table entry or the protocol's text (written, printed).
pub enum RoundAnswer {
    Index(usize),
    Text(String, String),
}

/// What the Python classes call, whatever the game.
pub trait DynEnv: Send {
    fn reset(&mut self, seed: u64) -> Result<(), String>;
    fn seed(&self) -> u64;
    /// Asks answered so far by anyone, built-in bots included (the benchmark's count).
    fn asks(&self) -> u64;
    /// The agent seat being asked, `None` once the game is over.
    fn current(&self) -> Option<usize>;
    /// The current ask's text (see [`TextSide::input`]).
    fn text(&self) -> String;
    fn args(&self) -> Vec<String>;
    fn features(&self, out: &mut [f32]);
    fn mask(&self, out: &mut [u8]);
    /// Answers with entry `index` of the action table.
    fn step_index(&mut self, index: usize) -> Result<(), String>;
    /// Answers with the protocol's text.
    fn step_text(&mut self, wrote: &str, stdout: &str) -> Result<(), String>;
    /// The text entry `index` would be written as, for the current ask.
    fn index_text(&self, index: usize) -> Option<(String, String)>;
    fn rewards(&self, out: &mut [f32]);
    /// Scores (as floats and exact text), ranks and winner, once over.
    fn outcome(&self) -> Option<OutcomeParts>;
    /// Each player's faults so far, as text.
    fn faults(&self) -> Vec<Vec<String>>;
    fn replay_json(&mut self, names: &[String]) -> Result<String, String>;
    /// The players asked at once from now on (a parallel step), the current one first.
    fn round(&mut self) -> Vec<usize>;
    /// Round player `k`'s text, arguments, features and mask (as [`DynEnv::text`] ...).
    fn round_text(&self, k: usize) -> String;
    fn round_args(&self, k: usize) -> Vec<String>;
    fn round_features(&self, k: usize, out: &mut [f32]);
    fn round_mask(&self, k: usize, out: &mut [u8]);
    /// The round's answers, one per player in its order.
    fn step_round(&mut self, answers: Vec<RoundAnswer>) -> Result<(), String>;
}

pub struct Episode<D: GameDef, P> {
    def: Arc<D>,
    core: Core<D::Game>,
    record: bool,
    /// Frames taken from the finished game (the rules hand them over once).
    frames: Option<Vec<<D::Game as Game>::Frame>>,
    side: PhantomData<P>,
}

impl<D: GameDef, P: TextSide<D::Game>> Episode<D, P>
where
    D::Game: EnvSpec,
{
    pub fn new(
        def: Arc<D>,
        config: <D::Game as Game>::Config,
        seats: Vec<SeatKind>,
        seed: u64,
        record: bool,
    ) -> Result<Self, String> {
        let core = Core::new(config, seed, seats, def.bots(), record)?;
        Ok(Episode {
            def,
            core,
            record,
            frames: None,
            side: PhantomData,
        })
    }

    fn answer(&mut self, answer: Answer<<D::Game as Game>::Action>, wrote: &str, stdout: &str) {
        let texts = self.record.then(|| {
            let player = self.core.current.unwrap_or(0);
            P::recorded(&self.core.obs, self.core.first[player], wrote, stdout)
        });
        self.core.answer(answer, texts);
    }

    fn over(&self) -> Result<(), String> {
        match self.core.current {
            Some(_) => Ok(()),
            None => Err("the game is over: reset() starts a new one".into()),
        }
    }
}

impl<D: GameDef, P: TextSide<D::Game>> DynEnv for Episode<D, P>
where
    D::Game: EnvSpec,
{
    fn reset(&mut self, seed: u64) -> Result<(), String> {
        self.frames = None;
        self.core.reset(seed, self.def.bots(), self.record)
    }

    fn seed(&self) -> u64 {
        self.core.seed
    }

    fn asks(&self) -> u64 {
        self.core.asks
    }

    fn current(&self) -> Option<usize> {
        self.core.current
    }

    fn text(&self) -> String {
        let mut out = String::new();
        if let Some(player) = self.core.current {
            P::input(&self.core.obs, self.core.first[player], &mut out);
        }
        out
    }

    fn args(&self) -> Vec<String> {
        match self.core.current {
            Some(_) => P::args(&self.core.obs),
            None => Vec::new(),
        }
    }

    fn features(&self, out: &mut [f32]) {
        out.fill(0.0);
        if self.core.current.is_some() {
            D::Game::features(&self.core.obs, out);
        }
    }

    fn mask(&self, out: &mut [u8]) {
        out.fill(0);
        if self.core.current.is_some() {
            D::Game::legal_mask(&self.core.obs, out);
        }
    }

    fn step_index(&mut self, index: usize) -> Result<(), String> {
        self.over()?;
        let action = D::Game::action_at(&self.core.obs, index).ok_or_else(|| {
            format!(
                "action {index} is beyond the action table ({} entries)",
                D::Game::action_count(&self.core.config)
            )
        })?;
        if self.record {
            let (wrote, stdout) = P::encode(&self.core.obs, &action);
            self.answer(Answer::Action(action), &wrote, &stdout);
        } else {
            self.core.answer(Answer::Action(action), None);
        }
        Ok(())
    }

    fn step_text(&mut self, wrote: &str, stdout: &str) -> Result<(), String> {
        self.over()?;
        let answer = P::decode(&self.core.obs, wrote, stdout);
        self.answer(answer, wrote, stdout);
        Ok(())
    }

    fn index_text(&self, index: usize) -> Option<(String, String)> {
        self.core.current?;
        let action = D::Game::action_at(&self.core.obs, index)?;
        Some(P::encode(&self.core.obs, &action))
    }

    fn rewards(&self, out: &mut [f32]) {
        self.core.rewards(out);
    }

    fn outcome(&self) -> Option<OutcomeParts> {
        let outcome = self.core.outcome.as_ref()?;
        Some((
            outcome.scores.iter().map(|s| s.to_f64()).collect(),
            outcome.scores.iter().map(|s| s.to_string()).collect(),
            outcome.ranks.clone(),
            outcome.winner,
        ))
    }

    fn faults(&self) -> Vec<Vec<String>> {
        let mut all: Vec<Vec<String>> = self
            .core
            .out
            .iter()
            .map(|fault| fault.iter().map(|f| f.to_string()).collect())
            .collect();
        for (player, fault) in self.core.game.rule_faults() {
            if let Some(list) = all.get_mut(player) {
                list.push(fault.to_string());
            }
        }
        all
    }

    fn replay_json(&mut self, names: &[String]) -> Result<String, String> {
        let Some(outcome) = self.core.outcome.clone() else {
            return Err("the game is not over: a replay is saved once it ends".into());
        };
        let Some(steps) = self.core.steps.clone() else {
            return Err(
                "this environment does not record its games: make it with record=True".into(),
            );
        };
        if self.frames.is_none() {
            self.frames = Some(self.core.game.take_frames());
        }
        let config = &self.core.config;
        let mut players: Vec<PlayerRecord> = self
            .core
            .seats
            .iter()
            .enumerate()
            .map(|(seat, kind)| {
                let (name, spec, bot_seed) = match kind {
                    SeatKind::Agent => (
                        names
                            .get(seat)
                            .cloned()
                            .unwrap_or_else(|| format!("agent_{seat}")),
                        "python:arena_envs".to_string(),
                        None,
                    ),
                    SeatKind::Builtin(name) => (
                        name.clone(),
                        format!("builtin:{name}"),
                        Some(arena_game::bot_seed(self.core.seed, seat)),
                    ),
                };
                PlayerRecord {
                    name,
                    spec,
                    bot_seed,
                    answers: steps.iter().filter(|s| s.player == seat).count() as u32,
                    ..PlayerRecord::default()
                }
            })
            .collect();
        for (index, step) in steps.iter().enumerate() {
            if let (Some(fault), Some(record)) = (&step.fault, players.get_mut(step.player)) {
                record.faults.push(StepFault {
                    step: Some(index),
                    fault: fault.clone(),
                });
            }
        }
        for (player, fault) in self.core.game.rule_faults() {
            if let Some(record) = players.get_mut(player) {
                record.faults.push(StepFault { step: None, fault });
            }
        }
        for (player, warning) in self.core.game.rule_warnings() {
            if let Some(record) = players.get_mut(player) {
                record.warnings.push(warning);
            }
        }
        let record: MatchRecord<D::Game> = MatchRecord {
            format: RECORD_FORMAT,
            game: D::Game::game_id(config).to_string(),
            config: config.clone(),
            seed: self.core.seed,
            time_policy: D::Game::default_time_policy(config),
            clock: ClockKind::Wall,
            players,
            steps,
            frames: self.frames.clone().unwrap_or_default(),
            outcome,
        };
        serde_json::to_string(&record).map_err(|e| format!("cannot encode the replay: {e}"))
    }

    fn round(&mut self) -> Vec<usize> {
        self.core.observe_round()
    }

    fn round_text(&self, k: usize) -> String {
        let mut out = String::new();
        if let Some((player, obs)) = self.core.round_obs(k) {
            P::input(obs, self.core.first[player], &mut out);
        }
        out
    }

    fn round_args(&self, k: usize) -> Vec<String> {
        self.core
            .round_obs(k)
            .map(|(_, obs)| P::args(obs))
            .unwrap_or_default()
    }

    fn round_features(&self, k: usize, out: &mut [f32]) {
        out.fill(0.0);
        if let Some((_, obs)) = self.core.round_obs(k) {
            D::Game::features(obs, out);
        }
    }

    fn round_mask(&self, k: usize, out: &mut [u8]) {
        out.fill(0);
        if let Some((_, obs)) = self.core.round_obs(k) {
            D::Game::legal_mask(obs, out);
        }
    }

    fn step_round(&mut self, answers: Vec<RoundAnswer>) -> Result<(), String> {
        self.over()?;
        let mut given = Vec::with_capacity(answers.len());
        for (k, answer) in answers.into_iter().enumerate() {
            let (player, obs) = self
                .core
                .round_obs(k)
                .ok_or_else(|| format!("answer {k} is beyond the round"))?;
            let (answer, wrote, stdout) = match answer {
                RoundAnswer::Index(index) => {
                    let action = D::Game::action_at(obs, index)
                        .ok_or_else(|| format!("action {index} is beyond the action table"))?;
                    let (wrote, stdout) = if self.record {
                        P::encode(obs, &action)
                    } else {
                        (String::new(), String::new())
                    };
                    (Answer::Action(action), wrote, stdout)
                }
                RoundAnswer::Text(wrote, stdout) => {
                    (P::decode(obs, &wrote, &stdout), wrote, stdout)
                }
            };
            let texts = self
                .record
                .then(|| P::recorded(obs, self.core.first[player], &wrote, &stdout));
            given.push((answer, texts));
        }
        self.core.answer_round(given)
    }
}

//! One game driven from outside: the ask loop of the match runner without agents. The seats that
//! Python plays stop the loop; built-in bots answer in place, seeded as `arena play` seeds them
//! (`bot_seed(game seed, seat)`); a player that faulted is out and the rules get its fault at each of
//! its asks, as `run_match` does.

use arena_game::builtin::make_bot;
use arena_game::{Answer, Bot, BotEntry, EnvSpec, Fault, Game, Outcome, Step, bot_seed};

/// An answer with the input and output its step is recorded with (when recording).
pub type Given<A> = (Answer<A>, Option<(String, String)>);

/// Who plays a seat.
#[derive(Clone, Debug)]
pub enum SeatKind {
    /// The environment's user.
    Agent,
    /// A built-in bot by name (`NAME@P` for a handicap).
    Builtin(String),
}

pub struct Core<G: Game> {
    pub config: G::Config,
    pub seed: u64,
    pub game: G,
    /// The observation of the current ask (filled once per ask, as the rules require).
    pub obs: G::Obs,
    pub seats: Vec<SeatKind>,
    bots: Vec<Option<Box<dyn Bot<G>>>>,
    /// Whether each player is still to be asked for the first time.
    pub first: Vec<bool>,
    /// The fault that put each player out, if one did.
    pub out: Vec<Option<Fault>>,
    /// The agent seat being asked, or `None` once the game is over.
    pub current: Option<usize>,
    pub outcome: Option<Outcome>,
    /// Every ask answered so far, when recording.
    pub steps: Option<Vec<Step<G::Action>>>,
    /// Asks answered since the core was made, by anyone (the benchmark's count).
    pub asks: u64,
    /// The later players of the current round and what each is told ([`Core::observe_round`]).
    pub round: Vec<(usize, G::Obs)>,
}

impl<G: Game> Core<G> {
    /// A game of `seed`, advanced to its first agent ask.
    pub fn new(
        config: G::Config,
        seed: u64,
        seats: Vec<SeatKind>,
        entries: &[BotEntry<G>],
        record: bool,
    ) -> Result<Self, String> {
        let game = G::new(&config, seed);
        let players = game.num_players();
        if seats.len() != players {
            return Err(format!(
                "{} is a {players}-player game: give {players} seats (got {})",
                G::game_id(&config),
                seats.len()
            ));
        }
        let mut core = Core {
            config,
            seed,
            game,
            obs: G::Obs::default(),
            seats,
            bots: Vec::new(),
            first: vec![true; players],
            out: vec![None; players],
            current: None,
            outcome: None,
            steps: None,
            asks: 0,
            round: Vec::new(),
        };
        core.reset(seed, entries, record)?;
        Ok(core)
    }

    /// A new game of `seed` with the same seats, advanced to its first agent ask.
    pub fn reset(
        &mut self,
        seed: u64,
        entries: &[BotEntry<G>],
        record: bool,
    ) -> Result<(), String> {
        self.seed = seed;
        self.game = G::new(&self.config, seed);
        if record {
            self.game.record_frames();
        }
        let mut bots = Vec::with_capacity(self.seats.len());
        for (seat, kind) in self.seats.iter().enumerate() {
            bots.push(match kind {
                SeatKind::Agent => None,
                SeatKind::Builtin(name) => Some(make_bot(entries, name, bot_seed(seed, seat))?),
            });
        }
        self.bots = bots;
        self.first.fill(true);
        self.out.fill(None);
        self.current = None;
        self.outcome = None;
        self.steps = record.then(Vec::new);
        self.round.clear();
        self.advance();
        Ok(())
    }

    /// Plays the asks that need no agent (built-in bots, players that are out) until an agent must
    /// answer or the game ends.
    pub fn advance(&mut self) {
        while let Some(player) = self.game.to_act() {
            self.game.observe(player, &mut self.obs);
            if let Some(fault) = &self.out[player] {
                self.game.apply(player, Answer::Fault(fault.clone()));
                continue;
            }
            let Some(bot) = self.bots[player].as_mut() else {
                self.current = Some(player);
                return;
            };
            let action = bot.act(&self.obs);
            self.asks += 1;
            self.first[player] = false;
            if let Some(steps) = self.steps.as_mut() {
                steps.push(Step {
                    player,
                    input: None,
                    output: None,
                    action: Some(action.clone()),
                    fault: None,
                    elapsed_us: 0,
                    cpu_us: None,
                    stderr: None,
                });
            }
            self.game.apply(player, Answer::Action(action));
        }
        self.current = None;
        self.outcome = Some(self.game.outcome());
    }

    /// The current agent's answer, then on to the next agent ask. `input`/`output`: the texts the
    /// step is recorded with.
    pub fn answer(&mut self, answer: Answer<G::Action>, texts: Option<(String, String)>) {
        self.apply_current(answer, texts);
        self.advance();
    }

    /// The current agent's answer given to the rules, recorded, without asking anyone next.
    fn apply_current(&mut self, answer: Answer<G::Action>, texts: Option<(String, String)>) {
        let Some(player) = self.current else {
            return;
        };
        self.first[player] = false;
        self.asks += 1;
        if let Some(steps) = self.steps.as_mut() {
            let (input, output) = texts.unzip();
            let (action, fault) = match &answer {
                Answer::Action(action) => (Some(action.clone()), None),
                Answer::Fault(fault) => (None, Some(fault.clone())),
            };
            steps.push(Step {
                player,
                input,
                output,
                action,
                fault,
                elapsed_us: 0,
                cpu_us: None,
                stderr: None,
            });
        }
        if let Answer::Fault(fault) = &answer {
            self.out[player] = Some(fault.clone());
        }
        self.game.apply(player, answer);
    }

    /// Each player's reward once the game is over: the share of the other players it finished
    /// ahead of minus the share it finished behind (1 for a win, -1 for a loss, 0 for a draw in two
    /// players).
    pub fn rewards(&self, out: &mut [f32]) {
        let Some(outcome) = &self.outcome else {
            out.fill(0.0);
            return;
        };
        let ranks = &outcome.ranks;
        let others = (ranks.len().max(2) - 1) as f32;
        for (slot, mine) in out.iter_mut().zip(ranks) {
            let ahead = ranks.iter().filter(|r| *r > mine).count() as f32;
            let behind = ranks.iter().filter(|r| *r < mine).count() as f32;
            *slot = (ahead - behind) / others;
        }
    }
}

impl<G: EnvSpec> Core<G> {
    /// The players of the current round ([`EnvSpec::round`]), the current one first: each later
    /// one that is an agent still in the game is observed now (kept in `round`), so that all of
    /// them can answer at once. The round stops at the first player that is not such an agent.
    pub fn observe_round(&mut self) -> Vec<usize> {
        self.round.clear();
        let Some(first) = self.current else {
            return Vec::new();
        };
        let mut players = vec![first];
        for player in self.game.round(first).into_iter().skip(1) {
            let agent = matches!(self.seats.get(player), Some(SeatKind::Agent));
            if !agent || self.out[player].is_some() || players.contains(&player) {
                break;
            }
            let mut obs = G::Obs::default();
            self.game.observe(player, &mut obs);
            self.round.push((player, obs));
            players.push(player);
        }
        players
    }

    /// What round player `k` (0: the current one) is told.
    pub fn round_obs(&self, k: usize) -> Option<(usize, &G::Obs)> {
        if k == 0 {
            return self.current.map(|player| (player, &self.obs));
        }
        self.round.get(k - 1).map(|(player, obs)| (*player, obs))
    }

    /// The answers of the round's players, in its order (one each), then on to the next agent
    /// ask. `texts`: each step's recorded input and output.
    pub fn answer_round(&mut self, answers: Vec<Given<G::Action>>) -> Result<(), String> {
        if answers.len() != self.round.len() + 1 {
            return Err(format!(
                "{} answers for a round of {} players",
                answers.len(),
                self.round.len() + 1
            ));
        }
        if answers.len() > 1 && answers.iter().any(|(a, _)| matches!(a, Answer::Fault(_))) {
            return Err(
                "an answer of this round is not one the rules accept (a fault changes \
                        what the players after it are told): in a parallel step, answer with \
                        table entries or well-formed text"
                    .into(),
            );
        }
        let later = std::mem::take(&mut self.round);
        let mut answers = answers.into_iter();
        if let Some((answer, texts)) = answers.next() {
            self.apply_current(answer, texts);
        }
        for ((player, obs), (answer, texts)) in later.into_iter().zip(answers) {
            if self.game.to_act() != Some(player) {
                return Err(format!(
                    "the rules ask another player than {player}: a driver bug"
                ));
            }
            self.obs = obs;
            self.current = Some(player);
            self.apply_current(answer, texts);
        }
        self.advance();
        Ok(())
    }
}

//! One game driven from outside: the ask loop of the match runner without agents. The seats that
//! Python plays stop the loop; built-in bots answer in place, seeded as `arena play` seeds them
//! (`bot_seed(game seed, seat)`); a player that faulted is out and the rules get its fault at each of
//! its asks, as `run_match` does.

use arena_game::builtin::make_bot;
use arena_game::{Answer, Bot, BotEntry, Fault, Game, Outcome, Step, bot_seed};

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
        self.advance();
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

//! The contract between a game's pure rules and everything that drives them.
//!
//! Invariants every game keeps (the runner, the conformance checker and the benchmarks rely on them):
//! - rules are deterministic given `(config, seed)` and the sequence of answers; no I/O, no clocks;
//! - exactly one player is asked at a time (`to_act`), in the order the official referee serves them;
//! - `observe` is called once per ask, right before the answer, because some referees consume their RNG
//!   while building the input (Spring 2021 shuffles the possible-actions list);
//! - after a fault the game decides the consequence (plays a default, deactivates, forfeits).

use std::fmt::Debug;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

// Faults live in their own module because the time policies judge answers into faults and the
// `Game` trait names a time policy: both import `fault`, neither imports the other. Re-exported
// here so that `arena_game::game::Fault` keeps working.
pub use crate::fault::{Fault, FaultKind};
use crate::score::Score;
use crate::timing::TimePolicy;

/// Pure rules of one game.
pub trait Game: Sized + Send + Sync + 'static {
    /// Game id used on the command line (`langwars`, `spring2021`, `coup`).
    const ID: &'static str;
    /// Edition / league and other rule parameters.
    type Config: Clone + Debug + Send + Sync + Serialize + DeserializeOwned + 'static;
    /// What one player is told when asked (filled in place so that hot loops do not allocate).
    type Obs: Default + Clone + Debug + Send + Sync + 'static;
    /// One player's answer after the protocol has decoded it.
    type Action: Clone + Debug + Send + Sync + Serialize + DeserializeOwned + 'static;
    /// Per-frame state kept for replays and viewers (recorded only when asked for).
    type Frame: Clone + Debug + Send + Sync + Serialize + DeserializeOwned + 'static;

    fn new(config: &Self::Config, seed: u64) -> Self;
    /// One game per seed, appended to `out`. Engines whose seeding is a long serial computation override
    /// it to interleave the seeds (Lang Wars: MT19937 initialisation); the games are the same.
    fn new_batch(config: &Self::Config, seeds: &[u64], out: &mut Vec<Self>) {
        out.extend(seeds.iter().map(|&seed| Self::new(config, seed)));
    }
    /// The game id of a configuration (one engine may serve several games, e.g. editions).
    fn game_id(_config: &Self::Config) -> &'static str {
        Self::ID
    }
    fn num_players(&self) -> usize;
    /// The player who must answer next, or `None` once the game is over. Advances frames that need
    /// no answer (gathering, sun moves).
    fn to_act(&mut self) -> Option<usize>;
    fn observe(&mut self, player: usize, obs: &mut Self::Obs);
    fn apply(&mut self, player: usize, answer: Answer<Self::Action>);
    /// Final scores and winner; valid once `to_act` returned `None`.
    fn outcome(&self) -> Outcome;
    /// How long `player` may take for the answer it is about to be asked for (nominal: the time
    /// policy decides what happens beyond it).
    fn time_limit(&self, player: usize) -> Duration;
    /// How answer times are judged unless the front end says otherwise: the original contest's rule.
    fn default_time_policy(_config: &Self::Config) -> TimePolicy {
        TimePolicy::Strict
    }
    /// Start keeping frames for `take_frames` (off by default: benchmarks do not pay for it).
    fn record_frames(&mut self) {}
    fn take_frames(&mut self) -> Vec<Self::Frame> {
        Vec::new()
    }
    /// Rule-level faults the game noticed itself (illegal actions), for the record and statistics.
    fn rule_faults(&self) -> Vec<(usize, Fault)> {
        Vec::new()
    }
    /// Deviations from the exact protocol that the rules accepted, as the original referee did (Coup:
    /// junk before a move), for the record.
    fn rule_warnings(&self) -> Vec<(usize, String)> {
        Vec::new()
    }
}

/// What a player answered, as far as the rules are concerned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer<A> {
    Action(A),
    Fault(Fault),
}

/// The end of a game. In JSON the scores are exact text, with `score_values` (floats) beside them.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Outcome {
    pub scores: Vec<Score>,
    /// `None` for a draw (or Coup's no-winner game).
    pub winner: Option<usize>,
    /// 1-based rank per player; tied players share the better rank.
    pub ranks: Vec<u32>,
}

/// The schema of what `Outcome` writes: its scores also as floats.
#[derive(schemars::JsonSchema)]
#[schemars(rename = "outcome", deny_unknown_fields)]
#[allow(dead_code)] // a shape for the schema, never built
struct WrittenOutcome {
    scores: Vec<Score>,
    score_values: Vec<f64>,
    winner: Option<usize>,
    #[schemars(inner(range(min = 1)))]
    ranks: Vec<u32>,
}

impl schemars::JsonSchema for Outcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        WrittenOutcome::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        WrittenOutcome::json_schema(generator)
    }
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written<'a> {
            scores: &'a [Score],
            score_values: crate::score::ScoreValues<'a>,
            winner: Option<usize>,
            ranks: &'a [u32],
        }
        Written {
            scores: &self.scores,
            score_values: crate::score::ScoreValues(&self.scores),
            winner: self.winner,
            ranks: &self.ranks,
        }
        .serialize(serializer)
    }
}

impl Outcome {
    /// Ranks by descending score; `winner` is the unique top scorer, if there is one.
    pub fn from_scores(scores: Vec<Score>) -> Self {
        let ranks = ranks_of(&scores);
        let top: Vec<usize> = (0..scores.len()).filter(|&p| ranks[p] == 1).collect();
        let winner = if top.len() == 1 { Some(top[0]) } else { None };
        Outcome {
            scores,
            winner,
            ranks,
        }
    }
}

/// Competition ranking ("1224"): one plus the number of players with a strictly better score.
pub fn ranks_of(scores: &[Score]) -> Vec<u32> {
    scores
        .iter()
        .map(|mine| 1 + scores.iter().filter(|other| *other > mine).count() as u32)
        .collect()
}

/// A built-in strategy, run in process on typed observations.
pub trait Bot<G: Game>: Send {
    fn act(&mut self, obs: &G::Obs) -> G::Action;
    /// Makes the bot exactly as `BotEntry::make(seed)` would, for a new game, and says so; a bot that
    /// cannot (the default) is made anew. Saves an allocation per seat in hot loops.
    fn reset(&mut self, _seed: u64) -> bool {
        false
    }
}

/// A named built-in bot and how to make one from a seed.
pub struct BotEntry<G: Game> {
    pub name: &'static str,
    pub about: &'static str,
    /// A bot that searches for as long as the game's time limit allows it. Such a bot is held to the
    /// limits exactly as a process is (timed, judged by the time policy, its answer times recorded),
    /// so it never plays on the untimed fast path.
    pub thinks: bool,
    pub make: fn(seed: u64) -> Box<dyn Bot<G>>,
}

/// Text protocol of games played by one long-running process over stdin/stdout.
pub trait StreamProtocol: Game {
    /// The handshake a process prints when it is ready (compared trimmed and case-insensitively).
    const READY: Option<&'static str> = None;
    /// How long a process has for the handshake.
    const READY_TIMEOUT: Duration = Duration::from_secs(5);
    /// Official runner behaviour for output printed while the bot is not being asked: the 2014 runner
    /// threw it away, CodinGame keeps it for the next turn.
    const DISCARD_STALE_OUTPUT: bool;
    /// Whether an answer with no final newline counts once the bot stops writing (the 2014 runner read
    /// chunks, not lines).
    const ACCEPT_UNTERMINATED: bool;

    /// The exact input text for one ask; `first` is this player's first ask of the game.
    fn encode_input(obs: &Self::Obs, first: bool, out: &mut String);
    /// The official parser: an answer line (without its newline) to an action, or why it is unusable.
    fn decode_output(obs: &Self::Obs, line: &str) -> Result<Self::Action, String>;
    /// Bot side: the next ask's observation from the input stream, `None` at end of input.
    /// `previous` is the last observation read (`None` on the first ask), for what is sent only once.
    fn read_input(
        input: &mut dyn std::io::BufRead,
        previous: Option<&Self::Obs>,
    ) -> Result<Option<Self::Obs>, String>;
    /// Bot side: the answer line (without newline).
    fn encode_action(action: &Self::Action, out: &mut String);
}

/// Plays a whole game between in-process bots: the fast path used by benchmarks and tournaments.
pub fn play_in_process<G: Game>(
    game: &mut G,
    bots: &mut [Box<dyn Bot<G>>],
    obs: &mut G::Obs,
) -> Outcome {
    while let Some(player) = game.to_act() {
        game.observe(player, obs);
        let action = bots[player].act(obs);
        game.apply(player, Answer::Action(action));
    }
    game.outcome()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties() {
        let scores = [3, 7, 3, -1].map(Score::int);
        assert_eq!(ranks_of(&scores), vec![2, 1, 2, 4]);
        let tied = Outcome::from_scores(vec![Score::int(5), Score::int(5)]);
        assert_eq!(tied.winner, None);
        assert_eq!(tied.ranks, vec![1, 1]);
    }
}

//! What a game crate registers: a [`GameDef`] (identity, rules page, players, leagues, the rules'
//! configuration, built-in bots, the conformance check) and, for its process bots, one of the two
//! protocols the run layer knows how to drive: [`StreamProtocol`](crate::game::StreamProtocol) (one
//! process for the whole game, text on stdin/stdout) or [`CallProtocol`] (one process per move, a
//! shared file and arguments, as Coup's arbiter). The run layer turns either into a playable game;
//! the game crate itself never starts, times or waits for a process.

use crate::error::GameError;
use crate::game::{BotEntry, Fault, Game};
use crate::options::{GameOption, GameOptions};

/// One conformance game checked.
#[derive(Clone, Debug)]
pub struct ConformanceCase {
    pub label: String,
    /// The first difference, or `None` when the game conforms.
    pub difference: Option<String>,
}

/// A starter bot: what `arena new GAME LANG` writes, kept in the game's folder (`starters/`).
#[derive(Clone, Copy, Debug)]
pub struct Starter {
    /// The language id (`python3`, `cpp`, `java`, `javascript`, `typescript`).
    pub lang: &'static str,
    /// The file name it is written as (`Player.java` must keep its name).
    pub file: &'static str,
    pub text: &'static str,
}

/// A game as its crate defines it: everything the front ends list and the run layer needs, and
/// nothing about processes.
pub trait GameDef: Send + Sync + 'static {
    type Game: Game;
    /// The name users type (`arena play ID`).
    fn id(&self) -> &'static str;
    /// One line for `arena list`.
    fn about(&self) -> &'static str;
    /// The game's rules and protocol page (markdown, in the project's words): what `arena protocol`
    /// prints, so an installed binary carries it.
    fn rules(&self) -> &'static str;
    fn players(&self) -> usize;
    /// Accepted `--league` values, default first (empty when the game has none).
    fn variants(&self) -> &'static [&'static str] {
        &[]
    }
    /// The options of this game's rules that users may set (`--deck`, ...; none by default): every
    /// command that plays the game offers them, and a tournament's plan keeps those given.
    fn options(&self) -> &'static [GameOption] {
        &[]
    }
    /// The rules' configuration for a league (`None`: the default) and the options given (checked
    /// against [`GameDef::options`] before), or an error naming what is accepted.
    fn config(
        &self,
        variant: Option<&str>,
        options: &GameOptions,
    ) -> Result<<Self::Game as Game>::Config, GameError>;
    /// The replay viewer's drawing of this game: a script that calls `Arena.register([ids], draw)`
    /// (see the viewer's `viewer.js` for what `draw` is given). Kept in the game's folder.
    fn viewer_script(&self) -> &'static str;
    /// The starter bots, one per language (each reads the whole input and plays a legal move).
    fn starters(&self) -> &'static [Starter];
    /// Whether submissions follow the 2014 contests' conventions: a folder's `run.sh` names an
    /// interpreter as the 2014 servers had it (`python` is Python 2, ...).
    fn conventions_2014(&self) -> bool {
        false
    }
    /// The built-in bots; the one named `random` is what `arena bench` plays.
    fn bots(&self) -> &[BotEntry<Self::Game>];
    /// Checks recorded games of the official referee (the text of a transcript file) against the
    /// rules.
    fn conformance(&self, transcripts: &str) -> Result<Vec<ConformanceCase>, GameError>;
}

/// A protocol with one process per move: the referee keeps a shared file (the game so far), runs
/// the bot's command with the file's path and [`CallProtocol::call_args`] after it, and reads back
/// what the bot appended to the file and printed. The run layer does the running, the timing and
/// the sandboxing; the game says only what goes in and what comes out.
pub trait CallProtocol: Game {
    /// The shared file's name for a game between these players (the original arbiter's naming).
    fn call_file_name(names: &[&str]) -> String;
    /// What the shared file holds when `obs` is asked.
    fn call_file(obs: &Self::Obs) -> &str;
    /// The arguments after the file's path.
    fn call_args(obs: &Self::Obs) -> Vec<String>;
    /// The move, from what the bot appended to the file and printed.
    fn decode_call(obs: &Self::Obs, appended: &[u8], stdout: &[u8]) -> Result<Self::Action, Fault>;
    /// The other side, for a built-in bot run as a program (`arena bot`): the observation from the
    /// file's text and the arguments after its path.
    fn observe_call(file: String, args: &[String]) -> Result<Self::Obs, String>;
    /// What a built-in bot run as a program appends to the file and prints for `action`.
    fn answer_call(obs: &Self::Obs, action: &Self::Action) -> (String, String);
}

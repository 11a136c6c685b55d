//! The protocol's text on both kinds of games, behind one trait: a stream game's input lines and
//! answer line, or a call-per-move game's history file, arguments, appended move and printed text.
//! Each side calls the game's own protocol functions; nothing here parses or formats by itself.

use arena_game::{Answer, CallProtocol, Fault, FaultKind, Game, StreamProtocol};

/// The text of one game's protocol, as the referee sends it and as it reads answers.
pub trait TextSide<G: Game>: Send + Sync + 'static {
    /// Whether the game calls one process per move (its text is a file and arguments).
    const CALLS: bool;
    /// The handshake a process prints before its first ask (Lang Wars' `READY`), if any.
    fn ready() -> Option<&'static str>;
    /// The text of an ask: the input lines (stream games; `first`: the player's first ask), or the
    /// history file's content (call games).
    fn input(obs: &G::Obs, first: bool, out: &mut String);
    /// The arguments after the file's path (call games); empty for stream games.
    fn args(obs: &G::Obs) -> Vec<String>;
    /// An answer from its text, judged as the referee judges a bot's: the line printed (stream
    /// games: up to its first newline), or what was appended to the file and printed (call games).
    fn decode(obs: &G::Obs, wrote: &str, stdout: &str) -> Answer<G::Action>;
    /// The text an action is written as: (line or appended text, printed text).
    fn encode(obs: &G::Obs, action: &G::Action) -> (String, String);
    /// A step's input and output as `arena play` records them in a replay.
    fn recorded(obs: &G::Obs, first: bool, wrote: &str, stdout: &str) -> (String, String);
    /// Bot side: the next ask from the bot's standard input and arguments (stream games: `None` at
    /// the end of the input; call games: the one ask of this call).
    fn read(
        input: &mut dyn std::io::BufRead,
        args: &[String],
        previous: Option<&G::Obs>,
    ) -> Result<Option<G::Obs>, String>;
}

/// One process for the whole game, text on stdin/stdout.
pub struct Stream;

/// One process per move: a history file and arguments (Coup).
pub struct Call;

impl<G: StreamProtocol> TextSide<G> for Stream {
    const CALLS: bool = false;

    fn ready() -> Option<&'static str> {
        G::READY
    }

    fn input(obs: &G::Obs, first: bool, out: &mut String) {
        G::encode_input(obs, first, out);
    }

    fn args(_obs: &G::Obs) -> Vec<String> {
        Vec::new()
    }

    fn decode(obs: &G::Obs, wrote: &str, _stdout: &str) -> Answer<G::Action> {
        // The runner hands the parser one line without its newline.
        let line = wrote.split('\n').next().unwrap_or("");
        match G::decode_output(obs, line) {
            Ok(action) => Answer::Action(action),
            Err(why) => Answer::Fault(Fault::new(FaultKind::Unparsable, why)),
        }
    }

    fn encode(_obs: &G::Obs, action: &G::Action) -> (String, String) {
        let mut line = String::new();
        G::encode_action(action, &mut line);
        (line, String::new())
    }

    fn recorded(obs: &G::Obs, first: bool, wrote: &str, _stdout: &str) -> (String, String) {
        let mut input = String::new();
        G::encode_input(obs, first, &mut input);
        let line = wrote.split('\n').next().unwrap_or("");
        (input, line.to_string())
    }

    fn read(
        input: &mut dyn std::io::BufRead,
        _args: &[String],
        previous: Option<&G::Obs>,
    ) -> Result<Option<G::Obs>, String> {
        G::read_input(input, previous)
    }
}

impl<G: CallProtocol> TextSide<G> for Call {
    const CALLS: bool = true;

    fn ready() -> Option<&'static str> {
        None
    }

    fn input(obs: &G::Obs, _first: bool, out: &mut String) {
        out.push_str(G::call_file(obs));
    }

    fn args(obs: &G::Obs) -> Vec<String> {
        G::call_args(obs)
    }

    fn decode(obs: &G::Obs, wrote: &str, stdout: &str) -> Answer<G::Action> {
        match G::decode_call(obs, wrote.as_bytes(), stdout.as_bytes()) {
            Ok(action) => Answer::Action(action),
            Err(fault) => Answer::Fault(fault),
        }
    }

    fn encode(obs: &G::Obs, action: &G::Action) -> (String, String) {
        G::answer_call(obs, action)
    }

    fn recorded(obs: &G::Obs, _first: bool, wrote: &str, stdout: &str) -> (String, String) {
        // As the call agent records a call: the arguments, and what was appended and printed.
        let input = format!("{:?}", G::call_args(obs));
        let output = serde_json::json!({"wrote": wrote, "stdout": stdout}).to_string();
        (input, output)
    }

    fn read(
        input: &mut dyn std::io::BufRead,
        args: &[String],
        previous: Option<&G::Obs>,
    ) -> Result<Option<G::Obs>, String> {
        // One call, one ask: the history file's path, then the arguments.
        if previous.is_some() {
            return Ok(None);
        }
        let _ = input;
        let [path, rest @ ..] = args else {
            return Err("usage: BOT HISTORY_FILE OPP_COINS MY_COINS CARDS LEGAL...".into());
        };
        let file = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the history file {path}: {e}"))?;
        G::observe_call(file, rest).map(Some)
    }
}

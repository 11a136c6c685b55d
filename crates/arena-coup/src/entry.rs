//! Coup as a game definition: identity, rules page, built-in bots, the call protocol (the
//! arbiter's history file and argv, for the run layer's call-per-move agent), and conformance
//! against `coup.jsonl`.

use arena_game::define::{CallProtocol, ConformanceCase, GameDef, Starter};
use arena_game::game::{Answer, BotEntry, Fault, Game};
use arena_game::{GameError, GameOption, GameOptions, OptionKind};
use serde::Deserialize;

use crate::bots;
use crate::catalog::catalog;
use crate::protocol::decode_answer;
use crate::rules::{Cards, Coup, CoupAction, CoupConfig, CoupObs, Move};

/// Coup: its rules' options are [`OPTIONS`] (`--deck`, `--no-shuffle`, ...).
pub struct CoupDef {
    bots: Vec<BotEntry<Coup>>,
}

/// The definition; a run's rules come from its options (default: a standard deck shuffled from
/// the game seed, shuffles on).
pub fn definition() -> CoupDef {
    CoupDef { bots: catalog() }
}

/// Coup's options: the reference arbiter's reproducibility hooks (`COUP_DECK`, `COUP_NO_SHUFFLE`,
/// read from the environment when not given) and arena's own stricter checks.
pub const OPTIONS: &[GameOption] = &[
    GameOption {
        name: "deck",
        kind: OptionKind::Text,
        help: "the deck before the deal, in surrender symbols (`_ ' < = 0`), dealt from its end",
        env: Some("COUP_DECK"),
    },
    GameOption {
        name: "no_shuffle",
        kind: OptionKind::Flag,
        help: "no shuffles after reveals and Exchanges (returned cards go on the deck's end)",
        env: Some("COUP_NO_SHUFFLE"),
    },
    GameOption {
        name: "call_limit_ms",
        kind: OptionKind::Number,
        help: "per-call time limit in milliseconds (the original had none; default 10000)",
        env: None,
    },
    GameOption {
        name: "strict_moves",
        kind: OptionKind::Flag,
        help: "demand exactly one legal move per call; by default a call may write one character \
               before a one-character legal move, as the original arbiter accepted (kept in the \
               history, recorded as a warning)",
        env: None,
    },
];

/// The rules `options` (checked against [`OPTIONS`]) set.
pub fn config_of(options: &GameOptions) -> Result<CoupConfig, GameError> {
    let defaults = CoupConfig::default();
    let config = CoupConfig {
        deck: options.text("deck").map(str::to_string),
        no_shuffle: options.flag("no_shuffle"),
        time_limit_ms: options
            .number("call_limit_ms")
            .unwrap_or(defaults.time_limit_ms),
        strict_moves: options.flag("strict_moves"),
        ..defaults
    };
    config.validate().map_err(|reason| GameError::OptionValue {
        game: Coup::ID,
        option: "deck".into(),
        reason,
    })?;
    Ok(config)
}

/// The starter bots (`arena new`), from `starters/`.
const STARTERS: &[Starter] = &[
    Starter {
        lang: "python3",
        file: "bot.py",
        text: include_str!("../starters/bot.py"),
    },
    Starter {
        lang: "cpp",
        file: "bot.cpp",
        text: include_str!("../starters/bot.cpp"),
    },
    Starter {
        lang: "java",
        file: "Player.java",
        text: include_str!("../starters/Player.java"),
    },
    Starter {
        lang: "javascript",
        file: "bot.js",
        text: include_str!("../starters/bot.js"),
    },
];

impl GameDef for CoupDef {
    type Game = Coup;

    fn id(&self) -> &'static str {
        Coup::ID
    }

    fn rules(&self) -> &'static str {
        include_str!("../../../docs/protocol-coup.md")
    }

    fn viewer_script(&self) -> &'static str {
        include_str!("../viewer.js")
    }

    fn starters(&self) -> &'static [Starter] {
        STARTERS
    }

    fn about(&self) -> &'static str {
        "Coup KotH (Code Golf SE): two players, history file + argv, one process per call; of the \
         built-in bots only random, challenger and calculator follow published behaviour, the others \
         are stand-ins inspired by leaderboard names"
    }

    fn players(&self) -> usize {
        2
    }

    fn options(&self) -> &'static [GameOption] {
        OPTIONS
    }

    fn config(
        &self,
        variant: Option<&str>,
        options: &GameOptions,
    ) -> Result<CoupConfig, GameError> {
        if let Some(got) = variant {
            return Err(GameError::NoLeagues {
                game: Coup::ID,
                got: got.to_string(),
                hint: None,
            });
        }
        config_of(options)
    }

    fn bots(&self) -> &[BotEntry<Coup>] {
        &self.bots
    }

    fn conformance(&self, transcripts: &str) -> Result<Vec<ConformanceCase>, GameError> {
        conformance_text(transcripts).map_err(GameError::Transcripts)
    }
}

/// File names safe on any file system: letters, digits, `-` and `.` kept, the rest `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl CallProtocol for Coup {
    /// Named like the arbiter's history files: FIRST_SECOND_ROUND_GAME.txt.
    fn call_file_name(names: &[&str]) -> String {
        let name = |seat: usize| names.get(seat).map_or_else(String::new, |n| file_safe(n));
        format!("{}_{}_0_0.txt", name(0), name(1))
    }

    fn call_file(obs: &CoupObs) -> &str {
        &obs.history
    }

    fn call_args(obs: &CoupObs) -> Vec<String> {
        obs.args()
    }

    fn decode_call(obs: &CoupObs, appended: &[u8], stdout: &[u8]) -> Result<CoupAction, Fault> {
        decode_answer(obs, appended, stdout)
    }

    /// `OPP_COINS MY_COINS CARDS LEGAL...` after the history file's path.
    fn observe_call(history: String, args: &[String]) -> Result<CoupObs, String> {
        let [opp, mine, cards, legal @ ..] = args else {
            return Err("usage: HISTORY OPP_COINS MY_COINS CARDS LEGAL...".into());
        };
        let mut obs = CoupObs {
            history,
            opp_coins: opp
                .parse()
                .map_err(|_| format!("bad opponent coins {opp:?}"))?,
            my_coins: mine
                .parse()
                .map_err(|_| format!("bad own coins {mine:?}"))?,
            cards: Cards::parse_reveal(cards).ok_or_else(|| format!("bad cards {cards:?}"))?,
            ..CoupObs::default()
        };
        for text in legal {
            let mv =
                Move::parse(text.as_bytes()).ok_or_else(|| format!("bad legal move {text:?}"))?;
            if !obs.legal.push(mv) {
                return Err("too many legal moves".into());
            }
        }
        if obs.legal.is_empty() {
            return Err("no legal moves given".into());
        }
        let line = obs.line().as_bytes();
        let completes_exchange = line.first() == Some(&b'E')
            && line.len() & 1 == 0
            && line
                .last()
                .is_some_and(|&c| c == b'p' || crate::rules::Card::from_surrender(c).is_some());
        if completes_exchange && obs.cards.len() > 2 {
            obs.keep = obs.cards.len() - 2;
        }
        obs.player = bots::read_history(&obs.history).me;
        Ok(obs)
    }

    /// The move goes on the history; the kept cards are printed when completing an Exchange.
    fn answer_call(obs: &CoupObs, action: &CoupAction) -> (String, String) {
        let print = if obs.keep > 0 && action.wrote == Move::END {
            action.keep.reveal_string()
        } else {
            String::new()
        };
        (action.wrote.as_str().to_string(), print)
    }
}

/// One recorded game of `coup.jsonl` (see the shared conformance README).
#[derive(Deserialize)]
pub struct Transcript {
    pub deck: String,
    #[serde(default)]
    pub salts: Vec<String>,
    pub calls: Vec<RecordedCall>,
    pub history: String,
    pub winner: Option<usize>,
}

#[derive(Deserialize)]
pub struct RecordedCall {
    pub player: usize,
    pub args: Vec<String>,
    pub wrote: String,
    #[serde(default)]
    pub stdout: String,
}

/// Replays one transcript (its deck, shuffles off) feeding the recorded answers; the first difference.
pub fn check_transcript(game: &Transcript) -> Option<String> {
    let config = CoupConfig {
        deck: Some(game.deck.clone()),
        no_shuffle: true,
        ..CoupConfig::default()
    };
    if let Err(e) = config.validate() {
        return Some(format!("bad deck: {e}"));
    }
    let mut coup = Coup::new(&config, 0);
    let mut obs = CoupObs::default();
    for (index, call) in game.calls.iter().enumerate() {
        let Some(player) = coup.to_act() else {
            return Some(format!(
                "call {index}: the game is over, the referee made {} calls",
                game.calls.len()
            ));
        };
        if player != call.player {
            return Some(format!(
                "call {index}: player {player} asked, recorded {}",
                call.player
            ));
        }
        coup.observe(player, &mut obs);
        let args = obs.args();
        if args != call.args {
            return Some(format!(
                "call {index}: arguments {args:?}, recorded {:?}",
                call.args
            ));
        }
        let answer = match decode_answer(&obs, call.wrote.as_bytes(), call.stdout.as_bytes()) {
            Ok(action) => Answer::Action(action),
            Err(fault) => Answer::Fault(fault),
        };
        coup.apply(player, answer);
    }
    if let Some(player) = coup.to_act() {
        return Some(format!(
            "after {} calls the game goes on (player {player} to act)",
            game.calls.len()
        ));
    }
    if coup.history() != game.history {
        return Some(format!(
            "history {:?}, recorded {:?}",
            coup.history(),
            game.history
        ));
    }
    let winner = coup.outcome().winner;
    if winner != game.winner {
        return Some(format!("winner {winner:?}, recorded {:?}", game.winner));
    }
    None
}

/// Checks every game of a `coup.jsonl` file's text.
pub fn conformance_text(text: &str) -> Result<Vec<ConformanceCase>, String> {
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let label = format!("line {}", number + 1);
        let game: Transcript = match serde_json::from_str(line) {
            Ok(game) => game,
            Err(e) => {
                cases.push(ConformanceCase {
                    label,
                    difference: Some(format!("unreadable transcript: {e}")),
                });
                continue;
            }
        };
        let label = format!("{label} deck {} salts {}", game.deck, game.salts.join(","));
        cases.push(ConformanceCase {
            label,
            difference: check_transcript(&game),
        });
    }
    Ok(cases)
}

//! The text side of a call: what a bot appended and printed, turned into an action or a forfeit, and
//! the forfeit kinds the KotH report counts.

use std::fmt;

use arena_game::game::{Fault, FaultKind};
use serde::{Deserialize, Serialize};

use crate::rules::{Card, Cards, Coup, CoupAction, CoupObs, Hand, Move};

/// Why a bot lost a game other than by losing its cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitKind {
    /// The command could not be started.
    SpawnFailed,
    /// Exit status other than 0 (a signal included).
    NonZeroExit,
    /// The history file is not the old content plus what was appended.
    ModifiedHistory,
    /// The appended text is not a legal move (nothing, another move, or junk before a move where it is
    /// refused: `--strict-moves`, a newline, more than one character).
    IllegalMove,
    /// The cards printed after an Exchange are not a selection of the offered cards of the right size.
    IllegalExchange,
    /// Still running at the per-call limit.
    Timeout,
    /// Killed by the sandbox's memory limit.
    Memory,
    /// Anything else (the referee could not set the call up).
    Other,
}

impl ForfeitKind {
    pub fn label(self) -> &'static str {
        match self {
            ForfeitKind::SpawnFailed => "spawn failed",
            ForfeitKind::NonZeroExit => "non-zero exit",
            ForfeitKind::ModifiedHistory => "modified history",
            ForfeitKind::IllegalMove => "illegal move",
            ForfeitKind::IllegalExchange => "illegal exchange",
            ForfeitKind::Timeout => "timeout",
            ForfeitKind::Memory => "memory",
            ForfeitKind::Other => "other",
        }
    }

    /// Classifies a fault made by this crate (its detail starts with the kind's label).
    pub fn of(fault: &Fault) -> ForfeitKind {
        match fault.kind {
            FaultKind::SpawnFailed => ForfeitKind::SpawnFailed,
            FaultKind::Timeout => ForfeitKind::Timeout,
            FaultKind::Memory => ForfeitKind::Memory,
            FaultKind::Crashed | FaultKind::Exited => ForfeitKind::NonZeroExit,
            FaultKind::Illegal | FaultKind::Unparsable => {
                if fault
                    .detail
                    .starts_with(ForfeitKind::IllegalExchange.label())
                {
                    ForfeitKind::IllegalExchange
                } else {
                    ForfeitKind::IllegalMove
                }
            }
            FaultKind::Forfeit if fault.detail.starts_with("modified history") => {
                ForfeitKind::ModifiedHistory
            }
            _ => ForfeitKind::Other,
        }
    }
}

impl fmt::Display for ForfeitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Python's `str.strip()` whitespace, which the arbiter applies to the Exchange output.
fn strip_python(bytes: &[u8]) -> &[u8] {
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let start = bytes.iter().position(|b| !space(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !space(b))
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

/// Decodes one call: `appended` is what the history file gained, `stdout` what the bot printed.
/// An empty write is illegal (the arbiter crashed on it, B5). With `obs.strict_moves` the appended text
/// must equal one legal move; otherwise it is accepted as the arbiter accepted it (B4): at most two
/// characters that *end with* a legal move (the first in the legal order that fits), the character
/// before it kept as junk.
pub fn decode_answer(obs: &CoupObs, appended: &[u8], stdout: &[u8]) -> Result<CoupAction, Fault> {
    let illegal = |why: String| Fault::new(FaultKind::Illegal, format!("illegal move: {why}"));
    if appended.is_empty() {
        return Err(illegal("wrote nothing".into()));
    }
    let not_legal = || {
        illegal(format!(
            "wrote {:?}, legal {:?}",
            String::from_utf8_lossy(appended),
            obs.legal
        ))
    };
    let (wrote, junk) = if obs.strict_moves {
        let wrote = Move::parse(appended)
            .filter(|mv| obs.legal.contains(*mv))
            .ok_or_else(not_legal)?;
        (wrote, None)
    } else {
        if appended.len() > 2 {
            // The arbiter's file check: the old content plus one or two characters.
            return Err(Fault::new(
                FaultKind::Forfeit,
                format!(
                    "modified history: appended {} bytes {:?} (one move, at most two characters)",
                    appended.len(),
                    String::from_utf8_lossy(appended)
                ),
            ));
        }
        let wrote = obs
            .legal
            .as_slice()
            .iter()
            .copied()
            .find(|mv| appended.ends_with(mv.as_str().as_bytes()))
            .ok_or_else(not_legal)?;
        let junk = match &appended[..appended.len() - wrote.len()] {
            [] => None,
            &[byte] => Some(char::from(byte)),
            _ => return Err(not_legal()),
        };
        (wrote, junk)
    };
    let mut keep = Hand::new();
    if obs.keep > 0 && wrote == Move::END {
        let printed = strip_python(stdout);
        let offered = obs.cards.as_slice();
        let mut shown = Cards::<4>::new();
        let parsed = printed.len() <= 4
            && printed
                .iter()
                .all(|&b| Card::from_reveal(b).is_some_and(|card| shown.push(card)));
        if !parsed || shown.len() != obs.keep {
            return Err(Fault::new(
                FaultKind::Illegal,
                format!(
                    "illegal exchange: printed {:?}, must keep {} of {:?}",
                    String::from_utf8_lossy(printed),
                    obs.keep,
                    obs.cards.reveal_string()
                ),
            ));
        }
        crate::rules::check_keep(offered, obs.keep, shown.as_slice())?;
        for &card in shown.as_slice() {
            keep.push(card);
        }
    }
    let action = CoupAction { wrote, keep, junk };
    Coup::check_action(obs, &action)?;
    Ok(action)
}

/// The text a bot would produce for `action`: (appended, stdout).
pub fn encode_answer(action: &CoupAction) -> (String, String) {
    (
        action.wrote.as_str().to_string(),
        action.keep.reveal_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_like_python() {
        assert_eq!(strip_python(b" \x0b$!\r\n"), b"$!");
        assert_eq!(strip_python(b"  "), b"");
        assert_eq!(strip_python(b""), b"");
    }
}

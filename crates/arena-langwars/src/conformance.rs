//! Replays official transcripts (`conformance/langwars-*.jsonl`) through the referee: feeds the recorded
//! outputs, compares every input line and the result.

use arena_game::ConformanceCase;
use arena_game::{Answer, Game, StreamProtocol};
use serde::Deserialize;

use crate::engine::{Edition, LangWars, Observation};

/// One recorded game.
#[derive(Debug, Deserialize)]
pub struct Transcript {
    pub edition: String,
    pub seed: u64,
    pub settings: Vec<String>,
    pub turns: Vec<TranscriptTurn>,
    pub scores_24ths: Vec<i64>,
    pub winner: Option<usize>,
}

#[derive(Debug, Deserialize)]
pub struct TranscriptTurn {
    pub turn: u32,
    pub inputs: Vec<Vec<String>>,
    pub outputs: Vec<String>,
}

/// Checks every game of a JSON Lines file against `edition`.
pub fn check_file(edition: Edition, text: &str) -> Result<Vec<ConformanceCase>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            let transcript: Transcript = serde_json::from_str(line)
                .map_err(|e| format!("line {}: not a Lang Wars transcript: {e}", index + 1))?;
            Ok(ConformanceCase {
                label: format!("line {} (seed {})", index + 1, transcript.seed),
                difference: check_game(edition, &transcript).err(),
            })
        })
        .collect()
}

/// `Ok` when the referee sends exactly the recorded inputs and ends with the recorded result.
pub fn check_game(edition: Edition, transcript: &Transcript) -> Result<(), String> {
    if transcript.edition != edition.code() {
        return Err(format!(
            "transcript of edition `{}`, checked as `{}` ({})",
            transcript.edition,
            edition.code(),
            edition.game_id()
        ));
    }
    let mut game = LangWars::with_edition(edition, transcript.seed);
    let mut obs = Observation::default();
    let mut text = String::new();
    for recorded in &transcript.turns {
        for (player, expected) in recorded.inputs.iter().enumerate() {
            let asked = game.to_act();
            if asked != Some(player) {
                return Err(format!(
                    "turn {}: expected to ask player {player}, the referee asks {asked:?}",
                    recorded.turn
                ));
            }
            game.observe(player, &mut obs);
            text.clear();
            let first = recorded.turn == 1;
            LangWars::encode_input(&obs, first, &mut text);
            let mut sent = text.lines();
            if first {
                for (i, want) in transcript.settings.iter().enumerate() {
                    compare(sent.next(), want, || {
                        format!("settings line {} to player {player}", i + 1)
                    })?;
                }
            }
            for (i, want) in expected.iter().enumerate() {
                compare(sent.next(), want, || {
                    format!(
                        "turn {} input line {} to player {player}",
                        recorded.turn,
                        i + 1
                    )
                })?;
            }
            if let Some(extra) = sent.next() {
                return Err(format!(
                    "turn {}: player {player} was sent an extra line `{extra}`",
                    recorded.turn
                ));
            }
            let output = recorded.outputs.get(player).ok_or_else(|| {
                format!(
                    "turn {}: no recorded output of player {player}",
                    recorded.turn
                )
            })?;
            let action = LangWars::decode_output(&obs, output)
                .map_err(|e| format!("turn {}: player {player}: {e}", recorded.turn))?;
            game.apply(player, Answer::Action(action));
        }
    }
    if let Some(player) = game.to_act() {
        return Err(format!(
            "the transcript ended but the referee asks player {player} for more"
        ));
    }
    let scores = game.totals_24ths();
    if scores[..] != transcript.scores_24ths[..] {
        return Err(format!(
            "final scores (1/24) {:?}, recorded {:?}",
            scores, transcript.scores_24ths
        ));
    }
    let winner = game.outcome().winner;
    if winner != transcript.winner {
        return Err(format!(
            "winner {winner:?}, recorded {:?}",
            transcript.winner
        ));
    }
    Ok(())
}

fn compare(sent: Option<&str>, want: &str, place: impl Fn() -> String) -> Result<(), String> {
    match sent {
        Some(line) if line == want => Ok(()),
        Some(line) => Err(format!("{}: sent `{line}`, recorded `{want}`", place())),
        None => Err(format!("{}: nothing sent, recorded `{want}`", place())),
    }
}

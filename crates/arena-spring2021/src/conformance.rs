//! Official transcripts (`spring2021-league*.jsonl`) replayed through the rules and the protocol:
//! every recorded output is decoded and applied, and every input line, the execution order, the frame
//! count, the scores, the activity flags and the final sun must come out as recorded.

use arena_game::ConformanceCase;
use arena_game::{Answer, Fault, FaultKind, Game, StreamProtocol};
use serde::Deserialize;

use crate::game::{League, Obs, Spring2021};

#[derive(Deserialize)]
struct Transcript {
    league: u8,
    seed: i64,
    init: Vec<String>,
    init_p1: Vec<String>,
    execs: Vec<Exec>,
    frames: u32,
    scores: [i64; 2],
    active: [bool; 2],
    sun: [i32; 2],
}

#[derive(Deserialize)]
struct Exec {
    p: usize,
    #[serde(rename = "in")]
    input: Vec<String>,
    out: String,
}

/// Checks every game of a transcript file's text: referee transcripts, or boss transcripts
/// (`spring2021-bosses.jsonl`, recognised by their `boss` field).
pub fn check_text(text: &str) -> Result<Vec<ConformanceCase>, String> {
    let first = text.lines().find(|line| !line.trim().is_empty());
    if first.is_some_and(|line| line.contains("\"boss\"")) {
        return check_bosses(text);
    }
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let transcript: Transcript = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not a Spring 2021 transcript: {e}", number + 1))?;
        let league = match transcript.league {
            1 => League::Wood2,
            2 => League::Wood1,
            3 => League::Bronze,
            _ => League::Silver,
        };
        let label = format!(
            "line {} (league {}, seed {})",
            number + 1,
            transcript.league,
            transcript.seed
        );
        cases.push(ConformanceCase {
            label,
            difference: check_game(league, &transcript).err(),
        });
    }
    Ok(cases)
}

fn check_game(league: League, t: &Transcript) -> Result<(), String> {
    let mut game = Spring2021::new(&league, t.seed as u64);
    let mut obs = Obs::default();
    let mut text = String::new();
    let mut first = [true, true];
    let mut next = 0;
    while let Some(player) = game.to_act() {
        let Some(exec) = t.execs.get(next) else {
            return Err(format!(
                "player {player} is asked after the last recorded execution ({next})"
            ));
        };
        if exec.p != player {
            return Err(format!(
                "execution {next}: player {player} asked, the referee asked player {}",
                exec.p
            ));
        }
        game.observe(player, &mut obs);
        text.clear();
        Spring2021::encode_input(&obs, first[player], &mut text);
        let mut expected: Vec<&str> = Vec::new();
        if first[player] {
            let init = if player == 0 { &t.init } else { &t.init_p1 };
            expected.extend(init.iter().map(String::as_str));
        }
        expected.extend(exec.input.iter().map(String::as_str));
        let got: Vec<&str> = text.lines().collect();
        for i in 0..got.len().max(expected.len()) {
            let (g, e) = (got.get(i), expected.get(i));
            if g != e {
                return Err(format!(
                    "execution {next} (player {player}), input line {}: got {:?}, expected {:?}",
                    i + 1,
                    g.copied().unwrap_or("<none>"),
                    e.copied().unwrap_or("<none>")
                ));
            }
        }
        first[player] = false;
        let answer = match Spring2021::decode_output(&obs, &exec.out) {
            Ok(action) => Answer::Action(action),
            Err(why) => Answer::Fault(Fault::new(FaultKind::Unparsable, why)),
        };
        game.apply(player, answer);
        next += 1;
    }
    if next != t.execs.len() {
        return Err(format!(
            "the game ended after {next} executions, the referee made {}",
            t.execs.len()
        ));
    }
    if game.frames() != t.frames {
        return Err(format!(
            "{} frames, the referee played {}",
            game.frames(),
            t.frames
        ));
    }
    let outcome = game.outcome();
    let scores: Vec<i64> = outcome.scores.iter().map(|s| s.numer()).collect();
    if scores != t.scores {
        return Err(format!("scores {scores:?}, expected {:?}", t.scores));
    }
    if game.active() != t.active {
        return Err(format!(
            "active {:?}, expected {:?}",
            game.active(),
            t.active
        ));
    }
    if game.sun() != t.sun {
        return Err(format!("sun {:?}, expected {:?}", game.sun(), t.sun));
    }
    Ok(())
}

/// What an official boss answered in one game (`spring2021-bosses.jsonl`).
#[derive(Deserialize)]
struct BossGame {
    league: String,
    boss: String,
    seed: String,
    turns: Vec<BossTurn>,
}

#[derive(Deserialize)]
struct BossTurn {
    input: String,
    output: String,
}

/// Feeds each recorded boss game's inputs, in order, to the built-in boss of the same name (through
/// the bot-side protocol, as `arena bot` reads them) and compares every answer with the official one.
pub fn check_bosses(text: &str) -> Result<Vec<ConformanceCase>, String> {
    let catalog = crate::catalog::catalog();
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let game: BossGame = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not a boss transcript: {e}", number + 1))?;
        let entry = arena_game::builtin::find_bot(&catalog, &game.boss)?;
        let label = format!(
            "line {} ({} boss, {}, seed {})",
            number + 1,
            game.boss,
            game.league,
            game.seed
        );
        cases.push(ConformanceCase {
            label,
            difference: check_boss_game(entry, &game).err(),
        });
    }
    Ok(cases)
}

fn check_boss_game(
    entry: &arena_game::BotEntry<Spring2021>,
    game: &BossGame,
) -> Result<(), String> {
    let mut bot = (entry.make)(0);
    let mut previous: Option<Obs> = None;
    let mut answer = String::new();
    for (turn, recorded) in game.turns.iter().enumerate() {
        let mut input = recorded.input.as_bytes();
        let obs = Spring2021::read_input(&mut input, previous.as_ref())
            .map_err(|e| format!("turn {turn}: input unreadable: {e}"))?
            .ok_or_else(|| format!("turn {turn}: empty input"))?;
        answer.clear();
        Spring2021::encode_action(&bot.act(&obs), &mut answer);
        if answer != recorded.output {
            return Err(format!(
                "turn {turn}: answered `{answer}`, the official boss `{}`",
                recorded.output
            ));
        }
        previous = Some(obs);
    }
    Ok(())
}

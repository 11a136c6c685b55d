//! The CodinGame text protocol (reference §6): the exact input text, the referee's strict output
//! patterns, and the bot side (reading that text back).

use std::io::BufRead;

use arena_game::StreamProtocol;

use crate::board::{BASE_RICHNESS, CELLS, NEIGH, bits};
use crate::game::{Action, Cmd, League, Obs, Spring2021};

impl StreamProtocol for Spring2021 {
    const DISCARD_STALE_OUTPUT: bool = false;
    const ACCEPT_UNTERMINATED: bool = false;

    // Built with itoa rather than `write!`: this runs once per ask, and `core::fmt` cost more than the
    // rest of the referee's work per ask (about 1.8 µs per input).
    fn encode_input(obs: &Obs, first: bool, out: &mut String) {
        let mut num = itoa::Buffer::new();
        let mut line = |out: &mut String, values: &[i64]| {
            for (k, &value) in values.iter().enumerate() {
                if k > 0 {
                    out.push(' ');
                }
                out.push_str(num.format(value));
            }
            out.push('\n');
        };
        if first {
            line(out, &[CELLS as i64]);
            for cell in 0..CELLS {
                let n = NEIGH[cell].map(i64::from);
                line(
                    out,
                    &[
                        cell as i64,
                        i64::from(obs.richness(cell)),
                        n[0],
                        n[1],
                        n[2],
                        n[3],
                        n[4],
                        n[5],
                    ],
                );
            }
        }
        line(out, &[i64::from(obs.day)]);
        line(out, &[i64::from(obs.nutrients)]);
        line(out, &[i64::from(obs.sun[0]), i64::from(obs.score[0])]);
        line(
            out,
            &[
                i64::from(obs.sun[1]),
                i64::from(obs.score[1]),
                i64::from(obs.opp_waiting),
            ],
        );
        let trees = obs.trees();
        line(out, &[i64::from(trees.count_ones())]);
        for cell in bits(trees) {
            line(
                out,
                &[
                    cell as i64,
                    obs.size_of(cell).unwrap_or(0) as i64,
                    i64::from(obs.mine >> cell & 1 == 1),
                    i64::from(obs.dormant >> cell & 1 == 1),
                ],
            );
        }
        let mut listed = Vec::new();
        obs.listed_actions(&mut listed);
        line(out, &[listed.len() as i64]);
        for &cmd in &listed {
            push_cmd(out, cmd, &mut num);
            out.push('\n');
        }
    }

    fn decode_output(obs: &Obs, line: &str) -> Result<Action, String> {
        parse_command(line, obs.grow_enabled, obs.seed_enabled)
    }

    fn read_input(input: &mut dyn BufRead, previous: Option<&Obs>) -> Result<Option<Obs>, String> {
        let mut reader = Reader { input };
        let mut obs = Obs::default();
        let first = previous.is_none();
        if let Some(previous) = previous {
            obs.holes = previous.holes;
            obs.league = previous.league;
        } else {
            let Some(cells) = reader.line()? else {
                return Ok(None);
            };
            let cells = int(&cells)?;
            for _ in 0..cells {
                let line = reader.need()?;
                let fields = ints(&line)?;
                let (Some(&cell), Some(&richness)) = (fields.first(), fields.get(1)) else {
                    return Err(format!("bad cell line `{line}`"));
                };
                if (0..CELLS as i64).contains(&cell) && richness == 0 {
                    obs.holes |= 1 << cell;
                }
            }
        }
        let Some(day) = reader.line()? else {
            return Ok(None);
        };
        obs.day = int(&day)? as u32;
        obs.nutrients = int(&reader.need()?)? as i32;
        let me = ints(&reader.need()?)?;
        let opp = ints(&reader.need()?)?;
        if me.len() < 2 || opp.len() < 3 {
            return Err("bad sun/score lines".into());
        }
        obs.sun = [me[0] as i32, opp[0] as i32];
        obs.score = [me[1] as i32, opp[1] as i32];
        obs.opp_waiting = opp[2] != 0;
        let trees = int(&reader.need()?)?;
        for _ in 0..trees {
            let line = reader.need()?;
            let t = ints(&line)?;
            if t.len() < 4 || !(0..CELLS as i64).contains(&t[0]) || !(0..4).contains(&t[1]) {
                return Err(format!("bad tree line `{line}`"));
            }
            let bit = 1u64 << t[0];
            obs.size[t[1] as usize] |= bit;
            if t[2] != 0 {
                obs.mine |= bit;
            } else {
                obs.theirs |= bit;
            }
            if t[3] != 0 {
                obs.dormant |= bit;
            }
        }
        let actions = int(&reader.need()?)?;
        for _ in 0..actions {
            let line = reader.need()?;
            // The listed moves are exactly the legal ones: a league's moves that never appear are
            // treated as switched off, which gives the same set (reference §6.2).
            if let Ok(action) = parse_command(&line, true, true) {
                obs.listed.push(action.cmd);
            }
            if line.starts_with("SEED") {
                obs.seed_enabled = true;
            } else if line.starts_with("GROW") {
                obs.grow_enabled = true;
            }
        }
        if first {
            obs.league = guess_league(&obs);
        }
        obs.counts = obs.count_possible();
        Ok(Some(obs))
    }

    fn encode_action(action: &Action, out: &mut String) {
        push_cmd(out, action.cmd, &mut itoa::Buffer::new());
        if let Some(message) = &action.message {
            out.push(' ');
            out.push_str(message);
        }
    }
}

/// A command as the referee prints it (`Cmd`'s `Display`, without `core::fmt`).
fn push_cmd(out: &mut String, cmd: Cmd, num: &mut itoa::Buffer) {
    match cmd {
        Cmd::Wait => out.push_str("WAIT"),
        Cmd::Grow(cell) => {
            out.push_str("GROW ");
            out.push_str(num.format(cell));
        }
        Cmd::Complete(cell) => {
            out.push_str("COMPLETE ");
            out.push_str(num.format(cell));
        }
        Cmd::Seed(from, to) => {
            out.push_str("SEED ");
            out.push_str(num.format(from));
            out.push(' ');
            out.push_str(num.format(to));
        }
    }
}

/// The league from the first turn's position: the official starts differ (Wood 2: 12 tall trees,
/// Wood 1: 8 small trees, Bronze: 4 small trees on the edge), which is all a bot needs for the days.
fn guess_league(obs: &Obs) -> League {
    let trees = obs.trees().count_ones();
    if obs.day == 0 && obs.holes == 0 && trees == 12 && obs.size[3].count_ones() == 12 {
        League::Wood2
    } else if obs.day == 0 && obs.holes == 0 && trees == 8 {
        League::Wood1
    } else {
        League::Bronze
    }
}

struct Reader<'a> {
    input: &'a mut dyn BufRead,
}

impl Reader<'_> {
    fn line(&mut self) -> Result<Option<String>, String> {
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some(line.trim_end_matches(['\n', '\r']).to_string())),
            Err(e) => Err(format!("cannot read the input: {e}")),
        }
    }

    fn need(&mut self) -> Result<String, String> {
        self.line()?
            .ok_or_else(|| "input ended in the middle of a turn".to_string())
    }
}

fn int(text: &str) -> Result<i64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("expected a number, got `{text}`"))
}

fn ints(text: &str) -> Result<Vec<i64>, String> {
    text.split_whitespace().map(int).collect()
}

/// Java's `\s`: `[ \t\n\x0B\f\r]`.
fn java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// Java's `.` without DOTALL refuses line terminators.
fn java_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// The optional `(?:\s+(?<message>.*))?` tail of every pattern: `Ok(None)` when absent, the message
/// when present, `Err` when the tail does not match.
fn message_tail(rest: &str) -> Result<Option<String>, ()> {
    if rest.is_empty() {
        return Ok(None);
    }
    if !rest.starts_with(java_space) {
        return Err(());
    }
    // `\s+` is greedy and `.*` matches any suffix without line terminators, so the tail matches iff
    // what follows the whole whitespace run has none.
    let message = rest.trim_start_matches(java_space);
    if message.contains(java_line_terminator) {
        return Err(());
    }
    Ok(Some(referee_message(message)))
}

/// `String.trim()` (every char ≤ U+0020) and the 48-character cut of `matchMessage`, in UTF-16 units.
fn referee_message(message: &str) -> String {
    let trimmed = message.trim_matches(|c: char| c <= ' ');
    let units: Vec<u16> = trimmed.encode_utf16().collect();
    if units.len() > 48 {
        let mut cut = String::from_utf16_lossy(&units[..46]);
        cut.push_str("...");
        cut
    } else {
        trimmed.to_string()
    }
}

/// `\d+` then `Integer.parseInt`: ASCII digits, overflow is an error (the referee disqualifies).
fn take_int(text: &str) -> Option<(Result<u32, String>, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let (number, rest) = text.split_at(digits);
    let value = number
        .parse::<u64>()
        .ok()
        .filter(|&v| v <= i32::MAX as u64)
        .map(|v| v as u32)
        .ok_or_else(|| format!("For input string: \"{number}\" (not a Java int)"));
    Some((value, rest))
}

/// The referee's `CommandManager`: WAIT, then GROW (if the league parses it), COMPLETE, then SEED (if
/// the league parses it); anything else disqualifies.
pub fn parse_command(line: &str, grow: bool, seed: bool) -> Result<Action, String> {
    let unrecognised = || {
        let expected = match (grow, seed) {
            (false, false) => "COMPLETE <idx> | WAIT",
            (true, false) => "GROW <idx> | COMPLETE <idx> | WAIT",
            _ => "SEED <from> <to> | GROW <idx> | COMPLETE <idx> | WAIT",
        };
        format!("Invalid input: expected {expected} but got '{line}'")
    };
    let one = |rest: &str, make: fn(u32) -> Cmd| -> Option<Result<Action, String>> {
        let (value, rest) = take_int(rest)?;
        let message = message_tail(rest).ok()?;
        Some(value.map(|v| Action {
            cmd: make(v),
            message,
        }))
    };
    if let Some(rest) = line.strip_prefix("WAIT")
        && let Ok(message) = message_tail(rest)
    {
        return Ok(Action {
            cmd: Cmd::Wait,
            message,
        });
    }
    if grow && let Some(found) = line.strip_prefix("GROW ").and_then(|r| one(r, Cmd::Grow)) {
        return found;
    }
    if let Some(found) = line
        .strip_prefix("COMPLETE ")
        .and_then(|r| one(r, Cmd::Complete))
    {
        return found;
    }
    if seed
        && let Some(rest) = line.strip_prefix("SEED ")
        && let Some((source, rest)) = take_int(rest)
        && let Some(rest) = rest.strip_prefix(' ')
        && let Some((target, rest)) = take_int(rest)
        && let Ok(message) = message_tail(rest)
    {
        return match (source, target) {
            (Ok(s), Ok(t)) => Ok(Action {
                cmd: Cmd::Seed(s, t),
                message,
            }),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
    }
    Err(unrecognised())
}

/// Richness of a cell given the holes (for tools that build an `Obs` by hand).
pub fn richness(holes: u64, cell: usize) -> u8 {
    if holes >> cell & 1 == 1 {
        0
    } else {
        BASE_RICHNESS[cell]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Action, String> {
        parse_command(line, true, true)
    }

    #[test]
    fn strict_patterns() {
        assert_eq!(parse("WAIT").unwrap().cmd, Cmd::Wait);
        assert_eq!(
            parse("WAIT  twice spaced").unwrap().message.as_deref(),
            Some("twice spaced")
        );
        assert_eq!(parse("WAIT\r").unwrap().message.as_deref(), Some(""));
        assert_eq!(parse("GROW 21").unwrap().cmd, Cmd::Grow(21));
        assert_eq!(parse("GROW 007 hi").unwrap().cmd, Cmd::Grow(7));
        assert_eq!(parse("SEED 1 2 go").unwrap().cmd, Cmd::Seed(1, 2));
        assert_eq!(parse("COMPLETE 99").unwrap().cmd, Cmd::Complete(99));
        for bad in [
            "grow 21",
            "GROW  21",
            " WAIT",
            "GROW -1",
            "WAITING",
            "",
            "GROW 99999999999",
            "GROW 5x",
            "SEED 1  2",
            "WAIT a\rb",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be unrecognised");
        }
        assert!(parse_command("GROW 5", false, false).is_err());
        assert!(parse_command("SEED 5 6", true, false).is_err());
        let long = format!("WAIT {}", "x".repeat(60));
        assert_eq!(
            parse(&long).unwrap().message.unwrap(),
            format!("{}...", "x".repeat(46))
        );
    }
}

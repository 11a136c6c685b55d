//! The text protocol (`games/langwars-reference.md` §3.2 and §4), as the official Node.js runner and
//! `game.js` read and write it.

use std::io::BufRead;

use arena_game::StreamProtocol;

use crate::engine::{Lanes, LangWars, MAX_SLOTS, MAX_TARGETS, Move, Observation, PLAYERS};

/// JavaScript `parseInt(token)` (no radix) restricted to what matters here: leading whitespace, an
/// optional sign, `0x` for hexadecimal, then the longest digit prefix. `None` is `NaN`; values too large
/// for an index come back as `None` too, since they are out of range either way.
pub fn js_parse_int(token: &str) -> Option<i64> {
    let text = token.trim_start_matches(is_js_whitespace);
    let (negative, text) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = match text.get(..2) {
        Some("0x") | Some("0X") => (16, &text[2..]),
        _ => (10, text),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    // Anything longer than 12 digits is far outside every index range.
    let digits = &digits[..end.min(12)];
    let value = i64::from_str_radix(digits, radix).ok()?;
    let value = if end > 12 { i64::MAX } else { value };
    Some(if negative { -value } else { value })
}

/// What JavaScript's `trim()` and `parseInt` skip.
fn is_js_whitespace(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// The official runner's reading of one answer: trimmed, split on single spaces, each token through
/// `parseInt`, `NaN` or out of range → target 0, missing → 0, extra tokens ignored.
pub fn parse_answer(line: &str, slots: usize, targets: usize) -> Move {
    let mut chosen = [0u8; MAX_SLOTS];
    let text = line.trim_matches(is_js_whitespace);
    for (slot, token) in chosen[..slots].iter_mut().zip(text.split(' ')) {
        if let Some(index) = js_parse_int(token)
            && (0..targets as i64).contains(&index)
        {
            *slot = index as u8;
        }
    }
    Move::new(&chosen[..slots])
}

/// Appends the numbers separated by single spaces, and a newline. Inputs go out on every ask of every
/// process game, so numbers are formatted with `itoa` rather than through `fmt` (about 3x faster).
fn join<T: itoa::Integer>(out: &mut String, items: impl IntoIterator<Item = T>) {
    let mut buffer = itoa::Buffer::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(buffer.format(item));
    }
    out.push('\n');
}

impl StreamProtocol for LangWars {
    const READY: Option<&'static str> = Some("READY");
    const DISCARD_STALE_OUTPUT: bool = true;
    const ACCEPT_UNTERMINATED: bool = true;

    fn encode_input(obs: &Observation, first: bool, out: &mut String) {
        let targets = obs.targets;
        if first {
            join(out, [obs.turns as usize, obs.players, targets]);
            join(out, obs.values[..targets].iter().copied());
        }
        out.push_str(itoa::Buffer::new().format(obs.turn));
        out.push(' ');
        out.push(obs.letter);
        out.push('\n');
        for target in 0..targets {
            join(out, (0..PLAYERS).map(|column| obs.visible(target, column)));
        }
        join(out, (0..targets).map(|target| obs.real(target)));
        if obs.is_odd_turn() {
            join(
                out,
                (0..targets).map(|target| obs.count(target).unwrap_or(0)),
            );
        }
    }

    fn decode_output(obs: &Observation, line: &str) -> Result<Move, String> {
        Ok(parse_answer(line, obs.slots(), obs.targets))
    }

    fn read_input(
        input: &mut dyn BufRead,
        previous: Option<&Observation>,
    ) -> Result<Option<Observation>, String> {
        let mut reader = LineReader { input };
        let settings = match previous {
            Some(previous) => (previous.turns, previous.targets, previous.values),
            None => {
                let Some(settings) = reader.numbers()? else {
                    return Ok(None);
                };
                let [turns, players, targets] = settings[..] else {
                    return Err(format!("expected `T P N`, got {settings:?}"));
                };
                if players as usize != PLAYERS || !(1..=MAX_TARGETS as i64).contains(&targets) {
                    return Err(format!("unsupported settings {turns} {players} {targets}"));
                }
                let mut values = [0u8; MAX_TARGETS];
                for (slot, value) in values
                    .iter_mut()
                    .zip(reader.expect_numbers(targets as usize)?)
                {
                    *slot = value as u8;
                }
                (turns as u32, targets as usize, values)
            }
        };
        let targets = settings.1;
        let Some(header) = reader.line()? else {
            return Ok(None);
        };
        let mut parts = header.split_whitespace();
        let turn: u32 = parts
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("expected `t D`, got `{header}`"))?;
        let letter = parts.next().and_then(|l| l.chars().next()).unwrap_or('?');
        let mut columns = [[0u16; MAX_TARGETS]; PLAYERS];
        for target in 0..targets {
            let row = reader.expect_numbers(PLAYERS)?;
            for (column, value) in columns.iter_mut().zip(row) {
                column[target] = value as u16;
            }
        }
        let mut visible = [Lanes::default(); PLAYERS];
        for (lanes, column) in visible.iter_mut().zip(&columns) {
            *lanes = Lanes::from_values(&column[..targets])?;
        }
        let real = lanes(&reader.expect_numbers(targets)?)?;
        let counts = if turn % 2 == 1 {
            Some(lanes(&reader.expect_numbers(targets)?)?)
        } else {
            None
        };
        Ok(Some(Observation::from_tables(
            settings, turn, letter, visible, real, counts,
        )))
    }

    fn encode_action(action: &Move, out: &mut String) {
        join(out, action.targets().iter().copied());
        out.pop();
    }
}

fn lanes(numbers: &[i64]) -> Result<Lanes, String> {
    let values: Vec<u16> = numbers
        .iter()
        .map(|&n| u16::try_from(n).map_err(|_| format!("{n} is not a believer count")))
        .collect::<Result<_, _>>()?;
    Lanes::from_values(&values)
}

struct LineReader<'a> {
    input: &'a mut dyn BufRead,
}

impl LineReader<'_> {
    fn line(&mut self) -> Result<Option<String>, String> {
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some(line.trim_end().to_string())),
            Err(e) => Err(format!("cannot read the input: {e}")),
        }
    }

    fn numbers(&mut self) -> Result<Option<Vec<i64>>, String> {
        let Some(line) = self.line()? else {
            return Ok(None);
        };
        line.split_whitespace()
            .map(|n| {
                n.parse()
                    .map_err(|_| format!("expected numbers, got `{line}`"))
            })
            .collect::<Result<Vec<i64>, String>>()
            .map(Some)
    }

    fn expect_numbers(&mut self, count: usize) -> Result<Vec<i64>, String> {
        let numbers = self
            .numbers()?
            .ok_or("the input ended in the middle of a turn")?;
        if numbers.len() != count {
            return Err(format!("expected {count} numbers, got {numbers:?}"));
        }
        Ok(numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_like_javascript() {
        let cases: &[(&str, Option<i64>)] = &[
            ("3", Some(3)),
            ("2.7", Some(2)),
            ("3abc", Some(3)),
            ("+3", Some(3)),
            ("-1", Some(-1)),
            ("x", None),
            ("", None),
            ("\t3", Some(3)),
            ("0x", None),
            ("0x1A", Some(26)),
            ("1\n2", Some(1)),
            ("99999999999999999999", Some(i64::MAX)),
            ("-0", Some(0)),
            ("+", None),
        ];
        for (token, expected) in cases {
            assert_eq!(js_parse_int(token), *expected, "parseInt({token:?})");
        }
    }

    #[test]
    fn answers_sanitised_like_the_official_runner() {
        let cases: &[(&str, usize, &[u8])] = &[
            ("1 2 3 4 5", 5, &[1, 2, 3, 4, 5]),
            ("  1 2 3 4 5 \r", 5, &[1, 2, 3, 4, 5]),
            ("1 2 3", 5, &[1, 2, 3, 0, 0]),
            ("5 5 5 5 5 5 5", 5, &[5, 5, 5, 5, 5]),
            ("1  2 3 4 5", 5, &[1, 0, 2, 3, 4]),
            ("1\t2\t3\t4\t5", 5, &[1, 0, 0, 0, 0]),
            ("2 3 x 9 -1", 5, &[2, 3, 0, 0, 0]),
            ("2.7 3abc", 2, &[2, 3]),
            ("8 7", 2, &[0, 7]),
            ("", 2, &[0, 0]),
        ];
        for (line, slots, expected) in cases {
            assert_eq!(
                parse_answer(line, *slots, 8).targets(),
                *expected,
                "{line:?}"
            );
        }
        assert_eq!(parse_answer("6 5", 2, 6).targets(), &[0, 5]);
    }
}

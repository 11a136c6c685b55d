//! The text protocol: one process for the whole game, one ask per move.
//!
//! Each ask is 7 lines: the bot's player number (`0` moves first), then the grid's 6 rows, top row
//! first, 7 characters each (`.` empty, `0` and `1` the players' discs). The answer is one line:
//! the column, `0` to `6`.

use arena_game::game::StreamProtocol;

use crate::rules::{COLUMNS, Connect4, Obs, ROWS};

impl StreamProtocol for Connect4 {
    // Output printed while the bot is not asked is kept for its next ask, as CodinGame does: a bot
    // that answers twice is answering its next move early.
    const DISCARD_STALE_OUTPUT: bool = false;
    const ACCEPT_UNTERMINATED: bool = false;

    fn encode_input(obs: &Obs, _first: bool, out: &mut String) {
        out.push(char::from(b'0' + obs.me as u8));
        out.push('\n');
        for row in &obs.grid {
            out.extend(row.iter().map(|&cell| char::from(cell)));
            out.push('\n');
        }
    }

    fn decode_output(_obs: &Obs, line: &str) -> Result<usize, String> {
        let text = line.trim();
        text.parse::<usize>()
            .map_err(|_| format!("`{text}` is not a column (a number from 0 to 6)"))
    }

    fn read_input(
        input: &mut dyn std::io::BufRead,
        _previous: Option<&Obs>,
    ) -> Result<Option<Obs>, String> {
        let mut line = String::new();
        let mut next = |line: &mut String| -> Result<bool, String> {
            line.clear();
            let read = input
                .read_line(line)
                .map_err(|e| format!("cannot read the input: {e}"))?;
            Ok(read > 0)
        };
        if !next(&mut line)? {
            return Ok(None);
        }
        let me = match line.trim() {
            "0" => 0,
            "1" => 1,
            other => return Err(format!("expected the player number 0 or 1, got `{other}`")),
        };
        let mut obs = Obs {
            me,
            ..Obs::default()
        };
        for row in obs.grid.iter_mut() {
            if !next(&mut line)? {
                return Err("the input ended inside the grid".into());
            }
            let cells = line.trim_end().as_bytes();
            if cells.len() != COLUMNS {
                return Err(format!(
                    "a row of {COLUMNS} cells expected, got `{}`",
                    line.trim_end()
                ));
            }
            row.copy_from_slice(cells);
        }
        debug_assert_eq!(obs.grid.len(), ROWS);
        Ok(Some(obs))
    }

    fn encode_action(column: &usize, out: &mut String) {
        out.push_str(&column.to_string());
    }
}

//! Built-in bots: `random` (any open column), `first` (the leftmost open column) and `greedy` (wins
//! when it can, blocks the opponent's win, else plays nearest the centre).

use arena_game::game::{Bot, BotEntry};
use arena_game::seed::{BotRng, below, bot_rng};

use crate::rules::{COLUMNS, Connect4, EMPTY, Obs, ROWS};

/// The built-in bots, in the order `arena list` shows them.
pub fn catalog() -> Vec<BotEntry<Connect4>> {
    vec![
        BotEntry {
            name: "random",
            about: "any open column, uniformly",
            thinks: false,
            make: |seed| Box::new(Random { rng: bot_rng(seed) }),
        },
        BotEntry {
            name: "first",
            about: "the leftmost open column",
            thinks: false,
            make: |_| Box::new(First),
        },
        BotEntry {
            name: "greedy",
            about: "wins when it can, blocks the opponent's win, else plays nearest the centre",
            thinks: false,
            make: |_| Box::new(Greedy),
        },
    ]
}

struct Random {
    rng: BotRng,
}

impl Bot<Connect4> for Random {
    fn act(&mut self, obs: &Obs) -> usize {
        let open: Vec<usize> = (0..COLUMNS).filter(|&c| obs.open(c)).collect();
        if open.is_empty() {
            // Never asked on a full grid; any answer would do.
            return 0;
        }
        open[below(&mut self.rng, open.len() as u32) as usize]
    }
}

struct First;

impl Bot<Connect4> for First {
    fn act(&mut self, obs: &Obs) -> usize {
        (0..COLUMNS).find(|&c| obs.open(c)).unwrap_or(0)
    }
}

struct Greedy;

/// Whether a disc `disc` dropped into `column` of `grid` makes four in a row.
fn wins(grid: &[[u8; COLUMNS]; ROWS], column: usize, disc: u8) -> bool {
    let Some(row) = (0..ROWS).rev().find(|&row| grid[row][column] == EMPTY) else {
        return false;
    };
    let at = |r: i64, c: i64| {
        (0..ROWS as i64).contains(&r)
            && (0..COLUMNS as i64).contains(&c)
            && grid[r as usize][c as usize] == disc
    };
    [(0i64, 1i64), (1, 0), (1, 1), (1, -1)]
        .iter()
        .any(|&(dr, dc)| {
            let count = |sign: i64| {
                (1..4)
                    .take_while(|&k| at(row as i64 + sign * k * dr, column as i64 + sign * k * dc))
                    .count()
            };
            1 + count(1) + count(-1) >= 4
        })
}

impl Bot<Connect4> for Greedy {
    fn act(&mut self, obs: &Obs) -> usize {
        let mine = b'0' + obs.me as u8;
        let theirs = b'0' + (1 - obs.me) as u8;
        let open: Vec<usize> = (0..COLUMNS).filter(|&c| obs.open(c)).collect();
        for disc in [mine, theirs] {
            if let Some(&column) = open.iter().find(|&&c| wins(&obs.grid, c, disc)) {
                return column;
            }
        }
        // Nearest the centre, the left one first on a tie.
        open.into_iter()
            .min_by_key(|&c| (c as i64 - 3).abs())
            .unwrap_or(0)
    }
}

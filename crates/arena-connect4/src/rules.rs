//! The rules: a 7 × 6 grid, discs dropped into columns, four in a row (across, down or diagonal)
//! wins, a full grid is a draw. The first two discs (one each) are dropped from the game seed, so
//! that a seed is a different opening and a tournament's rounds are different games.

use std::time::Duration;

use arena_game::game::{Answer, Fault, FaultKind, Game, Outcome};
use arena_game::score::Score;
use arena_game::seed::{below, bot_rng, derive_seed};
use serde::{Deserialize, Serialize};

pub const COLUMNS: usize = 7;
pub const ROWS: usize = 6;
/// Discs dropped from the seed before the players' first move (one each).
pub const OPENING: usize = 2;
/// The first answer may take longer (a bot's start-up).
pub const FIRST_LIMIT: Duration = Duration::from_millis(1000);
pub const LIMIT: Duration = Duration::from_millis(100);

/// A cell: empty or a player's disc.
pub const EMPTY: u8 = b'.';

/// The rules' options (none yet: the type says where they would go).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Config {}

/// What a player is told: who it is and the grid, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obs {
    pub me: usize,
    pub grid: [[u8; COLUMNS]; ROWS],
}

impl Default for Obs {
    fn default() -> Self {
        Obs {
            me: 0,
            grid: [[EMPTY; COLUMNS]; ROWS],
        }
    }
}

impl Obs {
    /// Whether a disc can still go into `column`.
    pub fn open(&self, column: usize) -> bool {
        column < COLUMNS && self.grid[0][column] == EMPTY
    }
}

/// One frame of the replay: the grid after a move, and the move.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Frame {
    /// Rows top first, `.`, `0` or `1` per cell.
    pub grid: Vec<String>,
    /// Who dropped the disc (`None`: the opening's discs come first, by the seed).
    pub player: Option<usize>,
    pub column: usize,
    /// The four cells of a win, `[row, column]`, once there is one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub line: Vec<[usize; 2]>,
}

#[derive(Clone, Debug)]
pub struct Connect4 {
    grid: [[u8; COLUMNS]; ROWS],
    next: usize,
    winner: Option<usize>,
    line: Vec<[usize; 2]>,
    over: bool,
    answered: [bool; 2],
    faults: Vec<(usize, Fault)>,
    frames: Option<Vec<Frame>>,
}

impl Connect4 {
    /// Drops a disc of `player` into `column` (open); the row it lands in.
    fn drop_disc(&mut self, player: usize, column: usize) -> usize {
        let row = (0..ROWS)
            .rev()
            .find(|&row| self.grid[row][column] == EMPTY)
            .unwrap_or(0);
        self.grid[row][column] = b'0' + player as u8;
        row
    }

    /// The four cells through (`row`, `column`) in one line of the same disc, if there are.
    fn four_through(&self, row: usize, column: usize) -> Option<Vec<[usize; 2]>> {
        let disc = self.grid[row][column];
        for (dr, dc) in [(0i64, 1i64), (1, 0), (1, 1), (1, -1)] {
            let mut cells = vec![[row, column]];
            for sign in [1i64, -1] {
                let (mut r, mut c) = (row as i64, column as i64);
                loop {
                    r += sign * dr;
                    c += sign * dc;
                    let inside = (0..ROWS as i64).contains(&r) && (0..COLUMNS as i64).contains(&c);
                    if !inside || self.grid[r as usize][c as usize] != disc {
                        break;
                    }
                    cells.push([r as usize, c as usize]);
                }
            }
            if cells.len() >= 4 {
                cells.sort_unstable();
                return Some(cells);
            }
        }
        None
    }

    fn full(&self) -> bool {
        self.grid[0].iter().all(|&cell| cell != EMPTY)
    }

    fn record(&mut self, player: Option<usize>, column: usize) {
        if let Some(frames) = &mut self.frames {
            frames.push(Frame {
                grid: self
                    .grid
                    .iter()
                    .map(|row| String::from_utf8_lossy(row).into_owned())
                    .collect(),
                player,
                column,
                line: self.line.clone(),
            });
        }
    }

    /// A move of `player`: the disc, then a win or a full grid ends the game.
    fn play(&mut self, player: usize, column: usize) {
        let row = self.drop_disc(player, column);
        if let Some(line) = self.four_through(row, column) {
            self.winner = Some(player);
            self.line = line;
            self.over = true;
        } else if self.full() {
            self.over = true;
        }
        self.record(Some(player), column);
        self.next = 1 - player;
    }

    /// The grid as rows of text (for tests and tools).
    pub fn rows(&self) -> Vec<String> {
        self.grid
            .iter()
            .map(|row| String::from_utf8_lossy(row).into_owned())
            .collect()
    }
}

impl Game for Connect4 {
    const ID: &'static str = "connect4";
    type Config = Config;
    type Obs = Obs;
    type Action = usize;
    type Frame = Frame;

    fn new(_config: &Config, seed: u64) -> Self {
        let mut game = Connect4 {
            grid: [[EMPTY; COLUMNS]; ROWS],
            next: 0,
            winner: None,
            line: Vec::new(),
            over: false,
            answered: [false; 2],
            faults: Vec::new(),
            frames: None,
        };
        // The opening: one disc each, in columns drawn from the seed (two discs cannot win).
        let mut rng = bot_rng(derive_seed(seed, 0x6f70_656e));
        for player in 0..OPENING {
            let column = below(&mut rng, COLUMNS as u32) as usize;
            game.drop_disc(player % 2, column);
        }
        game
    }

    fn num_players(&self) -> usize {
        2
    }

    fn to_act(&mut self) -> Option<usize> {
        (!self.over).then_some(self.next)
    }

    fn observe(&mut self, player: usize, obs: &mut Obs) {
        obs.me = player;
        obs.grid = self.grid;
    }

    fn apply(&mut self, player: usize, answer: Answer<usize>) {
        self.answered[player] = true;
        let fault = match answer {
            Answer::Action(column) if column < COLUMNS && self.grid[0][column] == EMPTY => {
                self.play(player, column);
                return;
            }
            Answer::Action(column) => Fault::new(
                FaultKind::Illegal,
                format!("column {column} is full or off the grid (columns 0 to 6)"),
            ),
            Answer::Fault(fault) => fault,
        };
        // A player who does not give a legal move loses at once.
        self.faults.push((player, fault));
        self.winner = Some(1 - player);
        self.over = true;
    }

    fn outcome(&self) -> Outcome {
        let scores = match self.winner {
            Some(winner) => {
                let mut scores = vec![Score::ZERO; 2];
                scores[winner] = Score::int(1);
                scores
            }
            None => vec![Score::ratio(1, 2); 2],
        };
        Outcome::from_scores(scores)
    }

    fn time_limit(&self, player: usize) -> Duration {
        if self.answered[player] {
            LIMIT
        } else {
            FIRST_LIMIT
        }
    }

    fn record_frames(&mut self) {
        // The first frame is the grid after the opening, before any player's move.
        self.frames = Some(vec![Frame {
            grid: self.rows(),
            player: None,
            column: 0,
            line: Vec::new(),
        }]);
    }

    fn take_frames(&mut self) -> Vec<Frame> {
        self.frames.take().unwrap_or_default()
    }

    fn rule_faults(&self) -> Vec<(usize, Fault)> {
        // Only the rules' own faults (an illegal column); the runner records the others.
        self.faults
            .iter()
            .filter(|(_, fault)| fault.kind == FaultKind::Illegal)
            .cloned()
            .collect()
    }
}

//! The input: finished games, checked once so every analysis can trust them.

/// One finished game, as the tournament journal records it.
///
/// Every per-seat vector (`players`, `scores`, `ranks`, `faults`) is indexed by seat.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// The bot (index into [`GameLog::bot_names`]) in each seat.
    pub players: Vec<usize>,
    /// The game's own score per seat; used for score statistics only, never for ratings.
    pub scores: Vec<f64>,
    /// Competition ranks, 1 = best; tied seats share the better rank ("1224").
    pub ranks: Vec<u32>,
    /// The seat that finished alone in first place; `None` when first place is shared (a draw).
    pub winner: Option<usize>,
    /// Fault kinds per seat ("timeout", "crashed", "illegal", ...); an empty list when clean.
    pub faults: Vec<Vec<String>>,
    /// Games played on the same seed with rotated seats share an id, for paired statistics.
    pub pair_id: Option<u64>,
}

/// How one seat fared in its game, from its ranks: a sole first is a win, a shared first a draw,
/// anything else a loss (for 2-player games this is the usual win/draw/loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatOutcome {
    Win,
    Draw,
    Loss,
}

impl GameResult {
    /// Number of seats in the game.
    pub fn seat_count(&self) -> usize {
        self.players.len()
    }

    /// Win/draw/loss of one seat (see [`SeatOutcome`]). Out-of-range seats count as losses.
    pub fn seat_outcome(&self, seat: usize) -> SeatOutcome {
        match self.ranks.get(seat) {
            Some(1) if self.ranks.iter().filter(|&&rank| rank == 1).count() == 1 => {
                SeatOutcome::Win
            }
            Some(1) => SeatOutcome::Draw,
            _ => SeatOutcome::Loss,
        }
    }

    /// Faults of one seat; a game recorded without fault lists has none.
    pub fn seat_faults(&self, seat: usize) -> &[String] {
        self.faults.get(seat).map_or(&[], Vec::as_slice)
    }

    /// Whether one bot sits in more than one seat (a mirror match): sequential rating systems
    /// cannot give one player two different updates, so they skip such games.
    pub fn has_repeated_bot(&self) -> bool {
        self.players
            .iter()
            .enumerate()
            .any(|(seat, bot)| self.players[..seat].contains(bot))
    }

    pub(crate) fn check(&self, index: usize, bot_count: usize) -> Result<(), InputError> {
        let bad = |reason: &str| InputError::BadGame {
            index,
            reason: reason.to_owned(),
        };
        let seats = self.players.len();
        if seats == 0 {
            return Err(bad("no seats"));
        }
        if self.scores.len() != seats || self.ranks.len() != seats {
            return Err(bad("scores and ranks must have one entry per seat"));
        }
        if !self.faults.is_empty() && self.faults.len() != seats {
            return Err(bad("faults must be empty or have one list per seat"));
        }
        if let Some(&bot) = self.players.iter().find(|&&bot| bot >= bot_count) {
            return Err(bad(&format!("bot index {bot} is not below {bot_count}")));
        }
        if self.scores.iter().any(|score| !score.is_finite()) {
            return Err(bad("scores must be finite"));
        }
        if self
            .ranks
            .iter()
            .any(|&rank| rank == 0 || rank as usize > seats)
        {
            return Err(bad("ranks must lie in 1..=seats"));
        }
        // A competition ranking always has a first place; without one, "win" means nothing.
        if !self.ranks.contains(&1) {
            return Err(bad("no seat has rank 1"));
        }
        let sole_first = (0..seats).find(|&seat| self.seat_outcome(seat) == SeatOutcome::Win);
        if self.winner != sole_first {
            return Err(bad(
                "winner must be the seat alone at rank 1, or None if rank 1 is shared",
            ));
        }
        Ok(())
    }
}

/// Why a [`GameLog`] could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InputError {
    #[error("game {index}: {reason}")]
    BadGame { index: usize, reason: String },
}

/// Bots and their finished games, in the order they were played, checked for consistency.
///
/// Every analysis in this crate takes a `GameLog`, so none of them has to re-check indices or
/// lengths, and none can panic on malformed input.
#[derive(Clone, Debug, PartialEq)]
pub struct GameLog {
    bot_names: Vec<String>,
    games: Vec<GameResult>,
}

impl GameLog {
    /// Checks every game: per-seat vectors of equal length, bot indices below `bot_names.len()`,
    /// finite scores, ranks in `1..=seats` with a first place, and `winner` equal to the seat
    /// alone at rank 1 (None when rank 1 is shared).
    pub fn new(bot_names: Vec<String>, games: Vec<GameResult>) -> Result<Self, InputError> {
        for (index, game) in games.iter().enumerate() {
            game.check(index, bot_names.len())?;
        }
        Ok(Self { bot_names, games })
    }

    pub fn bot_names(&self) -> &[String] {
        &self.bot_names
    }

    pub fn bot_count(&self) -> usize {
        self.bot_names.len()
    }

    /// Games in play order.
    pub fn games(&self) -> &[GameResult] {
        &self.games
    }
}

/// A statistic computed by folding checked games one at a time: the batch functions fold a
/// whole [`GameLog`], the streaming accumulator feeds games as they finish; both go through the
/// same `add`, so they agree to the bit.
pub(crate) trait Tally {
    type Output;

    /// Counts one game that passed [`GameLog::new`]'s checks for this tally's bot count.
    fn add(&mut self, game: &GameResult);

    /// The statistic over the games added so far.
    fn finish(&self) -> Self::Output;

    /// Folds a whole log.
    fn over(mut self, log: &GameLog) -> Self::Output
    where
        Self: Sized,
    {
        log.games().iter().for_each(|game| self.add(game));
        self.finish()
    }
}

/// Adds one head-to-head result, worth `points` (1, ½ or 0, as [`head_to_head_points`] gives),
/// to the matching counter.
pub(crate) fn count_points(points: f64, wins: &mut u64, draws: &mut u64, losses: &mut u64) {
    if points == 1.0 {
        *wins += 1;
    } else if points == 0.0 {
        *losses += 1;
    } else {
        *draws += 1;
    }
}

/// Result of `a` against `b` in one game where both played, by comparing their two ranks:
/// 1 for the better rank, 0.5 for equal ranks, 0 for the worse one.
pub(crate) fn head_to_head_points(rank_a: u32, rank_b: u32) -> f64 {
    match rank_a.cmp(&rank_b) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

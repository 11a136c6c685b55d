//! Scrimmages: a contestant asks for games of its bot against a player it chooses (or a house
//! bot) to watch them. They rate nobody, promote nobody and count in no standing or export of the
//! contest's results; they are rate-limited per user (`[limits]` of the contest file).

use crate::HostError;
use crate::host::Host;
use crate::records::{NewGame, Submission};
use crate::store::User;

/// Why a scrimmage was refused, each with what to do.
#[derive(Debug, thiserror::Error)]
pub enum ScrimmageError {
    /// The user has no active submission that built.
    #[error("upload a bot first: you have no submission ready to play")]
    NoBot,
    /// The user's active submission was stopped by an organiser.
    #[error("your submission {0} was stopped by the organiser: it plays no games")]
    Stopped(i64),
    /// No user of that name.
    #[error("no player named {0:?}")]
    UnknownOpponent(String),
    /// The opponent has no active ready submission (none yet, or stopped).
    #[error("{0} has no bot ready to play: choose another opponent")]
    OpponentNotReady(String),
    /// The opponent is the user.
    #[error("choose another player than yourself")]
    Yourself,
    /// Games asked for outside 1..=max.
    #[error("ask for 1 to {max} games at a time (asked for {asked})")]
    Games { asked: u32, max: u32 },
    /// Over the games-per-hour limit: `asked` games in the last hour already.
    #[error(
        "at most {limit} scrimmage games an hour: you asked for {asked} in the last hour, so at \
         most {} more now; try again later",
        limit.saturating_sub(*asked)
    )]
    TooMany { limit: u32, asked: u32 },
    /// A game of more than two seats and not enough house bots to fill the others.
    #[error(
        "a game seats {seats} players: the contest has too few built-in bots ready to fill the \
         other seats of a scrimmage (the organiser adds some as [[bots]] in the contest file)"
    )]
    NoFillers { seats: usize },
    #[error(transparent)]
    Host(#[from] HostError),
}

impl From<ScrimmageError> for HostError {
    fn from(error: ScrimmageError) -> Self {
        match error {
            ScrimmageError::Host(error) => error,
            ScrimmageError::TooMany { .. } => HostError::TooMany(error.to_string()),
            other => HostError::Refused(other.to_string()),
        }
    }
}

/// The seats of scrimmage game `index` (0-based) of `lineup` (the user, the opponent, then the
/// bots filling the other seats): the lineup turned by `index`, so that over as many games as
/// seats every player sits in every seat (two players swap seats every game).
pub fn scrimmage_seats(lineup: &[i64], index: usize) -> Vec<i64> {
    let n = lineup.len().max(1);
    (0..lineup.len())
        .map(|seat| lineup[(seat + index) % n])
        .collect()
}

impl Host {
    /// Queues `games` scrimmage games of `user`'s active submission against the active
    /// submission of the player named `opponent` (a contestant, or a house bot as the contest's
    /// users name it: `wood2-boss`, a `[[bots]]` name). Returns the games' ids, in order.
    ///
    /// Each game is a game of kind `scrimmage` in the user's league (with its variant), with its
    /// own seed (from the contest's seed and the game's id, as every game); seats turn from one
    /// game to the next (see [`scrimmage_seats`]). A game of more than two seats (the langwars
    /// family seats four) fills the others with house bots: the boss of the user's league first,
    /// then the other built-in bots, those of the user's league first, by id.
    ///
    /// Refused ([`ScrimmageError`]): no ready bot of the user's or the opponent's, an unknown
    /// opponent or oneself, `games` outside 1..=`scrimmage_games_per_request`, or more than
    /// `scrimmage_games_per_hour` games asked for by the user in the last hour.
    pub async fn request_scrimmage(
        &self,
        user: &User,
        opponent: &str,
        games: u32,
    ) -> Result<Vec<i64>, ScrimmageError> {
        let limits = &self.contest.limits;
        let max = limits.scrimmage_games_per_request;
        if games == 0 || games > max {
            return Err(ScrimmageError::Games { asked: games, max });
        }
        let players = self.store.players().await?;
        let mine = match players.iter().find(|s| s.user_id == user.id) {
            Some(mine) => mine,
            None => {
                let active = self
                    .store
                    .submissions(Some(user.id))
                    .await?
                    .into_iter()
                    .find(|s| s.active);
                return Err(match active {
                    Some(s) if s.state == "stopped" => ScrimmageError::Stopped(s.id),
                    _ => ScrimmageError::NoBot,
                });
            }
        };
        if opponent == user.name {
            return Err(ScrimmageError::Yourself);
        }
        let Some(theirs) = players.iter().find(|s| s.user == opponent) else {
            return Err(match self.store.user_by_name(opponent).await? {
                Some(_) => ScrimmageError::OpponentNotReady(opponent.to_string()),
                None => ScrimmageError::UnknownOpponent(opponent.to_string()),
            });
        };
        let seats = self.game.players();
        let mut lineup = vec![mine.id, theirs.id];
        if seats > 2 {
            let boss = self
                .promotion
                .bosses
                .get(mine.league as usize)
                .copied()
                .flatten();
            let others = fillers(&players, mine, &lineup, boss);
            lineup.extend(others.into_iter().take(seats - 2));
            if lineup.len() < seats {
                return Err(ScrimmageError::NoFillers { seats });
            }
        }
        lineup.truncate(seats);
        let now = crate::store::now();
        let per_hour = i64::from(limits.scrimmage_games_per_hour);
        // A look before writing anything, for the common refusal; the store counts again in the
        // transaction that queues them.
        let asked = self
            .store
            .scrimmages_asked_since(user.id, now - 3600)
            .await?;
        let too_many = |asked: i64| ScrimmageError::TooMany {
            limit: limits.scrimmage_games_per_hour,
            asked: u32::try_from(asked).unwrap_or(u32::MAX),
        };
        if asked + i64::from(games) > per_hour {
            return Err(too_many(asked));
        }
        let variant = self
            .contest
            .leagues
            .get(mine.league as usize)
            .and_then(|l| l.variant.clone());
        let new_games: Vec<NewGame> = (0..games as usize)
            .map(|index| NewGame {
                kind: "scrimmage".into(),
                league: mine.league,
                variant: variant.clone(),
                seats: scrimmage_seats(&lineup, index),
                round: 0,
            })
            .collect();
        let ids = self
            .store
            .schedule_scrimmages(&new_games, self.contest.seed, user.id, per_hour, now)
            .await?
            .map_err(too_many)?;
        self.queued.notify_waiters();
        Ok(ids)
    }
}

/// House bots to fill a scrimmage's other seats, best first: the boss of the user's league (a
/// house bot or a contestant the contest file names), then the built-in bots of the user's league,
/// then the others, each by id; none already in `taken`.
fn fillers(
    players: &[Submission],
    mine: &Submission,
    taken: &[i64],
    boss: Option<i64>,
) -> Vec<i64> {
    let boss_bot = players.iter().filter(|s| Some(s.user_id) == boss);
    let mut house: Vec<&Submission> = players.iter().filter(|s| s.kind == "builtin").collect();
    house.sort_by_key(|s| (s.league != mine.league, s.id));
    let mut chosen: Vec<i64> = Vec::new();
    for s in boss_bot.chain(house) {
        if !taken.contains(&s.id) && !chosen.contains(&s.id) {
            chosen.push(s.id);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::scrimmage_seats;

    #[test]
    fn seats_turn_so_that_every_player_sits_everywhere() {
        assert_eq!(scrimmage_seats(&[1, 2], 0), vec![1, 2]);
        assert_eq!(scrimmage_seats(&[1, 2], 1), vec![2, 1]);
        assert_eq!(scrimmage_seats(&[1, 2], 2), vec![1, 2]);
        let four: Vec<Vec<i64>> = (0..4).map(|i| scrimmage_seats(&[1, 2, 3, 4], i)).collect();
        for player in 1..=4 {
            let mut seats: Vec<usize> = four
                .iter()
                .map(|game| game.iter().position(|&p| p == player).unwrap_or(9))
                .collect();
            seats.sort_unstable();
            assert_eq!(seats, vec![0, 1, 2, 3], "player {player}: {four:?}");
        }
    }
}

//! Reading what was played (`games`, `game_seats`, `results`, `promotions`, `rating_history`):
//! lists, the pages' listing with its filters, seats, replays, results in completion order,
//! rating histories.

use std::collections::HashMap;

use sqlx::Row;

use super::completion::{RatingPoint, seat_faults};
use super::{Claimed, SUBMISSION_COLUMNS, Store, db, submission_of};
use crate::HostError;

/// A game's result for one of its players (the filter's subject).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Ranked first alone.
    Win,
    /// Ranked below first.
    Loss,
    /// Ranked first with another seat (a shared best rank: in a game of more than two players,
    /// the subject and at least one other share first place).
    Draw,
}

impl Outcome {
    /// Seat `seat`'s outcome in a game of `ranks` (1-based, ties share a rank).
    pub fn of(ranks: &[u32], seat: usize) -> Option<Outcome> {
        let rank = *ranks.get(seat)?;
        Some(if rank != 1 {
            Outcome::Loss
        } else if ranks.iter().filter(|&&r| r == 1).count() > 1 {
            Outcome::Draw
        } else {
            Outcome::Win
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
        }
    }

    pub fn parse(text: &str) -> Option<Outcome> {
        match text {
            "win" => Some(Outcome::Win),
            "loss" => Some(Outcome::Loss),
            "draw" => Some(Outcome::Draw),
            _ => None,
        }
    }
}

/// Which games [`Store::game_listing`] lists (every condition given holds). The subject of
/// `result`, `fault` and `opponent` is `submission` when given (then it must be `user`'s, if that
/// is given too), else `user`'s submissions; `result` and `fault` need one.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// Games where this submission plays.
    pub submission: Option<i64>,
    /// Games where any submission of this user plays.
    pub user: Option<i64>,
    /// Games where a submission of this user also plays (in another seat than the subject's).
    pub opponent: Option<i64>,
    /// The subject's result; games without a result (not done) match none.
    pub result: Option<Outcome>,
    /// `Some(true)`: only games where the subject faulted; `Some(false)`: only finished games
    /// where it did not.
    pub fault: Option<bool>,
    /// `ladder`, `placement`, `scrimmage`, `koth`, `qualifier`, `final`.
    pub kind: Option<String>,
    /// `queued`, `running`, `done`, `failed`, `cancelled`.
    pub state: Option<String>,
    /// Only games with a smaller id (the last id of the previous page): pages newest first.
    pub before: Option<i64>,
    /// Rows at most (0 counts as 1). Callers on behalf of people bound it (the API: 1000).
    pub limit: i64,
}

/// One seat of a listed game.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ListedSeat {
    pub submission: i64,
    pub user_id: i64,
    /// The player's name (a house bot's too).
    pub user: String,
    /// 1-based rank (ties share one); `None` until the game is done.
    pub rank: Option<u32>,
    /// Win, loss or draw (see [`Outcome`]); `None` until the game is done.
    pub outcome: Option<Outcome>,
    /// Whether the seat faulted; `None` until the game is done.
    pub faulted: Option<bool>,
    /// The fault kinds, comma-separated, as the journal names them.
    pub fault: Option<String>,
}

/// A game as the pages list it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GameListing {
    pub id: i64,
    pub kind: String,
    pub league: i64,
    pub variant: Option<String>,
    pub seed: String,
    pub state: String,
    pub attempts: i64,
    pub error: Option<String>,
    /// Seconds since 1970.
    pub created_at: i64,
    pub finished_at: Option<i64>,
    /// In seat order.
    pub players: Vec<ListedSeat>,
    /// The journal line (`arena_tournament::journal::Entry` as JSON) of a done game.
    pub entry: Option<serde_json::Value>,
}

/// A finished game as listed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GameRow {
    pub id: i64,
    pub kind: String,
    pub league: i64,
    pub variant: Option<String>,
    pub seed: String,
    pub state: String,
    pub attempts: i64,
    pub error: Option<String>,
    pub seats: Vec<i64>,
    pub entry: Option<serde_json::Value>,
}

impl Store {
    /// Games, newest first: all of them, or those where `submission` plays (at most `limit`).
    pub async fn games(
        &self,
        submission: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameRow>, HostError> {
        let listing = self
            .game_listing(&GameFilter {
                submission,
                limit,
                ..GameFilter::default()
            })
            .await?;
        Ok(listing
            .into_iter()
            .map(|game| GameRow {
                id: game.id,
                kind: game.kind,
                league: game.league,
                variant: game.variant,
                seed: game.seed,
                state: game.state,
                attempts: game.attempts,
                error: game.error,
                seats: game.players.iter().map(|p| p.submission).collect(),
                entry: game.entry,
            })
            .collect())
    }

    /// The games `filter` selects, newest first, with each seat's player and outcome: two
    /// statements a page (the games, then all their seats), whatever its length.
    ///
    /// Refused when `result` or `fault` is asked without a subject (`submission` or `user`).
    pub async fn game_listing(&self, filter: &GameFilter) -> Result<Vec<GameListing>, HostError> {
        if filter.submission.is_none()
            && filter.user.is_none()
            && (filter.result.is_some() || filter.fault.is_some())
        {
            return Err(HostError::Refused(
                "a result or fault filter needs a submission or a user whose games they are".into(),
            ));
        }
        // Users' submissions are looked up first and written into the statement as lists of ids
        // (integers from the database): PostgreSQL then knows how few seats they have and walks
        // the seats' index by submission, newest game first, where a subquery made it scan every
        // seat (200 ms a page at 200 000 games).
        let mut subject: Option<Vec<i64>> = filter.submission.map(|id| vec![id]);
        if let Some(user) = filter.user {
            let theirs = self.submission_ids_of(user).await?;
            subject = Some(match subject {
                // Both: the submission, if it is the user's.
                Some(ids) => ids.into_iter().filter(|id| theirs.contains(id)).collect(),
                None => theirs,
            });
        }
        let opponents = match filter.opponent {
            Some(user) => Some(self.submission_ids_of(user).await?),
            None => None,
        };
        if subject.as_ref().is_some_and(Vec::is_empty)
            || opponents.as_ref().is_some_and(Vec::is_empty)
        {
            return Ok(Vec::new());
        }
        let list = |ids: &[i64]| ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let mut conditions = Vec::new();
        // With a subject, the games come from its seats (`me`), ordered by their game id.
        let id = if subject.is_some() {
            "me.game_id"
        } else {
            "g.id"
        };
        if let Some(ids) = &subject {
            conditions.push(format!("me.submission_id IN ({})", list(ids)));
        }
        if let Some(outcome) = filter.result {
            // A fixed word: written in.
            conditions.push(format!("me.outcome = '{}'", outcome.as_str()));
        }
        match filter.fault {
            Some(true) => conditions.push("me.faulted = 1".into()),
            Some(false) => conditions.push("me.faulted = 0".into()),
            None => {}
        }
        if let Some(ids) = &opponents {
            let other_seat = if subject.is_some() {
                "AND them.seat <> me.seat"
            } else {
                ""
            };
            conditions.push(format!(
                "EXISTS (SELECT 1 FROM game_seats them WHERE them.game_id = {id} \
                 AND them.submission_id IN ({}) {other_seat})",
                list(ids)
            ));
        }
        if let Some(before) = filter.before {
            conditions.push(format!("{id} < {before}"));
        }
        // Only the conditions asked for are written (a condition such as `$1 = '' OR kind = $1`
        // would keep a prepared statement's generic plan off the indexes).
        let mut texts: Vec<&str> = Vec::new();
        for (column, value) in [("g.kind", &filter.kind), ("g.state", &filter.state)] {
            if let Some(value) = value {
                texts.push(value);
                conditions.push(format!("{column} = ${}", texts.len()));
            }
        }
        if conditions.is_empty() {
            conditions.push("1 = 1".into());
        }
        // The subject's seats: its results when a result or a fault is asked for (finished games
        // only, as those filters are), else all its seats.
        let from = match (&subject, filter.result.is_some() || filter.fault.is_some()) {
            (None, _) => "games g",
            (Some(_), true) => "seat_results me JOIN games g ON g.id = me.game_id",
            (Some(_), false) => "game_seats me JOIN games g ON g.id = me.game_id",
        };
        // A user with two submissions in one game (which the contest never schedules) would list
        // it twice: DISTINCT.
        let distinct = if subject.as_ref().is_some_and(|ids| ids.len() > 1) {
            "DISTINCT"
        } else {
            ""
        };
        let sql = format!(
            "SELECT {distinct} {id}, g.kind, g.league, g.variant, g.seed, g.state, g.attempts, \
             g.error, g.created_at, g.finished_at FROM {from} WHERE {} ORDER BY {id} DESC LIMIT ${}",
            conditions.join(" AND "),
            texts.len() + 1
        );
        let mut query = sqlx::query(&sql);
        for text in texts {
            query = query.bind(text);
        }
        let rows = query
            .bind(filter.limit.max(1))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        let mut games = Vec::with_capacity(rows.len());
        for row in &rows {
            games.push(GameListing {
                id: row.try_get(0).map_err(db)?,
                kind: row.try_get(1).map_err(db)?,
                league: row.try_get(2).map_err(db)?,
                variant: row.try_get(3).map_err(db)?,
                seed: row.try_get(4).map_err(db)?,
                state: row.try_get(5).map_err(db)?,
                attempts: row.try_get(6).map_err(db)?,
                error: row.try_get(7).map_err(db)?,
                created_at: row.try_get(8).map_err(db)?,
                finished_at: row.try_get(9).map_err(db)?,
                players: Vec::new(),
                entry: None,
            });
        }
        if games.is_empty() {
            return Ok(games);
        }
        // The page's seats, names and journal lines in one statement.
        let ids: Vec<String> = games.iter().map(|g| g.id.to_string()).collect();
        let seats = sqlx::query(&format!(
            "SELECT gs.game_id, gs.submission_id, s.user_id, u.name, r.entry FROM game_seats gs \
             JOIN submissions s ON s.id = gs.submission_id JOIN users u ON u.id = s.user_id \
             LEFT JOIN results r ON r.game_id = gs.game_id AND gs.seat = 0 \
             WHERE gs.game_id IN ({}) ORDER BY gs.game_id, gs.seat",
            ids.join(",")
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut by_game: HashMap<i64, (Vec<ListedSeat>, Option<String>)> = HashMap::new();
        for row in &seats {
            let game: i64 = row.try_get(0).map_err(db)?;
            let entry: Option<String> = row.try_get(4).map_err(db)?;
            let listed = by_game.entry(game).or_default();
            listed.0.push(ListedSeat {
                submission: row.try_get(1).map_err(db)?,
                user_id: row.try_get(2).map_err(db)?,
                user: row.try_get(3).map_err(db)?,
                rank: None,
                outcome: None,
                faulted: None,
                fault: None,
            });
            if entry.is_some() {
                listed.1 = entry;
            }
        }
        for game in &mut games {
            let Some((mut players, entry)) = by_game.remove(&game.id) else {
                continue;
            };
            // A done game's ranks and faults per seat, from its journal line.
            game.entry = entry.and_then(|e| serde_json::from_str(&e).ok());
            if let Some(entry) = &game.entry {
                let ranks: Vec<u32> = entry
                    .get("ranks")
                    .cloned()
                    .and_then(|r| serde_json::from_value(r).ok())
                    .unwrap_or_default();
                let faults = seat_faults(entry);
                for (seat, player) in players.iter_mut().enumerate() {
                    player.rank = ranks.get(seat).copied();
                    player.outcome = Outcome::of(&ranks, seat);
                    let kinds = faults.get(seat).cloned().unwrap_or_default();
                    player.faulted = player.rank.map(|_| !kinds.is_empty());
                    player.fault = (!kinds.is_empty()).then(|| kinds.join(", "));
                }
            }
            game.players = players;
        }
        Ok(games)
    }

    /// The ids of a user's submissions, every one of them.
    async fn submission_ids_of(&self, user: i64) -> Result<Vec<i64>, HostError> {
        let rows = sqlx::query("SELECT id FROM submissions WHERE user_id = $1 ORDER BY id")
            .bind(user)
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    /// A submission's rating after each of its rated games, in the order they were rated (a
    /// promotion's fresh rating in the new league starts that league's points).
    pub async fn rating_history(&self, submission: i64) -> Result<Vec<RatingPoint>, HostError> {
        let rows = sqlx::query(
            "SELECT league, completion, recorded_at, mu, sigma FROM rating_history \
             WHERE submission_id = $1 ORDER BY completion, league",
        )
        .bind(submission)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|row| {
                Ok(RatingPoint {
                    submission,
                    league: row.try_get(0)?,
                    completion: row.try_get(1)?,
                    at: row.try_get(2)?,
                    mu: row.try_get(3)?,
                    sigma: row.try_get(4)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    /// The submission in each seat of a game.
    pub async fn seats(&self, game: i64) -> Result<Vec<i64>, HostError> {
        let rows =
            sqlx::query("SELECT submission_id FROM game_seats WHERE game_id = $1 ORDER BY seat")
                .bind(game)
                .fetch_all(&self.pool)
                .await
                .map_err(db)?;
        rows.iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(db)
    }

    /// A finished game's gzipped replay.
    pub async fn replay(&self, game: i64) -> Result<Option<Vec<u8>>, HostError> {
        let row = sqlx::query("SELECT replay FROM results WHERE game_id = $1")
            .bind(game)
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        Ok(row.and_then(|r| r.try_get::<Option<Vec<u8>>, _>(0).ok().flatten()))
    }

    /// A finished game as it was claimed (its seed, variant and seats), to play it again.
    pub async fn finished_game(&self, id: i64) -> Result<Option<Claimed>, HostError> {
        let row = sqlx::query(
            "SELECT kind, league, variant, seed, attempts, COALESCE(worker, '') FROM games \
             WHERE id = $1 AND state = 'done'",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        let Some(row) = row else { return Ok(None) };
        let seed_text: String = row.try_get(3).map_err(db)?;
        let seed = seed_text
            .parse::<u64>()
            .map_err(|_| HostError::Database(format!("game {id} has a bad seed {seed_text:?}")))?;
        let seats = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
             JOIN users u ON u.id = s.user_id WHERE gs.game_id = $1 ORDER BY gs.seat"
        ))
        .bind(id)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?
        .iter()
        .map(submission_of)
        .collect::<Result<Vec<_>, _>>()
        .map_err(db)?;
        Ok(Some(Claimed {
            id,
            kind: row.try_get(0).map_err(db)?,
            league: row.try_get(1).map_err(db)?,
            variant: row.try_get(2).map_err(db)?,
            seed,
            attempts: row.try_get(4).map_err(db)?,
            seats,
            worker: row.try_get(5).map_err(db)?,
        }))
    }

    /// Every result, in completion order: (game id, completion, journal line).
    pub async fn results(&self) -> Result<Vec<(i64, i64, String)>, HostError> {
        self.results_where("").await
    }

    /// The contest's results, in completion order: every result but the scrimmages' (games
    /// contestants asked for, which count in no standing), for the contest's exports.
    pub async fn contest_results(&self) -> Result<Vec<(i64, i64, String)>, HostError> {
        self.results_where("WHERE game_id NOT IN (SELECT id FROM games WHERE kind = 'scrimmage')")
            .await
    }

    async fn results_where(&self, which: &str) -> Result<Vec<(i64, i64, String)>, HostError> {
        let rows = sqlx::query(&format!(
            "SELECT game_id, completion, entry FROM results {which} ORDER BY completion"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    /// Finished games of one kind in completion order: (seats, journal line).
    pub async fn finished_of_kind(&self, kind: &str) -> Result<Vec<(Vec<i64>, String)>, HostError> {
        let rows = sqlx::query(
            "SELECT g.id, r.entry FROM results r JOIN games g ON g.id = r.game_id \
             WHERE g.kind = $1 ORDER BY r.completion",
        )
        .bind(kind)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut seats = self
            .seats_of_kind(kind, "g.id IN (SELECT game_id FROM results)")
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            out.push((
                seats.remove(&id).unwrap_or_default(),
                row.try_get(1).map_err(db)?,
            ));
        }
        Ok(out)
    }

    /// Games of one kind that are not cancelled: (seats, round).
    pub async fn games_of_kind(&self, kind: &str) -> Result<Vec<(Vec<i64>, i64)>, HostError> {
        let rows = sqlx::query(
            "SELECT id, round FROM games WHERE kind = $1 AND state <> 'cancelled' ORDER BY id",
        )
        .bind(kind)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut seats = self.seats_of_kind(kind, "g.state <> 'cancelled'").await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            out.push((
                seats.remove(&id).unwrap_or_default(),
                row.try_get(1).map_err(db)?,
            ));
        }
        Ok(out)
    }

    /// The seats of the games of `kind` that `which` (a condition on `g`, written by this module)
    /// selects, by game, in one statement: a statement per game made a KotH host of 180 000 games
    /// spend half a core on its scheduler's looks.
    async fn seats_of_kind(
        &self,
        kind: &str,
        which: &str,
    ) -> Result<HashMap<i64, Vec<i64>>, HostError> {
        self.seats_where(&format!("g.kind = $1 AND {which}"), Some(kind))
            .await
    }

    /// The seats of the games of [`Store::contest_results`], by game: one statement for them all
    /// (an export read them one game at a time).
    pub async fn contest_seats(&self) -> Result<HashMap<i64, Vec<i64>>, HostError> {
        self.seats_where(
            "g.kind <> 'scrimmage' AND g.id IN (SELECT game_id FROM results)",
            None,
        )
        .await
    }

    /// The seats of the games numbered `first` to `last`, as (game, submission) in game and seat
    /// order: a range of the seats' primary key, one prepared statement for every range.
    pub(super) async fn seats_between(
        &self,
        first: i64,
        last: i64,
    ) -> Result<Vec<(i64, i64)>, HostError> {
        let rows = sqlx::query(
            "SELECT game_id, submission_id FROM game_seats WHERE game_id BETWEEN $1 AND $2 \
             ORDER BY game_id, seat",
        )
        .bind(first)
        .bind(last)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    /// Seats by game, in seat order, of the games `which` selects (`kind` bound as `$1`).
    async fn seats_where(
        &self,
        which: &str,
        kind: Option<&str>,
    ) -> Result<HashMap<i64, Vec<i64>>, HostError> {
        let sql = format!(
            "SELECT gs.game_id, gs.submission_id FROM game_seats gs JOIN games g ON g.id = gs.game_id \
             WHERE {which} ORDER BY gs.game_id, gs.seat"
        );
        let mut query = sqlx::query(&sql);
        if let Some(kind) = kind {
            query = query.bind(kind);
        }
        let rows = query.fetch_all(&self.pool).await.map_err(db)?;
        let mut seats: HashMap<i64, Vec<i64>> = HashMap::new();
        for row in &rows {
            seats
                .entry(row.try_get(0).map_err(db)?)
                .or_default()
                .push(row.try_get(1).map_err(db)?);
        }
        Ok(seats)
    }

    /// Promotions in order: (submission, from league, completion).
    pub async fn promotions(&self) -> Result<Vec<(i64, i64, i64)>, HostError> {
        let rows = sqlx::query(
            "SELECT submission_id, from_league, completion FROM promotions ORDER BY completion, submission_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }
}

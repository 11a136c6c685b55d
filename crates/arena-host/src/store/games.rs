//! Reading what was played (`games`, `game_seats`, `results`, `promotions`): lists, seats,
//! replays, results in completion order.

use std::collections::HashMap;

use sqlx::Row;

use super::{Claimed, SUBMISSION_COLUMNS, Store, db, submission_of};
use crate::HostError;

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
    /// Games, newest first: all of them, or those where `submission` plays.
    pub async fn games(
        &self,
        submission: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameRow>, HostError> {
        let base = "SELECT g.id, g.kind, g.league, g.variant, g.seed, g.state, g.attempts, g.error, r.entry \
                    FROM games g LEFT JOIN results r ON r.game_id = g.id";
        let rows = match submission {
            Some(id) => sqlx::query(&format!(
                "{base} WHERE g.id IN (SELECT game_id FROM game_seats WHERE submission_id = $1) \
                 ORDER BY g.id DESC LIMIT $2"
            ))
            .bind(id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await,
            None => {
                sqlx::query(&format!("{base} ORDER BY g.id DESC LIMIT $1"))
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await
            }
        }
        .map_err(db)?;
        let mut games = Vec::new();
        for row in rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let entry: Option<String> = row.try_get(8).map_err(db)?;
            games.push(GameRow {
                id,
                kind: row.try_get(1).map_err(db)?,
                league: row.try_get(2).map_err(db)?,
                variant: row.try_get(3).map_err(db)?,
                seed: row.try_get(4).map_err(db)?,
                state: row.try_get(5).map_err(db)?,
                attempts: row.try_get(6).map_err(db)?,
                error: row.try_get(7).map_err(db)?,
                seats: self.seats(id).await?,
                entry: entry.and_then(|e| serde_json::from_str(&e).ok()),
            });
        }
        Ok(games)
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
        let rows =
            sqlx::query("SELECT game_id, completion, entry FROM results ORDER BY completion")
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
        let rows = sqlx::query(&format!(
            "SELECT gs.game_id, gs.submission_id FROM game_seats gs JOIN games g ON g.id = gs.game_id \
             WHERE g.kind = $1 AND {which} ORDER BY gs.game_id, gs.seat"
        ))
        .bind(kind)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
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

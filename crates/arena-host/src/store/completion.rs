//! Completing claimed games exactly once (`results`), with the ratings of their players and
//! promotions (`submissions`, `promotions`).

use sqlx::{Any, Row, Transaction};

use super::{Claimed, Notice, Outcome, Store, db, now};
use crate::HostError;
use crate::ladder::{self, Rating};

/// What a finished game leaves.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The journal line (JSON of `arena_tournament::journal::Entry`).
    pub entry: String,
    /// 1-based rank per seat.
    pub ranks: Vec<u32>,
    /// The replay, gzipped JSON.
    pub replay: Option<Vec<u8>>,
}

/// Who must be beaten to leave each league: the user whose active submission is the boss.
#[derive(Clone, Debug, Default)]
pub struct Promotion {
    pub bosses: Vec<Option<i64>>,
    pub promotion_games: i64,
    pub leagues: i64,
}

/// Unrated games completed in one statement at most (4 bound values each: well under SQLite's
/// 32 766 and PostgreSQL's 65 535).
const COMPLETION_CHUNK: usize = 1000;

/// Rows of seat outcomes or rating points written by one statement at most (one or two bound
/// values each).
const OUTCOME_CHUNK: usize = 2000;

/// A rated player's rating after a game (or at the start of the league a promotion put it in).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RatingPoint {
    pub submission: i64,
    pub league: i64,
    /// The completion number of the game that rated it (of the promoting game for a league's
    /// first point): the order ratings changed in, across submissions too.
    pub completion: i64,
    /// Seconds since 1970.
    pub at: i64,
    pub mu: f64,
    pub sigma: f64,
}

/// One seat's result as stored in `seat_results` (see migration 0008).
struct SeatOutcome {
    submission: i64,
    game: i64,
    seat: usize,
    outcome: Outcome,
    faulted: bool,
}

/// The fault kinds of each seat, from a journal line (`faults`, as
/// `arena_tournament::journal::Entry` writes them): empty when it has none.
pub(super) fn seat_faults(entry: &serde_json::Value) -> Vec<Vec<String>> {
    entry
        .get("faults")
        .and_then(|f| f.as_array())
        .map(|seats| {
            seats
                .iter()
                .map(|kinds| {
                    kinds
                        .as_array()
                        .map(|kinds| {
                            kinds
                                .iter()
                                .map(|k| k.as_str().map_or_else(|| k.to_string(), str::to_string))
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Each seat's result of a game (`seats`: the submission in each seat) from its ranks and its
/// journal line. Seats without a rank have none.
fn seat_outcomes(game: i64, seats: &[i64], ranks: &[u32], entry: &str) -> Vec<SeatOutcome> {
    let faults = serde_json::from_str::<serde_json::Value>(entry)
        .map(|entry| seat_faults(&entry))
        .unwrap_or_default();
    seats
        .iter()
        .enumerate()
        .filter_map(|(seat, &submission)| {
            Some(SeatOutcome {
                submission,
                game,
                seat,
                outcome: Outcome::of(ranks, seat)?,
                faulted: faults.get(seat).is_some_and(|kinds| !kinds.is_empty()),
            })
        })
        .collect()
}

/// Whether a game's completion updates its players' ratings (and may promote them).
fn rated(claimed: &Claimed) -> bool {
    claimed.kind == "ladder" || claimed.kind == "placement"
}

impl Store {
    /// Completes a claimed game: its result, the ratings of its players in their league and any
    /// promotion, in one transaction. `false` (and nothing written) when the claim is no longer
    /// this attempt's (the game was requeued, cancelled or completed meanwhile).
    pub async fn complete(
        &self,
        claimed: &Claimed,
        finished: &Finished,
        promotion: &Promotion,
    ) -> Result<bool, HostError> {
        let done = self
            .complete_many(&[(claimed, finished)], promotion)
            .await?;
        Ok(done.first().copied().unwrap_or(false))
    }

    /// Completes several claimed games in one transaction (each as [`Store::complete`] does, in
    /// order): whether each was still its worker's claim. Runs of unrated games (everything but
    /// ladder and placement games) are written a thousand at a time in three statements, not three
    /// per game: games of built-in bots last a fraction of a millisecond, less than a statement.
    pub async fn complete_many(
        &self,
        games: &[(&Claimed, &Finished)],
        promotion: &Promotion,
    ) -> Result<Vec<bool>, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let mut done = Vec::with_capacity(games.len());
        let mut history = Vec::new();
        let mut at = 0;
        while at < games.len() {
            let unrated = games[at..]
                .iter()
                .take(COMPLETION_CHUNK)
                .take_while(|(claimed, _)| !rated(claimed))
                .count();
            if unrated == 0 {
                let (claimed, finished) = games[at];
                done.push(
                    Self::complete_in(&mut tx, claimed, finished, promotion, &mut history).await?,
                );
                at += 1;
            } else {
                done.extend(Self::complete_unrated(&mut tx, &games[at..at + unrated]).await?);
                at += unrated;
            }
        }
        // Each recorded game's seats' outcomes, and the rated players' new ratings: one
        // statement per batch each, not one per game.
        let outcomes: Vec<SeatOutcome> = games
            .iter()
            .zip(&done)
            .filter(|(_, recorded)| **recorded)
            .flat_map(|((claimed, finished), _)| {
                let seats: Vec<i64> = claimed.seats.iter().map(|s| s.id).collect();
                seat_outcomes(claimed.id, &seats, &finished.ranks, &finished.entry)
            })
            .collect();
        Self::write_outcomes(&mut tx, &outcomes, false).await?;
        Self::write_history(&mut tx, &history).await?;
        let mut per_worker: Vec<(&str, i64)> = Vec::new();
        for ((claimed, _), recorded) in games.iter().zip(&done) {
            if !recorded {
                continue;
            }
            match per_worker.iter_mut().find(|(w, _)| *w == claimed.worker) {
                Some((_, count)) => *count += 1,
                None => per_worker.push((&claimed.worker, 1)),
            }
        }
        for (worker, count) in per_worker {
            sqlx::query("UPDATE workers SET games_done = games_done + $1 WHERE id = $2")
                .bind(count)
                .bind(worker)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        if done.iter().any(|recorded| *recorded) {
            self.notify(&mut *tx, Notice::Ended).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(done)
    }

    /// [`Store::complete_in`] for games that rate nobody, at most [`COMPLETION_CHUNK`] of them: one
    /// statement marks the ones still claimed done, one takes their completion numbers (in the
    /// order given), one inserts their results.
    async fn complete_unrated(
        tx: &mut Transaction<'_, Any>,
        games: &[(&Claimed, &Finished)],
    ) -> Result<Vec<bool>, HostError> {
        // Ids and attempts are integers from the database: written into the statement; the
        // workers' names are bound.
        let mut claims = String::new();
        for (index, (claimed, _)) in games.iter().enumerate() {
            if index > 0 {
                claims.push(',');
            }
            claims.push_str(&format!(
                "({}, {}, ${})",
                claimed.id,
                claimed.attempts,
                index + 2
            ));
        }
        // A join with the list, not `(id, attempts, worker) IN (VALUES ...)`: PostgreSQL plans
        // that as a nested loop, a million comparisons for a thousand games. (The list's columns
        // keep their default names, column1..3: SQLite cannot rename them.)
        let sql = format!(
            "UPDATE games SET state = 'done', lease_until = NULL, finished_at = $1 \
             FROM (VALUES {claims}) AS claim \
             WHERE games.id = claim.column1 AND games.attempts = claim.column2 \
             AND games.worker = claim.column3 AND games.state = 'running' \
             RETURNING games.id, games.attempts, games.worker"
        );
        let mut query = sqlx::query(&sql).bind(now());
        for (claimed, _) in games {
            query = query.bind(&claimed.worker);
        }
        let rows = query.fetch_all(&mut **tx).await.map_err(db)?;
        let mut marked = std::collections::HashSet::new();
        for row in &rows {
            marked.insert((
                row.try_get::<i64, _>(0).map_err(db)?,
                row.try_get::<i64, _>(1).map_err(db)?,
                row.try_get::<String, _>(2).map_err(db)?,
            ));
        }
        let recorded = marked.len();
        // A claim is recorded once: the first time it is listed (as one at a time would).
        let done: Vec<bool> = games
            .iter()
            .map(|(claimed, _)| {
                marked.remove(&(claimed.id, claimed.attempts, claimed.worker.clone()))
            })
            .collect();
        if recorded == 0 {
            return Ok(done);
        }
        let last = Self::take_ids(tx, "completion", recorded as i64).await?;
        let mut completion = last - recorded as i64;
        let mut values = String::new();
        for index in 0..recorded {
            if index > 0 {
                values.push(',');
            }
            let first = 4 * index + 1;
            values.push_str(&format!(
                "(${first}, ${}, ${}, ${})",
                first + 1,
                first + 2,
                first + 3
            ));
        }
        let sql =
            format!("INSERT INTO results (game_id, completion, entry, replay) VALUES {values}");
        let mut query = sqlx::query(&sql);
        for ((claimed, finished), _) in games.iter().zip(&done).filter(|(_, d)| **d) {
            completion += 1;
            query = query
                .bind(claimed.id)
                .bind(completion)
                .bind(&finished.entry)
                .bind(finished.replay.clone());
        }
        query.execute(&mut **tx).await.map_err(db)?;
        Ok(done)
    }

    /// Fills the seats' outcomes of games completed before they were stored (migration 0008)
    /// from their results' journal lines, once: a setting records that it was done, so that a
    /// later opening does not look through every result again.
    pub(super) async fn backfill_seat_outcomes(&self) -> Result<(), HostError> {
        const DONE: &str = "seat_outcomes_backfilled";
        if self.setting(DONE).await?.is_some() {
            return Ok(());
        }
        let mut after = i64::MIN;
        loop {
            let rows = sqlx::query(
                "SELECT game_id, entry FROM results WHERE game_id > $1 ORDER BY game_id LIMIT 500",
            )
            .bind(after)
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            let Some(last) = rows.last() else { break };
            let first: i64 = rows[0].try_get(0).map_err(db)?;
            after = last.try_get(0).map_err(db)?;
            let seat_rows = sqlx::query(
                "SELECT game_id, submission_id FROM game_seats WHERE game_id BETWEEN $1 AND $2 \
                 ORDER BY game_id, seat",
            )
            .bind(first)
            .bind(after)
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            let mut seats: std::collections::HashMap<i64, Vec<i64>> = Default::default();
            for row in &seat_rows {
                seats
                    .entry(row.try_get(0).map_err(db)?)
                    .or_default()
                    .push(row.try_get(1).map_err(db)?);
            }
            let mut outcomes = Vec::new();
            for row in &rows {
                let game: i64 = row.try_get(0).map_err(db)?;
                let entry: String = row.try_get(1).map_err(db)?;
                let ranks: Vec<u32> = serde_json::from_str::<serde_json::Value>(&entry)
                    .ok()
                    .and_then(|e| e.get("ranks").cloned())
                    .and_then(|r| serde_json::from_value(r).ok())
                    .unwrap_or_default();
                let seated = seats.remove(&game).unwrap_or_default();
                outcomes.extend(seat_outcomes(game, &seated, &ranks, &entry));
            }
            let mut tx = self.pool.begin().await.map_err(db)?;
            Self::write_outcomes(&mut tx, &outcomes, true).await?;
            tx.commit().await.map_err(db)?;
        }
        self.set_setting(DONE, Some("1")).await
    }

    /// Inserts seats' results into `seat_results` (`again`: some may be there already, as when
    /// two processes fill old games at once).
    async fn write_outcomes(
        tx: &mut Transaction<'_, Any>,
        outcomes: &[SeatOutcome],
        again: bool,
    ) -> Result<(), HostError> {
        for chunk in outcomes.chunks(OUTCOME_CHUNK) {
            // Integers and the outcome (one of three fixed words): written in.
            let rows: Vec<String> = chunk
                .iter()
                .map(|o| {
                    format!(
                        "({}, {}, {}, '{}', {})",
                        o.submission,
                        o.game,
                        o.seat,
                        o.outcome.as_str(),
                        i64::from(o.faulted)
                    )
                })
                .collect();
            let conflict = if again { "ON CONFLICT DO NOTHING" } else { "" };
            sqlx::query(&format!(
                "INSERT INTO seat_results (submission_id, game_id, seat, outcome, faulted) \
                 VALUES {} {conflict}",
                rows.join(",")
            ))
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        }
        Ok(())
    }

    /// Appends rating points to `rating_history`.
    async fn write_history(
        tx: &mut Transaction<'_, Any>,
        points: &[RatingPoint],
    ) -> Result<(), HostError> {
        for chunk in points.chunks(OUTCOME_CHUNK) {
            let mut values = String::new();
            for (index, point) in chunk.iter().enumerate() {
                if index > 0 {
                    values.push(',');
                }
                values.push_str(&format!(
                    "({}, {}, {}, {}, ${}, ${})",
                    point.submission,
                    point.league,
                    point.completion,
                    point.at,
                    2 * index + 1,
                    2 * index + 2
                ));
            }
            let sql = format!(
                "INSERT INTO rating_history (submission_id, league, completion, recorded_at, mu, \
                 sigma) VALUES {values}"
            );
            let mut query = sqlx::query(&sql);
            for point in chunk {
                query = query.bind(point.mu).bind(point.sigma);
            }
            query.execute(&mut **tx).await.map_err(db)?;
        }
        Ok(())
    }

    /// One game's completion; ladder and placement games rate their players and may promote
    /// (their new ratings are added to `history`).
    async fn complete_in(
        tx: &mut Transaction<'_, Any>,
        claimed: &Claimed,
        finished: &Finished,
        promotion: &Promotion,
        history: &mut Vec<RatingPoint>,
    ) -> Result<bool, HostError> {
        let finished_at = now();
        let done = sqlx::query(
            "UPDATE games SET state = 'done', lease_until = NULL, finished_at = $1 \
             WHERE id = $2 AND state = 'running' AND attempts = $3 AND worker = $4",
        )
        .bind(finished_at)
        .bind(claimed.id)
        .bind(claimed.attempts)
        .bind(&claimed.worker)
        .execute(&mut **tx)
        .await
        .map_err(db)?
        .rows_affected();
        if done != 1 {
            // Nothing of this game was written.
            return Ok(false);
        }
        // Every completion updates this one row first: on PostgreSQL that orders completions (and
        // their rating updates) one after another, as SQLite's single writer does.
        let completion = Self::next_id(tx, "completion").await?;
        sqlx::query(
            "INSERT INTO results (game_id, completion, entry, replay) VALUES ($1, $2, $3, $4)",
        )
        .bind(claimed.id)
        .bind(completion)
        .bind(&finished.entry)
        .bind(finished.replay.clone())
        .execute(&mut **tx)
        .await
        .map_err(db)?;
        if !rated(claimed) {
            return Ok(true);
        }
        // Ratings: a game rates its players only while they are all still in its league. One
        // promoted while the game was played starts afresh in its new league: rating the others
        // against that fresh rating (or against a guess of the old one) would be wrong, so such a
        // game rates nobody. Its result is kept.
        // Read and written with one statement each for all the seats (ids are integers from the
        // database: written into the statements), not two per seat.
        let ids: Vec<String> = claimed.seats.iter().map(|s| s.id.to_string()).collect();
        let ids = ids.join(",");
        let rows = sqlx::query(&format!(
            "SELECT id, league, mu, sigma FROM submissions WHERE id IN ({ids})"
        ))
        .fetch_all(&mut **tx)
        .await
        .map_err(db)?;
        let mut current = std::collections::HashMap::with_capacity(rows.len());
        for row in &rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let league: i64 = row.try_get(1).map_err(db)?;
            let rating = Rating {
                mu: row.try_get(2).map_err(db)?,
                sigma: row.try_get(3).map_err(db)?,
            };
            current.insert(id, (league == claimed.league, rating));
        }
        let mut before = Vec::with_capacity(claimed.seats.len());
        for seat in &claimed.seats {
            let Some(&(in_league, rating)) = current.get(&seat.id) else {
                return Err(HostError::Database(format!(
                    "game {} has a seat of a missing submission {}",
                    claimed.id, seat.id
                )));
            };
            if !in_league {
                return Ok(true);
            }
            before.push(rating);
        }
        let after = ladder::rate(&before, &finished.ranks);
        let (mut mu, mut sigma) = (String::from("CASE id"), String::from("CASE id"));
        for (index, seat) in claimed.seats.iter().enumerate() {
            mu.push_str(&format!(" WHEN {} THEN ${}", seat.id, 2 * index + 1));
            sigma.push_str(&format!(" WHEN {} THEN ${}", seat.id, 2 * index + 2));
        }
        let sql = format!(
            "UPDATE submissions SET mu = {mu} END, sigma = {sigma} END, games = games + 1 \
             WHERE id IN ({ids})"
        );
        let mut query = sqlx::query(&sql);
        for rating in &after {
            query = query.bind(rating.mu).bind(rating.sigma);
        }
        query.execute(&mut **tx).await.map_err(db)?;
        for (seat, rating) in claimed.seats.iter().zip(&after) {
            history.push(RatingPoint {
                submission: seat.id,
                league: claimed.league,
                completion,
                at: finished_at,
                mu: rating.mu,
                sigma: rating.sigma,
            });
        }
        let fresh = Rating::default();
        for promoted in Self::promote(tx, claimed, promotion, completion).await? {
            history.push(RatingPoint {
                submission: promoted,
                league: claimed.league + 1,
                completion,
                at: finished_at,
                mu: fresh.mu,
                sigma: fresh.sigma,
            });
        }
        Ok(true)
    }

    /// Promotes, after a game of league L, every active submission of L (not the boss) that has
    /// played enough games there and is rated above the boss. Returns the promoted submissions.
    async fn promote(
        tx: &mut Transaction<'_, Any>,
        claimed: &Claimed,
        promotion: &Promotion,
        completion: i64,
    ) -> Result<Vec<i64>, HostError> {
        let league = claimed.league;
        let mut promoted = Vec::new();
        let Some(Some(boss_user)) = promotion.bosses.get(league as usize) else {
            return Ok(promoted);
        };
        if league + 1 >= promotion.leagues {
            return Ok(promoted);
        }
        let boss = sqlx::query(
            "SELECT mu FROM submissions WHERE user_id = $1 AND active = 1 AND state = 'ready' AND league = $2",
        )
        .bind(*boss_user)
        .bind(league)
        .fetch_optional(&mut **tx)
        .await
        .map_err(db)?;
        let Some(boss) = boss else {
            return Ok(promoted);
        };
        let boss_mu: f64 = boss.try_get(0).map_err(db)?;
        let fresh = Rating::default();
        for seat in &claimed.seats {
            let row =
                sqlx::query("SELECT league, mu, games, user_id FROM submissions WHERE id = $1")
                    .bind(seat.id)
                    .fetch_one(&mut **tx)
                    .await
                    .map_err(db)?;
            let (now_league, mu, games, user): (i64, f64, i64, i64) = (
                row.try_get(0).map_err(db)?,
                row.try_get(1).map_err(db)?,
                row.try_get(2).map_err(db)?,
                row.try_get(3).map_err(db)?,
            );
            if now_league != league
                || user == *boss_user
                || !ladder::promoted(games, mu, boss_mu, promotion.promotion_games)
            {
                continue;
            }
            sqlx::query(
                "UPDATE submissions SET league = $1, mu = $2, sigma = $3, games = 0 WHERE id = $4",
            )
            .bind(league + 1)
            .bind(fresh.mu)
            .bind(fresh.sigma)
            .bind(seat.id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
            sqlx::query(
                "INSERT INTO promotions (submission_id, from_league, completion) VALUES ($1, $2, $3)",
            )
            .bind(seat.id)
            .bind(league)
            .bind(completion)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
            // Its ladder games queued in the old league are no longer its league's (its
            // scrimmages rate nobody: they are played as asked).
            sqlx::query(
                "UPDATE games SET state = 'cancelled' WHERE state = 'queued' AND league = $1 \
                 AND kind IN ('ladder', 'placement') AND id IN \
                 (SELECT game_id FROM game_seats WHERE submission_id = $2)",
            )
            .bind(league)
            .bind(seat.id)
            .execute(&mut **tx)
            .await
            .map_err(db)?;
            promoted.push(seat.id);
        }
        Ok(promoted)
    }
}

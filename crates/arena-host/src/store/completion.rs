//! Completing claimed games exactly once (`results`), with the ratings of their players and
//! promotions (`submissions`, `promotions`).

use sqlx::{Any, Row, Transaction};

use super::{Backend, Claimed, Notice, Outcome, Store, db, now};
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
    /// order): whether each was still its worker's claim. Games are written a thousand at a time
    /// in a fixed number of statements, not several per game: games of built-in bots last a
    /// fraction of a millisecond, less than a statement, and on PostgreSQL each statement of a
    /// completion cost a ladder of process bots more than its games' own bots did (issue 29). The
    /// ratings of a batch's rated games are computed in order, in memory, from one read of their
    /// players, exactly as one game at a time would.
    pub async fn complete_many(
        &self,
        games: &[(&Claimed, &Finished)],
        promotion: &Promotion,
    ) -> Result<Vec<bool>, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let mut done = Vec::with_capacity(games.len());
        let mut history = Vec::new();
        let finished_at = now();
        for chunk in games.chunks(COMPLETION_CHUNK) {
            let completions = Self::complete_chunk(&mut tx, chunk, finished_at).await?;
            let rated_games: Vec<(&Claimed, &Finished, i64)> = chunk
                .iter()
                .zip(&completions)
                .filter_map(|((claimed, finished), completion)| {
                    completion
                        .filter(|_| rated(claimed))
                        .map(|completion| (*claimed, *finished, completion))
                })
                .collect();
            if !rated_games.is_empty() {
                Self::rate(
                    &mut tx,
                    self.backend,
                    &rated_games,
                    promotion,
                    finished_at,
                    &mut history,
                )
                .await?;
            }
            done.extend(completions.iter().map(Option::is_some));
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

    /// Marks the games of `games` (at most [`COMPLETION_CHUNK`]) that are still claimed done and
    /// records their results: one statement marks them, one takes their completion numbers (in
    /// the order given), one inserts their results. Each game's completion number, `None` for a
    /// claim that is no longer its worker's (nothing of it written).
    async fn complete_chunk(
        tx: &mut Transaction<'_, Any>,
        games: &[(&Claimed, &Finished)],
        finished_at: i64,
    ) -> Result<Vec<Option<i64>>, HostError> {
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
        let mut query = sqlx::query(&sql).bind(finished_at);
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
            return Ok(vec![None; games.len()]);
        }
        // Every completion updates this one row first: on PostgreSQL that orders completions (and
        // their rating updates, read after it) one after another, as SQLite's single writer does.
        let last = Self::take_ids(tx, "completion", recorded as i64).await?;
        let mut completion = last - recorded as i64;
        let completions: Vec<Option<i64>> = done
            .iter()
            .scan(completion, |next, recorded| {
                Some(recorded.then(|| {
                    *next += 1;
                    *next
                }))
            })
            .collect();
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
        Ok(completions)
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
            let mut seats: std::collections::HashMap<i64, Vec<i64>> = Default::default();
            for (game, submission) in self.seats_between(first, after).await? {
                seats.entry(game).or_default().push(submission);
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

    /// Rates the players of `games` (recorded ladder and placement games, each with its completion
    /// number, in completion order) and promotes, as one game after another would: a game rates
    /// its players only while they are all still in its league (one promoted while the game was
    /// played starts afresh in its new league, and rating the others against that fresh rating, or
    /// against a guess of the old one, would be wrong: such a game rates nobody, its result is
    /// kept); after each game, every seat of its league that has played enough games there and is
    /// rated above the league's boss is promoted. One read of the players (and the bosses), then
    /// one write of every changed rating, whatever the number of games. The new ratings are added
    /// to `history`.
    async fn rate(
        tx: &mut Transaction<'_, Any>,
        backend: Backend,
        games: &[(&Claimed, &Finished, i64)],
        promotion: &Promotion,
        finished_at: i64,
        history: &mut Vec<RatingPoint>,
    ) -> Result<(), HostError> {
        let boss_of = |league: i64| match promotion.bosses.get(league as usize) {
            Some(Some(user)) if league + 1 < promotion.leagues => Some(*user),
            _ => None,
        };
        // Ids are integers from the database: written into the statement.
        let mut seat_ids: Vec<i64> = games
            .iter()
            .flat_map(|(claimed, ..)| claimed.seats.iter().map(|s| s.id))
            .collect();
        seat_ids.sort_unstable();
        seat_ids.dedup();
        let mut boss_users: Vec<i64> = games
            .iter()
            .filter_map(|(claimed, ..)| boss_of(claimed.league))
            .collect();
        boss_users.sort_unstable();
        boss_users.dedup();
        let list = |ids: &[i64]| ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let bosses = if boss_users.is_empty() {
            String::new()
        } else {
            format!(
                " OR (user_id IN ({}) AND active = 1 AND state = 'ready')",
                list(&boss_users)
            )
        };
        // Locked until the commit on PostgreSQL: the ratings are written back as read here plus
        // the batch's games, so nothing else may change them meanwhile (the completion counter
        // already orders completions; this keeps an organiser's reset from being overwritten).
        let lock = match backend {
            Backend::Postgres => " ORDER BY id FOR UPDATE",
            Backend::Sqlite => " ORDER BY id",
        };
        let rows = sqlx::query(&format!(
            "SELECT id, league, mu, sigma, games, user_id, active, state FROM submissions \
             WHERE id IN ({}){bosses}{lock}",
            list(&seat_ids)
        ))
        .fetch_all(&mut **tx)
        .await
        .map_err(db)?;
        /// A submission as this batch leaves it.
        struct Player {
            league: i64,
            rating: Rating,
            games: i64,
            user: i64,
            /// Its user's active, built submission (a league's boss is its user's).
            current: bool,
            changed: bool,
        }
        // Ordered by id: a league's boss is the first current submission of its user there.
        let mut players: std::collections::BTreeMap<i64, Player> = Default::default();
        for row in &rows {
            let state: String = row.try_get(7).map_err(db)?;
            players.insert(
                row.try_get(0).map_err(db)?,
                Player {
                    league: row.try_get(1).map_err(db)?,
                    rating: Rating {
                        mu: row.try_get(2).map_err(db)?,
                        sigma: row.try_get(3).map_err(db)?,
                    },
                    games: row.try_get(4).map_err(db)?,
                    user: row.try_get(5).map_err(db)?,
                    current: row.try_get::<i64, _>(6).map_err(db)? == 1 && state == "ready",
                    changed: false,
                },
            );
        }
        let fresh = Rating::default();
        let mut promotions: Vec<(i64, i64, i64)> = Vec::new();
        for (claimed, finished, completion) in games {
            let league = claimed.league;
            let mut before = Vec::with_capacity(claimed.seats.len());
            for seat in &claimed.seats {
                let Some(player) = players.get(&seat.id) else {
                    return Err(HostError::Database(format!(
                        "game {} has a seat of a missing submission {}",
                        claimed.id, seat.id
                    )));
                };
                before.push((player.league == league).then_some(player.rating));
            }
            let Some(before) = before.into_iter().collect::<Option<Vec<Rating>>>() else {
                continue;
            };
            let after = ladder::rate(&before, &finished.ranks);
            let mut rated: Vec<i64> = Vec::with_capacity(after.len());
            for (seat, rating) in claimed.seats.iter().zip(&after) {
                history.push(RatingPoint {
                    submission: seat.id,
                    league,
                    completion: *completion,
                    at: finished_at,
                    mu: rating.mu,
                    sigma: rating.sigma,
                });
                // A submission in two seats (never in a ladder's draw) takes its first seat's
                // rating and one game, as one statement per game wrote it.
                if rated.contains(&seat.id) {
                    continue;
                }
                rated.push(seat.id);
                if let Some(player) = players.get_mut(&seat.id) {
                    player.rating = *rating;
                    player.games += 1;
                    player.changed = true;
                }
            }
            let Some(boss_user) = boss_of(league) else {
                continue;
            };
            let Some(boss_mu) = players
                .values()
                .find(|p| p.user == boss_user && p.current && p.league == league)
                .map(|p| p.rating.mu)
            else {
                continue;
            };
            for seat in &claimed.seats {
                let Some(player) = players.get_mut(&seat.id) else {
                    continue;
                };
                if player.league != league
                    || player.user == boss_user
                    || !ladder::promoted(
                        player.games,
                        player.rating.mu,
                        boss_mu,
                        promotion.promotion_games,
                    )
                {
                    continue;
                }
                player.league = league + 1;
                player.rating = fresh;
                player.games = 0;
                player.changed = true;
                promotions.push((seat.id, league, *completion));
                history.push(RatingPoint {
                    submission: seat.id,
                    league: league + 1,
                    completion: *completion,
                    at: finished_at,
                    mu: fresh.mu,
                    sigma: fresh.sigma,
                });
            }
        }
        let changed: Vec<(i64, &Player)> = players
            .iter()
            .filter(|(_, p)| p.changed)
            .map(|(id, p)| (*id, p))
            .collect();
        if !changed.is_empty() {
            // Integers written in, ratings bound (two values each).
            let (mut mu, mut sigma) = (String::from("CASE id"), String::from("CASE id"));
            let (mut games_played, mut leagues) =
                (String::from("CASE id"), String::from("CASE id"));
            for (index, (id, player)) in changed.iter().enumerate() {
                mu.push_str(&format!(" WHEN {id} THEN ${}", 2 * index + 1));
                sigma.push_str(&format!(" WHEN {id} THEN ${}", 2 * index + 2));
                games_played.push_str(&format!(" WHEN {id} THEN {}", player.games));
                leagues.push_str(&format!(" WHEN {id} THEN {}", player.league));
            }
            let ids: Vec<i64> = changed.iter().map(|(id, _)| *id).collect();
            let sql = format!(
                "UPDATE submissions SET mu = {mu} END, sigma = {sigma} END, \
                 games = {games_played} END, league = {leagues} END WHERE id IN ({})",
                list(&ids)
            );
            let mut query = sqlx::query(&sql);
            for (_, player) in &changed {
                query = query.bind(player.rating.mu).bind(player.rating.sigma);
            }
            query.execute(&mut **tx).await.map_err(db)?;
        }
        if !promotions.is_empty() {
            let values: Vec<String> = promotions
                .iter()
                .map(|(id, league, completion)| format!("({id}, {league}, {completion})"))
                .collect();
            sqlx::query(&format!(
                "INSERT INTO promotions (submission_id, from_league, completion) VALUES {}",
                values.join(",")
            ))
            .execute(&mut **tx)
            .await
            .map_err(db)?;
        }
        for (id, league, _) in &promotions {
            // Its ladder games queued in the old league are no longer its league's (its
            // scrimmages rate nobody: they are played as asked).
            sqlx::query(CANCEL_QUEUED_OF_PROMOTED)
                .bind(league)
                .bind(id)
                .execute(&mut **tx)
                .await
                .map_err(db)?;
        }
        Ok(())
    }
}

/// Cancels a promoted submission's rated games queued in the league it left (`$1`, the
/// submission `$2`): from the queued games to their seats, not from the seats of every game it
/// ever played.
pub(super) const CANCEL_QUEUED_OF_PROMOTED: &str = "UPDATE games SET state = 'cancelled' WHERE state = 'queued' AND league = $1 \
     AND kind IN ('ladder', 'placement') AND EXISTS \
     (SELECT 1 FROM game_seats gs WHERE gs.game_id = games.id AND gs.submission_id = $2)";

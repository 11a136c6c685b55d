//! The game queue (`games`, `game_seats`): games scheduled, claimed by workers under a lease,
//! failed, released and requeued.

use std::collections::HashMap;

use sqlx::{Any, Row, Transaction};

use super::{Backend, NewGame, Notice, SUBMISSION_COLUMNS, Store, db, now, submission_of};
use crate::HostError;
use crate::records::Submission;

/// Games written by one statement of [`Store::schedule_all`] (four bound texts each: well under
/// SQLite's 32 766 parameters).
const SCHEDULE_CHUNK: usize = 500;

/// Games queued at once from which [`Store::schedule_all`] refreshes PostgreSQL's statistics.
const ANALYZE_AFTER: usize = 1000;

// The scheduler's statements run at every turn, and a turn follows every recorded game: each
// reads the unfinished games through the partial indexes on them (`games_queue`,
// `games_running`), never the finished ones, which a ladder keeps by the hundred thousand. Written
// with literal states and `IN (... UNION ALL ...)` so that both planners take those indexes: a
// join on `state IN ('queued', 'running')` read every seat ever played, on SQLite and on
// PostgreSQL alike (0.45 s and 34 ms a turn at 200 000 games). `Store::indexed_statements`
// lists them for the test that reads their plans.

/// Unfinished rated games per submission (scrimmages left out).
pub(super) const PENDING_PER_SUBMISSION: &str = "SELECT gs.submission_id, COUNT(*) FROM game_seats gs \
     WHERE gs.game_id IN (SELECT id FROM games WHERE state = 'queued' AND kind <> 'scrimmage' \
     UNION ALL SELECT id FROM games WHERE state = 'running' AND kind <> 'scrimmage') \
     GROUP BY gs.submission_id";
pub(super) const COUNT_UNFINISHED: &str = "SELECT (SELECT COUNT(*) FROM games WHERE state = 'queued') \
     + (SELECT COUNT(*) FROM games WHERE state = 'running')";
pub(super) const COUNT_QUEUED_UNASKED: &str =
    "SELECT COUNT(*) FROM games WHERE state = 'queued' AND requested_by IS NULL";
pub(super) const COUNT_QUEUED: &str = "SELECT COUNT(*) FROM games WHERE state = 'queued'";
pub(super) const COUNT_RUNNING: &str = "SELECT COUNT(*) FROM games WHERE state = 'running'";

/// A game claimed by a worker.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: i64,
    /// `placement` and `ladder` games move the stored ratings; the other formats' standings are
    /// computed from the results.
    pub kind: String,
    pub league: i64,
    pub variant: Option<String>,
    pub seed: u64,
    pub attempts: i64,
    pub seats: Vec<Submission>,
    /// The worker holding the claim: completing checks it still does.
    pub worker: String,
}

/// The lease of a claim when the claimer names none: 30 s (renewed every 10 s by heartbeats).
pub const DEFAULT_LEASE_MS: i64 = 30_000;

impl Store {
    /// Queues a game; its seed derives from the contest's seed and the game's id.
    pub async fn schedule(&self, game: &NewGame, contest_seed: u64) -> Result<i64, HostError> {
        let ids = self
            .schedule_all(std::slice::from_ref(game), contest_seed)
            .await?;
        ids.first()
            .copied()
            .ok_or_else(|| HostError::Database("a scheduled game got no id".into()))
    }

    /// Queues `games` in one transaction, with the ids and seeds that scheduling them one by one
    /// would give (consecutive ids from the `game` counter): a round of thousands of games costs
    /// a few statements per hundred games instead of a transaction per game.
    pub async fn schedule_all(
        &self,
        games: &[NewGame],
        contest_seed: u64,
    ) -> Result<Vec<i64>, HostError> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let mut tx = self.pool.begin().await.map_err(db)?;
        let ids = self.schedule_in(&mut tx, games, contest_seed, None).await?;
        tx.commit().await.map_err(db)?;
        Ok(ids)
    }

    /// Queues the scrimmage `games` that `user` asked for, unless that makes more than
    /// `per_hour` scrimmage games asked for by `user` in the hour before `now`: then nothing is
    /// queued and `Err(asked_in_the_hour)` says how many were asked for already. The count is
    /// taken after the transaction's first write (the game counter's row), so two requests at once
    /// are counted one after the other, never both against the same room.
    pub async fn schedule_scrimmages(
        &self,
        games: &[NewGame],
        contest_seed: u64,
        user: i64,
        per_hour: i64,
        now: i64,
    ) -> Result<Result<Vec<i64>, i64>, HostError> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        let ids = self
            .schedule_in(&mut tx, games, contest_seed, Some(user))
            .await?;
        let asked = Self::count_asked(&mut *tx, user, now - 3600).await?;
        if asked > per_hour {
            tx.rollback().await.map_err(db)?;
            return Ok(Err(asked - games.len() as i64));
        }
        tx.commit().await.map_err(db)?;
        Ok(Ok(ids))
    }

    /// Scrimmage games `user` asked for since `since` (seconds).
    pub async fn scrimmages_asked_since(&self, user: i64, since: i64) -> Result<i64, HostError> {
        Self::count_asked(&self.pool, user, since).await
    }

    async fn count_asked<'e>(
        executor: impl sqlx::Executor<'e, Database = Any>,
        user: i64,
        since: i64,
    ) -> Result<i64, HostError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FROM games WHERE requested_by = $1 AND created_at > $2 \
             AND kind = 'scrimmage'",
        )
        .bind(user)
        .bind(since)
        .fetch_one(executor)
        .await
        .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// [`Store::schedule_all`] in `tx`, the games asked for by `requested_by` when given.
    async fn schedule_in(
        &self,
        tx: &mut Transaction<'_, Any>,
        games: &[NewGame],
        contest_seed: u64,
        requested_by: Option<i64>,
    ) -> Result<Vec<i64>, HostError> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let requested = requested_by.map_or_else(|| "NULL".to_string(), |id| id.to_string());
        let last = Self::take_ids(tx, "game", games.len() as i64).await?;
        let first = last - games.len() as i64 + 1;
        let ids: Vec<i64> = (first..=last).collect();
        let created = now();
        let languages = Self::languages_in(tx, games).await?;
        for (chunk_index, chunk) in games.chunks(SCHEDULE_CHUNK).enumerate() {
            let chunk_first = first + (chunk_index * SCHEDULE_CHUNK) as i64;
            // Ids, leagues, rounds and submission ids are integers: written in; the texts (kind,
            // variant, seed, needs) are bound, four a game.
            let mut rows = Vec::with_capacity(chunk.len());
            let mut seat_rows = Vec::new();
            let mut seeds = Vec::with_capacity(chunk.len());
            let mut needs = Vec::with_capacity(chunk.len());
            for (offset, game) in chunk.iter().enumerate() {
                let id = chunk_first + offset as i64;
                seeds.push(arena_core::seed::derive_seed(contest_seed, id as u64).to_string());
                // ',' and each seat's language followed by ','; none (checked through the seats
                // when claimed) if a seat's submission is missing.
                needs.push(
                    game.seats
                        .iter()
                        .try_fold(",".to_string(), |mut text, seat| {
                            text.push_str(languages.get(seat)?);
                            text.push(',');
                            Some(text)
                        }),
                );
                let text = 4 * offset + 1;
                rows.push(format!(
                    "({id}, ${text}, {}, ${}, ${}, 'queued', 0, {created}, {}, ${}, {requested})",
                    game.league,
                    text + 1,
                    text + 2,
                    game.round,
                    text + 3
                ));
                for (seat, submission) in game.seats.iter().enumerate() {
                    seat_rows.push(format!("({id}, {seat}, {submission})"));
                }
            }
            let sql = format!(
                "INSERT INTO games (id, kind, league, variant, seed, state, attempts, created_at, \
                 round, needs, requested_by) VALUES {}",
                rows.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for ((game, seed), needs) in chunk.iter().zip(seeds).zip(needs) {
                query = query
                    .bind(&game.kind)
                    .bind(game.variant.clone())
                    .bind(seed)
                    .bind(needs);
            }
            query.execute(&mut **tx).await.map_err(db)?;
            if !seat_rows.is_empty() {
                sqlx::query(&format!(
                    "INSERT INTO game_seats (game_id, seat, submission_id) VALUES {}",
                    seat_rows.join(", ")
                ))
                .execute(&mut **tx)
                .await
                .map_err(db)?;
            }
        }
        if self.backend == Backend::Postgres && games.len() >= ANALYZE_AFTER {
            // A round queued at once can make the table many times larger than when PostgreSQL
            // last sampled it. Planned on the old statistics (and kept as the workers' prepared
            // plans), a claim joined its batch to the games by scanning the table once per game:
            // claims of 7-60 s, on 180 000 games queued while workers ran. Fresh statistics
            // re-plan them, as after any bulk load; taken in this transaction (it counts its own
            // rows), they are there before any worker sees the games.
            sqlx::query("ANALYZE games, game_seats")
                .execute(&mut **tx)
                .await
                .map_err(db)?;
        }
        self.notify(&mut **tx, Notice::Queued).await?;
        Ok(ids)
    }

    /// The languages of the submissions seated in `games`, read once for a round: as a subquery
    /// per seat in the games' `INSERT`, PostgreSQL took about 60 ms to plan a statement of 500
    /// games (190 µs a game queued).
    async fn languages_in(
        tx: &mut Transaction<'_, Any>,
        games: &[NewGame],
    ) -> Result<HashMap<i64, String>, HostError> {
        let mut seated: Vec<i64> = games.iter().flat_map(|g| g.seats.iter().copied()).collect();
        seated.sort_unstable();
        seated.dedup();
        let mut languages = HashMap::with_capacity(seated.len());
        for chunk in seated.chunks(SCHEDULE_CHUNK) {
            // Submission ids are integers: written into the statement.
            let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
            let rows = sqlx::query(&format!(
                "SELECT id, language FROM submissions WHERE id IN ({})",
                list.join(",")
            ))
            .fetch_all(&mut **tx)
            .await
            .map_err(db)?;
            for row in &rows {
                languages.insert(
                    row.try_get::<i64, _>(0).map_err(db)?,
                    row.try_get::<String, _>(1).map_err(db)?,
                );
            }
        }
        Ok(languages)
    }

    /// Games queued or running per submission (the scheduler balances on played + pending).
    /// Scrimmages are left out: they rate nobody, and a contestant watching some must not get
    /// fewer ladder games meanwhile.
    pub async fn pending_per_submission(&self) -> Result<HashMap<i64, i64>, HostError> {
        let rows = sqlx::query(PENDING_PER_SUBMISSION)
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db)
    }

    /// Games queued or running, in one look.
    pub async fn count_unfinished(&self) -> Result<i64, HostError> {
        let row = sqlx::query(COUNT_UNFINISHED)
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// Games queued that the contest scheduled itself: scrimmages left out, so that a backlog of
    /// them never keeps the ladder's scheduler from refilling its part of the queue (workers take
    /// half their claims from each, see [`Store::claim_batch_excluding`]).
    pub async fn count_queued_unasked(&self) -> Result<i64, HostError> {
        let row = sqlx::query(COUNT_QUEUED_UNASKED)
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// Games in `state`. Queued and running games are counted through their partial indexes,
    /// which a bound state cannot use (PostgreSQL's generic plan does not know the value).
    pub async fn count_games(&self, state: &str) -> Result<i64, HostError> {
        let query = match state {
            "queued" => sqlx::query(COUNT_QUEUED),
            "running" => sqlx::query(COUNT_RUNNING),
            _ => sqlx::query("SELECT COUNT(*) FROM games WHERE state = $1").bind(state),
        };
        let row = query.fetch_one(&self.pool).await.map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// Claims the oldest queued game for `worker`, any language, with the default lease (the
    /// host's own workers and the tests).
    pub async fn claim(&self, worker: &str) -> Result<Option<Claimed>, HostError> {
        self.claim_for(worker, None, DEFAULT_LEASE_MS).await
    }

    /// Claims the oldest queued game `worker` can play: every seat's language is in `languages`
    /// (`,builtin,python3,` — `None`: any). The claim is a lease of `lease_ms` from now, renewed by
    /// [`Store::heartbeat`]. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets claimers pass each other
    /// instead of queueing on the same row; SQLite has one writer anyway.
    pub async fn claim_for(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
    ) -> Result<Option<Claimed>, HostError> {
        loop {
            let mut claimed = self.claim_batch(worker, languages, lease_ms, 1).await?;
            if let Some(game) = claimed.pop() {
                return Ok(Some(game));
            }
            if self.count_games("queued").await? == 0 || languages.is_some() {
                // Nothing queued, or nothing this worker can play (or only rows other claimers
                // hold this instant: the caller looks again soon).
                return Ok(None);
            }
        }
    }

    /// Claims up to `count` of the oldest queued games `worker` can play, oldest first, in one
    /// statement (games of built-in bots last a fraction of a millisecond: one claim per game
    /// would cost more than the game).
    pub async fn claim_batch(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
        count: i64,
    ) -> Result<Vec<Claimed>, HostError> {
        self.claim_batch_excluding(worker, languages, lease_ms, count, &[])
            .await
    }

    /// [`Store::claim_batch`], leaving out the games with a seat of a submission in `excluded`
    /// (ones this worker could not prepare).
    ///
    /// Scrimmages first, for half the claims: contestants watch their scrimmages, which would
    /// otherwise wait behind the whole queue (a KotH or qualifier round queues thousands of games;
    /// the ladder keeps a few per worker). Half of a batch (rounded down), or every other claim of
    /// one game by this store, is taken from the scrimmages waiting, oldest first, along their own
    /// partial index (empty, a single probe, when nobody asked for one); the rest of the batch in
    /// queue order, which may hold scrimmages too. So the other games keep at least half of the
    /// claims however many scrimmages are asked for: a flood of them (already bounded per user by
    /// `scrimmage_games_per_hour`) slows the ladder by half at most, never stops it.
    pub async fn claim_batch_excluding(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
        count: i64,
        excluded: &[i64],
    ) -> Result<Vec<Claimed>, HostError> {
        let count = count.max(1);
        let turn = self
            .claims
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let first = if count >= 2 {
            count / 2
        } else {
            i64::from(turn.is_multiple_of(2))
        };
        let mut games = if first > 0 {
            self.claim_picked(worker, languages, lease_ms, first, excluded, true)
                .await?
        } else {
            Vec::new()
        };
        let rest = count - games.len() as i64;
        if rest > 0 {
            games.extend(
                self.claim_picked(worker, languages, lease_ms, rest, excluded, false)
                    .await?,
            );
        }
        games.sort_by_key(|g| g.id);
        Ok(games)
    }

    /// Claims up to `count` queued games in queue order (`scrimmages`: scrimmages only), as
    /// [`Store::claim_batch_excluding`] describes.
    async fn claim_picked(
        &self,
        worker: &str,
        languages: Option<&str>,
        lease_ms: i64,
        count: i64,
        excluded: &[i64],
        scrimmages: bool,
    ) -> Result<Vec<Claimed>, HostError> {
        let now = self.now_ms_sql();
        // The scrimmages' own index serves this condition (see migration 0008).
        let only = if scrimmages {
            "AND g.kind = 'scrimmage'"
        } else {
            ""
        };
        let skip_locked = match self.backend {
            Backend::Postgres => "FOR UPDATE OF g SKIP LOCKED",
            Backend::Sqlite => "",
        };
        // A game is playable when none of its seats needs a language the worker lacks. On
        // PostgreSQL the game's own `needs` is checked as a filter along the queue's index, which
        // stops at the batch's size; through the seats (SQLite, and games scheduled before
        // `needs` existed) the check is an anti-join, which the planner makes over the whole queue
        // unless it sits in a CASE.
        let through_seats = "NOT EXISTS (SELECT 1 FROM game_seats gs JOIN submissions s \
             ON s.id = gs.submission_id \
             WHERE gs.game_id = g.id AND $3 NOT LIKE '%,' || s.language || ',%')";
        let capable = match (languages.is_some(), self.backend) {
            (false, _) => "AND $3 = ''".to_string(),
            (true, Backend::Sqlite) => format!("AND {through_seats}"),
            (true, Backend::Postgres) => format!(
                "AND CASE WHEN g.needs IS NULL THEN {through_seats} \
                 ELSE string_to_array(trim(both ',' from g.needs), ',') \
                 <@ string_to_array(trim(both ',' from $3), ',') END"
            ),
        };
        // The games are picked once, in a materialized CTE: as `WHERE id IN (subquery)` the
        // planner may run the subquery again for every row, and with SKIP LOCKED each run finds
        // other rows (a claim of 1 took the whole queue). The outer `state = 'queued'` makes two
        // claimers of the same row agree (SQLite, or a PostgreSQL claimer that read the row before
        // another's commit): the second updates nothing.
        let materialized = match self.backend {
            Backend::Postgres => "MATERIALIZED",
            Backend::Sqlite => "",
        };
        // Submission ids are integers: written into the statement.
        let excluding = if excluded.is_empty() {
            String::new()
        } else {
            let ids: Vec<String> = excluded.iter().map(i64::to_string).collect();
            format!(
                "AND NOT EXISTS (SELECT 1 FROM game_seats gx WHERE gx.game_id = g.id \
                 AND gx.submission_id IN ({}))",
                ids.join(",")
            )
        };
        let sql = format!(
            "WITH picked AS {materialized} (SELECT g.id FROM games g WHERE g.state = 'queued' \
             {only} {capable} {excluding} ORDER BY g.id LIMIT $4 {skip_locked}) \
             UPDATE games SET state = 'running', worker = $1, attempts = attempts + 1, \
             lease_until = {now} + $2 \
             WHERE id IN (SELECT id FROM picked) AND state = 'queued' \
             RETURNING id, league, variant, seed, attempts, kind"
        );
        let rows = sqlx::query(&sql)
            .bind(worker)
            .bind(lease_ms)
            .bind(languages.unwrap_or(""))
            .bind(count.max(1))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut games = Vec::new();
        for row in &rows {
            let id: i64 = row.try_get(0).map_err(db)?;
            let seed_text: String = row.try_get(3).map_err(db)?;
            let seed = seed_text.parse::<u64>().map_err(|_| {
                HostError::Database(format!("game {id} has a bad seed {seed_text:?}"))
            })?;
            games.push(Claimed {
                id,
                kind: row.try_get(5).map_err(db)?,
                league: row.try_get(1).map_err(db)?,
                variant: row.try_get(2).map_err(db)?,
                seed,
                attempts: row.try_get(4).map_err(db)?,
                seats: Vec::new(),
                worker: worker.to_string(),
            });
        }
        games.sort_by_key(|g| g.id);
        // Integers only: written into the statement rather than bound one by one.
        // The seats as pairs of ids, then each submission once: a batch of a thousand games of
        // the same few bots would otherwise carry every submission's row (build log included)
        // once per seat. A batch from the queue's head is mostly a run of ids: read as a range of
        // the seats' primary key, with the few games of others in it left out here. (A list of
        // thousands of ids is planned as a scan of every seat: 25 ms for 4096 games at 200 000.)
        let (first, last) = (games[0].id, games[games.len() - 1].id);
        let claimed: std::collections::HashSet<i64> = games.iter().map(|g| g.id).collect();
        // Bound when a range: one prepared statement serves every claim (a text of its own per
        // claim was parsed and planned by PostgreSQL each time).
        let seats = if (last - first) < 2 * games.len() as i64 {
            self.seats_between(first, last).await?
        } else {
            let ids: Vec<String> = games.iter().map(|g| g.id.to_string()).collect();
            let rows = sqlx::query(&format!(
                "SELECT game_id, submission_id FROM game_seats WHERE game_id IN ({}) \
                 ORDER BY game_id, seat",
                ids.join(",")
            ))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter()
                .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
                .collect::<Result<Vec<(i64, i64)>, sqlx::Error>>()
                .map_err(db)?
        };
        let seat_ids: Vec<(i64, i64)> = seats
            .into_iter()
            .filter(|(game, _)| claimed.contains(game))
            .collect();
        let mut distinct: Vec<i64> = seat_ids.iter().map(|(_, id)| *id).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let distinct_text: Vec<String> = distinct.iter().map(i64::to_string).collect();
        let rows = sqlx::query(&format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN users u ON u.id = s.user_id \
             WHERE s.id IN ({})",
            distinct_text.join(",")
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut submissions: HashMap<i64, Submission> = HashMap::new();
        for row in &rows {
            let submission = submission_of(row).map_err(db)?;
            submissions.insert(submission.id, submission);
        }
        let mut by_game: HashMap<i64, Vec<Submission>> = HashMap::new();
        for (game, submission) in seat_ids {
            let submission = submissions.get(&submission).cloned().ok_or_else(|| {
                HostError::Database(format!("game {game} has a seat of a missing submission"))
            })?;
            by_game.entry(game).or_default().push(submission);
        }
        for game in &mut games {
            game.seats = by_game.remove(&game.id).unwrap_or_default();
        }
        Ok(games)
    }

    /// A game that could not be played (a bot's folder missing, say): kept with the reason, not
    /// retried forever.
    pub async fn fail(&self, claimed: &Claimed, error: &str) -> Result<bool, HostError> {
        let changed = sqlx::query(
            "UPDATE games SET state = 'failed', lease_until = NULL, error = $1, \
             finished_at = $2 WHERE id = $3 AND state = 'running' AND attempts = $4 AND worker = $5",
        )
        .bind(error)
        .bind(now())
        .bind(claimed.id)
        .bind(claimed.attempts)
        .bind(&claimed.worker)
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if changed == 1 {
            sqlx::query("UPDATE workers SET games_failed = games_failed + 1 WHERE id = $1")
                .bind(&claimed.worker)
                .execute(&self.pool)
                .await
                .map_err(db)?;
            self.notify(&self.pool, Notice::Ended).await?;
        }
        Ok(changed == 1)
    }

    /// A claimed game its worker could not prepare goes back to the queue for another worker,
    /// with the reason kept in `error`; after `attempts` claims it is failed instead. `false` when
    /// the claim is no longer this worker's.
    pub async fn release(
        &self,
        claimed: &Claimed,
        error: &str,
        attempts: i64,
    ) -> Result<bool, HostError> {
        if claimed.attempts >= attempts {
            let reason = format!("{error} (no worker could prepare it in {attempts} claims)");
            return self.fail(claimed, &reason).await;
        }
        let changed = sqlx::query(
            "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL, error = $1 \
             WHERE id = $2 AND state = 'running' AND attempts = $3 AND worker = $4",
        )
        .bind(error)
        .bind(claimed.id)
        .bind(claimed.attempts)
        .bind(&claimed.worker)
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if changed == 1 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(changed == 1)
    }

    /// After a restart: games claimed by the previous process go back to the queue.
    pub async fn requeue_running(&self) -> Result<u64, HostError> {
        let requeued = sqlx::query(
            "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL \
                 WHERE state = 'running'",
        )
        .execute(&self.pool)
        .await
        .map_err(db)?
        .rows_affected();
        if requeued > 0 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(requeued)
    }

    /// Games whose lease ran out (their worker died, or lost the database for longer than its
    /// lease) go back to the queue; so do games claimed without a lease by an older arena.
    pub async fn requeue_expired(&self) -> Result<u64, HostError> {
        let now = self.now_ms_sql();
        let requeued = sqlx::query(&requeue_expired_sql(now))
            .execute(&self.pool)
            .await
            .map_err(db)?
            .rows_affected();
        if requeued > 0 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(requeued)
    }
}

/// Requeues the running games whose lease ran out by `now` (the database's clock, in ms).
pub(super) fn requeue_expired_sql(now: &str) -> String {
    format!(
        "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL \
         WHERE state = 'running' AND (lease_until IS NULL OR lease_until < {now})"
    )
}

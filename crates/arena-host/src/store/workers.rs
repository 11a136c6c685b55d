//! Worker processes (`workers`): registered, their heartbeats renewing their games' leases, the
//! games of dead ones requeued, and the fair share of the queue a claim takes.

use std::collections::HashMap;

use sqlx::Row;

use super::{Backend, Notice, Store, db};
use crate::HostError;

/// A worker process, as it registers.
#[derive(Clone, Debug)]
pub struct WorkerInfo {
    /// Unique: `MACHINE:PID:START_MS`.
    pub id: String,
    pub machine: String,
    pub pid: i64,
    /// `,builtin,python3,cpp,`.
    pub languages: String,
    pub cores: i64,
    /// Games it plays at once.
    pub jobs: i64,
    pub lease_ms: i64,
}

/// A worker as the organiser sees it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WorkerRow {
    pub id: String,
    pub machine: String,
    pub pid: i64,
    pub languages: Vec<String>,
    pub cores: i64,
    pub jobs: i64,
    /// `running`, `draining`, `stopped` (drained or ended), `lost` (its process was found gone, its
    /// games requeued: killed or crashed).
    pub state: String,
    /// Neither stopped nor lost, and its last heartbeat is younger than its lease.
    pub alive: bool,
    pub lease_ms: i64,
    pub started_at_ms: i64,
    /// Milliseconds since its last heartbeat (the database's clock).
    pub heartbeat_age_ms: i64,
    pub games_held: Vec<i64>,
    pub games_done: i64,
    pub games_failed: i64,
}

/// How far [`Store::fair_share`] counts the queue: this many claims of the size asked.
const SHARE_LOOKAHEAD: i64 = 4;

/// A claim of `count` when `queued` games are queued (counted up to `count × SHARE_LOOKAHEAD`) for
/// `jobs` live jobs: see [`Store::fair_share`].
fn fair_share_of(count: i64, queued: i64, jobs: i64) -> i64 {
    let count = count.max(1);
    if queued >= count.saturating_mul(SHARE_LOOKAHEAD) {
        return count;
    }
    let jobs = jobs.max(1);
    ((queued + jobs - 1) / jobs).clamp(1, count)
}

impl Store {
    /// Records a worker process as running (again, if its id is known).
    pub async fn register_worker(&self, worker: &WorkerInfo) -> Result<(), HostError> {
        let now = self.now_ms_sql();
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query("DELETE FROM workers WHERE id = $1")
            .bind(&worker.id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        sqlx::query(&format!(
            "INSERT INTO workers (id, machine, pid, languages, cores, jobs, state, lease_ms, \
             started_at, heartbeat, games_done, games_failed) \
             VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, {now}, {now}, 0, 0)"
        ))
        .bind(&worker.id)
        .bind(&worker.machine)
        .bind(worker.pid)
        .bind(&worker.languages)
        .bind(worker.cores)
        .bind(worker.jobs)
        .bind(worker.lease_ms)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)
    }

    /// A worker's heartbeat: it is alive, and the leases of the games it holds run `lease_ms` from
    /// now. Returns the leases renewed (a game that a completion is recording at that moment is
    /// not among them).
    /// `games` are the games it is playing: a claim whose answer was lost on the way is not
    /// among them, and runs out.
    pub async fn heartbeat(
        &self,
        worker: &str,
        lease_ms: i64,
        games: &[i64],
    ) -> Result<u64, HostError> {
        let now = self.now_ms_sql();
        // Two statements, no transaction around them, and the leases first with SKIP LOCKED: a
        // completion locks its games, then the worker's row (its count). A heartbeat that held
        // the worker's row while it waited for those games deadlocked with its own worker's
        // completions; a game a completion has locked is being recorded and needs no lease.
        let mut held = 0;
        if !games.is_empty() {
            // Integers only: written into the statement rather than bound one by one.
            let ids: Vec<String> = games.iter().map(i64::to_string).collect();
            let skip_locked = match self.backend {
                Backend::Postgres => "FOR UPDATE SKIP LOCKED",
                Backend::Sqlite => "",
            };
            held = sqlx::query(&format!(
                "UPDATE games SET lease_until = {now} + $1 WHERE id IN (SELECT id FROM games \
                 WHERE worker = $2 AND state = 'running' AND id IN ({}) {skip_locked})",
                ids.join(",")
            ))
            .bind(lease_ms)
            .bind(worker)
            .execute(&self.pool)
            .await
            .map_err(db)?
            .rows_affected();
        }
        sqlx::query(&format!(
            "UPDATE workers SET heartbeat = {now} WHERE id = $1"
        ))
        .bind(worker)
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(held)
    }

    /// `running`, `draining` (finishing its games, claiming no more) or `stopped`.
    pub async fn set_worker_state(&self, worker: &str, state: &str) -> Result<(), HostError> {
        sqlx::query("UPDATE workers SET state = $1 WHERE id = $2")
            .bind(state)
            .bind(worker)
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Every worker ever registered, newest first, with the games it holds now.
    pub async fn workers(&self) -> Result<Vec<WorkerRow>, HostError> {
        let now = self.now_ms_sql();
        let rows = sqlx::query(&format!(
            "SELECT id, machine, pid, languages, cores, jobs, state, lease_ms, started_at, \
             heartbeat, games_done, games_failed, {now} FROM workers ORDER BY started_at DESC, id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let held = sqlx::query(
            "SELECT worker, id FROM games WHERE state = 'running' AND worker IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut games: HashMap<String, Vec<i64>> = HashMap::new();
        for row in held {
            games
                .entry(row.try_get(0).map_err(db)?)
                .or_default()
                .push(row.try_get(1).map_err(db)?);
        }
        let mut out = Vec::new();
        for row in rows {
            let id: String = row.try_get(0).map_err(db)?;
            let languages: String = row.try_get(3).map_err(db)?;
            let lease_ms: i64 = row.try_get(7).map_err(db)?;
            let heartbeat: i64 = row.try_get(9).map_err(db)?;
            let now: i64 = row.try_get(12).map_err(db)?;
            let state: String = row.try_get(6).map_err(db)?;
            let age = now - heartbeat;
            out.push(WorkerRow {
                games_held: games.remove(&id).unwrap_or_default(),
                id,
                machine: row.try_get(1).map_err(db)?,
                pid: row.try_get(2).map_err(db)?,
                languages: languages
                    .split(',')
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect(),
                cores: row.try_get(4).map_err(db)?,
                jobs: row.try_get(5).map_err(db)?,
                alive: state != "stopped" && state != "lost" && age <= lease_ms,
                state,
                lease_ms,
                started_at_ms: row.try_get(8).map_err(db)?,
                heartbeat_age_ms: age,
                games_done: row.try_get(10).map_err(db)?,
                games_failed: row.try_get(11).map_err(db)?,
            });
        }
        Ok(out)
    }

    /// The games of workers of `machine` whose process is gone (`alive` says, by the worker's id
    /// `MACHINE:PID:START_MS`) go back to
    /// the queue at once, without waiting for their lease; those workers are marked `lost` (a
    /// drained worker is `stopped`: the organiser tells a crash from a clean stop).
    /// Only meaningful for the machine the caller runs on. Returns the games requeued.
    pub async fn requeue_dead_on(
        &self,
        machine: &str,
        alive: impl Fn(&str) -> bool,
    ) -> Result<u64, HostError> {
        let rows = sqlx::query(
            "SELECT id FROM workers WHERE machine = $1 AND state NOT IN ('stopped', 'lost')",
        )
        .bind(machine)
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        let mut requeued = 0;
        for row in rows {
            let id: String = row.try_get(0).map_err(db)?;
            if alive(&id) {
                continue;
            }
            let mut tx = self.pool.begin().await.map_err(db)?;
            requeued += sqlx::query(
                "UPDATE games SET state = 'queued', worker = NULL, lease_until = NULL \
                 WHERE worker = $1 AND state = 'running'",
            )
            .bind(&id)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
            sqlx::query("UPDATE workers SET state = 'lost' WHERE id = $1")
                .bind(&id)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)?;
        }
        if requeued > 0 {
            self.notify(&self.pool, Notice::Queued).await?;
        }
        Ok(requeued)
    }

    /// Games the live workers can play at once (the sum of their jobs): the scheduler keeps the
    /// queue deep enough for them.
    pub async fn live_jobs(&self) -> Result<i64, HostError> {
        let row = sqlx::query(&self.live_jobs_sql())
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        row.try_get(0).map_err(db)
    }

    /// The statement that sums the jobs of the live workers (running, with a heartbeat within
    /// their lease).
    fn live_jobs_sql(&self) -> String {
        format!(
            "SELECT CAST(COALESCE(SUM(jobs), 0) AS BIGINT) FROM workers WHERE state = 'running' \
             AND heartbeat + lease_ms >= {}",
            self.now_ms_sql()
        )
    }

    /// How many games a claimer that would take `count` should take so that the queue's tail is
    /// shared: `count` while the queue holds at least `count` games for each live job, else the
    /// queued games over the live jobs, rounded up. Without it the first worker to claim at the
    /// end of a round took a whole batch (a quarter of a second of play) while the others found
    /// nothing and waited. The queue is counted up to `count × SHARE_LOOKAHEAD` games only, so
    /// that the look stays cheap; with more live jobs than that, shares begin later.
    pub async fn fair_share(&self, count: i64) -> Result<i64, HostError> {
        let row = sqlx::query(&format!(
            "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM games WHERE state = 'queued' LIMIT $1) q), \
             ({})",
            self.live_jobs_sql()
        ))
        .bind(count.max(1).saturating_mul(SHARE_LOOKAHEAD))
        .fetch_one(&self.pool)
        .await
        .map_err(db)?;
        let queued: i64 = row.try_get(0).map_err(db)?;
        let jobs: i64 = row.try_get::<i64, _>(1).map_err(db)?.max(1);
        Ok(fair_share_of(count, queued, jobs))
    }
}

//! The contest server's scheduling: what each format queues (ladder games, KotH's pairs, the
//! qualifier's rounds and final), the standings of a kind of games, and the scheduler loop that
//! one host at a time runs under the `scheduler` lease.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::HostError;
use crate::config::Format;
use crate::formats;
use crate::host::{Host, SCHEDULER_LEASE, SCHEDULER_LEASE_MS};
use crate::ladder;
use crate::records::NewGame;

/// How often the scheduler looks for games whose lease ran out.
const REQUEUE_EVERY: Duration = Duration::from_secs(1);

/// How often the scheduler counts the live workers' jobs.
const LIVE_JOBS_EVERY: Duration = Duration::from_secs(1);

/// The ladder's queue is kept at most this many times `queue_per_worker` games per job deep,
/// however fast the workers take them (see `Host::schedule_ladder`).
const LADDER_QUEUE_CAP: i64 = 8;

impl Host {
    /// Schedules what the format schedules by itself: ladder games (see [`Host::schedule_ladder`]),
    /// the KotH games the field lacks; nothing for the qualifier (the organiser runs its rounds).
    pub async fn schedule(&self) -> Result<usize, HostError> {
        match self.contest.format {
            Format::Ladder => self.schedule_ladder().await,
            Format::Koth => self.schedule_koth().await,
            Format::Qualifier => Ok(0),
        }
    }

    fn variant(&self) -> Option<String> {
        self.contest.leagues.first().and_then(|l| l.variant.clone())
    }

    async fn queue(&self, games: Vec<NewGame>) -> Result<usize, HostError> {
        let count = games.len();
        self.store.schedule_all(&games, self.contest.seed).await?;
        if count > 0 {
            self.queued.notify_waiters();
        }
        Ok(count)
    }

    /// KotH: every ordered pair of the current submissions in every round, as soon as a
    /// submission arrives (games of replaced submissions stop counting in the standings).
    async fn schedule_koth(&self) -> Result<usize, HostError> {
        let active: Vec<i64> = self.store.players().await?.iter().map(|s| s.id).collect();
        // Every game of the same players is queued already: the scheduler looks every second,
        // and reading every game of a long KotH each time cost the host a large part of a core.
        if self
            .koth_scheduled_for
            .lock()
            .is_ok_and(|last| last.as_deref() == Some(active.as_slice()))
        {
            return Ok(0);
        }
        let existing = self.store.games_of_kind("koth").await?;
        let games = formats::koth_missing(&active, &existing, self.contest.koth.rounds)
            .into_iter()
            .map(|(seats, round)| NewGame {
                kind: "koth".into(),
                league: 0,
                variant: self.variant(),
                seats,
                round,
            })
            .collect();
        let queued = self.queue(games).await?;
        if let Ok(mut last) = self.koth_scheduled_for.lock() {
            *last = Some(active);
        }
        Ok(queued)
    }

    /// Qualifier: `rounds` more rounds of random groups of the current submissions.
    pub async fn run_qualifier(&self, rounds: u32) -> Result<usize, HostError> {
        if self.contest.format != Format::Qualifier {
            return Err(HostError::Refused("this contest is not a qualifier".into()));
        }
        let players: Vec<i64> = self.store.players().await?.iter().map(|s| s.id).collect();
        let done_rounds = self
            .store
            .games_of_kind("qualifier")
            .await?
            .iter()
            .map(|(_, round)| round + 1)
            .max()
            .unwrap_or(0);
        let mut games = Vec::new();
        for round in done_rounds..done_rounds + i64::from(rounds) {
            // Each round's draw is its own generator, from the contest's seed and the round.
            let mut rng = rand_pcg::Pcg64::new(
                u128::from(self.contest.seed) << 64 | round as u128,
                0x5175_616c_6966_6965_7200_0000_0000_0001,
            );
            let Some(groups) = formats::qualifier_round(&players, self.game.players(), &mut rng)
            else {
                return Err(HostError::Refused(format!(
                    "a qualifier round needs at least {} submissions (there are {})",
                    self.game.players(),
                    players.len()
                )));
            };
            games.extend(groups.into_iter().map(|seats| NewGame {
                kind: "qualifier".into(),
                league: 0,
                variant: self.variant(),
                seats,
                round,
            }));
        }
        self.queue(games).await
    }

    /// Qualifier: the final of the top `final_top` by Elo, every group of them in every seat
    /// order, `final_seeds` times. Refused while qualifier games are still queued or running.
    pub async fn run_final(&self) -> Result<usize, HostError> {
        if self.contest.format != Format::Qualifier {
            return Err(HostError::Refused("this contest is not a qualifier".into()));
        }
        if self.store.count_unfinished().await? > 0 {
            return Err(HostError::Refused(
                "qualifier games are still being played: run the final once they are done".into(),
            ));
        }
        if !self.store.games_of_kind("final").await?.is_empty() {
            return Err(HostError::Refused("the final has been run already".into()));
        }
        let standings = self.standings("qualifier").await?;
        let top: Vec<i64> = standings
            .iter()
            .take(self.contest.qualifier.final_top as usize)
            .map(|(id, _)| *id)
            .collect();
        let mut games = Vec::new();
        for seed in 0..i64::from(self.contest.qualifier.final_seeds) {
            games.extend(
                formats::final_games(&top, self.game.players())
                    .into_iter()
                    .map(|seats| NewGame {
                        kind: "final".into(),
                        league: 0,
                        variant: self.variant(),
                        seats,
                        round: seed,
                    }),
            );
        }
        if games.is_empty() {
            return Err(HostError::Refused(format!(
                "the final needs {} rated submissions",
                self.game.players()
            )));
        }
        self.queue(games).await
    }

    /// Standings of the games of one kind, best first: Elo for `qualifier`, points for `final`
    /// and `koth` (KotH counts only games between current submissions).
    pub async fn standings(&self, kind: &str) -> Result<Vec<(i64, formats::Standing)>, HostError> {
        let finished = self.store.finished_of_kind(kind).await?;
        let parse = |entry: &str| -> Result<serde_json::Value, HostError> {
            serde_json::from_str(entry).map_err(|e| HostError::Database(format!("a result: {e}")))
        };
        let table = if kind == "qualifier" {
            let mut games = Vec::new();
            for (seats, entry) in &finished {
                let winner = parse(entry)?["winner"].as_u64().map(|w| w as usize);
                games.push((seats.clone(), winner));
            }
            formats::elo_standings(&games)
        } else {
            let mut games = Vec::new();
            for (seats, entry) in &finished {
                let entry = parse(entry)?;
                let ranks: Vec<u32> = if kind == "koth" {
                    // KotH: 1 point per win, none for a game without a winner (as the original).
                    let winner = entry["winner"].as_u64().map(|w| w as usize);
                    (0..seats.len())
                        .map(|seat| if winner == Some(seat) { 1 } else { 2 })
                        .collect()
                } else {
                    entry["ranks"]
                        .as_array()
                        .map(|r| {
                            r.iter()
                                .filter_map(|x| x.as_u64())
                                .map(|x| x as u32)
                                .collect()
                        })
                        .unwrap_or_default()
                };
                games.push((seats.clone(), ranks));
            }
            let field: Option<std::collections::HashSet<i64>> = if kind == "koth" {
                Some(self.store.players().await?.iter().map(|s| s.id).collect())
            } else {
                None
            };
            formats::point_standings(&games, field.as_ref())
        };
        let mut rows: Vec<(i64, formats::Standing)> = table.into_iter().collect();
        rows.sort_by(|a, b| b.1.value.total_cmp(&a.1.value).then(a.0.cmp(&b.0)));
        Ok(rows)
    }

    /// Fills the queue with ladder games, once it holds `queue_per_worker` queued games per live
    /// job or fewer (or twice what the workers took since the last turn, when that is more), to
    /// twice that (or until nobody needs a game). Returns how many were queued.
    ///
    /// The games are drawn together from one read of the players and of their pending games
    /// (each drawn game counted pending for the next draw) and queued in one transaction: the
    /// same games, ids and seeds as drawing and queuing them one by one when nothing ends
    /// meanwhile. One by one, each game cost six statements and a transaction, and the workers
    /// of short games found the queue empty while the scheduler refilled it.
    pub async fn schedule_ladder(&self) -> Result<usize, HostError> {
        let jobs = self.jobs_everywhere().await?;
        // At least `queue_per_worker` games queued per job, refilled to twice that: a refill (six
        // statements) then serves several games, and the workers' claims between two turns do
        // not empty the queue. Games queued only, not running: a game a worker has played but not
        // yet recorded still counts as running, and each worker claims its next game before it
        // records the last, so that counting them left about one game queued per worker at best,
        // and none for a moment after every claim.
        let per_jobs = jobs * i64::from(self.contest.ladder.queue_per_worker.max(1));
        // Scrimmages waiting are not counted: the workers take half their claims from them and
        // half from the rest, and a backlog of them must not leave the ladder's half empty.
        let waiting = self.store.count_queued_unasked().await?;
        // And at least twice what the workers took since the last turn: turns follow the games'
        // recordings, which workers gather for a moment (`RECORD_GATHER`), and a queue of a few
        // games per job ran dry between two turns at a quarter of the looks when games last
        // milliseconds. Capped, so that a burst of claims does not queue far ahead.
        let left = self.ladder_queue_left.lock().ok().and_then(|left| *left);
        let taken = left.map_or(0, |left| (left - waiting).max(0));
        let low = per_jobs.max((2 * taken).min(LADDER_QUEUE_CAP * per_jobs));
        let remember = |left: i64| {
            if let Ok(mut seen) = self.ladder_queue_left.lock() {
                *seen = Some(left);
            }
        };
        if waiting > low {
            remember(waiting);
            return Ok(0);
        }
        let depth = 2 * low;
        let variants: Vec<Option<String>> = self
            .contest
            .leagues
            .iter()
            .map(|l| l.variant.clone())
            .collect();
        let players = self.store.players().await?;
        let mut pending = self.store.pending_per_submission().await?;
        let scheduled = self.store.counter("game").await?;
        let games = ladder::next_games(
            &players,
            &mut pending,
            &self.contest.ladder,
            self.game.players(),
            &variants,
            (depth - waiting) as usize,
            |drawn| {
                // One generator per decision, seeded by the contest's seed and the number of
                // games scheduled before it: a restarted host draws what the first would have.
                rand_pcg::Pcg64::new(
                    u128::from(self.contest.seed) << 64 | (scheduled + drawn as i64) as u128,
                    0xa02b_dbf7_bb3c_0a7a_c28f_a16a_64ab_f96d,
                )
            },
        );
        let queued = self.queue(games).await?;
        remember(waiting + queued as i64);
        Ok(queued)
    }

    /// Jobs of the workers of every machine: this host's own, or those of the live workers the
    /// database knows, looked up at most once a second (the scheduler's turns follow every game
    /// that ends).
    async fn jobs_everywhere(&self) -> Result<i64, HostError> {
        let seen = self.live_jobs_seen.lock().ok().and_then(|seen| *seen);
        let live = match seen {
            Some((at, jobs)) if at.elapsed() < LIVE_JOBS_EVERY => jobs,
            _ => {
                let jobs = self.store.live_jobs().await?;
                if let Ok(mut seen) = self.live_jobs_seen.lock() {
                    *seen = Some((Instant::now(), jobs));
                }
                jobs
            }
        };
        Ok(live.max(self.workers() as i64).max(1))
    }

    /// The scheduler: fills the queue whenever something changed, until [`Host::stop`]. When
    /// several hosts serve one database, only the holder of the `scheduler` lease schedules (and
    /// requeues games whose lease ran out); the others take over when it stops renewing.
    pub async fn run_scheduler(self: Arc<Self>) -> Result<(), HostError> {
        self.listen(&tokio::runtime::Handle::current());
        // A turn follows every game that ends: with games of a few milliseconds, renewing the
        // lease and looking for lost games at each one cost the database more than the games'
        // own statements. The lease is renewed once a third of it has passed since it was last
        // taken (timed from before the statement: the database's end of it is later still), lost
        // games looked for once a second (every worker's heartbeat looks too).
        let mut lease_taken: Option<Instant> = None;
        let mut requeued_at: Option<Instant> = None;
        while !self.stopping() {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let turn = async {
                let renew = lease_taken.is_none_or(|taken| {
                    taken.elapsed() >= Duration::from_millis(SCHEDULER_LEASE_MS as u64 / 3)
                });
                if renew {
                    let asked = Instant::now();
                    lease_taken = None;
                    if self
                        .store
                        .try_lease(SCHEDULER_LEASE, &self.worker_id, SCHEDULER_LEASE_MS)
                        .await?
                    {
                        lease_taken = Some(asked);
                    }
                }
                if lease_taken.is_some() {
                    if requeued_at.is_none_or(|at| at.elapsed() >= REQUEUE_EVERY) {
                        self.store.requeue_expired().await?;
                        requeued_at = Some(Instant::now());
                    }
                    self.schedule().await?;
                }
                Ok::<_, HostError>(())
            };
            if let Err(error) = turn.await {
                // The database may be back in a moment: say it and look again.
                self.note_error(&error);
            }
            // A periodic look as well: a notification sent between two looks is not lost.
            let _ = tokio::time::timeout(Duration::from_secs(1), changed).await;
        }
        let _ = self
            .store
            .release_lease(SCHEDULER_LEASE, &self.worker_id)
            .await;
        Ok(())
    }
}

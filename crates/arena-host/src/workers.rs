//! The contest server's workers: threads that claim games (built-in bots' games by the batch),
//! play them in the sandbox and record them, a heartbeat task that keeps their claims, and the
//! task that turns other processes' notices into wake-ups.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use arena_core::registry::GameRequest;
use arena_submit::resolve::ResolvedBot;

use crate::HostError;
use crate::host::{Host, WorkerCounts, gzip, machine_name};
use crate::store::{Claimed, Finished, Notice, WorkerInfo};
use arena_core::runner::RulesOptions as _;

/// Whether every seat of a game is a built-in bot (deterministic from its seed: no replay kept).
pub(crate) fn all_builtin(game: &Claimed) -> bool {
    game.seats.iter().all(|seat| seat.kind == "builtin")
}

/// How long a batch of built-in bots' games should play: long enough that its claim and its
/// completion (a few milliseconds each) cost a few percent of it, short enough that a worker
/// killed in the middle loses little.
const BATCH_PLAY: Duration = Duration::from_millis(250);

/// The most games claimed at once.
const MAX_BATCH: i64 = 4096;

/// Batches of played games a worker's recorder may be behind before the worker waits for it.
const RECORDER_BACKLOG: usize = 16;

/// How long a worker's recorder gathers games of process bots before it records them, in one
/// transaction: a completion costs the database about as much as a whole game of trivial process
/// bots (a dozen statements, a commit that waits for the disk), so that recording games of a few
/// milliseconds one by one left a ladder on PostgreSQL at two thirds of `arena tournament`'s rate
/// (issue 29). A result reaches the leaderboard this much later at most; a game longer than this
/// is recorded alone, as soon as it ends.
const RECORD_GATHER: Duration = Duration::from_millis(50);

/// The most games of process bots claimed ahead at once (see `RECORD_GATHER`).
const MAX_AHEAD: i64 = 8;

/// Batches from this size on are cut to a fair share of the queue's tail
/// ([`crate::store::Store::fair_share`]); smaller ones play too briefly to be worth the look.
const FAIR_SHARE_FROM: i64 = 64;

/// How long a batch of claimed games may play: [`BATCH_PLAY`], and a quarter of the lease at most.
fn batch_play(lease_ms: i64) -> Duration {
    BATCH_PLAY.min(Duration::from_millis((lease_ms / 4).max(1) as u64))
}

/// The next batch size after `played` games took `took`: sized to play for [`BATCH_PLAY`] (and a
/// quarter of the lease at most) at the rate just seen, changing by at most 4× at a time.
fn next_batch(batch: i64, played: usize, took: Duration, lease_ms: i64) -> i64 {
    let target = batch_play(lease_ms);
    let per_game = took.as_secs_f64() / played.max(1) as f64;
    let fitting = if per_game > 0.0 {
        (target.as_secs_f64() / per_game) as i64
    } else {
        MAX_BATCH
    };
    // A short batch (the queue ran dry) says nothing about what a full one would take.
    let lower = if (played as i64) < batch {
        1
    } else {
        batch / 4
    };
    fitting.clamp(lower.max(1), (batch * 4).min(MAX_BATCH))
}

/// Why a claimed game was not played.
#[derive(Debug)]
pub(crate) enum NotPlayed {
    /// The game itself could not be played: it is kept failed, with the reason.
    Failed(String),
    /// This worker could not prepare a seat's submission (fetch, unpack or build): the game goes
    /// back to the queue for another worker (failed after [`PREPARE_ATTEMPTS`] tries).
    Unprepared(String),
}

impl From<String> for NotPlayed {
    fn from(reason: String) -> Self {
        NotPlayed::Failed(reason)
    }
}

/// A game that could not be set up (its rules, seats or folders) is failed with the reason.
impl From<arena_core::registry::PlayError> for NotPlayed {
    fn from(error: arena_core::registry::PlayError) -> Self {
        NotPlayed::Failed(error.to_string())
    }
}

impl std::fmt::Display for NotPlayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotPlayed::Failed(reason) | NotPlayed::Unprepared(reason) => f.write_str(reason),
        }
    }
}

/// Claims of a game whose submission a worker could not prepare, before the game is failed: a
/// submission no worker can build must not go round forever.
const PREPARE_ATTEMPTS: i64 = 3;

/// The sandboxes one worker thread keeps between its games, as each job of `arena tournament`
/// keeps them: a bot's next game starts with a fork and an exec in the sandbox of its last one,
/// emptied, instead of a new sandbox (bwrap, namespaces, cgroups: milliseconds of CPU per bot and
/// game, which a worker paid for every seat of every game). Made on the worker's thread, used and
/// dropped there only: sandboxes die with the thread that set them up.
#[derive(Default)]
pub(crate) struct KeptSandboxes {
    pool: Option<Arc<arena_core::sandbox::SandboxPool>>,
}

impl KeptSandboxes {
    /// The pool for games in `sandbox` (made again when the host made its sandbox again: a build
    /// found a toolchain the old one does not show); `None` without a sandbox or without a
    /// resident helper in it.
    fn for_sandbox(
        &mut self,
        sandbox: Option<&Arc<arena_core::sandbox::Sandbox>>,
        seats: usize,
    ) -> Option<&Arc<arena_core::sandbox::SandboxPool>> {
        let sandbox = sandbox?;
        if !self
            .pool
            .as_ref()
            .is_some_and(|pool| Arc::ptr_eq(pool.sandbox(), sandbox))
        {
            self.pool = arena_core::sandbox::SandboxPool::for_worker(Arc::clone(sandbox), seats);
        }
        self.pool.as_ref()
    }
}

impl Host {
    /// A database call from a worker thread, bounded in time: a link cut in the middle of a query
    /// would otherwise hang it for as long as TCP retries.
    fn db_call<T>(
        &self,
        handle: &tokio::runtime::Handle,
        call: impl std::future::Future<Output = Result<T, HostError>>,
    ) -> Result<T, HostError> {
        let limit = Duration::from_millis((self.lease_ms / 2).max(5000) as u64);
        handle.block_on(async {
            tokio::time::timeout(limit, call).await.unwrap_or_else(|_| {
                Err(HostError::Database(format!(
                    "no answer from the database within {} s: is it reachable from this machine, \
                     or are its statements this slow (its log names those over \
                     log_min_duration_statement)?",
                    limit.as_secs()
                )))
            })
        })
    }

    /// This process's workers leave the games of `submission` to other workers for a lease.
    fn leave_to_others(&self, submission: i64) {
        if let Ok(mut unprepared) = self.unprepared.lock() {
            let until = std::time::Instant::now() + Duration::from_millis(self.lease_ms as u64);
            unprepared.insert(submission, until);
        }
    }

    /// Submissions whose games this process's workers do not claim now.
    fn left_to_others(&self) -> Vec<i64> {
        let now = std::time::Instant::now();
        self.unprepared.lock().map_or_else(
            |_| Vec::new(),
            |mut unprepared| {
                unprepared.retain(|_, until| *until > now);
                unprepared.keys().copied().collect()
            },
        )
    }

    fn hold(&self, game: i64, held: bool) {
        if let Ok(mut games) = self.held.lock() {
            if held {
                games.insert(game);
            } else {
                games.remove(&game);
            }
        }
    }

    /// Registers this process as a worker and renews the leases of the games its workers hold
    /// every third of the lease, until its last worker thread ends (then it is marked stopped);
    /// `draining` once asked to stop. Errors are noted and retried.
    async fn heartbeats(self: Arc<Self>) {
        let period = Duration::from_millis((self.lease_ms / 3).max(1) as u64);
        let limit = Duration::from_millis((self.lease_ms / 2).max(5000) as u64);
        let mut draining = false;
        while self.workers_running() > 0 {
            let beat = async {
                self.register().await?;
                if self.stopping() && !draining {
                    self.store
                        .set_worker_state(&self.worker_id, "draining")
                        .await?;
                    draining = true;
                }
                let held: Vec<i64> = self
                    .held
                    .lock()
                    .map(|games| games.iter().copied().collect())
                    .unwrap_or_default();
                self.store
                    .heartbeat(&self.worker_id, self.lease_ms, &held)
                    .await?;
                // Every worker looks for lost games too: the queue does not depend on a host.
                self.store.requeue_expired().await?;
                Ok::<_, HostError>(())
            };
            match tokio::time::timeout(limit, beat).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => self.note_error(&error),
                Err(_) => self.note_error(&HostError::Database(
                    "a heartbeat got no answer from the database".into(),
                )),
            }
            // Wakes early when the workers stop, so that the state is written promptly.
            let deadline = tokio::time::Instant::now() + period;
            while tokio::time::Instant::now() < deadline && self.workers_running() > 0 {
                tokio::time::sleep(Duration::from_millis(50).min(period)).await;
            }
        }
        if self.registered.initialized() {
            let _ = tokio::time::timeout(
                limit,
                self.store.set_worker_state(&self.worker_id, "stopped"),
            )
            .await;
        }
    }

    /// Starts, once, the task that turns the contest's notices from other processes (PostgreSQL's
    /// NOTIFY) into this process's wake-ups: games queued wake its idle workers, games ended its
    /// scheduler. Without it a ladder of short games on `arena worker`s waited for the scheduler's
    /// second and the workers' idle looks (up to 2 s): its workers sat idle nine tenths of the
    /// time. The periodic looks remain, for notices lost while the connection was down.
    pub(crate) fn listen(self: &Arc<Self>, handle: &tokio::runtime::Handle) {
        if self.listening.swap(true, Ordering::SeqCst) {
            return;
        }
        let host = Arc::clone(self);
        // The task is never cancelled mid-receive (the listener's connection would lose its
        // place): it ends with the runtime.
        handle.spawn(async move {
            loop {
                let mut listener = match host.store.listener().await {
                    Ok(Some(listener)) => listener,
                    Ok(None) => return,
                    Err(error) => {
                        host.note_error(&error);
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                };
                loop {
                    match listener.next().await {
                        Ok(Notice::Queued) => host.queued.notify_waiters(),
                        Ok(Notice::Ended) => host.changed.notify_waiters(),
                        Err(error) => {
                            host.note_error(&error);
                            break;
                        }
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }

    /// Registers this process as a worker, once (the heartbeats and the workers' first claims all
    /// ask; the first does it, the others wait for it).
    async fn register(&self) -> Result<(), HostError> {
        let info = WorkerInfo {
            id: self.worker_id.clone(),
            machine: machine_name(),
            pid: i64::from(std::process::id()),
            languages: self.languages.clone(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()) as i64,
            jobs: self.jobs.load(Ordering::SeqCst) as i64,
            lease_ms: self.lease_ms,
        };
        self.registered
            .get_or_try_init(|| self.store.register_worker(&info))
            .await
            .map(|_| ())
    }

    /// Starts `count` worker threads; each claims, plays and completes games until [`Host::stop`]
    /// (or, with `until_idle`, until the queue is empty), and a heartbeat task that keeps their
    /// leases.
    pub fn spawn_workers(
        self: &Arc<Self>,
        count: usize,
        until_idle: bool,
    ) -> Vec<std::thread::JoinHandle<Result<WorkerCounts, HostError>>> {
        let handle = tokio::runtime::Handle::current();
        self.jobs.fetch_add(count, Ordering::SeqCst);
        if count > 0 {
            self.listen(&handle);
        }
        let threads = (0..count)
            .map(|index| {
                let host = Arc::clone(self);
                let handle = handle.clone();
                // A core of its own that no other job of this machine's arena processes holds (a
                // host's workers, each `arena worker`), kept while the worker runs; unpinned when
                // every core is taken.
                let lease = host
                    .pin_cpus
                    .then(|| arena_core::process::lease_cpu(index))
                    .flatten();
                // Counted here, before the thread starts, so that a watcher never sees it missing.
                host.workers_running.fetch_add(1, Ordering::SeqCst);
                std::thread::Builder::new()
                    .name(format!("arena-host-worker-{index}"))
                    .spawn(move || {
                        let cpu = lease.as_ref().map(|lease| lease.cpu);
                        host.worker(cpu, &handle, until_idle)
                    })
                    .expect("a thread for a worker")
            })
            .collect();
        if count > 0 {
            handle.spawn(Arc::clone(self).heartbeats());
        }
        threads
    }

    /// Worker threads running now.
    pub fn workers_running(&self) -> usize {
        self.workers_running.load(Ordering::SeqCst)
    }

    fn worker(
        &self,
        cpu: Option<usize>,
        handle: &tokio::runtime::Handle,
        until_idle: bool,
    ) -> Result<WorkerCounts, HostError> {
        /// Counts the worker out however it ends (an error, a panic, a stop).
        struct Running<'a>(&'a std::sync::atomic::AtomicUsize);
        impl Drop for Running<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let _running = Running(&self.workers_running);
        // Games run on a runtime of this thread alone, as `arena tournament`'s workers do: one
        // thread keeps a game's timing steady. The database stays on the host's runtime.
        let local = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| HostError::Io(format!("cannot start a worker's runtime: {e}")))?;
        // Played games are recorded on a thread of their own, behind, so that the worker plays
        // its next batch while the database records the last: with the database on other cores,
        // a worker of built-in games never waits for it. Up to RECORDER_BACKLOG batches wait
        // (recorded together): games of process bots shorter than their completion (a few ms
        // against a transaction that waits for the log's flush) would otherwise make the worker
        // wait for its recorder at every game.
        std::thread::scope(|scope| {
            let (to_recorder, played_batches) = std::sync::mpsc::sync_channel::<
                Vec<(Claimed, Result<Finished, NotPlayed>)>,
            >(RECORDER_BACKLOG);
            let recorder = scope.spawn(move || {
                let mut counts = WorkerCounts::default();
                while let Ok(mut played) = played_batches.recv() {
                    // Games played while the last ones were being recorded are recorded together,
                    // in one transaction: when games are shorter than their completion, the
                    // worker never waits for its recorder. Games of process bots are gathered
                    // for a moment more (built-in ones come in batches already).
                    let gather_until = (!played.iter().all(|(game, _)| all_builtin(game)))
                        .then(|| std::time::Instant::now() + RECORD_GATHER);
                    loop {
                        let more = match gather_until {
                            Some(until) => {
                                let left =
                                    until.saturating_duration_since(std::time::Instant::now());
                                played_batches.recv_timeout(left).ok()
                            }
                            None => played_batches.try_recv().ok(),
                        };
                        match more {
                            Some(more) => played.extend(more),
                            None => break,
                        }
                    }
                    self.record(handle, &played, &mut counts);
                    for (game, _) in &played {
                        self.hold(game.id, false);
                    }
                    self.changed.notify_waiters();
                }
                counts
            });
            let played = self.claim_and_play(scope, cpu, handle, &local, until_idle, &to_recorder);
            drop(to_recorder);
            let counts = recorder
                .join()
                .map_err(|_| HostError::Io("a worker's recorder thread panicked".into()))?;
            played.map(|()| counts)
        })
    }

    /// The worker's loop: claims games (built-in batches claimed ahead while the last batch
    /// plays), plays them, and hands them to the recorder, until a stop (or an empty queue with
    /// `until_idle`).
    fn claim_and_play<'scope>(
        &'scope self,
        scope: &'scope std::thread::Scope<'scope, '_>,
        cpu: Option<usize>,
        handle: &'scope tokio::runtime::Handle,
        local: &tokio::runtime::Runtime,
        until_idle: bool,
        to_recorder: &std::sync::mpsc::SyncSender<Vec<(Claimed, Result<Finished, NotPlayed>)>>,
    ) -> Result<(), HostError> {
        // An idle worker looks less and less often (up to every 2 s): a thousand idle workers
        // must not keep the database busy.
        let mut idle = Duration::from_millis(100);
        // The pause after a claim the database refused.
        let mut retry = Duration::from_millis(250);
        // Games claimed at once: games of built-in bots last a fraction of a millisecond, less
        // than a claim and a completion, so a worker whose games are that short claims (and
        // completes) them by the hundred (`next_batch`); one game at a time as soon as they take
        // long.
        let mut batch: i64 = 1;
        let claim_builtin = move |count: i64| {
            // At the end of a round every live job gets its share of what is left.
            let share = if count >= FAIR_SHARE_FROM {
                self.db_call(handle, self.store.fair_share(count))?
            } else {
                count
            };
            self.db_call(
                handle,
                self.store.claim_batch_excluding(
                    &self.worker_id,
                    Some(",builtin,"),
                    self.lease_ms,
                    share,
                    &[],
                ),
            )
        };
        // `count` games of any bots this worker plays.
        let claim_some = move |count: i64| {
            self.db_call(
                handle,
                self.store.claim_batch_excluding(
                    &self.worker_id,
                    Some(&self.languages),
                    self.lease_ms,
                    count,
                    &self.left_to_others(),
                ),
            )
        };
        // Games of process bots to claim while the current ones play: none while they are long
        // (see below), else as many as play in about `RECORD_GATHER`.
        let mut claim_ahead: i64 = 0;
        // The next batch of built-in games (or the next games of short process games), claimed
        // while the current one plays.
        let mut ahead: Option<
            std::thread::ScopedJoinHandle<'scope, Result<Vec<Claimed>, HostError>>,
        > = None;
        // This thread's sandboxes, kept between its games (dropped here, on it).
        let mut kept = KeptSandboxes::default();
        // Claimed games are played even when a drain begins: they are this worker's now.
        while !self.stopping() || ahead.is_some() {
            // Listening before the claim: games queued between an empty claim and the wait
            // would otherwise wake nobody, and the worker slept its whole idle look (up to 2 s)
            // with games in the queue.
            let queued = self.queued.notified();
            let mut queued = std::pin::pin!(queued);
            queued.as_mut().enable();
            let claimed_ahead = ahead.take().map(|claim| {
                claim.join().unwrap_or_else(|_| {
                    Err(HostError::Io("a worker's claim thread panicked".into()))
                })
            });
            let claimed = match claimed_ahead {
                Some(Ok(games)) if !games.is_empty() => Ok(games),
                Some(Err(error)) => Err(error),
                // A drain claims nothing more.
                _ if self.stopping() => break,
                // None claimed ahead: the queue may still hold games of process bots.
                _ => self.db_call(handle, self.register()).and_then(|()| {
                    // Batches are of built-in bots' games only: a game of process bots is long
                    // enough to claim alone, and a batch of them would be played one after
                    // another here while other workers wait.
                    let builtin = if batch > 1 {
                        claim_builtin(batch)
                    } else {
                        Ok(Vec::new())
                    };
                    match builtin {
                        Ok(games) if !games.is_empty() => Ok(games),
                        Ok(_) => claim_some(1),
                        Err(error) => Err(error),
                    }
                }),
            };
            let claimed = match claimed {
                Ok(claimed) => {
                    retry = Duration::from_millis(250);
                    claimed
                }
                Err(error) => {
                    // A full disk or a locked database: looked at again less and less often
                    // (up to every 4 s), and at once as usual when it answers again.
                    self.note_error(&error);
                    std::thread::sleep(retry);
                    retry = (retry * 2).min(Duration::from_secs(4));
                    continue;
                }
            };
            if claimed.is_empty() {
                if until_idle {
                    break;
                }
                let woken = handle.block_on(async { tokio::time::timeout(idle, queued).await });
                // Woken by games queued: the next look is soon again; a look in vain waits longer.
                idle = if woken.is_ok() {
                    Duration::from_millis(100)
                } else {
                    (idle * 2).min(Duration::from_secs(2))
                };
                continue;
            }
            idle = Duration::from_millis(100);
            for game in &claimed {
                self.hold(game.id, true);
            }
            let builtin_only = claimed.iter().all(all_builtin);
            if builtin_only && batch > 1 && !self.stopping() {
                let count = batch;
                ahead = Some(scope.spawn(move || claim_builtin(count)));
            } else if !builtin_only && claim_ahead > 0 && !self.stopping() {
                // Games of process bots of a few milliseconds (trivial bots, a ladder's low
                // leagues): the claim (a millisecond or so on PostgreSQL) is taken off the path
                // between two games, and made for as many games as play in `RECORD_GATHER` (a
                // claim costs the database as much as a few such games). Only when games are
                // short: games claimed ahead wait for the current ones, and a long wait would
                // keep them from an idle worker. Held at once, so that their leases are renewed
                // while they wait.
                let count = claim_ahead;
                ahead = Some(scope.spawn(move || {
                    let games = claim_some(count)?;
                    for game in &games {
                        self.hold(game.id, true);
                    }
                    Ok(games)
                }));
            }
            let started = std::time::Instant::now();
            let played: Vec<(Claimed, Result<Finished, NotPlayed>)> = claimed
                .into_iter()
                .map(|game| {
                    // Games of built-in bots keep no replay: they are played again, exactly,
                    // when watched (as `arena tournament` does), and recording costs them more
                    // than playing.
                    let record = !all_builtin(&game);
                    let outcome = self.play(&game, cpu, handle, local, record, &mut kept);
                    (game, outcome)
                })
                .collect();
            let took = started.elapsed();
            if builtin_only {
                batch = next_batch(batch, played.len(), took, self.lease_ms);
            } else {
                let each = took / played.len().max(1) as u32;
                claim_ahead = if each < batch_play(self.lease_ms) {
                    (RECORD_GATHER.as_secs_f64() / each.as_secs_f64().max(1e-4))
                        .clamp(1.0, MAX_AHEAD as f64) as i64
                } else {
                    0
                };
            }
            if to_recorder.send(played).is_err() {
                return Err(HostError::Io("a worker's recorder thread stopped".into()));
            }
        }
        Ok(())
    }

    /// Records played games: the finished ones completed in one transaction, the failed ones one
    /// by one. Database errors are retried as long as the claims may still be this worker's;
    /// through an outage longer than that, other workers have the games (or will) and record
    /// them.
    fn record(
        &self,
        handle: &tokio::runtime::Handle,
        played: &[(Claimed, Result<Finished, NotPlayed>)],
        counts: &mut WorkerCounts,
    ) {
        let give_up =
            std::time::Instant::now() + Duration::from_millis(3 * self.lease_ms.max(1000) as u64);
        let finished: Vec<(&Claimed, &Finished)> = played
            .iter()
            .filter_map(|(game, outcome)| outcome.as_ref().ok().map(|f| (game, f)))
            .collect();
        while !finished.is_empty() {
            match self.db_call(handle, self.store.complete_many(&finished, &self.promotion)) {
                Ok(done) => {
                    for recorded in done {
                        if recorded {
                            counts.completed += 1;
                        } else {
                            counts.lost += 1;
                        }
                    }
                    break;
                }
                Err(error) => {
                    self.note_error(&error);
                    if std::time::Instant::now() >= give_up {
                        counts.lost += finished.len() as u64;
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(500));
                }
            }
        }
        for (game, outcome) in played {
            let Err(not_played) = outcome else { continue };
            loop {
                let done = match not_played {
                    NotPlayed::Failed(reason) => self
                        .db_call(handle, self.store.fail(game, reason))
                        .map(|failed| (failed, &mut counts.failed)),
                    NotPlayed::Unprepared(reason) => self
                        .db_call(handle, self.store.release(game, reason, PREPARE_ATTEMPTS))
                        .map(|released| (released, &mut counts.released)),
                };
                match done {
                    Ok((true, count)) => *count += 1,
                    Ok((false, _)) => counts.lost += 1,
                    Err(error) => {
                        self.note_error(&error);
                        if std::time::Instant::now() < give_up {
                            std::thread::sleep(Duration::from_millis(500));
                            continue;
                        }
                        counts.lost += 1;
                    }
                }
                break;
            }
        }
    }

    /// Plays one claimed game: every seat resolved as `--bot` resolves it (a built-in bot in
    /// process, an upload as its built folder run by its launcher), in the sandbox: in sandboxes
    /// of `kept` when the game's bots can use them, as `arena tournament` plays. Call it on one
    /// long-lived thread per `kept`.
    pub(crate) fn play(
        &self,
        claimed: &Claimed,
        cpu: Option<usize>,
        handle: &tokio::runtime::Handle,
        local: &tokio::runtime::Runtime,
        record: bool,
        kept: &mut KeptSandboxes,
    ) -> Result<Finished, NotPlayed> {
        // Built-in bots that do not search, and no replay wanted: the game alone, as `arena
        // tournament` plays them (no agents, no runtime, nothing to time). The full path gives the
        // same outcome (the rebuilt replays show it).
        let untimed: Option<Vec<String>> = claimed
            .seats
            .iter()
            .map(|seat| {
                (seat.kind == "builtin" && !self.game.builtin_thinks(&seat.source_name))
                    .then(|| seat.source_name.clone())
            })
            .collect();
        if let (Some(bots), false) = (untimed, record) {
            let outcome =
                self.game
                    .play_builtin(claimed.variant.as_deref(), &bots, claimed.seed)?;
            let names = claimed.seats.iter().map(|seat| seat.user.clone()).collect();
            let faults = vec![Vec::new(); claimed.seats.len()];
            return Ok(self.finish(claimed, names, outcome, faults, Vec::new(), None)?);
        }
        let mut seats = Vec::new();
        for submission in &claimed.seats {
            let bot = if submission.kind == "builtin" {
                ResolvedBot::builtin(&submission.user, &submission.source_name)
            } else {
                self.prepared_bot(submission, handle).map_err(|reason| {
                    self.leave_to_others(submission.id);
                    NotPlayed::Unprepared(format!(
                        "worker {} could not prepare submission {}: {reason}",
                        self.worker_id, submission.id
                    ))
                })?
            };
            seats.push(bot.seat);
        }
        let sandbox = self.current_sandbox()?;
        let pool = kept.for_sandbox(sandbox.as_ref(), self.game.players());
        let request = GameRequest {
            variant: claimed.variant.clone(),
            seed: claimed.seed,
            seats,
            options: self.run_rules().match_options(record, cpu, sandbox),
            stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
            prepared: Default::default(),
        };
        let ready = arena_core::registry::ready_game(self.game.as_ref(), request, pool)?;
        let result = local.block_on(arena_core::registry::play_ready(self.game.as_ref(), ready))?;
        let faults = result
            .faults
            .iter()
            .map(|faults| faults.iter().map(|f| f.kind).collect())
            .collect();
        let record = record.then_some(&result.record);
        Ok(self.finish(
            claimed,
            result.names.clone(),
            result.outcome.clone(),
            faults,
            result.timing.clone(),
            record,
        )?)
    }

    /// A played game as the database keeps it: its journal line and, when recorded, its replay.
    fn finish(
        &self,
        claimed: &Claimed,
        names: Vec<String>,
        outcome: arena_core::Outcome,
        faults: Vec<Vec<arena_core::FaultKind>>,
        timing: Vec<Option<arena_core::SeatTiming>>,
        record: Option<&arena_core::RecordJson>,
    ) -> Result<Finished, String> {
        let entry = arena_tournament::Entry {
            index: claimed.id as u64,
            game: self.game.id().to_string(),
            variant: claimed.variant.clone(),
            seed: claimed.seed,
            pair: claimed.id as u64,
            seats: claimed.seats.iter().map(|s| s.id as usize).collect(),
            bots: names,
            score_values: outcome.scores.iter().map(|s| s.to_f64()).collect(),
            scores: outcome.scores,
            ranks: outcome.ranks.clone(),
            winner: outcome.winner,
            faults,
            timing,
            replay: None,
        };
        let entry =
            serde_json::to_string(&entry).map_err(|e| format!("cannot encode the result: {e}"))?;
        let replay = match record {
            Some(record) => {
                let json = record
                    .to_json()
                    .map_err(|e| format!("cannot encode the replay: {e}"))?;
                Some(gzip(&json).map_err(|e| format!("cannot compress the replay: {e}"))?)
            }
            None => None,
        };
        Ok(Finished {
            entry,
            ranks: outcome.ranks,
            replay,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_BATCH, next_batch};
    use std::time::Duration;

    const LEASE_MS: i64 = 30_000;

    #[test]
    fn batches_grow_and_shrink_at_most_fourfold_toward_a_quarter_second() {
        // 0.1 ms games: 2 500 fit in 250 ms, reached in 4× steps from 1.
        let mut batch = 1;
        let mut sizes = Vec::new();
        while sizes.last() != Some(&batch) {
            sizes.push(batch);
            let took = Duration::from_micros(100) * batch as u32;
            batch = next_batch(batch, batch as usize, took, LEASE_MS);
        }
        assert_eq!(sizes, vec![1, 4, 16, 64, 256, 1024, 2500]);
        // Games that suddenly take 10 ms: a quarter at a time, down to the 25 that fit.
        let took = Duration::from_millis(10) * 2500;
        assert_eq!(next_batch(2500, 2500, took, LEASE_MS), 625);
        assert_eq!(
            next_batch(625, 625, Duration::from_millis(10) * 625, LEASE_MS),
            156
        );
        // Games of seconds: one at a time.
        assert_eq!(next_batch(2, 2, Duration::from_secs(4), LEASE_MS), 1);
    }

    #[test]
    fn batches_stay_under_the_cap_and_a_quarter_of_the_lease() {
        assert_eq!(
            next_batch(MAX_BATCH, MAX_BATCH as usize, Duration::ZERO, LEASE_MS),
            MAX_BATCH
        );
        // A 400 ms lease: 100 ms of play a batch, not 250.
        assert_eq!(
            next_batch(1000, 1000, Duration::from_millis(100), 400),
            1000
        );
        // A batch cut short by an empty queue may shrink to anything.
        assert_eq!(next_batch(1000, 3, Duration::from_secs(3), LEASE_MS), 1);
    }
}

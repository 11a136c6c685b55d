//! Running a plan: a pool of worker threads, one game at a time each, each with a replay writer thread
//! (serialising and compressing off the game's path), results appended to the journal by the calling
//! thread once their replays are on disk.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use arena_core::registry::{self, GameEntry, GameRequest, PlayerSpec, SeatRequest};
use arena_core::{Outcome, RecordJson};
use flate2::{Compress, Compression, Crc, FlushCompress, Status};

use crate::TournamentError;
use crate::folder::TournamentFolder;
use crate::session::{Progress, SessionEvent, SessionObserver};
// Its old path (`run::REPLAY_DIR`), which other crates use.
pub use crate::folder::REPLAY_DIR;
use crate::journal::{Done, Entry, EntryRef, SeatNames};
use crate::schedule::PlanSchedule as _;
use crate::schedule::{Plan, ScheduledGame};
use arena_core::runner::RulesOptions as _;

/// Games of built-in bots finish in microseconds: their lines are sent in batches (a lost batch is
/// replayed identically on resume). Process games are sent one by one.
const BATCH_GAMES: usize = 256;
const BATCH_AGE: Duration = Duration::from_millis(100);

/// Indices a worker claims at a time for games of built-in bots.
const BUILTIN_CLAIM: u64 = 64;

pub struct RunOptions<'a> {
    pub jobs: usize,
    /// Pin each worker's bot processes to one CPU (worker `w` to CPU `w mod cpus`): two thinking bots
    /// of parallel games then never share a core. Ignored with one worker: there are no parallel games,
    /// and a pin would only make a game's bots start up one after the other on one core.
    pub pin_cpus: bool,
    /// Set (by a signal handler) to stop: no new games start, games in progress are abandoned (their
    /// bots killed) and not journaled.
    pub stop: &'a AtomicBool,
    /// Those who watch the session's events (progress bar, SPRT), each told every event in
    /// turn.
    pub observers: Vec<&'a mut dyn SessionObserver>,
    /// The sandbox process bots start in (`None`: unconfined).
    pub sandbox: Option<std::sync::Arc<arena_core::sandbox::Sandbox>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    pub total: u64,
    pub done: u64,
    pub played: u64,
    /// Stopped by the stop flag before the schedule was complete.
    pub interrupted: bool,
    /// Stopped by the stop rule.
    pub decided: bool,
}

#[derive(Default)]
struct Batch {
    lines: Vec<u8>,
    entries: Vec<Entry>,
    /// Replays to write before `lines` may be journaled.
    replays: Vec<PendingReplay>,
    error: Option<String>,
}

/// A replay not yet on disk, and where its game starts in the batch (to drop the game if it fails).
struct PendingReplay {
    relative: String,
    record: RecordJson,
    line_start: usize,
    entry_start: usize,
}

/// Plays every scheduled game that is not in the journal yet.
pub fn run(
    entry: &dyn GameEntry,
    dir: &Path,
    plan: &Plan,
    mut options: RunOptions<'_>,
) -> Result<RunOutcome, TournamentError> {
    let total = plan.total_games();
    let (mut folder, done) = TournamentFolder::open(dir, plan)?;
    if options.observers.iter().any(|observer| observer.decided()) {
        return Ok(RunOutcome {
            total,
            done: done.count(),
            played: 0,
            interrupted: false,
            decided: true,
        });
    }
    // Games of process bots and of built-ins that search keep their replays (see stores_replay).
    let stores_replays = plan.settings.replays
        && (plan.settings.builtin_replays
            || plan
                .bots
                .iter()
                .any(|b| b.builtin().is_none_or(|name| entry.builtin_thinks(name))));
    if stores_replays {
        folder.replay_dir()?;
    }
    let jobs = options.jobs.max(1);
    let cursor = AtomicU64::new(0);
    let kept = plan
        .settings
        .kept_folders
        .then(|| KeptClaims::new(plan, &done));
    let decided = AtomicBool::new(false);
    let mut count = done.count();
    let mut played = 0u64;
    let mut failure: Option<String> = None;
    let stops = options.observers.iter().any(|observer| observer.stops());
    let wants_entries = stops
        || options
            .observers
            .iter()
            .any(|observer| observer.wants_entries());
    std::thread::scope(|scope| -> Result<(), TournamentError> {
        let (sender, receiver) = mpsc::sync_channel::<Batch>(jobs * 4);
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        for worker_index in 0..jobs {
            let mut sender = sender.clone();
            if stores_replays {
                // A couple of batches in flight: the worker plays on while its last game is written.
                let (to_writer, from_worker) = mpsc::sync_channel::<Batch>(2);
                let journal = std::mem::replace(&mut sender, to_writer);
                scope.spawn(move || write_replays(dir, from_worker, journal));
            }
            let worker = Worker {
                entry,
                plan,
                done: &done,
                cursor: &cursor,
                kept: kept.as_ref(),
                stop: options.stop,
                decided: &decided,
                wants_entries,
                stops,
                cpu: (options.pin_cpus && jobs > 1).then_some(worker_index % cpus),
                sandbox: options.sandbox.clone(),
                names: plan.bots.iter().map(|b| b.name.clone()).collect(),
            };
            scope.spawn(move || worker.run(sender));
        }
        drop(sender);
        for batch in receiver {
            if !batch.lines.is_empty() {
                folder.append_lines(&batch.lines)?;
            }
            let finished = batch.lines.iter().filter(|&&b| b == b'\n').count() as u64;
            count += finished;
            played += finished;
            let event = SessionEvent::Journaled {
                entries: &batch.entries,
                progress: Progress {
                    done: count,
                    total,
                    played,
                },
            };
            let stop = tell(&mut options.observers, &event);
            if let Some(error) = batch.error {
                failure.get_or_insert(error);
                decided.store(true, Ordering::SeqCst);
            }
            if stop && !decided.swap(true, Ordering::SeqCst) {
                tell(&mut options.observers, &SessionEvent::Decided);
            }
        }
        folder.flush()
    })?;
    if let Some(error) = failure {
        return Err(TournamentError::Game(error));
    }
    let decided = decided.load(Ordering::SeqCst);
    Ok(RunOutcome {
        total,
        done: count,
        played,
        interrupted: count < total && !decided,
        decided,
    })
}

/// Tells every observer `event`; whether one of them decided to stop.
fn tell(observers: &mut [&mut dyn SessionObserver], event: &SessionEvent<'_>) -> bool {
    let mut stop = false;
    for observer in observers.iter_mut() {
        stop |= observer.observe(event);
    }
    stop
}

/// The games of a run that keeps each bot's folder from game to game
/// ([`crate::RunSettings::kept_folders`]), handed out so that no process bot plays two games at
/// once (its one folder would be shared): the earliest game not journaled whose process bots are
/// all free. So each bot's games start in schedule order as far as the free bots allow, and with
/// one job exactly in it.
struct KeptClaims {
    state: std::sync::Mutex<KeptState>,
    freed: std::sync::Condvar,
}

struct KeptState {
    /// Games still to play, in schedule order, with their process bots.
    pending: std::collections::VecDeque<(u64, Vec<usize>)>,
    /// Process bots in a game now.
    busy: Vec<bool>,
}

impl KeptClaims {
    fn new(plan: &Plan, done: &Done) -> KeptClaims {
        let process = |bot: &usize| plan.bots[*bot].builtin().is_none();
        let pending = (0..plan.total_games())
            .filter(|&index| !done.contains(index))
            .map(|index| {
                (
                    index,
                    plan.game(index)
                        .seats
                        .iter()
                        .copied()
                        .filter(process)
                        .collect(),
                )
            })
            .collect();
        KeptClaims {
            state: std::sync::Mutex::new(KeptState {
                pending,
                busy: vec![false; plan.bots.len()],
            }),
            freed: std::sync::Condvar::new(),
        }
    }

    /// The next game whose process bots are all free (waiting for one to be released); `None`
    /// when every game is handed out or `stopping` says so.
    fn claim(&self, stopping: impl Fn() -> bool) -> Option<u64> {
        let mut state = self.state.lock().ok()?;
        loop {
            if state.pending.is_empty() || stopping() {
                return None;
            }
            let free = state
                .pending
                .iter()
                .position(|(_, bots)| bots.iter().all(|&bot| !state.busy[bot]));
            if let Some((index, bots)) = free.and_then(|at| state.pending.remove(at)) {
                for bot in bots {
                    state.busy[bot] = true;
                }
                return Some(index);
            }
            // A released game wakes this; the timeout lets a stop end the wait.
            state = self
                .freed
                .wait_timeout(state, Duration::from_millis(100))
                .ok()?
                .0;
        }
    }

    /// The game of `seats` ended (played, failed or abandoned): its bots are free again.
    fn release(&self, seats: &[usize]) {
        if let Ok(mut state) = self.state.lock() {
            for &bot in seats {
                if let Some(busy) = state.busy.get_mut(bot) {
                    *busy = false;
                }
            }
        }
        self.freed.notify_all();
    }
}

struct Worker<'a> {
    entry: &'a dyn GameEntry,
    plan: &'a Plan,
    done: &'a Done,
    cursor: &'a AtomicU64,
    /// The claims of a run that keeps the bots' folders (instead of `cursor`).
    kept: Option<&'a KeptClaims>,
    stop: &'a AtomicBool,
    decided: &'a AtomicBool,
    wants_entries: bool,
    /// A stop rule watches: every game goes to it at once.
    stops: bool,
    cpu: Option<usize>,
    sandbox: Option<std::sync::Arc<arena_core::sandbox::Sandbox>>,
    names: Vec<String>,
}

impl Worker<'_> {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.decided.load(Ordering::SeqCst)
    }

    fn run(self, sender: mpsc::SyncSender<Batch>) {
        // This thread reads and times the bots' answers: let it win the core from busy bots, at once
        // when it mostly waits on process bots (a real-time priority), and by weight when it plays
        // built-in bots itself (it computes then, and must not hold a core against everything else).
        if self.plan.bots.iter().any(|bot| bot.builtin().is_none()) {
            arena_core::process::favour_this_thread_realtime();
        } else {
            arena_core::process::favour_this_thread();
        }
        let runtime = &match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                let _ = sender.send(Batch {
                    error: Some(format!("cannot start a runtime: {e}")),
                    ..Batch::default()
                });
                return;
            }
        };
        let total = self.plan.total_games();
        let mut batch = Batch::default();
        let mut in_batch = 0usize;
        let mut batch_started = Instant::now();
        // Games of built-in bots take microseconds: claiming them one by one would make the shared
        // cursor's cache line bounce between cores on every game. Process games are claimed singly so
        // that the last ones spread over every worker.
        // With a stop rule every game goes to it at once, so that it can stop the run right after
        // the deciding game rather than a batch later.
        let claim = if self.plan.bots.iter().all(|b| b.builtin().is_some()) && !self.stops {
            BUILTIN_CLAIM
        } else {
            1
        };
        let (mut next, mut end) = (0u64, 0u64);
        let mut claim_game = || -> Option<u64> {
            if let Some(kept) = self.kept {
                return kept.claim(|| self.stopping());
            }
            loop {
                if next == end {
                    next = self.cursor.fetch_add(claim, Ordering::Relaxed);
                    end = (next + claim).min(total);
                }
                if next >= total {
                    return None;
                }
                let index = next;
                next += 1;
                if !self.done.contains(index) {
                    return Some(index);
                }
            }
        };
        // Sandboxes kept between this worker's games: a bot's next game starts in the sandbox of its
        // last one, emptied, instead of a new one. Made and used on this thread, which outlives them.
        let pool = self.pooled().then(|| {
            self.sandbox.clone().and_then(|sandbox| {
                arena_core::sandbox::SandboxPool::for_worker(sandbox, self.entry.players())
            })
        });
        let pool = pool.flatten();
        while let Some(index) = claim_game() {
            if self.stopping() {
                break;
            }
            let game = self.plan.game(index);
            let played = self.play(runtime, &game, pool.as_ref());
            if let Some(kept) = self.kept {
                kept.release(&game.seats);
            }
            let finished = match played {
                Ok(Some(finished)) => finished,
                Ok(None) => break,
                Err(error) => {
                    batch.error = Some(error);
                    break;
                }
            };
            let (line_start, entry_start) = (batch.lines.len(), batch.entries.len());
            let line = finished.entry(self.plan, &game, &self.names);
            if let Err(e) = serde_json::to_writer(&mut batch.lines, &line) {
                batch.error = Some(format!("cannot encode a result: {e}"));
                break;
            }
            batch.lines.push(b'\n');
            if self.wants_entries {
                batch.entries.push(line.to_entry());
            }
            let slow = finished.slow;
            if let (Some(relative), Some(record)) = (finished.replay, finished.record) {
                batch.replays.push(PendingReplay {
                    relative,
                    record,
                    line_start,
                    entry_start,
                });
            }
            in_batch += 1;
            if slow || self.stops || in_batch >= BATCH_GAMES || batch_started.elapsed() >= BATCH_AGE
            {
                let full = std::mem::take(&mut batch);
                if sender.send(full).is_err() {
                    return;
                }
                in_batch = 0;
                batch_started = Instant::now();
            }
        }
        let _ = sender.send(batch);
    }

    /// Whether bots' sandboxes are kept between games ([`arena_core::sandbox::SandboxPool`]): process
    /// bots, in a sandbox with a resident helper, in a game whose bots are one process each or are
    /// called in a sandbox kept for the game.
    fn pooled(&self) -> bool {
        // A kept folder is the bot's own, not a pooled sandbox's copy.
        self.kept.is_none()
            && (self.entry.stream_bots() || self.entry.pooled_calls())
            && self.plan.bots.iter().any(|bot| bot.builtin().is_none())
            && self
                .sandbox
                .as_ref()
                .is_some_and(|sandbox| sandbox.policy().helper.is_some())
    }

    /// Whether a game's replay is stored.
    fn stores_replay(&self, game: &ScheduledGame) -> bool {
        let plan = self.plan;
        // Games between rule bots are rebuilt from their seed when watched (crate::rebuild), so
        // their replays are stored only when asked for. A built-in that searches is timed: its
        // answer times are measurements that a rebuild cannot give back.
        let rebuilt = game.seats.iter().all(|&b| {
            plan.bots[b]
                .builtin()
                .is_some_and(|name| !self.entry.builtin_thinks(name))
        });
        if rebuilt {
            plan.settings.replays && plan.settings.builtin_replays
        } else {
            plan.settings.replays
        }
    }

    /// What the game needs to be played.
    fn request(&self, game: &ScheduledGame) -> Result<GameRequest, String> {
        let plan = self.plan;
        let seats = game
            .seats
            .iter()
            .map(|&b| {
                let bot = &plan.bots[b];
                let spec = match bot.builtin() {
                    Some(name) => PlayerSpec::Builtin(name.to_string()),
                    None => PlayerSpec::parse(&bot.spec)?,
                };
                Ok(SeatRequest {
                    name: bot.name.clone(),
                    spec,
                    workdir: bot.workdir.clone(),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(GameRequest {
            variant: plan.variant.clone(),
            seed: game.seed,
            seats,
            options: plan.settings.rules.match_options(
                self.stores_replay(game),
                self.cpu,
                self.sandbox.clone(),
            ),
            stderr_cap: plan.settings.stderr_cap,
            prepared: Default::default(),
        })
    }

    /// One game, its bots in sandboxes of `pool` when given; `None` when it was abandoned because
    /// of a stop.
    fn play(
        &self,
        runtime: &tokio::runtime::Runtime,
        game: &ScheduledGame,
        pool: Option<&std::sync::Arc<arena_core::sandbox::SandboxPool>>,
    ) -> Result<Option<Finished>, String> {
        let plan = self.plan;
        let builtin: Option<Vec<String>> = game
            .seats
            .iter()
            .map(|&b| plan.bots[b].builtin().map(str::to_string))
            .collect();
        let store_replay = self.stores_replay(game);
        // Bots that search are timed like processes, so their games take the full path.
        let untimed = builtin
            .as_ref()
            .filter(|bots| !bots.iter().any(|name| self.entry.builtin_thinks(name)));
        if let (Some(bots), false) = (untimed, store_replay) {
            let outcome = self
                .entry
                .play_builtin(plan.variant.as_deref(), bots, game.seed)
                .map_err(|e| e.to_string())?;
            return Ok(Some(Finished {
                faults: vec![Vec::new(); game.seats.len()],
                timing: Vec::new(),
                outcome,
                replay: None,
                record: None,
                slow: false,
            }));
        }
        let ready = match self.kept {
            Some(_) => registry::ready_game_in_place(self.request(game)?),
            None => registry::ready_game(self.entry, self.request(game)?, pool)
                .map_err(|e| e.to_string())?,
        };
        let game_future = registry::play_ready(self.entry, ready);
        let played = runtime.block_on(async {
            tokio::select! {
                result = game_future => Some(result),
                _ = wait_for(self.stop) => None,
            }
        });
        // A stop may also end a game from inside (its waits on bots are interrupted): never journal it.
        let Some(result) = played.filter(|_| !self.stop.load(Ordering::SeqCst)) else {
            return Ok(None);
        };
        let result = result.map_err(|e| e.to_string())?;
        let replay = store_replay.then(|| arena_formats::layout::replay_path(game.index));
        Ok(Some(Finished {
            faults: result
                .faults
                .iter()
                .map(|faults| faults.iter().map(|f| f.kind).collect())
                .collect(),
            timing: if untimed.is_some() {
                Vec::new()
            } else {
                result.timing
            },
            outcome: result.outcome,
            replay,
            record: store_replay.then_some(result.record),
            slow: untimed.is_none(),
        }))
    }
}

/// The replay writer of one worker: writes each batch's replays, then passes the batch on to the
/// journal, so that a journaled game always has its whole replay. On a failure the failed game and
/// those after it are not journaled (the run stops; resume plays them again).
fn write_replays(dir: &Path, batches: mpsc::Receiver<Batch>, journal: mpsc::SyncSender<Batch>) {
    let mut writer = ReplayWriter::default();
    let mut failed = false;
    for mut batch in batches {
        if failed {
            continue;
        }
        let replays = std::mem::take(&mut batch.replays);
        for replay in &replays {
            if let Err(error) = writer.write(dir, replay) {
                batch.lines.truncate(replay.line_start);
                batch.entries.truncate(replay.entry_start);
                batch.error = Some(error);
                failed = true;
                break;
            }
        }
        if journal.send(batch).is_err() {
            return;
        }
    }
}

/// A gzip compressor kept from one replay to the next: setting up a deflate stream (allocating and
/// clearing its tables) costs more than compressing a small replay, so the stream is reset instead.
pub struct ReplayCompressor {
    deflate: Compress,
}

impl Default for ReplayCompressor {
    fn default() -> Self {
        ReplayCompressor {
            deflate: Compress::new(Compression::fast(), false),
        }
    }
}

impl ReplayCompressor {
    /// Compresses a replay's JSON into `out` (replacing its contents) as the `.json.gz` files are
    /// stored: one gzip member (RFC 1952) around a raw deflate stream.
    pub fn compress(&mut self, json: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
        // Header: magic, deflate, no flags, no time, fastest, Unix.
        const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3];
        out.clear();
        out.extend_from_slice(&HEADER);
        out.reserve(json.len() / 4 + 64);
        self.deflate.reset();
        let mut input = json;
        loop {
            let (before_in, before_out) = (self.deflate.total_in(), self.deflate.total_out());
            let status = self
                .deflate
                .compress_vec(input, out, FlushCompress::Finish)
                .map_err(std::io::Error::other)?;
            input = &input[(self.deflate.total_in() - before_in) as usize..];
            if status == Status::StreamEnd {
                break;
            }
            if self.deflate.total_out() == before_out && self.deflate.total_in() == before_in {
                // No progress: the output is full.
                out.reserve(out.capacity().max(4096));
            }
        }
        let mut crc = Crc::new();
        crc.update(json);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        Ok(())
    }
}

/// Buffers reused from one replay to the next.
#[derive(Default)]
struct ReplayWriter {
    json: Vec<u8>,
    compressed: Vec<u8>,
    compressor: ReplayCompressor,
}

impl ReplayWriter {
    /// Writes one replay compressed ([`crate::folder::write_replay`]). The record is encoded into a
    /// buffer first and compressed in one call: encoding straight into the compressor makes one
    /// small write per JSON token, and the deflate stream pays for each.
    fn write(&mut self, dir: &Path, replay: &PendingReplay) -> Result<(), String> {
        let compress = |this: &mut Self| -> std::io::Result<()> {
            this.json.clear();
            replay.record.write_json(&mut this.json)?;
            this.compressor.compress(&this.json, &mut this.compressed)
        };
        compress(self).map_err(|e| {
            format!(
                "cannot write the replay {}: {e}",
                dir.join(&replay.relative).display()
            )
        })?;
        crate::folder::write_replay(dir, &replay.relative, &self.compressed)
            .map_err(|e| e.to_string())
    }
}

async fn wait_for(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A game a worker has played, before it becomes a journal line.
struct Finished {
    outcome: Outcome,
    faults: Vec<Vec<arena_core::FaultKind>>,
    /// Answer times per seat (games with a process bot).
    timing: Vec<Option<arena_core::SeatTiming>>,
    replay: Option<String>,
    /// The replay to write, when replays are kept.
    record: Option<RecordJson>,
    /// A process game: journaled at once rather than batched.
    slow: bool,
}

impl Finished {
    fn entry<'a>(
        &'a self,
        plan: &'a Plan,
        game: &'a ScheduledGame,
        names: &'a [String],
    ) -> EntryRef<'a> {
        EntryRef {
            index: game.index,
            game: &plan.game,
            variant: plan.variant.as_deref(),
            seed: game.seed,
            pair: game.pair,
            seats: &game.seats,
            bots: SeatNames {
                seats: &game.seats,
                names,
            },
            scores: &self.outcome.scores,
            score_values: arena_core::score::ScoreValues(&self.outcome.scores),
            ranks: &self.outcome.ranks,
            winner: self.outcome.winner,
            faults: &self.faults,
            replay: self.replay.as_deref(),
            timing: &self.timing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal;
    use crate::session::Watch;
    use std::io::Read;

    /// Decides once it has seen `after` games.
    struct StopAfter {
        after: usize,
        seen: usize,
    }

    impl SessionObserver for StopAfter {
        fn stops(&self) -> bool {
            true
        }

        fn observe(&mut self, event: &SessionEvent<'_>) -> bool {
            if let SessionEvent::Journaled { entries, .. } = event {
                self.seen += entries.len();
            }
            self.seen >= self.after
        }
    }

    /// Lang Wars' game and a plan of `rounds` rounds of four `random` bots.
    fn random_plan(rounds: u64) -> (Box<dyn GameEntry>, Plan) {
        let game = registry::stream_entry(arena_langwars::definitions().remove(0));
        let bot = |name: &str| crate::BotPlan {
            name: name.into(),
            spec: "builtin:random".into(),
            workdir: None,
            source: None,
        };
        let plan = Plan::new(crate::PlanRequest {
            game: game.id().into(),
            variant: None,
            players: game.players(),
            bots: (0..game.players()).map(|i| bot(&format!("b{i}"))).collect(),
            schedule: crate::Schedule::RoundRobin,
            seat_orders: crate::SeatOrders::Rotations,
            rounds: Some(rounds),
            games: None,
            seed: 3,
            settings: crate::RunSettings {
                rules: arena_core::runner::RunRules::default(),
                stderr_cap: 1024,
                replays: false,
                builtin_replays: false,
                game_options: Default::default(),
                kept_folders: false,
            },
            sprt: None,
        })
        .expect("plan");
        (game, plan)
    }

    /// Runs `plan` on two jobs in a new folder with `observers`.
    fn run_watched(
        game: &dyn GameEntry,
        plan: &Plan,
        observers: Vec<&mut dyn SessionObserver>,
    ) -> (RunOutcome, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("temp dir");
        crate::create(dir.path(), plan).expect("folder");
        // Never set: these runs end with their games or their stop rule.
        static STOP: AtomicBool = AtomicBool::new(false);
        let outcome = run(
            game,
            dir.path(),
            plan,
            RunOptions {
                jobs: 2,
                pin_cpus: false,
                stop: &STOP,
                observers,
                sandbox: None,
            },
        )
        .expect("runs");
        (outcome, dir)
    }

    /// The indices of the games in the journal of `dir`, in journal order.
    fn journaled(dir: &Path) -> Vec<u64> {
        std::fs::read_to_string(dir.join(journal::RESULTS_FILE))
            .expect("journal")
            .lines()
            .map(|line| serde_json::from_str::<Entry>(line).expect("an entry").index)
            .collect()
    }

    #[test]
    fn watchers_see_each_journaled_game_once_in_journal_order_and_one_decision() {
        let (game, plan) = random_plan(50);
        let mut seen: Vec<u64> = Vec::new();
        let mut last = Progress {
            done: 0,
            total: 0,
            played: 0,
        };
        let mut decisions = 0;
        let mut watch = Watch(|event: &SessionEvent<'_>| match event {
            SessionEvent::Journaled { entries, progress } => {
                seen.extend(entries.iter().map(|entry| entry.index));
                assert!(progress.done >= last.done, "progress goes forward");
                last = *progress;
            }
            SessionEvent::Decided => decisions += 1,
        });
        let mut rule = StopAfter { after: 5, seen: 0 };
        let (outcome, dir) = run_watched(game.as_ref(), &plan, vec![&mut watch, &mut rule]);
        assert!(
            outcome.decided && outcome.done < outcome.total,
            "{outcome:?}"
        );
        assert_eq!(decisions, 1, "one decision, however many games follow it");
        let journaled = journaled(dir.path());
        assert_eq!(
            seen, journaled,
            "every journaled game, once, in journal order"
        );
        assert_eq!(last.done, outcome.done);
        assert_eq!(last.played, journaled.len() as u64);
    }

    /// A watcher that reads every game but stops nothing (live standings) gets each game once, in
    /// journal order, and does not make games of built-in bots go one by one.
    #[test]
    fn a_watcher_of_entries_that_never_stops_gets_them_in_batches() {
        let (game, plan) = random_plan(200);
        struct Reader {
            seen: Vec<u64>,
            largest: usize,
        }
        impl SessionObserver for Reader {
            fn wants_entries(&self) -> bool {
                true
            }
            fn observe(&mut self, event: &SessionEvent<'_>) -> bool {
                if let SessionEvent::Journaled { entries, .. } = event {
                    self.seen.extend(entries.iter().map(|entry| entry.index));
                    self.largest = self.largest.max(entries.len());
                }
                false
            }
        }
        let mut reader = Reader {
            seen: Vec::new(),
            largest: 0,
        };
        let (outcome, dir) = run_watched(game.as_ref(), &plan, vec![&mut reader]);
        assert_eq!(outcome.done, plan.total_games());
        assert_eq!(reader.seen, journaled(dir.path()));
        assert!(
            reader.largest > 1,
            "games of built-in bots still come in batches"
        );
    }

    /// Live standings taken after the last game are the final report's: the same games in the
    /// same (schedule) order, whichever worker finished first.
    #[test]
    fn live_statistics_end_where_the_journal_pass_ends() {
        let (game, plan) = random_plan(60);
        let mut live = crate::stats::LiveStats::new(&plan, 0);
        let (_, dir) = run_watched(game.as_ref(), &plan, vec![&mut live]);
        let live = live.report();
        let final_pass = crate::stats::statistics(dir.path(), &plan, 0).expect("statistics");
        assert_eq!(live.games, plan.total_games());
        assert_eq!(
            format!("{:?}", live.summaries),
            format!("{:?}", final_pass.summaries)
        );
        assert_eq!(
            format!("{:?}", live.pairwise),
            format!("{:?}", final_pass.pairwise)
        );
        assert_eq!(
            format!("{:?}", live.elo_2014),
            format!("{:?}", final_pass.elo_2014)
        );
        assert_eq!(
            format!("{:?}", live.global_fit),
            format!("{:?}", final_pass.global_fit)
        );
        // And counted again on resume from the journal alone.
        let mut resumed = crate::stats::LiveStats::new(&plan, 0);
        resumed.preload(dir.path()).expect("preload");
        assert_eq!(
            format!("{:?}", resumed.report().summaries),
            format!("{:?}", final_pass.summaries)
        );
    }

    #[test]
    fn a_reused_compressor_writes_valid_gzip() {
        let mut compressor = ReplayCompressor::default();
        let mut out = Vec::new();
        let large: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 13).to_le_bytes())
            .collect();
        for json in [&b"{\"a\":1}"[..], &[], &large, b"[1,2,3]"] {
            compressor.compress(json, &mut out).expect("compresses");
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&out[..])
                .read_to_end(&mut back)
                .expect("valid gzip");
            assert_eq!(back, json);
        }
    }
}

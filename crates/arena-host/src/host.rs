//! The running contest: people and house bots from the contest file, submissions built as `--bot
//! PATH` builds them (`arena_submit::prepare`), the ladder's scheduler, and workers that claim
//! games from the database and play them with the game's own `GameEntry` in the sandbox.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arena_core::TimePolicy;
use arena_core::registry::{GameEntry, GameRequest, PlayerSpec, SeatRequest};
use arena_core::sandbox::Sandbox;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use crate::HostError;
use crate::archive;
use crate::config::{Contest, Format, GameFacts};
use crate::formats;
use crate::ladder;
use crate::records::{NewGame, Submission};
use crate::store::{Claimed, Finished, Notice, Promotion, Role, Store, WorkerInfo};

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
/// Batches from this size on are cut to a fair share of the queue's tail
/// ([`crate::store::Store::fair_share`]); smaller ones play too briefly to be worth the look.
const FAIR_SHARE_FROM: i64 = 64;

/// The next batch size after `played` games took `took`: sized to play for [`BATCH_PLAY`] (and a
/// quarter of the lease at most) at the rate just seen, changing by at most 4× at a time.
fn next_batch(batch: i64, played: usize, took: Duration, lease_ms: i64) -> i64 {
    let target = BATCH_PLAY.min(Duration::from_millis((lease_ms / 4).max(1) as u64));
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

/// SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes the sandbox (again): the toolchains it shows read-only are found as submissions are
/// built (`arena_submit::languages::tool_roots`), after the server started.
pub type SandboxFactory = Arc<dyn Fn() -> Result<Option<Arc<Sandbox>>, String> + Send + Sync>;

/// How to run a contest.
pub struct HostOptions {
    pub contest: Contest,
    /// `sqlite://FILE` or `postgres://...`.
    pub db: String,
    /// PostgreSQL schema (tests: a fresh one each).
    pub schema: Option<String>,
    /// Uploads, their builds and unpacked sources live here.
    pub data_dir: PathBuf,
    pub game: Arc<dyn GameEntry>,
    /// The sandbox bot processes run in (`None`: unconfined, the organiser chose so), when it is
    /// made once...
    pub sandbox: Option<Arc<Sandbox>>,
    /// ... or made at start and again whenever a build finds a toolchain outside the system's
    /// folders (then `sandbox` is not used).
    pub sandbox_factory: Option<SandboxFactory>,
    /// Pin each worker's bots to a core of their own (as `arena tournament` does).
    pub pin_cpus: bool,
    /// How this process's workers claim games (lease, languages).
    pub workers: WorkerSettings,
}

/// How a process's workers claim games.
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    /// The lease of a claim; heartbeats renew it every third of it.
    pub lease: Duration,
    /// Languages this machine runs (`None`: those whose toolchain is installed, see
    /// [`installed_languages`]); built-in bots and zipped folders always.
    pub languages: Option<Vec<String>>,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings {
            lease: Duration::from_millis(crate::store::DEFAULT_LEASE_MS as u64),
            languages: None,
        }
    }
}

/// The languages of `arena languages` whose every tool is found on this machine.
pub fn installed_languages() -> Vec<String> {
    arena_submit::languages::LANGUAGES
        .iter()
        .filter(|language| {
            language
                .tools
                .iter()
                .all(|tool| arena_submit::languages::locate(tool.program).is_some())
        })
        .map(|language| language.id.to_string())
        .collect()
}

/// What a submission needs of a worker: its file's language, `folder` for a zip (its build may
/// use anything), `builtin` for a built-in bot.
pub fn language_of(kind: &str, source_name: &str) -> String {
    if kind == "builtin" {
        return "builtin".into();
    }
    if source_name.to_ascii_lowercase().ends_with(".zip") {
        return "folder".into();
    }
    arena_submit::languages::by_extension(Path::new(source_name))
        .map_or_else(|| "folder".into(), |l| l.id.to_string())
}

/// This machine's name, for the workers' page and to recognise its own dead workers.
pub fn machine_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// Whether process `pid` of this machine still runs (this process's own pid is not a
/// predecessor's: a registration under it is from an earlier run in this process, or reused).
fn process_alive(pid: i64) -> bool {
    pid != i64::from(std::process::id()) && Path::new(&format!("/proc/{pid}")).exists()
}

/// The contest as workers of other machines read it from the database: the contest file without
/// its people (tokens stay in the file), and the league bosses.
#[derive(serde::Serialize, serde::Deserialize)]
struct ContestView {
    contest: Contest,
    bosses: Vec<Option<i64>>,
}

const CONTEST_SETTING: &str = "contest";

/// One host at a time schedules; another takes over 10 s after it stops renewing.
pub(crate) const SCHEDULER_LEASE: &str = "scheduler";
pub(crate) const SCHEDULER_LEASE_MS: i64 = 10_000;

/// A contest being hosted.
pub struct Host {
    pub contest: Contest,
    pub store: Store,
    pub game: Arc<dyn GameEntry>,
    pub(crate) data_dir: PathBuf,
    /// The sandbox and the toolchain folders it was made with.
    pub(crate) sandbox: std::sync::Mutex<(Vec<PathBuf>, Option<Arc<Sandbox>>)>,
    pub(crate) sandbox_factory: Option<SandboxFactory>,
    pub(crate) pin_cpus: bool,
    pub(crate) promotion: Promotion,
    pub(crate) time_policy: Option<TimePolicy>,
    /// Wakes the scheduler (a game finished, a submission built) and idle workers (games queued).
    pub changed: Notify,
    pub queued: Notify,
    pub(crate) stopping: AtomicBool,
    /// Games a previous process left running, put back in the queue when this one opened.
    pub requeued: u64,
    /// People and house bots the contest file no longer lists: signed out, their bots stopped.
    pub revoked: Vec<String>,
    /// Worker threads running (one that stops on an error is no longer counted).
    pub(crate) workers_running: std::sync::atomic::AtomicUsize,
    /// Worker threads `spawn_workers` started, as registered.
    pub(crate) jobs: std::sync::atomic::AtomicUsize,
    /// Whether the task that turns other processes' notices into wake-ups runs ([`Host::listen`]).
    pub(crate) listening: AtomicBool,
    /// The KotH players this process last queued every game of (ids, as `players` lists them).
    pub(crate) koth_scheduled_for: std::sync::Mutex<Option<Vec<i64>>>,
    /// Set once this process is registered as a worker. Its workers wait for it before their
    /// first claim: a game completed before the row exists would not be counted on it.
    pub(crate) registered: tokio::sync::OnceCell<()>,
    /// This process as a worker: `MACHINE:PID:START_MS`, the `worker` of the games it claims.
    pub worker_id: String,
    pub(crate) lease_ms: i64,
    /// `,builtin,folder,python3,...,`: what this process's workers can play.
    pub(crate) languages: String,
    /// Games this process's workers hold now: only these leases are renewed (a claim whose answer
    /// was lost on the network is not held, and runs out).
    pub(crate) held: std::sync::Mutex<std::collections::HashSet<i64>>,
    /// Built folders of uploads, by submission: built once per process (and cached by content
    /// hash on disk across processes).
    pub(crate) prepared: std::sync::Mutex<std::collections::HashMap<i64, PathBuf>>,
    /// Submissions this process could not prepare (fetch, unpack or build), and until when its
    /// workers leave their games to other workers.
    pub(crate) unprepared: std::sync::Mutex<std::collections::HashMap<i64, std::time::Instant>>,
    /// The last database error the workers met and retried, for the front end to say.
    pub last_error: std::sync::Mutex<Option<String>>,
}

/// How to run a worker process (`arena worker`).
pub struct AttachOptions {
    pub db: String,
    pub schema: Option<String>,
    /// Sources and builds of the submissions this worker plays.
    pub data_dir: PathBuf,
    pub sandbox: Option<Arc<Sandbox>>,
    pub sandbox_factory: Option<SandboxFactory>,
    pub pin_cpus: bool,
    pub workers: WorkerSettings,
}

/// Games left running by workers that are gone: those of this machine whose process ended at
/// once, the others when their lease runs out. Games of live workers are left alone.
async fn requeue_lost(store: &Store) -> Result<u64, HostError> {
    let dead = store
        .requeue_dead_on(&machine_name(), process_alive)
        .await?;
    // A scheduler lease left by a dead process of this machine (a host killed and started again)
    // is free at once rather than when it runs out.
    if let Some(holder) = store.lease_holder(SCHEDULER_LEASE).await? {
        let mut parts = holder.rsplitn(3, ':');
        let (_, pid, machine) = (parts.next(), parts.next(), parts.next());
        let pid = pid.and_then(|p| p.parse::<i64>().ok());
        if let (Some(pid), Some(machine)) = (pid, machine)
            && machine == machine_name()
            && !process_alive(pid)
        {
            store.release_lease(SCHEDULER_LEASE, &holder).await?;
        }
    }
    Ok(dead + store.requeue_expired().await?)
}

/// What the workers did, for the caller (tests count games).
#[derive(Debug, Default, Clone, Copy)]
pub struct WorkerCounts {
    pub completed: u64,
    pub failed: u64,
    /// Games played whose claim was no longer this worker's when it came to record them (its
    /// lease ran out and the game went to another): not counted here.
    pub lost: u64,
    /// Games given back to the queue because a seat's submission could not be prepared here.
    pub released: u64,
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

impl Host {
    /// How the contest's games treat and judge bots: its time scale and policy, idle bots paused,
    /// the wall clock (a contest file has no clock setting yet).
    pub(crate) fn run_rules(&self) -> arena_core::runner::RunRules {
        arena_core::runner::RunRules {
            pause_idle: true,
            time_scale: self.contest.time_scale,
            time_policy: self.time_policy,
            clock: arena_core::ClockKind::Wall,
        }
    }

    /// What the replay viewer draws for this contest: its game.
    pub fn viewer_games(&self) -> arena_viewer::ViewerGames {
        arena_viewer::ViewerGames::new([(self.game.id(), self.game.viewer_script())])
    }

    /// Opens the database (migrating it), brings its people and house bots up to the contest
    /// file, and puts games a previous process left running back in the queue.
    pub async fn open(options: HostOptions) -> Result<Arc<Host>, HostError> {
        let HostOptions {
            mut contest,
            db,
            schema,
            data_dir,
            game,
            sandbox,
            sandbox_factory,
            pin_cpus,
            workers,
        } = options;
        // The toolchain folders the sandbox shows, found before it is made (finding the
        // installed languages later may find more, and the sandbox is then made again).
        let roots = arena_submit::languages::tool_roots();
        let sandbox = match &sandbox_factory {
            Some(make) => make().map_err(|e| HostError::Io(format!("the sandbox: {e}")))?,
            None => sandbox,
        };
        let facts = GameFacts {
            id: game.id().to_string(),
            players: game.players(),
            variants: game.variants().iter().map(|v| v.to_string()).collect(),
            builtin_bots: game
                .bots()
                .iter()
                .map(|(name, _)| name.to_string())
                .collect(),
        };
        contest.check(&facts)?;
        let time_policy = match &contest.time_policy {
            Some(name) => Some(
                TimePolicy::from_name(name, contest.time_policy_ms, contest.time_policy_ms)
                    .map_err(HostError::Config)?,
            ),
            None => None,
        };
        std::fs::create_dir_all(&data_dir).map_err(|e| {
            HostError::Io(format!(
                "cannot make the data folder {}: {e}",
                data_dir.display()
            ))
        })?;
        let store = Store::open(&db, schema.as_deref()).await?;
        for person in &contest.organisers {
            store
                .ensure_user(
                    &person.name,
                    &sha256_hex(person.token.as_bytes()),
                    Role::Organiser,
                )
                .await?;
        }
        for person in &contest.contestants {
            store
                .ensure_user(
                    &person.name,
                    &sha256_hex(person.token.as_bytes()),
                    Role::Contestant,
                )
                .await?;
        }
        for bot in &contest.bots {
            let league = bot
                .league
                .as_deref()
                .and_then(|name| contest.league_index(name))
                .unwrap_or(0);
            let builtin = bot.bot.trim_start_matches("builtin:");
            house_bot(&store, &bot.name, builtin, league as i64).await?;
        }
        let mut bosses = Vec::new();
        for (index, league) in contest.leagues.iter().enumerate() {
            let boss = match &league.boss {
                None => None,
                Some(boss) => match boss.strip_prefix("builtin:") {
                    Some(builtin) => {
                        let name = format!("{}-boss", league.name);
                        Some(house_bot(&store, &name, builtin, index as i64).await?)
                    }
                    None => store.user_by_name(boss).await?,
                },
            };
            bosses.push(boss);
        }
        let listed: Vec<String> = contest
            .organisers
            .iter()
            .chain(&contest.contestants)
            .map(|p| p.name.clone())
            .chain(contest.bots.iter().map(|b| b.name.clone()))
            .chain(
                contest
                    .leagues
                    .iter()
                    .filter(|l| l.boss.as_deref().is_some_and(|b| b.starts_with("builtin:")))
                    .map(|l| format!("{}-boss", l.name)),
            )
            .collect();
        let revoked = store.revoke_missing(&listed).await?;
        store.backfill_languages(language_of).await?;
        // Workers on other machines play this contest as this file says (without its people).
        let view = ContestView {
            contest: Contest {
                contestants: Vec::new(),
                organisers: Vec::new(),
                ..contest.clone()
            },
            bosses: bosses.clone(),
        };
        let view = serde_json::to_string(&view)
            .map_err(|e| HostError::Database(format!("cannot encode the contest: {e}")))?;
        store.set_setting(CONTEST_SETTING, Some(&view)).await?;
        let requeued = requeue_lost(&store).await?;
        let promotion = Promotion {
            bosses,
            promotion_games: i64::from(contest.ladder.promotion_games),
            leagues: contest.leagues.len() as i64,
        };
        Ok(Self::assemble(
            contest,
            store,
            game,
            data_dir,
            (roots, sandbox, sandbox_factory),
            pin_cpus,
            promotion,
            time_policy,
            requeued,
            revoked,
            workers,
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        contest: Contest,
        store: Store,
        game: Arc<dyn GameEntry>,
        data_dir: PathBuf,
        (roots, sandbox, sandbox_factory): (
            Vec<PathBuf>,
            Option<Arc<Sandbox>>,
            Option<SandboxFactory>,
        ),
        pin_cpus: bool,
        promotion: Promotion,
        time_policy: Option<TimePolicy>,
        requeued: u64,
        revoked: Vec<String>,
        workers: WorkerSettings,
    ) -> Arc<Host> {
        let start_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let languages = workers.languages.unwrap_or_else(installed_languages);
        let mut listed = vec!["builtin".to_string(), "folder".to_string()];
        listed.extend(languages);
        listed.sort();
        listed.dedup();
        Arc::new(Host {
            contest,
            store,
            game,
            data_dir,
            sandbox: std::sync::Mutex::new((roots, sandbox)),
            sandbox_factory,
            pin_cpus,
            promotion,
            time_policy,
            changed: Notify::new(),
            queued: Notify::new(),
            stopping: AtomicBool::new(false),
            requeued,
            revoked,
            workers_running: std::sync::atomic::AtomicUsize::new(0),
            jobs: std::sync::atomic::AtomicUsize::new(0),
            registered: tokio::sync::OnceCell::new(),
            koth_scheduled_for: std::sync::Mutex::new(None),
            listening: AtomicBool::new(false),
            worker_id: format!("{}:{}:{start_ms}", machine_name(), std::process::id()),
            lease_ms: workers.lease.as_millis().max(1) as i64,
            languages: format!(",{},", listed.join(",")),
            held: Default::default(),
            prepared: Default::default(),
            unprepared: Default::default(),
            last_error: std::sync::Mutex::new(None),
        })
    }

    /// A worker process of another machine (`arena worker`): the contest as the host wrote it in
    /// the database (`find_game` turns its game id into the game), no people, no scheduler.
    /// Refused when no host has opened the database yet.
    pub async fn attach(
        options: AttachOptions,
        find_game: impl Fn(&str) -> Result<Arc<dyn GameEntry>, String>,
    ) -> Result<Arc<Host>, HostError> {
        let store = Store::open(&options.db, options.schema.as_deref()).await?;
        let view = store.setting(CONTEST_SETTING).await?.ok_or_else(|| {
            HostError::Config(
                "no contest in this database yet: start `arena host CONTEST.toml --db URL` on it \
                 once first (with `--workers 0` if it should only serve the pages)"
                    .into(),
            )
        })?;
        let view: ContestView = serde_json::from_str(&view).map_err(|e| {
            HostError::Database(format!(
                "the contest in the database cannot be read ({e}): is this worker older than the \
                 host? Use the same arena version on every machine"
            ))
        })?;
        let game = find_game(&view.contest.game).map_err(HostError::Config)?;
        let contest = view.contest;
        let time_policy = match &contest.time_policy {
            Some(name) => Some(
                TimePolicy::from_name(name, contest.time_policy_ms, contest.time_policy_ms)
                    .map_err(HostError::Config)?,
            ),
            None => None,
        };
        std::fs::create_dir_all(&options.data_dir).map_err(|e| {
            HostError::Io(format!(
                "cannot make the worker's folder {}: {e}",
                options.data_dir.display()
            ))
        })?;
        // The toolchain folders the sandbox shows, found before it is made (finding the
        // installed languages later may find more, and the sandbox is then made again).
        let roots = arena_submit::languages::tool_roots();
        let sandbox = match &options.sandbox_factory {
            Some(make) => make().map_err(|e| HostError::Io(format!("the sandbox: {e}")))?,
            None => options.sandbox.clone(),
        };
        let requeued = requeue_lost(&store).await?;
        let promotion = Promotion {
            bosses: view.bosses,
            promotion_games: i64::from(contest.ladder.promotion_games),
            leagues: contest.leagues.len() as i64,
        };
        Ok(Self::assemble(
            contest,
            store,
            game,
            options.data_dir,
            (roots, sandbox, options.sandbox_factory),
            options.pin_cpus,
            promotion,
            time_policy,
            requeued,
            Vec::new(),
            options.workers,
        ))
    }

    /// Workers to run: the contest's, else one per core.
    pub fn workers(&self) -> usize {
        self.contest.workers.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    }

    /// Asks the scheduler and the workers to stop after their current game.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.changed.notify_waiters();
        self.queued.notify_waiters();
    }

    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    fn submission_dir(&self, id: i64) -> PathBuf {
        self.data_dir.join("submissions").join(id.to_string())
    }

    /// How submissions are built: in the contest's build cache, their build steps in the bots'
    /// sandbox (arena-submit widens it for compilers), as `--bot PATH` builds them.
    fn submit_options(&self) -> Result<arena_submit::Options, String> {
        Ok(arena_submit::Options {
            contest_2014: self.game.conventions_2014(),
            cache_dir: Some(self.data_dir.join("builds")),
            sandbox: self.current_sandbox()?,
            ..arena_submit::Options::default()
        })
    }

    /// Takes an upload: checks the rate limit and the file, stores it, and builds it on a
    /// blocking thread. Returns the submission's id at once (state `building`).
    pub async fn submit(
        self: &Arc<Self>,
        user: i64,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<i64, HostError> {
        let limits = &self.contest.limits;
        let hour_ago = crate::store::now() - 3600;
        if self.store.uploads_since(user, hour_ago).await? >= i64::from(limits.uploads_per_hour) {
            return Err(HostError::TooMany(format!(
                "at most {} uploads an hour in this contest: try again later",
                limits.uploads_per_hour
            )));
        }
        let name = archive::upload_name(name).map_err(|e| HostError::Refused(e.0))?;
        if bytes.len() as u64 > limits.upload_bytes {
            return Err(HostError::Refused(format!(
                "the upload is {} bytes; this contest takes at most {}",
                bytes.len(),
                limits.upload_bytes
            )));
        }
        let league = self
            .store
            .submissions(Some(user))
            .await?
            .iter()
            .find(|s| s.active)
            .map_or(0, |s| s.league);
        let id = self
            .store
            .add_submission(
                user,
                "upload",
                &name,
                Some(&bytes),
                &sha256_hex(&bytes),
                league,
            )
            .await?;
        self.store
            .set_language(id, &language_of("upload", &name))
            .await?;
        self.spawn_build(id, name, bytes, league);
        Ok(id)
    }

    /// Builds a submission on a blocking thread and records the outcome.
    fn spawn_build(self: &Arc<Self>, id: i64, name: String, bytes: Vec<u8>, league: i64) {
        let host = Arc::clone(self);
        tokio::spawn(async move {
            let built = {
                let host = Arc::clone(&host);
                tokio::task::spawn_blocking(move || host.build(id, &name, &bytes, league)).await
            };
            let (ok, log) = match built {
                Ok(Ok(log)) => (true, log),
                Ok(Err(log)) => (false, log),
                Err(e) => (false, format!("the build stopped: {e}")),
            };
            // A failure to record the build leaves the submission `building`: the next start
            // builds it again (see `resume_builds`); nothing else can be done here.
            let _ = host.store.finish_build(id, ok, &log).await;
            host.changed.notify_waiters();
        });
    }

    /// Builds again the submissions a previous process left `building` (killed mid-build).
    /// Returns how many.
    pub async fn resume_builds(self: &Arc<Self>) -> Result<usize, HostError> {
        let building: Vec<Submission> = self
            .store
            .submissions(None)
            .await?
            .into_iter()
            .filter(|s| s.state == "building")
            .collect();
        for submission in &building {
            let bytes = self.store.source(submission.id).await?.unwrap_or_default();
            self.spawn_build(
                submission.id,
                submission.source_name.clone(),
                bytes,
                submission.league,
            );
        }
        Ok(building.len())
    }

    /// Unpacks and builds a submission, then probes it (the start of a game against built-in
    /// bots, in the sandbox, as `arena tournament` probes its bots): the build log, or the reason
    /// it failed.
    fn build(&self, id: i64, name: &str, bytes: &[u8], league: i64) -> Result<String, String> {
        let dir = self.submission_dir(id);
        let _ = std::fs::remove_dir_all(&dir);
        let path = archive::unpack(name, bytes, &dir, &self.contest.limits).map_err(|e| e.0)?;
        if !arena_submit::is_submission(&path) {
            return Err(format!(
                "{name}: unknown language (no language of arena has this extension; `arena \
                 languages` lists them: .py .cpp .java .js ... or a zipped folder)"
            ));
        }
        let prepared = arena_submit::prepare(&path, &self.submit_options()?)
            .map_err(|e| format!("the build failed:\n{e}"))?;
        let mut log = format!("built as {}\n", prepared.kind);
        for warning in &prepared.warnings {
            log.push_str(&format!("warning: {warning}\n"));
        }
        let seat = SeatRequest {
            name: name.to_string(),
            spec: PlayerSpec::Command(arena_submit::run_argv(None)),
            workdir: Some(prepared.folder),
        };
        let variant = self
            .contest
            .leagues
            .get(league as usize)
            .and_then(|l| l.variant.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the probe's runtime: {e}"))?;
        let probed = runtime.block_on(arena_submit::probe::probe(
            self.game.as_ref(),
            variant.as_deref(),
            &seat,
            &self.run_rules(),
            self.current_sandbox()?,
        ));
        match probed {
            Ok(()) => {
                log.push_str("started and answered its first turn against built-in bots\n");
                Ok(log)
            }
            Err(why) => Err(format!("{log}{why}")),
        }
    }

    /// The built folder of an uploaded submission: its source is fetched from the database when
    /// this machine does not have it (checked against its SHA-256), unpacked with the contest's
    /// limits and built in the sandbox, once per process (the build cache keeps it by content
    /// hash across processes).
    pub(crate) fn prepared_folder(
        &self,
        submission: &Submission,
        handle: &tokio::runtime::Handle,
    ) -> Result<PathBuf, String> {
        // Held while building: two games of a new submission build it once.
        let mut prepared = self
            .prepared
            .lock()
            .map_err(|_| "the build table's lock was poisoned by a panic".to_string())?;
        if let Some(folder) = prepared.get(&submission.id)
            && folder.exists()
        {
            return Ok(folder.clone());
        }
        // By content and id: a worker's folder may serve several contests (their ids collide, their
        // contents do not).
        let dir = self
            .data_dir
            .join("sources")
            .join(&submission.source_sha256)
            .join(submission.id.to_string());
        let entry = |dir: &Path| {
            if submission
                .source_name
                .to_ascii_lowercase()
                .ends_with(".zip")
            {
                dir.join("bot")
            } else {
                dir.join(&submission.source_name)
            }
        };
        if !entry(&dir).exists() {
            let source = handle
                .block_on(self.store.source(submission.id))
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("submission {} has no source", submission.id))?;
            if sha256_hex(&source) != submission.source_sha256 {
                return Err(format!(
                    "submission {}: the source read from the database does not match its SHA-256",
                    submission.id
                ));
            }
            // Unpacked beside and renamed into place: another worker process sharing the folder
            // sees all of it or nothing.
            let partial = dir.with_extension(format!("partial-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&partial);
            archive::unpack(
                &submission.source_name,
                &source,
                &partial,
                &self.contest.limits,
            )
            .map_err(|e| e.0)?;
            if std::fs::rename(&partial, &dir).is_err() {
                let _ = std::fs::remove_dir_all(&partial);
                if !entry(&dir).exists() {
                    return Err(format!(
                        "submission {}: cannot unpack it in {}",
                        submission.id,
                        dir.display()
                    ));
                }
            }
        }
        let path = entry(&dir);
        let folder = arena_submit::prepare(&path, &self.submit_options()?)
            .map(|prepared| prepared.folder)
            .map_err(|e| format!("submission {}: {e}", submission.id))?;
        prepared.insert(submission.id, folder.clone());
        Ok(folder)
    }

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
        if self.store.count_games("queued").await? + self.store.count_games("running").await? > 0 {
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

    /// Fills the queue with ladder games until it holds `queue_per_worker` per worker (or nobody
    /// needs a game). Returns how many were queued.
    pub async fn schedule_ladder(&self) -> Result<usize, HostError> {
        // Workers of every machine: this host's own, or the live ones the database knows.
        let jobs = self
            .store
            .live_jobs()
            .await?
            .max(self.workers() as i64)
            .max(1);
        let depth = jobs * i64::from(self.contest.ladder.queue_per_worker.max(1));
        let variants: Vec<Option<String>> = self
            .contest
            .leagues
            .iter()
            .map(|l| l.variant.clone())
            .collect();
        let mut queued = 0;
        loop {
            let waiting =
                self.store.count_games("queued").await? + self.store.count_games("running").await?;
            if waiting >= depth {
                break;
            }
            let players = self.store.players().await?;
            let pending = self.store.pending_per_submission().await?;
            // One generator per decision, seeded by the contest's seed and the number of games
            // scheduled so far: a restarted host draws what the first would have.
            let scheduled = self.store.counter("game").await?;
            let mut rng = rand_pcg::Pcg64::new(
                u128::from(self.contest.seed) << 64 | scheduled as u128,
                0xa02b_dbf7_bb3c_0a7a_c28f_a16a_64ab_f96d,
            );
            let Some(game) = ladder::next_game(
                &players,
                &pending,
                &self.contest.ladder,
                self.game.players(),
                &variants,
                &mut rng,
            ) else {
                break;
            };
            self.store.schedule(&game, self.contest.seed).await?;
            queued += 1;
        }
        if queued > 0 {
            self.queued.notify_waiters();
        }
        Ok(queued)
    }

    /// The scheduler: fills the queue whenever something changed, until [`Host::stop`]. When
    /// several hosts serve one database, only the holder of the `scheduler` lease schedules (and
    /// requeues games whose lease ran out); the others take over when it stops renewing.
    pub async fn run_scheduler(self: Arc<Self>) -> Result<(), HostError> {
        self.listen(&tokio::runtime::Handle::current());
        while !self.stopping() {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let turn = async {
                if self
                    .store
                    .try_lease(SCHEDULER_LEASE, &self.worker_id, SCHEDULER_LEASE_MS)
                    .await?
                {
                    self.store.requeue_expired().await?;
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

    /// Remembers a database error the workers or the scheduler met and will retry.
    pub(crate) fn note_error(&self, error: &HostError) {
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(error.to_string());
        }
    }

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

    /// The lease of a claim, in milliseconds.
    pub fn lease_ms(&self) -> i64 {
        self.lease_ms
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
        let cpus = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let threads = (0..count)
            .map(|index| {
                let host = Arc::clone(self);
                let handle = handle.clone();
                let cpu = (host.pin_cpus && count > 1).then_some(index % cpus);
                // Counted here, before the thread starts, so that a watcher never sees it missing.
                host.workers_running.fetch_add(1, Ordering::SeqCst);
                std::thread::Builder::new()
                    .name(format!("arena-host-worker-{index}"))
                    .spawn(move || host.worker(cpu, &handle, until_idle))
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
        // Played games are recorded on a thread of their own, one batch behind, so that the
        // worker plays its next batch while the database records the last: with the database
        // on other cores, a worker of built-in games never waits for it.
        std::thread::scope(|scope| {
            let (to_recorder, played_batches) =
                std::sync::mpsc::sync_channel::<Vec<(Claimed, Result<Finished, NotPlayed>)>>(1);
            let recorder = scope.spawn(move || {
                let mut counts = WorkerCounts::default();
                for played in played_batches {
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
        // The next batch of built-in games, claimed while the current one plays.
        let mut ahead: Option<
            std::thread::ScopedJoinHandle<'scope, Result<Vec<Claimed>, HostError>>,
        > = None;
        // Claimed games are played even when a drain begins: they are this worker's now.
        while !self.stopping() || ahead.is_some() {
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
                        Ok(_) => self.db_call(
                            handle,
                            self.store.claim_batch_excluding(
                                &self.worker_id,
                                Some(&self.languages),
                                self.lease_ms,
                                1,
                                &self.left_to_others(),
                            ),
                        ),
                        Err(error) => Err(error),
                    }
                }),
            };
            let claimed = match claimed {
                Ok(claimed) => claimed,
                Err(error) => {
                    self.note_error(&error);
                    std::thread::sleep(Duration::from_secs(1));
                    continue;
                }
            };
            if claimed.is_empty() {
                if until_idle {
                    break;
                }
                handle.block_on(async {
                    let queued = self.queued.notified();
                    if tokio::time::timeout(idle, queued).await.is_ok() {
                        idle = Duration::from_millis(100);
                    }
                });
                idle = (idle * 2).min(Duration::from_secs(2));
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
            }
            let started = std::time::Instant::now();
            let played: Vec<(Claimed, Result<Finished, NotPlayed>)> = claimed
                .into_iter()
                .map(|game| {
                    // Games of built-in bots keep no replay: they are played again, exactly,
                    // when watched (as `arena tournament` does), and recording costs them more
                    // than playing.
                    let record = !all_builtin(&game);
                    let outcome = self.play(&game, cpu, handle, local, record);
                    (game, outcome)
                })
                .collect();
            let took = started.elapsed();
            if builtin_only {
                batch = next_batch(batch, played.len(), took, self.lease_ms);
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
    /// process, an upload as its built folder run by its launcher), in the sandbox.
    pub(crate) fn play(
        &self,
        claimed: &Claimed,
        cpu: Option<usize>,
        handle: &tokio::runtime::Handle,
        local: &tokio::runtime::Runtime,
        record: bool,
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
            let seat = if submission.kind == "builtin" {
                SeatRequest {
                    name: submission.user.clone(),
                    spec: PlayerSpec::Builtin(submission.source_name.clone()),
                    workdir: None,
                }
            } else {
                SeatRequest {
                    name: submission.user.clone(),
                    spec: PlayerSpec::Command(arena_submit::run_argv(None)),
                    workdir: Some(self.prepared_folder(submission, handle).map_err(|reason| {
                        self.leave_to_others(submission.id);
                        NotPlayed::Unprepared(format!(
                            "worker {} could not prepare submission {}: {reason}",
                            self.worker_id, submission.id
                        ))
                    })?),
                }
            };
            seats.push(seat);
        }
        let request = GameRequest {
            variant: claimed.variant.clone(),
            seed: claimed.seed,
            seats,
            options: self
                .run_rules()
                .match_options(record, cpu, self.current_sandbox()?),
            stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
            prepared: Default::default(),
        };
        let result = local.block_on(arena_core::registry::play_in_own_folders(
            self.game.as_ref(),
            request,
        ))?;
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

    /// A finished game's gzipped replay: the stored one, or, for a game of built-in bots (which
    /// keeps none), the game played again from its seed, recording.
    pub async fn replay(self: &Arc<Self>, game: i64) -> Result<Option<Vec<u8>>, HostError> {
        if let Some(replay) = self.store.replay(game).await? {
            return Ok(Some(replay));
        }
        let Some(claimed) = self.store.finished_game(game).await? else {
            return Ok(None);
        };
        if !all_builtin(&claimed) {
            return Ok(None);
        }
        let host = Arc::clone(self);
        let handle = tokio::runtime::Handle::current();
        tokio::task::spawn_blocking(move || {
            let local = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start a runtime: {e}"))?;
            host.play(&claimed, None, &handle, &local, true)
                .map(|finished| finished.replay)
                .map_err(|not_played| not_played.to_string())
        })
        .await
        .map_err(|e| HostError::Io(format!("replaying game {game}: {e}")))?
        .map_err(|e| HostError::Io(format!("replaying game {game}: {e}")))
    }

    /// Writes every finished game as an `arena tournament` folder in `dir` (made; refused when it
    /// holds a journal already): `tournament.json`, `results.jsonl` (games in completion order,
    /// bots numbered by first appearance, named `user#submission`), the replays with their
    /// publishable twins, `summary.json`, `leaderboard.csv`, `report.html` and `viewer.html`. The
    /// folder opens in `arena serve` and from disk like a tournament's. Returns the games written.
    pub async fn export(
        self: &Arc<Self>,
        dir: &Path,
        bootstrap: usize,
    ) -> Result<usize, HostError> {
        use arena_tournament::report;
        let results = self.store.results().await?;
        let mut bots: Vec<(i64, String)> = Vec::new();
        let mut entries = Vec::new();
        for (position, (game, _, line)) in results.iter().enumerate() {
            let mut entry: arena_tournament::Entry = serde_json::from_str(line)
                .map_err(|e| HostError::Database(format!("the result of game {game}: {e}")))?;
            let seats = self.store.seats(*game).await?;
            let mut indices = Vec::new();
            for submission in &seats {
                let index = match bots.iter().position(|(id, _)| id == submission) {
                    Some(index) => index,
                    None => {
                        let user = self
                            .store
                            .submission(*submission)
                            .await?
                            .map_or_else(|| "?".to_string(), |s| s.user);
                        bots.push((*submission, format!("{user}#{submission}")));
                        bots.len() - 1
                    }
                };
                indices.push(index);
            }
            entry.index = position as u64;
            entry.pair = position as u64;
            entry.bots = indices.iter().map(|&i| bots[i].1.clone()).collect();
            entry.seats = indices;
            entry.replay = None;
            if let Some(replay) = self.replay(*game).await? {
                let name = format!("{}/{position}.json.gz", arena_tournament::run::REPLAY_DIR);
                let folder = dir.join(arena_tournament::run::REPLAY_DIR);
                let io = |e: std::io::Error| {
                    HostError::Io(format!("cannot write in {}: {e}", folder.display()))
                };
                std::fs::create_dir_all(&folder).map_err(io)?;
                std::fs::write(dir.join(&name), &replay).map_err(io)?;
                std::fs::write(
                    folder.join(format!("{position}.js")),
                    arena_tournament::run::replay_script(&replay),
                )
                .map_err(io)?;
                entry.replay = Some(name);
            }
            entries.push(entry);
        }
        if bots.len() < 2 {
            return Err(HostError::Refused(
                "nothing to export yet: no game has finished between two submissions".into(),
            ));
        }
        let plan = arena_tournament::Plan {
            format: arena_tournament::schedule::PLAN_FORMAT,
            arena: Some(arena_core::format::ARENA_VERSION.to_string()),
            game: self.game.id().to_string(),
            variant: self.contest.leagues.first().and_then(|l| l.variant.clone()),
            players: self.game.players(),
            bots: bots
                .iter()
                .map(|(_, name)| arena_tournament::BotPlan {
                    name: name.clone(),
                    spec: format!("contest submission {name}"),
                    workdir: None,
                    source: None,
                })
                .collect(),
            schedule: arena_tournament::Schedule::RoundRobin,
            seat_orders: arena_tournament::SeatOrders::Rotations,
            rounds: 1,
            seed: self.contest.seed,
            settings: arena_tournament::RunSettings {
                rules: self.run_rules(),
                stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
                replays: true,
                builtin_replays: true,
                game_options: None,
            },
            groups: Vec::new(),
            groups_per_round: 0,
            sprt: None,
        };
        let failed = |e: arena_tournament::TournamentError| HostError::Io(e.to_string());
        arena_tournament::create(dir, &plan).map_err(failed)?;
        let mut journal = String::new();
        for entry in &entries {
            journal.push_str(
                &serde_json::to_string(entry)
                    .map_err(|e| HostError::Io(format!("cannot encode a result: {e}")))?,
            );
            journal.push('\n');
        }
        let path = dir.join(arena_tournament::journal::RESULTS_FILE);
        std::fs::write(&path, journal)
            .map_err(|e| HostError::Io(format!("cannot write {}: {e}", path.display())))?;
        let (stats, first) = report::compute(dir, &plan, bootstrap).map_err(failed)?;
        let machine = arena_tournament::timing::MachineLoad {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_load: None,
        };
        let game = self.game.clone();
        let timed = |bot: &arena_tournament::BotPlan| {
            bot.builtin().is_none_or(|name| game.builtin_thinks(name))
        };
        let timing =
            arena_tournament::timing::summarize(dir, &plan, machine, &timed).map_err(failed)?;
        let run = arena_tournament::RunSummary::of(&plan, &stats, bootstrap);
        report::write_outputs(dir, &plan, &stats, &run, &first, &timing).map_err(failed)?;
        let viewer = dir.join(report::VIEWER_FILE);
        std::fs::write(
            &viewer,
            arena_viewer::published_viewer_page(&self.viewer_games()),
        )
        .map_err(|e| HostError::Io(format!("cannot write {}: {e}", viewer.display())))?;
        Ok(entries.len())
    }

    /// The sandbox for the next game: made again when builds have found toolchains it does not
    /// show yet (as `arena tournament` makes its sandbox after preparing its bots).
    pub(crate) fn current_sandbox(&self) -> Result<Option<Arc<Sandbox>>, String> {
        let mut current = self
            .sandbox
            .lock()
            .map_err(|_| "the sandbox's lock was poisoned by a panic".to_string())?;
        if let Some(make) = &self.sandbox_factory {
            let roots = arena_submit::languages::tool_roots();
            if roots != current.0 {
                current.1 = make()?;
                current.0 = roots;
            }
        }
        Ok(current.1.clone())
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
}

/// The house user `name` with its built-in bot active in `league`; its user id.
async fn house_bot(
    store: &Store,
    name: &str,
    builtin: &str,
    league: i64,
) -> Result<i64, HostError> {
    // House users never sign in: their token hash is no SHA-256 of anything.
    let user = store
        .ensure_user(name, &format!("house:{name}"), Role::House)
        .await?;
    let existing = store
        .submissions(Some(user))
        .await?
        .into_iter()
        .find(|s| s.kind == "builtin" && s.source_name == builtin);
    let id = match existing {
        Some(submission) => submission.id,
        None => {
            store
                .add_submission(
                    user,
                    "builtin",
                    builtin,
                    None,
                    &sha256_hex(builtin.as_bytes()),
                    league,
                )
                .await?
        }
    };
    store.activate(user, id).await?;
    Ok(user)
}

pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes)?;
    encoder.finish()
}

pub fn gunzip(bytes: &[u8], cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(cap)
        .read_to_end(&mut out)?;
    Ok(out)
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

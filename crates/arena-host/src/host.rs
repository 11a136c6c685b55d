//! The running contest: the `Host` every part of the contest server works on, opened from the
//! contest file (`Host::open`: people and house bots, games a previous process left running) or
//! attached to a host's database by a worker of another machine (`Host::attach`), its options,
//! and small helpers they share. Submissions and their builds, the scheduler, the workers and
//! what is published of the games are `impl Host` blocks of their own modules.

use arena_core::options::GameOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arena_core::registry::GameEntry;
use arena_core::sandbox::Sandbox;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use crate::HostError;
use crate::config::{Contest, GameFacts};
use crate::store::{Promotion, Role, Store};

/// SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    /// Pin each worker and its bots to a core that no other arena job of this machine holds
    /// (`arena_core::process::lease_cpu`), with one job as with many.
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

/// Whether the process of this machine registered as `id` (`MACHINE:PID:START_MS`, a worker's id
/// or the scheduler lease's holder) still runs: its pid is a running process (not gone, not a
/// zombie killed and not yet reaped) that started before `START_MS` (a process started after it
/// has the id again: [`arena_core::folders::owner_gone`]). This process's own pid is not a
/// predecessor's: a registration under it is from an earlier run in this process, or reused.
fn process_alive(id: &str) -> bool {
    let mut parts = id.rsplitn(3, ':');
    let (start_ms, pid) = (parts.next(), parts.next());
    let Some(pid) = pid.and_then(|pid| pid.parse::<u32>().ok()) else {
        // Not an id of this format: nothing to judge it by but its lease.
        return true;
    };
    if pid == std::process::id() {
        return false;
    }
    // An id without its start: only whether the pid runs.
    let made = start_ms
        .and_then(|ms| ms.parse::<u64>().ok())
        .map_or_else(std::time::SystemTime::now, |ms| {
            std::time::UNIX_EPOCH + Duration::from_millis(ms)
        });
    !arena_core::folders::owner_gone(pid, made)
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
    /// How the contest's games treat and judge bots (from the contest file's time settings).
    pub(crate) rules: arena_core::runner::RunRules,
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
    /// The live workers' jobs as the scheduler last counted them, and when.
    pub(crate) live_jobs_seen: std::sync::Mutex<Option<(std::time::Instant, i64)>>,
    /// The ladder's queue as the scheduler left it at its last turn (queued games, after its
    /// refill): how many the workers took between two turns tells how deep to keep it.
    pub(crate) ladder_queue_left: std::sync::Mutex<Option<i64>>,
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
    pub(crate) prepared:
        std::sync::Mutex<std::collections::HashMap<i64, arena_submit::resolve::ResolvedBot>>,
    /// Submissions this process could not prepare (fetch, unpack or build), and until when its
    /// workers leave their games to other workers.
    pub(crate) unprepared: std::sync::Mutex<std::collections::HashMap<i64, std::time::Instant>>,
    /// The last database error the workers met and retried, for the front end to say.
    pub last_error: std::sync::Mutex<Option<String>>,
    /// The pages' live feed: the store's change marker, looked at once a second by one task
    /// while anyone listens (see `site::pages::events`), however many pages are open.
    pub(crate) live: std::sync::OnceLock<tokio::sync::watch::Receiver<String>>,
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
        let machine = holder.rsplitn(3, ':').nth(2);
        if machine == Some(machine_name().as_str()) && !process_alive(&holder) {
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

impl Host {
    /// How the contest's games treat and judge bots: its time scale, policy and clock, idle bots
    /// paused (see [`Contest::run_rules`]).
    pub(crate) fn run_rules(&self) -> arena_core::runner::RunRules {
        self.rules.clone()
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
        // The front end makes the game with the contest's options (as a worker does, from the
        // database's copy): a game made otherwise would play other rules than the contest says.
        if game.options_set() != &contest.options {
            return Err(HostError::Config(format!(
                "the game was made with options {} but the contest sets {}",
                serde_json::to_string(game.options_set()).unwrap_or_default(),
                serde_json::to_string(&contest.options).unwrap_or_default()
            )));
        }
        let rules = contest.run_rules()?;
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
            rules,
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
        rules: arena_core::runner::RunRules,
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
            rules,
            changed: Notify::new(),
            queued: Notify::new(),
            stopping: AtomicBool::new(false),
            requeued,
            revoked,
            workers_running: std::sync::atomic::AtomicUsize::new(0),
            jobs: std::sync::atomic::AtomicUsize::new(0),
            registered: tokio::sync::OnceCell::new(),
            koth_scheduled_for: std::sync::Mutex::new(None),
            live_jobs_seen: std::sync::Mutex::new(None),
            ladder_queue_left: std::sync::Mutex::new(None),
            listening: AtomicBool::new(false),
            worker_id: format!("{}:{}:{start_ms}", machine_name(), std::process::id()),
            lease_ms: workers.lease.as_millis().max(1) as i64,
            languages: format!(",{},", listed.join(",")),
            held: Default::default(),
            prepared: Default::default(),
            unprepared: Default::default(),
            last_error: std::sync::Mutex::new(None),
            live: Default::default(),
        })
    }

    /// A worker process of another machine (`arena worker`): the contest as the host wrote it in
    /// the database (`find_game` turns its game id and options into the game), no people, no
    /// scheduler.
    /// Refused when no host has opened the database yet.
    pub async fn attach(
        options: AttachOptions,
        find_game: impl Fn(&str, &GameOptions) -> Result<Arc<dyn GameEntry>, String>,
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
        let game =
            find_game(&view.contest.game, &view.contest.options).map_err(HostError::Config)?;
        let contest = view.contest;
        let rules = contest.run_rules()?;
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
            rules,
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

    /// Remembers a database error the workers or the scheduler met and will retry.
    pub(crate) fn note_error(&self, error: &HostError) {
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(error.to_string());
        }
    }

    /// The lease of a claim, in milliseconds.
    pub fn lease_ms(&self) -> i64 {
        self.lease_ms
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
    use super::process_alive;

    fn now_ms() -> u128 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
    }

    /// A registration is its process's while that process runs; a zombie's, a gone process's or
    /// one whose pid now belongs to a process started after it registered is a dead one's.
    #[test]
    fn a_registration_is_alive_by_pid_and_start_time() {
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .expect("sleep runs");
        let pid = child.id();
        let registered = now_ms();
        assert!(process_alive(&format!("machine:{pid}:{registered}")));
        // Registered long before this process started: its pid was used again since.
        assert!(!process_alive(&format!("machine:{pid}:1000")));
        // Machine names may hold colons.
        assert!(process_alive(&format!("a:b:{pid}:{registered}")));
        assert!(!process_alive(&format!(
            "machine:{}:{registered}",
            std::process::id()
        )));
        let _ = child.kill();
        // Killed, not reaped: a zombie, dead all the same.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while process_alive(&format!("machine:{pid}:{registered}")) {
            assert!(
                std::time::Instant::now() < deadline,
                "the zombie counts as alive"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.wait().expect("reaped");
        assert!(!process_alive(&format!("machine:{pid}:{registered}")));
    }
}

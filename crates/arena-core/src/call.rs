//! The call-per-move agent: one process per move, a shared file and arguments, for games whose
//! protocol is a [`CallProtocol`] (Coup's arbiter: `COMMAND... HISTORY OPP_COINS MY_COINS CARDS
//! LEGAL...`). The game says what goes in and how to read what comes out; this module runs, times,
//! sandboxes and cleans up.
//!
//! Each call: write the shared file (the game's text so far), spawn `COMMAND... FILE ARGS...` in the
//! bot's working directory as the leader of a new process group, wait for the leader to exit (or the
//! limit), kill the whole group, then read the file back. The file must be the old content plus what
//! the game's decoder accepts.
//!
//! The wait is synchronous (poll on the stdout/stderr pipes and a pidfd), because a call is dominated
//! by the bot's own start-up and every extra wake-up shows in the per-call cost. Inside a tokio runtime
//! the call never stalls other games: `block_in_place` on a multi-thread runtime, the blocking pool on
//! a current-thread one.

use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::io::BufRead;

use arena_game::builtin::{bot_seed, call_answer};
use arena_game::define::{CallProtocol, GameDef};
use arena_game::game::BotEntry;
use arena_game::game::{Answer, Fault, FaultKind};
use arena_game::record::{AgentLog, Reply};
use arena_game::timing::ClockKind;
use futures::future::BoxFuture;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::agent::Agent;
use crate::registry::{
    Configured, DefinedGame, GameEntry, GameRequest, GameResult, PlayError, PlayerSpec,
    builtin_agent, check_seats, play_seats,
};
use crate::runner::Seat;
use crate::sandbox::{Jail, Launch, Lease, Resident, ResidentCall, Sandbox, read_available};

/// Stdout kept per call (an Exchange answer is at most a few bytes; a flood is drained, not kept).
const STDOUT_CAP: usize = 4096;

/// How to run one bot.
#[derive(Clone, Debug)]
pub struct CallSpec {
    /// The bot's command; the shared file's path and the arguments are appended.
    pub argv: Vec<String>,
    /// The bot's own working directory (`None`: the referee's).
    pub workdir: Option<PathBuf>,
    /// The shared file (Coup's history file), one for all players of a game. Made absolute before
    /// use.
    pub history: PathBuf,
    /// Stderr kept over a whole game.
    pub stderr_cap: usize,
    /// The sandbox each call starts in (`None`: unconfined).
    pub sandbox: Option<Arc<Sandbox>>,
}

/// How a call's process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallEnd {
    Exited(ExitStatus),
    TimedOut,
}

/// The raw result of running a process once.
#[derive(Debug)]
pub struct RawCall {
    pub end: CallEnd,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Spawn to exit (or to the kill).
    pub elapsed: Duration,
    /// The process group it ran in (= the leader's pid), for tests that check nothing is left.
    pub pgid: i32,
    /// Killed by the sandbox's memory limit.
    pub memory_exceeded: bool,
    /// CPU time of the call (its sandbox's cgroup; `None` unsandboxed).
    pub cpu: Option<Duration>,
}

/// Whether the leader has exited, without reaping it (so its pid, the group id, stays reserved until
/// the group has been killed).
fn leader_exited(pid: i32) -> bool {
    // SAFETY: waitid with WNOWAIT only inspects our own child; `info` is plain data.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        rc == 0 && info.si_pid() != 0
    }
}

/// Reaps child `pid`: its wait status and the CPU time (user + system) it and the children it
/// waited for used.
fn wait_with_usage(pid: i32) -> io::Result<(i32, Duration)> {
    let mut status = 0;
    loop {
        // SAFETY: an all-zero rusage is a valid value to be overwritten.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on our own child with valid status and rusage pointers.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            let time = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec.max(0) as u64)
                    + Duration::from_micros(t.tv_usec.max(0) as u64)
            };
            return Ok((status, time(usage.ru_utime) + time(usage.ru_stime)));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

fn kill_group(pgid: i32) {
    // ESRCH (nobody left) is the normal case after a clean exit.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}

/// Kills the group (and the sandbox) and reaps the leader on every exit path, panics included.
struct Running {
    pid: i32,
    jail: Option<Jail>,
    reaped: bool,
    /// CPU time of the leader and the children it waited for, from `wait4` (unsandboxed calls).
    cpu: Option<Duration>,
}

impl Running {
    fn finish(&mut self) -> io::Result<ExitStatus> {
        crate::sandbox::kill_all(self.pid, self.jail.as_ref());
        if self.jail.is_some() {
            // bwrap reaps its sandbox and exits by itself; one that does not is ended outright.
            let until = Instant::now() + Duration::from_secs(2);
            while !leader_exited(self.pid) && Instant::now() < until {
                std::thread::sleep(Duration::from_micros(200));
            }
            kill_group(self.pid);
        }
        let status = if self.jail.is_some() {
            crate::sandbox::wait_pid(self.pid)
        } else {
            wait_with_usage(self.pid).map(|(status, cpu)| {
                self.cpu = Some(cpu);
                status
            })
        }
        .map(ExitStatus::from_raw);
        self.reaped = true;
        status
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            let _ = self.finish();
        }
    }
}

/// Runs `argv` once in `workdir` in its own process group, collecting stdout (capped) and stderr (up to
/// `stderr_cap`), and kills the whole group when the leader exits or at `limit`. Unconfined.
pub fn run_process(
    argv: &[String],
    workdir: Option<&Path>,
    limit: Duration,
    stderr_cap: usize,
) -> io::Result<RawCall> {
    run_process_in(argv, workdir, &[], limit, stderr_cap, None)
}

/// [`run_process`] in `sandbox` if given, where the bot may also write the files `writable`.
pub fn run_process_in(
    argv: &[String],
    workdir: Option<&Path>,
    writable: &[PathBuf],
    limit: Duration,
    stderr_cap: usize,
    sandbox: Option<&Sandbox>,
) -> io::Result<RawCall> {
    let started = Instant::now();
    let deadline = started + limit;
    let spawned = crate::sandbox::launch(
        &Launch {
            argv,
            workdir,
            cpu: None,
            stdin: false,
            writable,
        },
        sandbox,
    )?;
    let pid = spawned.pid;
    let mut stdout_pipe = spawned.stdout;
    let mut stderr_pipe = spawned.stderr;
    let mut running = Running {
        pid,
        jail: spawned.jail,
        reaped: false,
        cpu: None,
    };
    for fd in [
        stdout_pipe.as_ref().map(|p| p.as_raw_fd()),
        stderr_pipe.as_ref().map(|p| p.as_raw_fd()),
    ]
    .into_iter()
    .flatten()
    {
        crate::spawn::set_nonblocking(fd)?;
    }
    // A pidfd turns the leader's exit into a poll event; without one (old kernels) poll in 1 ms steps.
    // SAFETY: pidfd_open on our own child; the descriptor is wrapped so it is closed.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let pidfd = (pidfd >= 0).then(|| {
        // SAFETY: the syscall returned a fresh descriptor that nothing else owns.
        unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(pidfd as RawFd) }
    });

    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut timed_out = false;
    loop {
        let now = Instant::now();
        if leader_exited(pid) {
            break;
        }
        // An interrupt (Ctrl-C of a tournament) ends the call like its time limit.
        if now >= deadline || crate::watchdog::interrupted() {
            timed_out = true;
            break;
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(3);
        let mut add = |fd: RawFd| {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
        };
        if let Some(p) = &stdout_pipe {
            add(p.as_raw_fd());
        }
        if let Some(p) = &stderr_pipe {
            add(p.as_raw_fd());
        }
        if let Some(fd) = &pidfd {
            add(fd.as_raw_fd());
        }
        if let Some(fd) = crate::watchdog::interrupt_fd() {
            add(fd);
        }
        let left = deadline.saturating_duration_since(now);
        let wait_ms = if pidfd.is_some() {
            left.as_millis().min(i32::MAX as u128) as i32 + 1
        } else {
            left.as_millis().clamp(0, 1) as i32
        };
        // SAFETY: `fds` is a valid array of pollfd for the duration of the call.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
        if rc < 0 {
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
        if let Some(p) = &mut stdout_pipe
            && !read_available(Some(p), &mut stdout, STDOUT_CAP)
        {
            stdout_pipe = None;
        }
        if let Some(p) = &mut stderr_pipe
            && !read_available(Some(p), &mut stderr, stderr_cap)
        {
            stderr_pipe = None;
        }
    }
    // What the leader wrote before exiting is in the pipes already.
    if let Some(p) = &mut stdout_pipe {
        read_available(Some(p), &mut stdout, STDOUT_CAP);
    }
    if let Some(p) = &mut stderr_pipe {
        read_available(Some(p), &mut stderr, stderr_cap);
    }
    let status = running.finish()?;
    let elapsed = started.elapsed();
    let memory_exceeded = running.jail.as_ref().is_some_and(Jail::memory_exceeded);
    // A sandbox of its own for this call: its cgroup's CPU time is the call's; unsandboxed, what
    // `wait4` reported.
    let cpu = running
        .jail
        .as_ref()
        .and_then(Jail::cpu_time)
        .or(running.cpu);
    Ok(RawCall {
        cpu,
        memory_exceeded,
        end: if timed_out {
            CallEnd::TimedOut
        } else {
            CallEnd::Exited(status)
        },
        stdout,
        stderr,
        elapsed,
        pgid: pid,
    })
}

/// How much a call may add to the history file: far more than any move; a bot that writes more
/// forfeits (modified history) and arena does not read it.
const HISTORY_GROWTH: u64 = 1 << 20;

/// Makes the file at `path` hold exactly `text`, touching it as little as possible. Usually the file
/// already holds it (the previous call appended the move that made it), or a prefix of it (a built-in
/// opponent moved in between). Truncating with `O_TRUNC` is avoided: on ext4 a truncate to zero of a
/// file with data forces its blocks out (auto_da_alloc), which costs more than the bot's own start.
///
/// The file may sit in a folder the bot can write (a pooled sandbox's calls folder), so it is read
/// as untrusted ([`crate::folders::read_untrusted`]) and opened without following links: whatever
/// the bot put in its place (a link, a FIFO, a folder, a huge file) is removed and the file made
/// anew. Nothing of the bot runs between its calls, so nothing can swap it in between.
pub fn sync_history(path: &Path, text: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let current = match crate::folders::read_untrusted(path, text.len() as u64) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(_) => {
            crate::folders::remove_untrusted(path)?;
            None
        }
    };
    if current.as_deref() == Some(text) {
        return Ok(());
    }
    let current = current.unwrap_or_default();
    let open = |append: bool| {
        std::fs::OpenOptions::new()
            .write(true)
            .append(append)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
    };
    if let Some(rest) = text.strip_prefix(current.as_slice()) {
        return open(true)?.write_all(rest);
    }
    let mut file = open(false)?;
    file.write_all(text)?;
    file.set_len(text.len() as u64)
}

/// One call as the agent saw it.
#[derive(Debug)]
pub struct CallReport<A> {
    pub answer: Answer<A>,
    /// The arguments after the history path.
    pub args: Vec<String>,
    /// What the history file gained (lossy text) and what was printed.
    pub appended: String,
    pub stdout: String,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
    /// CPU time of the call, when measured.
    pub cpu: Option<Duration>,
    pub exit_status: Option<String>,
    pub pgid: Option<i32>,
}

impl<A> CallReport<A> {
    /// A call that did not run (or whose outcome is lost): `fault`, nothing read.
    fn failed(args: Vec<String>, fault: Fault) -> Self {
        CallReport {
            answer: Answer::Fault(fault),
            args,
            appended: String::new(),
            stdout: String::new(),
            stderr: Vec::new(),
            elapsed: Duration::ZERO,
            cpu: None,
            exit_status: None,
            pgid: None,
        }
    }
}

/// Makes one call for `obs`: writes the history file, runs the bot, judges what it did. Sandboxed,
/// every call builds a sandbox of its own (see [`call_bot_in`] for one per game).
pub fn call_bot<G: CallProtocol>(
    spec: &CallSpec,
    obs: &G::Obs,
    limit: Duration,
    stderr_cap: usize,
) -> CallReport<G::Action> {
    call_bot_in::<G>(spec, obs, limit, stderr_cap, &mut GameSandbox::PerGame)
}

/// A bot's sandbox for one game of calls.
#[derive(Debug, Default)]
pub enum GameSandbox {
    /// Set up on the first call when the spec's sandbox has a resident helper (and again after a
    /// call that ran out of time took it down), ended with the game.
    #[default]
    PerGame,
    Resident(Resident),
    /// Kept from the bot's earlier games by a tournament worker's pool, emptied between games; its
    /// calls folder holds this bot's copy of the history file.
    Leased(Lease),
}

impl GameSandbox {
    /// Where the history file is for this bot: its leased sandbox's calls folder (under the game's
    /// file name), or the game's own file.
    fn history_path(&self, shared: &Path) -> io::Result<PathBuf> {
        match self {
            GameSandbox::Leased(lease) => match (lease.calls_folder(), shared.file_name()) {
                (Some(dir), Some(name)) => Ok(dir.join(name)),
                _ => Err(io::Error::other("the leased sandbox has no calls folder")),
            },
            _ => std::path::absolute(shared),
        }
    }
}

/// Runs one call in the bot's sandbox for the game (`kept`): a leased one, or one set up on the
/// first call.
fn call_kept(
    spec: &CallSpec,
    sandbox: &Sandbox,
    kept: &mut GameSandbox,
    argv: &[String],
    writable: &[PathBuf],
    limit: Duration,
    stderr_cap: usize,
) -> io::Result<RawCall> {
    let alive = match kept {
        GameSandbox::PerGame => false,
        GameSandbox::Resident(resident) => resident.is_alive(),
        GameSandbox::Leased(lease) => lease.is_alive(),
    };
    if !alive {
        *kept = GameSandbox::Resident(Resident::start(
            sandbox,
            &spec.argv,
            spec.workdir.as_deref(),
            None,
            writable,
        )?);
    }
    let (cpu_before, call, cpu_after) = match kept {
        GameSandbox::Resident(running) => {
            let before = running.cpu_time();
            let call = running.call(argv, limit, stderr_cap)?;
            (before, call, running.cpu_time())
        }
        GameSandbox::Leased(lease) => {
            let before = lease.cpu_time();
            let call = lease.call(argv, limit, stderr_cap)?;
            (before, call, lease.cpu_time())
        }
        GameSandbox::PerGame => return Err(io::Error::other("no resident sandbox")),
    };
    Ok(raw_call(call, cpu_before, cpu_after))
}

/// A call in a kept sandbox as [`RawCall`]. The sandbox is gone after a call that ran out of time:
/// its CPU time is then unknown.
fn raw_call(
    call: ResidentCall,
    cpu_before: Option<Duration>,
    cpu_after: Option<Duration>,
) -> RawCall {
    let cpu = cpu_before
        .zip(cpu_after)
        .map(|(before, after)| after.saturating_sub(before));
    RawCall {
        cpu,
        end: match call.status {
            Some(status) => CallEnd::Exited(status),
            None if call.memory_exceeded => CallEnd::Exited(ExitStatus::from_raw(libc::SIGKILL)),
            None => CallEnd::TimedOut,
        },
        stdout: call.stdout,
        stderr: call.stderr,
        elapsed: call.elapsed,
        pgid: 0,
        memory_exceeded: call.memory_exceeded,
    }
}

/// [`call_bot`], in the bot's sandbox for the game (`kept`) when it is leased or the spec's sandbox
/// has a resident helper.
pub fn call_bot_in<G: CallProtocol>(
    spec: &CallSpec,
    obs: &G::Obs,
    limit: Duration,
    stderr_cap: usize,
    kept: &mut GameSandbox,
) -> CallReport<G::Action> {
    let args = G::call_args(obs);
    let before = G::call_file(obs).as_bytes();
    let mut report = CallReport::failed(args, Fault::new(FaultKind::SpawnFailed, "not run"));
    let history = match kept.history_path(&spec.history) {
        Ok(path) => path,
        Err(e) => {
            report.answer = Answer::Fault(Fault::new(
                FaultKind::SpawnFailed,
                format!("bad history path {}: {e}", spec.history.display()),
            ));
            return report;
        }
    };
    // The referee owns the file: every call starts from the game's exact text.
    if let Err(e) = sync_history(&history, before) {
        report.answer = Answer::Fault(Fault::new(
            FaultKind::SpawnFailed,
            format!("cannot write the history file {}: {e}", history.display()),
        ));
        return report;
    }
    if let GameSandbox::Leased(lease) = kept
        && let Err(e) = lease.give_to_bot(&history)
    {
        report.answer = Answer::Fault(Fault::new(
            FaultKind::SpawnFailed,
            format!(
                "cannot give the history file {} to the bot: {e}",
                history.display()
            ),
        ));
        return report;
    }
    let mut argv = Vec::with_capacity(spec.argv.len() + 1 + report.args.len());
    argv.extend(spec.argv.iter().cloned());
    argv.push(history.to_string_lossy().into_owned());
    argv.extend(report.args.iter().cloned());
    let writable = [history.clone()];
    let run = match spec.sandbox.as_deref() {
        Some(sandbox)
            if sandbox.policy().helper.is_some() || matches!(kept, GameSandbox::Leased(_)) =>
        {
            call_kept(spec, sandbox, kept, &argv, &writable, limit, stderr_cap)
        }
        sandbox => run_process_in(
            &argv,
            spec.workdir.as_deref(),
            &writable,
            limit,
            stderr_cap,
            sandbox,
        ),
    };
    let raw = match run {
        Ok(raw) => raw,
        Err(e) => {
            report.answer = Answer::Fault(Fault::new(
                FaultKind::SpawnFailed,
                format!(
                    "spawn failed: could not start `{}`: {e}",
                    spec.argv.join(" ")
                ),
            ));
            return report;
        }
    };
    report.elapsed = raw.elapsed;
    report.cpu = raw.cpu;
    report.pgid = (raw.pgid != 0).then_some(raw.pgid);
    report.stdout = String::from_utf8_lossy(&raw.stdout).into_owned();
    report.stderr = raw.stderr;
    if raw.memory_exceeded {
        report.answer = Answer::Fault(Fault::new(
            FaultKind::Memory,
            "killed by the sandbox's memory limit (out of memory)",
        ));
        return report;
    }
    let status = match raw.end {
        CallEnd::TimedOut => {
            report.answer = Answer::Fault(Fault::new(
                FaultKind::Timeout,
                format!("timeout: still running after {} ms", limit.as_millis()),
            ));
            return report;
        }
        CallEnd::Exited(status) => status,
    };
    report.exit_status = Some(crate::process::describe_status(status));
    if !status.success() {
        report.answer = Answer::Fault(Fault::new(
            FaultKind::Crashed,
            format!("non-zero exit: {}", crate::process::describe_status(status)),
        ));
        return report;
    }
    // The bot may have replaced the file (a FIFO, a link to /dev/zero, a huge file): read as
    // untrusted, with room for far more than a move.
    let new = match crate::folders::read_untrusted(&history, before.len() as u64 + HISTORY_GROWTH) {
        Ok(bytes) => bytes,
        Err(e) => {
            report.answer = Answer::Fault(Fault::new(
                FaultKind::Forfeit,
                format!("modified history: cannot read it back: {e}"),
            ));
            return report;
        }
    };
    let Some(appended) = new.strip_prefix(before) else {
        report.answer = Answer::Fault(Fault::new(
            FaultKind::Forfeit,
            format!(
                "modified history: the old content was changed (now {} bytes, was {})",
                new.len(),
                before.len()
            ),
        ));
        return report;
    };
    report.appended = String::from_utf8_lossy(appended).into_owned();
    report.answer = match G::decode_call(obs, appended, &raw.stdout) {
        Ok(action) => Answer::Action(action),
        Err(fault) => Answer::Fault(fault),
    };
    report
}

/// A process bot of a call-per-move game: one process per call.
pub struct CallAgent {
    spec: CallSpec,
    log: AgentLog,
    /// Bytes of stderr kept so far over the game's calls (each call's is its step's).
    stderr_kept: usize,
    /// The bot's sandbox for the whole game, when the sandbox has a resident helper.
    kept: GameSandbox,
    clock: ClockKind,
}

impl CallAgent {
    pub fn new(spec: CallSpec) -> Self {
        CallAgent {
            spec,
            log: AgentLog::default(),
            stderr_kept: 0,
            kept: GameSandbox::PerGame,
            clock: ClockKind::Wall,
        }
    }

    /// Calls the bot in `lease`, a sandbox kept from its earlier games (see
    /// [`crate::sandbox::SandboxPool::lease_for_calls`]), instead of one set up for this game.
    pub fn with_lease(mut self, lease: Lease) -> Self {
        self.kept = GameSandbox::Leased(lease);
        self
    }

    /// Judged on `clock`: on the CPU clock a call may run up to the clock's wall-clock cap, and the
    /// runner judges its CPU time.
    pub fn with_clock(mut self, clock: ClockKind) -> Self {
        self.clock = clock;
        self
    }

    /// The part of a call's stderr that fits in what is left of the cap (counted in
    /// `stderr_kept`; the rest counted as dropped), for that call's step.
    fn keep_stderr(&mut self, stderr: &[u8]) -> Option<String> {
        let room = self.spec.stderr_cap.saturating_sub(self.stderr_kept);
        let kept = room.min(stderr.len());
        self.stderr_kept += kept;
        self.log.stderr_dropped += stderr.len() - kept;
        (kept > 0).then(|| String::from_utf8_lossy(&stderr[..kept]).into_owned())
    }
}

impl<G: CallProtocol> Agent<G> for CallAgent {
    fn act<'a>(
        &'a mut self,
        obs: &'a G::Obs,
        _first: bool,
        limit: Duration,
    ) -> BoxFuture<'a, Reply<G::Action>> {
        let limit = match self.clock {
            ClockKind::Wall => limit,
            ClockKind::Cpu => ClockKind::wall_cap(limit),
        };
        Box::pin(async move {
            let cap = self
                .spec
                .stderr_cap
                .saturating_sub(self.log.stderr.len())
                .max(1);
            use tokio::runtime::{Handle, RuntimeFlavor};
            let report = match Handle::try_current() {
                // A worker of a multi-thread runtime can block in place: no hand-off to another
                // thread, and the runtime moves its other tasks elsewhere meanwhile.
                Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
                    tokio::task::block_in_place(|| {
                        call_bot_in::<G>(&self.spec, obs, limit, cap, &mut self.kept)
                    })
                }
                // A current-thread runtime runs one game (a tournament worker, `arena play`): calling
                // in place saves two thread hand-offs per call, which under load cost more than the
                // call itself; the game waits for the call either way.
                Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::CurrentThread => {
                    call_bot_in::<G>(&self.spec, obs, limit, cap, &mut self.kept)
                }
                Ok(handle) => {
                    let spec = self.spec.clone();
                    let owned = obs.clone();
                    let mut kept = std::mem::take(&mut self.kept);
                    match handle
                        .spawn_blocking(move || {
                            let report = call_bot_in::<G>(&spec, &owned, limit, cap, &mut kept);
                            (report, kept)
                        })
                        .await
                    {
                        Ok((report, kept)) => {
                            self.kept = kept;
                            report
                        }
                        Err(e) => CallReport::failed(
                            G::call_args(obs),
                            Fault::new(
                                FaultKind::SpawnFailed,
                                format!("spawn failed: the call task failed: {e}"),
                            ),
                        ),
                    }
                }
                Err(_) => call_bot_in::<G>(&self.spec, obs, limit, cap, &mut self.kept),
            };
            let stderr = self.keep_stderr(&report.stderr);
            if report.exit_status.is_some() {
                self.log.exit_status = report.exit_status.clone();
            }
            let input = format!("{:?}", report.args);
            // The same fields as the conformance transcripts.
            let raw_output =
                serde_json::json!({"wrote": report.appended, "stdout": report.stdout}).to_string();
            Reply {
                answer: report.answer,
                input: Some(input),
                raw_output: Some(raw_output),
                elapsed: report.elapsed,
                cpu: report.cpu,
                stderr,
                stderr_late: None,
            }
        })
    }

    fn finish(&mut self) -> BoxFuture<'_, AgentLog> {
        // The game is over: its own sandbox goes, a leased one back to its pool (emptied).
        self.kept = GameSandbox::PerGame;
        Box::pin(async move { std::mem::take(&mut self.log) })
    }

    fn is_process(&self) -> bool {
        true
    }
}

/// A fresh private directory for one game's history file: in `/dev/shm` (memory) when there is one,
/// else in the temporary directory. History files are written and removed every game; on a disk file
/// system (ext4) each new inode then costs a scan past the recently deleted ones, milliseconds per game
/// after a few thousand games.
pub fn scratch_dir(tag: &str) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "arena-calls-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let in_memory = Path::new("/dev/shm").join(&name);
    if std::fs::create_dir(&in_memory).is_ok() {
        return Ok(in_memory);
    }
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A scratch directory kept by a thread from one game to the next: making and removing a directory per
/// game cost ext4 more than a whole game of built-in bots (milliseconds: the directory allocator scans
/// block groups), so only the game's history file is removed after each game.
struct KeptDir(PathBuf);

impl Drop for KeptDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

thread_local! {
    static KEPT_DIR: std::cell::RefCell<Option<KeptDir>> = const { std::cell::RefCell::new(None) };
}

/// A private directory for one game's history file: this thread's kept one when free, else a new one.
fn game_dir() -> std::io::Result<KeptDir> {
    match KEPT_DIR.with(|kept| kept.borrow_mut().take()) {
        Some(dir) => Ok(dir),
        None => scratch_dir("play").map(KeptDir),
    }
}

/// Gives a game's directory back for the thread's next game. The main thread's is removed at once (its
/// thread-locals may never be dropped), as is a second one (two games at once on a multi-thread runtime).
fn return_game_dir(dir: KeptDir) {
    if std::thread::current().name() == Some("main") {
        return;
    }
    KEPT_DIR.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.is_none() {
            *kept = Some(dir);
        }
    });
}

/// The seats of one call-per-move game: built-in bots in process, commands called once per move on
/// the shared file `history`.
fn call_seats<D: GameDef>(
    def: &D,
    request: &GameRequest,
    history: &Path,
) -> Result<Vec<Seat<D::Game>>, PlayError>
where
    D::Game: CallProtocol,
{
    let options = &request.options;
    request
        .seats
        .iter()
        .enumerate()
        .map(|(index, seat)| {
            let (agent, seed): (Box<dyn Agent<D::Game>>, _) = match &seat.spec {
                PlayerSpec::Builtin(bot) => {
                    let seed = bot_seed(request.seed, index);
                    (
                        Box::new(builtin_agent(def.bots(), bot, seed, options.clock)?),
                        Some(seed),
                    )
                }
                PlayerSpec::Command(argv) => {
                    let agent = CallAgent::new(CallSpec {
                        argv: argv.clone(),
                        workdir: seat.workdir.clone(),
                        history: history.to_path_buf(),
                        stderr_cap: request.stderr_cap,
                        sandbox: options.sandbox.clone(),
                    })
                    .with_clock(options.clock);
                    // A sandbox kept from the bot's earlier games, when the tournament leased one.
                    let agent = match request.prepared.take(index) {
                        Some(lease) => agent.with_lease(lease),
                        None => agent,
                    };
                    (Box::new(agent), None)
                }
            };
            Ok(Seat {
                name: seat.name.clone(),
                spec: seat.spec.label(),
                bot_seed: seed,
                agent,
            })
        })
        .collect()
}

/// A call-per-move game as the front ends see it: a [`GameDef`] whose game speaks [`CallProtocol`].
pub struct CallEntry<D>(pub Configured<D>);

/// The registry entry of a call-per-move game.
pub fn call_entry<D: GameDef>(def: D) -> Box<dyn GameEntry>
where
    D::Game: CallProtocol,
{
    Box::new(CallEntry(Configured::new(def)))
}

impl<D: GameDef> GameEntry for CallEntry<D>
where
    D::Game: CallProtocol,
{
    // A process per move: each call's sandbox comes from the game (one per bot and game).
    fn stream_bots(&self) -> bool {
        false
    }

    // Each command bot is called in a sandbox kept for the game, which a tournament keeps between
    // games too.
    fn pooled_calls(&self) -> bool {
        true
    }

    fn definition(&self) -> &dyn DefinedGame {
        &self.0
    }

    fn definition_mut(&mut self) -> &mut dyn DefinedGame {
        &mut self.0
    }

    fn play(&self, request: GameRequest) -> BoxFuture<'static, Result<GameResult, PlayError>> {
        let config = self
            .0
            .config(request.variant.as_deref())
            .map_err(PlayError::from);
        let players = self.0.def.players();
        let id = self.0.def.id();
        let prepared = config.and_then(|config| {
            check_seats(id, players, request.seats.len())?;
            let dir = game_dir().map_err(PlayError::Scratch)?;
            let names: Vec<&str> = request.seats.iter().map(|s| s.name.as_str()).collect();
            let history = dir.0.join(D::Game::call_file_name(&names));
            let seats = call_seats(&self.0.def, &request, &history);
            Ok((config, dir, history, seats))
        });
        Box::pin(async move {
            let (config, dir, history, seats) = prepared?;
            let result = match seats {
                Ok(seats) => {
                    play_seats::<D::Game>(config, request.seed, seats, request.options).await
                }
                Err(e) => Err(e),
            };
            let _ = std::fs::remove_file(&history);
            return_game_dir(dir);
            result
        })
    }

    fn bot_main(
        &self,
        name: &str,
        args: &[String],
        _input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> Result<(), String> {
        call_bot_main(self.0.def.bots(), name, args, output).map_err(|e| e.to_string())
    }
}

/// Why a built-in bot called as a program could not answer.
#[derive(Debug, thiserror::Error)]
pub enum CallBotError {
    #[error("usage: FILE ARGS... (the shared file, then the game's arguments)")]
    Usage,
    #[error("cannot read the history file {path}: {source}")]
    ReadHistory { path: String, source: io::Error },
    /// The game's arguments or history were not ones the bot can answer: the game says why.
    #[error("{0}")]
    Answer(String),
    #[error("cannot print the answer: {0}")]
    Print(#[source] io::Error),
    #[error("cannot open the history file {path}: {source}")]
    OpenHistory { path: String, source: io::Error },
    #[error("cannot append to the history file: {0}")]
    Append(#[source] io::Error),
}

/// A built-in bot as a program on a call protocol (`arena bot coup NAME FILE ARGS...`): reads the
/// shared file, appends the bot's move, prints what it prints.
pub fn call_bot_main<G: CallProtocol>(
    bots: &[BotEntry<G>],
    name: &str,
    args: &[String],
    output: &mut dyn Write,
) -> Result<(), CallBotError> {
    let [path, rest @ ..] = args else {
        return Err(CallBotError::Usage);
    };
    let text = std::fs::read_to_string(path).map_err(|source| CallBotError::ReadHistory {
        path: path.clone(),
        source,
    })?;
    let (append, print) = call_answer(bots, name, text, rest).map_err(CallBotError::Answer)?;
    if !print.is_empty() {
        output
            .write_all(print.as_bytes())
            .and_then(|_| output.flush())
            .map_err(CallBotError::Print)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|source| CallBotError::OpenHistory {
            path: path.clone(),
            source,
        })?;
    file.write_all(append.as_bytes())
        .map_err(CallBotError::Append)
}

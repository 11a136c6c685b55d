//! Bot processes: each in its own process group, killed with its children on every exit path, with
//! stdout read in chunks, stdin written without ever blocking the caller, and stderr kept up to a cap.
//!
//! I/O is blocking-with-deadline on the caller's thread, not on the async runtime: a game asks one bot
//! at a time, so the thread has nothing else to do while it waits. An answer is waited for in a plain
//! blocking `read` on stdout, its deadline kept by the watchdog (`crate::watchdog`), as a bare referee
//! waits; `ppoll` over the pipes is kept for the rare waits that also write input (more than the pipe
//! took at once). Processes are started with `posix_spawn` (no `pre_exec` hook, which would force a
//! full `fork`): a CPU pin is set on the spawning thread just around the spawn and inherited.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How long a wait for stdout goes without draining stderr (a bot blocked on a full stderr pipe
/// waits that long at most).
const STDERR_SLICE: Duration = Duration::from_millis(20);
/// The size asked for a bot's stderr pipe: a turn's debug output fits without blocking the bot.
const STDERR_PIPE_SIZE: libc::c_int = 1 << 20;
/// How much of a bot's stderr is kept by default.
pub const DEFAULT_STDERR_CAP: usize = 64 * 1024;
/// Bytes of stdout read at a time.
const READ_CHUNK: usize = 16 * 1024;
/// How long `end` waits for the killed leader, and then for stderr to close.
const REAP_WAIT: Duration = Duration::from_secs(2);
const STDERR_WAIT: Duration = Duration::from_millis(200);

/// Standard error kept up to a cap; the rest is counted, not stored.
#[derive(Default, Debug)]
pub struct CappedText {
    pub bytes: Vec<u8>,
    pub dropped: usize,
    cap: usize,
}

impl CappedText {
    fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.bytes.len());
        let kept = room.min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..kept]);
        self.dropped += chunk.len() - kept;
    }
}

pub use crate::spawn::{
    CpuLease, favour_this_thread, favour_this_thread_realtime, lease_cpu, set_nonblocking,
};
pub use crate::watchdog::{interrupt_fd, interrupt_waits, interrupted};

/// What waiting for stdout gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Chunk<'a> {
    Data(&'a [u8]),
    /// The deadline passed first.
    Timeout,
    /// Stdout is closed (the bot exited or closed it).
    Closed,
}

/// A running bot process.
///
/// Input is written at once while the pipe has room, the rest while the caller waits for output;
/// stdout is read only when the caller wants an answer; stderr is drained whenever the caller waits (a
/// bot blocked on a full stderr pipe is let go at its next ask at the latest) and when it ends.
pub struct BotProcess {
    /// The group leader: the bot itself, or bubblewrap around it when sandboxed.
    pid: i32,
    pgid: Pid,
    /// The group the last pause stopped (resumed by the next resume).
    paused_group: std::cell::Cell<Option<Pid>>,
    /// CPU time of an unconfined bot, from `/proc` (opened on first use).
    cpu_probe: std::sync::OnceLock<TreeCpuProbe>,
    /// The sandbox, when there is one (dropped after the leader is reaped).
    jail: Option<crate::sandbox::Jail>,
    /// A pooled sandbox the bot runs in for this game (then `pid` is the sandbox's bwrap, which
    /// outlives the game: the helper inside reports the bot's exit instead).
    lease: Option<crate::sandbox::Lease>,
    /// The pooled sandbox's out-of-memory kills before this game.
    oom_before: u64,
    stdin: Option<File>,
    /// Input accepted from the caller but not yet taken by the pipe.
    unwritten: Vec<u8>,
    stdout: Option<File>,
    stderr_pipe: Option<File>,
    read_buffer: Box<[u8]>,
    stderr: CappedText,
    /// How much of `stderr` [`BotProcess::take_stderr`] has handed out (as a step's stderr); the
    /// rest goes to the end's whole-game text, so that no text is kept twice.
    stderr_taken: usize,
    ended: bool,
    reaped: bool,
    /// The leader's status when it exited before arena killed it.
    own_exit: Option<ExitStatus>,
}

/// What was left of a process after it was ended.
#[derive(Debug, Default)]
pub struct ProcessEnd {
    pub stderr: String,
    pub stderr_dropped: usize,
    /// Exit code or signal description, for the record only (exit status is never held against a bot
    /// at game end).
    pub status: Option<String>,
}

impl BotProcess {
    /// Starts `argv` in `workdir` as the leader of a new process group, on `cpu` only if given,
    /// without a sandbox.
    pub fn spawn(
        argv: &[String],
        workdir: Option<&Path>,
        stderr_cap: usize,
        cpu: Option<usize>,
    ) -> io::Result<Self> {
        Self::spawn_in(argv, workdir, stderr_cap, cpu, None)
    }

    /// Starts `argv` in `workdir` as the leader of a new process group, on `cpu` only if given, in
    /// `sandbox` if given.
    pub fn spawn_in(
        argv: &[String],
        workdir: Option<&Path>,
        stderr_cap: usize,
        cpu: Option<usize>,
        sandbox: Option<&crate::sandbox::Sandbox>,
    ) -> io::Result<Self> {
        let spawned = crate::sandbox::launch(
            &crate::sandbox::Launch {
                argv,
                workdir,
                cpu,
                stdin: true,
                writable: &[],
            },
            sandbox,
        )?;
        Self::from_spawned(spawned, stderr_cap)
    }

    /// Takes over a started process (from [`crate::sandbox::launch`] or
    /// [`crate::sandbox::Resident::exec`]); from here on, dropping it kills and reaps the bot.
    pub fn from_spawned(spawned: crate::sandbox::Spawned, stderr_cap: usize) -> io::Result<Self> {
        let process = BotProcess {
            pid: spawned.pid,
            pgid: Pid::from_raw(spawned.pid),
            paused_group: std::cell::Cell::new(None),
            cpu_probe: std::sync::OnceLock::new(),
            jail: spawned.jail,
            lease: None,
            oom_before: 0,
            stdin: spawned.stdin,
            unwritten: Vec::new(),
            stdout: spawned.stdout,
            stderr_pipe: spawned.stderr,
            read_buffer: vec![0u8; READ_CHUNK].into_boxed_slice(),
            stderr: CappedText {
                cap: stderr_cap,
                ..CappedText::default()
            },
            stderr_taken: 0,
            ended: false,
            reaped: false,
            own_exit: None,
        };
        // From here on, dropping `process` kills and reaps the bot.
        // stdout stays blocking: an answer is waited for in a plain `read` (see `next_chunk`).
        for fd in [
            process.stdin.as_ref().map(AsRawFd::as_raw_fd),
            process.stderr_pipe.as_ref().map(AsRawFd::as_raw_fd),
        ]
        .into_iter()
        .flatten()
        {
            set_nonblocking(fd)?;
        }
        if let Some(stdout) = process.stdout.as_ref() {
            crate::sandbox::set_blocking(stdout.as_raw_fd())?;
        }
        if let Some(stderr) = process.stderr_pipe.as_ref() {
            // Room for a turn's worth of debug output, drained between slices of a wait (best
            // effort: the system may cap pipe sizes).
            // SAFETY: F_SETPIPE_SZ on a pipe this process owns.
            unsafe { libc::fcntl(stderr.as_raw_fd(), libc::F_SETPIPE_SZ, STDERR_PIPE_SIZE) };
        }
        Ok(process)
    }

    /// Starts `argv` in a pooled sandbox (see [`crate::sandbox::SandboxPool`]); from here on,
    /// dropping the process ends the bot and gives the sandbox back.
    pub fn spawn_leased(
        mut lease: crate::sandbox::Lease,
        argv: &[String],
        stderr_cap: usize,
    ) -> io::Result<Self> {
        let oom_before = lease.oom_kills();
        let started = lease.spawn(argv)?;
        let mut process = Self::from_spawned(
            crate::sandbox::Spawned {
                pid: started.group,
                stdin: Some(started.stdin),
                stdout: Some(started.stdout),
                stderr: Some(started.stderr),
                jail: None,
            },
            stderr_cap,
        )?;
        process.lease = Some(lease);
        process.oom_before = oom_before;
        Ok(process)
    }

    /// Process group id (= the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// True when the bot was killed for going over its sandbox's memory limit.
    pub fn memory_exceeded(&self) -> bool {
        if let Some(lease) = &self.lease {
            return lease.oom_kills() > self.oom_before;
        }
        self.jail
            .as_ref()
            .is_some_and(crate::sandbox::Jail::memory_exceeded)
    }

    /// CPU time the bot has used so far, all its processes together: its sandbox's cgroup (exact,
    /// exited processes included), or else the process tree under the leader in `/proc` (in clock
    /// ticks; children count once reaped, through their parent's `cutime`). `None` when neither can
    /// be read (the bot is gone).
    pub fn cpu_time(&self) -> Option<Duration> {
        if let Some(lease) = &self.lease {
            // The pooled sandbox's cgroup counts every game it served: callers take differences.
            return lease.cpu_time();
        }
        if let Some(cpu) = self.jail.as_ref().and_then(crate::sandbox::Jail::cpu_time) {
            return Some(cpu);
        }
        if self.reaped {
            return None;
        }
        self.tree_probe().read()
    }

    /// The unconfined bot's CPU probe, opened on first use.
    fn tree_probe(&self) -> &TreeCpuProbe {
        self.cpu_probe.get_or_init(|| TreeCpuProbe::open(self.pid))
    }

    /// [`Self::cpu_time`] after a short answer: the same where it is cheap (a sandbox's cgroup);
    /// unconfined, the bot's threads now and its children as at the last full read (see
    /// [`FULL_READ_AFTER`]).
    pub fn cpu_time_quick(&self) -> Option<Duration> {
        if self.lease.is_some() || self.jail.is_some() || self.reaped {
            return self.cpu_time();
        }
        self.tree_probe().read_quick()
    }

    /// Processes and threads in the bot's sandbox now (`None` unsandboxed).
    pub fn sandbox_tasks(&self) -> Option<usize> {
        if let Some(lease) = &self.lease {
            // Less the pooled sandbox's helper.
            return lease.tasks().map(|tasks| tasks.saturating_sub(1));
        }
        self.jail.as_ref().and_then(crate::sandbox::Jail::tasks)
    }

    /// Queues bytes for the bot's stdin and writes what the pipe takes now; never waits for the bot.
    pub fn write(&mut self, bytes: &[u8]) {
        if self.stdin.is_none() {
            return;
        }
        if self.unwritten.is_empty() {
            // The usual case: the whole input fits in the pipe, no copy.
            let written = self.write_now(bytes);
            if let Some(rest) = bytes.get(written..)
                && !rest.is_empty()
                && self.stdin.is_some()
            {
                self.unwritten.extend_from_slice(rest);
            }
        } else {
            self.unwritten.extend_from_slice(bytes);
            self.flush_unwritten();
        }
    }

    /// Writes from `bytes` what the pipe takes now; how much it took.
    fn write_now(&mut self, bytes: &[u8]) -> usize {
        let mut written = 0;
        while written < bytes.len() {
            let Some(stdin) = self.stdin.as_mut() else {
                break;
            };
            match stdin.write(&bytes[written..]) {
                Ok(n) if n > 0 => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // The pipe is full: the rest goes out while the caller waits for output.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                // A bot that closed its input is noticed through its output, not here.
                _ => self.close_stdin(),
            }
        }
        written
    }

    fn flush_unwritten(&mut self) {
        let pending = std::mem::take(&mut self.unwritten);
        let written = self.write_now(&pending);
        if self.stdin.is_some() {
            self.unwritten = pending;
            self.unwritten.drain(..written);
        }
    }

    /// Closes the bot's stdin (anything unwritten is dropped).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
        self.unwritten.clear();
    }

    /// Waits until `deadline` for the next chunk of stdout, writing pending input and draining stderr
    /// meanwhile. Blocks the calling thread.
    pub fn next_chunk(&mut self, deadline: Instant) -> Chunk<'_> {
        if self.unwritten.is_empty() && crate::watchdog::available() {
            return self.next_chunk_blocking(deadline);
        }
        self.next_chunk_polled(deadline)
    }

    /// The stdout a wait reads, `None` once it is closed or waits were interrupted.
    fn stdout_to_wait_on(&self) -> Option<RawFd> {
        if interrupted() {
            return None;
        }
        self.stdout.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// [`Self::next_chunk`] as a bare referee waits: a plain blocking `read`, the deadline kept by
    /// the watchdog. stderr is drained before and every [`STDERR_SLICE`] of the wait.
    fn next_chunk_blocking(&mut self, deadline: Instant) -> Chunk<'_> {
        loop {
            let Some(fd) = self.stdout_to_wait_on() else {
                return Chunk::Closed;
            };
            self.drain_stderr();
            let now = Instant::now();
            let read = if now >= deadline {
                // What is there already counts, as with `ppoll` at a deadline that has passed.
                match read_nowait(fd, &mut self.read_buffer) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Chunk::Timeout,
                    other => other,
                }
            } else {
                let wake = deadline.min(now + STDERR_SLICE);
                crate::watchdog::read_until(fd, &mut self.read_buffer, wake)
            };
            match read {
                Ok(0) => {
                    self.stdout = None;
                    return Chunk::Closed;
                }
                Ok(n) => return Chunk::Data(&self.read_buffer[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // Not expected on a pipe; treat the bot as gone rather than spin.
                    self.stdout = None;
                    return Chunk::Closed;
                }
            }
        }
    }

    /// [`Self::next_chunk`] with `ppoll` over stdout, stderr, stdin (while input waits to go out)
    /// and the interrupt event.
    fn next_chunk_polled(&mut self, deadline: Instant) -> Chunk<'_> {
        loop {
            let Some(stdout) = self.stdout_to_wait_on() else {
                return Chunk::Closed;
            };
            let mut fds = [pollfd(stdout, libc::POLLIN); 4];
            let mut count = 1;
            if let Some(fd) = interrupt_fd() {
                fds[count] = pollfd(fd, libc::POLLIN);
                count += 1;
            }
            let stderr_at = self.stderr_pipe.as_ref().map(|pipe| {
                fds[count] = pollfd(pipe.as_raw_fd(), libc::POLLIN);
                count += 1;
                count - 1
            });
            let stdin_at = match &self.stdin {
                Some(pipe) if !self.unwritten.is_empty() => {
                    fds[count] = pollfd(pipe.as_raw_fd(), libc::POLLOUT);
                    count += 1;
                    Some(count - 1)
                }
                _ => None,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            let timeout = libc::timespec {
                tv_sec: left.as_secs().min(i32::MAX as u64) as libc::time_t,
                tv_nsec: left.subsec_nanos() as libc::c_long,
            };
            // SAFETY: `fds[..count]` are valid pollfd entries for descriptors this process owns, and
            // `timeout` outlives the call.
            let ready = unsafe {
                libc::ppoll(
                    fds.as_mut_ptr(),
                    count as libc::nfds_t,
                    &timeout,
                    std::ptr::null(),
                )
            };
            if ready < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                // Not expected with valid descriptors; treat the bot as gone rather than spin.
                self.stdout = None;
                return Chunk::Closed;
            }
            if ready == 0 {
                if Instant::now() >= deadline {
                    return Chunk::Timeout;
                }
                continue;
            }
            if let Some(at) = stderr_at
                && fds[at].revents != 0
            {
                self.drain_stderr();
            }
            if let Some(at) = stdin_at
                && fds[at].revents != 0
            {
                self.flush_unwritten();
            }
            if fds[0].revents != 0 {
                match self.read_stdout() {
                    Some(0) => {
                        self.stdout = None;
                        return Chunk::Closed;
                    }
                    Some(n) => return Chunk::Data(&self.read_buffer[..n]),
                    None => {}
                }
            }
        }
    }

    /// One read of stdout: `Some(n)` bytes (0 at end of file or on an error), `None` when nothing is
    /// there after all.
    fn read_stdout(&mut self) -> Option<usize> {
        let stdout = self.stdout.as_mut()?;
        loop {
            match stdout.read(&mut self.read_buffer) {
                Ok(n) => return Some(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                Err(_) => return Some(0),
            }
        }
    }

    /// Stdout that has already arrived, without waiting (`None` when there is none).
    pub fn ready_chunk(&mut self) -> Option<&[u8]> {
        let fd = self.stdout.as_ref()?.as_raw_fd();
        match read_nowait(fd, &mut self.read_buffer) {
            Ok(n) if n > 0 => Some(&self.read_buffer[..n]),
            _ => None,
        }
    }

    /// The stderr text written since the last call (within the cap), `None` when there is none.
    /// Reads what the pipe holds now, without waiting: a call costs one `read` when the bot wrote
    /// nothing. A character cut by a chunk boundary waits for the next call, so that it is not
    /// split into two replacement characters.
    pub fn take_stderr(&mut self) -> Option<String> {
        self.drain_stderr();
        let new = &self.stderr.bytes[self.stderr_taken..];
        let whole = match std::str::from_utf8(new) {
            Ok(_) => new.len(),
            // An incomplete character at the end: keep it for later (unless it can never end,
            // the cap having cut it).
            Err(e) if e.error_len().is_none() && self.stderr.bytes.len() < self.stderr.cap => {
                e.valid_up_to()
            }
            Err(_) => new.len(),
        };
        if whole == 0 {
            return None;
        }
        let text = String::from_utf8_lossy(&new[..whole]).into_owned();
        self.stderr_taken += whole;
        Some(text)
    }

    /// Reads what stderr holds now; closes it at end of file.
    fn drain_stderr(&mut self) {
        let mut buffer = [0u8; 4096];
        while let Some(pipe) = self.stderr_pipe.as_mut() {
            match pipe.read(&mut buffer) {
                Ok(0) => self.stderr_pipe = None,
                Ok(n) => self.stderr.push(&buffer[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => self.stderr_pipe = None,
            }
        }
    }

    /// Stops the whole group (SIGSTOP), so an idle bot cannot use the CPU while another one thinks.
    pub fn pause(&self) {
        let group = self.pause_group();
        self.paused_group.set(Some(group));
        let _ = killpg(group, Signal::SIGSTOP);
    }

    pub fn resume(&self) {
        let group = self
            .paused_group
            .take()
            .unwrap_or_else(|| self.pause_group());
        let _ = killpg(group, Signal::SIGCONT);
    }

    /// The group that pausing stops: in a pooled sandbox the bot's own group once the helper
    /// announced it (bwrap, the sandbox's init and the helper need not stop: four processes woken
    /// twice per answer instead of one), else the group arena started.
    pub fn pause_group(&self) -> Pid {
        self.lease
            .as_ref()
            .and_then(crate::sandbox::Lease::bot_group)
            .map_or(self.pgid, Pid::from_raw)
    }

    /// Kills the whole group, reaps the leader and collects stderr, at the end of the game.
    /// Idempotent.
    pub fn end(&mut self) -> ProcessEnd {
        self.end_because("ended by arena at game end")
    }

    /// [`BotProcess::end`], recording `why` as how the process ended if arena had to kill it. A
    /// leader that had already exited by itself is recorded as it ended (`exited (code 0)`,
    /// `killed by signal 11 (SIGSEGV)`), never as arena's kill.
    pub fn end_because(&mut self, why: &str) -> ProcessEnd {
        self.close_stdin();
        self.stdout = None;
        // Before any kill: whether the bot ended by itself (its status is kept once reaped).
        if !self.ended {
            self.reap(Duration::ZERO);
        }
        self.kill_group();
        let status = match self.own_exit {
            Some(status) => Some(self.describe(status)),
            None => {
                let mut status = self.reap(REAP_WAIT);
                if status.is_none() && !self.reaped {
                    if self.lease.is_some() {
                        // A pooled sandbox that did not report: killed with its bwrap.
                        self.lease = None;
                    } else {
                        // A sandbox's bwrap that did not follow its sandbox out: end it outright.
                        let _ = killpg(self.pgid, Signal::SIGKILL);
                    }
                    status = self.reap(REAP_WAIT);
                }
                status.map(|_| why.to_string())
            }
        };
        // A grandchild that escaped the group may hold stderr open: give it a moment, then stop.
        let until = Instant::now() + STDERR_WAIT;
        while let Some(pipe) = self.stderr_pipe.as_ref() {
            let mut fds = [pollfd(pipe.as_raw_fd(), libc::POLLIN)];
            let left = until.saturating_duration_since(Instant::now());
            // SAFETY: one valid pollfd for a descriptor this process owns.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, left.as_millis() as i32) };
            if ready == 0 || Instant::now() >= until {
                break;
            }
            self.drain_stderr();
        }
        self.stderr_pipe = None;
        // The cgroups can only go once everything inside has died.
        self.jail = None;
        if let Some(lease) = self.lease.take() {
            lease.finish();
        }
        ProcessEnd {
            // What no step took: written after the last answer, or at the end.
            stderr: String::from_utf8_lossy(&self.stderr.bytes[self.stderr_taken..]).into_owned(),
            stderr_dropped: self.stderr.dropped,
            status,
        }
    }

    /// How the bot ended, in words (see [`describe_status_of`]).
    pub fn describe(&self, status: ExitStatus) -> String {
        // A pooled sandbox's helper reports the bot's own wait status, not bwrap's.
        describe_status_of(status, self.jail.is_some() && self.lease.is_none())
    }

    /// Waits up to `patience` for the leader to exit by itself (after it closed its output), without
    /// killing it: its own exit status, as it happened, or `None` if it is still running.
    pub fn wait_exit(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        self.resume();
        self.reap(patience)
    }

    /// Waits up to `patience` for the (killed) leader's exit status: woken by its pidfd the moment it
    /// exits, or (kernels without pidfd) checking in short sleeps.
    fn reap(&mut self, patience: Duration) -> Option<ExitStatus> {
        if self.reaped {
            return None;
        }
        if let Some(lease) = self.lease.as_mut() {
            let status = lease.wait_exit(patience);
            if status.is_some() {
                self.reaped = true;
                if !self.ended {
                    self.own_exit = status;
                }
            }
            return status;
        }
        let until = Instant::now() + patience;
        // SAFETY: pidfd_open on our own child, not yet reaped, so the pid is still ours.
        let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, self.pid, 0) };
        let pidfd = (pidfd >= 0).then(|| {
            // SAFETY: a fresh descriptor that nothing else owns.
            unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(pidfd as RawFd) }
        });
        let mut pause = Duration::from_micros(50);
        loop {
            match try_wait(self.pid) {
                Ok(Some(status)) => {
                    self.reaped = true;
                    if !self.ended {
                        self.own_exit = Some(status);
                    }
                    return Some(status);
                }
                Ok(None) if Instant::now() < until => match &pidfd {
                    Some(fd) => {
                        let mut fds = [pollfd(fd.as_raw_fd(), libc::POLLIN)];
                        let left = until.saturating_duration_since(Instant::now());
                        // SAFETY: one valid pollfd for a descriptor this process owns.
                        unsafe { libc::poll(fds.as_mut_ptr(), 1, left.as_millis() as i32 + 1) };
                    }
                    None => {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(Duration::from_millis(5));
                    }
                },
                _ => return None,
            }
        }
    }

    /// Kills the whole group now; `end` then only reaps and collects. Killing every bot of a game
    /// before reaping any lets them exit in parallel.
    pub fn kill(&mut self) {
        // Whether the bot ended by itself first, so that its own status is recorded, not the kill.
        if !self.ended {
            self.reap(Duration::ZERO);
        }
        self.kill_group();
    }

    fn kill_group(&mut self) {
        if !self.ended {
            self.ended = true;
            match self.lease.as_mut() {
                Some(lease) => lease.end_game(),
                None => crate::sandbox::kill_all(self.pgid.as_raw(), self.jail.as_ref()),
            }
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        self.kill_group();
        if let Some(lease) = self.lease.take() {
            // The bot's exit is reported before the sandbox is clean; `finish` waits for both.
            lease.finish();
            self.reaped = true;
        }
        if !self.reaped {
            // Killed just above: the leader exits at once (a zombie would count as a live group).
            if self.reap(REAP_WAIT).is_none() && !self.reaped {
                let _ = killpg(self.pgid, Signal::SIGKILL);
            }
            let _ = crate::sandbox::wait_pid(self.pid);
            self.reaped = true;
        }
        self.jail = None;
    }
}

/// CPU time of an unconfined bot: its own threads from its CPU clock (exact, in nanoseconds, one
/// `clock_gettime`), plus its children's, from `/proc` (in clock ticks: reaped children through the
/// leader's `cutime`, live ones by a walk of the tree).
///
/// Reading `/proc/PID/stat` costs several microseconds (6.7 µs of a 19.5 µs answer where we measure),
/// so a quick read ([`TreeCpuProbe::read_quick`], after a short answer) adds the children's time as
/// it was at the last full read. What children do during an answer shorter than
/// [`FULL_READ_AFTER`] is bounded by that wall time and shows at the next full read.
#[derive(Debug)]
struct TreeCpuProbe {
    pid: i32,
    stat: Option<File>,
    children: Option<File>,
    /// The bot's process CPU clock (`None` if the system gives none).
    clock: Option<libc::clockid_t>,
    /// The children's time at the last full read (`None` before the first).
    children_part: std::cell::Cell<Option<Duration>>,
}

/// Answers at least this long (wall time) get a full CPU time read, children included.
pub const FULL_READ_AFTER: Duration = Duration::from_millis(1);

impl TreeCpuProbe {
    fn open(pid: i32) -> TreeCpuProbe {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: clock_getcpuclockid writes the clock id of `pid` into `clock`.
        let clock = (unsafe { libc::clock_getcpuclockid(pid, &mut clock) } == 0).then_some(clock);
        TreeCpuProbe {
            pid,
            stat: File::open(format!("/proc/{pid}/stat")).ok(),
            children: File::open(format!("/proc/{pid}/task/{pid}/children")).ok(),
            clock,
            children_part: std::cell::Cell::new(None),
        }
    }

    /// The bot's threads' CPU time from its CPU clock.
    fn own(&self) -> Option<Duration> {
        let clock = self.clock?;
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into `now`.
        if unsafe { libc::clock_gettime(clock, &mut now) } != 0 {
            return None;
        }
        Some(Duration::new(
            u64::try_from(now.tv_sec).ok()?,
            u32::try_from(now.tv_nsec).ok()?,
        ))
    }

    /// Threads and children, read in full.
    fn read(&self) -> Option<Duration> {
        let (tree, leader) = self.read_tree()?;
        let children = tree.saturating_sub(leader);
        self.children_part.set(Some(children));
        match self.own() {
            Some(own) => Some(own + children),
            None => Some(tree),
        }
    }

    /// Threads now, children as at the last full read.
    fn read_quick(&self) -> Option<Duration> {
        match (self.own(), self.children_part.get()) {
            (Some(own), Some(children)) => Some(own + children),
            _ => self.read(),
        }
    }

    /// The whole tree's time and the leader's own (its threads'), both from `/proc`. The leader's
    /// `stat` and its main thread's `children` stay open, so a single-threaded bot without children
    /// costs two `pread`s instead of a walk of `/proc` (a dozen system calls and path lookups).
    fn read_tree(&self) -> Option<(Duration, Duration)> {
        use std::os::unix::fs::FileExt;
        let read_fresh = || {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).ok()?;
            let fields = stat_fields(&stat)?;
            let leader = ticks_to_duration(own_ticks(&fields));
            Some((process_tree_cpu(self.pid)?, leader))
        };
        let (Some(stat), Some(children)) = (&self.stat, &self.children) else {
            return read_fresh();
        };
        let mut buffer = [0u8; 1024];
        let length = stat.read_at(&mut buffer, 0).ok()?;
        let text = std::str::from_utf8(&buffer[..length]).ok()?;
        let fields = stat_fields(text)?;
        let leader = ticks_to_duration(own_ticks(&fields));
        // num_threads is field 20 of stat (17 after the command): other threads' children are only
        // found by the whole walk.
        if fields.get(17).and_then(|n| n.parse::<u32>().ok()) != Some(1) {
            return Some((process_tree_cpu(self.pid)?, leader));
        }
        let mut list = [0u8; 64];
        match children.read_at(&mut list, 0) {
            Ok(0) => {}
            _ => return Some((process_tree_cpu(self.pid)?, leader)),
        }
        Some((ticks_to_duration(cpu_ticks(&fields)), leader))
    }
}

/// utime + stime (fields 14-15 of stat, 11-12 after the command), in ticks.
fn own_ticks(fields: &[&str]) -> u64 {
    sum_of_fields(fields, 11..13)
}

/// The fields of a `/proc/PID/stat` line after the command, which may hold spaces and parentheses
/// (they follow its last `)`).
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after = stat.rfind(')').and_then(|at| stat.get(at + 2..))?;
    Some(after.split_whitespace().collect())
}

/// utime + stime + cutime + cstime (fields 14-17 of stat, 11-14 after the command), in ticks.
fn cpu_ticks(fields: &[&str]) -> u64 {
    sum_of_fields(fields, 11..15)
}

fn sum_of_fields(fields: &[&str], range: std::ops::Range<usize>) -> u64 {
    fields
        .get(range)
        .into_iter()
        .flatten()
        .filter_map(|field| field.parse::<u64>().ok())
        .sum()
}

fn ticks_to_duration(ticks: u64) -> Duration {
    // SAFETY: sysconf only reads a constant.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / ticks_per_second)
}

/// CPU time of process `pid` and every live descendant, from `/proc` (user + system, with the
/// times of reaped children). `None` if `pid` itself cannot be read.
pub fn process_tree_cpu(pid: i32) -> Option<Duration> {
    let mut ticks = 0u64;
    let mut pending = vec![pid];
    let mut seen = 0usize;
    while let Some(pid) = pending.pop() {
        seen += 1;
        // A fork bomb is the sandbox's business; never walk more than a bounded tree here.
        if seen > 4096 {
            break;
        }
        let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat,
            Err(_) if seen > 1 => continue,
            Err(_) => return None,
        };
        let Some(fields) = stat_fields(&stat) else {
            continue;
        };
        ticks += cpu_ticks(&fields);
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
            for task in tasks.flatten() {
                if let Ok(children) = std::fs::read_to_string(task.path().join("children")) {
                    pending.extend(
                        children
                            .split_whitespace()
                            .filter_map(|c| c.parse::<i32>().ok()),
                    );
                }
            }
        }
    }
    Some(ticks_to_duration(ticks))
}

/// How a process ended, in words: `exited (code N)` or `killed by signal N (NAME)`.
pub fn describe_status(status: ExitStatus) -> String {
    describe_status_of(status, false)
}

/// [`describe_status`] of a process run `sandboxed`: bubblewrap passes on a bot's death by signal N
/// as its own exit code 128 + N (as shells do), read back as the signal.
pub fn describe_status_of(status: ExitStatus, sandboxed: bool) -> String {
    let signal = match status.code() {
        Some(code) if sandboxed && (129..=128 + 64).contains(&code) => Some(code - 128),
        Some(code) => return format!("exited (code {code})"),
        None => status.signal(),
    };
    match signal {
        Some(signal) => {
            let name = Signal::try_from(signal).map_or("?", Signal::as_str);
            let core = if status.core_dumped() {
                ", core dumped"
            } else {
                ""
            };
            format!("killed by signal {signal} ({name}{core})")
        }
        None => status.to_string(),
    }
}

/// The exit status of child `pid` if it has exited (reaping it), without waiting.
fn try_wait(pid: i32) -> io::Result<Option<ExitStatus>> {
    let mut status = 0;
    // SAFETY: waitpid on our own child with a valid status pointer.
    match unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } {
        0 => Ok(None),
        rc if rc == pid => Ok(Some(ExitStatus::from_raw(status))),
        _ => Err(io::Error::last_os_error()),
    }
}

fn pollfd(fd: RawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd,
        events,
        revents: 0,
    }
}

/// Reads what a (blocking) pipe holds now without waiting: `WouldBlock` when it holds nothing.
/// One `preadv2` with `RWF_NOWAIT`; kernels without it for pipes get a zero-timeout `poll` first.
fn read_nowait(fd: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
    static NOWAIT_WORKS: AtomicBool = AtomicBool::new(true);
    loop {
        if NOWAIT_WORKS.load(Ordering::Relaxed) {
            let vector = libc::iovec {
                iov_base: buffer.as_mut_ptr().cast(),
                iov_len: buffer.len(),
            };
            // SAFETY: one iovec over a buffer borrowed mutably; offset -1 reads at the pipe's
            // position.
            let read = unsafe { libc::preadv2(fd, &vector, 1, -1, libc::RWF_NOWAIT) };
            if read >= 0 {
                return Ok(read as usize);
            }
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) | Some(libc::ENOSYS) => {
                    NOWAIT_WORKS.store(false, Ordering::Relaxed);
                }
                Some(libc::EINTR) => {}
                _ => return Err(error),
            }
        } else {
            let mut fds = [pollfd(fd, libc::POLLIN)];
            // SAFETY: one valid pollfd for a descriptor this process owns, no waiting.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, 0) };
            if ready < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if ready <= 0 {
                return Err(io::Error::from(io::ErrorKind::WouldBlock));
            }
            // SAFETY: a read into a buffer borrowed mutably, of its own length; the pipe is
            // readable (or at its end), so it does not block.
            let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
            if read >= 0 {
                return Ok(read as usize);
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// True while any process of the group is alive (zombies included until reaped).
pub fn group_alive(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), None).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spawn::{FAVOURED_NICE, spawn_retrying};
    use nix::sched::{CpuSet, sched_setaffinity};

    fn allowed_cpus(pid: i32) -> String {
        allowed_cpus_in(std::path::Path::new(&format!("/proc/{pid}/status")))
    }

    /// The CPUs a task may run on, from its `status` file in `/proc`.
    fn allowed_cpus_in(status: &std::path::Path) -> String {
        std::fs::read_to_string(status)
            .expect("status")
            .lines()
            .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
            .expect("Cpus_allowed_list")
            .trim()
            .to_string()
    }

    /// The bot's CPU time (full reads) once it reaches `at_least`; `None` if it has not by
    /// `deadline`.
    fn cpu_time_reaching(
        bot: &BotProcess,
        at_least: Duration,
        deadline: Instant,
    ) -> Option<Duration> {
        loop {
            let now = bot.cpu_time().expect("readable");
            if now >= at_least {
                return Some(now);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The probe's short path (the leader alone) and its walk (children, threads) both count
    /// every process of the bot: a busy child while it runs, then a child that ran and exited.
    #[test]
    fn an_unconfined_bots_cpu_time_counts_its_children_live_and_reaped() {
        let script = "(while :; do :; done) & echo started; read line; kill $!; wait; \
                      (i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done); \
                      echo done; read line";
        let argv: Vec<String> = vec!["sh".into(), "-c".into(), script.into()];
        let mut bot = BotProcess::spawn_in(&argv, None, 4096, None, None).expect("starts");
        let deadline = Instant::now() + Duration::from_secs(60);
        assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
        // The shell waits while its child spins: only the walk sees the time grow.
        let start = bot.cpu_time().expect("readable");
        let live = cpu_time_reaching(&bot, start + Duration::from_millis(50), deadline)
            .expect("a live child's CPU time is counted");
        bot.write(b"go\n");
        assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
        // Children gone: the short path, with the reaped children's times.
        let reaped = bot.cpu_time().expect("readable");
        assert!(reaped > live, "{live:?} → {reaped:?}");
        bot.end();
    }

    #[test]
    fn a_quick_cpu_read_counts_threads_now_and_children_as_at_the_last_full_read() {
        // The shell spins itself, then a child spins while the shell waits for it.
        let script = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo own; read line; \
                      (while :; do :; done) & echo child; read line; kill $!; wait; echo done; \
                      read line";
        let argv: Vec<String> = vec!["sh".into(), "-c".into(), script.into()];
        let mut bot = BotProcess::spawn_in(&argv, None, 4096, None, None).expect("starts");
        let deadline = Instant::now() + Duration::from_secs(60);
        let before = bot.cpu_time_quick().expect("readable");
        assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
        // The bot's own work shows in a quick read, to the nanosecond (no clock ticks).
        let own = bot.cpu_time_quick().expect("readable");
        assert!(own > before, "{before:?} → {own:?}");
        bot.write(b"go\n");
        assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
        // The shell waits for its input while its child spins: quick reads leave the child out
        // until a full read finds it; after that, they carry it.
        let first = bot.cpu_time_quick().expect("readable");
        std::thread::sleep(Duration::from_millis(200));
        let quick = bot.cpu_time_quick().expect("readable");
        assert!(
            quick < first + Duration::from_millis(10),
            "{first:?} → {quick:?}"
        );
        let full = cpu_time_reaching(&bot, quick + Duration::from_millis(20), deadline)
            .expect("a full read counts the child");
        assert!(bot.cpu_time_quick().expect("readable") >= full);
        bot.write(b"go\n");
        assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
        bot.end();
    }

    #[test]
    fn waits_on_many_threads_end_at_their_own_deadlines_not_before() {
        // Silent bots, one per thread, each with its own deadline: every wait ends in a timeout,
        // never before its deadline, and a bot that answers in time is read on another thread
        // meanwhile.
        let silent: Vec<String> = vec!["sleep".into(), "30".into()];
        let waits: Vec<_> = (0..6u64)
            .map(|k| {
                let silent = silent.clone();
                std::thread::spawn(move || {
                    let mut bot =
                        BotProcess::spawn_in(&silent, None, 4096, None, None).expect("starts");
                    let deadline = Instant::now() + Duration::from_millis(40 + 60 * (5 - k));
                    let timed_out = matches!(bot.next_chunk(deadline), Chunk::Timeout);
                    let ended = Instant::now();
                    bot.end();
                    (timed_out, ended >= deadline)
                })
            })
            .collect();
        let echo: Vec<String> = vec![
            "sh".into(),
            "-c".into(),
            "sleep 0.1; echo late-but-in-time".into(),
        ];
        let mut answering = BotProcess::spawn_in(&echo, None, 4096, None, None).expect("starts");
        let answered = match answering.next_chunk(Instant::now() + Duration::from_secs(30)) {
            Chunk::Data(data) => data.to_vec(),
            other => panic!("{other:?}"),
        };
        assert_eq!(answered, b"late-but-in-time\n");
        answering.end();
        for wait in waits {
            assert_eq!(wait.join().expect("thread"), (true, true));
        }
    }

    #[test]
    fn a_deadline_interrupts_only_its_own_wait_never_a_later_call() {
        // Waits whose deadlines fall among a bot's outputs (a line about every millisecond), so
        // that kicks race with answers; after each wait, a `poll` on a quiet pipe must run its full
        // timeout: a kick that reached it would end it early with EINTR.
        let chatty: Vec<String> = vec![
            "sh".into(),
            "-c".into(),
            "while :; do echo x; sleep 0.0005; done".into(),
        ];
        let mut bot = BotProcess::spawn_in(&chatty, None, 4096, None, None).expect("starts");
        let (quiet, _keep_open) = nix::unistd::pipe().expect("pipe");
        let mut outcomes = [0usize; 2];
        for round in 0..400u64 {
            // Only lines written during the wait count: the backlog goes first.
            while bot.ready_chunk().is_some() {}
            let deadline = Instant::now() + Duration::from_micros(100 + (round * 37) % 3000);
            match bot.next_chunk(deadline) {
                Chunk::Data(_) => outcomes[0] += 1,
                Chunk::Timeout => {
                    assert!(Instant::now() >= deadline);
                    outcomes[1] += 1;
                }
                Chunk::Closed => panic!("the bot ended"),
            }
            let mut fds = [pollfd(quiet.as_raw_fd(), libc::POLLIN)];
            // SAFETY: one valid pollfd for a pipe this test owns.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, 2) };
            assert_eq!(ready, 0, "round {round}: {}", io::Error::last_os_error());
        }
        assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
        bot.end();
    }

    #[test]
    fn the_watchdog_runs_on_any_cpu_though_a_pinned_thread_started_it() {
        let silent: Vec<String> = vec!["sleep".into(), "30".into()];
        std::thread::spawn(move || {
            let mut only = CpuSet::new();
            only.set(0).expect("CPU 0");
            sched_setaffinity(Pid::from_raw(0), &only).expect("pin");
            let mut bot = BotProcess::spawn_in(&silent, None, 4096, None, None).expect("starts");
            let deadline = Instant::now() + Duration::from_millis(20);
            assert_eq!(bot.next_chunk(deadline), Chunk::Timeout);
            bot.end();
        })
        .join()
        .expect("pinned thread");
        let watchdog = std::fs::read_dir("/proc/self/task")
            .expect("tasks")
            .flatten()
            .find(|task| {
                std::fs::read_to_string(task.path().join("comm"))
                    .is_ok_and(|comm| comm.trim() == "arena-watchdog")
            })
            .expect("the watchdog thread");
        assert_eq!(
            allowed_cpus_in(&watchdog.path().join("status")),
            allowed_cpus_in(std::path::Path::new("/proc/self/status"))
        );
    }

    #[test]
    fn a_bot_that_fills_its_stderr_pipe_while_thinking_still_answers() {
        // 4 MB of stderr before the answer: more than the pipe holds, so the wait must drain it.
        let script = "head -c 4000000 /dev/zero >&2; echo answer";
        let argv: Vec<String> = vec!["sh".into(), "-c".into(), script.into()];
        let mut bot = BotProcess::spawn_in(&argv, None, 4096, None, None).expect("starts");
        let chunk = bot.next_chunk(Instant::now() + Duration::from_secs(30));
        assert_eq!(chunk, Chunk::Data(b"answer\n"));
        let end = bot.end();
        assert_eq!(end.stderr.len(), 4096);
        assert!(end.stderr_dropped >= 4_000_000 - 4096 - 64 * 1024);
    }

    #[test]
    fn spawning_retries_while_the_executable_is_busy_and_only_then() {
        let busy = || io::Error::from_raw_os_error(nix::errno::Errno::ETXTBSY as i32);
        let mut calls = 0;
        let result = spawn_retrying(|| {
            calls += 1;
            if calls < 3 { Err(busy()) } else { Ok(calls) }
        });
        assert_eq!(result.expect("third try works"), 3);
        let mut calls = 0;
        let result: io::Result<()> = spawn_retrying(|| {
            calls += 1;
            Err(io::Error::from(io::ErrorKind::NotFound))
        });
        assert_eq!(
            result.expect_err("not found").kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(calls, 1, "other errors are not retried");
    }

    fn nice_of(pid: i32) -> i64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
        // Fields after the command (which may hold spaces) end with `)`; nice is field 19.
        let after = &stat[stat.rfind(')').expect("comm") + 2..];
        after
            .split_whitespace()
            .nth(16)
            .and_then(|n| n.parse().ok())
            .expect("nice")
    }

    #[test]
    fn bots_of_a_favoured_thread_start_at_normal_priority() {
        let handle = std::thread::spawn(|| {
            let favoured = favour_this_thread();
            let argv = vec!["sleep".to_string(), "30".to_string()];
            let mut bot = BotProcess::spawn(&argv, None, 1024, Some(0)).expect("spawns");
            let me = nix::unistd::gettid().as_raw();
            let (thread_nice, bot_nice) = (nice_of(me), nice_of(bot.pgid()));
            bot.end();
            (favoured, thread_nice, bot_nice)
        });
        let (favoured, thread_nice, bot_nice) = handle.join().expect("thread");
        assert_eq!(bot_nice, 0, "bots never inherit arena's priority");
        if favoured {
            assert_eq!(
                thread_nice,
                i64::from(FAVOURED_NICE),
                "the thread keeps its own"
            );
        }
    }

    /// The scheduling policy of a process or thread (`SCHED_OTHER` is 0, `SCHED_RR` 2), without
    /// the reset-on-fork flag.
    fn policy_of(pid: i32) -> i32 {
        // SAFETY: sched_getscheduler only reads.
        unsafe { libc::sched_getscheduler(pid) & !libc::SCHED_RESET_ON_FORK }
    }

    #[test]
    fn bots_of_a_real_time_thread_start_as_ordinary_processes() {
        let handle = std::thread::spawn(|| {
            let favoured = favour_this_thread_realtime();
            let argv = vec!["sleep".to_string(), "30".to_string()];
            let mut bot = BotProcess::spawn(&argv, None, 1024, Some(0)).expect("spawns");
            let me = nix::unistd::gettid().as_raw();
            let result = (
                favoured,
                policy_of(me),
                policy_of(bot.pgid()),
                nice_of(bot.pgid()),
            );
            bot.end();
            result
        });
        let (favoured, thread_policy, bot_policy, bot_nice) = handle.join().expect("thread");
        assert_eq!(
            bot_policy,
            libc::SCHED_OTHER,
            "bots never inherit real time"
        );
        assert_eq!(bot_nice, 0, "nor a raised nice value");
        if favoured && thread_policy != libc::SCHED_OTHER {
            assert_eq!(thread_policy, libc::SCHED_RR, "the thread keeps its own");
        }
    }

    #[test]
    fn a_pinned_bot_runs_on_its_cpu_only_and_is_killed_with_its_group() {
        let argv = vec!["sleep".to_string(), "30".to_string()];
        let mut pinned = BotProcess::spawn(&argv, None, 1024, Some(0)).expect("spawns");
        assert_eq!(allowed_cpus(pinned.pgid()), "0");
        let mut free = BotProcess::spawn(&argv, None, 1024, None).expect("spawns");
        let everything = allowed_cpus(std::process::id() as i32);
        assert_eq!(allowed_cpus(free.pgid()), everything);
        let group = pinned.pgid();
        assert_eq!(
            allowed_cpus(nix::unistd::gettid().as_raw()),
            everything,
            "the spawning thread gets its own mask back"
        );
        pinned.end();
        free.end();
        assert!(!group_alive(group), "the group is gone once ended");
    }
}

//! Sandboxes kept between games ([`SandboxPool`]) and one game's use of one ([`Lease`]).

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::bwrap::{Jail, Launch, Sandbox, Spawned, absolute_args, kill_all, launch_begin};
use super::disk::Disk;
use super::helper::{CLEAN, END, GAME, RESET, announced_groups, helper_request, send_with_fds};
use super::resident::{Resident, ResidentCall, call_or_end, helper_argv};
use super::sys::{chown_tree, copy_entries, fresh_scratch_dir, pipe, wait_pid};

/// How long a reused sandbox may take to end a game and empty itself before it is thrown away.
const RESET_WAIT: Duration = Duration::from_secs(5);

/// Idle sandboxes a worker keeps for its bots' next games, on top of one game's seats
/// ([`SandboxPool::for_worker`]).
pub const SPARE_SANDBOXES: usize = 16;

/// Sandboxes kept between games by one tournament worker, so that a bot's next game starts with a
/// fork and an exec in a sandbox already set up instead of a new one (bwrap, namespaces, cgroups:
/// milliseconds of CPU per bot and game). Between games the sandbox's helper kills everything the
/// game left and empties what the bot could write (its folder, /tmp, /dev/shm, System V IPC); POSIX
/// message queues are refused to every bot. The pool holds at most `capacity` idle sandboxes (the
/// least recently used go first) and must be used from one long-lived thread: sandboxes die with the
/// thread that set them up.
#[derive(Debug)]
pub struct SandboxPool {
    sandbox: std::sync::Arc<Sandbox>,
    capacity: usize,
    idle: std::sync::Mutex<Vec<(PoolKey, Reusable)>>,
}

/// (the bot's command, its CPU, whether it is called once per move, whether it has a folder of its
/// own: without, its relative paths name files in arena's current folder).
type PoolKey = (Vec<String>, Option<usize>, bool, bool);

impl SandboxPool {
    /// A pool for `sandbox`, which must have a resident helper (`SandboxPolicy::helper`).
    pub fn new(sandbox: std::sync::Arc<Sandbox>, capacity: usize) -> Option<std::sync::Arc<Self>> {
        sandbox.policy.helper.as_ref()?;
        Some(std::sync::Arc::new(SandboxPool {
            sandbox,
            capacity: capacity.max(1),
            idle: std::sync::Mutex::new(Vec::new()),
        }))
    }

    /// The pool of one worker thread playing games of `seats` seats (a tournament's job, a contest
    /// server's worker): a game's seats and [`SPARE_SANDBOXES`] idle ones more.
    pub fn for_worker(
        sandbox: std::sync::Arc<Sandbox>,
        seats: usize,
    ) -> Option<std::sync::Arc<Self>> {
        Self::new(sandbox, SPARE_SANDBOXES + seats)
    }

    pub fn sandbox(&self) -> &std::sync::Arc<Sandbox> {
        &self.sandbox
    }

    /// A sandbox for one game of the bot `argv` on `cpu`, its folder filled with a copy of `folder`
    /// (or empty): an idle one of the same bot, or a new one. It goes back to the pool when the game
    /// is over, if it was emptied cleanly.
    pub fn lease(
        self: &std::sync::Arc<Self>,
        argv: &[String],
        cpu: Option<usize>,
        folder: Option<&Path>,
    ) -> io::Result<Lease> {
        self.lease_as(argv, cpu, folder, false)
    }

    /// [`SandboxPool::lease`] for a bot called once per move ([`Lease::call`]): its sandbox also
    /// has a folder for the game's files ([`Lease::calls_folder`]), emptied between games.
    pub fn lease_for_calls(
        self: &std::sync::Arc<Self>,
        argv: &[String],
        cpu: Option<usize>,
        folder: Option<&Path>,
    ) -> io::Result<Lease> {
        self.lease_as(argv, cpu, folder, true)
    }

    fn lease_as(
        self: &std::sync::Arc<Self>,
        argv: &[String],
        cpu: Option<usize>,
        folder: Option<&Path>,
        calls: bool,
    ) -> io::Result<Lease> {
        let key: PoolKey = (argv.to_vec(), cpu, calls, folder.is_some());
        let reused = self.idle.lock().ok().and_then(|mut idle| {
            let at = idle.iter().rposition(|(k, _)| *k == key)?;
            Some(idle.remove(at).1)
        });
        // The last game's reset ran meanwhile; a sandbox that did not come back clean is replaced.
        let reusable = match reused.and_then(|mut reusable| reusable.settle().then_some(reusable)) {
            Some(reusable) => reusable,
            None => Reusable::start(&self.sandbox, argv, cpu, calls, folder.is_none())?,
        };
        if let Some(folder) = folder.filter(|folder| folder.is_dir()) {
            reusable.fill(folder)?;
        }
        Ok(Lease {
            reusable: Some(reusable),
            key,
            home: std::sync::Arc::downgrade(self),
            ending: false,
            bot_group: std::cell::Cell::new(None),
            game_started: false,
        })
    }

    fn give_back(&self, key: PoolKey, reusable: Reusable) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push((key, reusable));
            if idle.len() > self.capacity {
                idle.remove(0);
            }
        }
    }
}

/// A sandbox set up once and used for a bot's games one after another (see [`SandboxPool`]).
#[derive(Debug)]
struct Reusable {
    spawned: Spawned,
    /// The bot's folder inside and out (bound at the same path).
    folder: PathBuf,
    /// For bots called once per move: a second writable folder for the game's files that are not
    /// the bot's own (Coup's history file), bound at the same path and emptied between games.
    calls: Option<PathBuf>,
    /// A game's end was asked for and the helper's "clean" not read yet.
    settling: bool,
}

impl Reusable {
    fn start(
        sandbox: &Sandbox,
        bot_argv: &[String],
        cpu: Option<usize>,
        with_calls: bool,
        from_current: bool,
    ) -> io::Result<Reusable> {
        // The bot's folder and its calls folder in one scratch folder, removed with the sandbox;
        // with a disk limit (root), one bounded tmpfs holds them both.
        let scratch = fresh_scratch_dir()?;
        let folder = scratch.join("bot");
        let calls = with_calls.then(|| scratch.join("calls"));
        let mut disk = None;
        let made = (|| -> io::Result<()> {
            if let (Some(size), true) = (sandbox.policy.limits.disk, sandbox.is_root()) {
                disk = Some(Disk::mount(&scratch, size)?);
            }
            std::fs::create_dir(&folder)?;
            if let Some(dir) = &calls {
                std::fs::create_dir(dir)?;
                // Only the referee's files are put here; the bot's user may change them (a call
                // appends to its history file) as the original arbiter's directory allowed.
                std::fs::set_permissions(
                    dir,
                    std::os::unix::fs::PermissionsExt::from_mode(0o1777),
                )?;
            }
            Ok(())
        })();
        let started = made.and_then(|()| {
            let writable: Vec<PathBuf> = calls.iter().cloned().collect();
            let argv = helper_argv(sandbox)?;
            let launch = Launch {
                argv: &argv,
                workdir: Some(&folder),
                cpu,
                stdin: true,
                writable: &writable,
            };
            // The sandbox's folder is the bot's working folder; a bot without a folder of its own
            // names its files from arena's current folder (`--bot ./prog`).
            let given = match from_current {
                true => absolute_args(bot_argv, &std::env::current_dir()?),
                false => bot_argv.to_vec(),
            };
            let mut pending = launch_begin(&launch, sandbox, Some(&given), true)?;
            pending.bot_given_as(bot_argv);
            Resident::finish(pending, sandbox)
        });
        let mut spawned = match started.map(|mut resident| resident.spawned.take()) {
            Ok(Some(spawned)) => spawned,
            failed => {
                drop(disk);
                let _ = std::fs::remove_dir_all(&scratch);
                return Err(match failed {
                    Err(e) => e,
                    _ => io::Error::other("the sandbox's helper is gone"),
                });
            }
        };
        if let Some(jail) = spawned.jail.as_mut() {
            // Unmounted and removed with the sandbox.
            jail.disk = disk;
            jail.scratch = Some(scratch);
        }
        if let Some(control) = spawned.stdin.as_ref() {
            let on: libc::c_int = 1;
            // SAFETY: setsockopt with a valid int option on our own socket. Without it the
            // games' bot groups are not announced and pausing stops the whole sandbox.
            unsafe {
                libc::setsockopt(
                    control.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_PASSCRED,
                    (&on as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
        }
        Ok(Reusable {
            spawned,
            folder,
            calls,
            settling: false,
        })
    }

    /// Waits for the helper to report the last game's leftovers gone (skipping the bot's exit if
    /// the game did not read it); false if it does not in time or breaks the protocol.
    fn settle(&mut self) -> bool {
        if !self.settling {
            return true;
        }
        let until = Instant::now() + RESET_WAIT;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.read_reply(left, 1) {
                Ok(Some(reply)) if reply == CLEAN => {
                    self.settling = false;
                    return true;
                }
                Ok(Some(reply)) if reply == b"X" => {
                    if !matches!(self.read_reply(left, 4), Ok(Some(_))) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    /// Reads one reply of `length` bytes from the helper within `patience`: `Ok(None)` when none
    /// came in time, `Err` when the helper is gone or the pipe broke.
    fn read_reply(&mut self, patience: Duration, length: usize) -> Result<Option<Vec<u8>>, ()> {
        let out = self.spawned.stdout.as_mut().ok_or(())?;
        let until = Instant::now() + patience;
        let mut reply = Vec::new();
        let mut buffer = [0u8; 8];
        while reply.len() < length {
            let mut fds = [libc::pollfd {
                fd: out.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }];
            let left = until.saturating_duration_since(Instant::now());
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, left.as_millis() as i32) };
            if ready <= 0 {
                // A reply cut in two would leave the protocol out of step.
                return if reply.is_empty() { Ok(None) } else { Err(()) };
            }
            match out.read(&mut buffer[..length - reply.len()]) {
                Ok(0) => return Err(()),
                Ok(n) => reply.extend_from_slice(&buffer[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => return Err(()),
            }
        }
        Ok(Some(reply))
    }

    /// Copies `from` into the (empty) folder, owned by the bot's user.
    fn fill(&self, from: &Path) -> io::Result<()> {
        copy_entries(from, &self.folder)?;
        if let Some((uid, gid)) = self.spawned.jail.as_ref().and_then(Jail::run_as) {
            for entry in std::fs::read_dir(&self.folder)? {
                chown_tree(&entry?.path(), uid, gid)?;
            }
        }
        Ok(())
    }
}

impl Drop for Reusable {
    fn drop(&mut self) {
        kill_all(self.spawned.pid, self.spawned.jail.as_ref());
        let _ = wait_pid(self.spawned.pid);
    }
}

/// One game's use of a pooled sandbox: starts the bot, tells when it exits, ends the game and
/// returns the sandbox to its pool (or discards it if it did not come back clean).
#[derive(Debug)]
pub struct Lease {
    reusable: Option<Reusable>,
    key: PoolKey,
    home: std::sync::Weak<SandboxPool>,
    /// The end of the game was asked for (once: the helper reads one request per game end).
    ending: bool,
    /// This game's bot process group, once announced (see [`Lease::bot_group`]).
    bot_group: std::cell::Cell<Option<i32>>,
    /// A stream game was started ([`Lease::spawn`]); otherwise the sandbox served calls, or nothing.
    game_started: bool,
}

/// What [`Lease::spawn`] gives: the bot's pipes (arena's ends) and its process group (for pausing).
#[derive(Debug)]
pub struct LeasedProcess {
    pub group: i32,
    pub stdin: File,
    pub stdout: File,
    pub stderr: File,
}

impl Lease {
    /// The sandbox's folder (the bot's working folder).
    pub fn folder(&self) -> Option<&Path> {
        self.reusable.as_ref().map(|r| r.folder.as_path())
    }

    /// Starts `argv` in the sandbox on fresh pipes, as the bot's user.
    pub fn spawn(&mut self, argv: &[String]) -> io::Result<LeasedProcess> {
        let reusable = self
            .reusable
            .as_mut()
            .ok_or_else(|| io::Error::other("the sandbox is gone"))?;
        let (stdin_read, stdin_write) = pipe()?;
        let (stdout_read, stdout_write) = pipe()?;
        let (stderr_read, stderr_write) = pipe()?;
        let control = reusable
            .spawned
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("no control socket"))?;
        // A group announced in an earlier game (whose bot never needed pausing) is stale: drop it,
        // so that the next announcement read is this game's.
        announced_groups(control.as_raw_fd());
        self.bot_group.set(None);
        self.game_started = true;
        let argv = reusable
            .spawned
            .jail
            .as_ref()
            .map_or(argv.to_vec(), |jail| jail.as_seen(argv));
        let mut request = helper_request(GAME, &argv);
        send_with_fds(
            control.as_raw_fd(),
            request[0],
            &[
                stdin_read.as_raw_fd(),
                stdout_write.as_raw_fd(),
                stderr_write.as_raw_fd(),
            ],
        )?;
        request.remove(0);
        control.write_all(&request)?;
        Ok(LeasedProcess {
            group: reusable.spawned.pid,
            stdin: File::from(stdin_write),
            stdout: File::from(stdout_read),
            stderr: File::from(stderr_read),
        })
    }

    /// The process group of this game's bot (in arena's PID namespace), once the helper's child
    /// announced it; `None` before that (pause the sandbox's whole group then).
    ///
    /// Waits for the announcement (a fork away) rather than guess: a stop sent to the sandbox's
    /// whole group while the bot's process is between its fork and its own group would reach it,
    /// take hold once it is in its own group, and the continue sent to the whole group would then
    /// miss it.
    pub fn bot_group(&self) -> Option<i32> {
        if self.bot_group.get().is_none() && self.game_started {
            let control = self.reusable.as_ref()?.spawned.stdin.as_ref()?;
            let until = Instant::now() + GROUP_WAIT;
            loop {
                if let Some(&group) = announced_groups(control.as_raw_fd()).last() {
                    self.bot_group.set(Some(group));
                    break;
                }
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                let mut fds = [libc::pollfd {
                    fd: control.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                }];
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(fds.as_mut_ptr(), 1, left.as_millis() as i32 + 1) };
            }
        }
        self.bot_group.get()
    }

    /// False once a call ran out of time or the helper failed (the sandbox is then gone).
    pub fn is_alive(&self) -> bool {
        self.reusable.is_some()
    }

    /// The folder for the game's own files (Coup's history file) in a sandbox leased with
    /// [`SandboxPool::lease_for_calls`]: writable by the bot, emptied between games.
    pub fn calls_folder(&self) -> Option<&Path> {
        self.reusable.as_ref()?.calls.as_deref()
    }

    /// Makes `path` (a file arena put in [`Lease::calls_folder`]) the bot's user's, so that the bot
    /// can change it as the game allows (Coup's history file, which a call appends to).
    pub fn give_to_bot(&self, path: &Path) -> io::Result<()> {
        match self.reusable.as_ref().and_then(|r| r.spawned.jail.as_ref()) {
            Some(jail) => jail.give(path),
            None => Ok(()),
        }
    }

    /// Runs `argv` once in the sandbox (a bot called once per move) and waits for it up to
    /// `limit`. A call that ran out of time takes the sandbox down: later calls fail.
    pub fn call(
        &mut self,
        argv: &[String],
        limit: Duration,
        stderr_cap: usize,
    ) -> io::Result<ResidentCall> {
        call_or_end(
            self,
            |lease| {
                lease
                    .reusable
                    .as_mut()
                    .map(|reusable| &mut reusable.spawned)
            },
            Lease::discard,
            "the sandbox is gone",
            argv,
            limit,
            stderr_cap,
        )
    }

    /// The sandbox's out-of-memory kills so far (compare before and after a game).
    pub fn oom_kills(&self) -> u64 {
        self.reusable
            .as_ref()
            .and_then(|r| r.spawned.jail.as_ref())
            .map_or(0, Jail::oom_kills)
    }

    /// CPU time of everything the sandbox ran so far, every game it served included (its cgroup).
    pub fn cpu_time(&self) -> Option<Duration> {
        self.reusable
            .as_ref()
            .and_then(|r| r.spawned.jail.as_ref())
            .and_then(Jail::cpu_time)
    }

    /// Processes and threads in the sandbox now (the helper included).
    pub fn tasks(&self) -> Option<usize> {
        self.reusable
            .as_ref()
            .and_then(|r| r.spawned.jail.as_ref())
            .and_then(Jail::tasks)
    }

    /// Asks the helper to end the game: everything the game started is killed.
    pub fn end_game(&mut self) {
        let Some(reusable) = self.reusable.as_mut().filter(|_| !self.ending) else {
            return;
        };
        self.ending = true;
        // A paused group must run for the helper to act.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(reusable.spawned.pid),
            nix::sys::signal::Signal::SIGCONT,
        );
        // A stream game's helper waits in the game for END; after calls (or nothing) it waits for a
        // request, and RESET names the calls folder to empty with the rest.
        let request = if self.game_started {
            vec![END]
        } else {
            let calls = reusable
                .calls
                .as_ref()
                .map_or_else(|| ".".to_string(), |dir| dir.to_string_lossy().into_owned());
            helper_request(RESET, &[calls])
        };
        let sent = reusable
            .spawned
            .stdin
            .as_mut()
            .map(|control| control.write_all(&request));
        if !matches!(sent, Some(Ok(()))) {
            self.discard();
        }
    }

    /// Waits up to `patience` for the bot's exit as the helper reports it (its wait status).
    pub fn wait_exit(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        let message = self.read_reply(patience, 5)?;
        if message[0] != b'X' {
            self.discard();
            return None;
        }
        let raw = i32::from_le_bytes([message[1], message[2], message[3], message[4]]);
        Some(std::os::unix::process::ExitStatusExt::from_raw(raw))
    }

    /// Ends the game (if not yet) and gives the sandbox back to its pool at once: the helper empties
    /// it meanwhile, and the next lease waits for it to be clean (off this game's path).
    pub fn finish(mut self) {
        self.release();
    }

    fn release(&mut self) {
        if self.reusable.is_none() {
            return;
        }
        self.end_game();
        match (self.reusable.take(), self.home.upgrade()) {
            (Some(mut reusable), Some(home)) => {
                reusable.settling = true;
                home.give_back(self.key.clone(), reusable);
            }
            _ => self.discard(),
        }
    }

    fn discard(&mut self) {
        self.reusable = None;
    }

    /// Reads one reply of `length` bytes from the helper within `patience`; a broken sandbox is
    /// discarded.
    fn read_reply(&mut self, patience: Duration, length: usize) -> Option<Vec<u8>> {
        match self.reusable.as_mut()?.read_reply(patience, length) {
            Ok(reply) => reply,
            Err(()) => {
                self.discard();
                None
            }
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.release();
    }
}

/// How long the pause of a bot in a pooled sandbox waits for the helper's child to announce its
/// process group (it takes a fork); a helper that never does is paused with its whole sandbox.
const GROUP_WAIT: Duration = Duration::from_secs(1);

/// A seat's sandbox, ready before its game: one set up for this game (the helper becomes the bot),
/// or a pooled one (the helper starts the bot and stays).
#[derive(Debug)]
pub enum PreparedSeat {
    Resident(Resident),
    Lease(Lease),
}

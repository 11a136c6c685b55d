//! The sandbox every bot process runs in: bubblewrap (`bwrap`) for the namespaces and the filesystem
//! view, cgroups (v1 or v2) for memory, tasks and the CPU set, resource limits for file size, open
//! files and CPU time, and a small seccomp filter that keeps every process of a bot in its process
//! group. See `docs/sandbox.md` for what it guarantees, what it does not, and why bubblewrap.
//!
//! How a sandboxed process starts (all the cost is here, none per answer):
//! 1. `bwrap` is started with `posix_spawn` (no `fork` of arena), with exactly five descriptors: the
//!    bot's stdin/stdout/stderr, an info pipe and a block pipe, plus the seccomp program;
//! 2. bwrap builds the namespaces and mounts, reports the pid of the sandbox's init on the info pipe
//!    and waits on the block pipe before starting the bot;
//! 3. arena moves that init into the bot's cgroups and sets its resource limits (both inherited by
//!    everything started inside), then releases it.
//!
//! The bot's processes stay in one process group (the seccomp filter refuses `setsid` and
//! `setpgid`), so pausing stays one `killpg(SIGSTOP)`: the group arena made for bwrap, or in a
//! sandbox kept between games the group the helper made for the game's bot (see `helper_game`);
//! killing the sandbox's init (pid 1 of its PID namespace) kills everything in it.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// CodinGame's memory limit.
pub const DEFAULT_MEMORY: u64 = 768 << 20;
/// Processes and threads of one bot, all together.
pub const DEFAULT_TASKS: u32 = 64;
/// Largest file a bot may write.
pub const DEFAULT_FILE_SIZE: u64 = 256 << 20;
/// Open descriptors per process (a JVM needs a few hundred).
pub const DEFAULT_OPEN_FILES: u64 = 1024;
/// Memory of a build step, at least (compilers need more than bots: a JVM, tsc, g++ with templates).
pub const BUILD_MEMORY: u64 = 2 << 30;
/// Processes and threads of a build step, at least (`make -j`, a JVM's threads).
pub const BUILD_TASKS: u32 = 256;
/// The user bots run as when arena runs as root (`nobody` on Debian).
pub const SANDBOX_UID: u32 = 65534;
/// `PATH` inside the sandbox.
pub const SANDBOX_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// How long bwrap may take to set a sandbox up before the start counts as failed.
const SETUP_WAIT: Duration = Duration::from_secs(10);

/// Resource limits of one bot (`None`: not limited).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Memory of all the bot's processes together, bytes (swap included where the kernel counts it).
    pub memory: Option<u64>,
    /// Processes and threads of the bot together.
    pub tasks: Option<u32>,
    /// Largest file, bytes (`RLIMIT_FSIZE`: a write beyond it fails and raises SIGXFSZ).
    pub file_size: Option<u64>,
    /// Open descriptors per process (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
    /// CPU seconds per process (`RLIMIT_CPU`; SIGXCPU, then SIGKILL one second later).
    pub cpu_seconds: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: Some(DEFAULT_MEMORY),
            tasks: Some(DEFAULT_TASKS),
            file_size: Some(DEFAULT_FILE_SIZE),
            open_files: Some(DEFAULT_OPEN_FILES),
            cpu_seconds: None,
        }
    }
}

/// What the organiser chooses about the sandbox.
#[derive(Clone, Debug, Default)]
pub struct SandboxPolicy {
    pub limits: Limits,
    /// Environment variables given to every bot on top of the documented ones.
    pub env: Vec<(String, String)>,
    /// Host folders or files shown read-only inside every sandbox (a toolchain outside `/usr`).
    pub read_only: Vec<PathBuf>,
    /// The bubblewrap program; `None`: `bwrap` on `PATH`.
    pub bwrap: Option<PathBuf>,
    /// A program that can serve as the sandbox's resident helper (`arena` itself: see
    /// [`run_helper_if_asked`]). With one, Coup's per-move calls start inside one sandbox per bot and
    /// game; without, every call builds a sandbox of its own.
    pub helper: Option<PathBuf>,
}

/// Why the sandbox cannot be set up: every missing piece, each with what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxUnavailable {
    pub missing: Vec<String>,
}

impl std::fmt::Display for SandboxUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "the bot sandbox cannot be set up on this machine:")?;
        for item in &self.missing {
            writeln!(f, "  - {item}")?;
        }
        write!(
            f,
            "fix the above, or run with `--sandbox none` to run bots unconfined (with your privileges)"
        )
    }
}

impl std::error::Error for SandboxUnavailable {}

/// A checked, ready sandbox configuration, shared by every bot of a run.
#[derive(Debug)]
pub struct Sandbox {
    policy: SandboxPolicy,
    bwrap: CString,
    cgroups: CgroupRoot,
    /// `(uid, gid)` the bot runs as, when arena is root (otherwise the bot keeps arena's user inside
    /// a user namespace).
    run_as: Option<(u32, u32)>,
    /// bwrap arguments for the system folders, computed once.
    system: Vec<String>,
}

static MADE: AtomicU64 = AtomicU64::new(0);

impl Sandbox {
    /// The start-up check: finds bwrap, tries a sandbox, checks the cgroup controllers. Either a
    /// usable sandbox, or every missing piece at once.
    pub fn new(policy: SandboxPolicy) -> Result<Sandbox, SandboxUnavailable> {
        let mut missing = Vec::new();
        let bwrap = match &policy.bwrap {
            Some(path) if !path.is_file() => {
                missing.push(format!(
                    "bubblewrap: {} (given as the bwrap program) does not exist",
                    path.display()
                ));
                None
            }
            Some(path) => CString::new(path.as_os_str().as_bytes()).ok(),
            None => match find_on_path("bwrap") {
                Some(path) => CString::new(path.as_os_str().as_bytes()).ok(),
                None => {
                    missing.push(
                    "bubblewrap: no `bwrap` on PATH (Debian/Ubuntu: apt-get install bubblewrap; \
                     Fedora: dnf install bubblewrap)"
                        .into(),
                    );
                    None
                }
            },
        };
        // SAFETY: geteuid only reads.
        let root = unsafe { libc::geteuid() } == 0;
        let cgroups = match CgroupRoot::find() {
            Ok(cgroups) => Some(cgroups),
            Err(why) => {
                missing.push(why);
                None
            }
        };
        for path in &policy.read_only {
            if !path.is_absolute() || !path.exists() {
                missing.push(format!(
                    "read-only folder {}: not an absolute path to something that exists",
                    path.display()
                ));
            }
        }
        let (Some(bwrap), Some(cgroups)) = (bwrap, cgroups) else {
            return Err(SandboxUnavailable { missing });
        };
        if !missing.is_empty() {
            return Err(SandboxUnavailable { missing });
        }
        let sandbox = Sandbox {
            policy,
            bwrap,
            cgroups,
            run_as: root.then_some((SANDBOX_UID, SANDBOX_UID)),
            system: system_binds(),
        };
        sandbox.cgroups.sweep_stale();
        if let Err(why) = sandbox.try_once() {
            return Err(SandboxUnavailable { missing: vec![why] });
        }
        Ok(sandbox)
    }

    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The sandbox of a submission's build steps: this one's containment (namespaces, no network, the
    /// system read-only, only the build folder writable, the same user and environment), with room
    /// for compilers (at least [`BUILD_MEMORY`] and [`BUILD_TASKS`], no CPU-time limit: the build's
    /// own time limit bounds it) and `toolchains` shown read-only on top.
    pub fn for_builds(&self, toolchains: &[PathBuf]) -> Sandbox {
        let mut policy = self.policy.clone();
        let limits = &mut policy.limits;
        limits.memory = limits.memory.map(|memory| memory.max(BUILD_MEMORY));
        limits.tasks = limits.tasks.map(|tasks| tasks.max(BUILD_TASKS));
        limits.file_size = limits.file_size.map(|size| size.max(DEFAULT_FILE_SIZE));
        limits.cpu_seconds = None;
        for path in toolchains {
            if path.is_absolute() && path.exists() && !policy.read_only.contains(path) {
                policy.read_only.push(path.clone());
            }
        }
        Sandbox {
            policy,
            bwrap: self.bwrap.clone(),
            cgroups: self.cgroups.clone(),
            run_as: self.run_as,
            system: self.system.clone(),
        }
    }

    /// Which cgroup hierarchy the limits use, for messages.
    pub fn cgroup_version(&self) -> u8 {
        match self.cgroups {
            CgroupRoot::V1 { .. } => 1,
            CgroupRoot::V2 { .. } => 2,
        }
    }

    /// Starts `/bin/true` in a full sandbox and waits for it: proves namespaces, mounts, cgroups and
    /// limits work here before any game depends on them.
    fn try_once(&self) -> Result<(), String> {
        let argv = ["true".to_string()];
        let launch = Launch {
            argv: &argv,
            workdir: None,
            cpu: None,
            stdin: false,
            writable: &[],
        };
        let spawned = launch_sandboxed(&launch, self).map_err(|e| {
            format!(
                "bubblewrap could not start a sandbox ({e}); namespaces may be disabled \
                 (kernel.unprivileged_userns_clone, a container without CAP_SYS_ADMIN)"
            )
        })?;
        let status = wait_pid(spawned.pid);
        match status {
            Ok(0) => Ok(()),
            Ok(code) => {
                let mut text = String::new();
                if let Some(mut stderr) = spawned.stderr {
                    let _ = set_blocking(stderr.as_raw_fd());
                    let _ = stderr.read_to_string(&mut text);
                }
                Err(format!(
                    "a test sandbox failed (wait status {code}): {}",
                    text.trim()
                ))
            }
            Err(e) => Err(format!("a test sandbox could not be waited for: {e}")),
        }
    }
}

/// How to start one bot process.
#[derive(Clone, Copy, Debug)]
pub struct Launch<'a> {
    /// Program and arguments. A program without `/` is looked up on `PATH`.
    pub argv: &'a [String],
    /// The working folder (writable inside the sandbox). `None`: arena's current folder unsandboxed,
    /// a fresh empty folder sandboxed.
    pub workdir: Option<&'a Path>,
    /// The CPU the bot may use (a cpuset when sandboxed, so the bot cannot widen it).
    pub cpu: Option<usize>,
    /// A pipe for stdin (`false`: `/dev/null`).
    pub stdin: bool,
    /// Files outside the working folder the bot may write (Coup's history file).
    pub writable: &'a [PathBuf],
}

/// A started process: its pid (the group leader), the pipes, and the sandbox it lives in.
#[derive(Debug)]
pub struct Spawned {
    pub pid: i32,
    pub stdin: Option<File>,
    pub stdout: Option<File>,
    pub stderr: Option<File>,
    pub jail: Option<Jail>,
}

/// Starts a process as `launch` says, in `sandbox` if given; the process leads a new process group.
pub fn launch(launch: &Launch<'_>, sandbox: Option<&Sandbox>) -> io::Result<Spawned> {
    match sandbox {
        Some(sandbox) => launch_sandboxed(launch, sandbox),
        None => launch_plain(launch),
    }
}

fn launch_plain(launch: &Launch<'_>) -> io::Result<Spawned> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let (program, args) = launch
        .argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
    let mut command = Command::new(program);
    // Only options std can pass to posix_spawn (a process group and a directory are among them; a
    // pre_exec hook is not).
    command
        .args(args)
        .stdin(if launch.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = launch.workdir {
        command.current_dir(dir);
    }
    let mut child = {
        let _inherited = crate::spawn::SpawnAttributes::new(launch.cpu)?;
        crate::spawn::spawn_retrying(|| command.spawn())?
    };
    let to_file = |fd: OwnedFd| File::from(fd);
    let spawned = Spawned {
        pid: child.id() as i32,
        stdin: child.stdin.take().map(|p| to_file(p.into())),
        stdout: child.stdout.take().map(|p| to_file(p.into())),
        stderr: child.stderr.take().map(|p| to_file(p.into())),
        jail: None,
    };
    // The `Child` handle is dropped without waiting: the pid is reaped by whoever holds `Spawned`.
    drop(child);
    Ok(spawned)
}

/// A connected pair of Unix stream sockets, both close-on-exec.
fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair fills two descriptors on success.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A pipe, both ends close-on-exec: `(read, write)`.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn cstring(text: impl AsRef<OsStr>) -> io::Result<CString> {
    CString::new(text.as_ref().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a NUL byte in {:?}", text.as_ref()),
        )
    })
}

/// The sandbox of one started process: its cgroups, the pid namespace's init, a scratch folder.
/// Dropping it kills whatever is left inside and removes the cgroups and the folder.
#[derive(Debug)]
pub struct Jail {
    /// pidfd of the sandbox's init (pid 1 of its namespace), opened while bwrap was blocked, so a
    /// signal through it can never reach a recycled pid.
    init: Option<OwnedFd>,
    cgroups: Option<BotCgroups>,
    scratch: Option<PathBuf>,
    /// A pooled sandbox's folder for the referee's files (see `Reusable::calls`), removed with it.
    scratch_calls: Option<PathBuf>,
}

impl Jail {
    /// Kills everything in the sandbox: the namespace's init, and with it every process inside.
    pub fn kill(&self) {
        if let Some(fd) = &self.init {
            // SAFETY: pidfd_send_signal on our own pidfd, no siginfo.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    fd.as_raw_fd(),
                    libc::SIGKILL,
                    std::ptr::null::<libc::siginfo_t>(),
                    0,
                )
            };
        }
    }

    /// True when the kernel's out-of-memory killer acted in this sandbox (the memory limit was hit).
    pub fn memory_exceeded(&self) -> bool {
        self.oom_kills() > 0
    }

    /// How many times the out-of-memory killer acted in this sandbox.
    pub fn oom_kills(&self) -> u64 {
        self.cgroups.as_ref().map_or(0, BotCgroups::oom_kills)
    }

    /// CPU time used so far by everything that ran in the sandbox, when the cgroups account it.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.cgroups.as_ref().and_then(BotCgroups::cpu_time)
    }

    /// How many processes and threads are in the sandbox now (cgroup count), when known.
    pub fn tasks(&self) -> Option<usize> {
        self.cgroups.as_ref().and_then(BotCgroups::tasks)
    }
}

impl Drop for Jail {
    fn drop(&mut self) {
        self.kill();
        if let Some(cgroups) = self.cgroups.take() {
            cgroups.remove();
        }
        for dir in [self.scratch.take(), self.scratch_calls.take()]
            .into_iter()
            .flatten()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Kills everything a process started (the process group `pgid` it leads, and its sandbox). With a
/// sandbox, its init is killed (the kernel then kills everything in its namespace, in the group or
/// not) and bwrap, left alive and continued, reaps it and exits: once bwrap is reaped, nothing of
/// the bot is left, not even a zombie. Without, the whole group is killed.
pub fn kill_all(pgid: i32, jail: Option<&Jail>) {
    use nix::sys::signal::{Signal, killpg};
    let group = nix::unistd::Pid::from_raw(pgid);
    match jail {
        Some(jail) => jail.kill(),
        None => {
            let _ = killpg(group, Signal::SIGKILL);
        }
    }
    // A stopped group must be continued: a stopped bwrap cannot reap, and some kernels deliver a
    // kill to a stopped process late.
    let _ = killpg(group, Signal::SIGCONT);
}

fn launch_sandboxed(launch: &Launch<'_>, sandbox: &Sandbox) -> io::Result<Spawned> {
    launch_in(launch, sandbox, None)
}

/// Starts `launch` in a new sandbox. With `resident = Some(bot_argv)`, `launch.argv` is the resident
/// helper, which keeps root's `CAP_SETUID`, `CAP_SETGID` and `CAP_KILL` to start each call as the
/// bot's user and to end everything a call left; `bot_argv` says what else must be visible.
fn launch_in(
    launch: &Launch<'_>,
    sandbox: &Sandbox,
    resident: Option<&[String]>,
) -> io::Result<Spawned> {
    launch_finish(launch_begin(launch, sandbox, resident, false)?, sandbox)
}

/// Starts bwrap for `launch` without waiting for its sandbox: several can be set up at once, from
/// the thread that owns them (bwrap dies with the thread that started it).
fn launch_begin(
    launch: &Launch<'_>,
    sandbox: &Sandbox,
    resident: Option<&[String]>,
    reusable: bool,
) -> io::Result<Pending> {
    if launch.argv.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
    }
    let mut jail = Jail {
        init: None,
        cgroups: None,
        scratch: None,
        scratch_calls: None,
    };
    let workdir = match launch.workdir {
        Some(dir) => std::path::absolute(dir)?,
        None => {
            let dir = std::env::temp_dir().join(format!(
                "arena-sandbox-{}-{}",
                std::process::id(),
                MADE.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir(&dir)?;
            jail.scratch = Some(dir.clone());
            dir
        }
    };
    if !workdir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the working folder {} is not a folder", workdir.display()),
        ));
    }
    let base = match launch.workdir {
        Some(_) => workdir.clone(),
        None => std::env::current_dir()?,
    };
    let (argv, mut visible) = visible_paths(launch.argv, &base, &workdir);
    if let Some(bot) = resident {
        let (_, more) = visible_paths(bot, &base, &workdir);
        visible.extend(more);
        visible.sort();
        visible.dedup();
    }
    if let Some((uid, gid)) = sandbox.run_as {
        // The bot's own folder and files become its user's: arena (root) still reads and removes them.
        chown_tree(&workdir, uid, gid)?;
        for file in launch.writable {
            std::os::unix::fs::lchown(file, Some(uid), Some(gid))?;
        }
    }

    let mut args: Vec<String> = vec!["bwrap".into()];
    if sandbox.run_as.is_some() {
        // Root: no user namespace (it would map the bot back to root); the bot is made `nobody`
        // below instead, which needs these two capabilities until then.
        args.extend(
            [
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup-try",
            ]
            .map(String::from),
        );
    } else {
        args.push("--unshare-all".into());
    }
    args.extend(
        [
            "--die-with-parent",
            "--hostname",
            "arena",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            // /dev/tty would be arena's terminal: a bot could write to it or push input into it.
            "--ro-bind",
            "/dev/null",
            "/dev/tty",
            // Writable by the bot's user (bwrap's default mode is root's 0755).
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
        ]
        .map(String::from),
    );
    args.extend(sandbox.system.iter().cloned());
    // Folders on the way to what is mounted are made by bwrap with the mode of the host's, which
    // may shut the bot's user out (`/root` is 0700): made here first, traversable and unlistable.
    let mut made: Vec<PathBuf> = Vec::new();
    let mounted = sandbox
        .policy
        .read_only
        .iter()
        .chain(&visible)
        .chain(std::iter::once(&workdir))
        .chain(launch.writable);
    for path in mounted {
        let path = std::path::absolute(path)?;
        for ancestor in path
            .ancestors()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let premade = ["/", "/tmp", "/dev", "/dev/shm", "/proc"]
                .iter()
                .any(|dir| ancestor == Path::new(dir));
            if premade || is_system(ancestor) || made.iter().any(|m| m == ancestor) {
                continue;
            }
            made.push(ancestor.to_path_buf());
            args.extend([
                "--perms".into(),
                "0711".into(),
                "--dir".into(),
                ancestor.to_string_lossy().into_owned(),
            ]);
        }
    }
    for path in sandbox.policy.read_only.iter().chain(&visible) {
        let path = path.to_string_lossy().into_owned();
        args.extend(["--ro-bind".into(), path.clone(), path]);
    }
    let dir = workdir.to_string_lossy().into_owned();
    args.extend(["--bind".into(), dir.clone(), dir.clone()]);
    for file in launch.writable {
        let file = std::path::absolute(file)?.to_string_lossy().into_owned();
        args.extend(["--bind".into(), file.clone(), file]);
    }
    args.extend(["--chdir".into(), dir.clone(), "--clearenv".into()]);
    let mut env = vec![
        ("PATH".to_string(), SANDBOX_PATH.to_string()),
        ("HOME".to_string(), dir.clone()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("TMPDIR".to_string(), "/tmp".to_string()),
    ];
    env.extend(sandbox.policy.env.iter().cloned());
    for (name, value) in env {
        args.extend(["--setenv".into(), name, value]);
    }
    // Descriptors in the child: 0-2 the bot's, 3 info, 4 block, 5 seccomp.
    args.extend(["--info-fd", "3", "--block-fd", "4", "--seccomp", "5"].map(String::from));
    if resident.is_some() {
        args.extend(
            [
                "--cap-add",
                "CAP_SETUID",
                "--cap-add",
                "CAP_SETGID",
                "--cap-add",
                "CAP_KILL",
            ]
            .map(String::from),
        );
        if reusable {
            // Between games the helper empties what the bot could write (its folder, /tmp,
            // /dev/shm, System V IPC), whoever owns it and whatever its mode.
            args.extend(
                [
                    "--cap-add",
                    "CAP_DAC_OVERRIDE",
                    "--cap-add",
                    "CAP_FOWNER",
                    "--cap-add",
                    "CAP_IPC_OWNER",
                ]
                .map(String::from),
            );
        }
        args.push("--".into());
    } else if let Some((uid, gid)) = sandbox.run_as {
        args.extend(
            [
                "--cap-add",
                "CAP_SETUID",
                "--cap-add",
                "CAP_SETGID",
                "--",
                "/usr/bin/setpriv",
            ]
            .map(String::from),
        );
        args.extend([
            format!("--reuid={uid}"),
            format!("--regid={gid}"),
            "--clear-groups".into(),
            "--".into(),
        ]);
    } else {
        args.push("--".into());
    }
    args.extend(argv);

    let (stdin_read, stdin_write) = if reusable {
        // A socket, to hand each game's pipes to the helper.
        let (r, w) = socket_pair()?;
        (Some(r), Some(w))
    } else if launch.stdin {
        let (r, w) = pipe()?;
        (Some(r), Some(w))
    } else {
        (None, None)
    };
    let null = File::open("/dev/null")?;
    let (stdout_read, stdout_write) = pipe()?;
    let (stderr_read, stderr_write) = pipe()?;
    let (info_read, info_write) = pipe()?;
    let (block_read, block_write) = pipe()?;
    // A resident helper may give each game's bot a process group of its own; the bot itself gets
    // the whole filter from the helper, stacked on this one (see `become_bot`).
    let seccomp = seccomp_memfd(resident.is_some())?;
    let stdin_fd = stdin_read
        .as_ref()
        .map_or(null.as_raw_fd(), AsRawFd::as_raw_fd);
    let sources = [
        stdin_fd,
        stdout_write.as_raw_fd(),
        stderr_write.as_raw_fd(),
        info_write.as_raw_fd(),
        block_read.as_raw_fd(),
        seccomp.as_raw_fd(),
    ];
    let argv_c = args.iter().map(cstring).collect::<io::Result<Vec<_>>>()?;
    // bwrap itself needs no environment; the bot's is given with --setenv.
    let envp_c = vec![cstring("PATH=/usr/bin:/bin")?];
    let pid = {
        let _inherited = crate::spawn::SpawnAttributes::new(None)?;
        crate::spawn::spawn_retrying(|| spawn_raw(&sandbox.bwrap, &argv_c, &envp_c, &sources))?
    };
    drop((
        stdin_read,
        stdout_write,
        stderr_write,
        info_write,
        block_read,
    ));
    drop((null, seccomp));
    Ok(Pending {
        spawned: Spawned {
            pid,
            stdin: stdin_write.map(File::from),
            stdout: Some(File::from(stdout_read)),
            stderr: Some(File::from(stderr_read)),
            jail: None,
        },
        jail,
        info_read,
        block_write,
        cpu: launch.cpu,
    })
}

/// A bwrap started and setting its sandbox up, not yet released (see [`launch_finish`]).
struct Pending {
    spawned: Spawned,
    jail: Jail,
    info_read: OwnedFd,
    block_write: OwnedFd,
    cpu: Option<usize>,
}

/// Waits for bwrap's sandbox, puts its init in the bot's cgroups, sets its limits and releases it.
fn launch_finish(pending: Pending, sandbox: &Sandbox) -> io::Result<Spawned> {
    let Pending {
        mut spawned,
        mut jail,
        info_read,
        block_write,
        cpu,
    } = pending;
    let started = (|| -> io::Result<()> {
        let init = read_init_pid(info_read, &mut spawned)?;
        // SAFETY: pidfd_open on the init, alive: bwrap is blocked before starting anything.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, init, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor that nothing else owns.
        jail.init = Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
        let cgroups = sandbox
            .cgroups
            .create(&sandbox.policy.limits, cpu)
            .map_err(io::Error::other)?;
        cgroups.attach(init).map_err(io::Error::other)?;
        jail.cgroups = Some(cgroups);
        set_limits(init, &sandbox.policy.limits)?;
        let mut block = File::from(block_write);
        block.write_all(b"1")?;
        Ok(())
    })();
    if let Err(e) = started {
        jail.kill();
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(spawned.pid),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = wait_pid(spawned.pid);
        return Err(e);
    }
    spawned.jail = Some(jail);
    Ok(spawned)
}

/// Reads bwrap's report (`{"child-pid": N, ...}`) and returns the init's pid; on failure, bwrap's own
/// message.
fn read_init_pid(info: OwnedFd, spawned: &mut Spawned) -> io::Result<i32> {
    let mut info = File::from(info);
    let deadline = Instant::now() + SETUP_WAIT;
    let mut text = Vec::new();
    let mut buffer = [0u8; 512];
    loop {
        let mut fds = [libc::pollfd {
            fd: info.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }];
        let left = deadline.saturating_duration_since(Instant::now());
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, left.as_millis() as i32 + 1) };
        if ready == 0 {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "bwrap did not set the sandbox up within 10 s",
            ));
        }
        match info.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                text.extend_from_slice(&buffer[..n]);
                // bwrap writes the whole report at once and keeps the pipe open.
                if text.contains(&b'}') {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let pid = serde_json::from_slice::<serde_json::Value>(&text)
        .ok()
        .and_then(|value| value.get("child-pid")?.as_i64())
        .and_then(|pid| i32::try_from(pid).ok());
    match pid {
        Some(pid) => Ok(pid),
        None => {
            // bwrap failed before reporting: its message is on the bot's stderr.
            let _ = wait_pid(spawned.pid);
            let mut message = String::new();
            if let Some(stderr) = spawned.stderr.as_mut() {
                let _ = set_blocking(stderr.as_raw_fd());
                let _ = stderr.read_to_string(&mut message);
            }
            Err(io::Error::other(format!(
                "bwrap failed: {}",
                message.trim().trim_start_matches("bwrap: ")
            )))
        }
    }
}

/// Makes a descriptor the caller owns blocking.
pub(crate) fn set_blocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Waits for a child and returns its raw wait status.
pub fn wait_pid(pid: i32) -> io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child with a valid status pointer.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            return Ok(status);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// `posix_spawn` of `program` with `fds[i]` as descriptor `i` in the child and nothing else open, in
/// a new process group, with default signal handling. No `fork` of arena's address space.
fn spawn_raw(
    program: &CString,
    argv: &[CString],
    envp: &[CString],
    fds: &[RawFd],
) -> io::Result<i32> {
    // Sources are first copied above every target, so that no dup2 overwrites a later source and none
    // is a same-number dup2 (which would keep close-on-exec set).
    let high: Vec<OwnedFd> = fds
        .iter()
        .map(|&fd| {
            // SAFETY: F_DUPFD_CLOEXEC on a descriptor we own returns a fresh one.
            let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 64) };
            if copy < 0 {
                Err(io::Error::last_os_error())
            } else {
                // SAFETY: fresh descriptor.
                Ok(unsafe { OwnedFd::from_raw_fd(copy) })
            }
        })
        .collect::<io::Result<_>>()?;
    let mut argv_p: Vec<*mut libc::c_char> = argv.iter().map(|a| a.as_ptr() as *mut _).collect();
    argv_p.push(std::ptr::null_mut());
    let mut envp_p: Vec<*mut libc::c_char> = envp.iter().map(|a| a.as_ptr() as *mut _).collect();
    envp_p.push(std::ptr::null_mut());
    // SAFETY: the attribute and file-action objects are initialised before use and destroyed after;
    // every pointer passed outlives the call.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attributes: libc::posix_spawnattr_t = std::mem::zeroed();
        libc::posix_spawn_file_actions_init(&mut actions);
        libc::posix_spawnattr_init(&mut attributes);
        let mut result = 0;
        for (target, source) in high.iter().enumerate() {
            if result == 0 {
                result = libc::posix_spawn_file_actions_adddup2(
                    &mut actions,
                    source.as_raw_fd(),
                    target as libc::c_int,
                );
            }
        }
        if result == 0 {
            result = libc::posix_spawn_file_actions_addclosefrom_np(&mut actions, fds.len() as i32);
        }
        let mut default_signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut default_signals);
        // Dispositions arena (or whoever started it) set to "ignore" would survive the exec.
        for signal in [
            libc::SIGPIPE,
            libc::SIGHUP,
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTERM,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGALRM,
            libc::SIGCHLD,
            libc::SIGXFSZ,
            libc::SIGXCPU,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
        ] {
            libc::sigaddset(&mut default_signals, signal);
        }
        let mut no_mask: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut no_mask);
        if result == 0 {
            result = libc::posix_spawnattr_setsigdefault(&mut attributes, &default_signals);
        }
        if result == 0 {
            result = libc::posix_spawnattr_setsigmask(&mut attributes, &no_mask);
        }
        if result == 0 {
            result = libc::posix_spawnattr_setpgroup(&mut attributes, 0);
        }
        if result == 0 {
            result = libc::posix_spawnattr_setflags(
                &mut attributes,
                (libc::POSIX_SPAWN_SETPGROUP
                    | libc::POSIX_SPAWN_SETSIGDEF
                    | libc::POSIX_SPAWN_SETSIGMASK) as libc::c_short,
            );
        }
        let mut pid: libc::pid_t = 0;
        if result == 0 {
            result = libc::posix_spawn(
                &mut pid,
                program.as_ptr(),
                &actions,
                &attributes,
                argv_p.as_ptr(),
                envp_p.as_ptr(),
            );
        }
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attributes);
        if result != 0 {
            return Err(io::Error::from_raw_os_error(result));
        }
        Ok(pid)
    }
}

/// Sets the resource limits on `pid` (the sandbox's init, before it starts anything).
fn set_limits(pid: i32, limits: &Limits) -> io::Result<()> {
    let set = |resource: libc::__rlimit_resource_t, value: u64| -> io::Result<()> {
        let limit = libc::rlimit64 {
            rlim_cur: value,
            rlim_max: value,
        };
        // SAFETY: prlimit64 on a process of ours with a valid limit and no old-limit pointer.
        if unsafe { libc::prlimit64(pid, resource, &limit, std::ptr::null_mut()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    // No core files in the bot's folder.
    set(libc::RLIMIT_CORE, 0)?;
    if let Some(bytes) = limits.file_size {
        set(libc::RLIMIT_FSIZE, bytes)?;
    }
    if let Some(files) = limits.open_files {
        set(libc::RLIMIT_NOFILE, files)?;
    }
    if let Some(seconds) = limits.cpu_seconds {
        // The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL.
        let limit = libc::rlimit64 {
            rlim_cur: seconds,
            rlim_max: seconds + 1,
        };
        // SAFETY: as above.
        if unsafe { libc::prlimit64(pid, libc::RLIMIT_CPU, &limit, std::ptr::null_mut()) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The arguments as the bot sees them, and the host paths they name that must be visible: a
/// program or file named by the organiser's command outside the working folder is shown read-only
/// at the same path (relative ones are made absolute: the bot's current folder differs), and a
/// program found on arena's `PATH` outside the system folders is given by its full path.
fn visible_paths(argv: &[String], base: &Path, workdir: &Path) -> (Vec<String>, Vec<PathBuf>) {
    let mut out = Vec::with_capacity(argv.len());
    let mut visible = Vec::new();
    for (index, arg) in argv.iter().enumerate() {
        let path = Path::new(arg);
        let candidate = if path.is_absolute() {
            Some(path.to_path_buf())
        } else if index == 0 && !arg.contains('/') {
            // The sandbox's own PATH first (the system's `python3`, not a shim in a home folder).
            if find_in(SANDBOX_PATH, arg).is_some() {
                None
            } else {
                find_on_path(arg).filter(|found| !is_system(found))
            }
        } else {
            Some(base.join(path))
        };
        match candidate {
            Some(found) if !arg.is_empty() && found.exists() => {
                let mut found = std::path::absolute(&found).unwrap_or(found);
                let outside = !found.starts_with(workdir) && !is_system(&found);
                if outside {
                    // A link (npm's `node_modules/.bin/tsc`) is followed: the program runs from
                    // where it really is, as it expects (`../lib/tsc.js`), and only that is shown.
                    if let Ok(real) = std::fs::canonicalize(&found)
                        && real != found
                    {
                        found = real;
                        out.push(found.to_string_lossy().into_owned());
                        visible.push(found);
                        continue;
                    }
                    visible.push(found.clone());
                }
                if path.is_absolute() || found.starts_with(workdir) && base == workdir {
                    out.push(arg.clone());
                } else {
                    out.push(found.to_string_lossy().into_owned());
                }
            }
            _ => out.push(arg.clone()),
        }
    }
    visible.sort();
    visible.dedup();
    (out, visible)
}

/// Folders every sandbox shows read-only.
const SYSTEM: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

fn is_system(path: &Path) -> bool {
    SYSTEM.iter().any(|dir| path.starts_with(dir))
}

/// bwrap arguments showing the system folders read-only (merged-/usr links as links).
fn system_binds() -> Vec<String> {
    let mut args = Vec::new();
    for dir in SYSTEM {
        let path = Path::new(dir);
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(path) {
                    args.extend([
                        "--symlink".into(),
                        target.to_string_lossy().into_owned(),
                        dir.to_string(),
                    ]);
                }
            }
            Ok(meta) if meta.is_dir() => {
                args.extend(["--ro-bind".into(), dir.to_string(), dir.to_string()]);
            }
            _ => {}
        }
    }
    args
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    find_in(&std::env::var_os("PATH")?, program)
}

fn find_in(path: impl AsRef<OsStr>, program: &str) -> Option<PathBuf> {
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|m| {
                m.is_file()
                    && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
            })
        })
}

fn chown_tree(path: &Path, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}

/// A seccomp program (classic BPF, as bwrap's `--seccomp` takes it) in a memory file: refuses
/// `setsid` and `setpgid` (a process that left the bot's group would escape pausing), `mq_open`, the terminal
/// input injection ioctl `TIOCSTI`, and syscalls of a foreign ABI (32-bit or x32 entry points, whose
/// numbers differ).
/// With `for_helper`, `setpgid` is allowed (the helper's only use of it: see `helper_game`).
fn seccomp_memfd(for_helper: bool) -> io::Result<OwnedFd> {
    let program = seccomp_program(for_helper);
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for (code, jt, jf, k) in program {
        bytes.extend_from_slice(&code.to_ne_bytes());
        bytes.push(jt);
        bytes.push(jf);
        bytes.extend_from_slice(&k.to_ne_bytes());
    }
    // SAFETY: memfd_create with a static name.
    let fd = unsafe { libc::memfd_create(c"arena-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor.
    let mut file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.write_all(&bytes)?;
    std::io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
    Ok(file.into())
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// `(code, jump if true, jump if false, k)` instructions. With `allow_setpgid`, `setpgid` is
/// let through (for a resident helper, never for a bot).
fn seccomp_program(allow_setpgid: bool) -> Vec<(u16, u8, u8, u32)> {
    const LD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    const ALLOW: u32 = 0x7fff_0000;
    const DENY: u32 = 0x0005_0000 | libc::EPERM as u32; // SECCOMP_RET_ERRNO
    const FOREIGN: u32 = 0x0005_0000 | libc::ENOSYS as u32;
    // seccomp_data: nr at 0, arch at 4, args at 16 (8 bytes each; the low half first on little
    // endian machines, which both supported architectures are).
    vec![
        (LD_ABS, 0, 0, 4),
        (JEQ, 1, 0, AUDIT_ARCH),
        (RET, 0, 0, FOREIGN),
        (LD_ABS, 0, 0, 0),
        // x32 system calls are numbered from 0x40000000 on x86_64.
        (JGE, 7, 0, 0x4000_0000),
        (JEQ, 6, 0, libc::SYS_setsid as u32),
        // A syscall number never used: the rule then matches nothing.
        (
            JEQ,
            5,
            0,
            if allow_setpgid {
                u32::MAX
            } else {
                libc::SYS_setpgid as u32
            },
        ),
        // POSIX message queues outlive their processes in the IPC namespace and cannot be listed
        // without mounting mqueue: refused, so a reused sandbox carries nothing between games.
        (JEQ, 4, 0, libc::SYS_mq_open as u32),
        (JEQ, 0, 2, libc::SYS_ioctl as u32),
        (LD_ABS, 0, 0, 16 + 8),
        (JEQ, 1, 0, libc::TIOCSTI as u32),
        (RET, 0, 0, ALLOW),
        (RET, 0, 0, DENY),
    ]
}

// ---------------------------------------------------------------------------------------------
// cgroups

/// Where bot cgroups are made: under arena's own cgroup, per controller (v1) or once (v2).
#[derive(Clone, Debug)]
enum CgroupRoot {
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpuset: PathBuf,
        /// CPU accounting (per-bot CPU time), when the controller is mounted.
        cpuacct: Option<PathBuf>,
    },
    V2 {
        base: PathBuf,
    },
}

/// The cgroups of one sandboxed process.
#[derive(Debug)]
struct BotCgroups {
    /// Every folder made, removed in reverse.
    dirs: Vec<PathBuf>,
    /// Where the out-of-memory counter is: (file, key).
    oom: (PathBuf, &'static str),
    /// A `cgroup.procs` or `tasks` file counting the processes.
    tasks: PathBuf,
    /// Where the group's CPU time is: v1 `cpuacct.usage` (ns), v2 `cpu.stat` (`usage_usec`).
    cpu: Option<PathBuf>,
    /// That file, opened on first use: it is read twice per answer, and a `pread` of an open file
    /// costs a fraction of an open, read and close (a path walk in the cgroup filesystem).
    cpu_file: std::sync::OnceLock<Option<File>>,
    /// The out-of-memory counter's file, opened on first use: read before and after every call.
    oom_file: std::sync::OnceLock<Option<File>>,
}

fn cgroup_mounts() -> Vec<(String, String, String)> {
    // (mount point, filesystem type, options)
    std::fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let _source = fields.next()?;
            let point = fields.next()?;
            let kind = fields.next()?;
            let options = fields.next()?;
            (kind == "cgroup" || kind == "cgroup2")
                .then(|| (point.to_string(), kind.to_string(), options.to_string()))
        })
        .collect()
}

/// arena's own cgroup path in a hierarchy (`/proc/self/cgroup`): by controller name, or `""` for v2.
fn own_cgroup(controller: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let _id = parts.next()?;
        let controllers = parts.next()?;
        let path = parts.next()?;
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then(|| path.to_string())
    })
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text)
        .map_err(|e| format!("cannot write {text:?} to {}: {e}", path.display()))
}

impl CgroupRoot {
    fn find() -> Result<CgroupRoot, String> {
        let mounts = cgroup_mounts();
        let v1 = |controller: &str| -> Option<PathBuf> {
            let (point, _, _) = mounts.iter().find(|(_, kind, options)| {
                kind == "cgroup" && options.split(',').any(|o| o == controller)
            })?;
            let own = own_cgroup(controller)?;
            Some(Path::new(point).join(own.trim_start_matches('/')))
        };
        let (memory, pids, cpuset) = (v1("memory"), v1("pids"), v1("cpuset"));
        let root = if let (Some(memory), Some(pids), Some(cpuset)) = (&memory, &pids, &cpuset) {
            CgroupRoot::V1 {
                memory: memory.clone(),
                pids: pids.clone(),
                cpuset: cpuset.clone(),
                cpuacct: v1("cpuacct"),
            }
        } else {
            let Some((point, _, _)) = mounts.iter().find(|(_, kind, _)| kind == "cgroup2") else {
                let lacking: Vec<&str> =
                    [("memory", &memory), ("pids", &pids), ("cpuset", &cpuset)]
                        .iter()
                        .filter(|(_, found)| found.is_none())
                        .map(|(name, _)| *name)
                        .collect();
                return Err(format!(
                    "cgroups: no cgroup v2 hierarchy, and no cgroup v1 controller for {} \
                     (mount them, or boot with cgroup v2)",
                    lacking.join(", ")
                ));
            };
            let own = own_cgroup("").unwrap_or_else(|| "/".into());
            let base = Path::new(point).join(own.trim_start_matches('/'));
            let available =
                std::fs::read_to_string(base.join("cgroup.controllers")).unwrap_or_default();
            let lacking: Vec<&str> = ["memory", "pids", "cpuset"]
                .into_iter()
                .filter(|c| !available.split_whitespace().any(|a| a == *c))
                .collect();
            if !lacking.is_empty() {
                return Err(format!(
                    "cgroups (v2): the controllers {} are not available in {} (arena's cgroup): \
                     run arena where they are delegated, e.g. `systemd-run --user --scope -p \
                     Delegate=yes arena ...`",
                    lacking.join(", "),
                    base.display()
                ));
            }
            let enabled =
                std::fs::read_to_string(base.join("cgroup.subtree_control")).unwrap_or_default();
            if !["memory", "pids", "cpuset"]
                .iter()
                .all(|c| enabled.split_whitespace().any(|e| e == *c))
                && let Err(e) =
                    std::fs::write(base.join("cgroup.subtree_control"), "+memory +pids +cpuset")
            {
                return Err(format!(
                    "cgroups (v2): cannot enable memory, pids and cpuset for sub-groups of {} ({e}); \
                     a cgroup with processes cannot have controlled children: start arena in a \
                     cgroup of its own with those controllers delegated, e.g. `systemd-run --scope \
                     -p Delegate=yes arena ...`",
                    base.display()
                ));
            }
            CgroupRoot::V2 { base }
        };
        // Prove a bot cgroup can be made and limited here.
        let probe = root.create(&Limits::default(), None)?;
        probe.remove();
        Ok(root)
    }

    fn bases(&self) -> Vec<&Path> {
        match self {
            CgroupRoot::V1 {
                memory,
                pids,
                cpuset,
                cpuacct,
            } => {
                let mut bases: Vec<&Path> = vec![memory, pids, cpuset];
                bases.extend(cpuacct.as_deref());
                bases
            }
            CgroupRoot::V2 { base } => vec![base],
        }
    }

    /// Removes empty bot cgroups left by arena processes that no longer exist (killed with -9).
    fn sweep_stale(&self) {
        for base in self.bases() {
            let Ok(entries) = std::fs::read_dir(base) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(pid) = name
                    .strip_prefix("arena-")
                    .and_then(|rest| rest.split('-').next())
                    .and_then(|pid| pid.parse::<u32>().ok())
                else {
                    continue;
                };
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_dir(entry.path());
                }
            }
        }
    }

    fn create(&self, limits: &Limits, cpu: Option<usize>) -> Result<BotCgroups, String> {
        let name = format!(
            "arena-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        let mut made = BotCgroups {
            dirs: Vec::new(),
            oom: (PathBuf::new(), "oom_kill"),
            tasks: PathBuf::new(),
            cpu: None,
            cpu_file: std::sync::OnceLock::new(),
            oom_file: std::sync::OnceLock::new(),
        };
        let mkdir = |made: &mut BotCgroups, base: &Path| -> Result<PathBuf, String> {
            let dir = base.join(&name);
            std::fs::create_dir(&dir).map_err(|e| {
                format!(
                    "cgroups: cannot make {} ({e}): arena needs to be root, or to own a delegated cgroup",
                    dir.display()
                )
            })?;
            made.dirs.push(dir.clone());
            Ok(dir)
        };
        let result = (|| -> Result<(), String> {
            match self {
                CgroupRoot::V1 {
                    memory,
                    pids,
                    cpuset,
                    cpuacct,
                } => {
                    let dir = mkdir(&mut made, memory)?;
                    if let Some(bytes) = limits.memory {
                        write_file(&dir.join("memory.limit_in_bytes"), &bytes.to_string())?;
                        // Swap too, where the kernel accounts it (not every kernel does).
                        let swap = dir.join("memory.memsw.limit_in_bytes");
                        if swap.exists() {
                            write_file(&swap, &bytes.to_string())?;
                        }
                    }
                    made.oom = (dir.join("memory.oom_control"), "oom_kill");
                    let dir = mkdir(&mut made, pids)?;
                    if let Some(tasks) = limits.tasks {
                        write_file(&dir.join("pids.max"), &tasks.to_string())?;
                    }
                    made.tasks = dir.join("cgroup.procs");
                    let dir = mkdir(&mut made, cpuset)?;
                    // A v1 cpuset starts empty: both CPUs and memory nodes must be given.
                    let mems = std::fs::read_to_string(cpuset.join("cpuset.mems"))
                        .map_err(|e| format!("cannot read {}: {e}", cpuset.display()))?;
                    write_file(&dir.join("cpuset.mems"), mems.trim())?;
                    let cpus = match cpu {
                        Some(cpu) => cpu.to_string(),
                        None => std::fs::read_to_string(cpuset.join("cpuset.cpus"))
                            .map_err(|e| format!("cannot read {}: {e}", cpuset.display()))?
                            .trim()
                            .to_string(),
                    };
                    write_file(&dir.join("cpuset.cpus"), &cpus)?;
                    if let Some(cpuacct) = cpuacct {
                        let dir = mkdir(&mut made, cpuacct)?;
                        made.cpu = Some(dir.join("cpuacct.usage"));
                    }
                }
                CgroupRoot::V2 { base } => {
                    let dir = mkdir(&mut made, base)?;
                    if let Some(bytes) = limits.memory {
                        write_file(&dir.join("memory.max"), &bytes.to_string())?;
                        let swap = dir.join("memory.swap.max");
                        if swap.exists() {
                            write_file(&swap, "0")?;
                        }
                    }
                    if let Some(tasks) = limits.tasks {
                        write_file(&dir.join("pids.max"), &tasks.to_string())?;
                    }
                    if let Some(cpu) = cpu {
                        write_file(&dir.join("cpuset.cpus"), &cpu.to_string())?;
                    }
                    made.oom = (dir.join("memory.events"), "oom_kill");
                    made.tasks = dir.join("cgroup.procs");
                    // Every v2 cgroup accounts its CPU time, with or without the cpu controller.
                    made.cpu = Some(dir.join("cpu.stat"));
                }
            }
            Ok(())
        })();
        match result {
            Ok(()) => Ok(made),
            Err(e) => {
                made.remove();
                Err(e)
            }
        }
    }
}

impl BotCgroups {
    fn attach(&self, pid: i32) -> Result<(), String> {
        for dir in &self.dirs {
            write_file(&dir.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    fn oom_kills(&self) -> u64 {
        let (path, key) = &self.oom;
        read_whole(&self.oom_file, path)
            .and_then(|text| {
                text.lines().find_map(|line| {
                    line.strip_prefix(key)
                        .and_then(|rest| rest.trim().parse::<u64>().ok())
                })
            })
            .unwrap_or(0)
    }

    /// CPU time used by every process that ever ran in the group (exited ones included).
    fn cpu_time(&self) -> Option<Duration> {
        let path = self.cpu.as_ref()?;
        let text = read_whole(&self.cpu_file, path)?;
        if path.ends_with("cpuacct.usage") {
            text.trim().parse::<u64>().ok().map(Duration::from_nanos)
        } else {
            text.lines().find_map(|line| {
                line.strip_prefix("usage_usec ")
                    .and_then(|n| n.trim().parse::<u64>().ok())
                    .map(Duration::from_micros)
            })
        }
    }

    fn tasks(&self) -> Option<usize> {
        std::fs::read_to_string(&self.tasks)
            .ok()
            .map(|text| text.lines().count())
    }

    /// Removes the folders; killed processes leave their cgroup a moment after they die.
    fn remove(self) {
        let until = Instant::now() + Duration::from_secs(2);
        for dir in self.dirs.iter().rev() {
            let mut pause = Duration::from_micros(100);
            while std::fs::remove_dir(dir).is_err() && dir.exists() && Instant::now() < until {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
        }
    }
}

/// The text of a short cgroup file (under 1 KiB: a counter, `cpu.stat`, `memory.oom_control`)
/// through a descriptor `kept` opens on first use: the kernel makes the text again at every read at
/// offset 0, and a `pread` costs a fraction of an open, read and close (a path walk in the cgroup
/// filesystem).
fn read_whole(kept: &std::sync::OnceLock<Option<File>>, path: &Path) -> Option<String> {
    use std::os::unix::fs::FileExt;
    let file = kept.get_or_init(|| File::open(path).ok()).as_ref()?;
    let mut buffer = [0u8; 1024];
    let length = file.read_at(&mut buffer, 0).ok()?;
    String::from_utf8(buffer[..length].to_vec()).ok()
}

// ---------------------------------------------------------------------------------------------
// A resident sandbox: one sandbox for a series of calls (Coup's process per move)

/// The first argument that makes `arena` (or any program calling [`run_helper_if_asked`] first thing
/// in `main`) act as a resident sandbox's helper.
pub const HELPER_ARG: &str = "__arena-sandbox-helper";
/// Stdout kept per call by the helper; the rest is read and dropped.
const HELPER_STDOUT_CAP: usize = 4096;

/// What one call in a resident sandbox gave.
#[derive(Debug)]
pub struct ResidentCall {
    /// The call's wait status; `None` when it ran out of time (the sandbox is then gone).
    pub status: Option<std::process::ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
    /// Killed by the memory limit during this call.
    pub memory_exceeded: bool,
}

/// A sandbox that lives for a whole game and starts each call inside it: building namespaces costs
/// milliseconds, a fork inside an existing sandbox a fraction of one. Between calls nothing of the bot
/// runs: after each call the helper kills every other process in the sandbox.
#[derive(Debug)]
pub struct Resident {
    spawned: Option<Spawned>,
}

impl Resident {
    /// Starts the helper (`sandbox.policy().helper`) in a new sandbox in which `bot_argv`'s program
    /// and files, `workdir` and `writable` are visible as for [`launch`].
    pub fn start(
        sandbox: &Sandbox,
        bot_argv: &[String],
        workdir: Option<&Path>,
        cpu: Option<usize>,
        writable: &[PathBuf],
    ) -> io::Result<Resident> {
        let pending = Self::begin(sandbox, bot_argv, workdir, cpu, writable)?;
        Self::finish(pending, sandbox)
    }

    /// Several resident sandboxes set up at once (their bwraps work in parallel), on this thread.
    pub fn start_all(
        sandbox: &Sandbox,
        requests: &[(&[String], Option<&Path>, Option<usize>)],
    ) -> Vec<io::Result<Resident>> {
        let pending: Vec<io::Result<ResidentPending>> = requests
            .iter()
            .map(|(argv, workdir, cpu)| Self::begin(sandbox, argv, *workdir, *cpu, &[]))
            .collect();
        pending
            .into_iter()
            .map(|pending| Self::finish(pending?, sandbox))
            .collect()
    }

    fn finish(pending: ResidentPending, sandbox: &Sandbox) -> io::Result<Resident> {
        let spawned = launch_finish(pending.0, sandbox)?;
        for file in [&spawned.stdout, &spawned.stderr].into_iter().flatten() {
            crate::spawn::set_nonblocking(file.as_raw_fd())?;
        }
        let mut resident = Resident {
            spawned: Some(spawned),
        };
        // The helper's own start (an exec of arena) is part of the set-up, not of the bot's start.
        let ready = resident.spawned.as_mut().and_then(|spawned| {
            let out = spawned.stdout.as_mut()?;
            let mut fds = [libc::pollfd {
                fd: out.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }];
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(fds.as_mut_ptr(), 1, SETUP_WAIT.as_millis() as i32) };
            let mut byte = [0u8; 1];
            matches!(out.read(&mut byte), Ok(1)).then_some(byte)
        });
        if ready.as_ref().map(|b| &b[..]) != Some(READY) {
            resident.end();
            return Err(io::Error::other(
                "the sandbox's helper did not start (is the arena program readable in the sandbox?)",
            ));
        }
        Ok(resident)
    }

    fn begin(
        sandbox: &Sandbox,
        bot_argv: &[String],
        workdir: Option<&Path>,
        cpu: Option<usize>,
        writable: &[PathBuf],
    ) -> io::Result<ResidentPending> {
        let argv = helper_argv(sandbox)?;
        launch_begin(
            &Launch {
                argv: &argv,
                workdir,
                cpu,
                stdin: true,
                writable,
            },
            sandbox,
            Some(bot_argv),
            false,
        )
        .map(ResidentPending)
    }

    /// CPU time used so far by everything that ran in this sandbox (helper included), when known.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.spawned.as_ref()?.jail.as_ref()?.cpu_time()
    }

    /// False once a call ran out of time or the helper failed: start another.
    pub fn is_alive(&self) -> bool {
        self.spawned.is_some()
    }

    /// Runs `argv` once inside the sandbox and waits for it up to `limit`.
    pub fn call(
        &mut self,
        argv: &[String],
        limit: Duration,
        stderr_cap: usize,
    ) -> io::Result<ResidentCall> {
        let spawned = self
            .spawned
            .as_mut()
            .ok_or_else(|| io::Error::other("the resident sandbox is gone"))?;
        let call = call_in(spawned, argv, limit, stderr_cap);
        if !matches!(&call, Ok(call) if call.status.is_some()) {
            // Out of time, or a helper that broke its protocol: the sandbox goes with the call.
            self.end();
        }
        call
    }

    /// Turns the helper into `argv` (the bot's stream process) and returns it: a sandbox set up in
    /// advance (off the bot's clock, in parallel for all seats of a game) so that starting the bot
    /// costs one exec. The helper's pipes become the bot's stdin, stdout and stderr.
    pub fn exec(mut self, argv: &[String]) -> io::Result<Spawned> {
        let mut spawned = self
            .spawned
            .take()
            .ok_or_else(|| io::Error::other("the resident sandbox is gone"))?;
        let message = helper_request(EXEC, argv);
        let sent = match spawned.stdin.as_mut() {
            Some(control) => control.write_all(&message),
            None => Err(io::Error::other("no control pipe")),
        };
        if let Err(e) = sent {
            kill_all(spawned.pid, spawned.jail.as_ref());
            let _ = wait_pid(spawned.pid);
            return Err(e);
        }
        Ok(spawned)
    }

    /// Kills the sandbox and everything in it, and reaps the helper's bwrap.
    pub fn end(&mut self) {
        if let Some(spawned) = self.spawned.take() {
            kill_all(spawned.pid, spawned.jail.as_ref());
            let _ = wait_pid(spawned.pid);
        }
    }
}

/// How long a reused sandbox may take to end a game and empty itself before it is thrown away.
const RESET_WAIT: Duration = Duration::from_secs(5);

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

/// (the bot's command, its CPU, whether it is called once per move).
type PoolKey = (Vec<String>, Option<usize>, bool);

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
        let key: PoolKey = (argv.to_vec(), cpu, calls);
        let reused = self.idle.lock().ok().and_then(|mut idle| {
            let at = idle.iter().rposition(|(k, _)| *k == key)?;
            Some(idle.remove(at).1)
        });
        // The last game's reset ran meanwhile; a sandbox that did not come back clean is replaced.
        let reusable = match reused.and_then(|mut reusable| reusable.settle().then_some(reusable)) {
            Some(reusable) => reusable,
            None => Reusable::start(&self.sandbox, argv, cpu, calls)?,
        };
        if let Some(folder) = folder.filter(|folder| folder.is_dir()) {
            reusable.fill(folder, self.sandbox.run_as)?;
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
    ) -> io::Result<Reusable> {
        let folder = std::env::temp_dir().join(format!(
            "arena-sandbox-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&folder)?;
        // Inside the bot's scratch folder (removed with the sandbox), beside its own folder.
        let calls = with_calls.then(|| folder.with_extension("calls"));
        let made_calls = match &calls {
            Some(dir) => std::fs::create_dir(dir).and_then(|()| {
                // Only the referee's files are put here; the bot's user may change them (a call
                // appends to its history file) as the original arbiter's directory allowed.
                std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o1777))
            }),
            None => Ok(()),
        };
        if let Err(e) = made_calls {
            let _ = std::fs::remove_dir_all(&folder);
            return Err(e);
        }
        let writable: Vec<PathBuf> = calls.iter().cloned().collect();
        let started = (|| {
            let argv = helper_argv(sandbox)?;
            let launch = Launch {
                argv: &argv,
                workdir: Some(&folder),
                cpu,
                stdin: true,
                writable: &writable,
            };
            let pending = launch_begin(&launch, sandbox, Some(bot_argv), true)?;
            Resident::finish(ResidentPending(pending), sandbox)
        })();
        let remove = || {
            let _ = std::fs::remove_dir_all(&folder);
            if let Some(dir) = &calls {
                let _ = std::fs::remove_dir_all(dir);
            }
        };
        let mut resident = match started {
            Ok(resident) => resident,
            Err(e) => {
                remove();
                return Err(e);
            }
        };
        let Some(mut spawned) = resident.spawned.take() else {
            remove();
            return Err(io::Error::other("the sandbox's helper is gone"));
        };
        if let Some(jail) = spawned.jail.as_mut() {
            // Removed with the sandbox.
            jail.scratch = Some(folder.clone());
            jail.scratch_calls = calls.clone();
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
    fn fill(&self, from: &Path, run_as: Option<(u32, u32)>) -> io::Result<()> {
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            let target = self.folder.join(entry.file_name());
            let kind = entry.file_type()?;
            if kind.is_dir() {
                crate::folders::copy_tree(&entry.path(), &target)?;
            } else if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
            } else {
                std::fs::copy(entry.path(), &target)?;
            }
            if let Some((uid, gid)) = run_as {
                chown_tree(&target, uid, gid)?;
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
        let mut request = helper_request(GAME, argv);
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
        let run_as = self.home.upgrade().and_then(|pool| pool.sandbox.run_as);
        match run_as {
            Some((uid, gid)) => std::os::unix::fs::lchown(path, Some(uid), Some(gid)),
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
        let reusable = self
            .reusable
            .as_mut()
            .ok_or_else(|| io::Error::other("the sandbox is gone"))?;
        let call = call_in(&mut reusable.spawned, argv, limit, stderr_cap);
        if !matches!(&call, Ok(call) if call.status.is_some()) {
            self.discard();
        }
        call
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

/// A resident sandbox being set up.
struct ResidentPending(Pending);

impl Drop for Resident {
    fn drop(&mut self) {
        self.end();
    }
}

/// The resident helper's command: the program, its marker argument and the user it starts bots as.
fn helper_argv(sandbox: &Sandbox) -> io::Result<[String; 4]> {
    let helper = sandbox.policy.helper.as_ref().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "the sandbox has no resident helper",
        )
    })?;
    let (uid, gid) = sandbox
        .run_as
        .map_or(("-".to_string(), "-".to_string()), |(u, g)| {
            (u.to_string(), g.to_string())
        });
    Ok([
        helper.to_string_lossy().into_owned(),
        HELPER_ARG.to_string(),
        uid,
        gid,
    ])
}

/// What the helper writes once it runs.
const READY: &[u8] = b"R";
/// Helper requests: run a call and report, or become the command.
const CALL: u8 = b'C';
/// After a game of calls: kill what is left and empty the sandbox (the request names the calls
/// folder); answered with [`CLEAN`].
const RESET: u8 = b'R';
const EXEC: u8 = b'E';
/// A game in a reused sandbox (the kind byte comes with the game's three pipes), and the helper's
/// answers: the end of a game asked, the sandbox clean again.
const GAME: u8 = b'G';
const END: u8 = b'K';
const CLEAN: &[u8] = b"C";

/// `kind, u32 length, arguments each followed by NUL`.
/// Runs `argv` once in the sandbox of helper `spawned` and waits for it up to `limit`. A call
/// without a status (out of time, killed, or a helper that broke its protocol) leaves the sandbox
/// unusable: the caller ends it.
fn call_in(
    spawned: &mut Spawned,
    argv: &[String],
    limit: Duration,
    stderr_cap: usize,
) -> io::Result<ResidentCall> {
    let message = helper_request(CALL, argv);
    let oom_before = spawned.jail.as_ref().map_or(0, Jail::oom_kills);
    let started = Instant::now();
    let deadline = started + limit;
    let control = spawned
        .stdin
        .as_mut()
        .ok_or_else(|| io::Error::other("no control pipe"))?;
    if let Err(e) = control.write_all(&message) {
        return Err(io::Error::other(format!(
            "the resident sandbox's helper is gone: {e}"
        )));
    }
    let mut reply = Vec::new();
    let mut stderr = Vec::new();
    let mut timed_out = false;
    let complete = |reply: &[u8]| -> Option<usize> {
        let length = u32::from_le_bytes(reply.get(5..9)?.try_into().ok()?) as usize;
        (reply.len() >= 9 + length).then_some(9 + length)
    };
    loop {
        if complete(&reply).is_some() {
            break;
        }
        let now = Instant::now();
        if now >= deadline || crate::watchdog::interrupted() {
            timed_out = true;
            break;
        }
        let (Some(out), Some(err)) = (&spawned.stdout, &spawned.stderr) else {
            break;
        };
        let mut fds = vec![
            libc::pollfd {
                fd: out.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: err.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        if let Some(fd) = crate::watchdog::interrupt_fd() {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let left = deadline.saturating_duration_since(now);
        let timeout = libc::timespec {
            tv_sec: left.as_secs() as libc::time_t,
            tv_nsec: left.subsec_nanos() as libc::c_long,
        };
        // SAFETY: valid pollfds for descriptors we own; `timeout` outlives the call.
        unsafe {
            libc::ppoll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                &timeout,
                std::ptr::null(),
            )
        };
        if !read_available(spawned.stderr.as_mut(), &mut stderr, stderr_cap) {
            spawned.stderr = None;
        }
        if !read_available(spawned.stdout.as_mut(), &mut reply, usize::MAX) {
            spawned.stdout = None;
        }
        if reply.len() > 9 + HELPER_STDOUT_CAP + 64 {
            break;
        }
    }
    let elapsed = started.elapsed();
    read_available(spawned.stderr.as_mut(), &mut stderr, stderr_cap);
    let memory_exceeded = spawned.jail.as_ref().map_or(0, Jail::oom_kills) > oom_before;
    let status = match complete(&reply) {
        Some(end) if !timed_out && reply[0] == 0 && end == reply.len() => {
            let raw = i32::from_le_bytes([reply[1], reply[2], reply[3], reply[4]]);
            reply.drain(..9);
            Some(std::os::unix::process::ExitStatusExt::from_raw(raw))
        }
        _ => None,
    };
    if status.is_none() {
        if !timed_out && !memory_exceeded {
            return Err(io::Error::other(
                "the resident sandbox's helper ended unexpectedly",
            ));
        }
        reply.clear();
    }
    Ok(ResidentCall {
        status,
        stdout: reply,
        stderr,
        elapsed,
        memory_exceeded,
    })
}

fn helper_request(kind: u8, argv: &[String]) -> Vec<u8> {
    let mut payload = Vec::new();
    for arg in argv {
        payload.extend_from_slice(arg.as_bytes());
        payload.push(0);
    }
    let mut message = vec![kind];
    message.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    message.extend_from_slice(&payload);
    message
}

/// Reads what `file` holds now into `into` (kept up to `cap`); false at end of file or on an error.
pub fn read_available(file: Option<&mut File>, into: &mut Vec<u8>, cap: usize) -> bool {
    let Some(file) = file else {
        return true;
    };
    let mut buffer = [0u8; 8192];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return false,
            Ok(n) => {
                let room = cap.saturating_sub(into.len()).min(n);
                into.extend_from_slice(&buffer[..room]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
    }
}

/// How a process run to its end went ([`run_to_end`]).
#[derive(Debug)]
pub struct Finished {
    /// The wait status; `None` when it ran out of time (everything it started was killed).
    pub status: Option<std::process::ExitStatus>,
    /// Its stdout and stderr together, in the order they arrived, up to the cap.
    pub output: Vec<u8>,
    pub elapsed: Duration,
    /// Killed by the sandbox's memory limit.
    pub memory_exceeded: bool,
}

/// Runs `launch` (in `sandbox` if given) to its end, up to `limit`, collecting its output up to
/// `output_cap` bytes: for one-off processes such as a submission's build steps. On a timeout or an
/// interrupt everything the process started is killed; nothing of it is left when this returns.
pub fn run_to_end(
    launch: &Launch<'_>,
    sandbox: Option<&Sandbox>,
    limit: Duration,
    output_cap: usize,
) -> io::Result<Finished> {
    let started = Instant::now();
    let mut spawned = self::launch(launch, sandbox)?;
    for file in [&spawned.stdout, &spawned.stderr].into_iter().flatten() {
        crate::spawn::set_nonblocking(file.as_raw_fd())?;
    }
    let deadline = started + limit;
    let mut output = Vec::new();
    let status = loop {
        let mut raw = 0;
        // SAFETY: waitpid on our own child, without blocking.
        let reaped = unsafe { libc::waitpid(spawned.pid, &mut raw, libc::WNOHANG) };
        if reaped == spawned.pid {
            break Some(std::os::unix::process::ExitStatusExt::from_raw(raw));
        }
        let now = Instant::now();
        if reaped < 0 || now >= deadline || crate::watchdog::interrupted() {
            break None;
        }
        let mut fds: Vec<libc::pollfd> = [&spawned.stdout, &spawned.stderr]
            .into_iter()
            .flatten()
            .map(|file| libc::pollfd {
                fd: file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // Short waits: the end of the process is seen by waitpid, not on the pipes (a daemon it
        // started may hold them open).
        let wait = deadline
            .saturating_duration_since(now)
            .min(Duration::from_millis(20));
        // SAFETY: valid pollfds for descriptors we own.
        unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                wait.as_millis() as i32,
            )
        };
        if !read_available(spawned.stdout.as_mut(), &mut output, output_cap) {
            spawned.stdout = None;
        }
        if !read_available(spawned.stderr.as_mut(), &mut output, output_cap) {
            spawned.stderr = None;
        }
    };
    // Whatever the process left running (a compiler server, a sleeper) goes with it.
    kill_all(spawned.pid, spawned.jail.as_ref());
    if status.is_none() {
        let _ = wait_pid(spawned.pid);
    }
    read_available(spawned.stdout.as_mut(), &mut output, output_cap);
    read_available(spawned.stderr.as_mut(), &mut output, output_cap);
    let memory_exceeded = spawned.jail.as_ref().is_some_and(Jail::memory_exceeded);
    Ok(Finished {
        status,
        output,
        elapsed: started.elapsed(),
        memory_exceeded,
    })
}

/// Call first thing in `main`: when started as a resident sandbox's helper (`PROGRAM
/// __arena-sandbox-helper UID GID`), serves calls until arena closes the control pipe and exits;
/// otherwise returns at once. The helper must be single-threaded (it forks), hence first thing.
pub fn run_helper_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(HELPER_ARG)) {
        return;
    }
    let id = |arg: Option<std::ffi::OsString>| -> Option<u32> { arg?.to_str()?.parse().ok() };
    let (uid, gid) = (id(args.next()), id(args.next()));
    let code = helper_loop(uid, gid);
    std::process::exit(code);
}

/// The helper: reads `u32 length, NUL-terminated arguments` on stdin, runs each as a call (stdin
/// `/dev/null`, stdout captured, stderr shared), and answers `u8 0, i32 wait status, u32 length,
/// stdout` on stdout once the call's process has exited and every other process it left is killed.
fn helper_loop(uid: Option<u32>, gid: Option<u32>) -> i32 {
    // A bot running as the same user (no root) must not be able to trace or inspect the helper.
    // SAFETY: prctl on ourselves.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    // Unbuffered: after an exec request, what follows on stdin is the bot's input, not ours to read.
    // SAFETY: descriptors 0 and 1 are the control pipes, open for the helper's whole life; wrapped
    // without taking ownership.
    let (mut control_in, mut control_out) = unsafe {
        (
            std::mem::ManuallyDrop::new(File::from_raw_fd(0)),
            std::mem::ManuallyDrop::new(File::from_raw_fd(1)),
        )
    };
    let Ok(null) = File::open("/dev/null") else {
        return 1;
    };
    // Made at the first game and kept for the sandbox's life (see `Spawner`).
    let mut spawner: Option<Spawner> = None;
    // The bot's filter is on this thread too, installed at the first call: a sandbox that serves
    // calls serves nothing else, and its calls then inherit the filter (see `Spawner` for why).
    let mut calls_filtered = false;
    // Ready: arena waits for this before it counts the sandbox as set up.
    if control_out.write_all(READY).is_err() {
        return 1;
    }
    loop {
        let mut header = [0u8; 5];
        // The kind byte comes with the game's pipes when it is a game request (a socket).
        let (kind, passed) = match receive_with_fds(0) {
            Ok(Some(received)) => received,
            Ok(None) => return 0,
            Err(_) => return 1,
        };
        header[0] = kind;
        if control_in.read_exact(&mut header[1..]).is_err() {
            return 0;
        }
        let length = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let mut request = vec![0u8; length];
        if control_in.read_exact(&mut request).is_err() {
            return 1;
        }
        let argv: Vec<CString> = request
            .strip_suffix(&[0])
            .unwrap_or(&request)
            .split(|&b| b == 0)
            .filter_map(|arg| CString::new(arg).ok())
            .collect();
        if header[0] == RESET {
            kill_the_rest();
            reset_for_the_next_game(&argv);
            if control_out.write_all(CLEAN).is_err() {
                return 1;
            }
            continue;
        }
        if argv.is_empty() || argv[0].is_empty() {
            return 0;
        }
        if header[0] == EXEC {
            // SAFETY: single-threaded; becomes the bot or exits.
            unsafe {
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
                become_bot(&argv, uid, gid)
            }
        }
        if header[0] == GAME {
            let Ok(pipes) = <[OwnedFd; 3]>::try_from(passed) else {
                return 1;
            };
            if calls_filtered {
                // This thread can no longer make a bot a group leader (nor a spawner that could).
                return 1;
            }
            if spawner.is_none() {
                spawner = Spawner::start();
            }
            let spawner = spawner.as_ref();
            let (input, output) = (&mut control_in, &mut control_out);
            if helper_game(&argv, pipes, spawner, input, output, uid, gid).is_err() {
                return 1;
            }
            continue;
        }
        if !calls_filtered && spawner.is_none() {
            // SAFETY: installing a filter on this thread, which stays single-threaded.
            calls_filtered = unsafe { install_filter(&mut bot_filter()) }.is_ok();
        }
        let (status, output) = helper_call(&argv, &null, uid, gid, calls_filtered);
        let mut reply = vec![0u8];
        reply.extend_from_slice(&status.to_le_bytes());
        reply.extend_from_slice(&(output.len() as u32).to_le_bytes());
        reply.extend_from_slice(&output);
        if control_out.write_all(&reply).is_err() {
            return 1;
        }
    }
}

/// Room for the control messages of one message (three descriptors, or one `ucred`), aligned for
/// `cmsghdr`.
type ControlBuffer = [u64; 8];

/// Receives one byte on socket `fd` (`recvmsg` with `flags`) and calls `each(type, data)` for
/// every `SOL_SOCKET` control message that came with it. `Ok(None)` at end of file.
fn receive_byte(
    fd: RawFd,
    flags: libc::c_int,
    mut each: impl FnMut(libc::c_int, &[u8]),
) -> io::Result<Option<u8>> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control: ControlBuffer = [0; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: recvmsg into buffers that live across the call.
    let n = unsafe { libc::recvmsg(fd, &mut message, flags) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: walking the control messages the kernel wrote into `message`.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET {
                let length = (*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let data = std::slice::from_raw_parts(libc::CMSG_DATA(header), length);
                each((*header).cmsg_type, data);
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    Ok(Some(byte[0]))
}

/// Sends `byte` on socket `fd` with one `SOL_SOCKET` control message of type `kind` carrying
/// `data`. Allocates nothing: the helper's child calls it between its start and its exec.
fn send_byte(fd: RawFd, byte: u8, kind: libc::c_int, data: &[u8]) -> io::Result<()> {
    let mut payload = [byte];
    let mut iov = libc::iovec {
        iov_base: payload.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control: ControlBuffer = [0; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below, the control message is
    // written within `control` (checked against its size).
    unsafe {
        let space = libc::CMSG_SPACE(data.len() as u32) as usize;
        if space > std::mem::size_of_val(&control) {
            return Err(io::Error::other("control message too large"));
        }
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = space as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = kind;
        (*header).cmsg_len = libc::CMSG_LEN(data.len() as u32) as _;
        std::ptr::copy_nonoverlapping(data.as_ptr(), libc::CMSG_DATA(header), data.len());
        loop {
            if libc::sendmsg(fd, &message, libc::MSG_NOSIGNAL) == 1 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// Receives one byte on descriptor `fd` with any descriptors passed along (a socket), or reads it
/// (a pipe). `None` at end of file.
fn receive_with_fds(fd: RawFd) -> io::Result<Option<(u8, Vec<OwnedFd>)>> {
    loop {
        let mut fds = Vec::new();
        let received = receive_byte(fd, libc::MSG_CMSG_CLOEXEC, |kind, data| {
            if kind == libc::SCM_RIGHTS {
                for raw in data.chunks_exact(std::mem::size_of::<RawFd>()) {
                    let Ok(bytes) = raw.try_into() else {
                        continue;
                    };
                    // SAFETY: a descriptor the kernel just installed for us.
                    fds.push(unsafe { OwnedFd::from_raw_fd(RawFd::from_ne_bytes(bytes)) });
                }
            }
        });
        match received {
            Ok(byte) => return Ok(byte.map(|byte| (byte, fds))),
            Err(error) => match error.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ENOTSOCK) => {
                    let mut byte = [0u8; 1];
                    // SAFETY: read into a one-byte buffer.
                    let n = unsafe { libc::read(fd, byte.as_mut_ptr().cast(), 1) };
                    return match n {
                        1 => Ok(Some((byte[0], Vec::new()))),
                        0 => Ok(None),
                        _ => Err(io::Error::last_os_error()),
                    };
                }
                _ => return Err(error),
            },
        }
    }
}

/// Sends `byte` on the socket `fd` with `fds` passed along.
fn send_with_fds(fd: RawFd, byte: u8, fds: &[RawFd]) -> io::Result<()> {
    let mut data = [0u8; 3 * std::mem::size_of::<RawFd>()];
    let length = std::mem::size_of_val(fds);
    if length > data.len() {
        return Err(io::Error::other("too many descriptors"));
    }
    for (slot, fd) in data.chunks_exact_mut(std::mem::size_of::<RawFd>()).zip(fds) {
        slot.copy_from_slice(&fd.to_ne_bytes());
    }
    send_byte(fd, byte, libc::SCM_RIGHTS, &data[..length])
}

/// A game in a reused sandbox: starts `argv` on the game's pipes as the bot's user, reports its exit
/// (`X`, wait status) as it happens, and on arena's end request (`K`) kills everything the game left,
/// empties what the bot could write and reports the sandbox clean (`C`), ready for the next game.
fn helper_game(
    argv: &[CString],
    pipes: [OwnedFd; 3],
    spawner: Option<&Spawner>,
    control_in: &mut File,
    control_out: &mut File,
    uid: Option<u32>,
    gid: Option<u32>,
) -> io::Result<()> {
    // The bot leads a process group of its own, announced to arena (which pauses that group
    // alone, not bwrap, init and the helper with it); the game's pipes become its 0-2.
    let mut plan = BotExec::new(argv, uid, gid);
    plan.own_group = true;
    plan.stdio = pipes.each_ref().map(|pipe| Some(pipe.as_raw_fd()));
    let pid = match spawner {
        Some(spawner) => spawner.spawn_leader(&mut plan),
        None => plan.spawn(),
    };
    drop(pipes);
    let report = |out: &mut File, status: i32| -> io::Result<()> {
        let mut message = vec![b'X'];
        message.extend_from_slice(&status.to_le_bytes());
        out.write_all(&message)
    };
    let mut exited = pid < 0;
    if exited {
        report(control_out, 127 << 8)?;
    }
    // SAFETY: pidfd_open on our own child (when there is one).
    let pidfd = if exited {
        -1
    } else {
        unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) as RawFd }
    };
    loop {
        let mut fds = [
            libc::pollfd {
                fd: control_in.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: if exited { -1 } else { pidfd },
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: valid pollfds (a negative descriptor is skipped).
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } < 0 {
            continue;
        }
        if !exited && fds[1].revents != 0 {
            let mut status = 0;
            // SAFETY: waitpid on our own child, which has exited.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            exited = true;
            report(control_out, status)?;
        }
        if fds[0].revents != 0 {
            let mut request = [0u8; 1];
            if control_in.read(&mut request)? != 1 || request[0] != END {
                return Err(io::Error::other("arena left"));
            }
            kill_the_rest();
            if !exited {
                let mut status = 0;
                // SAFETY: waitpid on our own child, killed just above.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                report(control_out, status)?;
            }
            if pidfd >= 0 {
                // SAFETY: closing the descriptor we opened.
                unsafe { libc::close(pidfd) };
            }
            reset_for_the_next_game(&[]);
            return control_out.write_all(CLEAN);
        }
    }
}

/// How long the pause of a bot in a pooled sandbox waits for the helper's child to announce its
/// process group (it takes a fork); a helper that never does is paused with its whole sandbox.
const GROUP_WAIT: Duration = Duration::from_secs(1);

/// Marks the message that carries a game's bot process group (its leader's credentials).
const GROUP: u8 = b'P';

/// Sends [`GROUP`] on the control socket `fd` with this process's credentials: the kernel gives
/// arena the pid in arena's own PID namespace, which the sandbox's processes do not know.
fn announce_group(fd: RawFd) {
    // SAFETY: plain getters of this process's ids.
    let credentials = unsafe {
        libc::ucred {
            pid: libc::getpid(),
            uid: libc::getuid(),
            gid: libc::getgid(),
        }
    };
    // SAFETY: viewing a plain C struct as its bytes.
    let data = unsafe {
        std::slice::from_raw_parts(
            (&credentials as *const libc::ucred).cast::<u8>(),
            std::mem::size_of::<libc::ucred>(),
        )
    };
    // Best effort: without it arena pauses the whole sandbox's group, as before.
    let _ = send_byte(fd, GROUP, libc::SCM_CREDENTIALS, data);
}

/// The process groups announced on `fd` (arena's end of a control socket with `SO_PASSCRED`) and
/// not read yet, oldest first; never waits.
fn announced_groups(fd: RawFd) -> Vec<i32> {
    let mut groups = Vec::new();
    loop {
        let mut pid = None;
        let received = receive_byte(fd, libc::MSG_DONTWAIT, |kind, data| {
            if kind == libc::SCM_CREDENTIALS && data.len() >= std::mem::size_of::<libc::ucred>() {
                // SAFETY: the kernel wrote a ucred there.
                let credentials = unsafe { data.as_ptr().cast::<libc::ucred>().read_unaligned() };
                pid = Some(credentials.pid);
            }
        });
        match received {
            Ok(Some(GROUP)) => groups.extend(pid.filter(|&pid| pid > 0)),
            Ok(Some(_)) => {}
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Ok(None) | Err(_) => return groups,
        }
    }
}

/// Kills everything in the sandbox but its init and the helper (kill(-1) spares both), again while
/// anything is left; orphans are reaped by the init.
fn kill_the_rest() {
    for _ in 0..100 {
        // SAFETY: kill(-1) signals every process of this PID namespace we may signal.
        if unsafe { libc::kill(-1, libc::SIGKILL) } != 0 {
            break;
        }
        // SAFETY: reaping our own children, if any.
        while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
    }
}

/// Empties what a bot could write in its sandbox (its folder, /tmp, /dev/shm) and removes its System
/// V IPC objects: the next game starts from nothing the last one left.
fn reset_for_the_next_game(more: &[CString]) {
    let more = more
        .iter()
        .map(|dir| Path::new(OsStr::from_bytes(dir.as_bytes())));
    for dir in [Path::new("."), Path::new("/tmp"), Path::new("/dev/shm")]
        .into_iter()
        .chain(more)
    {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
                let _ = if is_dir {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }
    for (table, remove) in [("shm", 0u8), ("msg", 1u8), ("sem", 2u8)] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/sysvipc/{table}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let Some(id) = line
                .split_whitespace()
                .nth(1)
                .and_then(|id| id.parse().ok())
            else {
                continue;
            };
            // SAFETY: IPC_RMID on an id of this IPC namespace; a wrong id only fails.
            unsafe {
                match remove {
                    0 => libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    1 => libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    _ => libc::semctl(id, 0, libc::IPC_RMID),
                };
            }
        }
    }
}

/// Everything the bot's process needs between its start and its exec, made in advance: a child
/// started with `vfork` semantics shares the helper's memory and must not allocate.
struct BotExec {
    pointers: Vec<*const libc::c_char>,
    filter: Vec<libc::sock_filter>,
    uid: Option<u32>,
    gid: Option<u32>,
    /// Descriptors that become 0, 1 and 2 (`None`: kept).
    stdio: [Option<RawFd>; 3],
    /// Leads a process group of its own, announced on descriptor 0 (see [`announce_group`]).
    own_group: bool,
    /// Started by a thread already under the bot's filter (a [`Spawner`], or the main thread of a
    /// sandbox serving calls): inherited, not installed again.
    filter_inherited: bool,
    /// With `own_group` under an inherited filter (which refuses `setpgid`): the child writes its
    /// pid on the first descriptor and waits for a byte on the second, 1 once the helper's main
    /// thread has made it a group leader (see [`Spawner::spawn_leader`]).
    handshake: Option<(RawFd, RawFd)>,
}

impl BotExec {
    /// `argv` must outlive the plan (the pointers are into its strings).
    fn new(argv: &[CString], uid: Option<u32>, gid: Option<u32>) -> BotExec {
        let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        pointers.push(std::ptr::null());
        // The bot's whole filter (the helper's lets `setpgid` through), stacked on the helper's.
        let filter = bot_filter();
        BotExec {
            pointers,
            filter,
            uid,
            gid,
            stdio: [None; 3],
            own_group: false,
            filter_inherited: false,
            handshake: None,
        }
    }

    /// Starts the bot as a child and returns its pid (negative on failure). The child shares the
    /// helper's memory until its exec (`CLONE_VM | CLONE_VFORK`, as `posix_spawn` does): no copy
    /// of the helper's page tables, which a fork of this large program costs at every start.
    fn spawn(&mut self) -> libc::pid_t {
        const STACK: usize = 64 << 10;
        let mut stack = vec![0u8; STACK];
        // SAFETY: the stack is ours until the child execs or exits (CLONE_VFORK waits for that);
        // the child runs `run_child` only, which does system calls and no allocation.
        unsafe {
            let top = stack.as_mut_ptr().add(STACK);
            let top = top.sub(top as usize % 16);
            libc::clone(
                run_child,
                top.cast(),
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (self as *mut BotExec).cast(),
            )
        }
    }

    /// Becomes the bot; never returns.
    ///
    /// # Safety
    /// In the helper (single-threaded) or a child of [`BotExec::spawn`]: system calls only.
    unsafe fn become_bot(&mut self) -> ! {
        // SAFETY: plain system calls on this process (see the function's contract).
        unsafe {
            if self.own_group {
                match self.handshake {
                    Some((tell, wait)) => {
                        let pid = libc::syscall(libc::SYS_getpid) as i32;
                        let mut go = [0u8];
                        if libc::write(tell, pid.to_ne_bytes().as_ptr().cast(), 4) != 4
                            || libc::read(wait, go.as_mut_ptr().cast(), 1) != 1
                            || go[0] != 1
                        {
                            libc::_exit(126);
                        }
                    }
                    None => {
                        libc::setpgid(0, 0);
                    }
                }
                announce_group(0);
            }
            for (target, source) in self.stdio.iter().enumerate() {
                if let Some(source) = *source {
                    libc::dup2(source, target as libc::c_int);
                }
            }
            if self.stdio.iter().any(Option::is_some) {
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            }
            // Raw system calls: glibc's wrappers would signal the helper's other threads, and a
            // child sharing the helper's memory must not take glibc's locks.
            if let (Some(uid), Some(gid)) = (self.uid, self.gid)
                && (libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0
                    || libc::syscall(libc::SYS_setresgid, gid, gid, gid) != 0
                    || libc::syscall(libc::SYS_setresuid, uid, uid, uid) != 0)
            {
                libc::_exit(126);
            }
            // Without a user change (no root), the capabilities bwrap gave the helper go explicitly.
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            );
            let mut header = [0x2008_0522u32, 0]; // _LINUX_CAPABILITY_VERSION_3, this process
            let data = [0u32; 6];
            libc::syscall(libc::SYS_capset, header.as_mut_ptr(), data.as_ptr());
            if !self.filter_inherited && install_filter(&mut self.filter).is_err() {
                let message = b"arena sandbox: cannot install the bot's seccomp filter\n";
                libc::write(2, message.as_ptr().cast(), message.len());
                libc::_exit(126);
            }
            libc::execvp(self.pointers[0], self.pointers.as_ptr());
            let message = b"arena sandbox: cannot run the command\n";
            libc::write(2, message.as_ptr().cast(), message.len());
            libc::_exit(127)
        }
    }
}

/// The child of [`BotExec::spawn`].
extern "C" fn run_child(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `plan` is the BotExec the parent passed, alive while it waits for this exec.
    unsafe { (*plan.cast::<BotExec>()).become_bot() }
}

/// The bot's seccomp program, ready for `PR_SET_SECCOMP`.
fn bot_filter() -> Vec<libc::sock_filter> {
    seccomp_program(false)
        .into_iter()
        .map(|(code, jt, jf, k)| libc::sock_filter { code, jt, jf, k })
        .collect()
}

/// Sets no-new-privileges and installs `filter` on the calling thread (stacked on what it has).
///
/// # Safety
/// System calls only: callable in a child that shares the helper's memory.
unsafe fn install_filter(filter: &mut [libc::sock_filter]) -> Result<(), ()> {
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: prctl on the calling thread with a program that lives across the call.
    let installed = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog,
            ) == 0
    };
    if installed { Ok(()) } else { Err(()) }
}

/// A thread of the helper that already runs under the bot's seccomp filter and starts each game's
/// stream bot, which inherits the filter from it. Installing a filter compiles it (BPF JIT) and
/// changes kernel page permissions: about 35 µs at every exec on the machines measured, as much as
/// a small bot's whole run (a sandbox that serves calls has the filter on its main thread instead:
/// see `helper_loop`).
///
/// A thread, not a process: the helper's `kill(-1)` after each game spares its own thread group,
/// and the bot stays the helper's child (waited for as before). A game's bot must lead a process
/// group of its own, which the filter forbids it to make: the helper's main thread, whose filter
/// allows it, makes it so before the bot's exec ([`Spawner::spawn_leader`]).
struct Spawner {
    requests: std::sync::mpsc::SyncSender<SpawnRequest>,
    started: std::sync::mpsc::Receiver<libc::pid_t>,
}

/// A [`BotExec`] handed to the spawner's thread; the helper waits for the answer, so the plan
/// outlives its use there.
struct SpawnRequest(*mut BotExec);

// SAFETY: the pointer is used by the spawner's thread only while the sending thread waits for the
// answer, and the plan is not touched by the sender meanwhile.
unsafe impl Send for SpawnRequest {}

impl Spawner {
    /// The spawner's thread, its filter installed; `None` if it cannot be made (the bot's processes
    /// then install the filter themselves, started by the helper's main thread).
    fn start() -> Option<Spawner> {
        let (requests, incoming) = std::sync::mpsc::sync_channel::<SpawnRequest>(0);
        let (answers, started) = std::sync::mpsc::sync_channel::<libc::pid_t>(1);
        std::thread::Builder::new()
            .name("arena-spawner".into())
            .spawn(move || {
                // SAFETY: installing a filter on this thread only (no TSYNC).
                let ready = unsafe { install_filter(&mut bot_filter()) }.is_ok();
                if answers.send(if ready { 0 } else { -1 }).is_err() || !ready {
                    return;
                }
                while let Ok(SpawnRequest(plan)) = incoming.recv() {
                    // SAFETY: see `SpawnRequest`: the plan is alive and not used elsewhere.
                    let pid = unsafe { (*plan).spawn() };
                    // SAFETY: as above.
                    if let (true, Some((tell, _))) = (pid < 0, unsafe { (*plan).handshake }) {
                        // No child to tell the main thread its pid: it must not wait for one.
                        // SAFETY: writing to a pipe the plan's owner keeps open.
                        unsafe { libc::write(tell, (-1i32).to_ne_bytes().as_ptr().cast(), 4) };
                    }
                    if answers.send(pid).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        (started.recv().ok()? == 0).then_some(Spawner { requests, started })
    }

    /// Starts `plan` (with `own_group`) from the spawner's thread, its filter then inherited, and
    /// returns the pid, or a negative number on failure. The child, already filtered, cannot call
    /// `setpgid`: this thread (the helper's main one, whose filter allows it) makes the child lead
    /// its own group between the child's start and its exec, which a parent may do.
    fn spawn_leader(&self, plan: &mut BotExec) -> libc::pid_t {
        let (Ok((told, tell)), Ok((wait, go))) = (pipe(), pipe()) else {
            return -1;
        };
        plan.filter_inherited = true;
        plan.handshake = Some((tell.as_raw_fd(), wait.as_raw_fd()));
        if self.requests.send(SpawnRequest(plan)).is_err() {
            return -1;
        }
        let mut pid = [0u8; 4];
        // The child writes its pid; the spawner's thread writes -1 if there is no child.
        let child = match (&File::from(told)).read_exact(&mut pid) {
            Ok(()) => i32::from_ne_bytes(pid),
            Err(_) => -1,
        };
        // SAFETY: setpgid on a child of this process that has not exec'd yet (it waits for `go`).
        let leads = child > 0 && unsafe { libc::setpgid(child, child) } == 0;
        // A child that cannot lead its group exits (126) instead of running unpausable.
        let _ = (&File::from(go)).write_all(&[u8::from(leads)]);
        let started = self.started.recv().unwrap_or(-1);
        drop((tell, wait));
        started
    }
}

/// Drops to the bot's user and every capability, and execs `argv`; never returns.
///
/// # Safety
/// Only in a single-threaded process (the helper).
unsafe fn become_bot(argv: &[CString], uid: Option<u32>, gid: Option<u32>) -> ! {
    // SAFETY: see the function's contract.
    unsafe { BotExec::new(argv, uid, gid).become_bot() }
}

/// One call in the helper: fork, drop to the bot's user, exec; collect stdout until it exits; kill
/// everything else in the sandbox. Returns the wait status and the stdout kept.
fn helper_call(
    argv: &[CString],
    null: &File,
    uid: Option<u32>,
    gid: Option<u32>,
    filter_inherited: bool,
) -> (i32, Vec<u8>) {
    let Ok((out_read, out_write)) = pipe() else {
        return (127 << 8, Vec::new());
    };
    let mut plan = BotExec::new(argv, uid, gid);
    plan.stdio = [Some(null.as_raw_fd()), Some(out_write.as_raw_fd()), None];
    plan.filter_inherited = filter_inherited;
    let pid = plan.spawn();
    drop(out_write);
    if pid < 0 {
        return (127 << 8, Vec::new());
    }
    let mut out = File::from(out_read);
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    // Until the pipe closes (the call and whatever inherited its stdout are done) or the call exits;
    // what a straggler still holds open is not waited for.
    // SAFETY: pidfd_open on our own child.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
    let mut status = 0;
    loop {
        let mut fds = [
            libc::pollfd {
                fd: out.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: pidfd,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: valid pollfds.
        unsafe { libc::poll(fds.as_mut_ptr(), if pidfd >= 0 { 2 } else { 1 }, -1) };
        if fds[0].revents != 0 {
            match out.read(&mut buffer) {
                Ok(0) | Err(_) => {
                    // SAFETY: waitpid on our own child.
                    unsafe { libc::waitpid(pid, &mut status, 0) };
                    break;
                }
                Ok(n) => {
                    let room = HELPER_STDOUT_CAP.saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&buffer[..room]);
                }
            }
        }
        if pidfd >= 0 && fds[1].revents != 0 {
            // SAFETY: waitpid on our own child, which has exited.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            crate::spawn::set_nonblocking(out.as_raw_fd()).ok();
            while let Ok(n) = out.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let room = HELPER_STDOUT_CAP.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
            }
            break;
        }
    }
    if pidfd >= 0 {
        // SAFETY: closing the descriptor we opened.
        unsafe { libc::close(pidfd) };
    }
    // Nothing of the call outlives it.
    kill_the_rest();
    (status, kept)
}

// ---------------------------------------------------------------------------------------------
// Output shown on arena's terminal

/// `text` with control characters (except newline and tab) escaped, so that bytes from a bot shown on
/// arena's terminal cannot move the cursor, change colours or rewrite what is shown.
pub fn escape_control(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Writes `bytes` to `out` so that terminals show them literally (see [`escape_control`]).
pub fn write_escaped(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let text = String::from_utf8_lossy(bytes);
    out.write_all(escape_control(&text).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_not_copied() {
        assert!(matches!(
            escape_control("fine\ttext\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            escape_control("\u{1b}[2Jgone\r\u{7}"),
            "\\u{1b}[2Jgone\\r\\u{7}"
        );
    }

    #[test]
    fn relative_program_and_files_are_made_absolute_and_visible() {
        let dir = std::env::temp_dir().join(format!("arena-visible-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bots")).expect("dir");
        std::fs::write(dir.join("bots/a.py"), "").expect("file");
        let work = dir.join("work");
        let argv: Vec<String> = ["python3", "bots/a.py", "7"].map(String::from).into();
        let (out, visible) = visible_paths(&argv, &dir, &work);
        assert_eq!(out[0], "python3");
        assert_eq!(out[1], dir.join("bots/a.py").to_string_lossy());
        assert_eq!(out[2], "7");
        assert_eq!(visible, vec![dir.join("bots/a.py")]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_seccomp_program_jumps_stay_inside_it() {
        let program = seccomp_program(false);
        for (at, (code, jt, jf, _)) in program.iter().enumerate() {
            if code & 0x07 == 0x05 {
                assert!(at + 1 + (*jt as usize) < program.len());
                assert!(at + 1 + (*jf as usize) < program.len());
            }
        }
        assert_eq!(program.last().map(|i| i.3 & 0xffff_0000), Some(0x0005_0000));
    }
}

/// A seat's sandbox, ready before its game: one set up for this game (the helper becomes the bot),
/// or a pooled one (the helper starts the bot and stays).
#[derive(Debug)]
pub enum PreparedSeat {
    Resident(Resident),
    Lease(Lease),
}

//! A process in a new sandbox: the checked configuration ([`Sandbox`]), how to start a process
//! ([`Launch`]) and what was started ([`Spawned`], its [`Jail`]), and the bubblewrap start itself:
//! bwrap's command line, its start with exact descriptors, and the release of the sandbox's init
//! once it is in its cgroups and under its limits ([`launch_begin`], [`launch_finish`]).

use std::ffi::CString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::cgroup::{BotCgroups, CgroupRoot};
use super::disk::Disk;
use super::policy::{
    BUILD_DISK, BUILD_MEMORY, BUILD_TASKS, DEFAULT_FILE_SIZE, DEFAULT_UIDS, Limits, SANDBOX_PATH,
    SandboxPolicy, SandboxUnavailable,
};
use super::seccomp::seccomp_memfd;
use super::sys::{
    chown_tree, copy_entries, cstring, find_in, find_on_path, fresh_scratch_dir, pipe,
    set_blocking, socket_pair, spawn_raw, wait_pid,
};
use super::users::{UidLease, Users};

/// How long bwrap may take to set a sandbox up before the start counts as failed.
pub(super) const SETUP_WAIT: Duration = Duration::from_secs(10);

/// A checked, ready sandbox configuration, shared by every bot of a run.
#[derive(Debug)]
pub struct Sandbox {
    pub(super) policy: SandboxPolicy,
    bwrap: CString,
    cgroups: CgroupRoot,
    /// The users bots run as, one per sandbox, when arena is root (otherwise a bot keeps arena's
    /// user inside a user namespace).
    users: Option<std::sync::Arc<Users>>,
    /// bwrap arguments for the system folders, computed once.
    system: Vec<String>,
}

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
                missing.push(why.to_string());
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
        let users = if root {
            match Users::check(policy.uids.unwrap_or(DEFAULT_UIDS)) {
                Ok(users) => Some(std::sync::Arc::new(users)),
                Err(why) => {
                    missing.push(why);
                    None
                }
            }
        } else {
            None
        };
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
            users,
            system: system_binds(),
        };
        sandbox.cgroups.sweep_stale();
        // A dead arena's mounts first: its folders under them cannot be removed before.
        if root {
            super::disk::sweep_stale();
        }
        sweep_stuck_bwraps();
        crate::folders::sweep_stale();
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
    /// for compilers (at least [`BUILD_MEMORY`], [`BUILD_TASKS`] and [`BUILD_DISK`], no CPU-time limit: the build's
    /// own time limit bounds it) and `toolchains` shown read-only on top.
    pub fn for_builds(&self, toolchains: &[PathBuf]) -> Sandbox {
        let mut policy = self.policy.clone();
        let limits = &mut policy.limits;
        limits.memory = limits.memory.map(|memory| memory.max(BUILD_MEMORY));
        limits.tasks = limits.tasks.map(|tasks| tasks.max(BUILD_TASKS));
        limits.file_size = limits.file_size.map(|size| size.max(DEFAULT_FILE_SIZE));
        limits.cpu_seconds = None;
        // The build works in a bounded copy of its folder (the submission's build in the cache),
        // written back after each step (see `launch_begin`).
        limits.disk = limits.disk.map(|disk| disk.max(BUILD_DISK));
        for path in toolchains {
            if path.is_absolute() && path.exists() && !policy.read_only.contains(path) {
                policy.read_only.push(path.clone());
            }
        }
        Sandbox {
            policy,
            bwrap: self.bwrap.clone(),
            cgroups: self.cgroups.clone(),
            users: self.users.clone(),
            system: self.system.clone(),
        }
    }

    /// True when bots run as users of their own (arena is root), and their folders can be bounded.
    pub(super) fn is_root(&self) -> bool {
        self.users.is_some()
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

/// The sandbox of one started process: its cgroups, the pid namespace's init, a scratch folder.
/// Dropping it kills whatever is left inside and removes the cgroups and the folder.
#[derive(Debug)]
pub struct Jail {
    /// pidfd of the sandbox's init (pid 1 of its namespace), opened while bwrap was blocked, so a
    /// signal through it can never reach a recycled pid.
    init: Option<OwnedFd>,
    cgroups: Option<BotCgroups>,
    pub(super) scratch: Option<PathBuf>,
    /// The bot's bounded folder, unmounted once nothing runs in the sandbox.
    pub(super) disk: Option<Disk>,
    /// `(copy, folder)`: the bot worked in a bounded copy of a folder the caller gave, written back
    /// to it once nothing runs in the sandbox.
    write_back: Option<(PathBuf, PathBuf)>,
    /// The uid the bot runs as (root only), given back once nothing runs as it.
    user: Option<UidLease>,
    /// A resident helper's bot command as given and as the sandbox sees it (relative paths made
    /// absolute, links resolved: see [`visible_paths`]): what the helper is asked to run is
    /// rewritten the same way ([`Jail::as_seen`]).
    command: Option<(Vec<String>, Vec<String>)>,
}

impl Jail {
    /// `argv` as the sandbox sees it: when it starts with the bot's command as given to the helper's
    /// start, that command as seen inside (`./bot` run from arena's folder is not the sandbox
    /// folder's `./bot`), the rest unchanged.
    pub(super) fn as_seen(&self, argv: &[String]) -> Vec<String> {
        match &self.command {
            Some((given, seen)) if argv.starts_with(given) => {
                let mut out = seen.clone();
                out.extend_from_slice(&argv[given.len()..]);
                out
            }
            _ => argv.to_vec(),
        }
    }

    /// `(uid, gid)` the bot runs as, when arena is root.
    pub(super) fn run_as(&self) -> Option<(u32, u32)> {
        self.user.as_ref().map(|user| (user.uid, user.uid))
    }

    /// Makes `path` (a file the game gives the bot to change: Coup's history file) the bot's user's;
    /// nothing to do when arena is not root. Each sandbox has a user of its own, so a file two
    /// players' sandboxes share is handed to each before its call.
    pub(super) fn give(&self, path: &Path) -> io::Result<()> {
        match self.run_as() {
            Some((uid, gid)) => std::os::unix::fs::lchown(path, Some(uid), Some(gid)),
            None => Ok(()),
        }
    }

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
        // Without cgroups, bwrap was reaped (see `launch_finish`), and with it everything inside.
        let emptied = self.cgroups.take().is_none_or(BotCgroups::remove);
        if let Some((copy, folder)) = self.write_back.take() {
            // Best effort: a drop cannot report, and what could not be written back (the host's
            // disk full) leaves the folder as the bot's earlier games left it.
            let _ = write_back(&copy, &folder);
        }
        drop(self.disk.take());
        if let Some(dir) = self.scratch.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
        // A uid whose processes may still run is never handed to another bot.
        if let Some(user) = self.user.take()
            && !emptied
        {
            user.keep_forever();
        }
    }
}

/// Kills the bubblewrap processes that an arena which no longer exists left behind (killed with
/// -9), returning how many. bwrap's child waits on an eventfd for its monitor's word before it
/// sets its parent-death signal: when arena dies in the moment between bwrap's clone and that
/// word, the monitor dies with it (`--die-with-parent`) and the child waits for good, outside any
/// cgroup of arena's (bubblewrap's own race, seen with `kill -9` of a worker as its first sandbox
/// started). Such a child is told by its command line, which names its sandbox's folder
/// (`arena-sandbox-PID-N`, `arena-game-PID-N`: [`crate::folders::stale_candidate`]), and by that
/// folder's owner being gone ([`crate::folders::owner_gone`], the bwrap's own start as the time it
/// was made); a bwrap of a running arena is never touched. A server, a worker and every arena
/// with a sandbox call it when they start, as they sweep stale folders.
fn sweep_stuck_bwraps() -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let is_bwrap = std::fs::read_to_string(entry.path().join("comm"))
            .is_ok_and(|comm| comm.trim_end() == "bwrap");
        if !is_bwrap {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let owner = cmdline.split(|&b| b == 0).find_map(|arg| {
            let name = Path::new(std::ffi::OsStr::from_bytes(arg)).file_name()?;
            crate::folders::stale_candidate(name.to_str()?)
        });
        let (Some(owner), Some(started)) = (owner, crate::folders::process_start(pid)) else {
            continue;
        };
        if owner != pid && crate::folders::owner_gone(owner, started) {
            // SAFETY: kill with a pid read from /proc and a valid signal.
            if unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) } == 0 {
                killed += 1;
            }
        }
    }
    killed
}

/// Makes the folder `folder` hold what `copy` (the bot's bounded copy of it) holds: its entries are
/// removed, then the copy's put in their place ([`copy_entries`]).
fn write_back(copy: &Path, folder: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        crate::folders::remove_untrusted(&entry?.path())?;
    }
    copy_entries(copy, folder)
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

pub(super) fn launch_sandboxed(launch: &Launch<'_>, sandbox: &Sandbox) -> io::Result<Spawned> {
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
pub(super) fn launch_begin(
    launch: &Launch<'_>,
    sandbox: &Sandbox,
    resident: Option<&[String]>,
    reusable: bool,
) -> io::Result<Pending> {
    if launch.argv.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
    }
    let user = match &sandbox.users {
        Some(users) => Some(users.lease()?),
        None => None,
    };
    let run_as = user.as_ref().map(|user| (user.uid, user.uid));
    let mut jail = Jail {
        init: None,
        cgroups: None,
        scratch: None,
        disk: None,
        write_back: None,
        user,
        command: None,
    };
    let workdir = working_folder(launch, &mut jail)?;
    // The folder mounted at `workdir` inside: `workdir` itself, or the bounded copy of it.
    let mut source = workdir.clone();
    // A bounded disk when arena is root (it mounts the tmpfs on the host); a reusable sandbox has
    // its own already (see `Reusable::start`). A fresh folder gets the tmpfs itself. A folder the
    // caller gives (a KotH bot's folder kept between its games, `arena play --workdir`, a build's
    // folder) may outlive the sandbox, so the bot works in a bounded copy of it, mounted at the
    // folder's own path, and what the copy holds at the end is written back (`Jail::drop`): the
    // host's disk never holds more of the bot's than its limit.
    if let (Some(size), false, true) = (sandbox.policy.limits.disk, reusable, sandbox.is_root()) {
        match launch.workdir {
            None => jail.disk = Some(Disk::mount(&workdir, size)?),
            Some(_) => {
                let scratch = fresh_scratch_dir()?;
                jail.scratch = Some(scratch.clone());
                jail.disk = Some(Disk::mount(&scratch, size)?);
                copy_entries(&workdir, &scratch).map_err(|e| match e.kind() {
                    io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => io::Error::new(
                        e.kind(),
                        format!(
                            "the bot's folder {} does not fit its disk of {} MiB: make the folder \
                             smaller or raise --disk-mib",
                            workdir.display(),
                            size >> 20
                        ),
                    ),
                    _ => e,
                })?;
                jail.write_back = Some((scratch.clone(), workdir.clone()));
                source = scratch;
            }
        }
    }
    let mut visible = command_and_visible(launch, resident, &workdir)?;
    if let Some(bot) = resident {
        jail.command = Some((bot.to_vec(), visible.bot_argv.clone()));
        // The helper's command ends with the user it starts bots as.
        let (uid, gid) = run_as.map_or(("-".into(), "-".into()), |(uid, gid)| {
            (uid.to_string(), gid.to_string())
        });
        visible.argv.extend([uid, gid]);
    }
    if let Some((uid, gid)) = run_as {
        // The bot's own folder and files become its user's: arena (root) still reads and removes them.
        chown_tree(&source, uid, gid)?;
        for file in launch.writable {
            std::os::unix::fs::lchown(file, Some(uid), Some(gid))?;
        }
    }

    let mut args: Vec<String> = vec!["bwrap".into()];
    args.extend(isolation_args(sandbox));
    args.extend(mount_args(sandbox, launch, &source, &workdir, &visible)?);
    args.extend(environment_args(sandbox, &workdir, &visible.env));
    args.extend(command_args(run_as, resident.is_some(), reusable));
    args.extend(visible.argv);
    start_bwrap(sandbox, launch, &args, resident.is_some(), reusable, jail)
}

/// The bot's working folder, absolute: `launch.workdir`, or a fresh scratch folder that `jail`
/// removes.
fn working_folder(launch: &Launch<'_>, jail: &mut Jail) -> io::Result<PathBuf> {
    let workdir = match launch.workdir {
        Some(dir) => std::path::absolute(dir)?,
        None => {
            let dir = fresh_scratch_dir()?;
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
    Ok(workdir)
}

/// The command as the bot sees it and what must be visible for it (for a resident helper, also for
/// the bot's command `resident`, as seen in `bot_argv`): see [`visible_paths`].
fn command_and_visible(
    launch: &Launch<'_>,
    resident: Option<&[String]>,
    workdir: &Path,
) -> io::Result<Visible> {
    let base = match launch.workdir {
        Some(_) => workdir.to_path_buf(),
        None => std::env::current_dir()?,
    };
    let mut visible = visible_paths(launch.argv, &base, workdir);
    if let Some(bot) = resident {
        let more = visible_paths(bot, &base, workdir);
        visible.paths.extend(more.paths);
        visible.paths.sort();
        visible.paths.dedup();
        visible.renamed.extend(more.renamed);
        visible.env.extend(more.env);
        visible.bot_argv = more.argv;
    }
    Ok(visible)
}

/// bwrap arguments for the namespaces and what every sandbox has of its own: a host name, `/proc`,
/// `/dev` (its `/dev/tty` a `/dev/null`) and `/tmp`.
fn isolation_args(sandbox: &Sandbox) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    if sandbox.is_root() {
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
        ]
        .map(String::from),
    );
    // /tmp is bounded as the bot's folder is (bwrap makes it, root or not).
    if let Some(size) = sandbox.policy.limits.disk {
        args.extend(["--size".into(), size.to_string()]);
    }
    args.extend(["--tmpfs".into(), "/tmp".into()]);
    args
}

/// bwrap arguments for the host's files the bot sees: the system folders, the organiser's
/// read-only paths and `visible` read-only, the working folder and `launch.writable` writable.
fn mount_args(
    sandbox: &Sandbox,
    launch: &Launch<'_>,
    source: &Path,
    workdir: &Path,
    visible: &Visible,
) -> io::Result<Vec<String>> {
    let mut args: Vec<String> = Vec::new();
    args.extend(sandbox.system.iter().cloned());
    // Folders on the way to what is mounted are made by bwrap with the mode of the host's, which
    // may shut the bot's user out (`/root` is 0700): made here first, traversable and unlistable.
    let mut made: Vec<PathBuf> = Vec::new();
    let workdir_path = workdir.to_path_buf();
    let mounted = sandbox
        .policy
        .read_only
        .iter()
        .chain(&visible.paths)
        .chain(visible.renamed.iter().map(|(_, inside)| inside))
        .chain(std::iter::once(&workdir_path))
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
    for path in sandbox.policy.read_only.iter().chain(&visible.paths) {
        let path = path.to_string_lossy().into_owned();
        args.extend(["--ro-bind".into(), path.clone(), path]);
    }
    for (real, inside) in &visible.renamed {
        args.extend([
            "--ro-bind".into(),
            real.to_string_lossy().into_owned(),
            inside.to_string_lossy().into_owned(),
        ]);
    }
    args.extend([
        "--bind".into(),
        source.to_string_lossy().into_owned(),
        workdir.to_string_lossy().into_owned(),
    ]);
    for file in launch.writable {
        let file = std::path::absolute(file)?.to_string_lossy().into_owned();
        args.extend(["--bind".into(), file.clone(), file]);
    }
    Ok(args)
}

/// bwrap arguments for the bot's current folder (its working folder) and its environment: the
/// documented variables and the organiser's, nothing of arena's.
fn environment_args(
    sandbox: &Sandbox,
    workdir: &Path,
    toolchain: &[(String, String)],
) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let dir = workdir.to_string_lossy().into_owned();
    args.extend(["--chdir".into(), dir.clone(), "--clearenv".into()]);
    let mut env = vec![
        ("PATH".to_string(), SANDBOX_PATH.to_string()),
        ("HOME".to_string(), dir.clone()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("TMPDIR".to_string(), "/tmp".to_string()),
    ];
    env.extend(toolchain.iter().cloned());
    env.extend(sandbox.policy.env.iter().cloned());
    for (name, value) in env {
        args.extend(["--setenv".into(), name, value]);
    }
    args
}

/// bwrap arguments for its descriptors and for what runs in the sandbox, up to the command's `--`:
/// the capabilities a resident helper keeps (more for a `reusable` one), or the change to the
/// bot's user when arena is root.
fn command_args(run_as: Option<(u32, u32)>, resident: bool, reusable: bool) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    // Descriptors in the child: 0-2 the bot's, 3 info, 4 block, 5 seccomp.
    args.extend(["--info-fd", "3", "--block-fd", "4", "--seccomp", "5"].map(String::from));
    if resident {
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
    } else if let Some((uid, gid)) = run_as {
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
    args
}

/// Starts bwrap with `args` on exactly its descriptors: the bot's stdin (a pipe, a socket for a
/// `reusable` sandbox, or `/dev/null`), stdout and stderr, the info and block pipes and the seccomp
/// program (the helper's, which lets `setpgid` through, for a `resident` one).
fn start_bwrap(
    sandbox: &Sandbox,
    launch: &Launch<'_>,
    args: &[String],
    resident: bool,
    reusable: bool,
    jail: Jail,
) -> io::Result<Pending> {
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
    let seccomp = seccomp_memfd(resident)?;
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
pub(super) struct Pending {
    spawned: Spawned,
    jail: Jail,
    info_read: OwnedFd,
    block_write: OwnedFd,
    cpu: Option<usize>,
}

impl Pending {
    /// The resident helper's bot command as its callers will name it (it was started with
    /// `argv` made absolute: see [`absolute_args`]).
    pub(super) fn bot_given_as(&mut self, argv: &[String]) {
        if let Some((given, _)) = self.jail.command.as_mut() {
            *given = argv.to_vec();
        }
    }
}

/// `argv` with every relative path that names something in `base` (`./prog`, `bots/a.py`) made
/// absolute; a plain program name (`python3`) and other words are left as they are.
pub(super) fn absolute_args(argv: &[String], base: &Path) -> Vec<String> {
    argv.iter()
        .enumerate()
        .map(|(index, arg)| {
            let path = Path::new(arg);
            let named = !path.is_absolute() && (index > 0 || arg.contains('/'));
            match base.join(path) {
                full if named && !arg.is_empty() && full.exists() => {
                    full.to_string_lossy().into_owned()
                }
                _ => arg.clone(),
            }
        })
        .collect()
}

/// Waits for bwrap's sandbox, puts its init in the bot's cgroups, sets its limits and releases it.
pub(super) fn launch_finish(pending: Pending, sandbox: &Sandbox) -> io::Result<Spawned> {
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

/// What a command needs to run in a sandbox ([`visible_paths`]).
#[derive(Debug, Default)]
struct Visible {
    /// The command as the sandbox runs it.
    argv: Vec<String>,
    /// For a resident helper: the bot's command as the sandbox sees it.
    bot_argv: Vec<String>,
    /// Host paths shown read-only at the same path.
    paths: Vec<PathBuf>,
    /// `(host file, path inside)`: a program that dispatches on the name it is called by (rustup's
    /// proxies `rustc`, `cargo` are links to `rustup`), shown under that name.
    renamed: Vec<(PathBuf, PathBuf)>,
    /// Environment its toolchain needs (rustup's home: the bot's `HOME` is its folder).
    env: Vec<(String, String)>,
}

/// The arguments as the bot sees them, and what they need visible: a program or file named by the
/// organiser's command outside the working folder is shown read-only at the same path (relative
/// ones are made absolute: the bot's current folder differs), and a program found on arena's
/// `PATH` outside the system folders is given by its full path. A program is shown as installed
/// (see [`installation`]): a link to it is followed (npm's `node_modules/.bin/tsc` runs from where it
/// really is, as it expects: `../lib/tsc.js`), except a link whose name differs from its target's
/// to a program (not a script) which is kept: a multi-call program dispatches on its name (rustup's
/// `rustc`, busybox), while a script runs from where it really is (npm's `npm` → `npm-cli.js`).
fn visible_paths(argv: &[String], base: &Path, workdir: &Path) -> Visible {
    let mut visible = Visible::default();
    let out = &mut visible.argv;
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
                let found = std::path::absolute(&found).unwrap_or(found);
                let outside = !found.starts_with(workdir) && !is_system(&found);
                if outside {
                    let real = std::fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
                    if index == 0 {
                        installation(&real, &mut visible.paths, &mut visible.env);
                    } else {
                        visible.paths.push(real.clone());
                    }
                    if real != found {
                        if index == 0 && real.file_name() != found.file_name() && is_elf(&real) {
                            visible.renamed.push((real, found.clone()));
                            out.push(found.to_string_lossy().into_owned());
                        } else {
                            out.push(real.to_string_lossy().into_owned());
                        }
                        continue;
                    }
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
    visible.paths.sort();
    visible.paths.dedup();
    visible.bot_argv = visible.argv.clone();
    visible
}

/// Whether `path` is a compiled program (ELF), as opposed to a script.
fn is_elf(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    crate::folders::open_untrusted(path)
        .and_then(|mut file| file.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"\x7fELF")
}

/// What a program outside the system folders needs besides its file (`real`, links resolved): an
/// interpreter or compiler installed in a prefix of its own (`~/.pyenv/versions/2.7.18/bin/
/// python2.7`) loads its libraries and standard library from `PREFIX/lib`, shown read-only with it
/// (only `lib` and `lib64`: the rest of a prefix such as `~/.local` is none of the bot's business);
/// rustup needs its home (toolchains and settings) and to be told where it is.
fn installation(real: &Path, paths: &mut Vec<PathBuf>, env: &mut Vec<(String, String)>) {
    if is_system(real) {
        return;
    }
    paths.push(real.to_path_buf());
    let prefix = real
        .parent()
        .filter(|dir| dir.file_name().is_some_and(|name| name == "bin"))
        .and_then(Path::parent)
        .filter(|prefix| prefix.parent().is_some() && !is_system(prefix));
    if let Some(prefix) = prefix {
        for lib in ["lib", "lib64"] {
            let dir = prefix.join(lib);
            if dir.is_dir() {
                paths.push(dir);
            }
        }
    }
    if real.file_name().is_some_and(|name| name == "rustup") {
        let home = std::env::var_os("RUSTUP_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".rustup")))
            .and_then(|home| std::fs::canonicalize(home).ok())
            .filter(|home| home.is_dir());
        if let Some(home) = home {
            env.push(("RUSTUP_HOME".into(), home.to_string_lossy().into_owned()));
            paths.push(home);
            // The toolchain arena itself was started with (`cargo +nightly run`), as outside.
            if let Ok(toolchain) = std::env::var("RUSTUP_TOOLCHAIN") {
                env.push(("RUSTUP_TOOLCHAIN".into(), toolchain));
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_program_and_files_are_made_absolute_and_visible() {
        let dir = std::env::temp_dir().join(format!("arena-visible-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bots")).expect("dir");
        std::fs::write(dir.join("bots/a.py"), "").expect("file");
        let work = dir.join("work");
        let argv: Vec<String> = ["python3", "bots/a.py", "7"].map(String::from).into();
        let visible = visible_paths(&argv, &dir, &work);
        let out = &visible.argv;
        assert_eq!(out[0], "python3");
        assert_eq!(out[1], dir.join("bots/a.py").to_string_lossy());
        assert_eq!(out[2], "7");
        assert_eq!(visible.paths, vec![dir.join("bots/a.py")]);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A process named `bwrap` whose command names a sandbox folder of an arena that no longer
    /// exists is killed by the sweep; one naming a folder of this (running) process is not.
    #[test]
    fn the_sweep_kills_the_bwraps_of_dead_arenas_only() {
        let dir = std::env::temp_dir().join(format!("arena-fake-bwrap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let fake = dir.join("bwrap");
        std::fs::copy("/bin/sh", &fake).expect("a shell named bwrap");
        // Above the kernel's largest pid (2^22): no process has it.
        let dead = 4_194_305u32;
        let start = |owner: u32| {
            std::process::Command::new(&fake)
                .args(["-c", "sleep 60; true"])
                .arg(format!("/nowhere/arena-sandbox-{owner}-0"))
                .spawn()
                .expect("the fake bwrap starts")
        };
        let mut orphan = start(dead);
        let mut live = start(std::process::id());
        // Its start time is read to the second: the sweep must see it as started after the owner.
        let mut killed = 0;
        for _ in 0..100 {
            killed += sweep_stuck_bwraps();
            if orphan.try_wait().expect("wait").is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let status = orphan.wait().expect("the orphan ends");
        assert!(killed >= 1, "killed {killed}");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert!(
            live.try_wait().expect("wait").is_none(),
            "a live arena's bwrap was killed"
        );
        let _ = live.kill();
        let _ = live.wait();
        let _ = std::fs::remove_dir_all(dir);
    }
}

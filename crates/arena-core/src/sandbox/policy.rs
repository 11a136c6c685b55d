//! What the organiser chooses about the sandbox ([`SandboxPolicy`]): the bots' resource limits,
//! their environment, what they see read-only and the programs used; and why a sandbox cannot be
//! set up ([`SandboxUnavailable`]).

use std::path::PathBuf;

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
/// Bytes a build step may have in its folder and in `/tmp`, each, at least: a compiler's objects
/// and caches (counted in the build's memory, [`BUILD_MEMORY`], like a bot's files in its own).
pub const BUILD_DISK: u64 = 1 << 30;
/// Bytes a bot may write to its folder and to `/tmp`, each (see `docs/sandbox.md`: as large as its
/// largest file may be, and a third of its memory, in which these files are counted).
pub const DEFAULT_DISK: u64 = 256 << 20;
/// The users bots run as when arena is root, one per running sandbox: in systemd's unused range
/// 1879048192-2147483647 (above the container ranges, below the uids read as negative), far from
/// real users, system users, `nobody` and the usual subordinate ranges of `/etc/subuid`.
pub const DEFAULT_UIDS: UidRange = UidRange {
    first: 1_900_000_000,
    count: 4096,
};
/// `PATH` inside the sandbox.
pub const SANDBOX_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

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
    /// Bytes of the bot's folder (its files, what it writes, a kept sandbox's call files) and of its
    /// `/tmp`, each: a size-limited tmpfs, so writing past it is ENOSPC (as root, in sandboxes with a
    /// resident helper; see `docs/sandbox.md`).
    pub disk: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: Some(DEFAULT_MEMORY),
            tasks: Some(DEFAULT_TASKS),
            file_size: Some(DEFAULT_FILE_SIZE),
            open_files: Some(DEFAULT_OPEN_FILES),
            cpu_seconds: None,
            disk: Some(DEFAULT_DISK),
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
    /// The users bots run as when arena is root (one per running sandbox); `None`: [`DEFAULT_UIDS`].
    pub uids: Option<UidRange>,
    /// The bubblewrap program; `None`: `bwrap` on `PATH`.
    pub bwrap: Option<PathBuf>,
    /// A program that can serve as the sandbox's resident helper (`arena` itself: see
    /// `run_helper_if_asked`). With one, Coup's per-move calls start inside one sandbox per bot and
    /// game; without, every call builds a sandbox of its own.
    pub helper: Option<PathBuf>,
}

/// A range of uids that arena owns: `count` users from `first` (`FIRST-LAST` on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UidRange {
    pub first: u32,
    pub count: u32,
}

impl UidRange {
    /// The last uid of the range (`first` for an empty one).
    pub fn last(&self) -> u32 {
        self.first.saturating_add(self.count.saturating_sub(1))
    }

    pub fn contains(&self, uid: u32) -> bool {
        uid >= self.first && uid - self.first < self.count
    }
}

impl std::fmt::Display for UidRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.first, self.last())
    }
}

impl std::str::FromStr for UidRange {
    type Err = String;

    /// `FIRST-LAST`, both included, neither 0 nor an id read as -1 (65535, 4294967295).
    fn from_str(text: &str) -> Result<UidRange, String> {
        let bad = || format!("{text:?}: give the range of uids as FIRST-LAST, e.g. {DEFAULT_UIDS}");
        let (first, last) = text.split_once('-').ok_or_else(bad)?;
        let (first, last): (u32, u32) = (
            first.trim().parse().map_err(|_| bad())?,
            last.trim().parse().map_err(|_| bad())?,
        );
        if first == 0 || last < first || last == u32::MAX || (first..=last).contains(&65535) {
            return Err(format!(
                "{text:?}: the range must not hold 0 (root), 65535 or 4294967295 (read as -1), and \
                 FIRST must not be above LAST (e.g. {DEFAULT_UIDS})"
            ));
        }
        Ok(UidRange {
            first,
            count: last - first + 1,
        })
    }
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

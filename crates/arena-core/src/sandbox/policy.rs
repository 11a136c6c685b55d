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
/// The user bots run as when arena runs as root (`nobody` on Debian).
pub const SANDBOX_UID: u32 = 65534;
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
    /// `run_helper_if_asked`). With one, Coup's per-move calls start inside one sandbox per bot and
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

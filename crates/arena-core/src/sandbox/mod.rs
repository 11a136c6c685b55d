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
//!
//! The modules, each using only those listed before it:
//! - `policy`: what the organiser chooses ([`SandboxPolicy`], [`Limits`], [`UidRange`]);
//! - `sys`: operating-system plumbing (pipes, `posix_spawn`, waiting, finding programs);
//! - `users`: the uids bots run as, one per running sandbox, shared with other arena processes;
//! - `disk`: the bot's bounded folder (a size-limited tmpfs);
//! - `seccomp`: the filter that keeps a bot's processes in their group and closes what no bot
//!   needs;
//! - `cgroup`: the bot's cgroups (v1 or v2);
//! - `helper`: the resident helper, the program inside a kept sandbox, and its protocol;
//! - `bwrap`: a checked configuration ([`Sandbox`]) and a process started in a new sandbox
//!   ([`Launch`], [`Spawned`], [`Jail`]);
//! - `launcher`: the one launcher, plain or sandboxed ([`launch`], [`run_to_end`]);
//! - `resident`: a sandbox kept for one game's calls ([`Resident`]);
//! - `pool`: sandboxes kept between games ([`SandboxPool`], [`Lease`]);
//! - `terminal`: a bot's bytes shown on arena's terminal ([`escape_control`]).

mod bwrap;
mod cgroup;
mod disk;
mod helper;
mod launcher;
mod policy;
mod pool;
mod resident;
mod seccomp;
mod sys;
mod terminal;
mod users;

pub use bwrap::{Jail, Launch, Sandbox, Spawned, kill_all};
pub use helper::{HELPER_ARG, run_helper_if_asked};
pub use launcher::{Finished, launch, run_to_end};
pub use policy::{
    BUILD_DISK, BUILD_MEMORY, BUILD_TASKS, DEFAULT_DISK, DEFAULT_FILE_SIZE, DEFAULT_MEMORY,
    DEFAULT_OPEN_FILES, DEFAULT_TASKS, DEFAULT_UIDS, Limits, SANDBOX_PATH, SandboxPolicy,
    SandboxUnavailable, UidRange,
};
pub use pool::{Lease, LeasedProcess, PreparedSeat, SandboxPool};
pub use resident::{Resident, ResidentCall};
pub(crate) use sys::set_blocking;
pub use sys::{read_available, wait_pid};
pub use terminal::{escape_control, write_escaped};

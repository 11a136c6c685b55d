//! How a bot process is spawned: the attributes it inherits from the spawning thread (its CPU pin,
//! never a favoured priority), retries over a just-written executable, descriptor flags. Shared by
//! the plain launcher (`process`) and the sandbox (`sandbox`).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::time::Duration;

use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

/// Makes a descriptor this process owns non-blocking.
pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns, with standard flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The lock of the file at `path`, if no one else holds it (`flock`: released by the kernel when the
/// file closes, even when the process is killed).
pub(crate) fn try_lock(path: &Path) -> io::Result<Option<File>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(Some(file));
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(None)
    } else {
        Err(error)
    }
}

/// A CPU that one job of this process plays on, held from the other arena processes of this user on
/// this machine until dropped.
#[derive(Debug)]
pub struct CpuLease {
    pub cpu: usize,
    _lock: File,
}

/// A CPU of this process's mask that no other arena job holds, for a job that plays its games (its
/// thread and its bots) on it alone; `None` when every one is held or the locks cannot be made (the
/// job then runs unpinned). Jobs of one process pass `index` 0, 1, ... and try the CPUs from there.
///
/// Why: a job whose bots run on its own core answers each of their lines without a wake-up across
/// cores. Unpinned, two contest workers of one job each (`arena worker --jobs 1`) spent 9.9–10.0 ms
/// of CPU a game of trivial C bots against 8.4–8.8 ms pinned to a core each, side by side (issue 29).
/// A process cannot pin by its job's index alone, as `arena tournament --jobs N` does: two such
/// processes would both take CPU 0. The locks are files in a folder of this user's under the
/// temporary folder.
pub fn lease_cpu(index: usize) -> Option<CpuLease> {
    let allowed = sched_getaffinity(Pid::from_raw(0)).ok()?;
    let cpus: Vec<usize> = (0..CpuSet::count())
        .filter(|&cpu| allowed.is_set(cpu).unwrap_or(false))
        .collect();
    // SAFETY: geteuid has no preconditions.
    let user = unsafe { libc::geteuid() };
    let dir = std::env::temp_dir().join(format!("arena-cpus-{user}"));
    {
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir);
    }
    lease_cpu_in(&dir, &cpus, index)
}

/// [`lease_cpu`] among `cpus`, with the locks in `dir`.
fn lease_cpu_in(dir: &Path, cpus: &[usize], index: usize) -> Option<CpuLease> {
    if cpus.is_empty() {
        return None;
    }
    (0..cpus.len()).find_map(|step| {
        let cpu = cpus[(index + step) % cpus.len()];
        try_lock(&dir.join(format!("cpu-{cpu}")))
            .ok()
            .flatten()
            .map(|lock| CpuLease { cpu, _lock: lock })
    })
}

/// How much `favour_this_thread` raises a thread's priority (nice -5: about 3× the CPU weight of a
/// nice-0 bot when both want the core).
pub(crate) const FAVOURED_NICE: libc::c_int = -5;

/// Raises the calling thread's scheduling priority, so that arena's reading and timing of answers
/// does not wait behind busy bots on the same core. Needs CAP_SYS_NICE (or a permissive RLIMIT_NICE);
/// returns false, changing nothing, without it. Bots spawned later by this thread still start at
/// nice 0.
pub fn favour_this_thread() -> bool {
    // SAFETY: setpriority on the calling thread (Linux applies PRIO_PROCESS to a thread id).
    unsafe { libc::setpriority(libc::PRIO_PROCESS, thread_id(), FAVOURED_NICE) == 0 }
}

/// Gives the calling thread a real-time priority (SCHED_RR at the lowest real-time level), so that
/// when a bot answers, the thread that reads and times it runs at once, ahead of any busy bot on
/// that core, instead of within a few milliseconds as a favoured nice value gets it. For threads
/// that mostly wait on bots (games with process bots): a real-time thread that computes for long
/// would hold its core (the kernel's real-time throttling caps that at 95 %). The policy carries
/// SCHED_RESET_ON_FORK, so bots spawned by the thread start as ordinary processes at nice 0. Needs
/// CAP_SYS_NICE (or RLIMIT_RTPRIO); without it falls back to [`favour_this_thread`]. Returns whether
/// either took effect.
pub fn favour_this_thread_realtime() -> bool {
    let parameters = libc::sched_param { sched_priority: 1 };
    // SAFETY: sched_setscheduler on the calling thread with a valid parameter block.
    let realtime = unsafe {
        libc::sched_setscheduler(
            thread_id() as libc::pid_t,
            libc::SCHED_RR | libc::SCHED_RESET_ON_FORK,
            &parameters,
        )
    } == 0;
    realtime || favour_this_thread()
}

fn thread_id() -> libc::id_t {
    nix::unistd::gettid().as_raw() as libc::id_t
}

/// The spawning thread's CPU mask and priority, as a child should inherit them, until dropped: a CPU
/// pin is set on the thread itself (race-free, the mask is the thread's own, and the spawn stays a
/// `posix_spawn`), and a favoured thread drops back to nice 0 so that bots never inherit its priority.
pub(crate) struct SpawnAttributes {
    previous_cpus: Option<CpuSet>,
    previous_nice: Option<libc::c_int>,
}

impl SpawnAttributes {
    pub(crate) fn new(cpu: Option<usize>) -> io::Result<Self> {
        let me = Pid::from_raw(0);
        let mut attributes = SpawnAttributes {
            previous_cpus: None,
            previous_nice: None,
        };
        if let Some(cpu) = cpu {
            let previous = sched_getaffinity(me).map_err(io::Error::from)?;
            let mut only = CpuSet::new();
            only.set(cpu).map_err(io::Error::from)?;
            sched_setaffinity(me, &only).map_err(io::Error::from)?;
            attributes.previous_cpus = Some(previous);
        }
        // getpriority returns the nice value itself on success (-1 is ambiguous, but only a favoured
        // thread, at FAVOURED_NICE, needs anything done).
        // SAFETY: getpriority/setpriority on the calling thread.
        let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, thread_id()) };
        if nice < -1 {
            // SAFETY: as above.
            if unsafe { libc::setpriority(libc::PRIO_PROCESS, thread_id(), 0) } != 0 {
                return Err(io::Error::last_os_error());
            }
            attributes.previous_nice = Some(nice);
        }
        Ok(attributes)
    }
}

impl Drop for SpawnAttributes {
    fn drop(&mut self) {
        if let Some(cpus) = &self.previous_cpus {
            let _ = sched_setaffinity(Pid::from_raw(0), cpus);
        }
        if let Some(nice) = self.previous_nice {
            // SAFETY: setpriority on the calling thread.
            unsafe { libc::setpriority(libc::PRIO_PROCESS, thread_id(), nice) };
        }
    }
}

/// Runs `spawn` again while it fails with ETXTBSY ("text file busy"): an executable that was just
/// written (a bot compiled a moment ago, a script a test wrote) can be briefly held open for writing by
/// another thread's fork that has not reached its exec yet. A few short retries always outlast that.
pub fn spawn_retrying<T>(mut spawn: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    const ETXTBSY: i32 = nix::errno::Errno::ETXTBSY as i32;
    let mut pause = Duration::from_millis(2);
    for _ in 0..6 {
        match spawn() {
            Err(error) if error.raw_os_error() == Some(ETXTBSY) => {
                std::thread::sleep(pause);
                pause *= 2;
            }
            other => return other,
        }
    }
    spawn()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_is_leased_to_one_job_at_a_time_and_freed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let cpus = [3, 5];
        // Two jobs that both start at index 0 (two processes of one job each) take both cores.
        let first = lease_cpu_in(dir.path(), &cpus, 0).unwrap();
        let second = lease_cpu_in(dir.path(), &cpus, 0).unwrap();
        assert_eq!((first.cpu, second.cpu), (3, 5));
        // Every core held: the next job runs unpinned.
        assert!(lease_cpu_in(dir.path(), &cpus, 0).is_none());
        // A job that ends frees its core, and the index says where a job starts looking.
        drop(first);
        assert_eq!(lease_cpu_in(dir.path(), &cpus, 1).unwrap().cpu, 3);
        assert!(lease_cpu_in(dir.path(), &[], 0).is_none());
    }

    #[test]
    fn another_process_holding_a_cpu_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        // `flock` locks are per open file: a holder in another process is seen the same way.
        let mut held = std::process::Command::new("flock")
            .arg(dir.path().join("cpu-0"))
            .args(["-c", "echo held; read line"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("util-linux's flock (an essential package of Debian)");
        {
            use std::io::BufRead;
            let mut line = String::new();
            std::io::BufReader::new(held.stdout.as_mut().unwrap())
                .read_line(&mut line)
                .unwrap();
            assert_eq!(line, "held\n");
        }
        assert_eq!(lease_cpu_in(dir.path(), &[0, 1], 0).unwrap().cpu, 1);
        drop(held.stdin.take());
        held.wait().unwrap();
        assert_eq!(lease_cpu_in(dir.path(), &[0, 1], 0).unwrap().cpu, 0);
    }
}

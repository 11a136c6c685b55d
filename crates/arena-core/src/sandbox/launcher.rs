//! The one launcher of bot processes, plain or sandboxed ([`launch`]), and a process run to its
//! end ([`run_to_end`]).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::bwrap::{Jail, Launch, Sandbox, Spawned, kill_all, launch_sandboxed};
use super::sys::{read_available, wait_pid};

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

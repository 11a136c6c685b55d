//! A resident sandbox ([`Resident`]): one sandbox set up for a series of calls (Coup's process per
//! move) or set up in advance for a stream bot, with arena's side of the helper's calls.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::bwrap::{
    Jail, Launch, Pending, SETUP_WAIT, Sandbox, Spawned, kill_all, launch_begin, launch_finish,
};
use super::helper::{CALL, EXEC, HELPER_ARG, HELPER_STDOUT_CAP, READY, helper_request};
use super::sys::{read_available, wait_pid};

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
    pub(super) spawned: Option<Spawned>,
    /// Files outside the folder the bot may change (Coup's history file): handed to the bot's user
    /// before each call, since each sandbox has a user of its own and another sandbox (the other
    /// player's) may have taken the file meanwhile.
    writable: Vec<PathBuf>,
}

impl Resident {
    /// Starts the helper (`sandbox.policy().helper`) in a new sandbox in which `bot_argv`'s program
    /// and files, `workdir` and `writable` are visible as for [`launch`](super::launch).
    pub fn start(
        sandbox: &Sandbox,
        bot_argv: &[String],
        workdir: Option<&Path>,
        cpu: Option<usize>,
        writable: &[PathBuf],
    ) -> io::Result<Resident> {
        let pending = Self::begin(sandbox, bot_argv, workdir, cpu, writable)?;
        let mut resident = Self::finish(pending, sandbox)?;
        resident.writable = writable.to_vec();
        Ok(resident)
    }

    /// Several resident sandboxes set up at once (their bwraps work in parallel), on this thread.
    pub fn start_all(
        sandbox: &Sandbox,
        requests: &[(&[String], Option<&Path>, Option<usize>)],
    ) -> Vec<io::Result<Resident>> {
        let pending: Vec<io::Result<Pending>> = requests
            .iter()
            .map(|(argv, workdir, cpu)| Self::begin(sandbox, argv, *workdir, *cpu, &[]))
            .collect();
        pending
            .into_iter()
            .map(|pending| Self::finish(pending?, sandbox))
            .collect()
    }

    pub(super) fn finish(pending: Pending, sandbox: &Sandbox) -> io::Result<Resident> {
        let spawned = launch_finish(pending, sandbox)?;
        for file in [&spawned.stdout, &spawned.stderr].into_iter().flatten() {
            crate::spawn::set_nonblocking(file.as_raw_fd())?;
        }
        let mut resident = Resident {
            spawned: Some(spawned),
            writable: Vec::new(),
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
    ) -> io::Result<Pending> {
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
        if let Some(jail) = self.spawned.as_ref().and_then(|s| s.jail.as_ref()) {
            for file in &self.writable {
                jail.give(file)?;
            }
        }
        call_or_end(
            self,
            |resident| resident.spawned.as_mut(),
            Resident::end,
            "the resident sandbox is gone",
            argv,
            limit,
            stderr_cap,
        )
    }

    /// Turns the helper into `argv` (the bot's stream process) and returns it: a sandbox set up in
    /// advance (off the bot's clock, in parallel for all seats of a game) so that starting the bot
    /// costs one exec. The helper's pipes become the bot's stdin, stdout and stderr.
    pub fn exec(mut self, argv: &[String]) -> io::Result<Spawned> {
        let mut spawned = self
            .spawned
            .take()
            .ok_or_else(|| io::Error::other("the resident sandbox is gone"))?;
        let argv = spawned
            .jail
            .as_ref()
            .map_or(argv.to_vec(), |jail| jail.as_seen(argv));
        let message = helper_request(EXEC, &argv);
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

impl Drop for Resident {
    fn drop(&mut self) {
        self.end();
    }
}

/// The resident helper's command: the program and its marker argument (the sandbox's set-up adds
/// the user it starts bots as: see `launch_begin`).
pub(super) fn helper_argv(sandbox: &Sandbox) -> io::Result<[String; 2]> {
    let helper = sandbox.policy.helper.as_ref().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "the sandbox has no resident helper",
        )
    })?;
    Ok([
        helper.to_string_lossy().into_owned(),
        HELPER_ARG.to_string(),
    ])
}

/// Runs `argv` once in the sandbox of a resident helper and waits for it up to `limit`: the one
/// call of [`Resident::call`] and of `Lease::call` (a pooled sandbox). `helper` finds the helper in
/// `held` (`None`: the sandbox is gone, and the error says `gone`). A call without a status (out of
/// time, or a helper that broke its protocol) takes the sandbox down with it: `end` ends it.
pub(super) fn call_or_end<H>(
    held: &mut H,
    helper: fn(&mut H) -> Option<&mut Spawned>,
    end: fn(&mut H),
    gone: &'static str,
    argv: &[String],
    limit: Duration,
    stderr_cap: usize,
) -> io::Result<ResidentCall> {
    let spawned = helper(held).ok_or_else(|| io::Error::other(gone))?;
    let call = call_in(spawned, argv, limit, stderr_cap);
    if !matches!(&call, Ok(call) if call.status.is_some()) {
        end(held);
    }
    call
}

/// Runs `argv` once in the sandbox of helper `spawned` and waits for it up to `limit`. A call
/// without a status (out of time, killed, or a helper that broke its protocol) leaves the sandbox
/// unusable: the caller ends it ([`call_or_end`]).
fn call_in(
    spawned: &mut Spawned,
    argv: &[String],
    limit: Duration,
    stderr_cap: usize,
) -> io::Result<ResidentCall> {
    let argv = spawned
        .jail
        .as_ref()
        .map_or(argv.to_vec(), |jail| jail.as_seen(argv));
    let message = helper_request(CALL, &argv);
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

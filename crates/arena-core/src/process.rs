//! Bot processes: each in its own process group, killed with its children on every exit path, with
//! stdout delivered in chunks, stdin written without ever blocking the caller, and stderr kept up to a cap.

use std::io;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use nix::sched::{CpuSet, sched_setaffinity};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

/// How much of a bot's stderr is kept by default.
pub const DEFAULT_STDERR_CAP: usize = 64 * 1024;
/// Bytes of stdout read at a time.
const READ_CHUNK: usize = 16 * 1024;

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

/// A running bot process.
///
/// Input and output are handled on the caller's task (no helper tasks, no channels): input is written
/// at once while the pipe has room, the rest while the caller waits for output; stdout is read only when
/// the caller wants an answer. Only stderr has its own task, so that a bot can never block on it.
pub struct BotProcess {
    child: Child,
    pgid: Pid,
    stdin: Option<ChildStdin>,
    /// Input accepted from the caller but not yet taken by the pipe.
    unwritten: Vec<u8>,
    stdout: Option<ChildStdout>,
    read_buffer: Box<[u8]>,
    stderr: Arc<Mutex<CappedText>>,
    stderr_task: Option<JoinHandle<()>>,
    ended: bool,
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
    /// Starts `argv` in `workdir` as the leader of a new process group, on `cpu` only if given.
    pub fn spawn(
        argv: &[String],
        workdir: Option<&Path>,
        stderr_cap: usize,
        cpu: Option<usize>,
    ) -> io::Result<Self> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = workdir {
            command.current_dir(dir);
        }
        if let Some(cpu) = cpu {
            let mut cpus = CpuSet::new();
            cpus.set(cpu).map_err(io::Error::from)?;
            // SAFETY: between fork and exec the closure makes one system call (sched_setaffinity),
            // which is async-signal-safe, and touches no lock or allocation.
            unsafe {
                command.pre_exec(move || {
                    sched_setaffinity(Pid::from_raw(0), &cpus).map_err(io::Error::from)
                });
            }
        }
        let mut child = spawn_retrying(|| command.spawn())?;
        let pid = child
            .id()
            .ok_or_else(|| io::Error::other("process exited before it could be tracked"))?;
        let pgid = Pid::from_raw(pid as i32);

        let stderr = Arc::new(Mutex::new(CappedText {
            cap: stderr_cap,
            ..CappedText::default()
        }));
        let stderr_task = child.stderr.take().map(|mut pipe| {
            let sink = Arc::clone(&stderr);
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 16 * 1024];
                loop {
                    match pipe.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if let Ok(mut text) = sink.lock() {
                                text.push(&buffer[..n]);
                            }
                        }
                    }
                }
            })
        });

        Ok(BotProcess {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            pgid,
            unwritten: Vec::new(),
            read_buffer: vec![0u8; READ_CHUNK].into_boxed_slice(),
            stderr,
            stderr_task,
            ended: false,
        })
    }

    /// Process group id (= the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// Queues bytes for the bot's stdin and writes what the pipe takes now; never waits for the bot.
    pub fn write(&mut self, bytes: &[u8]) {
        if self.stdin.is_none() {
            return;
        }
        self.unwritten.extend_from_slice(bytes);
        while !self.unwritten.is_empty() {
            let Some(stdin) = self.stdin.as_mut() else {
                break;
            };
            match stdin.write(&self.unwritten).now_or_never() {
                Some(Ok(n)) if n > 0 => {
                    self.unwritten.drain(..n);
                }
                // The pipe is full: the rest goes out while the caller waits for output.
                None => break,
                // A bot that closed its input is noticed through its output, not here.
                Some(_) => self.close_stdin(),
            }
        }
    }

    /// Closes the bot's stdin (anything unwritten is dropped).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
        self.unwritten.clear();
    }

    /// The next chunk of stdout (empty once stdout is closed), writing pending input meanwhile.
    pub async fn next_chunk(&mut self) -> &[u8] {
        let Some(stdout) = self.stdout.as_mut() else {
            return &[];
        };
        let n = loop {
            match self.stdin.as_mut() {
                Some(stdin) if !self.unwritten.is_empty() => {
                    tokio::select! {
                        read = stdout.read(&mut self.read_buffer) => break read.unwrap_or(0),
                        written = stdin.write(&self.unwritten) => match written {
                            Ok(n) if n > 0 => { self.unwritten.drain(..n); }
                            _ => { self.stdin = None; self.unwritten.clear(); }
                        },
                    }
                }
                _ => break stdout.read(&mut self.read_buffer).await.unwrap_or(0),
            }
        };
        if n == 0 {
            self.stdout = None;
        }
        &self.read_buffer[..n]
    }

    /// Stdout that has already arrived, without waiting (`None` when there is none).
    pub fn ready_chunk(&mut self) -> Option<&[u8]> {
        let stdout = self.stdout.as_mut()?;
        match stdout.read(&mut self.read_buffer).now_or_never() {
            Some(Ok(n)) if n > 0 => Some(&self.read_buffer[..n]),
            _ => None,
        }
    }

    /// Stops the whole group (SIGSTOP), so an idle bot cannot use the CPU while another one thinks.
    pub fn pause(&self) {
        let _ = killpg(self.pgid, Signal::SIGSTOP);
    }

    pub fn resume(&self) {
        let _ = killpg(self.pgid, Signal::SIGCONT);
    }

    /// Kills the whole group, reaps the leader and collects stderr. Idempotent.
    pub async fn end(&mut self) -> ProcessEnd {
        self.close_stdin();
        self.stdout = None;
        self.kill_group();
        let status = match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(Ok(status)) => Some(status.to_string()),
            _ => None,
        };
        // A grandchild that escaped the group may hold stderr open: give the reader a moment, then stop it.
        if let Some(reader) = self.stderr_task.take() {
            let abort = reader.abort_handle();
            if tokio::time::timeout(Duration::from_millis(200), reader)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        let (stderr, stderr_dropped) = match self.stderr.lock() {
            Ok(text) => (
                String::from_utf8_lossy(&text.bytes).into_owned(),
                text.dropped,
            ),
            Err(_) => (String::new(), 0),
        };
        ProcessEnd {
            stderr,
            stderr_dropped,
            status,
        }
    }

    fn kill_group(&mut self) {
        if !self.ended {
            self.ended = true;
            let _ = killpg(self.pgid, Signal::SIGKILL);
            // A stopped group must also be continued for the kill to be delivered promptly on some kernels.
            let _ = killpg(self.pgid, Signal::SIGCONT);
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        self.kill_group();
        if let Some(task) = &self.stderr_task {
            task.abort();
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

/// True while any process of the group is alive (zombies included until reaped).
pub fn group_alive(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), None).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed_cpus(pid: i32) -> String {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .expect("status")
            .lines()
            .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
            .expect("Cpus_allowed_list")
            .trim()
            .to_string()
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

    #[tokio::test]
    async fn a_pinned_bot_runs_on_its_cpu_only_and_is_killed_with_its_group() {
        let argv = vec!["sleep".to_string(), "30".to_string()];
        let mut pinned = BotProcess::spawn(&argv, None, 1024, Some(0)).expect("spawns");
        assert_eq!(allowed_cpus(pinned.pgid()), "0");
        let mut free = BotProcess::spawn(&argv, None, 1024, None).expect("spawns");
        let everything = allowed_cpus(std::process::id() as i32);
        assert_eq!(allowed_cpus(free.pgid()), everything);
        let group = pinned.pgid();
        pinned.end().await;
        free.end().await;
        assert!(!group_alive(group), "the group is gone once ended");
    }
}

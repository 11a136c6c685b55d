//! Bot processes: each in its own process group, killed with its children on every exit path, with
//! stdout delivered in chunks, stdin written without ever blocking the caller, and stderr kept up to a cap.

use std::io;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How much of a bot's stderr is kept by default.
pub const DEFAULT_STDERR_CAP: usize = 64 * 1024;
/// Chunks of stdout buffered before the reader stops reading (the bot then blocks on its own pipe).
const STDOUT_CHUNKS_BUFFERED: usize = 256;

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
pub struct BotProcess {
    child: Child,
    pgid: Pid,
    stdin: Option<mpsc::UnboundedSender<Vec<u8>>>,
    stdout: mpsc::Receiver<Vec<u8>>,
    stderr: Arc<Mutex<CappedText>>,
    tasks: Vec<JoinHandle<()>>,
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
    /// Starts `argv` in `workdir` as the leader of a new process group.
    pub fn spawn(argv: &[String], workdir: Option<&Path>, stderr_cap: usize) -> io::Result<Self> {
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
        let mut child = command.spawn()?;
        let pid = child
            .id()
            .ok_or_else(|| io::Error::other("process exited before it could be tracked"))?;
        let pgid = Pid::from_raw(pid as i32);

        let mut tasks = Vec::new();
        let (stdin_tx, mut stdin_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let mut stdin = child.stdin.take().expect("stdin is piped");
        tasks.push(tokio::spawn(async move {
            while let Some(bytes) = stdin_rx.recv().await {
                // A bot that closed its input is noticed through its output, not here.
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        }));

        let (stdout_tx, stdout_rx) = mpsc::channel(STDOUT_CHUNKS_BUFFERED);
        let mut stdout = child.stdout.take().expect("stdout is piped");
        tasks.push(tokio::spawn(async move {
            let mut buffer = vec![0u8; 16 * 1024];
            loop {
                match stdout.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if stdout_tx.send(buffer[..n].to_vec()).await.is_err() {
                            break;
                        }
                    }
                }
            }
        }));

        let stderr = Arc::new(Mutex::new(CappedText {
            cap: stderr_cap,
            ..CappedText::default()
        }));
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let sink = Arc::clone(&stderr);
        tasks.push(tokio::spawn(async move {
            // Always drained, so a bot flooding stderr never blocks on it.
            let mut buffer = vec![0u8; 16 * 1024];
            loop {
                match stderr_pipe.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut text) = sink.lock() {
                            text.push(&buffer[..n]);
                        }
                    }
                }
            }
        }));

        Ok(BotProcess {
            child,
            pgid,
            stdin: Some(stdin_tx),
            stdout: stdout_rx,
            stderr,
            tasks,
            ended: false,
        })
    }

    /// Process group id (= the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// Queues bytes for the bot's stdin; never waits for the bot to read them.
    pub fn write(&self, bytes: Vec<u8>) {
        if let Some(stdin) = &self.stdin {
            let _ = stdin.send(bytes);
        }
    }

    /// Closes the bot's stdin once everything queued has been written.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next chunk of stdout; `None` once stdout is closed.
    pub async fn next_chunk(&mut self) -> Option<Vec<u8>> {
        self.stdout.recv().await
    }

    /// A chunk that has already arrived, without waiting.
    pub fn ready_chunk(&mut self) -> Option<Vec<u8>> {
        self.stdout.try_recv().ok()
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
        self.stdin = None;
        self.kill_group();
        let status = match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(Ok(status)) => Some(status.to_string()),
            _ => None,
        };
        // A grandchild that escaped the group may hold stderr open: give the reader a moment, then stop it.
        let stderr_reader = self.tasks.pop();
        if let Some(reader) = stderr_reader {
            let abort = reader.abort_handle();
            if tokio::time::timeout(Duration::from_millis(200), reader)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        for task in self.tasks.drain(..) {
            task.abort();
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
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// True while any process of the group is alive (zombies included until reaped).
pub fn group_alive(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), None).is_ok()
}

//! The stream-process agent: one process for the whole game, input on stdin, one answer line on stdout.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

use crate::agent::{Agent, AgentLog, Reply};
use crate::game::{Answer, Fault, FaultKind, StreamProtocol};
use crate::process::{BotProcess, Chunk};

/// Longest answer line kept; the rest of a flood is dropped (and the answer is judged as it stands).
const MAX_LINE: usize = 64 * 1024;
/// How long a bot must be silent before an unterminated answer counts (games that accept one).
const UNTERMINATED_QUIET: Duration = Duration::from_millis(10);

/// How to start a process bot.
#[derive(Clone, Debug)]
pub struct ProcessSpec {
    pub argv: Vec<String>,
    pub workdir: Option<PathBuf>,
    pub stderr_cap: usize,
    /// Multiplies the handshake limit, like every other limit.
    pub time_scale: f64,
    /// The CPU the process (and its children) may run on.
    pub cpu: Option<usize>,
    /// The sandbox to start it in (`None`: unconfined).
    pub sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
}

/// A line read from a bot, or why none came.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    Line(String),
    Timeout,
    Closed,
}

/// Splits a stream of stdout chunks into lines, with deadlines.
#[derive(Default)]
pub struct LineBuffer {
    pending: Vec<u8>,
    /// Length of the unterminated line at the end of `pending`.
    open_len: usize,
}

impl LineBuffer {
    fn take_line(&mut self) -> Option<String> {
        let end = self.pending.iter().position(|&b| b == b'\n')?;
        let line: Vec<u8> = self.pending.drain(..=end).take(end).collect();
        Some(String::from_utf8_lossy(&line).into_owned())
    }

    fn push(&mut self, chunk: &[u8]) {
        // Keep whole lines that fit; a runaway line is cut at MAX_LINE but its newline is still found.
        for part in chunk.split_inclusive(|&b| b == b'\n') {
            let ends_line = part.last() == Some(&b'\n');
            let body = if ends_line {
                &part[..part.len() - 1]
            } else {
                part
            };
            let kept = MAX_LINE.saturating_sub(self.open_len).min(body.len());
            self.pending.extend_from_slice(&body[..kept]);
            self.open_len += kept;
            if ends_line {
                self.pending.push(b'\n');
                self.open_len = 0;
            }
        }
    }

    fn take_rest(&mut self) -> Option<String> {
        if self.pending.is_empty() {
            return None;
        }
        let rest = std::mem::take(&mut self.pending);
        self.open_len = 0;
        Some(String::from_utf8_lossy(&rest).into_owned())
    }

    fn clear(&mut self) {
        self.pending.clear();
        self.open_len = 0;
    }

    /// Reads the next line from `process` before `deadline`, blocking the calling thread (see
    /// `process`). With `accept_unterminated`, text without a newline counts once the bot has been quiet
    /// for a moment (or the deadline comes, or stdout closes).
    pub fn read_line(
        &mut self,
        process: &mut BotProcess,
        deadline: Instant,
        accept_unterminated: bool,
    ) -> LineRead {
        loop {
            if let Some(line) = self.take_line() {
                return LineRead::Line(line);
            }
            let partial = accept_unterminated && !self.pending.is_empty();
            let wait_until = if partial {
                deadline.min(Instant::now() + UNTERMINATED_QUIET)
            } else {
                deadline
            };
            match process.next_chunk(wait_until) {
                Chunk::Data(chunk) => self.push(chunk),
                Chunk::Closed => {
                    return match self.take_rest() {
                        Some(rest) if accept_unterminated => LineRead::Line(rest),
                        _ => LineRead::Closed,
                    };
                }
                Chunk::Timeout => {
                    if partial && let Some(rest) = self.take_rest() {
                        return LineRead::Line(rest);
                    }
                    return LineRead::Timeout;
                }
            }
        }
    }

    /// Throws away whatever the bot printed while it was not being asked.
    fn discard_stale(&mut self, process: &mut BotProcess) {
        self.clear();
        while process.ready_chunk().is_some() {}
    }
}

/// How long a bot that closed its output gets to exit by itself, so that its own exit status is
/// recorded rather than the kill's.
const EXIT_PATIENCE: Duration = Duration::from_millis(300);

/// The fault of a bot that closed its output before answering: a clean exit (status 0) is an exit,
/// a failure status or a signal is a crash, each with the status as it happened.
fn closed_fault(process: &mut BotProcess) -> Fault {
    match process.wait_exit(EXIT_PATIENCE) {
        Some(status) if status.success() => Fault::new(
            FaultKind::Exited,
            format!("exited before answering ({status})"),
        ),
        Some(status) => Fault::new(
            FaultKind::Crashed,
            format!("ended before answering ({status})"),
        ),
        None => Fault::new(
            FaultKind::Crashed,
            "closed its output before answering (still running)",
        ),
    }
}

fn memory_fault() -> Fault {
    Fault::new(
        FaultKind::Memory,
        "killed by the sandbox's memory limit (out of memory)",
    )
}

/// A process that plays a whole game over stdin/stdout with game `G`'s text protocol.
pub struct StreamAgent<G: StreamProtocol> {
    spec: ProcessSpec,
    /// The bot's sandbox, set up in advance by [`StreamAgent::prepare`].
    prepared: Option<crate::sandbox::Resident>,
    process: Option<BotProcess>,
    lines: LineBuffer,
    log: AgentLog,
    /// `resume` was asked for: continue the bot right after its next input is written, so that it wakes
    /// once, with its input already there.
    resume_pending: bool,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: StreamProtocol> StreamAgent<G> {
    pub fn new(spec: ProcessSpec) -> Self {
        StreamAgent {
            spec,
            prepared: None,
            process: None,
            lines: LineBuffer::default(),
            log: AgentLog::default(),
            resume_pending: false,
            _game: std::marker::PhantomData,
        }
    }

    /// Sets the bots' sandboxes up now (when their sandbox has a resident helper), so that `start`
    /// costs one exec: bwrap, the cgroups and the limits take milliseconds, before the bots' clocks
    /// run, and all of a game's seats are set up at once. Without a helper, or if it fails, `start`
    /// launches as usual (and reports any error there). Call it on the thread that runs the game:
    /// the sandboxes die with the thread that started them.
    pub fn prepare_all(agents: &mut [&mut StreamAgent<G>]) {
        let Some(sandbox) = agents.first().and_then(|a| a.spec.sandbox.clone()) else {
            return;
        };
        if sandbox.policy().helper.is_none() {
            return;
        }
        let requests: Vec<_> = agents
            .iter()
            .map(|a| {
                (
                    a.spec.argv.as_slice(),
                    a.spec.workdir.as_deref(),
                    a.spec.cpu,
                )
            })
            .collect();
        let started = crate::sandbox::Resident::start_all(&sandbox, &requests);
        for (agent, resident) in agents.iter_mut().zip(started) {
            agent.prepared = resident.ok();
        }
    }

    /// Uses `resident`, set up in advance for this bot (see `registry::ready_game`), to start it.
    pub fn give_sandbox(&mut self, resident: crate::sandbox::Resident) {
        self.prepared = Some(resident);
    }

    /// Whether a sandbox set up in advance is waiting for this bot's start.
    pub fn has_sandbox(&self) -> bool {
        self.prepared.is_some()
    }

    fn stop(&mut self) {
        if let Some(mut process) = self.process.take() {
            let end = process.end();
            self.log.stderr.push_str(&end.stderr);
            self.log.stderr_dropped += end.stderr_dropped;
            self.log.exit_status = end.status;
        }
    }
}

impl<G: StreamProtocol> Agent<G> for StreamAgent<G> {
    fn start(&mut self) -> BoxFuture<'_, Result<(), Fault>> {
        Box::pin(async move {
            let started = match self.prepared.take() {
                Some(prepared) => prepared
                    .exec(&self.spec.argv)
                    .and_then(|spawned| BotProcess::from_spawned(spawned, self.spec.stderr_cap)),
                None => BotProcess::spawn_in(
                    &self.spec.argv,
                    self.spec.workdir.as_deref(),
                    self.spec.stderr_cap,
                    self.spec.cpu,
                    self.spec.sandbox.as_deref(),
                ),
            };
            let process = started.map_err(|error| {
                Fault::new(
                    FaultKind::SpawnFailed,
                    format!("could not start `{}`: {error}", self.spec.argv.join(" ")),
                )
            })?;
            self.process = Some(process);
            let Some(ready) = G::READY else {
                return Ok(());
            };
            let limit = G::READY_TIMEOUT.mul_f64(self.spec.time_scale.max(0.0));
            let deadline = Instant::now() + limit;
            // Waiting blocks the thread: let the other seats' starts (polled together) spawn their bots
            // first, so that every bot starts up at once and the waits overlap.
            tokio::task::yield_now().await;
            let process = match self.process.as_mut() {
                Some(process) => process,
                None => return Err(Fault::new(FaultKind::NotReady, "killed before READY")),
            };
            loop {
                match self.lines.read_line(process, deadline, true) {
                    LineRead::Line(line) if line.trim().eq_ignore_ascii_case(ready) => {
                        return Ok(());
                    }
                    LineRead::Line(_) => continue,
                    LineRead::Timeout => {
                        return Err(Fault::new(
                            FaultKind::NotReady,
                            format!("no {ready} within {} ms", limit.as_millis()),
                        ));
                    }
                    LineRead::Closed if process.memory_exceeded() => {
                        return Err(memory_fault());
                    }
                    LineRead::Closed => {
                        let how = match process.wait_exit(EXIT_PATIENCE) {
                            Some(status) => format!("ended ({status})"),
                            None => "closed its output".to_string(),
                        };
                        return Err(Fault::new(
                            FaultKind::NotReady,
                            format!("{how} before printing {ready}"),
                        ));
                    }
                }
            }
        })
    }

    fn act<'a>(
        &'a mut self,
        obs: &'a G::Obs,
        first: bool,
        limit: Duration,
    ) -> BoxFuture<'a, Reply<G::Action>> {
        Box::pin(async move {
            let mut input = String::new();
            G::encode_input(obs, first, &mut input);
            let Some(process) = self.process.as_mut() else {
                return Reply {
                    answer: Answer::Fault(Fault::new(FaultKind::Crashed, "not running")),
                    input: Some(input),
                    raw_output: None,
                    elapsed: Duration::ZERO,
                };
            };
            if G::DISCARD_STALE_OUTPUT {
                self.lines.discard_stale(process);
            }
            process.write(input.as_bytes());
            if std::mem::take(&mut self.resume_pending) {
                process.resume();
            }
            let started = Instant::now();
            let read = self
                .lines
                .read_line(process, started + limit, G::ACCEPT_UNTERMINATED);
            let elapsed = started.elapsed();
            let (answer, raw_output) = match read {
                LineRead::Line(line) => {
                    let answer = match G::decode_output(obs, &line) {
                        Ok(action) => Answer::Action(action),
                        Err(why) => Answer::Fault(Fault::new(FaultKind::Unparsable, why)),
                    };
                    (answer, Some(line))
                }
                LineRead::Timeout => (
                    Answer::Fault(Fault::new(
                        FaultKind::Timeout,
                        format!("no answer within {} ms", limit.as_millis()),
                    )),
                    None,
                ),
                LineRead::Closed if process.memory_exceeded() => {
                    (Answer::Fault(memory_fault()), None)
                }
                LineRead::Closed => (Answer::Fault(closed_fault(process)), None),
            };
            Reply {
                answer,
                input: Some(input),
                raw_output,
                elapsed,
            }
        })
    }

    fn resume(&mut self) {
        self.resume_pending = true;
    }

    fn pause(&mut self) {
        self.resume_pending = false;
        if let Some(process) = &self.process {
            process.pause();
        }
    }

    fn kill(&mut self) -> BoxFuture<'_, ()> {
        self.stop();
        Box::pin(std::future::ready(()))
    }

    fn finish(&mut self) -> BoxFuture<'_, AgentLog> {
        // Killed at once, reaped when polled: the runner creates every seat's future before polling
        // any, so all bots of a game die together.
        if let Some(process) = self.process.as_mut() {
            process.kill();
        }
        Box::pin(async move {
            self.stop();
            std::mem::take(&mut self.log)
        })
    }

    fn is_process(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_chunks() {
        let mut buffer = LineBuffer::default();
        buffer.push(b"1 2");
        assert_eq!(buffer.take_line(), None);
        buffer.push(b" 3\nREADY\r\nx");
        assert_eq!(buffer.take_line().as_deref(), Some("1 2 3"));
        assert_eq!(buffer.take_line().as_deref(), Some("READY\r"));
        assert_eq!(buffer.take_line(), None);
        assert_eq!(buffer.take_rest().as_deref(), Some("x"));
    }

    #[test]
    fn runaway_line_is_capped() {
        let mut buffer = LineBuffer::default();
        let flood = vec![b'7'; MAX_LINE * 3];
        buffer.push(&flood);
        buffer.push(&flood);
        buffer.push(b"\nnext\n");
        assert_eq!(buffer.take_line().map(|l| l.len()), Some(MAX_LINE));
        assert_eq!(buffer.take_line().as_deref(), Some("next"));
    }
}

//! The stream-process agent: one process for the whole game, input on stdin, one answer line on stdout.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

use crate::agent::{Agent, AgentLog, Reply};
use crate::game::{Answer, Fault, FaultKind, StreamProtocol};
use crate::process::{BotProcess, Chunk};
use crate::timing::ClockKind;

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
    /// The clock limits are judged on; with `cpu`, every wait gets the wall-clock cap instead.
    pub clock: crate::timing::ClockKind,
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
    /// The last line was taken without its newline (the bot went quiet mid-line): a newline that
    /// comes next ends that line, and is not an empty line of its own.
    after_unterminated: bool,
}

impl LineBuffer {
    fn take_line(&mut self) -> Option<String> {
        let end = self.pending.iter().position(|&b| b == b'\n')?;
        let line: Vec<u8> = self.pending.drain(..=end).take(end).collect();
        Some(String::from_utf8_lossy(&line).into_owned())
    }

    fn push(&mut self, mut chunk: &[u8]) {
        // A bot that prints its answer and its newline in two writes (Python unbuffered does) may
        // be read in between on a loaded machine; its late newline belongs to the answer already
        // taken. Taken as an empty line, it would answer the next question and shift every answer
        // after it by one.
        if std::mem::take(&mut self.after_unterminated) {
            chunk = chunk
                .strip_prefix(b"\r\n")
                .or_else(|| chunk.strip_prefix(b"\n"))
                .unwrap_or(chunk);
            // Nothing more, or the `\r` of a `\r\n` whose `\n` is still to come: wait for the rest.
            if chunk.is_empty() || chunk == b"\r" {
                self.after_unterminated = true;
                return;
            }
        }
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
        self.after_unterminated = false;
    }

    /// The unterminated text at the end, taken as a line (see `after_unterminated`).
    fn take_unterminated(&mut self) -> Option<String> {
        let rest = self.take_rest()?;
        self.after_unterminated = true;
        Some(rest)
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
                    if partial && let Some(rest) = self.take_unterminated() {
                        return LineRead::Line(rest);
                    }
                    return LineRead::Timeout;
                }
            }
        }
    }

    /// Throws away whatever the bot printed while it was not being asked.
    fn discard_stale(&mut self, process: &mut BotProcess) {
        // A newline still owed by a line taken without it is not stale output: when nothing has
        // come since, it may yet come, and is still dropped then.
        let owed_newline = self.after_unterminated && self.pending.is_empty();
        self.clear();
        let mut discarded = false;
        while process.ready_chunk().is_some() {
            discarded = true;
        }
        self.after_unterminated = owed_newline && !discarded;
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
            format!("{} before answering", process.describe(status)),
        ),
        Some(status) => Fault::new(
            FaultKind::Crashed,
            format!("{} before answering", process.describe(status)),
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

/// How long bots get at the end of a game to exit by themselves before arena ends them, times the
/// time scale like every limit (an interpreter's shutdown takes longer on a loaded machine: a slower
/// run says so with `--time-scale`). A bot that lingers past its input costs this much per game.
const END_PATIENCE: Duration = Duration::from_millis(30);

/// How often a wait judged on CPU time looks at the bot's CPU time, at most.
const CPU_POLL: Duration = Duration::from_millis(5);

/// Reads an answer judged on CPU time: the bot may use `limit` of CPU, and gets up to the clock's
/// wall-clock cap to do so. Waits in slices no longer than the CPU time left (a bot cannot use more
/// CPU than wall time on one thread), checking the CPU time after each; a bot whose CPU time cannot
/// be read is judged on the wall-clock cap alone.
fn read_line_on_cpu(
    lines: &mut LineBuffer,
    process: &mut BotProcess,
    nudge: &mut Nudge,
    cpu_before: Option<Duration>,
    started: Instant,
    limit: Duration,
    accept_unterminated: bool,
) -> LineRead {
    let cap = started + ClockKind::wall_cap(limit);
    loop {
        let used = cpu_before
            .zip(process.cpu_time())
            .map(|(before, now)| now.saturating_sub(before));
        if used.is_some_and(|used| used > limit) {
            return LineRead::Timeout;
        }
        let left = used.map_or(limit, |used| limit - used).max(CPU_POLL);
        let until = nudge.until(lines, cap.min(Instant::now() + left));
        match lines.read_line(process, until, accept_unterminated) {
            LineRead::Timeout if Instant::now() < cap => nudge.poke(process),
            other => return other,
        }
    }
}

/// Reads an answer judged on wall time: until `deadline`, in slices ended by the nudges.
fn read_line_on_wall(
    lines: &mut LineBuffer,
    process: &mut BotProcess,
    nudge: &mut Nudge,
    deadline: Instant,
    accept_unterminated: bool,
) -> LineRead {
    loop {
        let until = nudge.until(lines, deadline);
        match lines.read_line(process, until, accept_unterminated) {
            LineRead::Timeout if Instant::now() < deadline => nudge.poke(process),
            other => return other,
        }
    }
}

/// The first nudge's delay after a continue; each next one waits twice as long.
const NUDGE_FIRST: Duration = Duration::from_millis(2);

/// Continues a just-continued bot again while its answer is awaited, 2, 6, 14, 30... ms after the
/// first continue: a handful of signals for the slowest answer, none for a quick one.
///
/// Why: when a stop and a continue reach a bot's group while one of its processes is inside
/// `fork`, Linux can give the new child the stop but not the continue (seen on 6.18: 16 children in
/// 400 forking shells stayed stopped when the two signals came back to back; a second continue
/// released every one). The runner keeps the two apart (a seat is paused only when another is
/// asked), but a fork can still straddle both on a loaded machine, and a bot waiting on its stopped
/// child would then time out through no fault of its own.
struct Nudge {
    /// When the next continue is due; `None`: the bot was not continued for this answer (it was
    /// never stopped), nothing to repeat.
    next: Option<Instant>,
    gap: Duration,
}

impl Nudge {
    fn after_continue(resumed: bool) -> Self {
        Nudge {
            next: resumed.then(|| Instant::now() + NUDGE_FIRST),
            gap: NUDGE_FIRST,
        }
    }

    /// How long the next read may wait: up to the next continue while the bot has printed nothing
    /// of its answer yet (once it prints, it runs; and a partial line's quiet period must not be
    /// cut short).
    fn until(&self, lines: &LineBuffer, until: Instant) -> Instant {
        match self.next {
            Some(next) if lines.pending.is_empty() => until.min(next),
            _ => until,
        }
    }

    /// Sends the continue when it is due.
    fn poke(&mut self, process: &BotProcess) {
        if let Some(next) = self.next
            && Instant::now() >= next
        {
            process.resume();
            self.gap *= 2;
            self.next = Some(Instant::now() + self.gap);
        }
    }
}

/// The fault of a bot that gave no answer in time, with both clocks when they are known.
fn timeout_fault(
    clock: ClockKind,
    limit: Duration,
    elapsed: Duration,
    cpu: Option<Duration>,
) -> Fault {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let cpu_text = cpu.map_or(String::new(), |cpu| format!(", {:.1} ms of CPU", ms(cpu)));
    let why = match clock {
        ClockKind::Wall => format!(
            "no answer within {} ms ({:.1} ms wall{cpu_text})",
            limit.as_millis(),
            ms(elapsed)
        ),
        ClockKind::Cpu if cpu.is_some_and(|cpu| cpu > limit) => format!(
            "used more than {} ms of CPU without answering ({:.1} ms wall{cpu_text})",
            limit.as_millis(),
            ms(elapsed)
        ),
        ClockKind::Cpu => format!(
            "no answer within the CPU clock's wall-clock cap of {} ms (3 × the {} ms limit + 1 s; \
             {:.1} ms wall{cpu_text})",
            ClockKind::wall_cap(limit).as_millis(),
            limit.as_millis(),
            ms(elapsed)
        ),
    };
    Fault::new(FaultKind::Timeout, why)
}

/// A process that plays a whole game over stdin/stdout with game `G`'s text protocol.
pub struct StreamAgent<G: StreamProtocol> {
    spec: ProcessSpec,
    /// The bot's sandbox, set up in advance ([`StreamAgent::prepare_all`], or given).
    prepared: Option<crate::sandbox::PreparedSeat>,
    process: Option<BotProcess>,
    lines: LineBuffer,
    log: AgentLog,
    /// `resume` was asked for: continue the bot right after its next input is written, so that it wakes
    /// once, with its input already there.
    resume_pending: bool,
    /// The bot's CPU time read at the end of its last answer, while it has been paused since: the
    /// start of its next answer then (what it used before the pause took hold is its own, counted
    /// with the next answer). Saves one of the two readings per answer.
    cpu_at_pause: Option<Duration>,
    /// The CPU time read at the end of the last answer.
    last_cpu: Option<Duration>,
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
            cpu_at_pause: None,
            last_cpu: None,
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
            agent.prepared = resident.ok().map(crate::sandbox::PreparedSeat::Resident);
        }
    }

    /// Uses `prepared`, set up in advance for this bot (see `registry::ready_game`), to start it.
    pub fn give_sandbox(&mut self, prepared: crate::sandbox::PreparedSeat) {
        self.prepared = Some(prepared);
    }

    /// Whether a sandbox set up in advance is waiting for this bot's start.
    pub fn has_sandbox(&self) -> bool {
        self.prepared.is_some()
    }

    fn stop(&mut self, why: &str) {
        if let Some(mut process) = self.process.take() {
            let end = process.end_because(why);
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
                Some(crate::sandbox::PreparedSeat::Resident(prepared)) => prepared
                    .exec(&self.spec.argv)
                    .and_then(|spawned| BotProcess::from_spawned(spawned, self.spec.stderr_cap)),
                Some(crate::sandbox::PreparedSeat::Lease(lease)) => {
                    BotProcess::spawn_leased(lease, &self.spec.argv, self.spec.stderr_cap)
                }
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
            let mut limit = G::READY_TIMEOUT.mul_f64(self.spec.time_scale.max(0.0));
            if !self.spec.clock.is_wall() {
                // Start-up is mostly waiting (loading a runtime): on the CPU clock it gets the cap.
                limit = crate::timing::ClockKind::wall_cap(limit);
            }
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
                            Some(status) => process.describe(status),
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
                    cpu: None,
                    stderr: None,
                    stderr_late: None,
                };
            };
            // What came after the previous answer was read belongs to it (one `read`, no wait);
            // nothing before the first ask is late: it goes with the first answer.
            let stderr_late = if first { None } else { process.take_stderr() };
            if G::DISCARD_STALE_OUTPUT {
                self.lines.discard_stale(process);
            }
            // Read before the input goes out, while the bot waits for it: the clock starts right
            // after the write, with nothing of arena's in between.
            let cpu_before = self
                .cpu_at_pause
                .take()
                .or_else(|| process.cpu_time_quick());
            process.write(input.as_bytes());
            let resumed = std::mem::take(&mut self.resume_pending);
            if resumed {
                process.resume();
            }
            let started = Instant::now();
            let mut nudge = Nudge::after_continue(resumed);
            let read = match self.spec.clock {
                ClockKind::Wall => read_line_on_wall(
                    &mut self.lines,
                    process,
                    &mut nudge,
                    started + limit,
                    G::ACCEPT_UNTERMINATED,
                ),
                ClockKind::Cpu => read_line_on_cpu(
                    &mut self.lines,
                    process,
                    &mut nudge,
                    cpu_before,
                    started,
                    limit,
                    G::ACCEPT_UNTERMINATED,
                ),
            };
            let elapsed = started.elapsed();
            let cpu_after = if elapsed < crate::process::FULL_READ_AFTER {
                process.cpu_time_quick()
            } else {
                process.cpu_time()
            };
            self.last_cpu = cpu_after;
            let cpu = cpu_before
                .zip(cpu_after)
                .map(|(before, after)| after.saturating_sub(before));
            let (answer, raw_output) = match read {
                LineRead::Line(line) => {
                    let answer = match G::decode_output(obs, &line) {
                        Ok(action) => Answer::Action(action),
                        Err(why) => Answer::Fault(Fault::new(FaultKind::Unparsable, why)),
                    };
                    (answer, Some(line))
                }
                LineRead::Timeout => (
                    Answer::Fault(timeout_fault(self.spec.clock, limit, elapsed, cpu)),
                    None,
                ),
                LineRead::Closed if process.memory_exceeded() => {
                    (Answer::Fault(memory_fault()), None)
                }
                LineRead::Closed => (Answer::Fault(closed_fault(process)), None),
            };
            // After the clock: the bot's stderr of this answer as far as it is there now.
            let stderr = process.take_stderr();
            Reply {
                answer,
                input: Some(input),
                raw_output,
                elapsed,
                cpu,
                stderr,
                stderr_late,
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
            self.cpu_at_pause = self.last_cpu.take();
        }
    }

    fn kill(&mut self) -> BoxFuture<'_, ()> {
        self.stop("ended by arena after its fault");
        Box::pin(std::future::ready(()))
    }

    fn finish(&mut self) -> BoxFuture<'_, AgentLog> {
        // The game is over: each bot sees the end of its input (as on CodinGame) and may exit by
        // itself for a moment, so that its own exit is recorded, not arena's kill. The moment is
        // shared: the runner creates every seat's future before polling any, so all bots of a game
        // get it at once, and are then killed together.
        let deadline = Instant::now() + END_PATIENCE.mul_f64(self.spec.time_scale.max(0.0));
        if let Some(process) = self.process.as_mut() {
            process.close_stdin();
            process.resume();
        }
        Box::pin(async move {
            if let Some(process) = self.process.as_mut() {
                process.wait_exit(deadline.saturating_duration_since(Instant::now()));
            }
            self.stop("ended by arena at game end");
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
    fn a_late_newline_ends_the_line_taken_without_it() {
        let mut buffer = LineBuffer::default();
        buffer.push(b"0 1 2");
        assert_eq!(buffer.take_line(), None);
        assert_eq!(buffer.take_unterminated().as_deref(), Some("0 1 2"));
        // The newline of the answer already taken, then the next answer.
        buffer.push(b"\n");
        assert_eq!(buffer.take_line(), None);
        buffer.push(b"3 4\n");
        assert_eq!(buffer.take_line().as_deref(), Some("3 4"));
        // `\r\n` split in two, after an unterminated line.
        buffer.push(b"5");
        assert_eq!(buffer.take_unterminated().as_deref(), Some("5"));
        buffer.push(b"\r");
        buffer.push(b"\n6\n");
        assert_eq!(buffer.take_line().as_deref(), Some("6"));
        // Anything else after it is a line of its own, empty lines included.
        buffer.push(b"7");
        assert_eq!(buffer.take_unterminated().as_deref(), Some("7"));
        buffer.push(b"8\n\n");
        assert_eq!(buffer.take_line().as_deref(), Some("8"));
        assert_eq!(buffer.take_line().as_deref(), Some(""));
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

//! One interface for every kind of player: in-process bots, long-running stream processes and
//! (in the games that need them) one process per move.

use std::time::Duration;

use arena_game::game::{Answer, Bot, Game};
pub use arena_game::record::{AgentLog, Reply};
use arena_game::timing::ClockKind;
use futures::future::BoxFuture;

/// A player of game `G`, whatever runs it.
pub trait Agent<G: Game>: Send {
    /// Start-up and handshake. An error is a fault: the player is out from the start.
    fn start(&mut self) -> BoxFuture<'_, Result<(), arena_game::game::Fault>> {
        Box::pin(async { Ok(()) })
    }
    /// Answer one ask within `limit`. `first` is this player's first ask of the game.
    fn act<'a>(
        &'a mut self,
        obs: &'a G::Obs,
        first: bool,
        limit: Duration,
    ) -> BoxFuture<'a, Reply<G::Action>>;
    /// Let the agent use the CPU (it is about to be asked).
    fn resume(&mut self) {}
    /// Freeze the agent while others think.
    fn pause(&mut self) {}
    /// The player is out of the game (fault): stop its process now.
    fn kill(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    /// End of game: stop everything, whatever state it is in, and hand over the log.
    fn finish(&mut self) -> BoxFuture<'_, AgentLog> {
        Box::pin(async { AgentLog::default() })
    }
    /// Whether this agent is a process (the runner records texts and timing only for those).
    fn is_process(&self) -> bool {
        false
    }
}

/// An in-process bot behind the agent interface.
pub struct BuiltinAgent<G: Game> {
    bot: Box<dyn Bot<G>>,
    /// The clock a searching bot is judged on; `None` for an untimed rule bot.
    clock: Option<ClockKind>,
}

impl<G: Game> BuiltinAgent<G> {
    /// An untimed bot: its answers take no time on the game's clock (rule bots answer in
    /// microseconds, and timing them would only add noise to the journal).
    pub fn new(bot: Box<dyn Bot<G>>) -> Self {
        BuiltinAgent { bot, clock: None }
    }

    /// A bot that searches: each answer's wall and CPU time is measured and judged against the
    /// limit on `clock`, like a process's.
    pub fn timed(bot: Box<dyn Bot<G>>, clock: ClockKind) -> Self {
        BuiltinAgent {
            bot,
            clock: Some(clock),
        }
    }
}

/// Runs `think` with the calling thread at an ordinary priority. A tournament worker that times
/// process bots runs at a real-time priority; a built-in that searches must think as a process bot
/// does (nice 0, sharing the cores), not win every core from the others while it thinks.
fn as_ordinary_thread<T>(think: impl FnOnce() -> T) -> T {
    // SAFETY: sched_getscheduler/sched_getparam on the calling thread.
    let policy = unsafe { libc::sched_getscheduler(0) };
    let real_time = policy >= 0
        && matches!(
            policy & !libc::SCHED_RESET_ON_FORK,
            libc::SCHED_RR | libc::SCHED_FIFO
        );
    let mut priority = libc::sched_param { sched_priority: 0 };
    // SAFETY: as above; `priority` outlives the call.
    if !real_time || unsafe { libc::sched_getparam(0, &mut priority) } != 0 {
        return think();
    }
    let ordinary = libc::sched_param { sched_priority: 0 };
    // SAFETY: lowering the calling thread's own policy is always allowed.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &ordinary) };
    let result = think();
    // SAFETY: restoring what the thread had (arena could set it, so it can again).
    unsafe { libc::sched_setscheduler(0, policy, &priority) };
    result
}

/// CPU time of the calling thread (the in-process bot runs on it while it answers).
pub fn thread_cpu_time() -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
}

impl<G: Game> Agent<G> for BuiltinAgent<G> {
    fn act<'a>(
        &'a mut self,
        obs: &'a G::Obs,
        _first: bool,
        limit: Duration,
    ) -> BoxFuture<'a, Reply<G::Action>> {
        let (answer, elapsed, cpu) = match self.clock {
            None => (Answer::Action(self.bot.act(obs)), Duration::ZERO, None),
            Some(clock) => self.act_timed(obs, clock, limit),
        };
        Box::pin(async move {
            Reply {
                answer,
                input: None,
                raw_output: None,
                elapsed,
                cpu,
                stderr: None,
                stderr_late: None,
            }
        })
    }
}

impl<G: Game> BuiltinAgent<G> {
    /// One answer of a bot that searches, timed and judged on `clock`: (answer, wall, CPU).
    fn act_timed(
        &mut self,
        obs: &G::Obs,
        clock: ClockKind,
        limit: Duration,
    ) -> (Answer<G::Action>, Duration, Option<Duration>) {
        let cpu_before = thread_cpu_time();
        let started = std::time::Instant::now();
        let action = as_ordinary_thread(|| self.bot.act(obs));
        let elapsed = started.elapsed();
        let cpu = cpu_before
            .zip(thread_cpu_time())
            .map(|(a, b)| b.saturating_sub(a));
        // A process is stopped at its deadline; an in-process bot cannot be, so an answer that came
        // after it is refused as the process's would have been.
        let late = match (clock, cpu) {
            (ClockKind::Cpu, Some(cpu)) => cpu > limit || elapsed > ClockKind::wall_cap(limit),
            _ => elapsed > limit,
        };
        let answer = if late {
            Answer::Fault(arena_game::game::Fault::new(
                crate::FaultKind::Timeout,
                format!(
                    "no answer within the {} ms limit (the built-in answered after {:.1} ms wall, \
                     {:.1} ms CPU)",
                    limit.as_millis(),
                    elapsed.as_secs_f64() * 1000.0,
                    cpu.unwrap_or_default().as_secs_f64() * 1000.0
                ),
            ))
        } else {
            Answer::Action(action)
        };
        (answer, elapsed, cpu)
    }
}

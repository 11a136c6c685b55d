//! The match runner: drives one game between agents of any kind, owns the clocks, pauses idle process
//! bots, turns process failures into faults for the rules to judge, and records everything.

use std::time::Duration;

use futures::future::join_all;

use crate::agent::{Agent, AgentLog};
use crate::game::{Answer, Fault, Game};
use crate::record::{MatchRecord, PlayerRecord, RECORD_FORMAT, Step, StepFault};
use crate::timing::{Clock, ClockKind, TimePolicy, Verdict};

/// How a game is run.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Freeze process bots (SIGSTOP) while another bot thinks, as the 2014 contest servers did.
    pub pause_idle: bool,
    /// Multiplies every time limit (slow machines, debugging).
    pub time_scale: f64,
    /// Keep the game's per-frame state in the record.
    pub record_frames: bool,
    /// Pin this game's bot processes to one CPU, so that parallel games never make two thinking bots
    /// share a core (the scheduler otherwise does now and then, for milliseconds).
    pub cpu: Option<usize>,
    /// How answer times are judged; `None`: the game's default (`Game::default_time_policy`).
    pub time_policy: Option<TimePolicy>,
    /// A start-up probe: stop as soon as every process bot has answered once (or is out). The
    /// outcome is then that of an unfinished game and means nothing; the faults and logs do.
    pub probe: bool,
    /// The sandbox process bots start in; `None`: unconfined, with arena's privileges.
    pub sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
    /// The clock answers are judged on (wall by default; see [`ClockKind`]).
    pub clock: ClockKind,
}

/// How a run treats and judges its bots (kept in a tournament's plan, so its type is the formats';
/// its old path stays).
pub use arena_formats::plan::RunRules;

/// A run's time settings as a person writes them (the command line's `--time-scale`,
/// `--time-policy`, `--grace`, `--bank` and `--clock`; a contest file's keys), made into
/// [`RunRules`] by [`rules_from`]: every front end accepts and refuses the same values.
#[derive(Clone, Debug)]
pub struct TimeSettings<'a> {
    pub pause_idle: bool,
    /// A finite factor above 0 (see [`check_time_scale`]).
    pub time_scale: f64,
    /// `strict`, `strikes`, `grace` or `bank`; `None`: the game's default.
    pub time_policy: Option<&'a str>,
    pub grace_ms: Option<u64>,
    pub bank_ms: Option<u64>,
    /// `wall` or `cpu`; `None`: wall.
    pub clock: Option<&'a str>,
}

impl Default for TimeSettings<'_> {
    fn default() -> Self {
        TimeSettings {
            pause_idle: true,
            time_scale: 1.0,
            time_policy: None,
            grace_ms: None,
            bank_ms: None,
            clock: None,
        }
    }
}

/// A time scale must be finite and above 0: 0, NaN or infinity would make every limit 0 or endless.
pub fn check_time_scale(value: f64) -> Result<f64, String> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(format!(
            "the time scale must be a finite number above 0 (got {value})"
        ))
    }
}

/// The rules that `settings` name, each value checked (the one parser of the time settings).
pub fn rules_from(settings: &TimeSettings<'_>) -> Result<RunRules, String> {
    Ok(RunRules {
        pause_idle: settings.pause_idle,
        time_scale: check_time_scale(settings.time_scale)?,
        time_policy: settings
            .time_policy
            .map(|name| TimePolicy::from_name(name, settings.grace_ms, settings.bank_ms))
            .transpose()?,
        clock: settings
            .clock
            .map(ClockKind::from_name)
            .transpose()?
            .unwrap_or_default(),
    })
}

/// The one place [`MatchOptions`] are made: from a run's [`RunRules`], whatever plays its games
/// (`arena play`, a tournament and its rebuilt replays, a contest, the start-up probe). A trait
/// because `RunRules` is a type of the formats crate.
pub trait RulesOptions {
    /// One game's options under these rules: whether it keeps frames (a replay is wanted), the CPU
    /// its bots are pinned to, the sandbox its process bots start in.
    fn match_options(
        &self,
        record_frames: bool,
        cpu: Option<usize>,
        sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
    ) -> MatchOptions;

    /// The start-up probe's options (a bot's first answer before a run, see `arena-submit`):
    /// three times the time (cold caches: a JVM, first imports), no frames, stop once every process
    /// bot has answered.
    fn probe_options(
        &self,
        sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
    ) -> MatchOptions;
}

impl RulesOptions for RunRules {
    fn match_options(
        &self,
        record_frames: bool,
        cpu: Option<usize>,
        sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
    ) -> MatchOptions {
        MatchOptions {
            pause_idle: self.pause_idle,
            time_scale: self.time_scale,
            record_frames,
            cpu,
            time_policy: self.time_policy,
            probe: false,
            sandbox,
            clock: self.clock,
        }
    }

    fn probe_options(
        &self,
        sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
    ) -> MatchOptions {
        MatchOptions {
            time_scale: self.time_scale * 3.0,
            probe: true,
            ..self.match_options(false, None, sandbox)
        }
    }
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            pause_idle: true,
            time_scale: 1.0,
            record_frames: true,
            cpu: None,
            time_policy: None,
            probe: false,
            sandbox: None,
            clock: ClockKind::Wall,
        }
    }
}

/// One seat of a game: who plays and how.
pub struct Seat<G: Game> {
    pub name: String,
    pub spec: String,
    pub bot_seed: Option<u64>,
    pub agent: Box<dyn Agent<G>>,
}

/// Plays one game to the end and returns its record. Every process is ended before this returns.
pub async fn run_match<G: Game>(
    config: &G::Config,
    seed: u64,
    mut seats: Vec<Seat<G>>,
    options: &MatchOptions,
) -> MatchRecord<G> {
    let mut game = G::new(config, seed);
    if options.record_frames {
        game.record_frames();
    }
    let mut players: Vec<PlayerRecord> = seats
        .iter()
        .map(|seat| PlayerRecord {
            name: seat.name.clone(),
            spec: seat.spec.clone(),
            bot_seed: seat.bot_seed,
            ..PlayerRecord::default()
        })
        .collect();
    // `Some(fault)` once a player is out: it is never contacted again, the rules get the fault instead.
    let mut out: Vec<Option<Fault>> = vec![None; seats.len()];

    let started = join_all(seats.iter_mut().map(|seat| seat.agent.start())).await;
    for (player, result) in started.into_iter().enumerate() {
        if let Err(fault) = result {
            seats[player].agent.kill().await;
            players[player].faults.push(StepFault {
                step: None,
                fault: fault.clone(),
            });
            out[player] = Some(fault);
        }
    }
    // Pausing keeps idle bots off the CPU while another one thinks; with fewer than two processes there
    // is nobody to keep off, and the two signals per answer would be pure cost.
    let pausing = options.pause_idle && seats.iter().filter(|s| s.agent.is_process()).count() > 1;
    // Which seats run (are not paused). A seat is paused only when another one is about to be
    // asked, never right after its own answer: a stop and a continue microseconds apart can catch
    // a bot in the middle of a `fork`, and Linux then leaves the new child stopped for good (seen
    // on 6.18 with interpreters started through shell shims, which fork while they start: the bot
    // waited on its stopped child until its first answer timed out). This way a bot asked twice in
    // a row, or first, is not signalled at all, and a paused bot stays paused for at least another
    // bot's whole answer. The stream agent continues a bot again while it waits (see
    // `stream::Nudge`) in case a fork still straddles both signals.
    let mut running = vec![true; seats.len()];

    let time_policy = options
        .time_policy
        .unwrap_or_else(|| G::default_time_policy(config));
    let mut clocks = vec![Clock::new(time_policy, options.time_scale); seats.len()];
    let mut steps: Vec<Step<G::Action>> = Vec::new();
    let mut first = vec![true; seats.len()];
    // Each player's last step, for the stderr of its answer that arrives only by its next ask.
    let mut last_step: Vec<Option<usize>> = vec![None; seats.len()];
    let mut obs = G::Obs::default();
    let probed = |first: &[bool], out: &[Option<Fault>], seats: &[Seat<G>]| {
        options.probe
            && (0..seats.len())
                .all(|p| !seats[p].agent.is_process() || !first[p] || out[p].is_some())
    };
    while let Some(player) = game.to_act() {
        if probed(&first, &out, &seats) {
            break;
        }
        game.observe(player, &mut obs);
        if let Some(fault) = &out[player] {
            game.apply(player, Answer::Fault(fault.clone()));
            continue;
        }
        if pausing {
            for (other, seat) in seats.iter_mut().enumerate() {
                if other != player && std::mem::replace(&mut running[other], false) {
                    seat.agent.pause();
                }
            }
            if !std::mem::replace(&mut running[player], true) {
                seats[player].agent.resume();
            }
        }
        let agent = &mut seats[player].agent;
        let limit = scale(game.time_limit(player), options.time_scale);
        let clock = &mut clocks[player];
        let mut reply = agent.act(&obs, first[player], clock.deadline(limit)).await;
        first[player] = false;
        if let Some((late, step)) = reply.stderr_late.take().zip(last_step[player]) {
            steps[step]
                .stderr
                .get_or_insert_with(String::new)
                .push_str(&late);
        }
        let elapsed_us = reply.elapsed.as_micros() as u64;
        let cpu_us = reply.cpu.map(|cpu| cpu.as_micros() as u64);
        let record = &mut players[player];
        if matches!(reply.answer, Answer::Action(_)) {
            let bank_before = clock.bank_left();
            // On the CPU clock an answer is judged on its CPU time (its wall time when that could
            // not be measured).
            let measured = match (options.clock, reply.cpu) {
                (ClockKind::Cpu, Some(cpu)) => cpu,
                _ => reply.elapsed,
            };
            let deadline = clock.deadline(limit);
            let verdict = match reply.cpu {
                // On the CPU clock the agent checks the CPU time between slices of waiting; a bot
                // with several busy threads can pass the deadline within a slice and still answer.
                Some(cpu) if options.clock == ClockKind::Cpu && cpu > deadline => {
                    Verdict::Timeout(crate::game::Fault::new(
                        crate::FaultKind::Timeout,
                        format!(
                            "answered after {:.1} ms of CPU, more than the {} ms allowed (CPU clock)",
                            cpu.as_secs_f64() * 1000.0,
                            deadline.as_millis()
                        ),
                    ))
                }
                _ => clock.judge(limit, measured),
            };
            record.strikes = clock.strikes();
            record.bank_used_us += bank_before.saturating_sub(clock.bank_left()).as_micros() as u64;
            if let Verdict::Timeout(fault) = verdict {
                // The answer came within the real deadline but the policy does not accept it: it
                // stays in the record as output, and the player is out as if it had not answered.
                reply.answer = Answer::Fault(fault);
            }
        }
        record.answers += 1;
        record.total_answer_us += elapsed_us;
        record.max_answer_us = record.max_answer_us.max(elapsed_us);
        if let Some(cpu_us) = cpu_us {
            record.total_cpu_us = Some(record.total_cpu_us.unwrap_or(0) + cpu_us);
            record.max_cpu_us = Some(record.max_cpu_us.unwrap_or(0).max(cpu_us));
        }
        let timed_out =
            matches!(&reply.answer, Answer::Fault(f) if f.kind == crate::FaultKind::Timeout);
        // A timeout in which the bot got less than half of the wall time on a core: it was waiting
        // for the machine more than thinking.
        if timed_out && cpu_us.is_some_and(|cpu| cpu.saturating_mul(2) < elapsed_us) {
            record.starved_timeouts += 1;
        }
        let (action, fault) = match &reply.answer {
            Answer::Action(action) => (Some(action.clone()), None),
            Answer::Fault(fault) => {
                agent.kill().await;
                record.faults.push(StepFault {
                    step: Some(steps.len()),
                    fault: fault.clone(),
                });
                out[player] = Some(fault.clone());
                (None, Some(fault.clone()))
            }
        };
        steps.push(Step {
            player,
            input: reply.input,
            output: reply.raw_output,
            action,
            fault,
            elapsed_us,
            cpu_us,
            stderr: reply.stderr,
        });
        last_step[player] = Some(steps.len() - 1);
        game.apply(player, reply.answer);
    }

    let logs: Vec<AgentLog> = join_all(seats.iter_mut().map(|seat| seat.agent.finish())).await;
    for (record, log) in players.iter_mut().zip(logs) {
        record.log = log;
    }
    for (player, fault) in game.rule_faults() {
        if let Some(record) = players.get_mut(player) {
            record.faults.push(StepFault { step: None, fault });
        }
    }
    for (player, warning) in game.rule_warnings() {
        if let Some(record) = players.get_mut(player) {
            record.warnings.push(warning);
        }
    }
    MatchRecord {
        format: RECORD_FORMAT,
        game: G::game_id(config).to_string(),
        config: config.clone(),
        seed,
        time_policy,
        clock: options.clock,
        players,
        steps,
        frames: game.take_frames(),
        outcome: game.outcome(),
    }
}

fn scale(limit: Duration, factor: f64) -> Duration {
    if factor == 1.0 {
        limit
    } else {
        limit.mul_f64(factor.max(0.0))
    }
}

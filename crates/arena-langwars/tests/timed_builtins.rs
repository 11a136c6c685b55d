//! A built-in that searches is held to the time limits as a process is: its answers are timed
//! (wall and CPU) and one that takes longer than the limit is a timeout. Rule bots stay untimed.

use std::time::{Duration, Instant};

use arena_core::game::Bot;
use arena_core::runner::{MatchOptions, Seat, run_match};
use arena_core::{BuiltinAgent, ClockKind, FaultKind};
use arena_langwars::{Edition, LangWars, Move, Observation};

/// Spins on the CPU for `think` per answer, then targets 0.
struct Spinner {
    think: Duration,
}

impl Bot<LangWars> for Spinner {
    fn act(&mut self, obs: &Observation) -> Move {
        let started = Instant::now();
        while started.elapsed() < self.think {
            std::hint::spin_loop();
        }
        Move::new(&vec![0u8; obs.slots()])
    }
}

/// Seat 0 is the spinner (timed or not) against three `greedy`; returns seat 0's record.
fn play(think: Duration, timed: bool) -> arena_core::record::PlayerRecord {
    let bots = arena_langwars::catalog::catalog();
    let spinner = Box::new(Spinner { think });
    let mut seats: Vec<Seat<LangWars>> = vec![Seat {
        name: "spinner".into(),
        spec: "builtin:spinner".into(),
        bot_seed: Some(0),
        agent: Box::new(if timed {
            BuiltinAgent::timed(spinner, ClockKind::Wall)
        } else {
            BuiltinAgent::new(spinner)
        }),
    }];
    for seat in 1..4u64 {
        let greedy = arena_core::registry::make_bot(&bots, "greedy", seat).expect("greedy");
        seats.push(Seat {
            name: format!("greedy{seat}"),
            spec: "builtin:greedy".into(),
            bot_seed: Some(seat),
            agent: Box::new(BuiltinAgent::new(greedy)),
        });
    }
    // The 1 s limit scaled to 400 ms: a 4 ms answer is in time even when a loaded machine (a load
    // of 20 on 2 cores) takes the spinning thread off its core for a while.
    let options = MatchOptions {
        time_scale: 0.4,
        ..MatchOptions::default()
    };
    let record =
        futures::executor::block_on(run_match::<LangWars>(&Edition::Lw2, 4, seats, &options));
    record.players[0].clone()
}

#[test]
fn a_timed_builtin_inside_the_limit_plays_and_its_times_are_recorded() {
    let record = play(Duration::from_millis(4), true);
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    let timing = record.timing().expect("a timed built-in has answer times");
    assert!(timing.answers > 0);
    assert!(timing.max_wall_us >= 4_000, "{timing:?}");
    assert!(timing.cpu_us.is_some_and(|cpu| cpu >= 2_000), "{timing:?}");
}

#[test]
fn a_timed_builtin_beyond_the_limit_times_out() {
    let record = play(Duration::from_millis(1200), true);
    let kinds: Vec<FaultKind> = record.faults.iter().map(|f| f.fault.kind).collect();
    assert_eq!(kinds, vec![FaultKind::Timeout]);
}

#[test]
fn an_untimed_builtin_is_never_judged() {
    let record = play(Duration::from_millis(500), false);
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    assert!(record.timing().is_none());
}

/// Records the scheduling policy it thinks under.
struct PolicyProbe {
    seen: std::sync::Arc<std::sync::atomic::AtomicI32>,
}

impl Bot<LangWars> for PolicyProbe {
    fn act(&mut self, obs: &Observation) -> Move {
        // SAFETY: sched_getscheduler on the calling thread.
        let policy = unsafe { libc::sched_getscheduler(0) };
        self.seen.store(policy, std::sync::atomic::Ordering::SeqCst);
        Move::new(&vec![0u8; obs.slots()])
    }
}

/// A worker that times process bots runs at a real-time priority; a built-in that searches thinks
/// at an ordinary one (as a process bot would), and the worker gets its priority back after.
#[test]
fn a_timed_builtin_thinks_at_an_ordinary_priority() {
    std::thread::spawn(|| {
        if !arena_core::process::favour_this_thread_realtime() {
            return;
        }
        // SAFETY: sched_getscheduler on the calling thread.
        let before = unsafe { libc::sched_getscheduler(0) };
        if before & !libc::SCHED_RESET_ON_FORK != libc::SCHED_RR {
            eprintln!("skipped: no real-time priority here");
            return;
        }
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(-1));
        let mut agent = BuiltinAgent::timed(
            Box::new(PolicyProbe { seen: seen.clone() }),
            ClockKind::Wall,
        );
        let mut game = LangWars::with_edition(Edition::Lw2, 4);
        let mut obs = Observation::default();
        arena_core::Game::observe(&mut game, 0, &mut obs);
        let reply = futures::executor::block_on(arena_core::Agent::act(
            &mut agent,
            &obs,
            true,
            Duration::from_secs(1),
        ));
        assert!(matches!(reply.answer, arena_core::Answer::Action(_)));
        assert_eq!(
            seen.load(std::sync::atomic::Ordering::SeqCst),
            libc::SCHED_OTHER
        );
        // SAFETY: as above.
        assert_eq!(unsafe { libc::sched_getscheduler(0) }, before);
    })
    .join()
    .expect("the test thread");
}

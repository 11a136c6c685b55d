//! The runner judges answers on CPU time with `ClockKind::Cpu`: an answer that comes back in time
//! by the wall clock but used more CPU than the limit (several busy threads) is a timeout; on the
//! wall clock the same answer is in time. Agents here report set times: nothing is measured.

use std::time::Duration;

use arena_core::agent::{Agent, Reply};
use arena_core::game::Answer;
use arena_core::runner::{MatchOptions, Seat, run_match};
use arena_core::{BuiltinAgent, ClockKind, FaultKind, Game};
use arena_langwars::{Edition, LangWars, Move, Observation};
use futures::future::BoxFuture;

/// Answers target 0 at once, reporting `cpu` of CPU time for it.
struct Reported {
    cpu: Duration,
}

impl Agent<LangWars> for Reported {
    fn act<'a>(
        &'a mut self,
        obs: &'a Observation,
        _first: bool,
        _limit: Duration,
    ) -> BoxFuture<'a, Reply<Move>> {
        let targets = vec![0u8; obs.slots()];
        let cpu = self.cpu;
        Box::pin(async move {
            Reply {
                answer: Answer::Action(Move::new(&targets)),
                input: None,
                raw_output: None,
                elapsed: Duration::from_millis(10),
                cpu: Some(cpu),
                stderr: None,
                stderr_late: None,
            }
        })
    }

    fn is_process(&self) -> bool {
        true
    }
}

fn play(cpu: Duration, clock: ClockKind) -> Vec<FaultKind> {
    let bots = arena_langwars::catalog::catalog();
    let mut seats: Vec<Seat<LangWars>> = vec![Seat {
        name: "reported".into(),
        spec: "reported".into(),
        bot_seed: None,
        agent: Box::new(Reported { cpu }),
    }];
    for (index, name) in ["greedy", "random", "focus"].iter().enumerate() {
        let entry = bots.iter().find(|b| b.name == *name).expect("bot");
        seats.push(Seat {
            name: name.to_string(),
            spec: format!("builtin:{name}"),
            bot_seed: Some(index as u64),
            agent: Box::new(BuiltinAgent::new((entry.make)(index as u64))),
        });
    }
    let options = MatchOptions {
        clock,
        ..MatchOptions::default()
    };
    let record =
        futures::executor::block_on(run_match::<LangWars>(&Edition::Lw2, 4, seats, &options));
    assert_eq!(record.clock, clock);
    record.players[0]
        .faults
        .iter()
        .map(|f| f.fault.kind)
        .collect()
}

#[test]
fn cpu_beyond_the_limit_is_a_timeout_on_the_cpu_clock_only() {
    let limit = LangWars::with_edition(Edition::Lw2, 4).time_limit(0);
    let over = limit * 3;
    assert_eq!(play(over, ClockKind::Cpu), vec![FaultKind::Timeout]);
    assert!(
        play(over, ClockKind::Wall).is_empty(),
        "10 ms wall is in time"
    );
    assert!(play(limit / 5, ClockKind::Cpu).is_empty());
}

//! The sandbox around a bot process, checked from the outside: the CPU pin cannot be undone, the
//! memory limit kills with its own verdict, pausing stops everything the bot started, killing ends
//! everything, and a missing piece is named at start-up. Needs root, bubblewrap and cgroups (as CI
//! has); set `ARENA_SKIP_SANDBOX_TESTS` to skip on a machine without them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arena_core::process::{BotProcess, Chunk};
use arena_core::sandbox::{Limits, Sandbox, SandboxPolicy};

fn sandbox(limits: Limits) -> Option<Arc<Sandbox>> {
    match Sandbox::new(SandboxPolicy {
        limits,
        ..SandboxPolicy::default()
    }) {
        Ok(sandbox) => Some(Arc::new(sandbox)),
        Err(e) if std::env::var_os("ARENA_SKIP_SANDBOX_TESTS").is_some() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn argv(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

/// Everything the bot printed until it closed its output or `patience` ran out.
fn output(bot: &mut BotProcess, patience: Duration) -> String {
    let deadline = Instant::now() + patience;
    let mut text = Vec::new();
    while let Chunk::Data(bytes) = bot.next_chunk(deadline) {
        text.extend_from_slice(bytes);
    }
    String::from_utf8_lossy(&text).into_owned()
}

#[test]
fn a_pinned_bot_cannot_undo_its_pin() {
    let Some(sandbox) = sandbox(Limits::default()) else {
        return;
    };
    let script = "taskset -p -c 0-63 $$ >/dev/null 2>&1; \
                  python3 -c 'import os; os.sched_setaffinity(0, range(64))' 2>/dev/null; \
                  grep Cpus_allowed_list /proc/self/status";
    let mut bot =
        BotProcess::spawn_in(&argv(script), None, 4096, Some(0), Some(&sandbox)).expect("starts");
    let text = output(&mut bot, Duration::from_secs(10));
    bot.end();
    assert_eq!(text.trim(), "Cpus_allowed_list:\t0");
}

#[test]
fn going_over_the_memory_limit_is_its_own_verdict() {
    let Some(sandbox) = sandbox(Limits {
        memory: Some(64 << 20),
        ..Limits::default()
    }) else {
        return;
    };
    let script = "exec python3 -c 'x = bytearray(200 << 20); x[::4096] = b\"y\" * len(x[::4096]); print(\"survived\")'";
    let mut bot =
        BotProcess::spawn_in(&argv(script), None, 4096, None, Some(&sandbox)).expect("starts");
    let text = output(&mut bot, Duration::from_secs(20));
    assert!(!text.contains("survived"));
    assert!(bot.memory_exceeded(), "the out-of-memory kill is seen");
    bot.end();
    // A bot within its limit is not blamed.
    let mut fine =
        BotProcess::spawn_in(&argv("echo ok"), None, 4096, None, Some(&sandbox)).expect("starts");
    assert_eq!(output(&mut fine, Duration::from_secs(10)).trim(), "ok");
    assert!(!fine.memory_exceeded());
    fine.end();
}

fn states_of_group(pgid: i32) -> Vec<char> {
    arena_core::testing::group_members(pgid)
        .into_iter()
        .map(|(state, _)| state)
        .collect()
}

#[test]
fn pausing_stops_everything_the_bot_started_and_killing_ends_it() {
    let Some(sandbox) = sandbox(Limits::default()) else {
        return;
    };
    let script = "for i in 1 2 3; do (while :; do :; done) & done; \
                  setsid sh -c 'while :; do :; done' 2>/dev/null & echo started; wait";
    let mut bot =
        BotProcess::spawn_in(&argv(script), None, 4096, None, Some(&sandbox)).expect("starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
    std::thread::sleep(Duration::from_millis(100));
    let tasks = bot.sandbox_tasks().expect("counted");
    let group = bot.pgid();
    bot.pause();
    std::thread::sleep(Duration::from_millis(100));
    let states = states_of_group(group);
    // bwrap, its init, the shell and its three busy children: all in the group, all stopped.
    assert!(states.len() >= 5, "{states:?}");
    assert!(states.iter().all(|&s| s == 'T'), "{states:?}");
    assert!(
        tasks <= states.len(),
        "nothing in the sandbox is outside the group"
    );
    bot.resume();
    bot.end();
    assert!(!arena_core::process::group_alive(group));
    assert!(states_of_group(group).is_empty());
}

#[test]
fn a_missing_piece_is_named_at_start_up() {
    let error = Sandbox::new(SandboxPolicy {
        bwrap: Some("/nonexistent/bwrap".into()),
        ..SandboxPolicy::default()
    })
    .expect_err("no bwrap there");
    let text = error.to_string();
    assert!(text.contains("bubblewrap: /nonexistent/bwrap"), "{text}");
    assert!(text.contains("--sandbox none"), "{text}");
}

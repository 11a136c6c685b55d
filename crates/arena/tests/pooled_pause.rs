//! Pausing a bot in a pooled sandbox (a tournament's default) stops the bot's own process group,
//! everything it started included, and nothing of the sandbox's machinery (bwrap, its init, the
//! helper): a paused bot uses no CPU, and each game's bot gets its own group.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arena_core::process::{BotProcess, Chunk};
use arena_core::sandbox::{Sandbox, SandboxPolicy, SandboxPool};
use arena_core::testing::group_members;

fn pool() -> Option<Arc<SandboxPool>> {
    let policy = SandboxPolicy {
        helper: Some(PathBuf::from(env!("CARGO_BIN_EXE_arena"))),
        ..SandboxPolicy::default()
    };
    match Sandbox::new(policy) {
        Ok(sandbox) => SandboxPool::new(Arc::new(sandbox), 4),
        Err(e) if std::env::var_os("ARENA_SKIP_SANDBOX_TESTS").is_some() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// One game: the bot starts three busy children, is paused, checked, resumed and ended. Returns
/// the group pausing stopped.
fn one_game(pool: &Arc<SandboxPool>) -> i32 {
    let argv: Vec<String> = vec![
        "sh".into(),
        "-c".into(),
        // The last two children try to leave the group (refused by the bot's seccomp filter; the
        // helper's own filter lets setpgid through).
        "for i in 1 2 3; do (while :; do :; done) & done; \
         setsid sh -c 'while :; do :; done' 2>/dev/null & \
         perl -e 'setpgrp(0, 0); 1 while 1' 2>/dev/null & echo started; wait"
            .into(),
    ];
    let lease = pool.lease(&argv, None, None).expect("a sandbox");
    let mut bot = BotProcess::spawn_leased(lease, &argv, 4096).expect("starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    assert!(matches!(bot.next_chunk(deadline), Chunk::Data(_)));
    std::thread::sleep(Duration::from_millis(50));
    bot.pause();
    let group = bot.pause_group().as_raw();
    assert_ne!(group, bot.pgid(), "the bot's own group, not the sandbox's");
    // The shell and its four busy children, all stopped. A child still in uninterruptible sleep
    // (`D`, e.g. perl's binary being paged in on a loaded machine) stops when it leaves it, so
    // the states are polled rather than read once.
    let stopped_by = Instant::now() + Duration::from_secs(5);
    let members = loop {
        std::thread::sleep(Duration::from_millis(50));
        let members = group_members(group);
        let all_stopped = members.iter().all(|&(state, _)| state == 'T');
        if (members.len() >= 5 && all_stopped) || Instant::now() > stopped_by {
            break members;
        }
    };
    assert!(members.len() >= 5, "{members:?}");
    assert!(
        members.iter().all(|&(state, _)| state == 'T'),
        "{members:?}"
    );
    // Nothing in the sandbox is outside the group but its init (the helper is not counted).
    let tasks = bot.sandbox_tasks().expect("counted");
    assert!(tasks <= members.len() + 1, "{tasks} tasks, {members:?}");
    // bwrap, the sandbox's init and the helper are not stopped.
    let machinery = group_members(bot.pgid());
    assert!(!machinery.is_empty());
    assert!(
        machinery.iter().all(|&(state, _)| state != 'T'),
        "{machinery:?}"
    );
    // A paused bot uses no CPU.
    let before = bot.cpu_time().expect("the cgroup's CPU time");
    std::thread::sleep(Duration::from_millis(200));
    let after = bot.cpu_time().expect("the cgroup's CPU time");
    assert!(
        after - before < Duration::from_millis(20),
        "{:?} of CPU while paused",
        after - before
    );
    bot.resume();
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        group_members(group).iter().all(|&(state, _)| state != 'T'),
        "resumed"
    );
    bot.end();
    group
}

#[test]
fn pausing_a_pooled_bot_stops_its_group_alone_in_every_game() {
    let Some(pool) = pool() else {
        return;
    };
    let first = one_game(&pool);
    // The same sandbox serves the next game: a new bot, a new group.
    let second = one_game(&pool);
    assert_ne!(first, second);
    let deadline = Instant::now() + Duration::from_secs(2);
    while !(group_members(first).is_empty() && group_members(second).is_empty()) {
        assert!(Instant::now() < deadline, "the games' processes are gone");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Regression: a game's first pause can come before the helper's child has made its group. A stop
/// sent to the sandbox's whole group then would reach the child just before it leaves the group
/// and hold it there, and the bot would time out on its first answer (6 games in 40 did). Two
/// move-playing bots without a handshake, 60 games in kept sandboxes: no fault at all.
#[test]
fn a_bot_is_never_left_stopped_by_a_pause_at_its_start() {
    if pool().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let bot = dir.path().join("spring_bot");
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/c/spring_bot.c");
    let compiled = std::process::Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bot)
        .arg(source)
        .status()
        .expect("cc runs");
    assert!(compiled.success());
    let out = dir.path().join("run");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["tournament", "spring2021", "--jobs", "1", "--games", "60"])
        .arg("--bot")
        .arg(format!("a={}", bot.display()))
        .arg("--bot")
        .arg(format!("b={}", bot.display()))
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("arena runs");
    assert!(status.success());
    let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
    assert_eq!(journal.lines().count(), 60);
    for line in journal.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(entry["faults"], serde_json::json!([[], []]), "{line}");
    }
}

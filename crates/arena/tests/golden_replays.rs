//! Every built-in game's replay, for a fixed set of seeds and bots, is byte for byte what it was
//! when this file was last updated: moving code (the v0.3 restructuring) must not change a single
//! byte a referee writes. The replays' SHA-256 are kept in `golden_replays.txt`; after a change
//! that is *meant* to alter replays, rewrite it with `ARENA_GOLDEN=update cargo test -p arena --test
//! golden_replays` and say why in the commit.
//!
//! Only untimed built-in bots play here: their replays hold no measured times, so the bytes do not
//! depend on the machine or its load.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// One line of cases: a game, its league, the bots by seat, the seeds.
type Case = (
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
    &'static [&'static str],
);

const CASES: &[Case] = &[
    (
        "langwars",
        None,
        &["random", "spread", "focus", "greedy"],
        &["1", "2", "3", "20141025"],
    ),
    (
        "langwars2",
        None,
        &["greedy", "focus", "random", "spread"],
        &["1", "2", "3", "987654321"],
    ),
    (
        "negotiate",
        None,
        &["spread", "greedy", "focus", "random"],
        &["1", "2", "3", "42"],
    ),
    (
        "spring2021",
        Some("wood2"),
        &["wood2", "random"],
        &["1", "2", "-3"],
    ),
    (
        "spring2021",
        Some("wood1"),
        &["wood1", "planner"],
        &["1", "2", "-3"],
    ),
    (
        "spring2021",
        Some("bronze"),
        &["planner", "random"],
        &["1", "2", "-4623451235346131999"],
    ),
    (
        "spring2021",
        Some("legend"),
        &["planner", "wood1"],
        &["5", "6"],
    ),
    ("coup", None, &["calculator", "lawyer"], &["1", "2", "3"]),
    ("coup", None, &["challenger", "random"], &["4", "5", "6"]),
    ("coup", None, &["taxman", "bandit"], &["7", "8"]),
    ("coup", None, &["assassin", "income"], &["9", "10"]),
];

fn replay_digest(
    dir: &Path,
    game: &str,
    league: Option<&str>,
    bots: &[&str],
    seed: &str,
) -> String {
    let replay = dir.join(format!("{game}-{}-{seed}.json", league.unwrap_or("-")));
    let mut command = Command::new(ARENA);
    command
        .args(["play", game, "--seed", seed, "--replay"])
        .arg(&replay);
    for bot in bots {
        command.args(["--bot", bot]);
    }
    if let Some(league) = league {
        command.args(["--league", league]);
    }
    let output = command.output().expect("arena runs");
    assert!(
        output.status.success(),
        "{game} {league:?} {bots:?} seed {seed}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&replay).expect("the replay was written");
    Sha256::digest(&bytes)
        .iter()
        .fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[test]
fn built_in_replays_are_byte_for_byte_unchanged() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut lines = String::new();
    for (game, league, bots, seeds) in CASES {
        for seed in *seeds {
            let digest = replay_digest(dir.path(), game, *league, bots, seed);
            let _ = writeln!(
                lines,
                "{game} {} {} {seed} {digest}",
                league.unwrap_or("-"),
                bots.join(",")
            );
        }
    }
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden_replays.txt");
    if std::env::var("ARENA_GOLDEN").as_deref() == Ok("update") {
        std::fs::write(&golden, &lines).expect("golden file written");
        return;
    }
    let expected = std::fs::read_to_string(&golden).expect("tests/golden_replays.txt");
    let changed: Vec<String> = expected
        .lines()
        .zip(lines.lines())
        .filter(|(old, new)| old != new)
        .map(|(old, new)| format!("  was {old}\n  now {new}"))
        .collect();
    assert!(
        changed.is_empty() && expected.lines().count() == lines.lines().count(),
        "replays changed (a referee or a built-in bot writes other bytes than before):\n{}",
        changed.join("\n")
    );
}

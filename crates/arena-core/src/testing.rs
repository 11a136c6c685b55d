//! Support for the process tests of game crates: bots record their pids as `PID.pid` files in a
//! directory, and the test checks that none of them is still running after the game.

use std::path::Path;
use std::time::{Duration, Instant};

/// True while `pid` is a live process; a zombie (exited, waiting to be reaped by its parent or init)
/// counts as gone.
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// The pids recorded as `PID.pid` files in `dir`.
pub fn recorded_pids(dir: &Path) -> Vec<u32> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| {
                    let name = entry.ok()?.file_name().to_string_lossy().into_owned();
                    name.strip_suffix(".pid")?.parse().ok()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Panics unless some pids were recorded in `dir` and all of them are gone within two seconds
/// (killing is immediate; reaping by init may take a moment).
pub fn assert_no_process_left(dir: &Path) {
    let pids = recorded_pids(dir);
    assert!(
        !pids.is_empty(),
        "the bots recorded no pid in {}",
        dir.display()
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|&pid| pid_alive(pid)).collect();
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "processes left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// (state letter, pid) of every process in process group `pgid`, from `/proc` (`T`: stopped).
pub fn group_members(pgid: i32) -> Vec<(char, i32)> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The fields after the command, which may hold spaces and parentheses: state, ppid, pgrp.
        let Some(after) = stat.rfind(')').and_then(|at| stat.get(at + 2..)) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid) {
            let state = fields.first().and_then(|s| s.chars().next()).unwrap_or('?');
            members.push((state, pid));
        }
    }
    members
}

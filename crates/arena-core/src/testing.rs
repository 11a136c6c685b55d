//! Support for the process tests of game crates: bots record their pids as `PID.pid` files in a
//! directory, and the test checks that none of them is still running after the game. And for the
//! decision-time measurements of built-in bots (benches and examples): a game played with one
//! seat's decisions timed, and the figures they print.

use std::path::Path;
use std::time::{Duration, Instant};

use arena_game::game::{Answer, Bot, Game, Outcome};

use crate::agent::thread_cpu_time;

/// CPU time of the calling thread in ms: what a built-in bot used while it answered, whatever the
/// machine's load.
pub fn thread_cpu_ms() -> f64 {
    thread_cpu_time().map_or(0.0, |cpu| cpu.as_secs_f64() * 1e3)
}

/// Median, p99 and max of `times` (sorted here); `None` when there are none.
pub fn spread(times: &mut [f64]) -> Option<(f64, f64, f64)> {
    times.sort_by(f64::total_cmp);
    let last = *times.last()?;
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    Some((at(0.5), at(0.99), last))
}

/// Plays `game` to its end with `players`, timing every decision of `seat`'s player: its wall and
/// thread-CPU milliseconds are pushed to `wall` and `cpu`.
pub fn play_timed<G: Game>(
    game: &mut G,
    players: &mut [Box<dyn Bot<G>>],
    obs: &mut G::Obs,
    seat: usize,
    wall: &mut Vec<f64>,
    cpu: &mut Vec<f64>,
) -> Outcome {
    while let Some(player) = game.to_act() {
        game.observe(player, obs);
        let (start, cpu_start) = (Instant::now(), thread_cpu_ms());
        let action = players[player].act(obs);
        if player == seat {
            wall.push(start.elapsed().as_secs_f64() * 1e3);
            cpu.push(thread_cpu_ms() - cpu_start);
        }
        game.apply(player, Answer::Action(action));
    }
    game.outcome()
}

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

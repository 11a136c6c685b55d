//! arena against a bare C referee (issue 13), each figure from interleaved runs of both sides:
//! - `langwars2`: four trivial C bots (`c/lw2_bot.c`); the bare referee (`c/referee.c`) spawns them,
//!   waits for READY and replays the same 36 asks per game with the same SIGSTOP/SIGCONT pausing;
//!   arena runs `arena tournament langwars2 --jobs 1` with default options (replays, pinning, pausing).
//!   Both are timed as whole commands, start to exit: wall time and the CPU time of the whole
//!   process tree (the bots included). Bar: arena ≥ 0.8× the bare referee on both.
//! - `startup`: start-to-READY of a 4-bot Lang Wars 2 game and the bots' end (spawn, READY, freeze,
//!   kill, reap), arena's stream agents against the bare referee on games of no asks, unpinned (as
//!   with `--jobs 1`) and pinned to one CPU (as each worker with `--jobs` 2 or more; the bare
//!   referee then starts its bots on that CPU too). Bar: ≤ 1.3×.
//! - `spring2021`: the same with two move-playing C bots (`c/spring_bot.c`), no handshake.
//! - `coup`: a KotH (`arena tournament coup --schedule koth`, default options) of the tiny C bot of
//!   arena-coup's call bench, per call, against a bare spawn-and-wait of that bot with the same
//!   arguments. Bar: ≤ 1.1×.
//! - `replays`: `arena tournament spring2021 --games 2000` of the built-in bots with default options
//!   (their replays are rebuilt on demand) and with `--replays all` (every replay stored) against the
//!   same with `--replays none`, whole runs (statistics included). Bar: default ≤ 1.5×.
//!
//! The recorded asks the bare referee replays are taken from the replays of a short arena run of the
//! same bots. Both sides run one game at a time. Each round runs the bare side then arena; the figures
//! are medians over rounds. Time limits are wall-clock: run on an otherwise idle machine.
//!
//! Run: `cargo bench -p arena --bench versus_c [-- startup|langwars2|spring2021|coup|replays]`.
//! Environment: `VERSUS_C_ROUNDS` (default 5), `VERSUS_C_GAMES` (games per round; default 400 for
//! Lang Wars 2, 200 for Spring 2021 and Coup).

mod common;

use common::cpu_group::CpuGroup;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn main() {
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |name: &str| wanted.is_empty() || wanted.iter().any(|w| w == name);
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let rounds = env_number("VERSUS_C_ROUNDS", 5);
    println!("load before: {}", load());
    let referee = compile(dir, "c/referee.c", "referee");
    if run("startup") {
        let bot = compile(dir, "c/lw2_bot.c", "lw2_bot");
        startup(dir, &bot, &referee, rounds, None);
        startup(dir, &bot, &referee, rounds, Some(0));
    }
    if run("langwars2") {
        let bot = compile(dir, "c/lw2_bot.c", "lw2_bot");
        stream_game(dir, "langwars2", 4, true, &bot, &referee, rounds, 400);
    }
    if run("spring2021") {
        let bot = compile(dir, "c/spring_bot.c", "spring_bot");
        stream_game(dir, "spring2021", 2, false, &bot, &referee, rounds, 200);
    }
    if run("coup") {
        let bot = compile(dir, "../../arena-coup/benches/tinybot.c", "tinybot");
        coup(dir, &bot, rounds);
    }
    if run("replays") {
        replays(dir, rounds);
    }
    println!("load after: {}", load());
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn compile(dir: &Path, source: &str, name: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join(source);
    let binary = dir.join(name);
    let status = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
        .expect("a C compiler (cc)");
    assert!(status.success(), "cc failed on {}", source.display());
    binary
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// An `arena tournament` run: (games played, seconds of the play phase as arena reports them, wall
/// seconds of the whole command).
/// Runs `arena tournament ARGS` to its end: games played, the seconds of its play phase (as it
/// prints them), and the whole command's wall and CPU seconds (its whole process tree).
fn tournament(dir: &Path, name: &str, args: &[String]) -> (u64, f64, f64, f64) {
    let out = dir.join(name);
    let group = CpuGroup::new(name);
    let mut command = Command::new(ARENA);
    command
        .arg("tournament")
        .args(args)
        .args(["--format", "csv", "--out"])
        .arg(&out)
        .stdout(Stdio::null());
    group.enter(&mut command);
    let started = Instant::now();
    let output = command.output().expect("arena runs");
    let wall = started.elapsed().as_secs_f64();
    let cpu = group.seconds();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "arena failed: {stderr}");
    // "D of T games done (P played now in S s: R games/s)"
    let (played, seconds) = stderr
        .lines()
        .find_map(|line| {
            let rest = line.split(" (").nth(1)?;
            let mut words = rest.split_whitespace();
            let played = words.next()?.parse().ok()?;
            let seconds = words.nth(3)?.parse().ok()?;
            Some((played, seconds))
        })
        .unwrap_or_else(|| panic!("no rate in: {stderr}"));
    (played, seconds, wall, cpu)
}

/// Every replay of a tournament directory, parsed.
fn replays_of(dir: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("replays"))
        .expect("replays")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(path).expect("replay"))
                .read_to_string(&mut text)
                .expect("gzip");
            serde_json::from_str(&text).expect("json")
        })
        .collect()
}

/// The bare referee's script: the asks of the recorded games.
fn write_script(path: &Path, players: usize, games: &[serde_json::Value]) {
    let mut script = format!("{} {players}\n", games.len()).into_bytes();
    for game in games {
        let steps = game["steps"].as_array().expect("steps");
        script.extend(format!("{}\n", steps.len()).bytes());
        for step in steps {
            let input = step["input"].as_str().expect("input");
            let player = step["player"].as_u64().expect("player");
            script.extend(format!("{player} {}\n", input.len()).bytes());
            script.extend(input.bytes());
        }
    }
    std::fs::write(path, script).expect("script");
}

fn bots(bot: &Path, players: usize) -> Vec<String> {
    (0..players)
        .flat_map(|_| ["--bot".to_string(), bot.display().to_string()])
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn stream_game(
    dir: &Path,
    game: &str,
    players: usize,
    ready: bool,
    bot: &Path,
    referee: &Path,
    rounds: usize,
    default_games: usize,
) {
    let games = env_number("VERSUS_C_GAMES", default_games);
    let mut args: Vec<String> = vec![game.into(), "--jobs".into(), "1".into()];
    args.extend(bots(bot, players));
    let mut record = args.clone();
    record.extend(["--games".into(), "40".into(), "--seed".into(), "1".into()]);
    tournament(dir, &format!("{game}-record"), &record);
    let recorded = replays_of(&dir.join(format!("{game}-record")));
    let asks: usize = recorded
        .iter()
        .map(|g| g["steps"].as_array().map_or(0, Vec::len))
        .sum();
    let script = dir.join(format!("{game}.script"));
    write_script(&script, players, &recorded);
    println!(
        "{game}: {players} C bots, {games} games per round, {rounds} rounds; bare referee replays {} recorded games ({:.1} asks per game)",
        recorded.len(),
        asks as f64 / recorded.len() as f64
    );
    // Both sides are timed as whole commands, from start to exit: wall time, and the CPU time of
    // the whole process tree (the bots, sandboxed or not, included). arena's play phase alone (the
    // rate it prints) is shown beside, for reference only.
    let (mut wall_ratios, mut cpu_ratios, mut bare_cpu, mut arena_cpu, mut play_rates) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let group = CpuGroup::new(&format!("bare-{game}-{round}"));
        let mut command = Command::new(referee);
        command
            .arg(&script)
            .arg(games.to_string())
            .arg(if ready { "1" } else { "0" })
            .arg(bot);
        group.enter(&mut command);
        let started = Instant::now();
        let output = command.output().expect("referee runs");
        let bare_wall = started.elapsed().as_secs_f64();
        let bare_cpu_game = group.seconds() / games as f64;
        assert!(output.status.success(), "{output:?}");
        let mut run = args.clone();
        run.extend([
            "--games".into(),
            games.to_string(),
            "--seed".into(),
            (100 + round).to_string(),
        ]);
        let (played, play_seconds, wall, cpu) = tournament(dir, &format!("{game}-{round}"), &run);
        let arena_cpu_game = cpu / played as f64;
        // Games per second of the whole command, arena's over the bare referee's.
        let wall_ratio = (played as f64 / wall) / (games as f64 / bare_wall);
        let cpu_ratio = bare_cpu_game / arena_cpu_game;
        println!(
            "  round {round}: whole commands: bare {bare_wall:.2} s, {:.3} ms CPU a game; arena {wall:.2} s, {:.3} ms CPU a game: {wall_ratio:.2}x on wall time, {cpu_ratio:.2}x on CPU time (arena's play phase {:.0} games/s)  [load {}]",
            1e3 * bare_cpu_game,
            1e3 * arena_cpu_game,
            played as f64 / play_seconds,
            load()
        );
        wall_ratios.push(wall_ratio);
        cpu_ratios.push(cpu_ratio);
        bare_cpu.push(bare_cpu_game);
        arena_cpu.push(arena_cpu_game);
        play_rates.push(played as f64 / play_seconds);
    }
    println!(
        "{game}: bare {:.3} ms CPU a game, arena {:.3} ms; arena/bare {:.2}x on CPU time, {:.2}x on wall time (whole commands, medians of {rounds} interleaved rounds; bar 0.8x); arena's play phase {:.0} games/s",
        1e3 * median(bare_cpu),
        1e3 * median(arena_cpu),
        median(cpu_ratios),
        median(wall_ratios),
        median(play_rates)
    );
}

fn startup(dir: &Path, bot: &Path, referee: &Path, rounds: usize, cpu: Option<usize>) {
    use arena_core::{Agent, ProcessSpec, StreamAgent};
    use arena_langwars::LangWars;
    let games = env_number("VERSUS_C_GAMES", 400);
    let script = dir.join("startup.script");
    std::fs::write(&script, "1 4\n0\n").expect("script");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    arena_core::process::favour_this_thread();
    let spec = ProcessSpec {
        argv: vec![bot.display().to_string()],
        workdir: None,
        stderr_cap: arena_core::process::DEFAULT_STDERR_CAP,
        time_scale: 1.0,
        cpu,
        sandbox: None,
        clock: arena_core::ClockKind::Wall,
    };
    let pin = match cpu {
        Some(cpu) => format!("pinned to CPU {cpu}"),
        None => "not pinned".to_string(),
    };
    println!(
        "startup ({pin}): 4 C bots spawned, READY, frozen, killed and reaped; {games} games per round"
    );
    let (mut bare_games, mut ours_games, mut ready_only, mut ratios) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Pinned, the bare referee starts its bots on the same CPU, as arena does.
        let output = Command::new(referee)
            .arg(&script)
            .arg(games.to_string())
            .arg("1")
            .arg(bot)
            .args(cpu.map(|cpu| cpu.to_string()))
            .output()
            .expect("referee runs");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        let seconds: f64 = text
            .split_whitespace()
            .nth(4)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("referee said {text}"));
        let bare = seconds * 1e6 / games as f64;
        let (whole, ready) = runtime.block_on(async {
            let (mut whole, mut ready) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..games {
                let mut agents: Vec<StreamAgent<LangWars>> =
                    (0..4).map(|_| StreamAgent::new(spec.clone())).collect();
                let started = Instant::now();
                let results = futures::future::join_all(agents.iter_mut().map(|a| a.start())).await;
                ready += started.elapsed();
                assert!(results.iter().all(Result::is_ok), "{results:?}");
                for agent in agents.iter_mut() {
                    Agent::<LangWars>::pause(agent);
                }
                futures::future::join_all(agents.iter_mut().map(|a| a.finish())).await;
                whole += started.elapsed();
            }
            (whole, ready)
        });
        let ours = whole.as_secs_f64() * 1e6 / games as f64;
        let to_ready = ready.as_secs_f64() * 1e6 / games as f64;
        println!(
            "  round {round}: bare {bare:.0} µs per game, arena {ours:.0} µs ({to_ready:.0} µs to READY): {:.2}x  [load {}]",
            ours / bare,
            load()
        );
        bare_games.push(bare);
        ours_games.push(ours);
        ready_only.push(to_ready);
        ratios.push(ours / bare);
    }
    println!(
        "startup ({pin}): bare {:.0} µs per 4-bot start and end, arena {:.0} µs ({:.0} µs of it to READY): {:.2}x (median of {rounds} interleaved rounds)",
        median(bare_games),
        median(ours_games),
        median(ready_only),
        median(ratios)
    );
}

fn coup(dir: &Path, bot: &Path, rounds: usize) {
    let games = env_number("VERSUS_C_GAMES", 200);
    let mut args: Vec<String> = vec![
        "coup".into(),
        "--schedule".into(),
        "koth".into(),
        "--jobs".into(),
        "1".into(),
    ];
    args.extend(bots(bot, 2));
    // The calls the bare side makes: the recorded argument lists, each with an empty history file.
    let mut record = args.clone();
    record.extend(["--games".into(), "20".into(), "--seed".into(), "1".into()]);
    tournament(dir, "coup-record", &record);
    let calls: Vec<Vec<String>> = replays_of(&dir.join("coup-record"))
        .iter()
        .flat_map(|game| game["steps"].as_array().cloned().unwrap_or_default())
        .filter_map(|step| serde_json::from_str(step["input"].as_str()?).ok())
        .collect();
    assert!(!calls.is_empty(), "no recorded calls");
    let workdir = dir.join("coup-bare");
    std::fs::create_dir_all(&workdir).expect("workdir");
    // The history file where arena keeps its own: in memory when /dev/shm exists.
    let shm = Path::new("/dev/shm");
    let history_dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).expect("scratch in /dev/shm")
    } else {
        tempfile::tempdir().expect("scratch")
    };
    let history = history_dir.path().join("history.txt");
    println!("coup KotH: 2 tiny C bots, {games} games per round, {rounds} rounds");
    let mut ratios = Vec::new();
    let (mut bare_calls, mut arena_calls) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut bare = Duration::ZERO;
        let count = calls.len() * 4;
        for args in calls.iter().cycle().take(count) {
            std::fs::write(&history, b"").expect("history");
            let started = Instant::now();
            let status = Command::new(bot)
                .arg(&history)
                .args(args)
                .current_dir(&workdir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .expect("bare spawn");
            bare += started.elapsed();
            assert!(status.success());
        }
        let bare = bare.as_secs_f64() * 1e6 / count as f64;
        let mut run = args.clone();
        run.extend([
            "--games".into(),
            games.to_string(),
            "--seed".into(),
            (100 + round).to_string(),
        ]);
        let name = format!("coup-{round}");
        let (_, play_seconds, _, _) = tournament(dir, &name, &run);
        let made: usize = replays_of(&dir.join(&name))
            .iter()
            .map(|g| g["steps"].as_array().map_or(0, Vec::len))
            .sum();
        let ours = play_seconds * 1e6 / made as f64;
        println!(
            "  round {round}: bare spawn-and-wait {bare:.1} µs per call, arena KotH {ours:.1} µs per call ({made} calls): {:.3}x  [load {}]",
            ours / bare,
            load()
        );
        bare_calls.push(bare);
        arena_calls.push(ours);
        ratios.push(ours / bare);
    }
    println!(
        "coup: bare {:.1} µs per call, arena KotH {:.1} µs per call: {:.3}x (median of {rounds} interleaved rounds)",
        median(bare_calls),
        median(arena_calls),
        median(ratios)
    );
}

fn replays(dir: &Path, rounds: usize) {
    let base: Vec<String> = ["spring2021", "--games", "2000", "--seed", "7"]
        .map(String::from)
        .to_vec();
    let mut none = base.clone();
    none.extend(["--replays".into(), "none".into()]);
    let mut all = base.clone();
    all.extend(["--replays".into(), "all".into()]);
    let (mut ratios, mut stored_ratios) = (Vec::new(), Vec::new());
    println!(
        "spring2021, 2000 games of the built-in bots: default (replays rebuilt on demand) and --replays all (every replay stored) against --replays none"
    );
    for round in 0..rounds {
        let (_, play_none, wall_none, _) = tournament(dir, &format!("replays-none-{round}"), &none);
        let (_, play_default, wall_default, _) =
            tournament(dir, &format!("replays-default-{round}"), &base);
        let (_, play_all, wall_all, _) = tournament(dir, &format!("replays-all-{round}"), &all);
        println!(
            "  round {round}: --replays none {wall_none:.2} s (play {play_none:.2} s), default {wall_default:.2} s (play {play_default:.2} s): {:.2}x, --replays all {wall_all:.2} s (play {play_all:.2} s): {:.2}x  [load {}]",
            wall_default / wall_none,
            wall_all / wall_none,
            load()
        );
        ratios.push(wall_default / wall_none);
        stored_ratios.push(wall_all / wall_none);
    }
    println!(
        "replays: default/none {:.2}x, all/none {:.2}x whole runs (median of {rounds})",
        median(ratios),
        median(stored_ratios)
    );
}

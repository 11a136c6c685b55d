//! A contest on PostgreSQL played by `arena worker` processes, against `arena tournament` on the
//! same cores (issue 16):
//! - `throughput`: games/s of built-in Spring 2021 bots, `arena tournament --jobs 2` and a
//!   `--workers 0` host with N workers (one game each at a time) on the same database, runs
//!   interleaved (the machine is shared: ratios of neighbouring runs mean more than rates). Two
//!   lineups: the default one of `arena tournament spring2021` (every built-in bot; the bar's
//!   figure) and the four rule bots alone, whose 0.1-ms games show the database's cost at its
//!   largest (see [`Lineup::all`]);
//! - `queries`: transactions per game as PostgreSQL counts them (`pg_stat_database`), and the
//!   latency of a claim and of a completion measured in process, alone and with 16 claimers at
//!   once: from them, how many workers one PostgreSQL can feed;
//! - `pinned`: the workers' own cost apart from the database's: PostgreSQL pinned to CPU 1, and
//!   `arena tournament --jobs 1` against one worker of one job on CPU 0 (rule bots);
//! - `batches`: a worker's database cycle alone, without games: claim 4096 queued games, complete
//!   them (no replays, as built-in games), again and again; wall time and PostgreSQL's CPU per game.
//!
//! - `ladder`: process bots (four trivial C bots of Lang Wars 2, four of its Python starter)
//!   uploaded to a ladder capped at a run's games, hosted on one machine (SQLite, 2 workers of the
//!   host's own) and as a `--workers 0` host with 2 `arena worker`s on PostgreSQL, against `arena
//!   tournament --jobs 2` of the same bots (bar: 0.9x); with the queue's depth as the bench sees it.
//!
//! Run: `cargo bench -p arena --bench workers [-- throughput|pinned|queries|batches|ladder]`.
//! `WORKERS_BENCH_DEFAULT_ROUNDS` (default 60) and `WORKERS_BENCH_ROUNDS` (default 600) set the
//! rounds of every ordered pair of each lineup; `WORKERS_BENCH_BOTS` (comma-separated built-in
//! bots) measures that lineup alone, `WORKERS_BENCH_ROUNDS` rounds. PostgreSQL:
//! `$ARENA_TEST_POSTGRES` (default `postgres://postgres@127.0.0.1:5432/test`); a database of its
//! own is made and dropped. `WORKERS_BENCH_LOG=1` has PostgreSQL log every statement of the
//! bench's databases with its duration (`log_min_duration_statement = 0` on the database): what a
//! game costs, statement by statement, in PostgreSQL's log.

mod common;

use common::children_cpu_seconds;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arena_host::store::{Finished, NewGame, Promotion, Store};
use sqlx::Row;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
/// The built-in Spring 2021 bots of a contest, and how many rounds of every ordered pair of them
/// a run plays.
struct Lineup {
    bots: Vec<String>,
    rounds: u32,
}

impl Lineup {
    /// The lineups `throughput` measures, or the one of `WORKERS_BENCH_BOTS` (comma-separated)
    /// when set:
    /// - the default lineup of `arena tournament spring2021`, every built-in bot (`search` thinks a
    ///   few ms an answer): the bar's figure; `WORKERS_BENCH_DEFAULT_ROUNDS` rounds or 60;
    /// - the four rule bots, whose games last about 0.1 ms, so that the database's cost per game
    ///   shows at its largest; `WORKERS_BENCH_ROUNDS` rounds or 600.
    fn all() -> Vec<Lineup> {
        let of = |bots: &str, rounds: u32| Lineup {
            bots: bots.split(',').map(|b| b.trim().to_string()).collect(),
            rounds,
        };
        match std::env::var("WORKERS_BENCH_BOTS") {
            Ok(bots) if !bots.trim().is_empty() => {
                vec![of(&bots, rounds_from_env("WORKERS_BENCH_ROUNDS", 600))]
            }
            _ => vec![
                of(
                    "planner,wood1,wood2,random,search",
                    rounds_from_env("WORKERS_BENCH_DEFAULT_ROUNDS", 60),
                ),
                Lineup::rule_bots(),
            ],
        }
    }

    /// The four rule bots (`WORKERS_BENCH_ROUNDS` rounds or 600: a few seconds of play, long
    /// against a batch of a quarter of a second).
    fn rule_bots() -> Lineup {
        Lineup {
            bots: ["planner", "wood1", "wood2", "random"]
                .map(String::from)
                .to_vec(),
            rounds: rounds_from_env("WORKERS_BENCH_ROUNDS", 600),
        }
    }

    /// Games of a run.
    fn games(&self) -> u32 {
        let bots = self.bots.len() as u32;
        self.rounds * bots * bots.saturating_sub(1)
    }
}

/// The rounds the environment variable `name` gives, or `default`.
fn rounds_from_env(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(default)
}

/// How often a contest run looks at the database for its end: at least every 5 ms, and as the run
/// goes on every 1/400 of its time so far (the end is still found within 0.25 % of the run). Each
/// look costs PostgreSQL about 0.1 ms: at 5 ms throughout, a run of long games spent about a fifth
/// of its PostgreSQL CPU on the bench's own looks.
fn look_every(run_so_far: Duration) -> Duration {
    (run_so_far / 400).clamp(Duration::from_millis(5), Duration::from_millis(100))
}

fn admin_url() -> String {
    std::env::var("ARENA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

fn url_of(name: &str) -> String {
    let admin = admin_url();
    let (base, _) = admin.rsplit_once('/').expect("a database in the URL");
    format!("{base}/{name}")
}

async fn create(name: &str) {
    let pool = sqlx::AnyPool::connect(&admin_url())
        .await
        .expect("PostgreSQL");
    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&pool)
        .await;
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&pool)
        .await
        .expect("CREATE DATABASE");
    if std::env::var("WORKERS_BENCH_LOG").is_ok() {
        sqlx::query(&format!(
            "ALTER DATABASE {name} SET log_min_duration_statement = 0"
        ))
        .execute(&pool)
        .await
        .expect("ALTER DATABASE");
    }
    pool.close().await;
}

async fn drop_db(name: &str) {
    if let Ok(pool) = sqlx::AnyPool::connect(&admin_url()).await {
        let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&pool)
            .await;
        pool.close().await;
    }
}

fn main() {
    sqlx::any::install_default_drivers();
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |name: &str| wanted.is_empty() || wanted.iter().any(|w| w == name);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    println!(
        "load average at start: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    if run("throughput") {
        runtime.block_on(throughput(dir.path()));
    }
    if run("pinned") {
        runtime.block_on(pinned(dir.path()));
    }
    if run("queries") {
        runtime.block_on(queries());
    }
    if run("batches") {
        runtime.block_on(batches());
    }
    if run("ladder") {
        runtime.block_on(ladder(dir.path()));
    }
}

/// One tournament's games/s (its play phase) and its whole process's CPU per game in µs.
/// The games/s of a tournament's play phase, from its own line ("720 played now in 0.12 s: 6087
/// games/s"): process start and the report are left out.
fn play_rate(output: &std::process::Output) -> f64 {
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.split(['\n', '\r'])
        .find_map(|line| {
            let (_, rest) = line.split_once(" s: ")?;
            rest.trim_end()
                .trim_end_matches(')')
                .strip_suffix(" games/s")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .expect("the tournament's games/s line")
}

fn tournament(lineup: &Lineup, dir: &Path, round: usize, replays: &str) -> (f64, f64) {
    tournament_on(lineup, dir, round, replays, "2", None)
}

/// [`tournament`] with `jobs` games at once, on the CPUs `pin` (a `taskset` list) when given.
fn tournament_on(
    lineup: &Lineup,
    dir: &Path,
    round: usize,
    replays: &str,
    jobs: &str,
    pin: Option<&str>,
) -> (f64, f64) {
    let games = lineup.games().to_string();
    let cpu_before = children_cpu_seconds();
    let out = dir.join(format!("t-{replays}-{round}"));
    let mut args = vec!["tournament", "spring2021", "--seed", "5", "--jobs", jobs];
    args.extend(["--games", &games, "--replays", replays]);
    for bot in &lineup.bots {
        args.extend(["--bot", bot]);
    }
    let output = arena(pin)
        .args(&args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("arena tournament");
    assert!(output.status.success());
    let cpu_per_game = (children_cpu_seconds() - cpu_before) / f64::from(lineup.games()) * 1e6;
    let _ = std::fs::remove_dir_all(&out);
    // Its own figure of the play phase ("720 played now in 0.12 s: 6087 games/s"): process start
    // and the report are left out, as the workers' start is below.
    let rate = play_rate(&output);
    (rate, cpu_per_game)
}

fn contest(lineup: &Lineup, dir: &Path) {
    let mut text = format!(
        "name = \"bench\"\ngame = \"spring2021\"\nformat = \"koth\"\nseed = 5\n[koth]\nrounds = {}\n",
        lineup.rounds
    );
    for bot in &lineup.bots {
        text.push_str(&format!(
            "[[bots]]\nname = \"{bot}\"\nbot = \"builtin:{bot}\"\n"
        ));
    }
    std::fs::write(dir.join("contest.toml"), text).expect("contest file");
}

/// `arena`, on the CPUs `pin` (a `taskset` list) when given.
fn arena(pin: Option<&str>) -> Command {
    match pin {
        Some(cpus) => {
            let mut command = Command::new("taskset");
            command.args(["-c", cpus, ARENA]);
            command
        }
        None => Command::new(ARENA),
    }
}

/// Pins every thread of process `pid` to the CPUs `cpus` (a `taskset` list).
fn pin_process(pid: &str, cpus: &str) -> bool {
    Command::new("taskset")
        .args(["-a", "-p", "-c", cpus, pid])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn postgres_pids() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            std::fs::read_to_string(entry.path().join("comm")).is_ok_and(|c| c.trim() == "postgres")
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

fn spawn(args: &[&str], dir: &Path) -> Child {
    spawn_on(args, dir, None)
}

fn spawn_on(args: &[&str], dir: &Path, pin: Option<&str>) -> Child {
    let mut child = arena(pin)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts");
    // The first line: the process is ready.
    use std::io::BufRead;
    let mut line = String::new();
    let _ = std::io::BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line);
    child
}

async fn count(pool: &sqlx::AnyPool, sql: &str) -> i64 {
    sqlx::query(sql)
        .fetch_one(pool)
        .await
        .expect("a count")
        .try_get(0)
        .expect("an integer")
}

/// One contest played by `workers` worker processes of `jobs` games each: games/s from the
/// workers' start to the last result, and transactions per game.
async fn contest_run(
    lineup: &Lineup,
    dir: &Path,
    round: usize,
    workers: usize,
    jobs: usize,
) -> Run {
    contest_run_on(lineup, dir, round, workers, jobs, None).await
}

/// [`contest_run`] with the workers on the CPUs `pin` (a `taskset` list) when given.
async fn contest_run_on(
    lineup: &Lineup,
    dir: &Path,
    round: usize,
    workers: usize,
    jobs: usize,
    pin: Option<&str>,
) -> Run {
    let name = format!("arena_bench_{}_{round}", std::process::id());
    create(&name).await;
    let url = url_of(&name);
    let folder = dir.join(format!("c-{round}-{workers}"));
    std::fs::create_dir_all(&folder).expect("folder");
    contest(lineup, &folder);
    let mut host = spawn(
        &[
            "host",
            "contest.toml",
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "0",
            "--db",
            &url,
        ],
        &folder,
    );
    let queueing = Instant::now();
    let pool = sqlx::AnyPool::connect(&url).await.expect("the database");
    let total = i64::from(lineup.games());
    while count(&pool, "SELECT COUNT(*) FROM games").await < total {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!(
        "  (a host started and queued the run's {total} games in {:.1} s)",
        queueing.elapsed().as_secs_f64()
    );
    // The host only serves from here: stop it so that its scheduler's looks do not count.
    let _ = host.kill();
    let _ = host.wait();
    let stat = format!("SELECT xact_commit FROM pg_stat_database WHERE datname = '{name}'");
    let before = count(&pool, &stat).await;
    let jobs_text = jobs.to_string();
    let mut children: Vec<Child> = (0..workers)
        .map(|index| {
            let data = folder.join(format!("w{index}"));
            let data = data.to_string_lossy().into_owned();
            spawn_on(
                &[
                    "worker", "--db", &url, "--jobs", &jobs_text, "--data", &data,
                ],
                &folder,
                pin,
            )
        })
        .collect();
    // The play phase, as the tournament's figure: from the first result to the last (the
    // workers' start, connection and sandbox set-up left out). The look is the highest completion
    // number (dense from 1, read from its unique index): a `COUNT(*)` of the results costs
    // PostgreSQL milliseconds at tens of thousands of rows, and one every few milliseconds took
    // a third of a core from the run it measured.
    let mut first: Option<(Instant, i64)> = None;
    let worker_pids: Vec<u32> = children.iter().map(Child::id).collect();
    let mut cpu_at_first = (0.0, 0.0);
    let mut looks = 0;
    loop {
        let done = count(&pool, "SELECT COALESCE(MAX(completion), 0) FROM results").await;
        looks += 1;
        if done > 0 && first.is_none() {
            first = Some((Instant::now(), done));
            cpu_at_first = (cpu_seconds(&worker_pids), postgres_cpu_seconds());
        }
        if done >= total {
            break;
        }
        let so_far = first.map_or(Duration::ZERO, |(at, _)| at.elapsed());
        tokio::time::sleep(look_every(so_far)).await;
    }
    let (started, at_start) = first.expect("a first result");
    let elapsed = started.elapsed().as_secs_f64();
    assert!(
        at_start < total,
        "the run ended before the bench's first look: raise its rounds (WORKERS_BENCH_ROUNDS, \
         WORKERS_BENCH_DEFAULT_ROUNDS)"
    );
    let played = (total - at_start) as f64;
    let cpu = (
        (cpu_seconds(&worker_pids) - cpu_at_first.0) / played * 1e6,
        (postgres_cpu_seconds() - cpu_at_first.1) / played * 1e6,
    );
    assert_eq!(
        count(&pool, "SELECT COUNT(*) FROM results").await,
        total,
        "every game recorded once"
    );
    // The statistics collector lags a little behind the commits.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let after = count(&pool, &stat).await;
    for child in &mut children {
        let _ = child.kill();
        let _ = child.wait();
    }
    pool.close().await;
    drop_db(&name).await;
    // This bench's own looks are among the commits: taken out.
    let polls = f64::from(looks) + 1.0;
    Run {
        rate: played / elapsed,
        transactions: ((after - before) as f64 - polls).max(0.0) / total as f64,
        worker_cpu_us: cpu.0,
        postgres_cpu_us: cpu.1,
    }
}

/// One contest run's figures.
struct Run {
    rate: f64,
    transactions: f64,
    /// CPU time per game of the worker processes and of every PostgreSQL process, in µs.
    worker_cpu_us: f64,
    postgres_cpu_us: f64,
}

/// CPU seconds of the processes `pids` and their descendants (arena's own reader of `/proc`).
fn cpu_seconds(pids: &[u32]) -> f64 {
    pids.iter()
        .filter_map(|&pid| arena_core::process::process_tree_cpu(pid as i32))
        .map(|cpu| cpu.as_secs_f64())
        .sum()
}

/// PostgreSQL's CPU: its postmaster's tree (the backends serving the run, and those it reaped).
fn postgres_cpu_seconds() -> f64 {
    let pids = postgres_pids();
    let parent = |pid: &String| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|line| line.strip_prefix("PPid:").map(|p| p.trim().to_string()))
            })
    };
    let postmaster = pids
        .iter()
        .find(|pid| parent(pid).is_none_or(|parent| !pids.contains(&parent)))
        .and_then(|pid| pid.parse::<u32>().ok());
    postmaster.map_or(0.0, |pid| cpu_seconds(&[pid]))
}

async fn throughput(dir: &Path) {
    for lineup in Lineup::all() {
        throughput_of(&lineup, dir).await;
    }
}

async fn throughput_of(lineup: &Lineup, dir: &Path) {
    let mut rows: Vec<(String, Vec<f64>)> = vec![
        ("tournament --jobs 2 --replays none".into(), Vec::new()),
        ("tournament --jobs 2 --replays all".into(), Vec::new()),
        ("2 workers x 1 job".into(), Vec::new()),
        ("1 worker x 2 jobs".into(), Vec::new()),
    ];
    let mut transactions = Vec::new();
    let mut cpu = Vec::new();
    let mut tournament_cpu = Vec::new();
    for round in 0..3 {
        let (rate, cpu_per_game) = tournament(lineup, dir, round, "none");
        rows[0].1.push(rate);
        tournament_cpu.push(cpu_per_game);
        rows[1].1.push(tournament(lineup, dir, round, "all").0);
        // (More workers than cores: they are started one after another, and the first ones
        // play the whole queue before the last is up; not a figure.)
        for (row, (workers, jobs)) in [(2, (2, 1)), (3, (1, 2))] {
            let run = contest_run(lineup, dir, round * 10 + row, workers, jobs).await;
            rows[row].1.push(run.rate);
            transactions.push(run.transactions);
            cpu.push((run.worker_cpu_us, run.postgres_cpu_us));
        }
    }
    let best = |rates: &[f64]| rates.iter().copied().fold(0.0, f64::max);
    let reference = best(&rows[0].1);
    println!(
        "throughput (play phase), Spring 2021 built-in bots ({}), {} games a run, best of 3 interleaved runs:",
        lineup.bots.join(", "),
        lineup.games()
    );
    for (label, rates) in &rows {
        println!(
            "  {label:40} {:7.1} games/s ({:.2} of the tournament without replays; runs: {})",
            best(rates),
            best(rates) / reference,
            rates
                .iter()
                .map(|r| format!("{r:.1}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    transactions.sort_by(f64::total_cmp);
    println!(
        "  transactions per game (pg_stat_database, heartbeats and idle looks included): median {:.2}",
        transactions[transactions.len() / 2]
    );
    cpu.sort_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
    let (workers_cpu, postgres_cpu) = cpu[cpu.len() / 2];
    tournament_cpu.sort_by(f64::total_cmp);
    println!(
        "  CPU per game (median run, 10 ms ticks): tournament --replays none {:.1} µs (whole process); workers {workers_cpu:.1} µs, PostgreSQL {postgres_cpu:.1} µs (play phase)",
        tournament_cpu[tournament_cpu.len() / 2]
    );
    println!(
        "load average at the end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}

/// The workers' own cost, apart from the database's: PostgreSQL on CPU 1, and on CPU 0 either
/// `arena tournament --jobs 1` or one worker of one job (as when the database has a machine of its
/// own, the usual set-up for several machines). Restores PostgreSQL's CPUs afterwards.
async fn pinned(dir: &Path) {
    let lineup = Lineup::rule_bots();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        println!("pinned: needs 2 CPUs, skipped");
        return;
    }
    let all = format!("0-{}", cores - 1);
    let postgres = postgres_pids();
    let own = std::process::id().to_string();
    let pinned_all = postgres.iter().all(|pid| pin_process(pid, "1")) && pin_process(&own, "1");
    if postgres.is_empty() || !pinned_all {
        println!(
            "pinned: cannot pin PostgreSQL's processes (needs taskset and the right to), skipped"
        );
    } else {
        let mut tournament_rates = Vec::new();
        let mut worker_rates = Vec::new();
        for round in 0..3 {
            tournament_rates
                .push(tournament_on(&lineup, dir, 100 + round, "none", "1", Some("0")).0);
            worker_rates.push(
                contest_run_on(&lineup, dir, 100 + round, 1, 1, Some("0"))
                    .await
                    .rate,
            );
        }
        let best = |rates: &[f64]| rates.iter().copied().fold(0.0, f64::max);
        let list = |rates: &[f64]| {
            rates
                .iter()
                .map(|r| format!("{r:.1}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "pinned (play phase, best of 3 interleaved runs): PostgreSQL on CPU 1, the games on CPU 0:"
        );
        println!(
            "  tournament --jobs 1 --replays none     {:7.1} games/s (runs: {})",
            best(&tournament_rates),
            list(&tournament_rates)
        );
        println!(
            "  1 worker x 1 job                       {:7.1} games/s ({:.2} of the tournament; runs: {})",
            best(&worker_rates),
            best(&worker_rates) / best(&tournament_rates),
            list(&worker_rates)
        );
    }
    // PostgreSQL's backends started since were forked from the postmaster: pinned too.
    for pid in postgres_pids() {
        pin_process(&pid, &all);
    }
    pin_process(&own, &all);
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// A fresh database `name` with a house user's two built-in submissions: the store and their ids.
async fn two_bots_store(name: &str) -> (Store, [i64; 2]) {
    create(name).await;
    let store = Store::open(&url_of(name), None).await.expect("the store");
    let user = store
        .ensure_user("a", "house:a", arena_host::store::Role::House)
        .await
        .expect("a user");
    let a = store
        .add_submission(user, "builtin", "random", None, "x", 0)
        .await
        .expect("a");
    let b = store
        .add_submission(user, "builtin", "planner", None, "y", 0)
        .await
        .expect("b");
    (store, [a, b])
}

/// `count` KotH games of `a` against `b`.
fn koth_games(count: usize, a: i64, b: i64) -> Vec<NewGame> {
    (0..count)
        .map(|_| NewGame {
            kind: "koth".into(),
            league: 0,
            variant: None,
            seats: vec![a, b],
            round: 0,
        })
        .collect()
}

/// Claims and completions straight from this process: their latency alone and under 16
/// concurrent claimers, with a result of a real game's size.
async fn queries() {
    let name = format!("arena_bench_q_{}", std::process::id());
    let (store, [a, b]) = two_bots_store(&name).await;
    let games = 2000;
    let many = koth_games(games, a, b);
    let scheduling = Instant::now();
    for game in &many {
        store.schedule(game, 5).await.expect("a game");
    }
    let one_by_one = scheduling.elapsed();
    let scheduling = Instant::now();
    store.schedule_all(&many, 5).await.expect("the games");
    println!(
        "queries, scheduling {games} games: one by one {:.0} ms, at once (a host's round) {:.0} ms",
        one_by_one.as_secs_f64() * 1000.0,
        scheduling.elapsed().as_secs_f64() * 1000.0
    );
    // A Spring 2021 replay of built-in bots is about 20 KB gzipped; the journal line 1 KB.
    let finished = Finished {
        entry: "x".repeat(1000),
        ranks: vec![1, 2],
        replay: Some((0..20_000).map(|i| (i * 7919 % 251) as u8).collect()),
    };
    let promotion = Promotion::default();
    let languages = ",builtin,folder,python3,";
    let mut claims = Vec::new();
    let mut completes = Vec::new();
    for _ in 0..500 {
        let started = Instant::now();
        let claimed = store
            .claim_for("bench", Some(languages), 30_000)
            .await
            .expect("claim")
            .expect("a game");
        claims.push(started.elapsed().as_secs_f64() * 1000.0);
        let started = Instant::now();
        assert!(
            store
                .complete(&claimed, &finished, &promotion)
                .await
                .expect("complete")
        );
        completes.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    claims.sort_by(f64::total_cmp);
    completes.sort_by(f64::total_cmp);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "queries, one client: claim (2 statements) {:.2} ms mean, p50 {:.2}, p99 {:.2}; complete (1 \
         transaction of 4 statements) {:.2} ms mean, p50 {:.2}, p99 {:.2}",
        mean(&claims),
        percentile(&claims, 0.5),
        percentile(&claims, 0.99),
        mean(&completes),
        percentile(&completes, 0.5),
        percentile(&completes, 0.99)
    );
    // 16 claimers at once (sqlx's pool holds 8 connections per process: two stores).
    let started = Instant::now();
    let stores = [
        store.clone(),
        Store::open(&url_of(&name), None)
            .await
            .expect("a second pool"),
    ];
    let mut tasks = Vec::new();
    for index in 0..16 {
        let store = stores[index % 2].clone();
        let finished = finished.clone();
        tasks.push(tokio::spawn(async move {
            let mut done = 0;
            let promotion = Promotion::default();
            while let Some(claimed) = store
                .claim_for(&format!("bench-{index}"), Some(languages), 30_000)
                .await
                .expect("claim")
            {
                assert!(
                    store
                        .complete(&claimed, &finished, &promotion)
                        .await
                        .expect("complete")
                );
                done += 1;
            }
            done
        }));
    }
    let mut done = 0;
    for task in tasks {
        done += task.await.expect("a claimer");
    }
    let rate = done as f64 / started.elapsed().as_secs_f64();
    println!(
        "queries, 16 claimers: {done} claim+complete cycles, {rate:.0} games/s through one PostgreSQL"
    );
    // A Spring 2021 game of real bots lasts 10-20 s of bot time (the figure); a Lang Wars
    // game about 36 s. A worker core asks for a game every so often: one PostgreSQL feeds
    // rate × game length cores.
    for (game, seconds) in [("Spring 2021", 10.0), ("Lang Wars", 36.0)] {
        println!(
            "  {game} games of {seconds} s: one PostgreSQL feeds about {:.0} worker cores; 100 \
             machines of 32 cores need {:.0} games/s ({:.0} % of it)",
            rate * seconds,
            3200.0 / seconds,
            100.0 * 3200.0 / seconds / rate
        );
    }
    large_queue(&stores[0], &url_of(&name), a, b).await;
    for store in &stores {
        store.close().await;
    }
    drop_db(&name).await;
}

/// Games queued at once in [`large_queue`]: a qualifier's round of a few hundred submissions.
const LARGE_QUEUE: i64 = 200_000;

/// A claim of a worker's batch (4096 games) at the head of a queue of [`LARGE_QUEUE`] games, and
/// the picking of those games alone, checked by the games' own `needs` (migration 6, a filter
/// along the queue's index that stops at the batch's size) and, as before it, by an anti-join
/// through the seats (which the planner makes over the whole queue).
async fn large_queue(store: &Store, url: &str, a: i64, b: i64) {
    let pool = sqlx::AnyPool::connect(url).await.expect("the database");
    let first: i64 = count(&pool, "SELECT COALESCE(MAX(id), 0) + 1 FROM games").await;
    let last = first + LARGE_QUEUE - 1;
    for sql in [
        format!(
            "INSERT INTO games (id, kind, league, seed, state, attempts, created_at, round, needs) \
             SELECT i, 'koth', 0, '5', 'queued', 0, 0, 0, ',builtin,builtin,' \
             FROM generate_series({first}, {last}) AS i"
        ),
        format!(
            "INSERT INTO game_seats (game_id, seat, submission_id) \
             SELECT i, 0, {a} FROM generate_series({first}, {last}) AS i"
        ),
        format!(
            "INSERT INTO game_seats (game_id, seat, submission_id) \
             SELECT i, 1, {b} FROM generate_series({first}, {last}) AS i"
        ),
        "ANALYZE".to_string(),
    ] {
        sqlx::query(&sql).execute(&pool).await.expect("the queue");
    }
    let languages = ",builtin,folder,python3,";
    let through_seats = format!(
        "NOT EXISTS (SELECT 1 FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
         WHERE gs.game_id = g.id AND '{languages}' NOT LIKE '%,' || s.language || ',%')"
    );
    // As the claim writes it: in a CASE, the check through the seats (for games without
    // `needs`) is a subplan run row by row, and the planner keeps to the queue's index. (A bare
    // `needs <@ ...` is planned as a scan of the whole table too: its selectivity is a guess.)
    let by_needs = format!(
        "SELECT g.id FROM games g WHERE g.state = 'queued' AND CASE WHEN g.needs IS NULL \
         THEN {through_seats} ELSE string_to_array(trim(both ',' from g.needs), ',') \
         <@ string_to_array(trim(both ',' from '{languages}'), ',') END ORDER BY g.id LIMIT 4096"
    );
    let through_seats = format!(
        "SELECT g.id FROM games g WHERE g.state = 'queued' AND {through_seats} \
         ORDER BY g.id LIMIT 4096"
    );
    let median_ms = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        percentile(&times, 0.5)
    };
    let mut picks = Vec::new();
    for sql in [&by_needs, &through_seats] {
        let mut times = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            let rows = sqlx::query(sql).fetch_all(&pool).await.expect("the pick");
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(rows.len(), 4096, "a whole batch");
        }
        picks.push(median_ms(times));
    }
    let mut claims = Vec::new();
    for round in 0..5 {
        let started = Instant::now();
        let claimed = store
            .claim_batch(&format!("large-{round}"), Some(languages), 30_000, 4096)
            .await
            .expect("a claim");
        claims.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(claimed.len(), 4096, "a whole batch");
    }
    println!(
        "queries, 4096 games at the head of {LARGE_QUEUE} queued (medians of 5): picked by their \
         needs {:.1} ms, through their seats {:.1} ms; a whole claim (picked, marked, seats and \
         submissions read) {:.1} ms",
        picks[0],
        picks[1],
        median_ms(claims)
    );
    pool.close().await;
}

/// Games a worker claims and completes at once in [`batches`] (the worker's batch size).
const BATCH: usize = 4096;

/// A worker's database cycle alone: batches of [`BATCH`] games claimed and completed, with
/// PostgreSQL's CPU per game (its processes' ticks: the run is long enough for 10 ms ticks).
async fn batches() {
    let name = format!("arena_bench_b_{}", std::process::id());
    let (store, [a, b]) = two_bots_store(&name).await;
    let rounds = 12;
    let games = koth_games(BATCH * rounds, a, b);
    store.schedule_all(&games, 5).await.expect("the games");
    // A journal line of a Spring 2021 game of built-in bots is about 300 bytes.
    let finished = Finished {
        entry: format!(
            "{{\"game\":0,\"seed\":\"5\",\"pad\":\"{}\"}}",
            "x".repeat(260)
        ),
        ranks: vec![1, 2],
        replay: None,
    };
    let promotion = Promotion::default();
    let languages = ",builtin,folder,python3,";
    let (mut claiming, mut completing) = (Duration::ZERO, Duration::ZERO);
    let cpu_before = postgres_cpu_seconds();
    for _ in 0..rounds {
        let started = Instant::now();
        let claimed = store
            .claim_batch("bench", Some(languages), 30_000, BATCH as i64)
            .await
            .expect("a claim");
        claiming += started.elapsed();
        assert_eq!(claimed.len(), BATCH, "a whole batch");
        let done: Vec<(&arena_host::store::Claimed, &Finished)> =
            claimed.iter().map(|c| (c, &finished)).collect();
        let started = Instant::now();
        let recorded = store
            .complete_many(&done, &promotion)
            .await
            .expect("a completion");
        completing += started.elapsed();
        assert!(recorded.iter().all(|r| *r), "every game recorded");
    }
    let postgres_cpu = postgres_cpu_seconds() - cpu_before;
    let per_game = |d: Duration| d.as_secs_f64() * 1e6 / (BATCH * rounds) as f64;
    println!(
        "batches of {BATCH} games ({rounds} of them): claim {:.1} µs a game, completion {:.1} µs a \
         game (wall); PostgreSQL's CPU {:.1} µs a game",
        per_game(claiming),
        per_game(completing),
        postgres_cpu * 1e6 / (BATCH * rounds) as f64
    );
    store.close().await;
    drop_db(&name).await;
}

/// Process bots of a `ladder` run: the game, the bot's source (uploaded by four contestants,
/// one copy each) and the games a run plays.
struct ProcessLineup {
    label: &'static str,
    game: &'static str,
    /// The source, relative to this crate's folder.
    source: &'static str,
    extension: &'static str,
    games: u32,
}

impl ProcessLineup {
    /// Four trivial C bots of Lang Wars 2 (`c/lw2_bot.c`, a few ms a game: the ladder's own cost
    /// per game at its largest) and four of its Python starter (tens of ms a game: process start
    /// dominates). `WORKERS_BENCH_LADDER` (`c`, `python`) picks one; `WORKERS_BENCH_LADDER_GAMES`
    /// sets the games of a run.
    fn all() -> Vec<ProcessLineup> {
        let games = |default| rounds_from_env("WORKERS_BENCH_LADDER_GAMES", default);
        let lineups = vec![
            ProcessLineup {
                label: "c",
                game: "langwars2",
                source: "benches/c/lw2_bot.c",
                extension: "c",
                games: games(600),
            },
            ProcessLineup {
                label: "python",
                game: "langwars2",
                source: "../arena-langwars/starters/bot.py",
                extension: "py",
                games: games(150),
            },
        ];
        match std::env::var("WORKERS_BENCH_LADDER") {
            Ok(wanted) if !wanted.trim().is_empty() => lineups
                .into_iter()
                .filter(|l| wanted.split(',').any(|w| w.trim() == l.label))
                .collect(),
            _ => lineups,
        }
    }

    /// The four bots' files in `folder`.
    fn bots(&self, folder: &Path) -> Vec<std::path::PathBuf> {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(self.source);
        (0..4)
            .map(|index| {
                let path = folder.join(format!("p{index}.{}", self.extension));
                std::fs::copy(&source, &path).expect("a bot's copy");
                path
            })
            .collect()
    }
}

/// Where a hosted ladder runs.
#[derive(Clone, Copy)]
enum Hosting {
    /// One machine: `arena host --db sqlite://...` with 2 workers of its own.
    Sqlite,
    /// `arena host --workers 0` on PostgreSQL and 2 `arena worker --jobs 1`.
    Postgres,
}

/// One hosted ladder run's figures (play phase: first result to last).
struct LadderRun {
    rate: f64,
    /// CPU seconds per game of the host, the workers and their bots (a cgroup of theirs).
    cpu_ms: f64,
    /// PostgreSQL's CPU per game (0 on SQLite).
    postgres_cpu_ms: f64,
    /// Share of the bench's looks that found the queue empty, and the mean of the games running.
    empty: f64,
    running: f64,
}

fn token(index: usize) -> String {
    format!("bench-contestant-token-{index:04}")
}

fn ladder_contest(lineup: &ProcessLineup, folder: &Path, workers: usize) {
    let mut text = format!(
        "name = \"bench ladder\"\ngame = \"{}\"\nformat = \"ladder\"\nseed = 5\nworkers = {workers}\n\
         [ladder]\nmax_games = {}\n",
        lineup.game, lineup.games
    );
    for index in 0..4 {
        text.push_str(&format!(
            "[[contestants]]\nname = \"p{index}\"\ntoken = \"{}\"\n",
            token(index)
        ));
    }
    std::fs::write(folder.join("contest.toml"), text).expect("contest file");
}

/// `arena tournament GAME --jobs 2` of the four bots: its play phase's games/s (as it prints them),
/// its whole command's games/s and CPU ms per game of its whole tree.
fn process_tournament(lineup: &ProcessLineup, dir: &Path, round: usize) -> (f64, f64, f64) {
    let folder = dir.join(format!("pt-{}-{round}", lineup.label));
    std::fs::create_dir_all(&folder).expect("folder");
    let bots = lineup.bots(&folder);
    // Built (and cached) before the timed run, as the ladder's uploads are built before it plays.
    let mut warm = Command::new(ARENA);
    warm.args(["tournament", lineup.game, "--games", "4", "--jobs", "2"]);
    for bot in &bots {
        warm.arg("--bot").arg(bot);
    }
    let warmed = warm
        .arg("--out")
        .arg(folder.join("warm"))
        .output()
        .expect("arena tournament");
    assert!(warmed.status.success(), "{warmed:?}");
    let group = common::cpu_group::CpuGroup::new(&format!("ladder-t-{}-{round}", lineup.label));
    let mut command = Command::new(ARENA);
    command.args(["tournament", lineup.game, "--jobs", "2", "--seed", "5"]);
    command.args(["--games", &lineup.games.to_string()]);
    for bot in &bots {
        command.arg("--bot").arg(bot);
    }
    command.arg("--out").arg(folder.join("out"));
    group.enter(&mut command);
    let started = Instant::now();
    let output = command.output().expect("arena tournament");
    let wall = started.elapsed().as_secs_f64();
    assert!(output.status.success(), "{output:?}");
    let cpu_ms = group.seconds() / f64::from(lineup.games) * 1e3;
    let rate = play_rate(&output);
    let _ = std::fs::remove_dir_all(&folder);
    (rate, f64::from(lineup.games) / wall, cpu_ms)
}

/// Starts `arena ARGS` in `folder`, in `group`: the child and its first line (after `prefix`).
fn start_in_group(
    binary: &str,
    args: &[&str],
    folder: &Path,
    group: &common::cpu_group::CpuGroup,
    prefix: &str,
) -> (Child, String) {
    let mut command = Command::new(binary);
    command
        .args(args)
        .current_dir(folder)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    group.enter(&mut command);
    let mut child = command.spawn().expect("arena starts");
    use std::io::BufRead;
    let mut line = String::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let _ = reader.read_line(&mut line);
    // The rest of its output is read and dropped, so that it never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let first = line
        .trim()
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, first)
}

/// A ladder of the four bots, capped at the lineup's games, hosted as `hosting` says.
async fn ladder_run(
    lineup: &ProcessLineup,
    dir: &Path,
    round: usize,
    hosting: Hosting,
    binary: &str,
) -> LadderRun {
    let label = match hosting {
        Hosting::Sqlite => "sqlite",
        Hosting::Postgres => "pg",
    };
    let folder = dir.join(format!("pl-{}-{label}-{round}", lineup.label));
    std::fs::create_dir_all(&folder).expect("folder");
    let bots = lineup.bots(&folder);
    let group =
        common::cpu_group::CpuGroup::new(&format!("ladder-{}-{label}-{round}", lineup.label));
    let name = format!("arena_bench_l_{}_{round}", std::process::id());
    let (db, workers) = match hosting {
        Hosting::Sqlite => (
            format!("sqlite://{}", folder.join("contest.db").display()),
            2,
        ),
        Hosting::Postgres => {
            create(&name).await;
            (url_of(&name), 0)
        }
    };
    ladder_contest(lineup, &folder, workers);
    let workers_text = workers.to_string();
    let (mut host, url) = start_in_group(
        binary,
        &[
            "host",
            "contest.toml",
            "--listen",
            "127.0.0.1:0",
            "--workers",
            &workers_text,
            "--db",
            &db,
        ],
        &folder,
        &group,
        "arena host: ",
    );
    for (index, bot) in bots.iter().enumerate() {
        let out = Command::new(ARENA)
            .args([
                "submit",
                "--server",
                &url,
                "--token",
                &token(index),
                "--wait",
            ])
            .arg(bot)
            .output()
            .expect("arena submit runs");
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains(": ready"),
            "arena submit: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut children = Vec::new();
    if let Hosting::Postgres = hosting {
        for index in 0..2 {
            let data = folder.join(format!("w{index}"));
            let data = data.to_string_lossy().into_owned();
            children.push(
                start_in_group(
                    binary,
                    &["worker", "--db", &db, "--jobs", "1", "--data", &data],
                    &folder,
                    &group,
                    "arena worker: ",
                )
                .0,
            );
        }
    }
    let reader = match hosting {
        Hosting::Sqlite => format!("{db}?mode=ro"),
        Hosting::Postgres => db.clone(),
    };
    let pool = sqlx::AnyPool::connect(&reader).await.expect("the database");
    let total = i64::from(lineup.games);
    let look = "SELECT COALESCE((SELECT MAX(completion) FROM results), 0), \
                (SELECT COUNT(*) FROM games WHERE state = 'queued'), \
                (SELECT COUNT(*) FROM games WHERE state = 'running')";
    let mut first: Option<(Instant, i64, f64, f64)> = None;
    let (mut looks, mut empty, mut running) = (0u32, 0u32, 0i64);
    loop {
        let row = sqlx::query(look).fetch_one(&pool).await.expect("a look");
        let done: i64 = row.try_get(0).expect("done");
        if done >= total {
            break;
        }
        if done > 0 {
            if first.is_none() {
                first = Some((
                    Instant::now(),
                    done,
                    group.seconds(),
                    postgres_cpu_seconds(),
                ));
            }
            looks += 1;
            if row.try_get::<i64, _>(1).expect("queued") == 0 {
                empty += 1;
            }
            running += row.try_get::<i64, _>(2).expect("running");
        }
        // Looked at less and less often, as `contest_run` does: the looks cost the database too.
        let so_far = first.map_or(Duration::ZERO, |(at, ..)| at.elapsed());
        tokio::time::sleep(look_every(so_far)).await;
    }
    let (started, at_start, cpu_start, postgres_start) = first.expect("a first result");
    let played = (total - at_start) as f64;
    let run = LadderRun {
        rate: played / started.elapsed().as_secs_f64(),
        cpu_ms: (group.seconds() - cpu_start) / played * 1e3,
        postgres_cpu_ms: match hosting {
            Hosting::Sqlite => 0.0,
            Hosting::Postgres => (postgres_cpu_seconds() - postgres_start) / played * 1e3,
        },
        empty: f64::from(empty) / f64::from(looks.max(1)),
        running: running as f64 / f64::from(looks.max(1)),
    };
    pool.close().await;
    for child in children.iter_mut().chain(std::iter::once(&mut host)) {
        let _ = child.kill();
        let _ = child.wait();
    }
    if let Hosting::Postgres = hosting {
        drop_db(&name).await;
    }
    let _ = std::fs::remove_dir_all(&folder);
    run
}

/// The hosted ladder of process bots against `arena tournament --jobs 2` of the same bots on the
/// same cores, runs interleaved; medians of the rounds (`WORKERS_BENCH_LADDER_ROUNDS`, default 3).
async fn ladder(dir: &Path) {
    let rounds = rounds_from_env("WORKERS_BENCH_LADDER_ROUNDS", 3) as usize;
    for lineup in ProcessLineup::all() {
        let mut tournament_rates = Vec::new();
        let mut tournament_cpu = Vec::new();
        // `WORKERS_BENCH_BEFORE`: another build of arena whose hosted ladder runs beside this
        // one's in every round (before and after a change, side by side).
        let before = std::env::var("WORKERS_BENCH_BEFORE").ok();
        let mut runs: Vec<(String, Hosting, String, Vec<LadderRun>)> = Vec::new();
        for (label, hosting) in [
            ("host on SQLite, 2 workers of its own", Hosting::Sqlite),
            ("host + 2 arena workers, PostgreSQL", Hosting::Postgres),
        ] {
            if let Some(before) = &before {
                runs.push((
                    format!("{label} (before)"),
                    hosting,
                    before.clone(),
                    Vec::new(),
                ));
            }
            runs.push((label.to_string(), hosting, ARENA.to_string(), Vec::new()));
        }
        println!(
            "ladder: 4 {} bots of {} ({} games a run), {rounds} interleaved rounds:",
            lineup.label, lineup.game, lineup.games
        );
        for round in 0..rounds {
            let (rate, whole, cpu) = process_tournament(&lineup, dir, round);
            println!(
                "  round {round}: tournament --jobs 2: {rate:.1} games/s (whole command {whole:.1}), {cpu:.2} ms CPU a game  [load {}]",
                load_average()
            );
            tournament_rates.push(rate);
            tournament_cpu.push(cpu);
            for (label, hosting, binary, results) in &mut runs {
                let run = ladder_run(&lineup, dir, round, *hosting, binary).await;
                println!(
                    "  round {round}: {label}: {:.1} games/s ({:.2}x), {:.2} ms CPU a game (+ PostgreSQL {:.2}); queue empty at {:.0} % of looks, {:.2} games running on average  [load {}]",
                    run.rate,
                    run.rate / rate,
                    run.cpu_ms,
                    run.postgres_cpu_ms,
                    run.empty * 100.0,
                    run.running,
                    load_average()
                );
                results.push(run);
            }
        }
        let median = |mut values: Vec<f64>| {
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        };
        let reference = median(tournament_rates.clone());
        println!(
            "  tournament --jobs 2 (play phase)          {reference:7.1} games/s, {:.2} ms CPU a game (median)",
            median(tournament_cpu.clone())
        );
        for (label, _, _, results) in &runs {
            // Each run against the tournament of its own round: neighbours share the load.
            let ratios: Vec<f64> = results
                .iter()
                .zip(&tournament_rates)
                .map(|(run, t)| run.rate / t)
                .collect();
            let cpu_ratios: Vec<f64> = results
                .iter()
                .zip(&tournament_cpu)
                .map(|(run, t)| t / (run.cpu_ms + run.postgres_cpu_ms))
                .collect();
            println!(
                "  {label:45} {:7.1} games/s: {:.2}x the tournament on wall time (median of rounds; runs {}), {:.2}x on CPU time (tournament's CPU a game / the ladder's, PostgreSQL included; bar 0.9x)",
                median(results.iter().map(|r| r.rate).collect()),
                median(ratios.clone()),
                ratios
                    .iter()
                    .map(|r| format!("{r:.2}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                median(cpu_ratios)
            );
        }
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_string()
}

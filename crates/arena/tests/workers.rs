//! `arena worker` processes on PostgreSQL, as a contest on several machines runs: workers and the
//! server killed with SIGKILL in the middle of games, a worker whose network link to the database
//! is cut and restored (its own network namespace, made here), workers that only play the
//! languages they declare. Every scheduled game is recorded exactly once and the standings are
//! those of an uninterrupted run.
//!
//! PostgreSQL: `$ARENA_TEST_POSTGRES` (default `postgres://postgres@127.0.0.1:5432/test`); each
//! test makes a database of its own there and drops it after. The network test needs root (`ip
//! netns`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::Row;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const ORGANISER: &str = "organiser-token-0123456789";
const ALICE: &str = "alice-token-0123456789ab";
/// Short, so that a lost worker's games come back quickly; heartbeats every third of it.
const LEASE: &str = "2";

fn admin_url() -> String {
    std::env::var("ARENA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

/// A database of this test's own, dropped (with its connections) when the guard goes.
struct TestDb {
    name: String,
}

impl TestDb {
    async fn new(label: &str) -> TestDb {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("arena_t_{label}_{}_{nanos}", std::process::id());
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&admin_url())
            .await
            .expect("PostgreSQL at $ARENA_TEST_POSTGRES (default 127.0.0.1:5432, database test)");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&pool)
            .await
            .expect("CREATE DATABASE");
        pool.close().await;
        TestDb { name }
    }

    /// The database's address through `host:port` (another route to the same server).
    fn url_via(&self, address: Option<&str>) -> String {
        let admin = admin_url();
        let (base, _) = admin.rsplit_once('/').expect("a database in the URL");
        let base = match address {
            Some(address) => {
                let (scheme, rest) = base.split_once("://").expect("a URL");
                let user = rest.split_once('@').map_or("", |(u, _)| u);
                format!("{scheme}://{user}@{address}")
            }
            None => base.to_string(),
        };
        format!("{base}/{}", self.name)
    }

    fn url(&self) -> String {
        self.url_via(None)
    }

    async fn pool(&self) -> sqlx::AnyPool {
        sqlx::AnyPool::connect(&self.url())
            .await
            .expect("the test database")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop may run inside the test's runtime: the cleanup gets a thread and a runtime.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                if let Ok(pool) = sqlx::AnyPool::connect(&admin_url()).await {
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&pool)
                        .await;
                    pool.close().await;
                }
            });
        })
        .join();
    }
}

/// Child processes killed and reaped however the test ends.
#[derive(Default)]
struct Processes(Vec<Child>);

impl Processes {
    fn add(&mut self, child: Child) -> usize {
        self.0.push(child);
        self.0.len() - 1
    }
    fn kill(&mut self, index: usize) {
        let child = &mut self.0[index];
        let _ = child.kill();
        let _ = child.wait();
    }
    /// Whether the process is still running.
    fn alive(&mut self, index: usize) -> bool {
        matches!(self.0[index].try_wait(), Ok(None))
    }
    /// SIGTERM, then the exit status.
    fn terminate(&mut self, index: usize) -> std::process::ExitStatus {
        let child = &mut self.0[index];
        // SAFETY: kill(2) on the pid of our own child, not yet reaped.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
        child.wait().expect("reaped")
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The first line a process prints (its address or its worker id), after `prefix`.
fn first_line(child: &mut Child, prefix: &str) -> String {
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the first line");
    line.trim()
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_string()
}

fn start_host(dir: &Path, db: &str) -> (Child, String) {
    let mut child = Command::new(ARENA)
        .args([
            "host",
            "contest.toml",
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "0",
        ])
        .args(["--lease", LEASE, "--db", db])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena host starts");
    let url = first_line(&mut child, "arena host: ");
    (child, url)
}

/// `arena worker` (prefixed by `wrap`, e.g. `nsenter --net=...`), with its own data folder (as if
/// on a machine of its own); its worker id.
fn start_worker(
    wrap: &[&str],
    db: &str,
    data: &Path,
    extra: &[&str],
    stderr: Option<&Path>,
) -> (Child, String) {
    let (program, args) = match wrap.split_first() {
        Some((program, rest)) => (program.to_string(), {
            let mut args: Vec<String> = rest.iter().map(|a| a.to_string()).collect();
            args.push(ARENA.to_string());
            args
        }),
        None => (ARENA.to_string(), Vec::new()),
    };
    let stderr = match stderr {
        Some(path) => Stdio::from(std::fs::File::create(path).expect("a log file")),
        None => Stdio::null(),
    };
    let mut child = Command::new(program)
        .args(args)
        .args([
            "worker", "--db", db, "--jobs", "1", "--lease", LEASE, "--no-pin",
        ])
        .arg("--data")
        .arg(data)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("arena worker starts");
    let id = first_line(&mut child, "arena worker: ");
    (child, id)
}

fn write_contest(dir: &Path, rounds: u32) {
    std::fs::write(
        dir.join("contest.toml"),
        format!(
            r#"
name = "several machines"
game = "spring2021"
format = "koth"
seed = 5
# Loaded machines must not turn results into timeouts: the results are compared across runs.
time_scale = 20.0

[koth]
rounds = {rounds}

[[contestants]]
name = "alice"
token = "{ALICE}"

[[organisers]]
name = "org"
token = "{ORGANISER}"

[[bots]]
name = "plan"
bot = "builtin:planner"

[[bots]]
name = "wood"
bot = "builtin:wood1"

[[bots]]
name = "rnd"
bot = "builtin:random"
"#
        ),
    )
    .expect("contest file");
}

/// Waits (at most two minutes) until `condition` holds.
async fn wait_for(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !condition().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn count(pool: &sqlx::AnyPool, sql: &str) -> i64 {
    sqlx::query(sql)
        .fetch_one(pool)
        .await
        .expect("a count")
        .try_get(0)
        .expect("an integer")
}

/// The games scheduled among house bots, then alice's upload (a Python bot, built by the host,
/// fetched from the database and built again by every worker that plays it).
async fn schedule_and_submit(dir: &Path, url: &str, pool: &sqlx::AnyPool) {
    // House games first, then alice's: the games' ids (and seeds) are the same in every run.
    wait_for("the house bots' games", async || {
        count(pool, "SELECT COUNT(*) FROM games").await >= 6
    })
    .await;
    // The starter, a little slower (its games last a second or two, so that kills land in them).
    let starter = include_str!("../../arena-spring2021/starters/bot.py");
    let slow = starter.replace(
        "    print(action)",
        "    __import__('time').sleep(0.02)\n    print(action)",
    );
    assert_ne!(
        slow, starter,
        "the starter's last line moved: update this test"
    );
    let bot = dir.join("mybot.py");
    std::fs::write(&bot, slow).expect("the bot");
    submit_ready(url, &bot);
}

/// Every game of a finished run: id → (seats, scores, state, attempts); and the results.
#[derive(Debug, PartialEq)]
struct Record {
    games: BTreeMap<i64, (String, String)>,
    results: usize,
    standings: serde_json::Value,
}

async fn record(pool: &sqlx::AnyPool, url: &str) -> Record {
    let rows = sqlx::query(
        "SELECT g.id, g.state, r.entry FROM games g LEFT JOIN results r ON r.game_id = g.id \
         ORDER BY g.id",
    )
    .fetch_all(pool)
    .await
    .expect("games");
    let mut games = BTreeMap::new();
    for row in rows {
        let id: i64 = row.try_get(0).expect("id");
        let state: String = row.try_get(1).expect("state");
        let entry: Option<String> = row.try_get(2).expect("entry");
        let outcome = entry
            .map(|e| {
                let e: serde_json::Value = serde_json::from_str(&e).expect("a journal line");
                format!("{} {} {}", e["seed"], e["bots"], e["scores"])
            })
            .unwrap_or_default();
        games.insert(id, (state, outcome));
    }
    let results = count(pool, "SELECT COUNT(*) FROM results").await as usize;
    let body = ureq::get(&format!("{url}/api/leaderboard"))
        .header("Authorization", &format!("Bearer {ORGANISER}"))
        .call()
        .expect("the leaderboard")
        .body_mut()
        .read_to_string()
        .expect("its text");
    let board: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    Record {
        games,
        results,
        standings: board["leagues"].clone(),
    }
}

async fn all_played(pool: &sqlx::AnyPool) -> bool {
    count(
        pool,
        "SELECT COUNT(*) FROM games WHERE state IN ('queued', 'running')",
    )
    .await
        == 0
        && count(pool, "SELECT COUNT(*) FROM games").await >= 12
}

/// The same contest played by three workers that nobody disturbs.
async fn uninterrupted(rounds: u32) -> Record {
    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path(), rounds);
    let db = TestDb::new("calm").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let (host, url) = start_host(dir.path(), &db.url());
    processes.add(host);
    schedule_and_submit(dir.path(), &url, &pool).await;
    for index in 0..3 {
        let (worker, _) = start_worker(
            &[],
            &db.url(),
            &dir.path().join(format!("w{index}")),
            &[],
            None,
        );
        processes.add(worker);
    }
    let started = Instant::now();
    wait_for("every game played", async || all_played(&pool).await).await;
    eprintln!(
        "uninterrupted run: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let record = record(&pool, &url).await;
    drop(processes);
    pool.close().await;
    record
}

fn assert_exactly_once(record: &Record, calm: &Record) {
    assert!(
        record.games.values().all(|(state, _)| state == "done"),
        "no game lost: {:?}",
        record.games
    );
    assert_eq!(
        record.results,
        record.games.len(),
        "one result per game, none twice"
    );
    assert_eq!(
        record.games, calm.games,
        "every game has the result of the uninterrupted run"
    );
    assert_eq!(
        record.standings, calm.standings,
        "the standings of the uninterrupted run"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_and_the_server_killed_with_sigkill_lose_and_double_no_game() {
    const ROUNDS: u32 = 4;
    let calm = uninterrupted(ROUNDS).await;
    assert!(calm.games.len() >= 48, "{:?}", calm.games.len());

    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path(), ROUNDS);
    let db = TestDb::new("kill").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let (host, url) = start_host(dir.path(), &db.url());
    let mut host = processes.add(host);
    schedule_and_submit(dir.path(), &url, &pool).await;
    // A worker that runs built-in bots only: it must never get alice's Python games.
    let (builtin_only, builtin_id) = start_worker(
        &[],
        &db.url(),
        &dir.path().join("builtin-only"),
        &["--languages", "c"],
        None,
    );
    processes.add(builtin_only);
    let mut workers = Vec::new();
    let mut ids = Vec::new();
    for index in 0..3 {
        let (worker, id) = start_worker(
            &[],
            &db.url(),
            &dir.path().join(format!("w{index}")),
            &[],
            None,
        );
        workers.push(processes.add(worker));
        ids.push(id);
    }

    // The first worker is killed with SIGKILL while it holds a game, three times, and started
    // again (a restart on the same machine takes its dead predecessor's games back at once); the
    // server too, twice. The last kill of the worker is not followed by a restart: its game comes
    // back when the lease runs out.
    let held = |id: String| {
        let pool = pool.clone();
        async move {
            let sql =
                format!("SELECT COUNT(*) FROM games WHERE state = 'running' AND worker = '{id}'");
            count(&pool, &sql).await > 0
        }
    };
    let mut interrupted = 0;
    let mut replaced = Vec::new();
    for round in 0..4 {
        let id = ids[0].clone();
        wait_for("a game held by the first worker", async || {
            held(id.clone()).await
        })
        .await;
        eprintln!(
            "kill {round}: {} games done",
            count(&pool, "SELECT COUNT(*) FROM results").await
        );
        processes.kill(workers[0]);
        interrupted += 1;
        if round < 3 {
            replaced.push(ids[0].clone());
            let (worker, id) = start_worker(&[], &db.url(), &dir.path().join("w0"), &[], None);
            workers[0] = processes.add(worker);
            ids[0] = id;
        }
        if round < 2 {
            processes.kill(host);
            let (next, _) = start_host(dir.path(), &db.url());
            host = processes.add(next);
        }
    }
    assert_eq!(interrupted, 4);
    wait_for("every game played", async || all_played(&pool).await).await;
    // The host was restarted: its address changed.
    processes.kill(host);
    let (next, url) = start_host(dir.path(), &db.url());
    processes.add(next);
    let after = record(&pool, &url).await;
    assert_exactly_once(&after, &calm);
    assert!(
        count(&pool, "SELECT COUNT(*) FROM games WHERE attempts >= 2").await >= 1,
        "some game was interrupted by a kill and played again"
    );

    // A killed worker whose successor found its process gone is `lost`, not `stopped`: the
    // organiser tells a crash from a drain.
    for id in &replaced {
        let state: String = sqlx::query("SELECT state FROM workers WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .expect("its row")
            .try_get(0)
            .expect("state");
        assert_eq!(state, "lost", "worker {id}");
    }

    // Capabilities: the built-in-only worker played, but none of alice's games.
    let alice_by_it = count(
        &pool,
        &format!(
            "SELECT COUNT(*) FROM games g JOIN game_seats gs ON gs.game_id = g.id \
             JOIN submissions s ON s.id = gs.submission_id \
             WHERE s.kind = 'upload' AND g.worker = '{builtin_id}'"
        ),
    )
    .await;
    assert_eq!(
        alice_by_it, 0,
        "a worker without Python played a Python bot"
    );
    let by_it = count(
        &pool,
        &format!("SELECT COUNT(*) FROM games WHERE worker = '{builtin_id}'"),
    )
    .await;
    assert!(by_it > 0, "the built-in-only worker played built-in games");

    // SIGTERM drains: the worker finishes what it holds and exits 0, marked stopped.
    let status = processes.terminate(workers[1]);
    assert!(status.success(), "a drained worker exits 0: {status}");
    let state: String = sqlx::query("SELECT state FROM workers WHERE id = $1")
        .bind(&ids[1])
        .fetch_one(&pool)
        .await
        .expect("its row")
        .try_get(0)
        .expect("state");
    assert_eq!(state, "stopped");
    drop(processes);
    pool.close().await;
}

/// A network namespace joined to this one by a veth pair, removed (with its link) when dropped.
struct Netns {
    name: String,
    host_link: String,
}

impl Netns {
    fn new() -> Netns {
        let id = std::process::id() % 10_000;
        let name = format!("arena_t{id}");
        let host_link = format!("avh{id}");
        let ns_link = format!("avn{id}");
        let netns = Netns {
            name: name.clone(),
            host_link: host_link.clone(),
        };
        let subnet = format!("10.200.{}", id % 250);
        for args in [
            vec!["netns", "add", &name],
            vec![
                "link", "add", &host_link, "type", "veth", "peer", "name", &ns_link,
            ],
            vec!["link", "set", &ns_link, "netns", &name],
            vec!["addr", "add", &format!("{subnet}.1/24"), "dev", &host_link],
            vec!["link", "set", &host_link, "up"],
            vec![
                "-n",
                &name,
                "addr",
                "add",
                &format!("{subnet}.2/24"),
                "dev",
                &ns_link,
            ],
            vec!["-n", &name, "link", "set", &ns_link, "up"],
            vec!["-n", &name, "link", "set", "lo", "up"],
        ] {
            ip(&args);
        }
        netns
    }

    fn host_address(&self) -> String {
        let id = std::process::id() % 10_000;
        format!("10.200.{}.1", id % 250)
    }

    fn link(&self, up: bool) {
        ip(&[
            "link",
            "set",
            &self.host_link,
            if up { "up" } else { "down" },
        ]);
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["link", "del", &self.host_link])
            .stderr(Stdio::null())
            .status();
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .stderr(Stdio::null())
            .status();
    }
}

fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .expect("`ip` (iproute2) runs");
    assert!(
        out.status.success(),
        "ip {}: {} (this test needs root: network namespaces)",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Forwards TCP from `listen` to `target`: PostgreSQL here listens on 127.0.0.1 only, and the
/// namespace reaches the host through the veth address.
async fn forward(listen: &str, target: String) -> tokio::task::JoinHandle<()> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .expect("the forwarder listens on the veth address");
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let target = target.clone();
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_cut_off_from_the_database_loses_its_games_to_the_others_and_doubles_none() {
    const ROUNDS: u32 = 2;
    let calm = uninterrupted(ROUNDS).await;

    let netns = Netns::new();
    let admin = admin_url();
    let target = admin
        .split_once('@')
        .and_then(|(_, rest)| rest.split_once('/'))
        .map(|(address, _)| address.to_string())
        .expect("HOST:PORT in $ARENA_TEST_POSTGRES");
    let via = format!("{}:15432", netns.host_address());
    let forwarder = forward(&via, target).await;

    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path(), ROUNDS);
    let db = TestDb::new("net").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let (host, url) = start_host(dir.path(), &db.url());
    processes.add(host);
    schedule_and_submit(dir.path(), &url, &pool).await;
    let log = dir.path().join("cut.log");
    // nsenter rather than `ip netns exec`, which mounts a /sys of its own and hides the cgroups
    // the sandbox needs.
    let joined = format!("--net=/run/netns/{}", netns.name);
    let (cut, cut_id) = start_worker(
        &["nsenter", &joined],
        &db.url_via(Some(&via)),
        &dir.path().join("cut"),
        &[],
        Some(&log),
    );
    processes.add(cut);
    // A game of alice's bot (a second or two): the house bots' games are played by the hundred
    // in milliseconds and may be done before the link is cut.
    let held = format!(
        "SELECT g.id FROM games g WHERE g.state = 'running' AND g.worker = '{cut_id}' AND EXISTS \
         (SELECT 1 FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
         WHERE gs.game_id = g.id AND s.kind <> 'builtin') ORDER BY g.id LIMIT 1"
    );
    let mut lost: i64 = 0;
    wait_for(
        "a game of alice's held by the worker in the namespace",
        async || {
            let row = sqlx::query(&held)
                .fetch_optional(&pool)
                .await
                .expect("a query");
            match row {
                Some(row) => {
                    lost = row.try_get(0).expect("id");
                    true
                }
                None => false,
            }
        },
    )
    .await;
    netns.link(false);
    // Another worker, on the host's side, takes the game once its lease runs out.
    let (other, _) = start_worker(&[], &db.url(), &dir.path().join("other"), &[], None);
    processes.add(other);
    wait_for("the cut worker's game played by another", async || {
        let sql = format!("SELECT COUNT(*) FROM games WHERE id = {lost} AND state = 'done'");
        count(&pool, &sql).await == 1
    })
    .await;
    wait_for("the cut worker to notice", async || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("(retrying)")
    })
    .await;
    netns.link(true);
    let restored = count(
        &pool,
        "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
    )
    .await;
    let beat = format!("SELECT heartbeat FROM workers WHERE id = '{cut_id}'");
    wait_for("the cut worker's heartbeats again", async || {
        count(&pool, &beat).await > restored
    })
    .await;
    wait_for("every game played", async || all_played(&pool).await).await;
    let after = record(&pool, &url).await;
    assert_exactly_once(&after, &calm);
    let attempts: i64 = count(
        &pool,
        &format!("SELECT attempts FROM games WHERE id = {lost}"),
    )
    .await;
    assert!(attempts >= 2, "the cut worker's game was played again");
    drop(processes);
    forwarder.abort();
    pool.close().await;
    drop(netns);
}

/// A worker builds an upload itself (fetched from the database) and its build steps run in the
/// sandbox, as the host's do: a build that writes outside its folder leaves nothing behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_builds_uploads_in_the_sandbox() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_one_upload_contest(dir.path());
    let marker = dir.path().join("written-by-a-build");
    let folder = dir.path().join("alice");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(
        folder.join("bot.py"),
        include_str!("../../arena-spring2021/starters/bot.py"),
    )
    .expect("bot");
    std::fs::write(
        folder.join("arena.toml"),
        format!(
            "build = \"echo pwned > {} ; echo pwned > $HOME/arena-worker-build-escape ; true\"\n\
             run = \"python3 -u bot.py\"\n",
            marker.display()
        ),
    )
    .expect("manifest");
    let db = TestDb::new("build").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let (host, url) = start_host(dir.path(), &db.url());
    processes.add(host);
    submit_ready(&url, &folder);
    let data = dir.path().join("worker");
    let (worker, _) = start_worker(&[], &db.url(), &data, &[], None);
    processes.add(worker);
    wait_for("alice's games played by the worker", async || {
        uploads_games_done(&pool).await == 2
    })
    .await;
    assert_no_faults(&pool, "alice's bot built by the worker played every turn").await;
    assert!(
        data.join("builds").is_dir(),
        "the worker built the upload in its own folder"
    );
    assert!(!marker.exists(), "a build step wrote outside its sandbox");
    let home = std::env::var("HOME").unwrap_or_default();
    assert!(
        !Path::new(&home).join("arena-worker-build-escape").exists(),
        "a build step wrote in the home folder"
    );
    drop(processes);
    pool.close().await;
}

/// A worker that cannot prepare an upload (here its folder of sources is a file, as a full or
/// read-only disk would make it) gives the game back to the queue with the reason instead of
/// failing it, and leaves the upload's games to the others: another worker plays them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_cannot_prepare_an_upload_leaves_its_games_to_another() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path(), 1);
    let db = TestDb::new("prep").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let (host, url) = start_host(dir.path(), &db.url());
    processes.add(host);
    schedule_and_submit(dir.path(), &url, &pool).await;
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(&broken).expect("a folder");
    std::fs::write(broken.join("sources"), "not a folder").expect("a file");
    let (worker, broken_id) = start_worker(&[], &db.url(), &broken, &[], None);
    let broken_index = processes.add(worker);
    let released = format!(
        "SELECT COUNT(*) FROM games WHERE state = 'queued' \
         AND error LIKE '%worker {broken_id} could not prepare submission%'"
    );
    wait_for(
        "a game given back by the worker that cannot prepare",
        async || count(&pool, &released).await > 0,
    )
    .await;
    // Killed at once: it would claim the game again once its lease of leaving it has passed.
    processes.kill(broken_index);
    let (worker, able_id) = start_worker(&[], &db.url(), &dir.path().join("able"), &[], None);
    processes.add(worker);
    wait_for("every game played", async || all_played(&pool).await).await;
    assert_eq!(
        count(&pool, "SELECT COUNT(*) FROM games WHERE state <> 'done'").await,
        0,
        "no game failed for the worker's sake"
    );
    let uploads_elsewhere = format!(
        "SELECT COUNT(*) FROM games g WHERE g.worker <> '{able_id}' AND EXISTS \
         (SELECT 1 FROM game_seats gs JOIN submissions s ON s.id = gs.submission_id \
         WHERE gs.game_id = g.id AND s.kind <> 'builtin')"
    );
    assert_eq!(
        count(&pool, &uploads_elsewhere).await,
        0,
        "alice's games were all played by the worker that could prepare her upload"
    );
    let retried =
        "SELECT COUNT(*) FROM games WHERE attempts >= 2 AND error LIKE '%could not prepare%'";
    assert!(
        count(&pool, retried).await > 0,
        "the given-back game was claimed again"
    );
    drop(processes);
    pool.close().await;
}

/// A KotH of one round: alice (who uploads) against the built-in random bot.
fn write_one_upload_contest(dir: &Path) {
    std::fs::write(
        dir.join("contest.toml"),
        format!(
            "name = \"one upload\"\ngame = \"spring2021\"\nformat = \"koth\"\ntime_scale = 20.0\n\
             [koth]\nrounds = 1\n[[contestants]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n\
             [[bots]]\nname = \"rnd\"\nbot = \"builtin:random\"\n"
        ),
    )
    .expect("contest file");
}

/// `arena submit --wait` of alice's `path` (a file or a folder) to the host at `url`: built and
/// ready.
fn submit_ready(url: &str, path: &Path) {
    let out = Command::new(ARENA)
        .args(["submit", "--server", url, "--token", ALICE, "--wait"])
        .arg(path)
        .output()
        .expect("arena submit runs");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains(": ready"),
        "arena submit: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Finished games with an uploaded bot in them.
async fn uploads_games_done(pool: &sqlx::AnyPool) -> i64 {
    count(
        pool,
        "SELECT COUNT(*) FROM games g JOIN game_seats gs ON gs.game_id = g.id \
         JOIN submissions s ON s.id = gs.submission_id \
         WHERE s.kind = 'upload' AND g.state = 'done'",
    )
    .await
}

/// Every recorded game of two seats went without a fault on either side.
async fn assert_no_faults(pool: &sqlx::AnyPool, why: &str) {
    let entries: Vec<String> = sqlx::query("SELECT entry FROM results")
        .fetch_all(pool)
        .await
        .expect("results")
        .iter()
        .map(|row| row.try_get::<String, _>(0).expect("entry"))
        .collect();
    for entry in &entries {
        let entry: serde_json::Value = serde_json::from_str(entry).expect("JSON");
        assert_eq!(
            entry["faults"],
            serde_json::json!([[], []]),
            "{why}: {entry}"
        );
    }
}

/// Processes whose command line holds `marker`.
fn processes_marked(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if let Ok(command) = std::fs::read(entry.path().join("cmdline")) {
            let command = String::from_utf8_lossy(&command).replace('\0', " ");
            if command.contains(marker) {
                found.push(format!("{name}: {command}"));
            }
        }
    }
    found
}

/// A hostile upload played by a worker (and checked by the host when it is uploaded): it tries
/// the database and a listening port of this machine, looks for the worker's process and folders,
/// writes wherever it can name, kills its parent and the worker if it sees it, and leaves a child
/// behind in a session of its own. (Not `kill(-1)`: were the sandbox ever to fail open, that would
/// take down every process of the machine, the database and the test among them.) It plays on if
/// it breaches nothing (and stops with status 3 if it does): its games must end without a fault of
/// its own, the port must see no connection, nothing may be written outside, the worker must live
/// on and record every game, and no process of its may outlive the games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_upload_on_a_worker_reaches_neither_the_database_nor_its_worker() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_one_upload_contest(dir.path());
    let canary = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    canary.set_nonblocking(true).expect("non-blocking");
    let canary_port = canary.local_addr().expect("its address").port();
    let data = dir.path().join("worker");
    std::fs::create_dir_all(&data).expect("the worker's folder");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let marker = format!("arena-hostile-{}-{nanos}", std::process::id());
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let written = [
        Path::new(&home).join(&marker),
        Path::new("/tmp").join(&marker),
        data.join(&marker),
        dir.path().join(&marker),
    ];
    // postgres://USER@HOST:PORT/DB
    let database_port = admin_url()
        .rsplit_once('@')
        .and_then(|(_, rest)| rest.split('/').next()?.rsplit_once(':'))
        .and_then(|(_, port)| port.parse::<u16>().ok())
        .unwrap_or(5432);
    let prologue = format!(
        r#"import os, signal, socket
breaches = []
for port in ({database_port}, {canary_port}):
    probe = socket.socket()
    probe.settimeout(1)
    try:
        probe.connect(("127.0.0.1", port))
        breaches.append("connected to port %d" % port)
    except OSError:
        pass
    finally:
        probe.close()
for folder in ({data:?}, {dir:?}):
    if os.path.exists(folder):
        breaches.append("sees " + folder)
for pid in os.listdir("/proc"):
    try:
        command = open("/proc/%s/cmdline" % pid, "rb").read()
    except OSError:
        continue
    if b"arena" in command and b"worker" in command:
        breaches.append("sees the worker, process " + pid)
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
for path in {written:?}:
    try:
        with open(path, "w") as out:
            out.write("written by a bot")
    except OSError:
        pass
try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "{marker}"])
    os._exit(0)
os.wait()
if breaches:
    sys.stderr.write("breached: %s\n" % breaches)
    sys.exit(3)
"#,
        data = data.display().to_string(),
        dir = dir.path().display().to_string(),
        written = written
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>(),
    );
    let starter = include_str!("../../arena-spring2021/starters/bot.py");
    let hostile = starter.replacen("import sys\n", &format!("import sys\n{prologue}"), 1);
    assert_ne!(
        hostile, starter,
        "the starter's import moved: update this test"
    );
    let bot = dir.path().join("hostile.py");
    std::fs::write(&bot, hostile).expect("the bot");

    let db = TestDb::new("hostile").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let (host, url) = start_host(dir.path(), &db.url());
    let host = processes.add(host);
    // The host checks the upload's first turn in its own sandbox.
    submit_ready(&url, &bot);
    let (worker, _) = start_worker(&[], &db.url(), &data, &[], None);
    let worker = processes.add(worker);
    wait_for(
        "the hostile upload's games played by the worker",
        async || {
            assert!(
                processes.alive(worker),
                "the worker was killed while it played the upload's games"
            );
            uploads_games_done(&pool).await == 2
        },
    )
    .await;
    assert!(processes.alive(worker), "the worker lives on");
    assert!(processes.alive(host), "the host lives on");
    assert_eq!(
        count(&pool, "SELECT COUNT(*) FROM games WHERE state <> 'done'").await,
        0,
        "every game recorded"
    );
    assert_eq!(
        count(&pool, "SELECT COUNT(*) FROM results").await,
        count(&pool, "SELECT COUNT(*) FROM games").await,
        "one result a game"
    );
    assert_no_faults(
        &pool,
        "the upload breached nothing, so it played every turn",
    )
    .await;
    match canary.accept() {
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("a bot reached a port of this machine: {other:?}"),
    }
    for path in &written {
        assert!(!path.exists(), "a bot wrote {}", path.display());
    }
    // The sandboxes go with their games; a moment for the last one's teardown.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_marked(&marker).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        processes_marked(&marker),
        Vec::<String>::new(),
        "a bot's process outlived its games"
    );
    drop(processes);
    pool.close().await;
}

/// The processes below `pid` (its children, theirs, ...), each with its start time (clock ticks
/// after boot, `/proc/PID/stat` field 22), so that a pid used again later is not taken for one of
/// them.
fn descendants(pid: i32) -> Vec<(i32, u64)> {
    let mut parents: BTreeMap<i32, Vec<(i32, u64)>> = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Some((parent, start)) = parent_and_start(child) {
            parents.entry(parent).or_default().push((child, start));
        }
    }
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(parent) = next.pop() {
        for &(child, start) in parents.get(&parent).map_or(&[][..], Vec::as_slice) {
            found.push((child, start));
            next.push(child);
        }
    }
    found
}

/// `(parent pid, start time)` of a process, while it exists.
fn parent_and_start(pid: i32) -> Option<(i32, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's closing parenthesis: state, ppid, ... starttime is the 20th field on.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some((fields.get(1)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

/// Those of `processes` still alive (the same pid with the same start time), with their commands.
fn still_alive(processes: &[(i32, u64)]) -> Vec<String> {
    processes
        .iter()
        .filter(|&&(pid, start)| parent_and_start(pid).is_some_and(|(_, now)| now == start))
        .map(|&(pid, _)| {
            let command = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            // What it waits for, to tell why it is left.
            let read = |what: &str| {
                std::fs::read_to_string(format!("/proc/{pid}/{what}")).unwrap_or_default()
            };
            let state = read("stat")
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next().map(String::from))
                .unwrap_or_default();
            format!(
                "{pid} (state {state}, parent {:?}, waiting in {}, syscall {}): {}",
                parent_and_start(pid).map(|(parent, _)| parent),
                read("wchan"),
                read("syscall").trim(),
                String::from_utf8_lossy(&command).replace('\0', " ")
            )
        })
        .collect()
}

/// Entries of `tmp` that a process with id `pid` made (`arena-game-PID-N`, `arena-sandbox-PID-N`,
/// `arena-calls-TAG-PID-N`).
fn folders_of(tmp: &Path, pid: u32) -> Vec<String> {
    let mark = format!("-{pid}-");
    std::fs::read_dir(tmp)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("arena-") && name.contains(&mark))
        .collect()
}

/// `arena host` or `arena worker` with its own temporary folder (`TMPDIR`), its first line read.
fn start_with_tmp(args: &[&str], dir: &Path, tmp: &Path, prefix: &str) -> Child {
    let mut child = Command::new(ARENA)
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts");
    first_line(&mut child, prefix);
    child
}

/// Waits (at most two minutes) until a process named `name` (`bwrap`: a sandbox; `python3`: alice's
/// bot) runs below `pid`, and returns everything below it.
fn with_below(pid: u32, name: &str) -> Vec<(i32, u64)> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let below = descendants(pid as i32);
        let sandboxed = below.iter().any(|&(child, _)| {
            std::fs::read_to_string(format!("/proc/{child}/comm")).is_ok_and(|c| c.trim() == name)
        });
        if sandboxed {
            return below;
        }
        assert!(Instant::now() < deadline, "no sandbox started below {pid}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (at most 10 s) until none of `processes` is alive; what is left otherwise.
fn left_after_kill(processes: &[(i32, u64)]) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = still_alive(processes);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `kill -9` of a worker in the middle of a sandboxed game, and of the server while it plays one,
/// leaves no process of theirs (sandboxes, bots); the worker or server started after them removes
/// the folders they left in the temporary folder, and nothing of a live process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_or_server_killed_with_sigkill_leaves_no_sandbox_and_its_successor_no_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path(), 4);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let db = TestDb::new("orphans").await;
    let pool = db.pool().await;
    let mut processes = Processes::default();
    let url = db.url();
    let host_args = |workers: &'static str| {
        let mut args = vec!["host", "contest.toml", "--listen", "127.0.0.1:0"];
        args.extend(["--workers", workers, "--lease", LEASE, "--db"]);
        args.push(url.as_str());
        args
    };
    let mut host = Command::new(ARENA)
        .args(host_args("0"))
        .current_dir(dir.path())
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena host starts");
    let address = first_line(&mut host, "arena host: ");
    let host_index = processes.add(host);
    schedule_and_submit(dir.path(), &address, &pool).await;
    // A live arena's folder (this one's own) is never taken for a dead one's.
    let live = tmp.join(format!("arena-game-{}-0", std::process::id()));
    std::fs::create_dir(&live).expect("a live process's folder");

    let data = dir.path().join("w0");
    let worker_args = |data: &Path| -> Vec<String> {
        [
            "worker", "--db", &url, "--jobs", "1", "--lease", LEASE, "--no-pin", "--data",
        ]
        .map(String::from)
        .into_iter()
        .chain([data.to_string_lossy().into_owned()])
        .collect()
    };
    let args = worker_args(&data);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Killed as its first sandbox is set up, then while a bot plays in one.
    let worker = start_with_tmp(&args, dir.path(), &tmp, "arena worker: ");
    let mut worker_pid = worker.id();
    let mut worker_index = processes.add(worker);
    for moment in ["bwrap", "python3"] {
        let below = with_below(worker_pid, moment);
        processes.kill(worker_index);
        let left = left_after_kill(&below);
        // A sandbox killed as bubblewrap clones its child may leave that child waiting for its
        // monitor (bubblewrap's own race, see `sweep_stuck_bwraps`): nothing else may be left,
        // and the successor's start-up removes it.
        let stuck_bwraps = left.iter().all(|process| process.contains(": bwrap "));
        assert!(
            left.is_empty() || moment == "bwrap" && stuck_bwraps,
            "the worker killed at {moment} left {left:#?}"
        );
        let stale = folders_of(&tmp, worker_pid);
        eprintln!("the worker killed at {moment} left the folders {stale:?} and {left:?}");
        let worker = start_with_tmp(&args, dir.path(), &tmp, "arena worker: ");
        assert_eq!(folders_of(&tmp, worker_pid), Vec::<String>::new());
        let left = left_after_kill(&below);
        assert!(left.is_empty(), "the successor left {left:#?}");
        worker_pid = worker.id();
        worker_index = processes.add(worker);
    }
    assert!(live.is_dir(), "a live process's folder was removed");

    // The server, playing games itself.
    processes.kill(host_index);
    let host = start_with_tmp(&host_args("1"), dir.path(), &tmp, "arena host: ");
    let host_pid = host.id();
    let host_index = processes.add(host);
    let below = with_below(host_pid, "python3");
    processes.kill(host_index);
    let left = left_after_kill(&below);
    assert!(left.is_empty(), "the killed server left {left:#?}");
    eprintln!(
        "the killed server left the folders {:?}",
        folders_of(&tmp, host_pid)
    );
    let host = start_with_tmp(&host_args("0"), dir.path(), &tmp, "arena host: ");
    processes.add(host);
    assert_eq!(folders_of(&tmp, host_pid), Vec::<String>::new());
    assert!(live.is_dir(), "a live process's folder was removed");
    drop(processes);
    pool.close().await;
}

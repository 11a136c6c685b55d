//! `arena host` through what a server meets: its disk full (the database on a small tmpfs), its
//! database locked by another connection, and `kill -9` followed by an immediate restart while the
//! dead process is not reaped yet. Uploads are answered with a clear error or acknowledged and
//! kept, the server plays on by itself once the disk has room or the lock is let go, the dead
//! host's games are queued again at once, and every game is counted once.
//!
//! The full-disk test mounts its tmpfs in a mount namespace of the server's own (`unshare -m`:
//! root, as on this machine kind and in CI), reached from here through `/proc/PID/root`; the mount
//! goes with the server.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arena_host::store::Store;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const ORGANISER: &str = "organiser-token-0123456789";
const ALICE: &str = "alice-token-0123456789ab";

/// A ladder of built-in bots that plays on for as long as a test needs, and alice, who uploads.
fn write_contest(dir: &Path) {
    std::fs::write(
        dir.join("contest.toml"),
        format!(
            r#"
name = "durability test"
game = "spring2021"
format = "ladder"
seed = 5
workers = 1

[ladder]
placement_games = 3
max_games = 1000000

[[leagues]]
name = "bronze"

[[contestants]]
name = "alice"
token = "{ALICE}"

[[organisers]]
name = "org"
token = "{ORGANISER}"

[[bots]]
name = "rnd"
bot = "builtin:random"

[[bots]]
name = "plan"
bot = "builtin:planner"

[[bots]]
name = "rnd2"
bot = "builtin:random"
"#
        ),
    )
    .expect("contest file");
}

/// Alice's upload: the Python starter, with `padding` bytes of comment.
fn write_bot(dir: &Path, padding: usize) -> PathBuf {
    let starter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../arena-spring2021/starters/bot.py"
    );
    let mut source = std::fs::read_to_string(starter).expect("the starter bot");
    source.push_str(&format!("# {}\n", "x".repeat(padding)));
    let bot = dir.join("mybot.py");
    std::fs::write(&bot, source).expect("the bot");
    bot
}

/// A server of this test's, stopped however the test ends (a failed assertion included):
/// SIGTERM (it finishes its games and removes its sandboxes and their disks), SIGKILL if it has
/// not stopped within a minute; reaped.
struct Server(Child);

impl Server {
    fn id(&self) -> u32 {
        self.0.id()
    }

    fn running(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child, not yet reaped (a zombie at most).
        unsafe {
            libc::kill(self.0.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a server: it and its address (its first line).
fn serve(mut command: Command) -> (Server, String) {
    let mut child = command.spawn().expect("arena host starts");
    let url = address(&mut child);
    (Server(child), url)
}

/// The server's address from its first line.
fn address(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the address line");
    line.trim()
        .strip_prefix("arena host: ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_string()
}

/// `arena host` in `dir` with its own temporary folder, and `args` after the contest file.
fn host(dir: &Path, args: &[&str]) -> Command {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let mut command = Command::new(ARENA);
    command
        .args(["host", "contest.toml", "--listen", "127.0.0.1:0"])
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// An upload's outcome: `Ok(id)` once acknowledged, `Err(what the client said)` otherwise.
fn upload(url: &str, file: &Path) -> Result<i64, String> {
    let out = Command::new(ARENA)
        .args(["submit", "--server", url, "--token", ALICE])
        .arg(file)
        .output()
        .expect("arena submit runs");
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        let id = said
            .trim()
            .rsplit_once("as submission ")
            .and_then(|(_, id)| id.parse().ok())
            .unwrap_or_else(|| panic!("no submission id in {said:?}"));
        Ok(id)
    } else {
        Err(format!("{said}{}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// Waits (at most two minutes) until `condition` holds.
async fn wait_for(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !condition().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `(results, games done, done games without a result, results of games not done)`, read in one
/// statement (one snapshot of a server that plays on).
const TALLY: &str = "SELECT (SELECT COUNT(*) FROM results), \
        (SELECT COUNT(*) FROM games WHERE state = 'done'), \
        (SELECT COUNT(*) FROM games g WHERE g.state = 'done' AND NOT EXISTS \
            (SELECT 1 FROM results r WHERE r.game_id = g.id)), \
        (SELECT COUNT(*) FROM results r JOIN games g ON g.id = r.game_id WHERE g.state <> 'done')";

/// A server's SQLite database, read by this test: a file it reaches, or one in the mount namespace
/// of process `pid` (SQLite resolves `/proc/PID/root`, a link, to this test's `/`: the query runs
/// in that namespace, `nsenter` and Python's sqlite3).
enum Database {
    Here(sqlx::AnyPool),
    Inside { pid: u32, path: PathBuf },
}

impl Database {
    /// A connection of this test's own (reads only, but for the lock test's writer).
    async fn open(db: &Path) -> Database {
        sqlx::any::install_default_drivers();
        let pool = sqlx::pool::PoolOptions::<sqlx::Any>::new()
            .max_connections(1)
            .connect(&format!("sqlite://{}", db.display()))
            .await
            .expect("the server's database");
        Database::Here(pool)
    }

    /// The rows of `sql`, integers only.
    async fn rows(&self, sql: &str) -> Vec<Vec<i64>> {
        use sqlx::Row;
        match self {
            Database::Here(pool) => sqlx::query(sql)
                .fetch_all(pool)
                .await
                .expect("a query")
                .iter()
                .map(|row| (0..row.len()).map(|i| row.get::<i64, _>(i)).collect())
                .collect(),
            Database::Inside { pid, path } => {
                let script = "import sqlite3, sys\n\
                    db = sqlite3.connect(sys.argv[1], timeout=60)\n\
                    for row in db.execute(sys.argv[2]):\n    print(*row)\n";
                let out = Command::new("nsenter")
                    .args(["-t", &pid.to_string(), "-m", "--", "python3", "-c", script])
                    .arg(path)
                    .arg(sql)
                    .output()
                    .expect("nsenter and python3 run");
                assert!(
                    out.status.success(),
                    "{sql}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .map(|line| {
                        line.split_whitespace()
                            .map(|n| n.parse().expect("an integer"))
                            .collect()
                    })
                    .collect()
            }
        }
    }

    async fn tally(&self) -> (i64, i64, i64, i64) {
        let rows = self.rows(TALLY).await;
        let row = &rows[0];
        (row[0], row[1], row[2], row[3])
    }

    async fn results(&self) -> i64 {
        self.tally().await.0
    }

    /// Every game counted once: one result per game done, none for another.
    async fn assert_counted_once(&self) -> i64 {
        let (results, done, unrecorded, stray) = self.tally().await;
        assert_eq!(results, done, "one result per game done");
        assert_eq!((unrecorded, stray), (0, 0), "games and results agree");
        results
    }

    async fn submission_ids(&self) -> Vec<i64> {
        self.rows("SELECT id FROM submissions ORDER BY id")
            .await
            .into_iter()
            .map(|row| row[0])
            .collect()
    }

    async fn close(self) {
        if let Database::Here(pool) = self {
            pool.close().await;
        }
    }
}

/// Fills the filesystem of `dir` with zeros until it is full; the file.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).expect("the filler");
    for size in [64 * 1024, 512] {
        let block = vec![0u8; size];
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                Err(e) => panic!("filling the disk: {e}"),
            }
        }
    }
    path
}

/// The server's database on an 8 MiB tmpfs that fills up: uploads get "the server's disk is
/// full" (507), never an acknowledgement for something then lost; once the space is freed the
/// server plays on and takes uploads without a restart; every game is counted once and every
/// acknowledged upload is in the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_gives_clear_errors_and_the_server_plays_on_once_space_is_freed() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path());
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).expect("the mount point");
    let command = host(
        dir.path(),
        &[
            "--db",
            &format!("sqlite://{}/contest.db", disk.display()),
            "--data",
            &format!("{}/data", disk.display()),
        ],
    );
    // The server in a mount namespace of its own, its data folder a small tmpfs there (`exec`:
    // the server is the child this test holds).
    let program = command.get_program().to_owned();
    let args: Vec<_> = command.get_args().map(|a| a.to_owned()).collect();
    let mut wrapped = Command::new("unshare");
    wrapped
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg("mount -t tmpfs -o size=8m tmpfs \"$0\" && exec \"$@\"")
        .arg(&disk)
        .arg(program)
        .args(args)
        .current_dir(dir.path())
        .env("TMPDIR", dir.path().join("tmp"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let (mut server, url) = serve(wrapped);
    // The tmpfs as this test sees it: through the server's root.
    let inside = PathBuf::from(format!("/proc/{}/root{}", server.id(), disk.display()));
    let pool = Database::Inside {
        pid: server.id(),
        path: disk.join("contest.db"),
    };
    let bot = write_bot(dir.path(), 64 * 1024);
    let mut acknowledged = vec![upload(&url, &bot).expect("an upload")];
    wait_for("games played", async || pool.results().await > 20).await;

    let filler = fill(&inside);
    let mut refused = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while refused.is_empty() {
        assert!(
            Instant::now() < deadline,
            "no upload was refused on a full disk"
        );
        match upload(&url, &bot) {
            Ok(id) => acknowledged.push(id),
            Err(said) => refused.push(said),
        }
    }
    assert!(
        refused[0].contains("507") && refused[0].contains("disk is full"),
        "a full disk says so: {}",
        refused[0]
    );
    // The pages are still served meanwhile.
    let page = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            &format!("{url}/api/contest"),
        ])
        .output()
        .expect("curl");
    assert_eq!(String::from_utf8_lossy(&page.stdout), "200");

    std::fs::remove_file(&filler).expect("space freed");
    let before = pool.results().await;
    wait_for("games played after the space came back", async || {
        pool.results().await > before + 20
    })
    .await;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match upload(&url, &bot) {
            Ok(id) => {
                acknowledged.push(id);
                break;
            }
            Err(said) => assert!(Instant::now() < deadline, "uploads still refused: {said}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(server.running(), "the server still runs");
    pool.assert_counted_once().await;
    let stored = pool.submission_ids().await;
    for id in &acknowledged {
        assert!(
            stored.contains(id),
            "upload {id} was acknowledged, then lost"
        );
    }
    pool.close().await;
    drop(server);
}

/// Another connection holds SQLite's write lock: an upload meanwhile gets "the database is busy"
/// (503) rather than hanging; once the lock is let go the server plays on by itself, takes
/// uploads, and every game is counted once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_gives_clear_errors_and_the_server_plays_on_once_it_is_let_go() {
    use sqlx::Executor;
    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path());
    let (server, url) = serve(host(dir.path(), &[]));
    let db = dir.path().join("contest.db");
    let pool = Database::open(&db).await;
    let bot = write_bot(dir.path(), 0);
    let mut acknowledged = vec![upload(&url, &bot).expect("an upload")];
    wait_for("games played", async || pool.results().await > 20).await;

    let Database::Here(locker) = Database::open(&db).await else {
        unreachable!("a file of this test's")
    };
    let mut held = locker.acquire().await.expect("a connection");
    held.execute("BEGIN IMMEDIATE")
        .await
        .expect("the write lock");
    // Held until the upload is answered: the server's wait for the lock runs out first.
    match upload(&url, &bot) {
        Ok(id) => panic!("upload {id} acknowledged under another connection's write lock"),
        Err(said) => assert!(
            said.contains("503") && said.contains("database is busy"),
            "a locked database says so: {said}"
        ),
    }
    held.execute("ROLLBACK").await.expect("the lock let go");
    drop(held);
    locker.close().await;

    let before = pool.results().await;
    wait_for("games played after the lock was let go", async || {
        pool.results().await > before + 20
    })
    .await;
    acknowledged.push(upload(&url, &bot).expect("an upload after the lock"));
    pool.assert_counted_once().await;
    let stored = pool.submission_ids().await;
    for id in &acknowledged {
        assert!(
            stored.contains(id),
            "upload {id} was acknowledged, then lost"
        );
    }
    pool.close().await;
    drop(server);
}

/// `(pid, worker id, state)` of the server's worker rows.
async fn workers(store: &Store) -> Vec<(i64, String, String)> {
    store
        .workers()
        .await
        .expect("workers")
        .into_iter()
        .map(|w| (w.pid, w.id, w.state))
        .collect()
}

/// The scratch folders of process `pid` in `tmp`: its games' (`arena-game-PID-N`) and its
/// sandboxes' (`arena-sandbox-PID-N`, where an upload's bot plays).
fn scratch_folders(tmp: &Path, pid: u32) -> Vec<String> {
    let mark = format!("-{pid}-");
    std::fs::read_dir(tmp)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            (name.starts_with("arena-game-") || name.starts_with("arena-sandbox-"))
                && name.contains(&mark)
        })
        .collect()
}

/// `kill -9` of the server while it plays alice's bot, and a restart at once, before the dead
/// process is reaped (a zombie, still in /proc): the restarted server queues the dead one's games
/// again at once (not after their lease), marks its worker lost, removes its scratch folders; in
/// the end every game is counted once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_and_an_immediate_restart_reclaim_the_dead_servers_games_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_contest(dir.path());
    let tmp = dir.path().join("tmp");
    // A lease far longer than the test: only the restart's own look can give the games back.
    let args = ["--lease", "3600"];
    let (mut server, url) = serve(host(dir.path(), &args));
    let db = dir.path().join("contest.db");
    let store = Store::open(&format!("sqlite://{}", db.display()), None)
        .await
        .expect("the database");
    let pool = Database::open(&db).await;
    upload(&url, &write_bot(dir.path(), 0)).expect("an upload");

    // Until a kill has left both a running game and a scratch folder to reclaim (the kill may
    // come just as a game ends).
    let (mut reclaimed, mut swept) = (0, 0);
    let mut tries = 0;
    while reclaimed == 0 || swept == 0 {
        tries += 1;
        assert!(tries <= 10, "no kill found a game of alice's running");
        let pid = server.id();
        // Alice's bot is playing: its sandbox folder is there and games are running.
        wait_for("a game of alice's bot running", async || {
            !scratch_folders(&tmp, pid).is_empty()
                && store.count_games("running").await.expect("count") > 0
        })
        .await;
        // SAFETY: kill(2) on our own child, not reaped: it stays a zombie until `wait` below.
        unsafe {
            libc::kill(pid as i32, libc::SIGKILL);
        }
        let zombie = Instant::now() + Duration::from_secs(60);
        while !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, s)| s.starts_with('Z'))
        }) {
            assert!(
                Instant::now() < zombie,
                "the killed server never became a zombie"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let dead: Vec<String> = workers(&store)
            .await
            .into_iter()
            .filter(|(worker_pid, _, state)| *worker_pid == i64::from(pid) && state == "running")
            .map(|(_, id, _)| id)
            .collect();
        assert_eq!(dead.len(), 1, "the killed server's worker row");
        // The worker id is the server's own (machine, pid and start), no quote in it.
        let running_of_dead = format!(
            "SELECT COUNT(*) FROM games WHERE state = 'running' AND worker = '{}'",
            dead[0]
        );
        let held = pool.rows(&running_of_dead).await[0][0];
        let left = scratch_folders(&tmp, pid);

        let (next, _) = serve(host(dir.path(), &args));
        // The first line comes after the start-up's look for dead predecessors: its outcome is in
        // the database now, without waiting for anything.
        let still = pool.rows(&running_of_dead).await[0][0];
        assert_eq!(still, 0, "the dead server's games wait for their lease");
        let state = workers(&store)
            .await
            .into_iter()
            .find(|(_, id, _)| *id == dead[0])
            .map(|(_, _, state)| state);
        assert_eq!(state.as_deref(), Some("lost"), "the dead server's worker");
        if !left.is_empty() {
            assert_eq!(
                scratch_folders(&tmp, pid),
                Vec::<String>::new(),
                "the dead server's folders {left:?} are left"
            );
        }
        // The killed server is reaped (dropped) only now.
        server = next;
        reclaimed += held;
        swept += left.len();
    }
    // The last run plays on: games are counted once through the kills.
    let before = pool.results().await;
    wait_for("games played after the restart", async || {
        pool.results().await > before + 5
    })
    .await;
    drop(server);
    pool.assert_counted_once().await;
    pool.close().await;
    store.close().await;
}

//! The store on a full disk and under a lock held by another connection: every write either
//! fails with a typed error (`HostError::DiskFull`, `HostError::Unavailable`) or is committed, and
//! the store works again by itself once the disk has room or the lock is let go.
//!
//! The full disk is a 2 MiB tmpfs mounted in a mount namespace of the test's own: the test runs
//! itself again under `unshare -m` (root, as on this machine kind and in CI), so the mount goes
//! with that process however it ends.

use std::path::Path;
use std::time::{Duration, Instant};

use arena_host::HostError;
use arena_host::store::{Role, Store};
use sqlx::{Executor, Row};

/// Set in the copy of the test that runs in its own mount namespace.
const IN_NAMESPACE: &str = "ARENA_TEST_DURABILITY_NAMESPACE";

/// Runs the test named `name` of this binary again in a mount namespace of its own; true in that
/// copy (which then does the work), false in the caller (which has checked the copy passed).
fn in_own_mount_namespace(name: &str) -> bool {
    if std::env::var_os(IN_NAMESPACE).is_some() {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let output = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private"])
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env(IN_NAMESPACE, "1")
        .output()
        .expect("unshare (util-linux) runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "the test in its own mount namespace (needs root) failed:\n{said}"
    );
    assert!(
        said.contains("1 passed"),
        "the test did not run in its namespace:\n{said}"
    );
    false
}

/// Fills the filesystem of `dir` with a file of zeros until it is full; the file.
fn fill(dir: &Path) -> std::path::PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).expect("the filler");
    let block = vec![0u8; 64 * 1024];
    loop {
        match file.write(&block) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
            Err(e) => panic!("filling the disk: {e}"),
        }
    }
    // Whatever a partial block left.
    while let Ok(n) = file.write(&block[..512]) {
        if n == 0 {
            break;
        }
    }
    path
}

/// Waits (at most two minutes) until `write` succeeds; the errors met meanwhile.
async fn until_ok<T, F: std::future::Future<Output = Result<T, HostError>>>(
    mut write: impl FnMut() -> F,
) -> (T, Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut errors = Vec::new();
    loop {
        match write().await {
            Ok(value) => return (value, errors),
            Err(error) => {
                assert!(
                    Instant::now() < deadline,
                    "the store did not recover: {error} (after {errors:?})"
                );
                errors.push(error.to_string());
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

/// The submissions a fresh connection finds committed in the file.
async fn committed_submissions(db: &Path) -> Vec<i64> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&format!("sqlite://{}", db.display()))
        .await
        .expect("the database opens");
    let rows = sqlx::query("SELECT id FROM submissions ORDER BY id")
        .fetch_all(&pool)
        .await
        .expect("submissions");
    pool.close().await;
    rows.iter().map(|row| row.get::<i64, _>(0)).collect()
}

/// On a full disk uploads fail with `DiskFull` (or are committed): none is acknowledged and
/// then lost, and once space is freed the store writes again at once — no connection was left
/// holding SQLite's write lock or inside a transaction nobody commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_fails_writes_clearly_and_the_store_recovers_when_space_is_freed() {
    if !in_own_mount_namespace(
        "a_full_disk_fails_writes_clearly_and_the_store_recovers_when_space_is_freed",
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let status = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(dir.path())
        .status()
        .expect("mount runs");
    assert!(status.success(), "mount a tmpfs (needs root)");
    let db = dir.path().join("contest.db");
    let store = Store::open(&format!("sqlite://{}", db.display()), None)
        .await
        .expect("SQLite opens");
    let alice = store
        .ensure_user("alice", "hash-a", Role::Contestant)
        .await
        .expect("a user");
    // Uploads large enough that a commit needs pages the full disk does not have.
    let source = vec![b'#'; 96 * 1024];
    let upload = || store.add_submission(alice, "upload", "bot.py", Some(&source), "sha", 0);
    let mut acknowledged = vec![upload().await.expect("an upload")];

    let filler = fill(dir.path());
    let mut full = Vec::new();
    for _ in 0..24 {
        match upload().await {
            Ok(id) => acknowledged.push(id),
            Err(HostError::DiskFull(message)) => full.push(message),
            Err(other) => panic!("a full disk must say so, not: {other}"),
        }
        // Reads go on meanwhile.
        store.submissions(Some(alice)).await.expect("reads work");
    }
    assert!(!full.is_empty(), "the disk never filled up");
    assert!(
        full[0].contains("disk is full") && full[0].contains("nothing was stored"),
        "{}",
        full[0]
    );

    std::fs::remove_file(&filler).expect("space freed");
    // Every connection of the pool writes again (more writes than connections).
    for _ in 0..8 {
        let (id, errors) = until_ok(upload).await;
        assert!(
            errors.is_empty(),
            "errors after space came back: {errors:?}"
        );
        acknowledged.push(id);
    }
    let committed = committed_submissions(&db).await;
    for id in &acknowledged {
        assert!(
            committed.contains(id),
            "submission {id} was acknowledged but is not in the file ({committed:?})"
        );
    }
    store.close().await;
    let _ = std::process::Command::new("umount")
        .arg(dir.path())
        .status();
}

/// Another connection holds SQLite's write lock: writes fail with `Unavailable` ("busy") after
/// the store's wait, reads go on, and writes succeed again once the lock is let go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_fails_writes_clearly_and_recovers_when_the_lock_is_let_go() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("contest.db");
    let store = Store::open(&format!("sqlite://{}", db.display()), None)
        .await
        .expect("SQLite opens");
    let alice = store
        .ensure_user("alice", "hash-a", Role::Contestant)
        .await
        .expect("a user");
    let upload = || store.add_submission(alice, "upload", "bot.py", Some(b"print(1)"), "sha", 0);
    let mut acknowledged = vec![upload().await.expect("an upload")];

    let locker = sqlx::pool::PoolOptions::<sqlx::Any>::new()
        .max_connections(1)
        .connect(&format!("sqlite://{}", db.display()))
        .await
        .expect("a second connection");
    let mut held = locker.acquire().await.expect("its connection");
    held.execute("BEGIN IMMEDIATE")
        .await
        .expect("the write lock");
    match upload().await {
        Err(HostError::Unavailable(message)) => {
            assert!(message.contains("busy"), "{message}")
        }
        Ok(id) => panic!("submission {id} was written under another connection's lock"),
        Err(other) => panic!("a lock must say the database is busy, not: {other}"),
    }
    store.submissions(Some(alice)).await.expect("reads work");
    held.execute("ROLLBACK").await.expect("the lock let go");
    drop(held);
    locker.close().await;

    for _ in 0..8 {
        let (id, errors) = until_ok(upload).await;
        assert!(
            errors.is_empty(),
            "errors after the lock was let go: {errors:?}"
        );
        acknowledged.push(id);
    }
    let committed = committed_submissions(&db).await;
    assert_eq!(committed, acknowledged);
    store.close().await;
}

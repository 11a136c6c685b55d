//! The storage layer against both databases it supports: SQLite (a file) and the real PostgreSQL
//! of this machine kind (127.0.0.1:5432, database `test`, user `postgres`), each test in a fresh
//! schema of its own. The same assertions run on both.

use arena_host::ladder::{self, Rating};
use arena_host::store::{
    Claimed, Finished, GameFilter, GameListing, NewGame, Outcome, Promotion, Role, Store,
    WorkerInfo,
};

/// `$ARENA_TEST_POSTGRES`, or this machine kind's (and CI's) PostgreSQL.
fn postgres() -> String {
    std::env::var("ARENA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

/// Drops a test's schema (the tests' tables do not pile up in the shared database).
async fn drop_schema(schema: &str) {
    use sqlx::Executor;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&postgres())
        .await
        .expect("PostgreSQL");
    pool.execute(format!("DROP SCHEMA IF EXISTS {schema} CASCADE").as_str())
        .await
        .expect("drop the test's schema");
    pool.close().await;
}

/// Closes a test's store and drops its PostgreSQL schema.
async fn close(store: Store, schema: Option<String>) {
    store.close().await;
    if let Some(schema) = schema {
        drop_schema(&schema).await;
    }
}

/// A fresh store of each kind: (label, store, what keeps it alive, the PostgreSQL schema).
async fn stores() -> Vec<(
    &'static str,
    Store,
    Option<tempfile::TempDir>,
    Option<String>,
)> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let sqlite = Store::open(&sqlite_url(dir.path()), None)
        .await
        .expect("SQLite opens");
    let schema = fresh_schema();
    let postgres = Store::open(&postgres(), Some(&schema)).await.unwrap_or_else(|e| {
        panic!("PostgreSQL at {} must be running for these tests (it is on this machine kind and in CI; elsewhere set ARENA_TEST_POSTGRES): {e}", postgres())
    });
    vec![
        ("sqlite", sqlite, Some(dir), None),
        ("postgres", postgres, None, Some(schema)),
    ]
}

/// The address of the SQLite store `stores` makes in `dir`.
fn sqlite_url(dir: &std::path::Path) -> String {
    format!("sqlite://{}", dir.join("contest.db").display())
}

/// The address of a store of `stores`, from what keeps it alive (its folder, for SQLite).
fn url_of(keep: Option<&tempfile::TempDir>) -> String {
    keep.map_or_else(postgres, |dir| sqlite_url(dir.path()))
}

/// A pool of one connection of its own to `url`, in `schema` (PostgreSQL) when given: for what
/// the store's API does not show.
async fn one_connection(url: &str, schema: Option<&str>) -> sqlx::AnyPool {
    use sqlx::Executor;
    let pool = sqlx::pool::PoolOptions::<sqlx::Any>::new()
        .max_connections(1)
        .connect(url)
        .await
        .unwrap();
    if let Some(schema) = schema {
        pool.execute(format!("SET search_path TO {schema}").as_str())
            .await
            .unwrap();
    }
    pool
}

fn fresh_schema() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "t_store_{}_{}_{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

async fn two_players(store: &Store) -> (i64, i64, i64, i64) {
    let alice = store
        .ensure_user("alice", "hash-a", Role::Contestant)
        .await
        .unwrap();
    let bob = store
        .ensure_user("bob", "hash-b", Role::Contestant)
        .await
        .unwrap();
    let a = store
        .add_submission(alice, "builtin", "random", None, "x", 0)
        .await
        .unwrap();
    let b = store
        .add_submission(bob, "builtin", "random", None, "y", 0)
        .await
        .unwrap();
    store.activate(alice, a).await.unwrap();
    store.activate(bob, b).await.unwrap();
    (alice, bob, a, b)
}

/// Carol, a third contestant with a built-in active: (user, submission).
async fn carol(store: &Store) -> (i64, i64) {
    let user = store
        .ensure_user("carol", "hash-c", Role::Contestant)
        .await
        .unwrap();
    let submission = store
        .add_submission(user, "builtin", "random", None, "c", 0)
        .await
        .unwrap();
    store.activate(user, submission).await.unwrap();
    (user, submission)
}

/// The first league's boss, a house user with the built-in wood2 active: (user, submission).
async fn wood2_boss(store: &Store) -> (i64, i64) {
    let user = store
        .ensure_user("wood2-boss", "house:boss", Role::House)
        .await
        .unwrap();
    let boss = store
        .add_submission(user, "builtin", "wood2", None, "b", 0)
        .await
        .unwrap();
    store.activate(user, boss).await.unwrap();
    (user, boss)
}

fn finished(index: i64, ranks: &[u32]) -> Finished {
    Finished {
        entry: format!("{{\"index\":{index}}}"),
        ranks: ranks.to_vec(),
        replay: Some(vec![1, 2, 3, 0, 255]),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_completes_once_and_a_requeued_claim_cannot_complete() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let game = NewGame {
            kind: "ladder".into(),
            league: 0,
            variant: None,
            seats: vec![a, b],
            round: 0,
        };
        let g1 = store.schedule(&game, 7).await.unwrap();
        let g2 = store.schedule(&game, 7).await.unwrap();
        assert_eq!((g1, g2), (1, 2), "{label}: ids from the counter");

        let first = store.claim("w1").await.unwrap().expect("a game");
        assert_eq!(first.id, g1, "{label}: oldest first");
        assert_eq!(first.attempts, 1);
        assert_eq!(
            first.seed,
            arena_core::seed::derive_seed(7, 1),
            "{label}: seed kept exactly"
        );
        assert_eq!(
            first.seats.iter().map(|s| s.id).collect::<Vec<_>>(),
            vec![a, b]
        );
        let promotion = Promotion::default();
        assert!(
            store
                .complete(&first, &finished(1, &[1, 2]), &promotion)
                .await
                .unwrap()
        );
        assert!(
            !store
                .complete(&first, &finished(1, &[1, 2]), &promotion)
                .await
                .unwrap(),
            "{label}: a second completion of the same claim is refused"
        );

        // A crash while game 2 runs: the restart requeues it; the old claim can no longer complete.
        let stale = store.claim("w1").await.unwrap().expect("game 2");
        assert_eq!(store.requeue_running().await.unwrap(), 1, "{label}");
        assert!(
            !store
                .complete(&stale, &finished(2, &[2, 1]), &promotion)
                .await
                .unwrap()
        );
        let again = store.claim("w2").await.unwrap().expect("game 2 again");
        assert_eq!((again.id, again.attempts), (g2, 2), "{label}");
        assert!(
            store
                .complete(&again, &finished(2, &[2, 1]), &promotion)
                .await
                .unwrap()
        );
        assert!(
            store.claim("w2").await.unwrap().is_none(),
            "{label}: queue empty"
        );

        let results = store.results().await.unwrap();
        assert_eq!(
            results.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            vec![(g1, 1), (g2, 2)],
            "{label}: one result per game, in completion order"
        );
        assert_eq!(
            store.replay(g1).await.unwrap(),
            Some(vec![1, 2, 3, 0, 255]),
            "{label}: bytes kept"
        );
        // Ratings: each won once and lost once, in that order.
        let r1 = ladder::rate(&[Rating::default(), Rating::default()], &[1, 2]);
        let r2 = ladder::rate(&r1, &[2, 1]);
        let sa = store.submission(a).await.unwrap().unwrap();
        let sb = store.submission(b).await.unwrap().unwrap();
        assert_eq!((sa.games, sb.games), (2, 2), "{label}");
        assert!(
            (sa.mu - r2[0].mu).abs() < 1e-12 && (sb.mu - r2[1].mu).abs() < 1e-12,
            "{label}"
        );
        close(store, schema).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submission_is_promoted_exactly_when_it_has_its_games_and_is_rated_above_the_boss() {
    for (label, store, _keep, schema) in stores().await {
        let (boss_user, boss) = wood2_boss(&store).await;
        let carol = store
            .ensure_user("carol", "hash-c", Role::Contestant)
            .await
            .unwrap();
        let c = store
            .add_submission(carol, "builtin", "random", None, "c", 0)
            .await
            .unwrap();
        store.activate(carol, c).await.unwrap();
        let promotion = Promotion {
            bosses: vec![Some(boss_user), None],
            promotion_games: 3,
            leagues: 2,
        };
        // Carol beats the boss every game: after game 1 she is above the boss but has 1 game; the
        // rule promotes her after game 3 exactly, and not before.
        let mut ratings = [Rating::default(), Rating::default()];
        for game in 1..=3 {
            let id = store
                .schedule(
                    &NewGame {
                        kind: "ladder".into(),
                        league: 0,
                        variant: Some("wood2".into()),
                        seats: vec![c, boss],
                        round: 0,
                    },
                    1,
                )
                .await
                .unwrap();
            let claimed: Claimed = store.claim("w").await.unwrap().expect("the game");
            assert_eq!(claimed.id, id);
            assert!(
                store
                    .complete(&claimed, &finished(id, &[1, 2]), &promotion)
                    .await
                    .unwrap()
            );
            ratings = ladder::rate(&ratings, &[1, 2]).try_into().unwrap();
            let now = store.submission(c).await.unwrap().unwrap();
            let expect_promoted = ladder::promoted(game, ratings[0].mu, ratings[1].mu, 3);
            assert_eq!(expect_promoted, game == 3, "{label}: the rule itself");
            assert_eq!(
                now.league,
                i64::from(game == 3),
                "{label}: league after game {game}"
            );
        }
        let promoted = store.submission(c).await.unwrap().unwrap();
        assert_eq!(
            (promoted.games, promoted.mu),
            (0, Rating::default().mu),
            "{label}: fresh rating in the new league"
        );
        assert_eq!(
            store.promotions().await.unwrap(),
            vec![(c, 0, 3)],
            "{label}"
        );
        // The boss is never promoted, however it is rated.
        assert_eq!(
            store.submission(boss).await.unwrap().unwrap().league,
            0,
            "{label}"
        );
        close(store, schema).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_runs_no_migration_twice_and_keeps_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("c.db").display());
    let store = Store::open(&url, None).await.unwrap();
    store.ensure_user("x", "h", Role::Organiser).await.unwrap();
    store.close().await;
    let store = Store::open(&url, None).await.unwrap();
    assert!(store.user_by_token("h").await.unwrap().is_some());
    let schema = fresh_schema();
    let pg = Store::open(&postgres(), Some(&schema)).await.unwrap();
    pg.ensure_user("x", "h", Role::Organiser).await.unwrap();
    pg.close().await;
    let pg = Store::open(&postgres(), Some(&schema)).await.unwrap();
    let user = pg.user_by_token("h").await.unwrap().expect("kept");
    assert_eq!(user.role, Role::Organiser);
    // House users never sign in, whatever their stored hash.
    pg.ensure_user("house", "hh", Role::House).await.unwrap();
    assert!(pg.user_by_token("hh").await.unwrap().is_none());
    pg.close().await;
    drop_schema(&schema).await;
}

/// A king-of-the-hill game of round 0 in league 0 between `seats`.
fn koth(seats: Vec<i64>) -> NewGame {
    NewGame {
        kind: "koth".into(),
        league: 0,
        variant: None,
        seats,
        round: 0,
    }
}

/// A Python upload of `user`'s, with its language set as an upload's is.
async fn python_upload(store: &Store, user: i64) -> i64 {
    let id = store
        .add_submission(user, "upload", "bot.py", Some(b"print(1)"), "z", 0)
        .await
        .unwrap();
    store.set_language(id, "python3").await.unwrap();
    id
}

/// Claims take exactly what they ask, only games the worker can play, and leases: a lease that
/// runs out puts the game back; a batch completes in one transaction, each game checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_are_leases_for_capable_workers_and_batches_take_what_they_ask() {
    for (label, store, _keep, schema) in stores().await {
        let (alice, _, a, b) = two_players(&store).await;
        let py = python_upload(&store, alice).await;
        let game = koth;
        for _ in 0..5 {
            store.schedule(&game(vec![a, b]), 7).await.unwrap();
        }
        let python_game = store.schedule(&game(vec![a, py]), 7).await.unwrap();
        for _ in 0..5 {
            store.schedule(&game(vec![b, a]), 7).await.unwrap();
        }

        let one = store
            .claim_batch("w1", Some(",builtin,"), 60_000, 1)
            .await
            .unwrap();
        assert_eq!(one.len(), 1, "{label}: a claim of one takes one");
        let some = store
            .claim_batch("w1", Some(",builtin,"), 60_000, 3)
            .await
            .unwrap();
        assert_eq!(
            some.iter().map(|g| g.id).collect::<Vec<_>>(),
            vec![2, 3, 4],
            "{label}: a batch takes what it asks, oldest first"
        );
        let rest = store
            .claim_batch("w1", Some(",builtin,"), 60_000, 100)
            .await
            .unwrap();
        assert!(
            rest.iter().all(|g| g.id != python_game) && rest.len() == 6,
            "{label}: a worker without Python gets no Python game: {:?}",
            rest.iter().map(|g| g.id).collect::<Vec<_>>()
        );
        assert_eq!(rest[0].seats.len(), 2, "{label}: seats come with a batch");
        // The Python game's id lies inside the batch's run of ids: its seats stay out.
        assert!(
            rest.iter()
                .all(|g| g.seats.len() == 2 && g.seats.iter().all(|seat| seat.id != py)),
            "{label}: a batch's games carry their own seats only"
        );
        assert_eq!(store.count_games("queued").await.unwrap(), 1);

        // A lease that runs out: the Python game, claimed for 1 ms, goes back to the queue;
        // the first claim can no longer complete, the next one does.
        let python = store
            .claim_batch("w2", Some(",builtin,python3,"), 1, 1)
            .await
            .unwrap()
            .pop()
            .expect("the Python game");
        assert_eq!(python.id, python_game, "{label}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert_eq!(store.requeue_expired().await.unwrap(), 1, "{label}");
        let again = store
            .claim_for("w3", None, 60_000)
            .await
            .unwrap()
            .expect("claimed again");
        let promotion = Promotion::default();
        assert_eq!(
            store
                .complete_many(
                    &[
                        (&python, &finished(6, &[1, 2])),
                        (&again, &finished(6, &[1, 2])),
                        (&one[0], &finished(1, &[1, 2]))
                    ],
                    &promotion
                )
                .await
                .unwrap(),
            vec![false, true, true],
            "{label}: the expired claim is refused, the others recorded"
        );
        // Heartbeats renew the leases of the games named, only those.
        assert_eq!(
            store
                .heartbeat("w1", 60_000, &[some[0].id, rest[0].id, python_game])
                .await
                .unwrap(),
            2,
            "{label}"
        );
        if let Some(schema) = schema {
            store.close().await;
            drop_schema(&schema).await;
        }
    }
}

/// A batch larger than one statement's chunk, with rated games among the unrated ones: each game
/// is recorded once, in the order given (completion numbers follow it), the rated ones rate; a
/// claim listed twice or held by another worker is refused, as one game at a time would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_batch_completes_in_order_and_rates_its_rated_games() {
    const GAMES: usize = 1100;
    const RATED: [usize; 2] = [3, 1050];
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        for index in 0..GAMES {
            let kind = if RATED.contains(&index) {
                "ladder"
            } else {
                "koth"
            };
            let game = NewGame {
                kind: kind.into(),
                league: 0,
                variant: None,
                seats: vec![a, b],
                round: 0,
            };
            store.schedule(&game, 7).await.unwrap();
        }
        let claimed = store.claim_batch("w1", None, 60_000, 5000).await.unwrap();
        assert_eq!(claimed.len(), GAMES, "{label}");
        // Completed in an order of our own: odd ids first, then even ones.
        let mut order: Vec<&Claimed> = claimed.iter().filter(|g| g.id % 2 == 1).collect();
        order.extend(claimed.iter().filter(|g| g.id % 2 == 0));
        let results: Vec<Finished> = order.iter().map(|g| finished(g.id, &[1, 2])).collect();
        let mut batch: Vec<(&Claimed, &Finished)> = order.iter().copied().zip(&results).collect();
        let mut stranger = order[10].clone();
        stranger.worker = "w9".into();
        let twice = batch[20];
        batch.insert(30, (&stranger, &results[10]));
        batch.insert(40, twice);
        let done = store
            .complete_many(&batch, &Promotion::default())
            .await
            .unwrap();
        let refused: Vec<usize> = (0..done.len()).filter(|i| !done[*i]).collect();
        assert_eq!(
            refused,
            vec![30, 40],
            "{label}: another worker's claim and a repeat are refused"
        );
        let stored = store.results().await.unwrap();
        let expected: Vec<(i64, i64, String)> = order
            .iter()
            .enumerate()
            .map(|(at, g)| (g.id, at as i64 + 1, format!("{{\"index\":{}}}", g.id)))
            .collect();
        assert_eq!(stored, expected, "{label}: once each, in the order given");
        assert_eq!(store.count_games("done").await.unwrap(), GAMES as i64);
        let players = store.players().await.unwrap();
        assert!(
            players.iter().all(|p| p.games == RATED.len() as i64),
            "{label}: only the ladder games rate: {players:?}"
        );
        assert!(players[0].mu > players[1].mu, "{label}: the winner gains");
        if let Some(schema) = schema {
            store.close().await;
            drop_schema(&schema).await;
        }
    }
}

/// A game its worker could not prepare goes back to the queue with the reason, keeps its count of
/// claims, and is failed at the last allowed claim; a claim that excludes one of its submissions
/// never gets it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_that_could_not_be_prepared_is_given_back_then_failed() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let id = store.schedule(&koth(vec![a, b]), 7).await.unwrap();
        for attempt in 1..=2 {
            let claimed = store
                .claim_for("w1", None, 60_000)
                .await
                .unwrap()
                .expect("it");
            assert_eq!((claimed.id, claimed.attempts), (id, attempt), "{label}");
            assert!(
                store.release(&claimed, "cannot unpack", 3).await.unwrap(),
                "{label}"
            );
            assert!(
                !store.release(&claimed, "cannot unpack", 3).await.unwrap(),
                "{label}: a claim is given back once"
            );
            assert_eq!(store.count_games("queued").await.unwrap(), 1, "{label}");
            let skipped = store
                .claim_batch_excluding("w2", None, 60_000, 10, &[b])
                .await
                .unwrap();
            assert!(skipped.is_empty(), "{label}: its submission is excluded");
        }
        let last = store
            .claim_for("w1", None, 60_000)
            .await
            .unwrap()
            .expect("it");
        assert_eq!(last.attempts, 3, "{label}");
        assert!(store.release(&last, "cannot unpack", 3).await.unwrap());
        assert_eq!(store.count_games("failed").await.unwrap(), 1, "{label}");
        let games = store.games(None, 10).await.unwrap();
        let error = games[0].error.clone().unwrap_or_default();
        assert!(
            error.contains("cannot unpack") && error.contains("3 claims"),
            "{label}: {error}"
        );
        if let Some(schema) = schema {
            store.close().await;
            drop_schema(&schema).await;
        }
    }
}

/// A contest database made before migrations 5 (lighter games: partial indexes, results rebuilt
/// without their foreign key) and 6 (what a game needs, written when it is scheduled) keeps its
/// games and results through them, on both databases, still refuses a second result for a game,
/// and gives its queued games (which have no `needs`) only to workers that can play them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_before_the_lighter_games_migration_keeps_its_results() {
    use sqlx::Executor;
    sqlx::any::install_default_drivers();
    // The migrations as they were before 5, from the project's own files.
    let old_migrations = tempfile::tempdir().unwrap();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.as_str() < "0005" {
            std::fs::copy(&path, old_migrations.path().join(&name)).unwrap();
        }
    }
    let old = sqlx::migrate::Migrator::new(old_migrations.path())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite://{}", dir.path().join("old.db").display());
    let schema = fresh_schema();
    for (url, schema) in [(sqlite, None), (postgres(), Some(schema.as_str()))] {
        let connect = if schema.is_some() {
            url.clone()
        } else {
            format!("{url}?mode=rwc")
        };
        let pool = one_connection(&connect, schema).await;
        if let Some(schema) = schema {
            pool.execute(format!("CREATE SCHEMA {schema}").as_str())
                .await
                .unwrap();
        }
        old.run(&pool).await.unwrap();
        for statement in [
            "INSERT INTO users (id, name, token_hash, role, created_at) VALUES (1, 'a', 'h', 'contestant', 0)",
            "INSERT INTO submissions (id, user_id, kind, source_name, source_sha256, state, build_log, \
             active, league, mu, sigma, games, created_at) \
             VALUES (1, 1, 'builtin', 'random', '', 'ready', '', 1, 0, 25.0, 8.3, 1, 0)",
            "INSERT INTO games (id, kind, league, seed, state, attempts, created_at, finished_at) \
             VALUES (1, 'ladder', 0, '7', 'done', 1, 0, 1)",
            "INSERT INTO games (id, kind, league, seed, state, attempts, created_at) \
             VALUES (2, 'ladder', 0, '8', 'queued', 0, 0)",
            "INSERT INTO game_seats (game_id, seat, submission_id) VALUES (1, 0, 1)",
            // The submission's language is migration 4's default, 'folder'.
            "INSERT INTO game_seats (game_id, seat, submission_id) VALUES (2, 0, 1)",
            "INSERT INTO results (game_id, completion, entry) VALUES (1, 1, 'the journal line')",
        ] {
            pool.execute(statement).await.unwrap();
        }
        pool.close().await;
        let store = Store::open(&url, schema).await.unwrap();
        assert_eq!(
            store.results().await.unwrap(),
            vec![(1, 1, "the journal line".to_string())]
        );
        assert_eq!(store.count_games("queued").await.unwrap(), 1);
        let cannot = store.claim_for("w", Some(",builtin,"), 30_000).await;
        assert!(
            cannot.unwrap().is_none(),
            "a folder game went to a worker without folders"
        );
        let can = store.claim_for("w", Some(",builtin,folder,"), 30_000).await;
        assert_eq!(can.unwrap().map(|game| game.id), Some(2));
        store.close().await;
        let pool = one_connection(&connect, schema).await;
        let again = pool
            .execute("INSERT INTO results (game_id, completion, entry) VALUES (1, 2, 'twice')")
            .await;
        assert!(again.is_err(), "a second result for game 1 was accepted");
        // Migration 5 ran: the queue's partial index is there.
        let index = if schema.is_some() {
            "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'games_queue' \
             AND schemaname = current_schema()"
        } else {
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'games_queue'"
        };
        let found: i64 =
            sqlx::Row::try_get(&sqlx::query(index).fetch_one(&pool).await.unwrap(), 0).unwrap();
        assert_eq!(found, 1, "no games_queue index");
        pool.close().await;
    }
    drop_schema(&schema).await;
}

/// A game's needs are written when it is scheduled; a submission whose language is set again
/// afterwards has its queued games checked by the language it has now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_check_the_language_a_submission_has_now() {
    for (label, store, _keep, schema) in stores().await {
        let (alice, _, a, _) = two_players(&store).await;
        let upload = python_upload(&store, alice).await;
        let id = store.schedule(&koth(vec![a, upload]), 7).await.unwrap();
        store.set_language(upload, "cpp").await.unwrap();
        let python = store
            .claim_batch("w1", Some(",builtin,python3,"), 60_000, 10)
            .await
            .unwrap();
        assert!(
            python.is_empty(),
            "{label}: the game went to a Python worker"
        );
        let cpp = store
            .claim_batch("w2", Some(",builtin,cpp,"), 60_000, 10)
            .await
            .unwrap();
        assert_eq!(
            cpp.iter().map(|g| g.id).collect::<Vec<_>>(),
            vec![id],
            "{label}"
        );
        close(store, schema).await;
    }
}

/// A round records what each game needs of a worker: ',' and each seat's language followed by
/// ',', in seat order, for games across statement chunks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_records_what_each_game_needs() {
    for (label, store, keep, schema) in stores().await {
        let (alice, _, a, b) = two_players(&store).await;
        let upload = python_upload(&store, alice).await;
        let round: Vec<NewGame> = (0..1001)
            .map(|i| match i % 3 {
                0 => koth(vec![a, b]),
                1 => koth(vec![upload, a]),
                _ => koth(vec![b, upload]),
            })
            .collect();
        let ids = store.schedule_all(&round, 3).await.unwrap();
        store.close().await;
        let url = url_of(keep.as_ref());
        let pool = one_connection(&url, schema.as_deref()).await;
        let rows = sqlx::query("SELECT id, needs FROM games ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
        let written: Vec<(i64, Option<String>)> = rows
            .iter()
            .map(|row| {
                (
                    sqlx::Row::try_get(row, 0).unwrap(),
                    sqlx::Row::try_get(row, 1).unwrap(),
                )
            })
            .collect();
        let expected: Vec<(i64, Option<String>)> = ids
            .iter()
            .enumerate()
            .map(|(index, id)| {
                let needs = match index % 3 {
                    0 => ",builtin,builtin,",
                    1 => ",python3,builtin,",
                    _ => ",builtin,python3,",
                };
                (*id, Some(needs.to_string()))
            })
            .collect();
        assert_eq!(written, expected, "{label}");
        if let Some(schema) = &schema {
            // A round this large refreshes PostgreSQL's statistics of the queue (claims planned
            // on a table sampled when it was small took seconds each).
            let sampled: f32 = sqlx::Row::try_get(
                &sqlx::query(&format!(
                    "SELECT c.reltuples FROM pg_class c JOIN pg_namespace n \
                     ON n.oid = c.relnamespace WHERE n.nspname = '{schema}' AND c.relname = 'games'"
                ))
                .fetch_one(&pool)
                .await
                .unwrap(),
                0,
            )
            .unwrap();
            assert!(
                sampled >= 1001.0,
                "{label}: games sampled as {sampled} rows"
            );
        }
        pool.close().await;
        if let Some(schema) = schema {
            drop_schema(&schema).await;
        }
    }
}

/// Scheduling many games at once gives what scheduling them one by one gives: consecutive ids,
/// each game's seed derived from its id, its seats in order; across statement chunks too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduling_many_games_at_once_gives_what_one_by_one_gives() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        for _ in 0..3 {
            store.schedule(&koth(vec![a, b]), 11).await.unwrap();
        }
        let many: Vec<NewGame> = (0..1203)
            .map(|i| {
                if i % 2 == 0 {
                    koth(vec![a, b])
                } else {
                    koth(vec![b, a])
                }
            })
            .collect();
        let ids = store.schedule_all(&many, 11).await.unwrap();
        assert_eq!(ids, (4..=1206).collect::<Vec<i64>>(), "{label}");
        let mut claimed = store
            .claim_batch("w", Some(",builtin,"), 60_000, 5000)
            .await
            .unwrap();
        claimed.sort_by_key(|game| game.id);
        assert_eq!(
            claimed.len(),
            1206,
            "{label}: every game queued and playable"
        );
        for game in &claimed {
            assert_eq!(
                game.seed,
                arena_core::seed::derive_seed(11, game.id as u64),
                "{label}: game {}",
                game.id
            );
            let seats: Vec<i64> = game.seats.iter().map(|seat| seat.id).collect();
            let expected = if game.id <= 3 || (game.id - 4) % 2 == 0 {
                vec![a, b]
            } else {
                vec![b, a]
            };
            assert_eq!(seats, expected, "{label}: game {}", game.id);
        }
        close(store, schema).await;
    }
}

/// A worker `id` of `jobs` games at once whose heartbeat lasts `lease_ms`.
fn worker_info(id: &str, jobs: i64, lease_ms: i64) -> WorkerInfo {
    WorkerInfo {
        id: id.into(),
        machine: "test".into(),
        pid: 1,
        languages: ",builtin,".into(),
        cores: 2,
        jobs,
        lease_ms,
    }
}

/// At the end of a round every live job is offered its share of what is queued, so that one
/// worker does not take the whole tail while the others wait; a deep queue gives the size asked;
/// a stopped worker, or one whose heartbeat ran out, counts for nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tail_of_the_queue_is_shared_among_the_live_jobs() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let round: Vec<NewGame> = (0..100).map(|_| koth(vec![a, b])).collect();
        store.schedule_all(&round, 3).await.unwrap();
        // No worker registered yet: the claimer alone.
        assert_eq!(store.fair_share(4096).await.unwrap(), 100, "{label}");
        store
            .register_worker(&worker_info("w1", 2, 60_000))
            .await
            .unwrap();
        store
            .register_worker(&worker_info("w2", 1, 60_000))
            .await
            .unwrap();
        store
            .register_worker(&worker_info("gone", 5, 1))
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        // Three live jobs: 100 games, 34 each (rounded up).
        assert_eq!(store.fair_share(4096).await.unwrap(), 34, "{label}");
        assert_eq!(store.fair_share(40).await.unwrap(), 34, "{label}");
        assert_eq!(
            store.fair_share(30).await.unwrap(),
            30,
            "{label}: never more than asked"
        );
        assert_eq!(
            store.fair_share(10).await.unwrap(),
            10,
            "{label}: a queue four claims deep is not cut"
        );
        store.set_worker_state("w2", "stopped").await.unwrap();
        assert_eq!(store.fair_share(4096).await.unwrap(), 50, "{label}");
        let taken = store
            .claim_batch("w1", Some(",builtin,"), 60_000, 50)
            .await
            .unwrap();
        assert_eq!(taken.len(), 50, "{label}");
        assert_eq!(
            store.fair_share(4096).await.unwrap(),
            25,
            "{label}: running games are not shared"
        );
        store.claim_batch("w1", None, 60_000, 50).await.unwrap();
        assert_eq!(
            store.fair_share(4096).await.unwrap(),
            1,
            "{label}: an empty queue still asks for one"
        );
        close(store, schema).await;
    }
}

/// A heartbeat never waits for a game that a completion has locked (that game is being recorded
/// and needs no lease) and holds no lock while it renews: a heartbeat that locked its worker's
/// row, then waited for games its own worker's completion had locked (a completion locks them,
/// then that row), deadlocked with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heartbeat_passes_games_being_completed_and_waits_for_nothing() {
    use sqlx::Executor;
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        store
            .schedule_all(&[koth(vec![a, b]), koth(vec![b, a])], 3)
            .await
            .unwrap();
        store
            .register_worker(&worker_info("w", 1, 60_000))
            .await
            .unwrap();
        let claimed = store
            .claim_batch("w", Some(",builtin,"), 60_000, 2)
            .await
            .unwrap();
        let ids: Vec<i64> = claimed.iter().map(|game| game.id).collect();
        assert_eq!(ids.len(), 2, "{label}");
        let Some(schema) = schema else {
            // SQLite has no row locks (one writer at a time): the heartbeat renews both.
            assert_eq!(store.heartbeat("w", 60_000, &ids).await.unwrap(), 2);
            store.close().await;
            continue;
        };
        // A completion in the middle of its transaction: the first game and the worker's row
        // locked, in that order.
        let completing = one_connection(&postgres(), Some(&schema)).await;
        let mut tx = completing.begin().await.unwrap();
        tx.execute(format!("SELECT id FROM games WHERE id = {} FOR UPDATE", ids[0]).as_str())
            .await
            .unwrap();
        let renewed = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            store.heartbeat("w", 60_000, &ids),
        )
        .await
        .expect("the heartbeat waited for a game being completed")
        .unwrap();
        assert_eq!(renewed, 1, "{label}: the other game's lease renewed");
        // The completion goes on to the worker's row: nothing holds it.
        tokio::time::timeout(
            std::time::Duration::from_secs(5),
            tx.execute("UPDATE workers SET games_done = games_done + 1 WHERE id = 'w'"),
        )
        .await
        .expect("the completion waited for the heartbeat")
        .unwrap();
        tx.commit().await.unwrap();
        completing.close().await;
        store.close().await;
        drop_schema(&schema).await;
    }
}

/// A ladder game still being played when one of its players is promoted rates nobody: its other
/// players would be rated against a rating of another league (the promoted one starts afresh).
/// Its result is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_in_flight_at_a_promotion_rates_nobody() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, carol, bob) = two_players(&store).await;
        let (boss_user, boss) = wood2_boss(&store).await;
        let promotion = Promotion {
            bosses: vec![Some(boss_user), None],
            promotion_games: 1,
            leagues: 2,
        };
        let ladder_game = |seats: Vec<i64>| NewGame {
            kind: "ladder".into(),
            league: 0,
            variant: Some("wood2".into()),
            seats,
            round: 0,
        };
        store
            .schedule_all(
                &[
                    ladder_game(vec![carol, boss]),
                    ladder_game(vec![carol, bob]),
                ],
                1,
            )
            .await
            .unwrap();
        let claimed = store.claim_batch("w", None, 60_000, 2).await.unwrap();
        assert_eq!(claimed.len(), 2, "{label}");
        // Carol beats the boss: promoted out of league 0 after her one game.
        assert!(
            store
                .complete(&claimed[0], &finished(claimed[0].id, &[1, 2]), &promotion)
                .await
                .unwrap()
        );
        let promoted = store.submission(carol).await.unwrap().unwrap();
        assert_eq!(promoted.league, 1, "{label}");
        let bob_before = store.submission(bob).await.unwrap().unwrap();
        // Her game against Bob, still in league 0, ends after that (she wins: rated, Bob would
        // lose rating and stay in league 0).
        assert!(
            store
                .complete(&claimed[1], &finished(claimed[1].id, &[1, 2]), &promotion)
                .await
                .unwrap(),
            "{label}: the result is kept"
        );
        let bob_after = store.submission(bob).await.unwrap().unwrap();
        assert_eq!(
            (bob_after.mu, bob_after.sigma, bob_after.games),
            (bob_before.mu, bob_before.sigma, bob_before.games),
            "{label}: Bob not rated against Carol's new league's rating"
        );
        let carol_after = store.submission(carol).await.unwrap().unwrap();
        assert_eq!(
            (
                carol_after.mu,
                carol_after.sigma,
                carol_after.games,
                carol_after.league
            ),
            (promoted.mu, promoted.sigma, promoted.games, 1),
            "{label}"
        );
        assert_eq!(store.results().await.unwrap().len(), 2, "{label}");
        close(store, schema).await;
    }
}

/// On PostgreSQL, other processes of the contest hear what changes without polling: games queued
/// (scheduled or put back) and games ended (done or failed), on channels of this contest's own
/// (a schema's do not reach another's). SQLite has no listener: one process tells itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_processes_hear_games_queued_and_ended() {
    use arena_host::store::Notice;
    let wait = std::time::Duration::from_secs(10);
    for (label, store, _keep, schema) in stores().await {
        let Some(schema) = schema else {
            assert!(store.listener().await.unwrap().is_none(), "{label}");
            store.close().await;
            continue;
        };
        let (_, _, a, b) = two_players(&store).await;
        // Another process of the same contest, and one of another contest (schema).
        let mut listener = store.listener().await.unwrap().expect("a listener");
        let other_schema = fresh_schema();
        let other = Store::open(&postgres(), Some(&other_schema)).await.unwrap();
        let (_, _, x, y) = two_players(&other).await;
        other.schedule(&koth(vec![x, y]), 1).await.unwrap();
        store.schedule(&koth(vec![a, b]), 1).await.unwrap();
        let heard = tokio::time::timeout(wait, listener.next())
            .await
            .expect("a notice")
            .unwrap();
        assert_eq!(
            heard,
            Notice::Queued,
            "{label}: its own queue, not the other's"
        );
        let claimed = store.claim("w").await.unwrap().expect("the game");
        store
            .complete(
                &claimed,
                &finished(claimed.id, &[1, 2]),
                &Promotion::default(),
            )
            .await
            .unwrap();
        let heard = tokio::time::timeout(wait, listener.next())
            .await
            .expect("a notice")
            .unwrap();
        assert_eq!(heard, Notice::Ended, "{label}");
        store.schedule(&koth(vec![a, b]), 1).await.unwrap();
        assert_eq!(
            tokio::time::timeout(wait, listener.next())
                .await
                .expect("a notice")
                .unwrap(),
            Notice::Queued
        );
        let claimed = store.claim("w").await.unwrap().expect("the game");
        store.fail(&claimed, "a test").await.unwrap();
        assert_eq!(
            tokio::time::timeout(wait, listener.next())
                .await
                .expect("a notice")
                .unwrap(),
            Notice::Ended,
            "{label}: a failed game ended too"
        );
        other.close().await;
        drop_schema(&other_schema).await;
        store.close().await;
        drop_schema(&schema).await;
    }
}

/// Accounts on both databases: look-alike names refused in one registration's transaction,
/// sessions that expire and end, rotation that ends the other sessions, a rotated token kept when
/// the contest file's token is unchanged, disabling that cancels queued games and removes the
/// account's bots from the players, and the pages' change marker moving with all of it.
#[tokio::test]
async fn accounts_sessions_tokens_and_disabling() {
    for (label, store, _dir, schema) in stores().await {
        let alice = store
            .ensure_user("alice", "file-hash-a", Role::Contestant)
            .await
            .expect("alice");
        let marker = store.change_marker().await.expect("marker");
        assert_eq!(
            store.register("ALICE", "h1", "10.0.0.1").await.expect("db"),
            Err("alice".to_string()),
            "{label}"
        );
        assert_eq!(
            store.register("a1ice", "h1", "10.0.0.1").await.expect("db"),
            Err("alice".to_string()),
            "{label}"
        );
        let bob = store
            .register("bob", "bob-hash", "10.0.0.1")
            .await
            .expect("db")
            .expect("bob registers");
        assert_eq!(
            store
                .registrations_since(Some("10.0.0.1"), 0)
                .await
                .expect("count"),
            1,
            "{label}: refused names are not counted"
        );
        assert_eq!(store.registrations_since(None, 0).await.expect("n"), 1);
        assert_ne!(store.change_marker().await.expect("marker"), marker);

        // Sessions: live, expired, ended; rotation ends all but the one kept.
        store
            .create_session(alice, "s1", "c1", 3600)
            .await
            .expect("s1");
        store
            .create_session(alice, "s2", "c2", 3600)
            .await
            .expect("s2");
        store
            .create_session(alice, "old", "c3", -5)
            .await
            .expect("old");
        let s1 = store.session("s1").await.expect("db").expect("s1 is live");
        assert_eq!((s1.user.name.as_str(), s1.csrf.as_str()), ("alice", "c1"));
        assert!(store.session("old").await.expect("db").is_none(), "{label}");
        assert!(
            store
                .rotate_token(alice, "rotated-a", Some("s1"))
                .await
                .expect("rotate")
        );
        assert!(store.session("s1").await.expect("db").is_some());
        assert!(store.session("s2").await.expect("db").is_none(), "{label}");
        assert!(
            store
                .user_by_token("file-hash-a")
                .await
                .expect("db")
                .is_none()
        );
        // The file's unchanged token does not undo the rotation; a changed one does.
        store
            .ensure_user("alice", "file-hash-a", Role::Contestant)
            .await
            .expect("again");
        assert!(
            store
                .user_by_token("rotated-a")
                .await
                .expect("db")
                .is_some(),
            "{label}"
        );
        store
            .ensure_user("alice", "file-hash-b", Role::Contestant)
            .await
            .expect("changed");
        assert!(
            store
                .user_by_token("rotated-a")
                .await
                .expect("db")
                .is_none()
        );
        assert!(
            store
                .user_by_token("file-hash-b")
                .await
                .expect("db")
                .is_some()
        );
        store.end_session("s1").await.expect("end");
        assert!(store.session("s1").await.expect("db").is_none());

        // Disabling bob: his queued game is cancelled, he is no player, his sessions end.
        let house = store
            .ensure_user("house", "house-hash", Role::House)
            .await
            .expect("house");
        let bots: Vec<i64> = {
            let mut ids = Vec::new();
            for user in [bob, house] {
                let id = store
                    .add_submission(user, "builtin", "random", None, "-", 0)
                    .await
                    .expect("bot");
                store.activate(user, id).await.expect("active");
                ids.push(id);
            }
            ids
        };
        let game = store
            .schedule(
                &NewGame {
                    kind: "ladder".into(),
                    league: 0,
                    variant: None,
                    seats: bots.clone(),
                    round: 0,
                },
                7,
            )
            .await
            .expect("game");
        store
            .create_session(bob, "b1", "c", 3600)
            .await
            .expect("b1");
        assert!(
            store.set_disabled(bob, true).await.expect("disable"),
            "{label}"
        );
        assert!(!store.set_disabled(bob, true).await.expect("again"), "once");
        assert!(store.session("b1").await.expect("db").is_none());
        let players = store.players().await.expect("players");
        assert_eq!(
            players.iter().map(|s| s.id).collect::<Vec<_>>(),
            vec![bots[1]]
        );
        let state = store
            .games(None, 10)
            .await
            .expect("games")
            .into_iter()
            .find(|g| g.id == game)
            .map(|g| g.state);
        assert_eq!(state.as_deref(), Some("cancelled"), "{label}");
        let user = store
            .user_by_token("bob-hash")
            .await
            .expect("db")
            .expect("bob");
        assert!(user.disabled);
        let accounts = store.accounts().await.expect("accounts");
        let listed = accounts.iter().find(|a| a.name == "bob").expect("listed");
        assert!(listed.disabled && !listed.from_file);
        assert_eq!(listed.registered_from.as_deref(), Some("10.0.0.1"));
        assert!(store.set_disabled(bob, false).await.expect("enable"));
        assert_eq!(store.players().await.expect("players").len(), 2, "{label}");
        // Revoking: no token signs in.
        assert!(store.revoke_token(bob).await.expect("revoke"));
        assert!(store.user_by_token("bob-hash").await.expect("db").is_none());
        close(store, schema).await;
    }
}

/// A game of `kind` between `seats` (no variant, league 0).
/// Queues `game`, claims it (the queue holds nothing else) and completes it with `ranks`.
async fn play_one(store: &Store, game: NewGame, ranks: &[u32], promotion: &Promotion) {
    let id = store.schedule(&game, 3).await.unwrap();
    let claimed = store.claim("w").await.unwrap().expect("the game");
    assert_eq!(claimed.id, id);
    assert!(
        store
            .complete(&claimed, &finished(id, ranks), promotion)
            .await
            .unwrap()
    );
}

fn game_of(kind: &str, seats: Vec<i64>) -> NewGame {
    NewGame {
        kind: kind.into(),
        league: 0,
        variant: None,
        seats,
        round: 0,
    }
}

/// A journal line with the fault kinds of each seat.
fn finished_with_faults(ranks: &[u32], faults: &str) -> Finished {
    Finished {
        entry: format!("{{\"ranks\":{ranks:?},\"faults\":{faults}}}"),
        ranks: ranks.to_vec(),
        replay: None,
    }
}

fn ids(games: &[GameListing]) -> Vec<i64> {
    games.iter().map(|g| g.id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_filters_pages_and_names_every_seat() {
    for (label, store, keep, schema) in stores().await {
        let (alice, bob, a, b) = two_players(&store).await;
        let (carol, c) = carol(&store).await;
        // g1: Alice beats Bob; g2: Bob and Alice share first place; g3: Carol beats Alice, who
        // timed out; g4: a scrimmage Carol wins against Bob; g5 (below): queued.
        let played = store
            .schedule_all(
                &[
                    game_of("ladder", vec![a, b]),
                    game_of("ladder", vec![b, a]),
                    game_of("placement", vec![a, c]),
                    game_of("scrimmage", vec![c, b]),
                ],
                5,
            )
            .await
            .unwrap();
        let [g1, g2, g3, g4] = played[..] else {
            panic!("four games")
        };
        let claimed = store.claim_batch("w", None, 60_000, 10).await.unwrap();
        assert_eq!(ids_of(&claimed), vec![g1, g2, g3, g4], "{label}");
        let outcomes = [
            finished_with_faults(&[1, 2], "[[],[]]"),
            finished_with_faults(&[1, 1], "[[],[]]"),
            finished_with_faults(&[2, 1], "[[\"timeout\",\"illegal\"],[]]"),
            finished_with_faults(&[1, 2], "[[],[]]"),
        ];
        let pairs: Vec<(&Claimed, &Finished)> = claimed.iter().zip(&outcomes).collect();
        let done = store
            .complete_many(&pairs, &Promotion::default())
            .await
            .unwrap();
        assert_eq!(done, vec![true; 4], "{label}");
        let g5 = store
            .schedule(&game_of("ladder", vec![a, b]), 5)
            .await
            .unwrap();

        let list = async |filter: GameFilter| {
            let limit = if filter.limit == 0 { 100 } else { filter.limit };
            ids(&store
                .game_listing(&GameFilter { limit, ..filter })
                .await
                .unwrap())
        };
        let of_a = |filter: GameFilter| GameFilter {
            submission: Some(a),
            ..filter
        };
        assert_eq!(
            list(of_a(GameFilter::default())).await,
            vec![g5, g3, g2, g1],
            "{label}"
        );
        let result = |outcome| GameFilter {
            result: Some(outcome),
            ..GameFilter::default()
        };
        assert_eq!(list(of_a(result(Outcome::Win))).await, vec![g1], "{label}");
        assert_eq!(list(of_a(result(Outcome::Draw))).await, vec![g2], "{label}");
        assert_eq!(list(of_a(result(Outcome::Loss))).await, vec![g3], "{label}");
        let fault = |faulted| GameFilter {
            fault: Some(faulted),
            ..GameFilter::default()
        };
        assert_eq!(list(of_a(fault(true))).await, vec![g3], "{label}");
        assert_eq!(list(of_a(fault(false))).await, vec![g2, g1], "{label}");
        // Bob's games, his results as a user, and those against Carol.
        let of_bob = |filter: GameFilter| GameFilter {
            user: Some(bob),
            ..filter
        };
        assert_eq!(
            list(of_bob(GameFilter::default())).await,
            vec![g5, g4, g2, g1],
            "{label}"
        );
        assert_eq!(
            list(of_bob(result(Outcome::Loss))).await,
            vec![g4, g1],
            "{label}"
        );
        assert_eq!(
            list(of_bob(result(Outcome::Draw))).await,
            vec![g2],
            "{label}"
        );
        assert_eq!(
            list(of_bob(result(Outcome::Win))).await,
            Vec::<i64>::new(),
            "{label}"
        );
        let against = |user| GameFilter {
            opponent: Some(user),
            ..GameFilter::default()
        };
        assert_eq!(list(of_bob(against(carol))).await, vec![g4], "{label}");
        assert_eq!(list(of_a(against(bob))).await, vec![g5, g2, g1], "{label}");
        assert_eq!(
            list(against(carol)).await,
            vec![g4, g3],
            "{label}: anyone's games with Carol"
        );
        // A submission that is not the user's lists nothing.
        assert_eq!(
            list(of_a(GameFilter {
                user: Some(bob),
                ..GameFilter::default()
            }))
            .await,
            Vec::<i64>::new(),
            "{label}"
        );
        let kind = |kind: &str| GameFilter {
            kind: Some(kind.into()),
            ..GameFilter::default()
        };
        assert_eq!(list(kind("scrimmage")).await, vec![g4], "{label}");
        assert_eq!(list(of_a(kind("placement"))).await, vec![g3], "{label}");
        let state = |state: &str| GameFilter {
            state: Some(state.into()),
            ..GameFilter::default()
        };
        assert_eq!(list(state("queued")).await, vec![g5], "{label}");
        assert_eq!(
            list(of_bob(state("done"))).await,
            vec![g4, g2, g1],
            "{label}"
        );
        assert!(
            store
                .game_listing(&GameFilter {
                    result: Some(Outcome::Win),
                    limit: 10,
                    ..GameFilter::default()
                })
                .await
                .is_err(),
            "{label}: a result needs a subject"
        );

        // Pages of two, newest first: every game exactly once.
        let mut seen = Vec::new();
        let mut before = None;
        loop {
            let page = list(GameFilter {
                before,
                limit: 2,
                ..GameFilter::default()
            })
            .await;
            assert!(page.len() <= 2, "{label}");
            let Some(&last) = page.last() else { break };
            seen.extend(page);
            before = Some(last);
        }
        assert_eq!(seen, vec![g5, g4, g3, g2, g1], "{label}");

        // Every seat names its player, queued games too, with its outcome once done.
        let all = store
            .game_listing(&GameFilter {
                limit: 100,
                ..GameFilter::default()
            })
            .await
            .unwrap();
        let names = |game: &GameListing| -> Vec<String> {
            game.players.iter().map(|p| p.user.clone()).collect()
        };
        assert_eq!(names(&all[0]), vec!["alice", "bob"], "{label}: queued g5");
        assert_eq!(all[0].players[0].rank, None, "{label}");
        assert_eq!(all[0].players[0].faulted, None, "{label}");
        assert_eq!(
            (all[0].state.as_str(), all[0].finished_at),
            ("queued", None)
        );
        let third = &all[2];
        assert_eq!(third.id, g3);
        assert_eq!(names(third), vec!["alice", "carol"], "{label}");
        assert_eq!(
            (
                third.players[0].rank,
                third.players[0].faulted,
                third.players[0].fault.as_deref()
            ),
            (Some(2), Some(true), Some("timeout, illegal")),
            "{label}"
        );
        assert_eq!(
            (
                third.players[1].rank,
                third.players[1].faulted,
                third.players[1].fault.as_deref()
            ),
            (Some(1), Some(false), None),
            "{label}"
        );
        assert!(
            third.finished_at.is_some() && third.entry.is_some(),
            "{label}"
        );
        assert_eq!(third.players[0].user_id, alice, "{label}");
        let outcomes = |game: &GameListing| -> Vec<Option<Outcome>> {
            game.players.iter().map(|p| p.outcome).collect()
        };
        assert_eq!(
            outcomes(third),
            vec![Some(Outcome::Loss), Some(Outcome::Win)]
        );
        assert_eq!(
            outcomes(&all[3]),
            vec![Some(Outcome::Draw), Some(Outcome::Draw)]
        );
        assert_eq!(
            outcomes(&all[0]),
            vec![None, None],
            "{label}: not played yet"
        );
        // The older listing keeps its fields, and lists as many games as asked (the kill -9 tests
        // read every game through it).
        let old = store.games(Some(c), 10).await.unwrap();
        assert_eq!(
            old.iter()
                .map(|g| (g.id, g.seats.clone()))
                .collect::<Vec<_>>(),
            vec![(g4, vec![c, b]), (g3, vec![a, c])],
            "{label}"
        );

        // A database from before the outcomes were stored: they are filled from the results
        // when it opens again.
        let url = url_of(keep.as_ref());
        let raw = one_connection(&url, schema.as_deref()).await;
        sqlx::query("DELETE FROM seat_results")
            .execute(&raw)
            .await
            .unwrap();
        sqlx::query("DELETE FROM settings WHERE name = 'seat_outcomes_backfilled'")
            .execute(&raw)
            .await
            .unwrap();
        raw.close().await;
        let reopened = Store::open(&url, schema.as_deref()).await.unwrap();
        let again = reopened
            .game_listing(&GameFilter {
                limit: 100,
                ..GameFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(
            again.iter().map(|g| g.players.clone()).collect::<Vec<_>>(),
            all.iter().map(|g| g.players.clone()).collect::<Vec<_>>(),
            "{label}: the same outcomes from the results"
        );
        let losses = reopened
            .game_listing(&GameFilter {
                submission: Some(a),
                result: Some(Outcome::Loss),
                limit: 100,
                ..GameFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(
            ids(&losses),
            vec![g3],
            "{label}: the filters' rows made again"
        );
        reopened.close().await;
        close(store, schema).await;
    }
}

fn ids_of(claimed: &[Claimed]) -> Vec<i64> {
    claimed.iter().map(|c| c.id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rating_history_follows_rated_games_only_and_a_promotion_starts_a_league() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let (boss_user, boss) = wood2_boss(&store).await;
        let promotion = Promotion {
            bosses: vec![Some(boss_user), None],
            promotion_games: 2,
            leagues: 2,
        };
        // Alice beats Bob (rated), then a scrimmage Bob wins (unrated), then Alice beats the boss
        // (rated: her second game, above the boss: promoted).
        let play =
            async |game: NewGame, ranks: &[u32]| play_one(&store, game, ranks, &promotion).await;
        play(game_of("ladder", vec![a, b]), &[1, 2]).await;
        let after_first = store.submission(a).await.unwrap().unwrap();
        play(game_of("scrimmage", vec![a, b]), &[2, 1]).await;
        let after_scrimmage = store.submission(a).await.unwrap().unwrap();
        assert_eq!(
            (
                after_scrimmage.mu,
                after_scrimmage.games,
                after_scrimmage.league
            ),
            (after_first.mu, after_first.games, 0),
            "{label}: a scrimmage rates nobody"
        );
        play(game_of("ladder", vec![boss, a]), &[2, 1]).await;
        let promoted = store.submission(a).await.unwrap().unwrap();
        assert_eq!(promoted.league, 1, "{label}: promoted past the boss");

        let history = store.rating_history(a).await.unwrap();
        let leagues: Vec<i64> = history.iter().map(|p| p.league).collect();
        assert_eq!(leagues, vec![0, 0, 1], "{label}: {history:?}");
        assert!(
            history
                .windows(2)
                .all(|w| w[0].completion <= w[1].completion),
            "{label}: in completion order"
        );
        assert_eq!(history[0].completion, 1, "{label}");
        assert_eq!(
            history[1].completion, 3,
            "{label}: the scrimmage (2) left out"
        );
        assert_eq!(
            (history[0].mu, history[0].sigma),
            (after_first.mu, after_first.sigma),
            "{label}"
        );
        assert!(history[1].mu > history[0].mu, "{label}: she won");
        assert_eq!(
            (history[2].mu, history[2].sigma),
            (Rating::default().mu, Rating::default().sigma),
            "{label}: the new league starts fresh"
        );
        assert_eq!(
            (history[2].mu, history[2].sigma),
            (promoted.mu, promoted.sigma),
            "{label}"
        );
        let bobs = store.rating_history(b).await.unwrap();
        assert_eq!(bobs.len(), 1, "{label}: Bob's one rated game");
        assert_eq!(
            store.rating_history(boss).await.unwrap().len(),
            1,
            "{label}"
        );
        // The contest's results leave the scrimmage out; every result keeps it.
        assert_eq!(store.results().await.unwrap().len(), 3, "{label}");
        assert_eq!(store.contest_results().await.unwrap().len(), 2, "{label}");
        close(store, schema).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrimmages_pass_the_queue_and_their_limit_counts_in_the_transaction() {
    for (label, store, _keep, schema) in stores().await {
        let (alice, _, a, b) = two_players(&store).await;
        let ladder = store
            .schedule_all(
                &[
                    game_of("ladder", vec![a, b]),
                    game_of("ladder", vec![b, a]),
                    game_of("ladder", vec![a, b]),
                ],
                1,
            )
            .await
            .unwrap();
        let now = arena_host::store::now();
        let asked = store
            .schedule_scrimmages(
                &[
                    game_of("scrimmage", vec![a, b]),
                    game_of("scrimmage", vec![b, a]),
                ],
                1,
                alice,
                3,
                now,
            )
            .await
            .unwrap()
            .expect("2 of 3 an hour");
        assert_eq!(
            store
                .scrimmages_asked_since(alice, now - 3600)
                .await
                .unwrap(),
            2,
            "{label}"
        );
        // Two more would make 4 of 3: refused, nothing queued.
        let refused = store
            .schedule_scrimmages(
                &[
                    game_of("scrimmage", vec![a, b]),
                    game_of("scrimmage", vec![b, a]),
                ],
                1,
                alice,
                3,
                now,
            )
            .await
            .unwrap();
        assert_eq!(refused, Err(2), "{label}: 2 asked for already");
        assert_eq!(store.count_games("queued").await.unwrap(), 5, "{label}");
        assert_eq!(
            store.count_queued_unasked().await.unwrap(),
            3,
            "{label}: the ladder's part of the queue"
        );
        // Scrimmages pending do not count as ladder load.
        let pending = store.pending_per_submission().await.unwrap();
        assert_eq!(pending.get(&a), Some(&3), "{label}");

        // A batch of two: one scrimmage (half the batch) before the older ladder games, then the
        // oldest ladder game.
        let batch = store.claim_batch("w", None, 60_000, 2).await.unwrap();
        assert_eq!(ids_of(&batch), vec![ladder[0], asked[0]], "{label}");
        // Claims of one game: every other one looks at the scrimmages first, so the remaining
        // scrimmage is among the next two, before the last ladder game.
        let mut next = Vec::new();
        for _ in 0..2 {
            next.extend(ids_of(
                &store.claim_batch("w", None, 60_000, 1).await.unwrap(),
            ));
        }
        assert!(next.contains(&asked[1]), "{label}: {next:?}");
        assert!(
            next.contains(&ladder[1]),
            "{label}: the ladder still gets every other claim"
        );
        close(store, schema).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_lists_as_many_games_as_asked_with_their_seats() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let games: Vec<NewGame> = (0..1500)
            .map(|i| game_of("ladder", if i % 2 == 0 { vec![a, b] } else { vec![b, a] }))
            .collect();
        let ids = store.schedule_all(&games, 2).await.unwrap();
        let listed = store.games(None, 10_000).await.unwrap();
        assert_eq!(listed.len(), 1500, "{label}: more than an API page");
        assert_eq!(
            listed.iter().rev().map(|g| g.id).collect::<Vec<_>>(),
            ids,
            "{label}"
        );
        assert!(
            listed
                .iter()
                .all(|g| g.seats.len() == 2 && g.seats.contains(&a) && g.seats.contains(&b)),
            "{label}"
        );
        close(store, schema).await;
    }
}

/// A batch of rated games (as a worker's recorder completes the games played while it recorded
/// the last) rates and promotes exactly as one game after another does: the rules applied in
/// completion order by a model written from the ladder's pure functions. Within the batch Alice
/// passes the boss and is promoted, her later game of the old league rates nobody, a game with
/// the boss moves the boss's rating that the next promotion check compares with, and a scrimmage
/// rates nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_rated_games_rates_and_promotes_as_one_game_after_another() {
    use std::collections::HashMap;
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let (_, c) = carol(&store).await;
        let (boss_user, boss) = wood2_boss(&store).await;
        let promotion = Promotion {
            bosses: vec![Some(boss_user), None],
            promotion_games: 2,
            leagues: 2,
        };
        let games: Vec<(&str, Vec<i64>, Vec<u32>)> = vec![
            ("ladder", vec![a, b], vec![1, 2]),
            ("ladder", vec![c, boss], vec![2, 1]),
            ("scrimmage", vec![b, a], vec![1, 2]),
            ("placement", vec![boss, a], vec![2, 1]),
            ("ladder", vec![a, c], vec![2, 1]),
            ("ladder", vec![b, c, boss], vec![1, 2, 2]),
            ("ladder", vec![c, b], vec![1, 2]),
            ("ladder", vec![c, boss], vec![1, 2]),
        ];
        let scheduled: Vec<NewGame> = games
            .iter()
            .map(|(kind, seats, _)| game_of(kind, seats.clone()))
            .collect();
        store.schedule_all(&scheduled, 5).await.unwrap();
        let claimed = store.claim_batch("w", None, 60_000, 100).await.unwrap();
        assert_eq!(claimed.len(), games.len(), "{label}");
        let results: Vec<Finished> = claimed
            .iter()
            .zip(&games)
            .map(|(g, (_, _, ranks))| finished(g.id, ranks))
            .collect();
        let batch: Vec<(&Claimed, &Finished)> = claimed.iter().zip(&results).collect();
        let done = store.complete_many(&batch, &promotion).await.unwrap();
        assert!(done.iter().all(|d| *d), "{label}");

        // The model: (league, rating, games) per submission, the rules game by game.
        let mut model: HashMap<i64, (i64, Rating, i64)> = [a, b, c, boss]
            .iter()
            .map(|id| (*id, (0, Rating::default(), 0)))
            .collect();
        let mut promotions = Vec::new();
        let mut history: HashMap<i64, Vec<(i64, i64, f64, f64)>> = HashMap::new();
        for (completion, (kind, seats, ranks)) in (1..).zip(&games) {
            if *kind == "scrimmage" || seats.iter().any(|s| model[s].0 != 0) {
                continue;
            }
            let before: Vec<Rating> = seats.iter().map(|s| model[s].1).collect();
            for (seat, rating) in seats.iter().zip(ladder::rate(&before, ranks)) {
                let entry = model.get_mut(seat).unwrap();
                entry.1 = rating;
                entry.2 += 1;
                history
                    .entry(*seat)
                    .or_default()
                    .push((0, completion, rating.mu, rating.sigma));
            }
            let boss_mu = model[&boss].1.mu;
            for seat in seats.iter().filter(|s| **s != boss) {
                let entry = model.get_mut(seat).unwrap();
                if entry.0 == 0 && ladder::promoted(entry.2, entry.1.mu, boss_mu, 2) {
                    *entry = (1, Rating::default(), 0);
                    promotions.push((*seat, 0, completion));
                    let fresh = Rating::default();
                    history
                        .entry(*seat)
                        .or_default()
                        .push((1, completion, fresh.mu, fresh.sigma));
                }
            }
        }
        assert!(
            !promotions.is_empty() && model[&a].0 == 1,
            "{label}: the games were chosen so that Alice is promoted mid-batch: {promotions:?}"
        );
        promotions.sort_by_key(|(id, _, completion)| (*completion, *id));
        assert_eq!(store.promotions().await.unwrap(), promotions, "{label}");
        for id in [a, b, c, boss] {
            let stored = store.submission(id).await.unwrap().unwrap();
            let (league, rating, played) = model[&id];
            assert_eq!(
                (stored.league, stored.mu, stored.sigma, stored.games),
                (league, rating.mu, rating.sigma, played),
                "{label}: submission {id}"
            );
            let points: Vec<(i64, i64, f64, f64)> = store
                .rating_history(id)
                .await
                .unwrap()
                .iter()
                .map(|p| (p.league, p.completion, p.mu, p.sigma))
                .collect();
            assert_eq!(
                points,
                history.remove(&id).unwrap_or_default(),
                "{label}: submission {id}'s history"
            );
        }
        close(store, schema).await;
    }
}

/// An organiser's rerun starts a submission's rating afresh, and its rating history ends on the
/// fresh rating at the last completion (the rating after that completion), so the chart shows
/// the reset; the next game rates it from there. An unknown submission is reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_starts_the_rating_afresh_and_the_history_shows_it() {
    for (label, store, _keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let promotion = Promotion::default();
        let play = async |ranks: &[u32]| {
            play_one(&store, game_of("ladder", vec![a, b]), ranks, &promotion).await
        };
        let fresh = Rating::default();
        play(&[1, 2]).await;
        let a_after_first = store.submission(a).await.unwrap().unwrap();
        assert!(store.reset_rating(b).await.unwrap(), "{label}");
        let reset = store.submission(b).await.unwrap().unwrap();
        assert_eq!(
            (reset.mu, reset.sigma, reset.games),
            (fresh.mu, fresh.sigma, 0)
        );
        let points = |history: Vec<arena_host::store::RatingPoint>| -> Vec<(i64, f64, f64)> {
            history
                .iter()
                .map(|p| (p.completion, p.mu, p.sigma))
                .collect()
        };
        assert_eq!(
            points(store.rating_history(b).await.unwrap()),
            vec![(1, fresh.mu, fresh.sigma)],
            "{label}: the reset replaces the point of the game it follows"
        );
        play(&[2, 1]).await;
        let b_now = store.submission(b).await.unwrap().unwrap();
        let expected = ladder::rate(
            &[
                Rating {
                    mu: a_after_first.mu,
                    sigma: a_after_first.sigma,
                },
                fresh,
            ],
            &[2, 1],
        );
        assert_eq!(
            (b_now.mu, b_now.sigma, b_now.games),
            (expected[1].mu, expected[1].sigma, 1),
            "{label}: rated from the fresh rating"
        );
        assert!(store.reset_rating(a).await.unwrap(), "{label}");
        let history = points(store.rating_history(a).await.unwrap());
        assert_eq!(
            history,
            vec![
                (1, a_after_first.mu, a_after_first.sigma),
                (2, fresh.mu, fresh.sigma)
            ],
            "{label}"
        );
        assert!(!store.reset_rating(a + b + 1000).await.unwrap(), "{label}");
        close(store, schema).await;
    }
}

/// The scheduler's statements (a turn follows every recorded game) and the cancellations on a
/// submission's change reach the unfinished games through indexes, however many games were played
/// before: their plans, read on both databases over 20 000 finished games, scan neither the games
/// nor their seats. A join on `state IN ('queued', 'running')` read every seat ever played at every
/// turn (34 ms on PostgreSQL, 0.45 s on SQLite at 200 000 games), and the ladder slowed with every
/// game it played.
#[tokio::test]
async fn the_scheduler_reads_the_unfinished_games_through_indexes_however_many_were_played() {
    use sqlx::{Executor, Row};
    for (label, store, keep, schema) in stores().await {
        let (_, _, a, b) = two_players(&store).await;
        let games: Vec<NewGame> = (0..6).map(|_| game_of("ladder", vec![a, b])).collect();
        store.schedule_all(&games, 5).await.unwrap();
        assert_eq!(
            store.claim_batch("w", None, 60_000, 2).await.unwrap().len(),
            2
        );
        let url = url_of(keep.as_ref());
        let pool = one_connection(&url, schema.as_deref()).await;
        // Finished games, ids far above the scheduled ones, with two seats each.
        pool.execute(
            "INSERT INTO games (id, kind, league, seed, state, attempts, created_at) \
             WITH RECURSIVE n(i) AS (SELECT 1000000 UNION ALL SELECT i + 1 FROM n WHERE i < 1019999) \
             SELECT i, 'ladder', 0, '1', 'done', 1, 0 FROM n",
        )
        .await
        .unwrap();
        pool.execute(
            format!(
                "INSERT INTO game_seats (game_id, seat, submission_id) \
                 SELECT id, 0, {a} FROM games WHERE id >= 1000000 \
                 UNION ALL SELECT id, 1, {b} FROM games WHERE id >= 1000000"
            )
            .as_str(),
        )
        .await
        .unwrap();
        pool.execute("ANALYZE").await.unwrap();
        for (name, sql, binds) in store.indexed_statements() {
            let explain = if label == "sqlite" {
                format!("EXPLAIN QUERY PLAN {sql}")
            } else {
                format!("EXPLAIN {sql}")
            };
            let mut query = sqlx::query(&explain);
            for bind in &binds {
                query = query.bind(*bind);
            }
            let rows = query.fetch_all(&pool).await.unwrap();
            // SQLite: (id, parent, notused, detail); PostgreSQL: one line of text a row.
            let plan: Vec<String> = rows
                .iter()
                .map(|row| {
                    if label == "sqlite" {
                        row.get::<String, _>(3)
                    } else {
                        row.get::<String, _>(0)
                    }
                })
                .collect();
            let whole_table = |line: &String| {
                if label == "sqlite" {
                    // `SCAN t` reads a table or a whole index; only the partial indexes of the
                    // unfinished games are small.
                    let scanned = line.strip_prefix("SCAN ").unwrap_or("");
                    let table = scanned.split_whitespace().next().unwrap_or("");
                    ["games", "game_seats", "g", "gs"].contains(&table)
                        && !["games_queue", "games_running", "games_scrimmage_queue"]
                            .iter()
                            .any(|index| scanned.ends_with(&format!("INDEX {index}")))
                } else {
                    line.contains("Seq Scan on games") || line.contains("Seq Scan on game_seats")
                }
            };
            assert!(
                !plan.iter().any(whole_table),
                "{label}: {name} reads whole tables:\n{}",
                plan.join("\n")
            );
        }
        // And the statements still count what they count.
        assert_eq!(store.count_unfinished().await.unwrap(), 6, "{label}");
        assert_eq!(store.count_games("running").await.unwrap(), 2, "{label}");
        assert_eq!(store.count_games("queued").await.unwrap(), 4, "{label}");
        assert_eq!(store.count_games("done").await.unwrap(), 20_000, "{label}");
        let pending = store.pending_per_submission().await.unwrap();
        assert_eq!(pending.get(&a), Some(&6), "{label}");
        assert_eq!(pending.get(&b), Some(&6), "{label}");
        pool.close().await;
        close(store, schema).await;
    }
}

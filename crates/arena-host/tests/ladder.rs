//! The ladder with real games (Spring 2021's built-in bots, in process, through the host's
//! workers and database): 20 submissions of known strength converge to the right order, and
//! promotion past a boss happens exactly when the rule says, checked against the results replayed
//! in completion order.

use std::collections::HashMap;
use std::sync::Arc;

use arena_host::config::LadderOptions;
use arena_host::ladder::{self, Rating};
use arena_host::records::Submission;
use arena_host::store::{Finished, Promotion};
use arena_host::{Contest, Host, HostOptions};

/// A host on SQLite (a file in `dir`), or on the real PostgreSQL in a fresh schema.
async fn host_on(contest: &str, dir: &std::path::Path, postgres: bool) -> Arc<Host> {
    let (db, schema) = if postgres {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        (
            std::env::var("ARENA_TEST_POSTGRES")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string()),
            Some(format!("t_ladder_{}_{nanos}", std::process::id())),
        )
    } else {
        (format!("sqlite://{}", dir.join("c.db").display()), None)
    };
    Host::open(HostOptions {
        contest: Contest::parse(contest).expect("contest"),
        db,
        schema,
        data_dir: dir.join("data"),
        game: Arc::from(arena_core::registry::stream_entry(
            arena_spring2021::definition(),
        )),
        sandbox: None,
        sandbox_factory: None,
        pin_cpus: false,
        workers: Default::default(),
    })
    .await
    .expect("host (PostgreSQL runs on this machine kind and in CI)")
}

async fn host(contest: &str, dir: &std::path::Path) -> Arc<Host> {
    host_on(contest, dir, false).await
}

/// Schedules and plays until the scheduler has nothing left to queue.
async fn play_out(host: &Arc<Host>) {
    loop {
        let queued = host.schedule().await.expect("schedule");
        if queued == 0 && host.store.count_games("queued").await.expect("count") == 0 {
            break;
        }
        let workers = host.spawn_workers(2, true);
        tokio::task::spawn_blocking(move || {
            for worker in workers {
                worker.join().expect("worker").expect("worker ran");
            }
        })
        .await
        .expect("joined");
    }
}

/// Handicap (percent of moves played by the random bot) of a house bot named `hNN`.
fn handicap(name: &str) -> i64 {
    name.trim_start_matches('h').parse().expect("hNN")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_bots_of_known_strength_converge_to_the_right_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut contest = String::from(
        "name = \"convergence\"\ngame = \"spring2021\"\nformat = \"ladder\"\nseed = 3\nworkers = 2\n\
         [ladder]\nplacement_games = 10\nwindow = 6\nmax_games = 80\n",
    );
    // planner with 0 %, 5 %, ..., 95 % of its moves replaced by random ones: strength falls with
    // the handicap.
    for step in 0..20 {
        contest.push_str(&format!(
            "[[bots]]\nname = \"h{:02}\"\nbot = \"builtin:planner@{}\"\n",
            step * 5,
            step * 5
        ));
    }
    let host = host(&contest, dir.path()).await;
    play_out(&host).await;
    let mut players = host.store.players().await.expect("players");
    assert_eq!(players.len(), 20);
    assert!(
        players.iter().all(|p| p.games >= 80),
        "every bot played its games"
    );
    players.sort_by(|a, b| b.mu.total_cmp(&a.mu));
    let order: Vec<i64> = players.iter().map(|p| handicap(&p.user)).collect();
    // Spearman's rank correlation between the ladder's order and the true one.
    let n = order.len() as f64;
    let d2: f64 = order
        .iter()
        .enumerate()
        .map(|(rank, h)| {
            let d = rank as f64 - (*h / 5) as f64;
            d * d
        })
        .sum();
    let rho = 1.0 - 6.0 * d2 / (n * (n * n - 1.0));
    eprintln!("ladder order by rating (handicaps): {order:?}, Spearman {rho:.4}");
    assert!(
        rho > 0.95,
        "rank correlation {rho:.3}, order by rating: {order:?}"
    );
    // No bot is ranked above one that is 20 points of handicap stronger.
    for (i, high) in order.iter().enumerate() {
        for low in &order[i + 1..] {
            assert!(
                *low + 20 > *high,
                "h{high:02} is ranked above h{low:02}: order {order:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promotion_past_the_boss_happens_exactly_when_the_rule_says() {
    for postgres in [false, true] {
        promotion_on(postgres).await;
    }
}

async fn promotion_on(postgres: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut contest = String::from(
        "name = \"promotion\"\ngame = \"spring2021\"\nformat = \"ladder\"\nseed = 9\nworkers = 2\n\
         [ladder]\nplacement_games = 3\npromotion_games = 6\nmax_games = 14\n\
         [[leagues]]\nname = \"wood1\"\nboss = \"builtin:wood1\"\n[[leagues]]\nname = \"bronze\"\n",
    );
    for h in [0, 20, 40, 60, 80, 100] {
        contest.push_str(&format!(
            "[[bots]]\nname = \"h{h:02}\"\nbot = \"builtin:planner@{h}\"\nleague = \"wood1\"\n"
        ));
    }
    let host = host_on(&contest, dir.path(), postgres).await;
    play_out(&host).await;

    let players = host.store.players().await.expect("players");
    let boss = players
        .iter()
        .find(|p| p.user == "wood1-boss")
        .expect("the boss plays")
        .id;
    // Replay every result in completion order with the rule, from fresh ratings.
    let games = host.store.games(None, 100_000).await.expect("games");
    let by_id: HashMap<i64, _> = games.iter().map(|g| (g.id, g)).collect();
    let mut league: HashMap<i64, i64> = players.iter().map(|p| (p.id, 0)).collect();
    let mut rating: HashMap<i64, Rating> = HashMap::new();
    let mut played: HashMap<i64, i64> = HashMap::new();
    let mut expected = Vec::new();
    for (game, completion, entry) in host.store.results().await.expect("results") {
        let row = by_id[&game];
        let entry: serde_json::Value = serde_json::from_str(&entry).expect("entry");
        let ranks: Vec<u32> = entry["ranks"]
            .as_array()
            .expect("ranks")
            .iter()
            .map(|r| r.as_u64().expect("rank") as u32)
            .collect();
        // A game rates its players only while all are still in its league (one promoted while
        // it was played rates nobody).
        if row.seats.iter().any(|seat| league[seat] != row.league) {
            continue;
        }
        let before: Vec<Rating> = row
            .seats
            .iter()
            .map(|s| rating.get(s).copied().unwrap_or_default())
            .collect();
        let after = ladder::rate(&before, &ranks);
        for (seat, new) in row.seats.iter().zip(after) {
            rating.insert(*seat, new);
            *played.entry(*seat).or_default() += 1;
        }
        if row.league == 0 {
            let boss_mu = rating.get(&boss).copied().unwrap_or_default().mu;
            for seat in &row.seats {
                let r = rating.get(seat).copied().unwrap_or_default();
                let games = played.get(seat).copied().unwrap_or(0);
                if *seat != boss && league[seat] == 0 && ladder::promoted(games, r.mu, boss_mu, 6) {
                    league.insert(*seat, 1);
                    rating.insert(*seat, Rating::default());
                    played.insert(*seat, 0);
                    expected.push((*seat, 0, completion));
                }
            }
        }
    }
    expected.sort_by_key(|&(s, _, c)| (c, s));
    let recorded = host.store.promotions().await.expect("promotions");
    assert_eq!(
        recorded, expected,
        "promotions recorded against the rule replayed"
    );
    assert!(!recorded.is_empty(), "someone beat the boss");
    let name_of = |id: i64| {
        players
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.user.clone())
            .unwrap_or_default()
    };
    assert!(
        recorded.iter().any(|&(s, _, _)| name_of(s) == "h00"),
        "the unhandicapped planner got past the boss: {recorded:?}"
    );
    for p in &players {
        assert_eq!(p.league, league[&p.id], "{}: its league", p.user);
    }
    host.store.close().await;
    if postgres {
        drop_schemas_of_this_process().await;
    }
}

/// The scheduler keeps more than `queue_per_worker` games queued per job ahead of the workers
/// (refilled to twice that in one turn), and games claimed (played, not yet recorded: a worker
/// claims its next game before it records the last) do not count against it. Turns are called
/// here where the scheduler's loop would run them, so nothing depends on timing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scheduler_keeps_the_queue_full_ahead_of_the_workers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut contest = String::from(
        "name = \"queue\"\ngame = \"spring2021\"\nformat = \"ladder\"\nseed = 4\nworkers = 2\n\
         [ladder]\nqueue_per_worker = 2\nmax_games = 10\n",
    );
    for index in 0..6 {
        contest.push_str(&format!(
            "[[bots]]\nname = \"b{index}\"\nbot = \"builtin:random\"\n"
        ));
    }
    let host = host(&contest, dir.path()).await;
    // 2 jobs × 2, refilled to twice that; the ladder gives 6 bots × 10 games / 2 seats (a few
    // more: an opponent may be drawn past its `max_games`).
    let (low, high, total) = (4, 8, 30);
    let queued = async || host.store.count_games("queued").await.expect("count");
    let before = host.store.counter("game").await.expect("counter");
    let scheduled = async || host.store.counter("game").await.expect("counter") - before;
    assert_eq!(host.schedule().await.expect("a turn"), high as usize);
    let finished = Finished {
        entry: "{}".into(),
        ranks: vec![1, 2],
        replay: None,
    };
    let mut done = 0;
    loop {
        // Two workers each claim their next game.
        let mut claimed = Vec::new();
        for worker in ["w0", "w1"] {
            if let Some(game) = host.store.claim(worker).await.expect("a claim") {
                claimed.push(game);
            }
        }
        if claimed.is_empty() {
            break;
        }
        if scheduled().await < total {
            assert!(queued().await > 0, "the claims emptied the queue");
        }
        // The scheduler's turn, before the claimed games are recorded: more than the low mark
        // is queued again, unless the ladder has no more games to give (another turn finds none).
        host.schedule().await.expect("a turn");
        let (now_queued, now_scheduled) = (queued().await, scheduled().await);
        assert!(
            now_queued <= high,
            "{now_queued} games queued, above {high}"
        );
        if now_queued <= low {
            let players = host.store.players().await.expect("players");
            let pending = host.store.pending_per_submission().await.expect("pending");
            let more = ladder::next_game(
                &players,
                &pending,
                &host.contest.ladder,
                2,
                &[None],
                &mut rand_pcg::Pcg64::new(1, 1),
            );
            assert!(
                more.is_none(),
                "after a turn only {now_queued} games are queued (low mark {low}), \
                 {now_scheduled} scheduled, and the ladder had more to give"
            );
        }
        for game in &claimed {
            assert!(
                host.store
                    .complete(game, &finished, &Promotion::default())
                    .await
                    .expect("a completion")
            );
            done += 1;
        }
    }
    assert!(done >= total, "every game the ladder gives was played");
    assert_eq!(
        done,
        scheduled().await,
        "every game the ladder gives was played"
    );
    assert_eq!(host.schedule().await.expect("a turn"), 0);
    host.store.close().await;
}

/// Games drawn together (one turn of the scheduler) are those drawn one by one, each counted
/// pending for the next, with the generator of its own place in the schedule.
#[test]
fn games_drawn_together_are_those_drawn_one_by_one() {
    let player = |id: i64, games: i64| Submission {
        id,
        user_id: id,
        user: format!("u{id}"),
        kind: "builtin".into(),
        source_name: String::new(),
        source_sha256: String::new(),
        state: "ready".into(),
        build_log: String::new(),
        active: true,
        league: 0,
        mu: id as f64,
        sigma: 1.0,
        games,
        created_at: 0,
    };
    let players: Vec<Submission> = (0..9).map(|id| player(id, 3 * id % 7 + 8)).collect();
    let options = LadderOptions {
        placement_games: 10,
        window: 3,
        max_games: Some(14),
        ..LadderOptions::default()
    };
    let rng = |n: usize| rand_pcg::Pcg64::new(0x51 << 64 | (40 + n) as u128, 7);
    let mut pending = HashMap::from([(2, 1), (5, 2)]);
    let mut one_by_one = Vec::new();
    let mut sequential = pending.clone();
    while let Some(game) = ladder::next_game(
        &players,
        &sequential,
        &options,
        3,
        &[None],
        &mut rng(one_by_one.len()),
    ) {
        for seat in &game.seats {
            *sequential.entry(*seat).or_default() += 1;
        }
        one_by_one.push(game);
    }
    assert!(one_by_one.len() > 10, "a schedule worth comparing");
    let together = ladder::next_games(&players, &mut pending, &options, 3, &[None], 1000, rng);
    let key = |games: &[arena_host::store::NewGame]| -> Vec<(Vec<i64>, String)> {
        games
            .iter()
            .map(|g| (g.seats.clone(), g.kind.clone()))
            .collect()
    };
    assert_eq!(key(&together), key(&one_by_one));
    assert_eq!(pending, sequential, "the drawn games counted pending");
}

/// Drops the PostgreSQL schemas this test process made.
async fn drop_schemas_of_this_process() {
    use sqlx::{Executor, Row};
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(
        &std::env::var("ARENA_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string()),
    )
    .await
    .expect("PostgreSQL");
    let prefix = format!("t_ladder_{}_", std::process::id());
    let rows = sqlx::query("SELECT schema_name::text FROM information_schema.schemata")
        .fetch_all(&pool)
        .await
        .expect("schemas");
    for row in rows {
        let name: String = row.try_get(0).expect("name");
        if name.starts_with(&prefix) {
            pool.execute(format!("DROP SCHEMA {name} CASCADE").as_str())
                .await
                .expect("drop");
        }
    }
    pool.close().await;
}

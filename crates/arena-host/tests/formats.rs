//! The qualifier (random 4-player groups each round, 4-player Elo, a final of the top N in every
//! seat order) and Coup's KotH (every ordered pair, rerun when a submission arrives), with real
//! games through the host's workers.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arena_core::registry::GameEntry;
use arena_host::{Contest, Host, HostOptions};

async fn host(contest: &str, dir: &std::path::Path, game: Box<dyn GameEntry>) -> Arc<Host> {
    Host::open(HostOptions {
        contest: Contest::parse(contest).expect("contest"),
        db: format!("sqlite://{}", dir.join("c.db").display()),
        schema: None,
        data_dir: dir.join("data"),
        game: Arc::from(game),
        sandbox: None,
        sandbox_factory: None,
        pin_cpus: false,
        workers: Default::default(),
    })
    .await
    .expect("host")
}

/// Schedules (what the format schedules itself) and plays until nothing is left.
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qualifier_plays_random_groups_then_a_final_of_the_top_four_in_every_seat_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut contest = String::from(
        "name = \"q\"\ngame = \"langwars2\"\nformat = \"qualifier\"\nseed = 4\n\
         [qualifier]\nrounds = 3\nfinal_top = 4\nfinal_seeds = 1\n",
    );
    for (name, bot) in [
        ("g", "greedy"),
        ("f", "focus"),
        ("s", "spread"),
        ("r1", "random"),
        ("r2", "random"),
        ("r3", "random"),
    ] {
        contest.push_str(&format!(
            "[[bots]]\nname = \"{name}\"\nbot = \"builtin:{bot}\"\n"
        ));
    }
    let game = arena_langwars::definitions()
        .into_iter()
        .map(arena_core::registry::stream_entry)
        .find(|g| g.id() == "langwars2")
        .expect("langwars2");
    let host = host(&contest, dir.path(), game).await;
    assert!(
        host.run_final().await.is_err(),
        "no final before any qualifier game"
    );
    assert_eq!(
        host.run_qualifier(3).await.expect("rounds"),
        6,
        "2 groups a round"
    );
    assert!(
        host.run_final().await.is_err(),
        "no final while rounds are queued"
    );
    play_out(&host).await;

    let rounds = host.store.games_of_kind("qualifier").await.expect("games");
    let players: HashSet<i64> = host
        .store
        .players()
        .await
        .expect("players")
        .iter()
        .map(|p| p.id)
        .collect();
    for round in 0..3 {
        let seen: HashSet<i64> = rounds
            .iter()
            .filter(|(_, r)| *r == round)
            .flat_map(|(seats, _)| seats.clone())
            .collect();
        assert_eq!(seen, players, "everyone plays in round {round}");
    }
    let qualifier = host.standings("qualifier").await.expect("standings");
    assert_eq!(
        qualifier.iter().map(|(_, s)| s.games).sum::<i64>(),
        24,
        "6 games of 4"
    );
    // Elo moves points between players: the total stays 1500 a player.
    let total: f64 = qualifier.iter().map(|(_, s)| s.value).sum();
    assert!((total - 1500.0 * 6.0).abs() < 1e-6, "{total}");

    assert_eq!(
        host.run_final().await.expect("final"),
        24,
        "4 finalists in every seat order"
    );
    let finals = host
        .store
        .games_of_kind("final")
        .await
        .expect("final games");
    let top: HashSet<i64> = qualifier.iter().take(4).map(|(id, _)| *id).collect();
    let orders: HashSet<Vec<i64>> = finals.iter().map(|(seats, _)| seats.clone()).collect();
    assert_eq!(orders.len(), 24);
    assert!(
        finals
            .iter()
            .all(|(seats, _)| seats.iter().copied().collect::<HashSet<_>>() == top)
    );
    play_out(&host).await;
    let standings = host.standings("final").await.expect("final standings");
    assert_eq!(standings.len(), 4);
    assert!(standings.iter().all(|(_, s)| s.games == 24));
    let points: f64 = standings.iter().map(|(_, s)| s.value).sum();
    assert!(
        (points - 24.0).abs() < 1e-9,
        "one point a game, shared on ties: {points}"
    );
    assert!(host.run_final().await.is_err(), "the final runs once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn koth_plays_every_ordered_pair_and_reruns_when_a_submission_arrives() {
    let dir = tempfile::tempdir().expect("temp dir");
    let contest = "name = \"k\"\ngame = \"coup\"\nformat = \"koth\"\nseed = 8\n\
         [koth]\nrounds = 1\n\
         [[contestants]]\nname = \"alice\"\ntoken = \"alice-token-0123456789\"\n\
         [[bots]]\nname = \"calc\"\nbot = \"builtin:calculator\"\n\
         [[bots]]\nname = \"chal\"\nbot = \"builtin:challenger\"\n\
         [[bots]]\nname = \"rand\"\nbot = \"builtin:random\"\n";
    let host = host(
        contest,
        dir.path(),
        arena_core::call::call_entry(arena_coup::definition()),
    )
    .await;
    play_out(&host).await;
    assert_eq!(
        host.store.games_of_kind("koth").await.expect("games").len(),
        6,
        "3 × 2 ordered pairs"
    );

    let alice = host
        .store
        .user_by_name("alice")
        .await
        .expect("db")
        .expect("alice");
    let bot = include_bytes!("../../arena-coup/starters/bot.py").to_vec();
    let mut submissions = Vec::new();
    for _ in 0..2 {
        let id = host
            .submit(alice, "mine.py", bot.clone())
            .await
            .expect("upload");
        // The build runs on its own task; wait for it (bounded), then let the KotH rerun.
        for _ in 0..3000 {
            let s = host.store.submission(id).await.expect("db").expect("it");
            if s.state != "building" {
                assert_eq!(s.state, "ready", "{}", s.build_log);
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        submissions.push(id);
        play_out(&host).await;
    }
    let games = host.store.games_of_kind("koth").await.expect("games");
    let pairs: Vec<(i64, i64)> = games.iter().map(|(s, _)| (s[0], s[1])).collect();
    let unique: HashSet<&(i64, i64)> = pairs.iter().collect();
    assert_eq!(
        unique.len(),
        pairs.len(),
        "no pair scheduled twice in a round"
    );
    assert_eq!(
        games.len(),
        6 + 6 + 6,
        "each submission played the field in both orders"
    );
    // The standings count the current field only: Alice's first submission dropped out.
    let standings: HashMap<i64, _> = host
        .standings("koth")
        .await
        .expect("standings")
        .into_iter()
        .collect();
    assert!(!standings.contains_key(&submissions[0]));
    assert_eq!(standings.len(), 4);
    assert!(standings.values().all(|s| s.games == 6), "{standings:?}");
    let finished = host.store.finished_of_kind("koth").await.expect("results");
    let field: HashSet<i64> = standings.keys().copied().collect();
    let won: usize = finished
        .iter()
        .filter(|(seats, _)| seats.iter().all(|s| field.contains(s)))
        .filter(|(_, entry)| {
            serde_json::from_str::<serde_json::Value>(entry).expect("entry")["winner"].is_u64()
        })
        .count();
    let points: f64 = standings.values().map(|s| s.value).sum();
    assert_eq!(points, won as f64, "1 point per win, none without a winner");
}

/// Games of built-in bots that do not search are played without agents (the fast path of
/// `arena tournament`) and keep no replay: the replay rebuilt through the full path, on request,
/// must be the same game, with the outcome the journal line records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_games_record_what_their_rebuilt_replays_show() {
    use std::io::Read;
    let dir = tempfile::tempdir().expect("temp dir");
    let contest = "name = \"k\"\ngame = \"spring2021\"\nformat = \"koth\"\nseed = 3\n\
         [koth]\nrounds = 2\n\
         [[bots]]\nname = \"plan\"\nbot = \"builtin:planner\"\n\
         [[bots]]\nname = \"w1\"\nbot = \"builtin:wood1\"\n\
         [[bots]]\nname = \"rand\"\nbot = \"builtin:random\"\n";
    let host = host(
        contest,
        dir.path(),
        arena_core::registry::stream_entry(arena_spring2021::definition()),
    )
    .await;
    play_out(&host).await;
    let results = host.store.results().await.expect("results");
    assert_eq!(results.len(), 12, "2 rounds of 3 × 2 ordered pairs");
    for (game, _, line) in results {
        let entry: serde_json::Value = serde_json::from_str(&line).expect("a journal line");
        let gzipped = host.replay(game).await.expect("rebuilt").expect("a replay");
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gzipped[..])
            .read_to_string(&mut text)
            .expect("gzip");
        let replay: serde_json::Value = serde_json::from_str(&text).expect("replay JSON");
        for field in ["scores", "ranks", "winner"] {
            assert_eq!(
                replay["outcome"][field], entry[field],
                "game {game}: {field} of the fast path and of the full game"
            );
        }
        let names: Vec<&serde_json::Value> = replay["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| &p["name"])
            .collect();
        let bots: Vec<&serde_json::Value> =
            entry["bots"].as_array().expect("bots").iter().collect();
        assert_eq!(names, bots, "game {game}: the same players");
        assert!(entry.get("timing").is_none(), "rule bots are not timed");
    }
}

/// A scrimmage of a 4-player game: the user and the opponent, the other two seats filled with the
/// contest's house bots; the lineup turns so that each sits in every seat over four games; played
/// to the end, unrated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_player_scrimmage_fills_its_seats_with_house_bots_and_turns_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut contest = String::from(
        "name = \"s\"\ngame = \"langwars2\"\nformat = \"ladder\"\nseed = 5\n\
         [[contestants]]\nname = \"alice\"\ntoken = \"alice-token-0123456789ab\"\n\
         [[contestants]]\nname = \"bob\"\ntoken = \"bob-token-0123456789abcd\"\n",
    );
    for (name, bot) in [("g", "greedy"), ("f", "focus"), ("s", "spread")] {
        contest.push_str(&format!(
            "[[bots]]\nname = \"{name}\"\nbot = \"builtin:{bot}\"\n"
        ));
    }
    let game = arena_langwars::definitions()
        .into_iter()
        .map(arena_core::registry::stream_entry)
        .find(|g| g.id() == "langwars2")
        .expect("langwars2");
    let host = host(&contest, dir.path(), game).await;
    let mut mine = Vec::new();
    for name in ["alice", "bob"] {
        let user = host.store.user_by_name(name).await.unwrap().expect("user");
        let id = host
            .store
            .add_submission(user, "builtin", "random", None, name, 0)
            .await
            .unwrap();
        host.store.activate(user, id).await.unwrap();
        mine.push((user, id));
    }
    let alice = arena_host::store::User {
        id: mine[0].0,
        name: "alice".into(),
        role: arena_host::store::Role::Contestant,
        disabled: false,
    };
    let ids = host
        .request_scrimmage(&alice, "bob", 4)
        .await
        .expect("four games");
    let players = host.store.players().await.unwrap();
    let house: Vec<i64> = players
        .iter()
        .filter(|s| s.user == "g" || s.user == "f")
        .map(|s| s.id)
        .collect();
    let mut seen: HashMap<i64, HashSet<usize>> = HashMap::new();
    for id in &ids {
        let seats = host.store.seats(*id).await.unwrap();
        assert_eq!(seats.len(), 4, "{seats:?}");
        for (seat, submission) in seats.iter().enumerate() {
            seen.entry(*submission).or_default().insert(seat);
        }
    }
    let mut lineup: Vec<i64> = seen.keys().copied().collect();
    lineup.sort_unstable();
    let mut expected = vec![mine[0].1, mine[1].1];
    expected.extend(&house);
    expected.sort_unstable();
    assert_eq!(
        lineup, expected,
        "the two players and the first two house bots"
    );
    for (submission, seats) in &seen {
        assert_eq!(seats.len(), 4, "submission {submission} sat in every seat");
    }
    // The workers only (the ladder's scheduler would queue games of its own).
    let workers = Arc::clone(&host).spawn_workers(2, true);
    tokio::task::spawn_blocking(move || {
        for worker in workers {
            worker.join().expect("worker").expect("worker ran");
        }
    })
    .await
    .expect("joined");
    for id in &ids {
        let listed = host
            .store
            .game_listing(&arena_host::store::GameFilter {
                before: Some(id + 1),
                limit: 1,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(listed[0].state, "done", "{listed:?}");
        assert!(listed[0].players.iter().all(|p| p.rank.is_some()));
    }
    for (_, id) in &mine {
        let s = host.store.submission(*id).await.unwrap().expect("there");
        assert_eq!(s.games, 0, "scrimmages rate nobody");
    }
}

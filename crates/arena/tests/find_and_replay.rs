//! Finding a game and playing it again: the `arena play` command the tournament prints (and the
//! server and report show) reproduces the game's scores, and the server filters games by bot,
//! result, fault kind and seed, in the page and in the JSON list.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn bot_script() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots/lw_clock.py")
        .display()
        .to_string()
}

fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A langwars2 tournament in which `crashy` crashes in every game (SIGSEGV at its third answer)
/// and `steady` (a command with a working folder) plays them out, with time options to carry.
fn tournament(root: &Path) -> (PathBuf, String) {
    let out = root.join("t");
    let workdir = root.join("steady");
    std::fs::create_dir_all(&workdir).expect("workdir");
    std::fs::copy(bot_script(), workdir.join("steady.py")).expect("copy");
    let crashy = format!("crashy=python3 {} burn 0 segv", bot_script());
    let output = Command::new(ARENA)
        .current_dir(root)
        .args([
            "tournament",
            "langwars2",
            "--bot",
            &crashy,
            "--bot",
            "steady=python3 steady.py burn 1",
            "--bot",
            "greedy",
            "--bot",
            "random",
            "--workdir",
            "-",
            "--workdir",
            "steady",
            "--workdir",
            "-",
            "--workdir",
            "-",
            "--seeds",
            "1",
            "--seed",
            "11",
            "--time-scale",
            "2",
            "--grace",
            "5",
            "--clock",
            "cpu",
            "--out",
            out.to_str().expect("utf-8"),
        ])
        .output()
        .expect("arena runs");
    let stderr = ok(&output);
    (out, stderr)
}

/// The scores of `arena play`'s result table, in seat order.
fn table_scores(table: &str) -> Vec<String> {
    table
        .lines()
        .skip_while(|line| !line.starts_with("seat "))
        .skip(1)
        .take_while(|line| line.starts_with("   "))
        .map(|line| line.split_whitespace().nth(2).expect("score").to_string())
        .collect()
}

fn journal(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("journal")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect()
}

#[test]
fn the_printed_command_plays_the_same_game_again() {
    let root = tempfile::tempdir().expect("temp dir");
    let (out, console) = tournament(root.path());
    let commands: Vec<&str> = console
        .lines()
        .filter_map(|line| line.trim().strip_prefix("play it again: "))
        .collect();
    assert_eq!(
        commands.len(),
        3,
        "the first three games with faults:\n{console}"
    );
    let games = journal(&out);
    // `arena` in the command is this build.
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::os::unix::fs::symlink(ARENA, bin.join("arena")).expect("link");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (game, command) in games.iter().zip(&commands) {
        let seed = game["seed"].as_str().expect("seed text");
        assert!(command.contains(&format!("--seed {seed} ")), "{command}");
        for option in ["--time-scale 2", "--grace 5", "--clock cpu", "--workdir"] {
            assert!(command.contains(option), "{option} missing: {command}");
        }
        let replay = root.path().join("again.json");
        let output = Command::new("sh")
            .current_dir(root.path())
            .env("PATH", &path)
            .arg("-c")
            .arg(format!("{command} --replay {}", replay.display()))
            .output()
            .expect("sh runs");
        let table = String::from_utf8_lossy(&output.stdout).into_owned();
        ok(&output);
        let expected: Vec<String> = game["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .map(|s| s.as_str().map_or_else(|| s.to_string(), str::to_string))
            .collect();
        assert_eq!(table_scores(&table), expected, "{command}\n{table}");
        assert!(
            table.contains("crashed"),
            "the crash is reproduced too: {table}"
        );
    }
    // The report lists the same command beside each game.
    let report = std::fs::read_to_string(out.join("report.html")).expect("report");
    assert!(report.contains("play it again") && report.contains("arena play langwars2"));
}

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, String) {
    let response = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
        .await
        .expect("infallible");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

async fn indices(app: &axum::Router, query: &str) -> Vec<u64> {
    let (status, body) = get(app, &format!("/api/t/0?{query}")).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    let value: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let games = value["games"].as_array().expect("games");
    assert_eq!(value["count"], games.len());
    // Listed in journal order (games finish in any order on parallel workers).
    let mut found: Vec<u64> = games
        .iter()
        .map(|g| g["index"].as_u64().expect("index"))
        .collect();
    found.sort_unstable();
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_finds_games_by_bot_result_fault_and_seed() {
    let root = tempfile::tempdir().expect("temp dir");
    let out = tokio::task::spawn_blocking({
        let root = root.path().to_path_buf();
        move || tournament(&root).0
    })
    .await
    .expect("tournament");
    let mut games = journal(&out);
    games.sort_by_key(|g| g["index"].as_u64());
    // The viewer draws what the registry gives it: here the Lang Wars family.
    let drawn = arena_viewer::ViewerGames::new(
        arena_langwars::definitions()
            .into_iter()
            .map(arena_core::registry::stream_entry)
            .map(|game| (game.id(), game.viewer_script())),
    );
    let app = arena_viewer::router(&arena_viewer::ServeOptions {
        dirs: vec![out.clone()],
        files: Vec::new(),
        port: 0,
        games: drawn,
        ..Default::default()
    })
    .expect("router");
    let all: Vec<u64> = (0..games.len() as u64).collect();
    assert_eq!(indices(&app, "").await, all);
    // What each bot did, from the journal, to check the filters against.
    let expect = |keep: &dyn Fn(&serde_json::Value, usize) -> bool, bot: &str| -> Vec<u64> {
        games
            .iter()
            .filter(|g| {
                let seat = g["bots"]
                    .as_array()
                    .expect("bots")
                    .iter()
                    .position(|b| b == bot)
                    .expect("plays");
                keep(g, seat)
            })
            .map(|g| g["index"].as_u64().expect("index"))
            .collect()
    };
    let won = |g: &serde_json::Value, seat: usize| g["winner"] == seat;
    let lost = |g: &serde_json::Value, seat: usize| g["winner"] != seat && g["ranks"][seat] != 1;
    for bot in ["greedy", "steady", "crashy"] {
        let winning = expect(&won, bot);
        assert_eq!(
            indices(&app, &format!("bot={bot}&result=won")).await,
            winning,
            "{bot}"
        );
        assert_eq!(
            indices(&app, &format!("bot={bot}&result=lost")).await,
            expect(&lost, bot),
            "{bot}"
        );
    }
    assert!(indices(&app, "bot=crashy&result=won").await.is_empty());
    assert_eq!(indices(&app, "fault=crashed").await, all);
    assert_eq!(indices(&app, "bot=crashy&fault=crashed").await, all);
    assert!(indices(&app, "bot=greedy&fault=crashed").await.is_empty());
    assert!(indices(&app, "fault=timeout").await.is_empty());
    let seed = games[0]["seed"].as_str().expect("seed");
    assert_eq!(indices(&app, &format!("seed={seed}")).await, all);
    assert!(indices(&app, "seed=1").await.is_empty());
    // Each game in the JSON has its command.
    let (_, body) = get(&app, "/api/t/0?bot=crashy").await;
    let value: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert!(
        value["games"][0]["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("arena play langwars2 ") && c.contains(seed)),
        "{body}"
    );
    // The page: the form, the filtered list, the commands; a game page shows its command.
    let (status, page) = get(&app, "/t/0?bot=crashy&result=lost&fault=crashed").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("<form class=\"filters\""), "{page}");
    assert!(page.contains(&format!("{} game(s)", games.len())), "{page}");
    assert!(page.contains("arena play langwars2"), "{page}");
    let (status, viewer) = get(&app, "/g/0/replays/000000.json.gz").await;
    assert_eq!(status, StatusCode::OK, "{viewer}");
    assert!(
        viewer.contains("play it again: <code>arena play langwars2"),
        "the game page shows its command"
    );
    // Filters that mean nothing are refused with what to write.
    let (status, body) = get(&app, "/api/t/0?result=won").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("bot=NAME"), "{body}");
    let (status, body) = get(&app, "/t/0?bot=greedy&result=best").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("won, lost or drawn"), "{body}");
}

#[test]
fn the_console_lists_the_games_a_bot_lost_with_their_commands() {
    let root = tempfile::tempdir().expect("temp dir");
    let out = root.path().join("ab");
    let output = Command::new(ARENA)
        .args([
            "tournament",
            "coup",
            "--bot",
            "new=random",
            "--bot",
            "old=calculator",
            "--games",
            "20",
            "--seed",
            "2",
            "--show-lost",
            "new",
            "--out",
            out.to_str().expect("utf-8"),
        ])
        .output()
        .expect("arena runs");
    let console = ok(&output);
    let games = journal(&out);
    let lost: Vec<&serde_json::Value> = games
        .iter()
        .filter(|g| {
            let seat = g["bots"]
                .as_array()
                .expect("bots")
                .iter()
                .position(|b| b == "new")
                .expect("plays");
            g["winner"] != seat && g["ranks"][seat] != 1
        })
        .collect();
    assert!(!lost.is_empty(), "random loses to calculator");
    let listed: Vec<&str> = console
        .lines()
        .filter(|line| line.starts_with("new lost game "))
        .collect();
    assert_eq!(listed.len(), lost.len().min(3), "{console}");
    let command = console
        .lines()
        .find_map(|line| line.trim().strip_prefix("play it again: arena "))
        .expect("a command");
    let again = Command::new(ARENA)
        .args(command.split_whitespace())
        .arg("--replay")
        .arg(root.path().join("again.json"))
        .output()
        .expect("arena runs");
    let table = String::from_utf8_lossy(&again.stdout).into_owned();
    ok(&again);
    // The first listed game, in journal order as the console reads it.
    let index: u64 = listed[0]
        .trim_start_matches("new lost game ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("game index");
    let game = games
        .iter()
        .find(|g| g["index"] == index)
        .expect("the listed game");
    let expected: Vec<String> = game["scores"]
        .as_array()
        .expect("scores")
        .iter()
        .map(|s| s.as_str().expect("text").to_string())
        .collect();
    assert_eq!(table_scores(&table), expected, "{table}");
}

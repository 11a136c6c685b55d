//! `arena host` as a process: kill -9 in the middle of games several times, restart, and every
//! scheduled game is recorded exactly once, with ratings equal to the results replayed in order;
//! `arena submit` uploads through the same API as the pages.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arena_host::ladder::{self, Rating};
use arena_host::store::Store;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const ORGANISER: &str = "organiser-token-0123456789";
const ALICE: &str = "alice-token-0123456789ab";
const BOB: &str = "bob-token-0123456789abcd";

/// Starts `arena host` on a free port; returns the process and its address.
fn start(dir: &Path) -> (Child, String) {
    let mut child = Command::new(ARENA)
        .args(["host", "contest.toml", "--listen", "127.0.0.1:0"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena host starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the address line");
    let url = line
        .trim()
        .strip_prefix("arena host: ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, url)
}

fn submit(url: &str, token: &str, file: &Path) -> std::process::Output {
    Command::new(ARENA)
        .args(["submit", "--server", url, "--token", token, "--wait"])
        .arg(file)
        .output()
        .expect("arena submit runs")
}

/// Waits (at most a minute, polling the database) until `condition` holds.
async fn wait_for(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !condition().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_in_the_middle_of_games_then_restart_records_every_game_exactly_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("contest.toml"),
        format!(
            r#"
name = "kill test"
game = "spring2021"
format = "ladder"
seed = 11
workers = 2

[ladder]
placement_games = 3
max_games = 8

[[leagues]]
name = "bronze"

[[contestants]]
name = "alice"
token = "{ALICE}"

[[contestants]]
name = "bob"
token = "{BOB}"

[[organisers]]
name = "org"
token = "{ORGANISER}"

[[bots]]
name = "rnd"
bot = "builtin:random"

[[bots]]
name = "plan"
bot = "builtin:planner"
"#
        ),
    )
    .expect("contest file");
    let starter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../arena-spring2021/starters/bot.py"
    );
    let bot = dir.path().join("mybot.py");
    // The starter, 15 ms slower an answer (well inside the 100 ms limit): its games must last long
    // enough (a second or two) for the kills below to find one running on any machine.
    let source = std::fs::read_to_string(starter).expect("the starter bot");
    let slow = source
        .replacen("import sys", "import sys\nimport time", 1)
        .replacen(
            "    print(action)",
            "    time.sleep(0.015)\n    print(action)",
            1,
        );
    assert_ne!(
        slow, source,
        "the starter changed: slow it down another way"
    );
    std::fs::write(&bot, slow).expect("the bot");

    let (mut host, url) = start(dir.path());
    for token in [ALICE, BOB] {
        let out = submit(&url, token, &bot);
        assert!(
            out.status.success(),
            "arena submit: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains(": ready"));
    }
    let db = format!("sqlite://{}", dir.path().join("contest.db").display());
    let store = Store::open(&db, None)
        .await
        .expect("the contest's database");

    // Three times: once games have finished since the start and a game with a process bot is
    // running, kill -9 the server, then start it again.
    let mut kills = 0;
    for _ in 0..3 {
        let done_before = store.results().await.expect("results").len();
        wait_for("a finished game and a running one", async || {
            store.results().await.expect("results").len() > done_before
                && store.count_games("running").await.expect("count") > 0
        })
        .await;
        host.kill().expect("kill -9");
        host.wait().expect("reaped");
        kills += 1;
        let (next, _) = start(dir.path());
        host = next;
    }
    assert_eq!(kills, 3);
    // The last run plays everything out: nothing queued or running, nobody under max_games.
    wait_for("every game played", async || {
        store.count_games("queued").await.expect("count") == 0
            && store.count_games("running").await.expect("count") == 0
            && store
                .players()
                .await
                .expect("players")
                .iter()
                .all(|s| s.games >= 8)
    })
    .await;
    host.kill().expect("stop");
    host.wait().expect("reaped");

    let games = store.games(None, 10_000).await.expect("games");
    let results = store.results().await.expect("results");
    let done: Vec<_> = games.iter().filter(|g| g.state == "done").collect();
    assert!(
        games.iter().all(|g| g.state == "done"),
        "no game lost: {games:?}"
    );
    assert_eq!(results.len(), done.len(), "one result per game");
    let mut ids: Vec<i64> = results.iter().map(|r| r.0).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), results.len(), "no game recorded twice");
    assert!(
        games.iter().any(|g| g.attempts >= 2),
        "some game was interrupted by a kill and played again"
    );
    // The ratings are exactly the results applied once each, in completion order.
    let mut ratings = std::collections::HashMap::new();
    let mut played = std::collections::HashMap::new();
    for (game, _, _) in &results {
        let row = games.iter().find(|g| g.id == *game).expect("its game");
        let entry = row.entry.as_ref().expect("its journal line");
        let ranks: Vec<u32> = entry["ranks"]
            .as_array()
            .expect("ranks")
            .iter()
            .map(|r| r.as_u64().expect("rank") as u32)
            .collect();
        let before: Vec<Rating> = row
            .seats
            .iter()
            .map(|s| *ratings.get(s).unwrap_or(&Rating::default()))
            .collect();
        for (seat, after) in row.seats.iter().zip(ladder::rate(&before, &ranks)) {
            ratings.insert(*seat, after);
            *played.entry(*seat).or_insert(0) += 1;
        }
    }
    for player in store.players().await.expect("players") {
        assert_eq!(
            player.games, played[&player.id],
            "{}: games counted once",
            player.user
        );
        let expected = ratings[&player.id];
        assert!(
            (player.mu - expected.mu).abs() < 1e-9 && (player.sigma - expected.sigma).abs() < 1e-9,
            "{}: rating {} / {} against {} / {} replayed",
            player.user,
            player.mu,
            player.sigma,
            expected.mu,
            expected.sigma
        );
    }

    // The results as an `arena tournament` folder: every game once, and the statistics over them.
    let out = dir.path().join("export");
    let status = Command::new(ARENA)
        .args(["host", "contest.toml", "--export"])
        .arg(&out)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("arena host --export");
    assert!(status.success());
    let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
    assert_eq!(journal.lines().count(), results.len());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary"))
            .expect("JSON");
    assert_eq!(
        summary["stats"]["games"].as_u64(),
        Some(results.len() as u64)
    );
    assert!(out.join("report.html").is_file() && out.join("viewer.html").is_file());
}

/// A 2014 folder whose `python` is Python 2, found outside the system's folders (pyenv): the
/// server, whose sandbox was made before the upload, makes it again to show that toolchain, and
/// the bot plays in the sandbox as `arena tournament --bot FOLDER` would run it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploaded_2014_python2_folder_plays_in_the_sandbox() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("contest.toml"),
        format!(
            r#"
name = "2014"
game = "langwars"
format = "ladder"
workers = 1
time_scale = 3.0

[ladder]
placement_games = 1
max_games = 2

[[contestants]]
name = "alice"
token = "{ALICE}"

[[bots]]
name = "r1"
bot = "builtin:random"

[[bots]]
name = "r2"
bot = "builtin:random"

[[bots]]
name = "g"
bot = "builtin:greedy"
"#
        ),
    )
    .expect("contest file");
    let (mut host, url) = start(dir.path());
    let folder = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/langwars-2014-python2"
    ));
    let out = submit(&url, ALICE, folder);
    assert!(
        out.status.success(),
        "arena submit: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let db = format!("sqlite://{}", dir.path().join("contest.db").display());
    let store = Store::open(&db, None)
        .await
        .expect("the contest's database");
    let alice = store
        .players()
        .await
        .expect("players")
        .into_iter()
        .find(|p| p.user == "alice")
        .expect("alice's submission plays")
        .id;
    wait_for("two games of alice", async || {
        store
            .games(Some(alice), 100)
            .await
            .expect("games")
            .iter()
            .filter(|g| g.state == "done")
            .count()
            >= 2
    })
    .await;
    host.kill().expect("stop");
    host.wait().expect("reaped");
    for game in store.games(Some(alice), 100).await.expect("games") {
        if game.state != "done" {
            continue;
        }
        let entry = game.entry.expect("a journal line");
        let seat = game
            .seats
            .iter()
            .position(|&s| s == alice)
            .expect("her seat");
        assert_eq!(
            entry["faults"][seat],
            serde_json::json!([]),
            "game {}: her bot played every turn: {entry}",
            game.id
        );
    }
}

/// `arena submit` says what went wrong: an upload over the contest's limit (refused before the
/// server reads it), a wrong token, a build that fails (exit status 1, the log printed).
#[test]
fn arena_submit_reports_limits_tokens_and_failed_builds() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("contest.toml"),
        format!(
            "name = \"s\"\ngame = \"spring2021\"\nformat = \"ladder\"\n[limits]\nupload_bytes = 1000\n\
             [[contestants]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n"
        ),
    )
    .expect("contest file");
    let (mut host, url) = start(dir.path());
    let big = dir.path().join("big.py");
    std::fs::write(&big, "#".repeat(5000)).expect("file");
    let out = submit(&url, ALICE, &big);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("5000 bytes, over this contest's limit of 1000 bytes"),
        "{text}"
    );

    let bot = dir.path().join("bot.cpp");
    std::fs::write(&bot, "int main() { nope }").expect("file");
    let out = submit(&url, "a-wrong-token-of-some-length", &bot);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown token"));

    let out = submit(&url, ALICE, &bot);
    assert_eq!(out.status.code(), Some(1), "a failed build");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the build failed") && text.ends_with(": failed\n"),
        "{text}"
    );
    host.kill().expect("stop");
    host.wait().expect("reaped");
}

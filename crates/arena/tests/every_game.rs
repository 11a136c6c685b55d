//! Every registered game, whatever it is, goes through the same paths: its rules page, a game of
//! built-in bots and one with a process bot (`arena bot`, the game's real protocol), the replay in
//! the viewer and against the schema, its starter in every language (`arena new`) in a game, a tournament
//! with its summary, and a contest (`arena host`, a starter uploaded with `arena submit`). The games are read from
//! `arena list`, so a game added to the registry is tested here without touching this file (the
//! template game, connect4, proves it).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::schemas::{check, schemas};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

fn succeeded(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// (game, players, built-in bots) from `arena list`.
fn registered() -> Vec<(String, usize, Vec<String>)> {
    let listing = succeeded(&arena(&["list"]), "arena list");
    let mut games: Vec<(String, usize, Vec<String>)> = Vec::new();
    for line in listing.lines() {
        if let Some(bot) = line.trim().strip_prefix("builtin:") {
            let name = bot.split_whitespace().next().expect("a bot name");
            games
                .last_mut()
                .expect("a game first")
                .2
                .push(name.to_string());
        } else if let Some((id, rest)) = line.split_once(" (")
            && let Some(players) = rest.split_once(" players)")
        {
            let players = players.0.parse().expect("a number of players");
            games.push((id.to_string(), players, Vec::new()));
        }
    }
    games
}

#[test]
fn every_registered_game_plays_views_and_runs_a_tournament() {
    let games = registered();
    assert!(
        games.iter().any(|(id, _, _)| id == "connect4"),
        "the template game is registered: {games:?}"
    );
    let schemas = schemas();
    let dir = tempfile::tempdir().expect("temp dir");
    for (game, players, bots) in &games {
        // Untimed bots keep the test quick: a searching one is played by the game's own tests.
        let plain: Vec<&str> = bots
            .iter()
            .map(String::as_str)
            .filter(|bot| !["montecarlo", "search", "legend", "oracle", "king"].contains(bot))
            .collect();
        assert!(plain.len() >= 2, "{game}: at least two built-in bots");
        let seat = |i: usize| plain[i % plain.len()];

        let rules = succeeded(&arena(&["protocol", game]), "arena protocol");
        assert!(rules.len() > 500, "{game}: a rules page");

        // Built-in bots, then the first seat as a process on the real protocol.
        for process in [false, true] {
            let replay = dir.path().join(format!("{game}-{process}.json"));
            let command = format!("{ARENA} bot {game} {}", seat(0));
            let mut args = vec![
                "play",
                game.as_str(),
                "--seed",
                "11",
                "--replay",
                text(&replay),
            ];
            for i in 0..*players {
                args.push("--bot");
                args.push(if process && i == 0 {
                    command.as_str()
                } else {
                    seat(i)
                });
            }
            succeeded(&arena(&args), &format!("{game}: arena play"));
            let record: Value =
                serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay"))
                    .expect("JSON");
            check(&schemas.replay, &record, &format!("{game} replay"));
            assert_eq!(record["game"], game.as_str());
            assert!(
                record["players"][0]["faults"]
                    .as_array()
                    .is_none_or(Vec::is_empty),
                "{game}: the process bot played without faults: {}",
                record["players"][0]
            );
            let page = dir.path().join(format!("{game}-{process}.html"));
            succeeded(
                &arena(&["export", text(&replay), "--output", text(&page)]),
                &format!("{game}: arena export"),
            );
            let html = std::fs::read_to_string(&page).expect("page");
            assert!(
                html.contains(&format!("\"{game}\"")),
                "{game}: the page carries the game's drawing"
            );
        }

        // The game's starters, as `arena new` writes them, play a game without a fault in every
        // language the game has one for, and end cleanly when the game is over (the referee closes
        // their input), not with an error at the read after the last turn.
        let mut languages = 0;
        for lang in ["python3", "cpp", "java", "javascript", "typescript"] {
            let starter = dir.path().join(format!("{game}-starter-{lang}"));
            let made = arena(&["new", game, "--lang", lang, text(&starter)]);
            if !made.status.success() {
                let error = String::from_utf8_lossy(&made.stderr);
                assert!(
                    error.contains("no starter") || error.contains("starters"),
                    "{game} {lang}: arena new failed otherwise: {error}"
                );
                continue;
            }
            languages += 1;
            let replay = dir.path().join(format!("{game}-starter-{lang}.json"));
            // The time scale also stretches the moment a bot has to exit by itself at the end
            // (30 ms), which a loaded machine may not schedule it in.
            let mut args = vec![
                "play",
                game.as_str(),
                "--seed",
                "12",
                "--time-scale",
                "20",
                "--replay",
                text(&replay),
            ];
            args.extend(["--bot", text(&starter)]);
            for i in 1..*players {
                args.extend(["--bot", seat(i)]);
            }
            succeeded(&arena(&args), &format!("{game}: the {lang} starter plays"));
            let record: Value =
                serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay"))
                    .expect("JSON");
            assert!(
                record["players"][0]["faults"]
                    .as_array()
                    .is_none_or(Vec::is_empty),
                "{game}: the {lang} starter played without faults: {}",
                record["players"][0]
            );
            if let Some(status) = record["players"][0]["exit_status"].as_str() {
                assert_eq!(
                    status, "exited (code 0)",
                    "{game} {lang}: {}",
                    record["players"][0]
                );
            }
        }
        assert!(
            languages >= 4,
            "{game}: starters in the four starter languages"
        );

        let out = dir.path().join(format!("{game}-tournament"));
        let mut args = vec!["tournament", game.as_str(), "--games", "8", "--jobs", "2"];
        for bot in plain.iter().take(3) {
            args.push("--bot");
            args.push(bot);
        }
        args.extend_from_slice(&["--out", text(&out)]);
        succeeded(&arena(&args), &format!("{game}: arena tournament"));
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
        )
        .expect("JSON");
        check(&schemas.summary, &summary, &format!("{game} summary"));
        let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
        assert!(
            journal.lines().count() >= 8,
            "{game}: the games are journaled"
        );
        for line in journal.lines() {
            let line: Value = serde_json::from_str(line).expect("JSON line");
            check(&schemas.line, &line, &format!("{game} results line"));
        }
    }
}

/// Every registered game runs as a contest: `arena host` with the game's built-in bots as house
/// bots and a contestant's starter (`arena new`) uploaded with `arena submit`; her games are played
/// and recorded without a fault.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_registered_game_runs_as_a_contest() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    const ALICE: &str = "alice-token-0123456789ab";
    for (game, players, bots) in registered() {
        let plain: Vec<&str> = bots
            .iter()
            .map(String::as_str)
            .filter(|bot| !["montecarlo", "search", "legend", "oracle", "king"].contains(bot))
            .collect();
        let dir = tempfile::tempdir().expect("temp dir");
        // Coup's contest sets one of the game's own options; its replays must show the rules it
        // set (workers make the game from the contest's copy in the database).
        let options = if game == "coup" {
            "\n[options]\nstrict-moves = true\ncall-limit-ms = 9000\n"
        } else {
            ""
        };
        let mut house = String::new();
        for i in 0..players.max(2) {
            house.push_str(&format!(
                "\n[[bots]]\nname = \"house{i}\"\nbot = \"builtin:{}\"\n",
                plain[i % plain.len()]
            ));
        }
        std::fs::write(
            dir.path().join("contest.toml"),
            format!(
                "name = \"{game}\"\ngame = \"{game}\"\nformat = \"ladder\"\nworkers = 1\n\
                 time_scale = 3.0\n\n[ladder]\nplacement_games = 1\nmax_games = 2\n\n\
                 [[contestants]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n{house}{options}"
            ),
        )
        .expect("contest file");
        let starter = dir.path().join("starter");
        succeeded(
            &arena(&["new", &game, "--lang", "python3", text(&starter)]),
            &format!("{game}: arena new"),
        );
        let mut host = Command::new(ARENA)
            .args(["host", "contest.toml", "--listen", "127.0.0.1:0"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("arena host starts");
        let mut line = String::new();
        BufReader::new(host.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the address line");
        let url = line
            .trim()
            .strip_prefix("arena host: ")
            .unwrap_or_else(|| panic!("{game}: unexpected first line {line:?}"))
            .trim_end_matches('/')
            .to_string();
        let submitted = arena(&[
            "submit",
            "--server",
            &url,
            "--token",
            ALICE,
            "--wait",
            text(&starter),
        ]);
        succeeded(&submitted, &format!("{game}: arena submit"));
        let db = format!("sqlite://{}", dir.path().join("contest.db").display());
        let store = arena_host::store::Store::open(&db, None)
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
        let deadline = Instant::now() + Duration::from_secs(120);
        let done = loop {
            let done: Vec<_> = store
                .games(Some(alice), 100)
                .await
                .expect("games")
                .into_iter()
                .filter(|g| g.state == "done")
                .collect();
            if done.len() >= 2 {
                break done;
            }
            assert!(
                Instant::now() < deadline,
                "{game}: alice's games were not played"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        if game == "coup" {
            let replay = store
                .replay(done[0].id)
                .await
                .expect("replay")
                .expect("a process game keeps its replay");
            let mut json = String::new();
            std::io::Read::read_to_string(
                &mut flate2::read::GzDecoder::new(&replay[..]),
                &mut json,
            )
            .expect("gzip");
            let record: Value = serde_json::from_str(&json).expect("replay JSON");
            assert_eq!(
                record["config"]["strict_moves"], true,
                "{}",
                record["config"]
            );
            assert_eq!(
                record["config"]["time_limit_ms"], 9000,
                "{}",
                record["config"]
            );
        }
        let _ = host.kill();
        let _ = host.wait();
        for played in done {
            let entry = played.entry.expect("a journal line");
            let seat = played
                .seats
                .iter()
                .position(|&s| s == alice)
                .expect("her seat");
            assert_eq!(
                entry["faults"][seat],
                serde_json::json!([]),
                "{game}, game {}: her starter played every turn: {entry}",
                played.id
            );
        }
    }
}

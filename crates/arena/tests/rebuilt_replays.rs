//! Games between built-in bots keep no replay file by default: they are played again from their seed
//! when watched. The rebuilt replay must be the very replay `--replays all` stores, for every game,
//! and a journal that no longer matches what the bots play must be refused, not shown.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "arena failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn path_text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn gunzip(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).expect("stored replay");
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

fn stored_replays(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("replays")).map_or(0, |entries| {
        entries
            .filter(|entry| {
                entry
                    .as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".json.gz"))
            })
            .count()
    })
}

/// Runs the same tournament twice, by default and with `--replays all`, and checks that every
/// game's rebuilt replay equals the stored one byte for byte.
fn rebuilt_equals_stored(game_args: &[&str]) {
    let root = tempfile::tempdir().expect("temp dir");
    let default_dir = root.path().join("default");
    let all_dir = root.path().join("all");
    for (dir, extra) in [
        (&default_dir, &[][..]),
        (&all_dir, &["--replays", "all"][..]),
    ] {
        let mut args = vec!["tournament"];
        args.extend_from_slice(game_args);
        args.extend_from_slice(&["--jobs", "2", "--out", path_text(dir)]);
        args.extend_from_slice(extra);
        succeeded(&arena(&args));
    }
    assert_eq!(
        stored_replays(&default_dir),
        0,
        "{game_args:?}: games between built-in bots store no replay by default"
    );
    let games = std::fs::read_to_string(all_dir.join("results.jsonl"))
        .expect("journal")
        .lines()
        .count() as u64;
    assert!(games >= 4, "{game_args:?}");
    assert_eq!(stored_replays(&all_dir) as u64, games, "{game_args:?}");
    for index in 0..games {
        let out = root.path().join(format!("{index}.json"));
        succeeded(&arena(&[
            "replay",
            path_text(&default_dir),
            &index.to_string(),
            "-o",
            path_text(&out),
        ]));
        let rebuilt = std::fs::read(&out).expect("written");
        let stored = gunzip(&all_dir.join(format!("replays/{index:06}.json.gz")));
        assert!(
            rebuilt == stored,
            "{game_args:?} game {index}: the rebuilt replay differs from the stored one"
        );
    }
}

/// The rule bots of each game (the built-ins that search are timed: their games keep their
/// replays, see below).
const LANG_WARS_RULE_BOTS: [&str; 8] = [
    "--bot", "random", "--bot", "spread", "--bot", "focus", "--bot", "greedy",
];

#[test]
fn every_game_rebuilds_to_the_replay_that_would_have_been_stored() {
    let with = |args: &[&'static str], bots: &[&'static str]| -> Vec<&'static str> {
        args.iter().chain(bots).copied().collect()
    };
    rebuilt_equals_stored(&with(
        &["langwars2", "--seed", "3", "--games", "8"],
        &LANG_WARS_RULE_BOTS,
    ));
    rebuilt_equals_stored(&with(
        &["negotiate", "--seed", "4", "--games", "4"],
        &LANG_WARS_RULE_BOTS,
    ));
    rebuilt_equals_stored(&with(
        &["langwars", "--seed", "5", "--games", "4"],
        &LANG_WARS_RULE_BOTS,
    ));
    let spring = [
        "--bot", "random", "--bot", "wood2", "--bot", "wood1", "--bot", "planner",
    ];
    rebuilt_equals_stored(&with(
        &[
            "spring2021",
            "--seed",
            "6",
            "--games",
            "6",
            "--league",
            "wood1",
        ],
        &spring,
    ));
    rebuilt_equals_stored(&with(
        &["spring2021", "--seed", "7", "--games", "6"],
        &spring,
    ));
    rebuilt_equals_stored(&with(
        &["coup", "--seed", "8", "--games", "10"],
        &["--bot", "random", "--bot", "calculator", "--bot", "taxman"],
    ));
    // Coup's own options are kept in the plan: the rebuilt games use the same deck.
    rebuilt_equals_stored(&[
        "coup",
        "--seed",
        "9",
        "--games",
        "6",
        "--deck",
        "_0'<'<0<_=0=_'=",
        "--no-shuffle",
        "--bot",
        "random",
        "--bot",
        "calculator",
    ]);
}

/// Games with a built-in that searches keep their replays by default: its answer times are
/// measurements, which no rebuild gives back.
#[test]
fn games_with_a_searching_builtin_store_their_replays() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    succeeded(&arena(&[
        "tournament",
        "langwars2",
        "--seed",
        "3",
        "--games",
        "20",
        "--time-scale",
        "20",
        "--bot",
        "montecarlo",
        "--bot",
        "greedy",
        "--bot",
        "focus",
        "--bot",
        "random",
        "--bot",
        "spread",
        "--out",
        path_text(&dir),
    ]));
    let journal = std::fs::read_to_string(dir.join("results.jsonl")).expect("journal");
    let with_search = journal
        .lines()
        .filter(|line| line.contains("\"montecarlo\""))
        .count();
    assert!(with_search > 0 && with_search < journal.lines().count());
    assert_eq!(stored_replays(&dir), with_search);
}

#[test]
fn a_journal_that_the_bots_no_longer_reproduce_is_refused() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    succeeded(&arena(&[
        "tournament",
        "spring2021",
        "--seed",
        "11",
        "--games",
        "4",
        "--out",
        path_text(&dir),
    ]));
    let journal = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&journal).expect("journal");
    // Edited as text: the journal's lines start with their index, as arena writes them.
    let edited: String = text
        .lines()
        .map(|line| {
            if line.starts_with("{\"index\":2,") {
                let entry: serde_json::Value = serde_json::from_str(line).expect("json line");
                let score: i64 = entry["scores"][0]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .expect("an integer score, as text");
                let scores = format!("\"scores\":[\"{score}\",");
                line.replacen(&scores, &format!("\"scores\":[\"{}\",", score + 1), 1)
            } else {
                line.to_string()
            }
        })
        .map(|line| line + "\n")
        .collect();
    assert_ne!(edited, text);
    std::fs::write(&journal, edited).expect("rewrite");

    let out = root.path().join("x.json");
    let refused = arena(&["replay", path_text(&dir), "2", "-o", path_text(&out)]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("changed since"), "{said}");
    assert!(
        !out.exists(),
        "no replay is written for a game that differs"
    );
    // The other games still rebuild.
    succeeded(&arena(&[
        "replay",
        path_text(&dir),
        "1",
        "-o",
        path_text(&out),
    ]));
    // A game that was never scheduled, and one not played yet, say so.
    let missing = arena(&["replay", path_text(&dir), "99"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no game 99"));
}

#[test]
fn a_resumed_coup_tournament_keeps_its_own_options() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    succeeded(&arena(&[
        "tournament",
        "coup",
        "--seed",
        "12",
        "--games",
        "2",
        "--deck",
        "_0'<'<0<_=0=_'=",
        "--out",
        path_text(&dir),
    ]));
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).expect("plan"))
            .expect("json");
    assert_eq!(plan["settings"]["game_options"]["deck"], "_0'<'<0<_=0=_'=");
    let other = arena(&[
        "tournament",
        "--resume",
        path_text(&dir),
        "--deck",
        "_0'<'<0<_=0=_=='",
    ]);
    assert!(!other.status.success());
    let refused = String::from_utf8_lossy(&other.stderr);
    assert!(
        refused.contains("these options differ from it")
            && refused.contains("--deck _0'<'<0<_=0=_==' (the plan's: _0'<'<0<_=0=_'=)"),
        "{refused}"
    );
    succeeded(&arena(&["tournament", "--resume", path_text(&dir)]));
}

/// One HTTP/1.0 GET on loopback: the status line and the body.
fn get(addr: &str, path: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("request");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("response");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers end");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head.lines().next().unwrap_or_default().to_string();
    (status, response[split + 4..].to_vec())
}

#[test]
fn the_server_shows_games_between_built_in_bots_by_playing_them_again() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    succeeded(&arena(&[
        "tournament",
        "langwars2",
        "--seed",
        "13",
        "--games",
        "4",
        "--out",
        path_text(&dir),
    ]));
    let mut server = Command::new(ARENA)
        .args(["serve", "--dir", path_text(&dir), "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut first = String::new();
    BufReader::new(server.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("the URL line");
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("an address")
        .to_string();

    let (status, page) = get(&addr, "/t/0");
    assert!(status.contains("200"), "{status}");
    let page = String::from_utf8_lossy(&page);
    assert!(
        page.contains("href=\"/g/0/replays/000003.json.gz\""),
        "every game between built-in bots has a link"
    );
    let (status, viewer) = get(&addr, "/g/0/replays/000003.json.gz");
    assert!(status.contains("200"), "{status}");
    assert!(String::from_utf8_lossy(&viewer).contains("<script"));
    let (status, raw) = get(&addr, "/raw/0/replays/000003.json.gz");
    assert!(status.contains("200"), "{status}");
    let out = root.path().join("3.json");
    succeeded(&arena(&[
        "replay",
        path_text(&dir),
        "3",
        "-o",
        path_text(&out),
    ]));
    assert!(raw == std::fs::read(&out).expect("written"));
    let (status, _) = get(&addr, "/raw/0/replays/000042.json.gz");
    assert!(
        status.contains("404"),
        "a game that does not exist: {status}"
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// `jq -r .seed` over the journal, fed back to `arena play --seed`, plays the same game: seeds are
/// written as text, which jq does not round (as numbers above 2^53 it would).
#[test]
fn a_seed_read_with_jq_replays_the_game() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("t");
    succeeded(&arena(&[
        "tournament",
        "spring2021",
        "--seed",
        "13202931382145363662",
        "--games",
        "6",
        // The default lineup has a built-in that searches and is timed: on the CPU clock with
        // room to spare, a loaded machine cannot make it time out in one play and not the other.
        "--clock",
        "cpu",
        "--time-scale",
        "10",
        "--out",
        path_text(&dir),
    ]));
    let journal = dir.join("results.jsonl");
    let jq = Command::new("jq")
        .args([
            "-r",
            "[.seed, (.bots | join(\" \")), (.scores | map(tostring) | join(\" \"))] | join(\"|\")",
        ])
        .arg(&journal)
        .output()
        .expect("jq runs (scripts/test installs it)");
    succeeded(&jq);
    let text = String::from_utf8(jq.stdout).expect("utf-8");
    let mut big = 0;
    for line in text.lines() {
        let mut fields = line.split('|');
        let (seed, bots, scores) = (
            fields.next().expect("seed"),
            fields.next().expect("bots"),
            fields.next().expect("scores"),
        );
        if seed.parse::<u64>().expect("a decimal seed") > 1 << 53 {
            big += 1;
        }
        let replay = root.path().join("replay.json");
        let mut args = vec![
            "play",
            "spring2021",
            "--seed",
            seed,
            "--clock",
            "cpu",
            "--time-scale",
            "10",
            "--replay",
            path_text(&replay),
        ];
        for bot in bots.split(' ') {
            args.extend(["--bot", bot]);
        }
        succeeded(&arena(&args));
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&replay).expect("replay")).expect("json");
        let played: Vec<String> = record["outcome"]["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .map(|s| s.to_string().trim_matches('"').to_string())
            .collect();
        assert_eq!(played.join(" "), scores, "seed {seed}");
    }
    assert!(big > 0, "the test needs seeds above 2^53");
}

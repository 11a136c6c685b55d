//! The JSON Schemas in `docs/schema/` (draft 2020-12) against real outputs of every game: the
//! plan, each line of `results.jsonl`, `summary.json` and every replay, from tournaments with process bots
//! (timing, exit statuses), faults, a sequential test and `arena play`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::schemas::{Schemas, check, schemas};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
fn gunzip(path: &Path) -> Value {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).expect("replay"))
        .read_to_string(&mut text)
        .expect("gzip");
    serde_json::from_str(&text).expect("JSON")
}

/// The format type reads `value` back to the same JSON: the public type is the written format,
/// field for field (the schema is generated from that type).
fn same_through<T: serde::Serialize + serde::de::DeserializeOwned>(value: &Value, what: &str) {
    let typed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{what}: not read by its format type: {e}"));
    let again = serde_json::to_value(&typed).expect("encodes");
    assert_eq!(&again, value, "{what}: its format type changes it");
}

fn run(args: &[&str]) {
    let output = Command::new(ARENA).args(args).output().expect("arena runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Validates a tournament folder's plan, journal, summary and replays; returns how many replays.
fn check_tournament(schemas: &Schemas, dir: &Path, game: &str) -> usize {
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).expect("plan"))
            .expect("JSON");
    check(&schemas.plan, &plan, &format!("{game} tournament.json"));
    same_through::<arena_formats::Plan>(&plan, &format!("{game} tournament.json"));
    let journal = std::fs::read_to_string(dir.join("results.jsonl")).expect("journal");
    assert!(!journal.is_empty());
    for line in journal.lines() {
        let value: Value = serde_json::from_str(line).expect("JSON line");
        check(&schemas.line, &value, &format!("{game} results.jsonl"));
        same_through::<arena_formats::Entry>(&value, &format!("{game} results.jsonl"));
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary"))
            .expect("JSON");
    check(&schemas.summary, &summary, &format!("{game} summary.json"));
    let mut replays = 0;
    for entry in std::fs::read_dir(dir.join("replays")).expect("replays") {
        let path = entry.expect("entry").path();
        if path.to_string_lossy().ends_with(".json.gz") {
            let replay = gunzip(&path);
            check(&schemas.replay, &replay, &path.display().to_string());
            same_through::<arena_formats::Replay>(&replay, &path.display().to_string());
            replays += 1;
        }
    }
    replays
}

#[test]
fn every_game_writes_what_the_schemas_describe() {
    let schemas = schemas();
    let root = tempfile::tempdir().expect("temp dir");
    let crashy = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots/lw_clock.py");
    let cases: [(&str, Vec<String>, &[&str]); 5] = [
        (
            "langwars",
            vec![
                format!("proc={ARENA} bot langwars greedy"),
                "random".into(),
                "focus".into(),
                "spread".into(),
            ],
            &[],
        ),
        (
            "langwars2",
            vec![
                format!("crashy=python3 {} burn 0 segv", crashy.display()),
                format!("proc={ARENA} bot langwars2 greedy"),
                "random".into(),
                "focus".into(),
            ],
            &["--clock", "cpu"],
        ),
        (
            "negotiate",
            vec![
                format!("proc={ARENA} bot negotiate greedy"),
                "random".into(),
                "focus".into(),
                "spread".into(),
            ],
            &["--grace", "20"],
        ),
        (
            "spring2021",
            vec![
                format!("proc={ARENA} bot spring2021 planner"),
                "wood1".into(),
            ],
            &["--league", "wood1", "--sprt", "0", "50"],
        ),
        (
            "coup",
            vec![
                format!("proc={ARENA} bot coup calculator"),
                "challenger".into(),
            ],
            &["--no-shuffle", "--strict-moves"],
        ),
    ];
    for (game, bots, extra) in &cases {
        let out = root.path().join(game);
        let mut args = vec![
            "tournament",
            game,
            "--seeds",
            "1",
            "--seed",
            "8",
            "--replays",
            "all",
        ];
        for bot in bots {
            args.extend(["--bot", bot.as_str()]);
        }
        args.extend_from_slice(extra);
        args.extend(["--out", out.to_str().expect("utf-8")]);
        run(&args);
        let replays = check_tournament(&schemas, &out, game);
        assert!(replays >= 2, "{game}: {replays} replays");
        // `arena play`'s replay too.
        let replay = root.path().join(format!("{game}.json"));
        let mut args = vec!["play", game, "--seed", "18446744073709551615"];
        for bot in bots {
            args.extend(["--bot", bot.as_str()]);
        }
        args.extend_from_slice(
            extra
                .iter()
                .take_while(|a| **a != "--sprt")
                .copied()
                .collect::<Vec<_>>()
                .as_slice(),
        );
        args.extend(["--replay", replay.to_str().expect("utf-8")]);
        run(&args);
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("JSON");
        check(&schemas.replay, &record, &format!("{game} play"));
        same_through::<arena_formats::Replay>(&record, &format!("{game} play"));
        assert_eq!(record["seed"], "18446744073709551615");
    }
}

#[test]
fn the_schemas_refuse_what_arena_does_not_write() {
    let schemas = schemas();
    let line: Value = serde_json::json!({
        "index": 0, "game": "coup", "seed": "2092789425003139053", "pair": 0, "seats": [0, 1],
        "bots": ["a", "b"], "scores": ["0", "1"], "score_values": [0.0, 1.0], "ranks": [2, 1],
        "winner": 1, "faults": [[], []], "replay": null
    });
    check(&schemas.line, &line, "a valid line");
    for (field, bad) in [
        ("seed", serde_json::json!(2092789425003139053u64)),
        ("scores", serde_json::json!([0, 1])),
        ("faults", serde_json::json!([["late"], []])),
        ("game", serde_json::json!("Chess Game")),
    ] {
        let mut changed = line.clone();
        changed[field] = bad;
        assert!(!schemas.line.is_valid(&changed), "{field} accepted");
    }
    let mut extra = line.clone();
    extra["global_fit"] = serde_json::json!({"Ok": 1});
    assert!(!schemas.line.is_valid(&extra), "unknown fields are refused");
    let replay = serde_json::json!({
        "format": 1, "game": "langwars2", "config": "lw2", "seed": "4",
        "time_policy": {"policy": "strict"}, "players": [], "steps": [],
        "outcome": {"scores": [], "score_values": [], "winner": null, "ranks": []}
    });
    assert!(!schemas.replay.is_valid(&replay), "a game has players");
    let mut coup = replay.clone();
    coup["game"] = "coup".into();
    coup["players"] = serde_json::json!([
        {"name": "a", "spec": "builtin:a", "answers": 0, "max_answer_us": 0, "total_answer_us": 0},
        {"name": "b", "spec": "x", "answers": 0, "max_answer_us": 0, "total_answer_us": 0,
         "exit_status": "signal: 9 (SIGKILL)"}
    ]);
    assert!(
        !schemas.replay.is_valid(&coup),
        "Coup's config is an object; exits are in words"
    );
}

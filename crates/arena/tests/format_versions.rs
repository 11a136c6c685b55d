//! Files from a newer arena are refused with a message that says what wrote them, never misread:
//! a replay (`arena export`, the viewer behind `arena view` and `arena serve`) and a tournament
//! folder (`tournament.json` versions the folder, its journal included: `--resume`, `arena
//! replay`). Files of this arena and of arena 0.2 (no `arena` field) open.

use std::path::Path;
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn set_fields(path: &Path, fields: &[(&str, serde_json::Value)]) {
    let mut document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("file")).expect("JSON");
    for (name, value) in fields {
        document[*name] = value.clone();
    }
    std::fs::write(path, document.to_string()).expect("rewritten");
}

#[test]
fn a_replay_of_a_newer_format_is_refused_and_says_who_wrote_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let replay = dir.path().join("game.json");
    let page = dir.path().join("game.html");
    let played = arena(&[
        "play",
        "coup",
        "--bot",
        "calculator",
        "--bot",
        "lawyer",
        "--seed",
        "3",
        "--replay",
        text(&replay),
    ]);
    assert!(played.status.success(), "{}", stderr(&played));
    // This arena's own replay exports.
    let exported = arena(&["export", text(&replay), "--output", text(&page)]);
    assert!(exported.status.success(), "{}", stderr(&exported));

    set_fields(&replay, &[("format", 2.into()), ("arena", "9.1.0".into())]);
    let refused = arena(&["export", text(&replay), "--output", text(&page)]);
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(
        message.contains("format 2, written by arena 9.1.0")
            && message.contains("reads replay formats up to 1")
            && message.contains("newer arena"),
        "{message}"
    );
}

#[test]
fn a_tournament_folder_of_a_newer_format_is_refused_and_an_old_one_resumes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let run = arena(&[
        "tournament",
        "coup",
        "--bot",
        "calculator",
        "--bot",
        "lawyer",
        "--games",
        "4",
        "--jobs",
        "1",
        "--out",
        text(&out),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let plan = out.join("tournament.json");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).expect("plan")).expect("JSON");
    assert_eq!(written["format"], 1);
    assert_eq!(
        written["arena"],
        env!("CARGO_PKG_VERSION"),
        "the plan names its writer"
    );

    // A plan of arena 0.2 has no `arena` field: it still opens.
    let mut old = written.clone();
    old.as_object_mut().expect("object").remove("arena");
    std::fs::write(&plan, old.to_string()).expect("rewritten");
    let resumed = arena(&["tournament", "--resume", text(&out)]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));

    set_fields(&plan, &[("format", 7.into()), ("arena", "9.1.0".into())]);
    for args in [
        vec!["tournament", "--resume", text(&out)],
        vec![
            "replay",
            text(&out),
            "0",
            "--output",
            text(&dir.path().join("r.json")),
        ],
    ] {
        let refused = arena(&args);
        assert!(!refused.status.success(), "{args:?}");
        let message = stderr(&refused);
        assert!(
            message.contains("format 7, written by arena 9.1.0")
                && message.contains("tournament folder formats up to 1"),
            "{args:?}: {message}"
        );
    }
}

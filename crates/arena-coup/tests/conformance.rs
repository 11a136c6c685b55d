//! The reference arbiter's recorded games (shared `conformance/coup.jsonl`, copied here) replay exactly.

use std::path::Path;

#[test]
fn coup_jsonl_conforms() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/coup.jsonl");
    let text = std::fs::read_to_string(&path).expect("transcripts readable");
    let cases = arena_coup::conformance_text(&text).expect("transcripts readable");
    assert_eq!(cases.len(), 100);
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| c.difference.as_ref().map(|d| format!("{}: {d}", c.label)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_changed_answer_is_reported() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/coup.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut game: arena_coup::entry::Transcript =
        serde_json::from_str(text.lines().next().unwrap()).unwrap();
    game.calls[0].args[1] = "2".into();
    let difference = arena_coup::check_transcript(&game).expect("a difference");
    assert!(difference.starts_with("call 0: arguments"), "{difference}");
}

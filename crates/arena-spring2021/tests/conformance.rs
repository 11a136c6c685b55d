//! All 120 official transcripts (40 per league) must conform, input line by input line.

use std::path::Path;

/// The game as the front ends see it.
fn entry() -> Box<dyn arena_core::registry::GameEntry> {
    arena_core::registry::stream_entry(arena_spring2021::definition())
}

fn check(file: &str) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let cases = entry().conformance(&path).expect("transcript file reads");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            case.difference
                .as_ref()
                .map(|d| format!("{}: {d}", case.label))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} games differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases.len()
}

#[test]
fn league1_wood2_conforms() {
    assert_eq!(check("spring2021-league1.jsonl"), 40);
}

#[test]
fn league2_wood1_conforms() {
    assert_eq!(check("spring2021-league2.jsonl"), 40);
}

#[test]
fn league3_bronze_conforms() {
    assert_eq!(check("spring2021-league3.jsonl"), 40);
}

/// The three built-in bosses answer exactly as the official boss files did, turn by turn, in every
/// league (8 seeds × 3 leagues × 3 bosses).
#[test]
fn bosses_play_the_official_moves() {
    assert_eq!(check("spring2021-bosses.jsonl"), 72);
}

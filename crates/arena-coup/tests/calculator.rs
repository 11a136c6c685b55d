//! `calculator` answers as the published Calculator does.
//!
//! `tests/data/calculator_calls.jsonl` holds 1 500 calls of the published bot (Python 2, run as a
//! process by `arena tournament` against the built-ins `random`, `lawyer`, `challenger`, `bandit`,
//! `taxman`, `assassin`, `oracle`, `king` and `calculator`), each with more than one legal answer or
//! an Exchange to complete: the history file before the call, its arguments after the file name, what
//! it appended to the history and what it printed. They are data about that bot, not its code (which
//! is not in this repository). The built-in reads back from the history the flags the published bot
//! keeps in a file, and that reading is approximate where the history does not show which plan a move
//! served, so a few answers differ; the test bounds how many.

use std::path::Path;

use arena_core::game::Bot;
use arena_coup::bots::read_history;
use arena_coup::calculator::Calculator;
use arena_coup::rules::{Cards, CoupObs, Legal, Move};
use serde::Deserialize;

#[derive(Deserialize)]
struct Call {
    history: String,
    args: Vec<String>,
    wrote: String,
    printed: String,
    against: String,
}

fn obs_of(call: &Call) -> CoupObs {
    let cards = Cards::parse_reveal(&call.args[2]).expect("cards");
    let moves: Vec<Move> = call.args[3..]
        .iter()
        .map(|m| Move::parse(m.as_bytes()).expect("a legal move"))
        .collect();
    CoupObs {
        player: read_history(&call.history).me,
        history: call.history.clone(),
        opp_coins: call.args[0].parse().expect("coins"),
        my_coins: call.args[1].parse().expect("coins"),
        cards,
        keep: cards.len().saturating_sub(2),
        legal: Legal::from_moves(&moves),
        strict_moves: false,
    }
}

fn sorted(text: &str) -> Vec<char> {
    let mut chars: Vec<char> = text.chars().collect();
    chars.sort();
    chars
}

#[test]
fn answers_as_the_published_calculator() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/calculator_calls.jsonl");
    let text = std::fs::read_to_string(path).expect("recorded calls readable");
    let calls: Vec<Call> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("a recorded call"))
        .collect();
    assert_eq!(calls.len(), 1500);
    let (mut differ, mut keeps, mut keeps_differ) = (Vec::new(), 0, 0);
    for (index, call) in calls.iter().enumerate() {
        let obs = obs_of(call);
        let action = Calculator::new(index as u64).act(&obs);
        let mut wrote = action.junk.map(String::from).unwrap_or_default();
        wrote.push_str(action.wrote.as_str());
        if wrote != call.wrote {
            differ.push(format!(
                "against {}: {:?} {:?}: published {:?}, built-in {wrote:?}",
                call.against, call.history, call.args, call.wrote
            ));
        }
        if !call.printed.is_empty() {
            keeps += 1;
            if sorted(&call.printed) != sorted(&action.keep.reveal_string()) {
                keeps_differ += 1;
            }
        }
    }
    eprintln!(
        "{} of {} answers differ; {keeps_differ} of {keeps} keeps",
        differ.len(),
        calls.len()
    );
    // 2 of 1500 differed when this was written (a plan's Assassin commitment the history does not
    // show); 15 is 1 %.
    assert!(
        differ.len() <= 15,
        "{} of {} answers differ from the published bot's:\n{}",
        differ.len(),
        calls.len(),
        differ.join("\n")
    );
    // A keep is random when too few of the cards are distinct, so a few may differ.
    assert!(
        keeps_differ * 5 <= keeps,
        "{keeps_differ} of {keeps} keeps differ"
    );
}

//! The official engines' behaviour: reference §2.1 test vectors, the §4.6 transcripts and the recorded
//! conformance games.

use arena_core::{Answer, Game, Score, StreamProtocol};
use arena_langwars::conformance::check_file;
use arena_langwars::protocol::parse_answer;
use arena_langwars::{Edition, LangWars, Observation};

#[test]
fn values_match_the_reference_vectors() {
    let cases: [(u64, [u8; 8]); 4] = [
        (1, [4, 6, 5, 6, 3, 3, 4, 6]),
        (4, [6, 6, 5, 3, 6, 6, 5, 5]),
        (9, [3, 4, 5, 4, 4, 3, 3, 4]),
        (12345, [6, 6, 4, 3, 3, 3, 3, 6]),
    ];
    for (seed, values) in cases {
        assert_eq!(
            LangWars::with_edition(Edition::Lw1, seed).values(),
            &values,
            "seed {seed}"
        );
        for edition in [Edition::Lw2, Edition::Nc] {
            assert_eq!(
                LangWars::with_edition(edition, seed).values(),
                &values[..6],
                "seed {seed}"
            );
        }
    }
}

/// The scripted moves of §4.6: p0 `0 0 1 2 3` / `4 5`; p1 `1 1 1 1 1` / `1 1`; p2 `2 3 x 9 -1` / `3`;
/// p3 `5 5 5 5 5 5 5` / `2.7 3abc`.
fn scripted(turn: u32, player: usize) -> &'static str {
    let weekday = turn % 2 == 1;
    match (player, weekday) {
        (0, true) => "0 0 1 2 3",
        (0, false) => "4 5",
        (1, true) => "1 1 1 1 1",
        (1, false) => "1 1",
        (2, true) => "2 3 x 9 -1",
        (2, false) => "3",
        (3, true) => "5 5 5 5 5 5 5",
        _ => "2.7 3abc",
    }
}

/// Plays the scripted game and returns player 2's input text of each turn.
fn scripted_game(edition: Edition) -> (Vec<String>, LangWars) {
    let mut game = LangWars::with_edition(edition, 4);
    let mut obs = Observation::default();
    let mut inputs = Vec::new();
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        if player == 2 {
            let mut text = String::new();
            LangWars::encode_input(&obs, obs.turn == 1, &mut text);
            inputs.push(text);
        }
        let action = parse_answer(scripted(obs.turn, player), obs.slots(), obs.targets);
        game.apply(player, Answer::Action(action));
    }
    (inputs, game)
}

#[test]
fn lw1_seed_4_transcript() {
    let (inputs, game) = scripted_game(Edition::Lw1);
    let zeros_row = "0 0 0 0\n".repeat(8);
    let zeros = "0 0 0 0 0 0 0 0\n";
    assert_eq!(
        inputs[0],
        format!("10 4 8\n6 6 5 3 6 6 5 5\n1 W\n{zeros_row}{zeros}{zeros}")
    );
    assert_eq!(
        inputs[4],
        "5 W\n6 4 0 0\n0 2 10 0\n2 2 0 0\n2 2 0 0\n0 0 0 0\n0 0 0 10\n0 0 0 0\n0 0 0 0\n\
         8 0 2 4 0 0 0 0\n1 2 1 2 1 1 0 0\n"
    );
    let outcome = game.outcome();
    assert_eq!(
        outcome.scores,
        vec![
            Score::ratio(23, 3),
            Score::int(-10),
            Score::ratio(8, 3),
            Score::ratio(-1, 3)
        ]
    );
    assert_eq!(outcome.winner, Some(0));
}

#[test]
fn lw2_and_nc_seed_4_transcripts() {
    for edition in [Edition::Lw2, Edition::Nc] {
        let (inputs, game) = scripted_game(edition);
        let [day, night] = edition.letters();
        assert_eq!(
            inputs[4],
            format!(
                "5 {day}\n6 4 0 0\n0 2 10 0\n2 2 0 0\n2 2 0 0\n0 0 0 0\n0 0 0 10\n10 0 2 6 0 0\n1 2 1 2 1 1\n"
            )
        );
        assert_eq!(
            inputs[5],
            format!(
                "6 {night}\n13 6 0 0\n0 3 23 0\n3 3 0 4\n7 3 0 4\n0 4 0 0\n0 4 0 15\n13 0 3 7 0 0\n"
            )
        );
        assert_eq!(
            inputs[6],
            format!(
                "7 {day}\n13 6 0 0\n0 3 23 0\n3 3 0 4\n7 3 0 4\n0 4 0 0\n0 4 0 15\n15 0 3 9 0 0\n1 2 1 2 1 1\n"
            )
        );
        let expected = match edition {
            Edition::Nc => [12, -20, 2, 6],
            _ => [6, -10, 1, 3],
        };
        assert_eq!(
            game.outcome().scores,
            expected.map(Score::int).to_vec(),
            "{edition:?}"
        );
        assert_eq!(game.outcome().winner, Some(0));
    }
}

fn conforms(edition: Edition, file: &str) {
    let text = std::fs::read_to_string(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR")))
        .expect("conformance data is in tests/data");
    let cases = check_file(edition, &text).expect("the file parses");
    assert_eq!(cases.len(), 30, "{file} holds 30 games");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            case.difference
                .as_ref()
                .map(|d| format!("{}: {d}", case.label))
        })
        .collect();
    assert!(failures.is_empty(), "{file}:\n{}", failures.join("\n"));
}

#[test]
fn lw1_transcripts_conform() {
    conforms(Edition::Lw1, "langwars-lw1.jsonl");
}

#[test]
fn lw2_transcripts_conform() {
    conforms(Edition::Lw2, "langwars-lw2.jsonl");
}

#[test]
fn nc_transcripts_conform() {
    conforms(Edition::Nc, "langwars-nc.jsonl");
}

#[test]
fn a_wrong_recorded_input_is_reported() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/langwars-lw2.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("conformance data");
    let first = text.lines().next().expect("one game");
    let tampered = first.replacen("\"9 4 6\"", "\"9 4 7\"", 1);
    let cases = check_file(Edition::Lw2, &tampered).expect("parses");
    let difference = cases[0].difference.as_deref().expect("differs");
    assert!(difference.contains("settings line 1"), "{difference}");
    let wrong_edition = check_file(Edition::Nc, first).expect("parses");
    assert!(wrong_edition[0].difference.is_some());
}

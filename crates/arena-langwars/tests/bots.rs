//! Built-in bots: the strategy beats the official samples' random play, and the bot-side protocol reads
//! exactly what the referee writes.

use arena_core::registry::GameEntry;
use arena_core::{Answer, Bot, Game, StreamProtocol};
use arena_langwars::{Edition, LangWars, Observation, catalog};

fn entry(id: &str) -> Box<dyn GameEntry> {
    arena_langwars::definitions()
        .into_iter()
        .map(arena_core::registry::stream_entry)
        .find(|g| g.id() == id)
        .expect("registered")
}

/// Wins of `greedy` against three `random` bots over 200 seeded games, rotating its seat.
fn greedy_wins(id: &str) -> usize {
    let game = entry(id);
    (0..200u64)
        .filter(|&seed| {
            let seat = (seed % 4) as usize;
            let names: Vec<String> = (0..4)
                .map(|s| if s == seat { "greedy" } else { "random" }.to_string())
                .collect();
            game.play_builtin(None, &names, seed).expect("plays").winner == Some(seat)
        })
        .count()
}

#[test]
fn greedy_beats_random_clearly_in_every_edition() {
    // Random play would win about a quarter of the games (50 of 200).
    for id in ["langwars", "langwars2", "negotiate"] {
        let wins = greedy_wins(id);
        assert!(wins >= 120, "{id}: greedy won only {wins} of 200");
    }
}

#[test]
fn bot_side_reads_exactly_what_the_referee_writes() {
    for edition in Edition::ALL {
        let mut game = LangWars::with_edition(edition, 77);
        let mut players: Vec<Box<dyn Bot<LangWars>>> = (0..4)
            .map(|seat| (catalog::catalog()[seat % 2].make)(seat as u64))
            .collect();
        let mut previous: [Option<Observation>; 4] = Default::default();
        let mut obs = Observation::default();
        while let Some(player) = game.to_act() {
            game.observe(player, &mut obs);
            let mut text = String::new();
            LangWars::encode_input(&obs, previous[player].is_none(), &mut text);
            let parsed = LangWars::read_input(&mut text.as_bytes(), previous[player].as_ref())
                .expect("parses")
                .expect("one ask");
            assert_eq!(parsed, obs, "{edition:?} turn {}", obs.turn);
            let action = players[player].act(&parsed);
            let mut line = String::new();
            LangWars::encode_action(&action, &mut line);
            let decoded = LangWars::decode_output(&obs, &line).expect("decodes");
            assert_eq!(decoded, action);
            previous[player] = Some(parsed);
            game.apply(player, Answer::Action(action));
        }
        let end = LangWars::read_input(&mut &b""[..], previous[0].as_ref()).expect("reads");
        assert!(end.is_none(), "end of input is the end of the game");
    }
}

#[test]
fn a_reset_bot_plays_like_a_new_one() {
    for entry in catalog::catalog() {
        let mut reused = (entry.make)(1);
        let mut game = LangWars::with_edition(Edition::Lw2, 5);
        let mut obs = Observation::default();
        let player = game.to_act().expect("turn 1");
        game.observe(player, &mut obs);
        reused.act(&obs);
        if !reused.reset(42) {
            continue;
        }
        let mut fresh = (entry.make)(42);
        for _ in 0..20 {
            assert_eq!(reused.act(&obs), fresh.act(&obs), "{}", entry.name);
        }
    }
}

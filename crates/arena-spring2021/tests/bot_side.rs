//! `arena bot spring2021 NAME`: the built-in bots read the real input text and answer listed moves.

use arena_core::seed::{below, bot_rng};
use arena_core::{Answer, Game, StreamProtocol};
use arena_spring2021::{Action, League, Obs, Spring2021};

/// The game as the front ends see it.
fn entry() -> Box<dyn arena_core::registry::GameEntry> {
    arena_core::registry::stream_entry(arena_spring2021::definition())
}

/// Player 0's input text over a whole game (both players play random listed moves), and the listed
/// moves of each of its turns.
fn recorded_inputs(league: League, seed: u64) -> (String, Vec<Vec<String>>) {
    let mut game = Spring2021::new(&league, seed);
    let mut rng = bot_rng(seed);
    let mut obs = Obs::default();
    let mut text = String::new();
    let mut listed_per_turn = Vec::new();
    let mut listed = Vec::new();
    let mut first = true;
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        obs.listed_actions(&mut listed);
        if player == 0 {
            Spring2021::encode_input(&obs, first, &mut text);
            first = false;
            listed_per_turn.push(listed.iter().map(|c| c.to_string()).collect());
        }
        let pick = listed[below(&mut rng, listed.len() as u32) as usize];
        game.apply(player, Answer::Action(Action::new(pick)));
    }
    (text, listed_per_turn)
}

#[test]
fn built_in_bots_answer_listed_moves_over_the_protocol() {
    let game = entry();
    for (league, seed) in [(League::Bronze, 7), (League::Wood1, 8), (League::Wood2, 9)] {
        let (text, listed) = recorded_inputs(league, seed);
        for (name, _) in game.bots() {
            let mut output = Vec::new();
            game.bot_main(name, &[], &mut text.as_bytes(), &mut output)
                .expect("the bot runs to the end of its input");
            let answers: Vec<String> = String::from_utf8(output)
                .expect("utf-8")
                .lines()
                .map(str::to_string)
                .collect();
            assert_eq!(answers.len(), listed.len(), "{name}: one answer per turn");
            for (turn, (answer, moves)) in answers.iter().zip(&listed).enumerate() {
                assert!(
                    moves.contains(answer),
                    "{name} in {league:?}, turn {turn}: `{answer}` is not among {moves:?}"
                );
            }
        }
    }
}

/// The bosses in process (the listed order rebuilt from the game's RNG) answer exactly as the same
/// bosses reading the input text (the listed order as read), turn by turn.
#[test]
fn bosses_answer_alike_in_process_and_over_the_protocol() {
    let game = entry();
    let catalog = arena_spring2021::catalog::catalog();
    for (league, seed) in [
        (League::Bronze, 17),
        (League::Wood1, 18),
        (League::Wood2, 19),
    ] {
        let (text, _) = recorded_inputs(league, seed);
        for name in ["random", "wood2", "wood1"] {
            let mut output = Vec::new();
            game.bot_main(name, &[], &mut text.as_bytes(), &mut output)
                .expect("the bot runs to the end of its input");
            let over_protocol = String::from_utf8(output).expect("utf-8");

            // The same observations, in process.
            let entry = arena_core::registry::find_bot(&catalog, name).expect("a boss");
            let mut boss = (entry.make)(0);
            let mut replay = Spring2021::new(&league, seed);
            let mut rng = bot_rng(seed);
            let mut obs = Obs::default();
            let mut listed = Vec::new();
            let mut in_process = String::new();
            while let Some(player) = replay.to_act() {
                replay.observe(player, &mut obs);
                obs.listed_actions(&mut listed);
                if player == 0 {
                    in_process.push_str(&boss.act(&obs).cmd.to_string());
                    in_process.push('\n');
                }
                let pick = listed[below(&mut rng, listed.len() as u32) as usize];
                replay.apply(player, Answer::Action(Action::new(pick)));
            }
            assert_eq!(in_process, over_protocol, "{name} in {league:?}");
        }
    }
}

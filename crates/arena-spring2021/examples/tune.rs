//! Head-to-head of two planner settings (development aid):
//! `cargo run --release -p arena-spring2021 --example tune -- GAMES field=value ...` plays the
//! default planner against one with the given fields changed, both seats, seeds 0..GAMES.

use arena_core::{Bot, Game, play_in_process};
use arena_spring2021::bots::{Planner, PlannerParams};
use arena_spring2021::{League, Obs, Spring2021};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|g| g.parse().ok()).unwrap_or(400);
    let mut variant = PlannerParams::default();
    for setting in &args[1..] {
        let (field, value) = setting.split_once('=').expect("field=value");
        let value: i64 = value.parse().expect("a number");
        match field {
            "first_complete_day" => variant.first_complete_day = value as u32,
            "tall_cap" => variant.tall_cap = value as u32,
            "endgame_days" => variant.endgame_days = value as u32,
            "max_seed_cost" => variant.max_seed_cost = value as i32,
            "min_seed_days" => variant.min_seed_days = value as u32,
            other => panic!("unknown field {other}"),
        }
    }
    let mut points = 0.0;
    let mut obs = Obs::default();
    for seed in 0..games {
        let seat = (seed % 2) as usize;
        let mut bots: Vec<Box<dyn Bot<Spring2021>>> =
            vec![Box::new(Planner::default()), Box::new(Planner::default())];
        bots[seat] = Box::new(Planner { params: variant });
        let mut game = Spring2021::new(&League::Bronze, seed / 2 * 7919);
        let outcome = play_in_process(&mut game, &mut bots, &mut obs);
        points += match outcome.winner {
            Some(w) if w == seat => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        let _ = game.num_players();
    }
    println!(
        "variant {variant:?}: {:.3} against the default",
        points / games as f64
    );
}

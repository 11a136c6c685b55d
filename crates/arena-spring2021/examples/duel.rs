//! `cargo run --release -p arena-spring2021 --example duel -- BOT_A BOT_B [LEAGUE] [GAMES]`: win rate
//! of A against B, seats alternating, seeds 0..GAMES.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (a, b) = (args[0].clone(), args[1].clone());
    let league = args.get(2).map(String::as_str).filter(|l| *l != "-");
    let games: u64 = args.get(3).and_then(|g| g.parse().ok()).unwrap_or(200);
    let entry = arena_core::registry::stream_entry(arena_spring2021::definition());
    let mut points = 0.0;
    let mut margin = 0i64;
    for seed in 0..games {
        let a_seat = (seed % 2) as usize;
        let names = if a_seat == 0 {
            [a.clone(), b.clone()]
        } else {
            [b.clone(), a.clone()]
        };
        let outcome = entry.play_builtin(league, &names, seed).expect("game");
        margin += outcome.scores[a_seat].numer() - outcome.scores[1 - a_seat].numer();
        points += match outcome.winner {
            Some(w) if w == a_seat => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
    }
    println!(
        "{a} vs {b}: {:.3} over {games} games, mean margin {:.1}",
        points / games as f64,
        margin as f64 / games as f64
    );
}

//! `plan_proc [WIDTH] [HORIZON] [MAX_SEEDS] [SHADE] [LINE] [BUDGET] [BY_TREES] [TALLER] [PREDICT]`: `legend` (the plan
//! search) as a process on stdin and stdout with some settings changed (the valuation's weights:
//! `plan::Weights`) (development aid: to measure variants against process bots,
//! `arena tournament spring2021 --bot "v=target/release/examples/plan_proc 800" --bot other/`).

use arena_spring2021::Spring2021;

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let mut bot = arena_spring2021::legend::legend();
    if let Some(&w) = args.first() {
        bot.width = w as usize;
    }
    if let Some(&h) = args.get(1) {
        bot.horizon = h as u32;
    }
    if let Some(&m) = args.get(2) {
        bot.max_seeds = m as u32;
    }
    if let Some(&w) = args.get(3) {
        bot.weights.shade = w;
    }
    if let Some(&w) = args.get(4) {
        bot.weights.line = w;
    }
    if let Some(&b) = args.get(5) {
        bot.budget = b as u64;
    }
    if let Some(&t) = args.get(6) {
        bot.by_trees = t != 0.0;
    }
    if let Some(&t) = args.get(7) {
        bot.weights.taller = t != 0.0;
    }
    if let Some(&w) = args.get(8) {
        bot.predict = w as usize;
    }
    // Ends when its input ends or a pipe closes (nothing to report to: arena reads the pipes).
    let _ = arena_game::builtin::answer_stream::<Spring2021>(
        &mut bot,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout(),
    );
}

//! `plan_duel [GAMES] [FIRST_SEED] [LEAGUE]`: a variant of `legend` (the plan search) against
//! `legend` itself, seeds FIRST_SEED.. in both seats, with its thread CPU per answer (development
//! aid: screening changes by self-play before the slow matches against process bots).
//! The variant's settings come from the environment: `A_WIDTH`, `A_BUDGET`, `A_HORIZON`,
//! `A_MAX_SEEDS`, `A_SHADE`, `A_LINE`, `A_THEIR_END`, `A_BY_TREES`, `A_TALLER`, `A_PREDICT`; `B_...` likewise change the opponent.

use arena_core::testing::{spread, thread_cpu_ms};
use arena_core::{Answer, Bot, Game};
use arena_spring2021::plan::PlanBot;
use arena_spring2021::{League, Obs, Spring2021};

fn configured(prefix: &str) -> PlanBot {
    let var = |name: &str| std::env::var(format!("{prefix}_{name}")).ok();
    let mut bot = arena_spring2021::legend::legend();
    if let Some(v) = var("WIDTH").and_then(|v| v.parse().ok()) {
        bot.width = v;
    }
    if let Some(v) = var("BUDGET").and_then(|v| v.parse().ok()) {
        bot.budget = v;
    }
    if let Some(v) = var("HORIZON").and_then(|v| v.parse().ok()) {
        bot.horizon = v;
    }
    if let Some(v) = var("MAX_SEEDS").and_then(|v| v.parse().ok()) {
        bot.max_seeds = v;
    }
    if let Some(v) = var("SHADE").and_then(|v| v.parse().ok()) {
        bot.weights.shade = v;
    }
    if let Some(v) = var("LINE").and_then(|v| v.parse().ok()) {
        bot.weights.line = v;
    }
    if let Some(v) = var("THEIR_END").and_then(|v| v.parse().ok()) {
        bot.weights.their_end = v;
    }
    if let Some(v) = var("BY_TREES").and_then(|v| v.parse::<u8>().ok()) {
        bot.by_trees = v != 0;
    }
    if let Some(v) = var("TALLER").and_then(|v| v.parse::<u8>().ok()) {
        bot.weights.taller = v != 0;
    }
    if let Some(v) = var("PREDICT").and_then(|v| v.parse().ok()) {
        bot.predict = v;
    }
    bot
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(50);
    let first: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let league = args
        .get(2)
        .map_or(Ok(League::Legend), |s| League::parse(s))
        .unwrap_or(League::Legend);
    let (mut wins, mut draws, mut margin) = (0u64, 0u64, 0i64);
    let mut cpu = Vec::new();
    let mut most_steps = 0;
    for g in first..first + games {
        let seed = g.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD0E1;
        for seat in 0..2 {
            let mut game = Spring2021::new(&league, seed);
            let mut bots = [configured("A"), configured("B")];
            if seat == 1 {
                bots.swap(0, 1);
            }
            let mut obs = Obs::default();
            while let Some(p) = game.to_act() {
                game.observe(p, &mut obs);
                let c = thread_cpu_ms();
                let action = bots[p].act(&obs);
                if p == seat {
                    cpu.push(thread_cpu_ms() - c);
                    most_steps = most_steps.max(bots[p].last_steps);
                }
                game.apply(p, Answer::Action(action));
            }
            let s = game.score();
            let sun = game.sun();
            let f = |p: usize| s[p] + sun[p] / 3;
            match game.outcome().winner {
                Some(w) if w == seat => wins += 1,
                None => draws += 1,
                _ => {}
            }
            margin += i64::from(f(seat) - f(1 - seat));
        }
    }
    let n = games * 2;
    let losses = n - wins - draws;
    let score = (wins as f64 + draws as f64 / 2.0) / n as f64;
    let (median, p99, max) = spread(&mut cpu).unwrap_or((0.0, 0.0, 0.0));
    println!(
        "A vs B, {n} games: {wins}-{draws}-{losses} ({:.1} %), mean margin {:.1}; A's CPU per answer median {median:.1} ms, p99 {p99:.1}, max {max:.1}; most states {most_steps}",
        score * 100.0,
        margin as f64 / n as f64
    );
}

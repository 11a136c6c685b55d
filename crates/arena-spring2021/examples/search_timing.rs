//! `cargo run --release -p arena-spring2021 --example search_timing [GAMES] [OPPONENT] [LEAGUE] [D:S:M|legend]`:
//! plays `search` (or `legend`, 4th argument) against a built-in bot (or `search:D:S:M`, a variant:
//! deepened candidates, SEED candidates, own seeds allowed) on GAMES seeds in both seats, and prints
//! its results and decision times, wall and thread CPU (median, p99, max; first answers apart), and
//! the simulated answers. `search_timing 100 search bronze legend` measures `legend` (its "simulated
//! answers" are the plan states it evaluated).
//! `MY_POLICY`, `MY_MODEL`, `MY_WIN_BONUS`, `MY_NO_ADJACENT_SEED` set the measured `search`'s
//! parameters (the self-play experiments of the notes); `LEGEND_BY_TREES=1` measures `legend` keeping
//! one plan per set of trees (`PlanBot::by_trees`, not adopted: docs/benchmarks.md);
//! `LEGEND_WIDTH`, `LEGEND_HORIZON`, `LEGEND_BUDGET`, `LEGEND_PREDICT` measure it at another size.

use std::time::Instant;

use arena_core::testing::{spread, thread_cpu_ms};
use arena_core::{Answer, Game};
use arena_spring2021::catalog::catalog;
use arena_spring2021::search::SearchBot;
use arena_spring2021::{League, Obs, Spring2021};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(20);
    let opponent = args.get(1).map_or("planner", String::as_str);
    let league = args
        .get(2)
        .map_or(Ok(League::Bronze), |s| League::parse(s))
        .unwrap_or(League::Bronze);
    // `search:DEEPEN:SEEDS` is a variant of the search as the opponent; the 4th argument sets the
    // measured bot's `DEEPEN:SEEDS`.
    let variant = |spec: &str| -> Option<SearchBot> {
        let mut parts = spec.split(':');
        let mut bot = SearchBot::default();
        bot.deepen = parts.next()?.parse().ok()?;
        bot.seed_candidates = parts.next()?.parse().ok()?;
        if let Some(max) = parts.next() {
            bot.max_own_seeds = max.parse().ok()?;
        }
        Some(bot)
    };
    let measure_legend = args.get(3).map(String::as_str) == Some("legend");
    let mut mine = args
        .get(3)
        .and_then(|spec| variant(spec))
        .unwrap_or_default();
    // Experiments: `MY_POLICY` / `MY_MODEL` = `first_complete_day,tall_cap,endgame_days,max_seed_cost,min_seed_days`.
    let params = |name: &str| -> Option<arena_spring2021::bots::PlannerParams> {
        let text = std::env::var(name).ok()?;
        let v: Vec<i64> = text.split(',').filter_map(|x| x.parse().ok()).collect();
        (v.len() == 5).then(|| arena_spring2021::bots::PlannerParams {
            first_complete_day: v[0] as u32,
            tall_cap: v[1] as u32,
            endgame_days: v[2] as u32,
            max_seed_cost: v[3] as i32,
            min_seed_days: v[4] as u32,
        })
    };
    if let Some(bonus) = std::env::var("MY_WIN_BONUS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        mine.win_bonus = bonus;
    }
    if let Some(depth) = std::env::var("MY_DEPTH").ok().and_then(|v| v.parse().ok()) {
        mine.depth = depth;
    }
    let num = |name: &str| -> Option<u64> { std::env::var(name).ok()?.parse().ok() };
    if let Some(budget) = num("MY_BUDGET") {
        mine.budget = budget;
    }
    if let Some(deepen) = num("MY_DEEPEN") {
        mine.deepen = deepen as usize;
    }
    if let Some(seeds) = num("MY_SEEDS") {
        mine.seed_candidates = seeds as usize;
    }
    if let Some(max) = num("MY_MAX_OWN_SEEDS") {
        mine.max_own_seeds = max as u32;
    }
    if std::env::var("MY_NO_ADJACENT_SEED").is_ok() {
        mine.seed_next_to_own = false;
    }
    if let Some(p) = params("MY_POLICY") {
        mine.policy.params = p;
    }
    if let Some(p) = params("MY_MODEL") {
        mine.model.params = p;
    }
    let opponent_variant = opponent.strip_prefix("search:").and_then(variant);
    let catalog = catalog();
    let entry = arena_core::registry::find_bot(&catalog, opponent).ok();
    if entry.is_none() && opponent_variant.is_none() {
        eprintln!("no built-in bot `{opponent}`");
        return;
    }
    let mut first = Vec::new();
    let mut later = Vec::new();
    let (mut first_cpu, mut later_cpu) = (Vec::new(), Vec::new());
    let mut slowest = (0.0f64, 0u64, 0u32);
    let mut total = (0.0f64, 0u64);
    let mut most_steps = 0u64;
    let (mut wins, mut draws, mut margin) = (0u64, 0u64, 0i64);
    for g in 0..games {
        let seed = g.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED;
        for seat in 0..2 {
            let mut game = Spring2021::new(&league, seed);
            let mut me = if measure_legend {
                let mut bot = arena_spring2021::legend::legend();
                // `LEGEND_BY_TREES=1`: one plan per set of trees (an experiment), to compare.
                if let Ok(v) = std::env::var("LEGEND_BY_TREES") {
                    bot.by_trees = v != "0";
                }
                // `LEGEND_WIDTH`, `LEGEND_HORIZON`, `LEGEND_BUDGET`: the search's size (an experiment).
                if let Some(v) = num("LEGEND_WIDTH") {
                    bot.width = v as usize;
                }
                if let Some(v) = num("LEGEND_HORIZON") {
                    bot.horizon = v as u32;
                }
                if let Some(v) = num("LEGEND_BUDGET") {
                    bot.budget = v;
                }
                // `LEGEND_PREDICT`: the width of the search for the other player's plan (0: none).
                if let Some(v) = num("LEGEND_PREDICT") {
                    bot.predict = v as usize;
                }
                Measured::Plan(bot)
            } else {
                Measured::Search(Box::new(mine.clone()))
            };
            let mut other: Box<dyn arena_core::Bot<Spring2021>> = match (&entry, &opponent_variant)
            {
                (Some(entry), _) => (entry.make)(seed),
                (None, Some(bot)) => Box::new(bot.clone()),
                (None, None) => return,
            };
            let mut obs = Obs::default();
            let mut asked = false;
            while let Some(p) = game.to_act() {
                game.observe(p, &mut obs);
                let action = if p == seat {
                    let t = Instant::now();
                    let c = thread_cpu_ms();
                    let a = me.act(&obs);
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    let cpu = thread_cpu_ms() - c;
                    if asked {
                        later_cpu.push(cpu)
                    } else {
                        first_cpu.push(cpu)
                    }
                    if ms > slowest.0 {
                        slowest = (ms, me.last_steps(), obs.day);
                    }
                    total.0 += ms;
                    most_steps = most_steps.max(me.last_steps());
                    total.1 += me.last_steps();
                    if asked {
                        later.push(ms)
                    } else {
                        first.push(ms)
                    }
                    asked = true;
                    a
                } else {
                    other.act(&obs)
                };
                game.apply(p, Answer::Action(action));
            }
            assert!(
                game.rule_faults().is_empty(),
                "rule faults: {:?}",
                game.rule_faults()
            );
            let s = game.score();
            let sun = game.sun();
            let f = |p: usize| s[p] + sun[p] / 3;
            let out = game.outcome();
            match out.winner {
                Some(w) if w == seat => wins += 1,
                None => draws += 1,
                _ => {}
            }
            margin += i64::from(f(seat) - f(1 - seat));
        }
    }
    let n = games * 2;
    println!(
        "{} answering, {n} games vs {opponent} ({league:?}): {wins} wins, {draws} draws, {} losses; mean margin {:.1}",
        args.get(3).map_or("search", String::as_str),
        n - wins - draws,
        margin as f64 / n as f64
    );
    println!(
        "{} simulated answers in {:.0} ms: {:.3} us each; the most in one answer: {}",
        total.1,
        total.0,
        total.0 * 1e3 / total.1.max(1) as f64,
        most_steps
    );
    println!(
        "slowest answer: {:.2} ms, {} simulated answers, day {}",
        slowest.0, slowest.1, slowest.2
    );
    for (name, v) in [
        ("first (wall)", &mut first),
        ("first (cpu)", &mut first_cpu),
        ("later (wall)", &mut later),
        ("later (cpu)", &mut later_cpu),
    ] {
        let Some((median, p99, max)) = spread(v) else {
            continue;
        };
        println!(
            "{name}: {} answers, median {median:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
            v.len(),
        );
    }
}

/// The measured bot: a `search` variant, or `legend` (a plan search, its own type).
enum Measured {
    Search(Box<SearchBot>),
    Plan(arena_spring2021::plan::PlanBot),
}

impl Measured {
    fn act(&mut self, obs: &Obs) -> arena_spring2021::Action {
        match self {
            Measured::Search(bot) => arena_core::Bot::act(bot.as_mut(), obs),
            Measured::Plan(bot) => arena_core::Bot::act(bot, obs),
        }
    }

    fn last_steps(&self) -> u64 {
        match self {
            Measured::Search(bot) => bot.last_steps,
            Measured::Plan(bot) => bot.last_steps,
        }
    }
}

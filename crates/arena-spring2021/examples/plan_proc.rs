//! `plan_proc [WIDTH] [HORIZON] [MAX_SEEDS]`: `legend` (the plan search) as a process on stdin and
//! stdout with some settings changed (development aid: to measure variants against process bots,
//! `arena tournament spring2021 --bot "v=target/release/examples/plan_proc 800" --bot other/`).

use std::io::Write;

use arena_game::{Bot, StreamProtocol};
use arena_spring2021::Spring2021;

fn main() {
    let args: Vec<u64> = std::env::args()
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
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    let mut previous = None;
    let mut line = String::new();
    while let Ok(Some(obs)) = Spring2021::read_input(&mut input, previous.as_ref()) {
        let action = bot.act(&obs);
        line.clear();
        Spring2021::encode_action(&action, &mut line);
        line.push('\n');
        if out
            .write_all(line.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            return;
        }
        previous = Some(obs);
    }
}

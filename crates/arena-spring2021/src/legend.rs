//! `legend`: the search of [`search`](mod@crate::search) with many futures and about eight times
//! its step budget.
//!
//! `search` values a candidate by one rollout: my rule player and the other's, each one fixed
//! `planner` setting, play the game out after it. One future makes the value a guess about those
//! two players: a move that only pays if the other completes late, or if I seed once more, looks
//! good or bad by accident. `legend` plays every candidate (and every line of its day beam) into
//! 37 futures, the same one as `search` plus each of 6 settings of my rule player (early or late
//! first completions, a longer or shorter endgame, paying for a seed or not, a bigger or smaller
//! stand of tall trees) against each of 6 settings of the other's, and sums the final margins. A
//! move is then chosen for what it is worth against a spread of plausible continuations, which is
//! what the strong bots of the contest had from their evaluation of projected sun, shadows and
//! nutrients; here the exact engine does the projecting.
//!
//! Like `search`, it is bounded by simulated answers, never by the clock (reproducible, nothing
//! drawn at random): `BUDGET` is about 35 ms of CPU on the machine of `docs/benchmarks.md`, its
//! median answer a few ms (the `search_timing` example, `legend` as the measured bot).

use crate::bots::{Planner, PlannerParams};
use crate::search::SearchBot;

/// Simulated answers per decision (later answers, 100 ms limit): at most about 35 ms of CPU.
pub const BUDGET: u64 = 150_000;
/// Simulated answers for the first answer (1000 ms limit).
pub const FIRST_BUDGET: u64 = 1_000_000;

const fn params(
    first_complete_day: u32,
    tall_cap: u32,
    endgame_days: u32,
    max_seed_cost: i32,
    min_seed_days: u32,
) -> PlannerParams {
    PlannerParams {
        first_complete_day,
        tall_cap,
        endgame_days,
        max_seed_cost,
        min_seed_days,
    }
}

/// My rule player's settings in the futures (besides `search`'s own).
const MY_PLAYERS: [PlannerParams; 6] = [
    params(11, 5, 5, 0, 5),
    params(13, 5, 7, 0, 5),
    params(15, 5, 7, 0, 5),
    params(13, 4, 7, 1, 5),
    params(12, 6, 6, 0, 6),
    params(14, 5, 8, 1, 4),
];

/// The other player's settings in the futures (besides `planner` as it is). The last two complete
/// later, as stronger players do: with them, 88 % against search instead of 85 % (600 games).
const THEIR_PLAYERS: [PlannerParams; 6] = [
    params(11, 5, 5, 0, 5),
    params(13, 5, 7, 1, 5),
    params(12, 4, 6, 0, 6),
    params(10, 5, 5, 1, 4),
    params(13, 5, 7, 0, 5),
    params(15, 6, 8, 0, 5),
];

/// The `legend` bot.
pub fn legend() -> SearchBot {
    let mut bot = SearchBot::with_budget(BUDGET, FIRST_BUDGET);
    // No SEED next to my own trees: 90 % against search instead of 77 % on the same 200 games
    // (paired seeds, 25 futures; 85 % over 600).
    // The futures' rule players grow such seeds as any other, and the shade they then cast on each
    // other every day comes too late in the rollouts to be held against the SEED.
    bot.seed_next_to_own = false;
    for mine in MY_PLAYERS {
        for theirs in THEIR_PLAYERS {
            bot.futures
                .push((Planner { params: mine }, Planner { params: theirs }));
        }
    }
    bot
}

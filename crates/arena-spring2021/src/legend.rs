//! `legend`: the plan search of [`plan`](mod@crate::plan) at the width that fills the time a
//! Legend bot of the contest used.
//!
//! Until this version `legend` was [`search`](mod@crate::search) played into 37 futures of rule
//! players; against public bots of the contest's Legend league it won 17-45 % (docs/benchmarks.md),
//! because its rule players, however many, value a move by how *they* would go on, and they plan
//! no more than a day. The plan search values my own moves for six days by a formula of points,
//! sun and the trees standing, as the strong bots of the contest did, and wins about half of its
//! games against them. The trees standing count less for each tree in a line within 3 cells that
//! shades them now or once grown (`plan::Weights`), instead of the sun they would lose over a week
//! with the trees as they stand, which missed the shade of seeds.
//!
//! Before it plans, it plans the other player's moves the same way, at a quarter of the width
//! (`PREDICT`), and plans mine against their best plan's trees and completions day by day, not
//! against their trees as they stand (as the 4th of the contest's Legend league did). Against the
//! public Legend bot btk15049 that took it from 55 % to 73 % of 240 games on the same seeds
//! (docs/benchmarks.md).
//!
//! It is bounded by its widths and a count of evaluated states, never by the clock (reproducible,
//! nothing drawn at random): the widths fill, at their p99, about half of the 100 ms limit on the
//! machine of `docs/benchmarks.md` (the `search_timing` example, `legend` as the measured bot).
//! Twice the former width of 1200 had won 55 % of 240 games against btk15049 where the former
//! width won 42 % on the same seeds; a longer horizon (8 days at width 1200, 7 at 1800) did not pay
//! as much, and width 3600 no more (60 % of 40) at half again the CPU.

use crate::plan::PlanBot;

/// States kept per layer of the beam (each of my moves of a day is a layer, for 6 days).
pub const WIDTH: usize = 2400;
/// SEED moves in the plans while I have fewer seeds than this (the free one and one more).
pub const MAX_SEEDS: u32 = 2;
/// Evaluated states per search at most (mine, and theirs before it): a cap the widths keep them
/// under.
pub const BUDGET: u64 = 800_000;

/// The width of the first search, for the other player's plan (`PlanBot::predict`).
pub const PREDICT: usize = 600;

/// The `legend` bot.
pub fn legend() -> PlanBot {
    PlanBot {
        width: WIDTH,
        max_seeds: MAX_SEEDS,
        budget: BUDGET,
        predict: PREDICT,
        ..PlanBot::default()
    }
}

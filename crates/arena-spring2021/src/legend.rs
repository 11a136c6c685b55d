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
//! with the trees as they stand, which missed the shade of seeds. A layer of the beam keeps one plan
//! per set of trees (sizes and dormancy), the best-valued, as btk15049's beam does: plans that
//! differ only in sun or points no longer take its width (`PlanBot::by_trees`; 53 % of 200 games
//! against btk15049, the former 47 % of 240: not a clear gain, docs/benchmarks.md).
//!
//! It is bounded by its width and a count of evaluated states, never by the clock (reproducible,
//! nothing drawn at random): `WIDTH` fills, at its p99, about 60 % of the 100 ms limit on the
//! loaded machine of `docs/benchmarks.md` (the `search_timing` example, `legend` measured).

use crate::plan::PlanBot;

/// States kept per layer of the beam (each of my moves of a day is a layer, for 6 days).
pub const WIDTH: usize = 1200;
/// SEED moves in the plans while I have fewer seeds than this (the free one and one more).
pub const MAX_SEEDS: u32 = 2;
/// Evaluated states per answer at most (every plan offered to a layer counts): a cap the width
/// keeps it under (the most in 2 079 answers of `search_timing` was 331 394).
pub const BUDGET: u64 = 400_000;

/// The `legend` bot.
pub fn legend() -> PlanBot {
    PlanBot {
        width: WIDTH,
        max_seeds: MAX_SEEDS,
        budget: BUDGET,
        by_trees: true,
        ..PlanBot::default()
    }
}

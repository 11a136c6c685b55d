//! Which games a tournament plays. Everything is a function of the plan and a game's index, so a resumed
//! run plays exactly the games an uninterrupted one would, with the same seeds and seats.
//!
//! Index layout: `index = ((round * groups_per_round) + group) * orders + order`. A round is one seed
//! per group; every seat order of a group in a round shares that game seed (and a pair id), so results
//! can be paired.

use arena_core::seed::derive_seed;
use arena_stats::{SprtConfig, SprtSetup};

/// Largest number of fixed groups before 4-player fields are drawn at random each round.
pub const MAX_FIXED_GROUPS: usize = 35;

// The plan's data are the formats' contract (arena-formats); their old paths stay.
pub use arena_formats::plan::{BotPlan, Plan, RunSettings, Schedule, SeatOrders, SprtSettings};

/// The tournament folder's format, which the plan carries ([`arena_formats::version`]).
pub const PLAN_FORMAT: u32 = arena_formats::version::FOLDER_FORMAT;

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    pub index: u64,
    /// Games sharing a pair id were played on the same seed with the same group in other seat orders.
    pub pair: u64,
    pub seed: u64,
    /// Bot index per seat.
    pub seats: Vec<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("a tournament needs at least 2 bots (got {0})")]
    TooFewBots(usize),
    #[error("King of the Hill is for 2-player games; {0} has {1} seats")]
    KothNeeds2Players(String, usize),
    #[error("the gauntlet bot #{0} is not one of the {1} bots")]
    NoSuchGauntletBot(usize, usize),
    #[error("nothing to play: {0}")]
    Empty(String),
    #[error("--sprt: {0}")]
    Sprt(String),
    #[error(
        "the plan has more games ({games} in {rounds} rounds): a tournament can be extended, not shrunk"
    )]
    Shrink { games: u64, rounds: u64 },
}

/// What the caller chose; `Plan::new` works out groups and rounds.
pub struct PlanRequest {
    pub game: String,
    pub variant: Option<String>,
    pub players: usize,
    pub bots: Vec<BotPlan>,
    pub schedule: Schedule,
    pub seat_orders: SeatOrders,
    /// Rounds (seeds per group), or `None` to reach about `games` games.
    pub rounds: Option<u64>,
    pub games: Option<u64>,
    pub seed: u64,
    pub settings: RunSettings,
    pub sprt: Option<SprtConfig>,
}

/// What is scheduled from a plan: made by [`PlanSchedule::new`], and each game a pure function of
/// the plan and its index ([`PlanSchedule::game`]). A trait because the plan's type is the
/// formats' (arena-formats), and its schedule is this crate's.
pub trait PlanSchedule: Sized {
    fn new(request: PlanRequest) -> Result<Self, PlanError>;
    /// Rounds needed for about `games` games (rounded up to whole rounds, as `new` does).
    fn rounds_for_games(&self, games: u64) -> u64;
    /// This plan with `rounds` rounds instead of fewer (see the implementation).
    fn extended(&self, rounds: u64) -> Result<Self, PlanError>;
    /// The sequential test of the plan, if any.
    fn sprt_setup(&self) -> Option<SprtSetup>;
    /// The game at `index` (< `total_games`).
    fn game(&self, index: u64) -> ScheduledGame;
}

/// The plan's form of a sequential test's settings.
pub fn sprt_settings(config: SprtConfig) -> SprtSettings {
    let SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
    } = config;
    SprtSettings {
        elo0,
        elo1,
        alpha,
        beta,
    }
}

/// The test of a plan's settings.
pub fn sprt_config(settings: SprtSettings) -> SprtConfig {
    let SprtSettings {
        elo0,
        elo1,
        alpha,
        beta,
    } = settings;
    SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
    }
}

impl PlanSchedule for Plan {
    fn new(request: PlanRequest) -> Result<Plan, PlanError> {
        let n = request.bots.len();
        if n < 2 {
            return Err(PlanError::TooFewBots(n));
        }
        let players = request.players;
        if request.schedule == Schedule::Koth && players != 2 {
            return Err(PlanError::KothNeeds2Players(request.game, players));
        }
        if let Schedule::Gauntlet { bot } = request.schedule
            && bot >= n
        {
            return Err(PlanError::NoSuchGauntletBot(bot, n));
        }
        let groups = fixed_groups(n, players, request.schedule);
        let groups_per_round = match &groups {
            Some(groups) => groups.len(),
            None => random_groups_per_round(n, players, request.schedule),
        };
        let orders = request.seat_orders.count(players);
        let per_round = groups_per_round as u64 * orders;
        let rounds = match (request.rounds, request.games) {
            (Some(rounds), _) => rounds,
            (None, Some(games)) => games.div_ceil(per_round.max(1)),
            (None, None) => DEFAULT_GAMES.div_ceil(per_round.max(1)),
        };
        if rounds == 0 || per_round == 0 {
            return Err(PlanError::Empty("0 rounds".into()));
        }
        if let Some(sprt) = &request.sprt {
            if n != 2 {
                return Err(PlanError::Sprt(format!(
                    "the test compares two bots; this tournament has {n}"
                )));
            }
            sprt.check().map_err(|e| PlanError::Sprt(e.to_string()))?;
        }
        Ok(Plan {
            format: PLAN_FORMAT,
            arena: Some(arena_formats::version::ARENA_VERSION.to_string()),
            game: request.game,
            variant: request.variant,
            players,
            bots: request.bots,
            schedule: request.schedule,
            seat_orders: request.seat_orders,
            rounds,
            seed: request.seed,
            settings: request.settings,
            groups: groups.unwrap_or_default(),
            groups_per_round,
            sprt: request.sprt.map(sprt_settings),
        })
    }

    fn rounds_for_games(&self, games: u64) -> u64 {
        games.div_ceil((self.groups_per_round as u64 * self.orders()).max(1))
    }

    /// This plan with `rounds` rounds instead of fewer: the games already scheduled keep their
    /// index, seed, pair and seats (rounds are appended; a game's seed depends on its pair and a
    /// drawn group on its round only, never on the number of rounds). Checked game by game, so
    /// that a schedule that ever made earlier games depend on the length is refused, not played.
    fn extended(&self, rounds: u64) -> Result<Plan, PlanError> {
        if rounds < self.rounds {
            return Err(PlanError::Shrink {
                games: self.total_games(),
                rounds: self.rounds,
            });
        }
        let mut longer = self.clone();
        longer.rounds = rounds;
        if let Some(index) = (0..self.total_games()).find(|&i| self.game(i) != longer.game(i)) {
            return Err(PlanError::Empty(format!(
                "cannot extend: game {index} would change (seed or seats) with more rounds"
            )));
        }
        Ok(longer)
    }

    /// The sequential test of the plan, if any: the first bot against the second, a unit being
    /// every seat order of one seed (a pair in 2-player games, a seed group in 4-player games).
    fn sprt_setup(&self) -> Option<SprtSetup> {
        let config = sprt_config(self.sprt?);
        Some(SprtSetup {
            config,
            a: 0,
            b: 1,
            unit_games: u32::try_from(self.orders()).unwrap_or(u32::MAX),
        })
    }

    fn game(&self, index: u64) -> ScheduledGame {
        let orders = self.orders();
        let order = index % orders;
        let pair = index / orders;
        let groups = self.groups_per_round as u64;
        let round = pair / groups;
        let group_index = (pair % groups) as usize;
        let group = if self.groups.is_empty() {
            random_group(self, round, group_index)
        } else {
            self.groups[group_index].clone()
        };
        ScheduledGame {
            index,
            pair,
            seed: derive_seed(self.seed, pair),
            seats: seat_order(&group, order, self.seat_orders),
        }
    }
}

/// Round `round`'s group `group` of a large field, drawn as the 2014 qualifiers did: the field is
/// shuffled and cut into groups; a short last group is filled with other bots drawn at random.
fn random_group(plan: &Plan, round: u64, group: usize) -> Vec<usize> {
    let n = plan.bots.len();
    let mut rng = SplitMix(derive_seed(plan.seed ^ GROUP_DRAW_STREAM, round));
    let (fixed, mut pool): (Option<usize>, Vec<usize>) = match plan.schedule {
        Schedule::Gauntlet { bot } => (Some(bot), (0..n).filter(|&b| b != bot).collect()),
        _ => (None, (0..n).collect()),
    };
    shuffle(&mut pool, &mut rng);
    let take = plan.players - usize::from(fixed.is_some());
    let mut members: Vec<usize> = fixed.into_iter().collect();
    members.extend(pool.iter().skip(group * take).take(take));
    while members.len() < plan.players {
        let candidates: Vec<usize> = (0..n).filter(|b| !members.contains(b)).collect();
        let pick = candidates[(rng.next() % candidates.len() as u64) as usize];
        members.push(pick);
    }
    members
}

/// Keeps the group draws independent of the game seeds derived from the same tournament seed.
const GROUP_DRAW_STREAM: u64 = 0x6772_6f75_7073; // "groups"

/// Games a tournament plays when neither rounds nor games are given.
pub const DEFAULT_GAMES: u64 = 1000;

/// Fixed groups when the field is small enough to cover every combination, else `None`.
fn fixed_groups(n: usize, players: usize, schedule: Schedule) -> Option<Vec<Vec<usize>>> {
    let (must, others): (Vec<usize>, Vec<usize>) = match schedule {
        Schedule::Gauntlet { bot } => (vec![bot], (0..n).filter(|&b| b != bot).collect()),
        _ => (Vec::new(), (0..n).collect()),
    };
    let free = players - must.len();
    if others.len() >= free {
        let count = binomial(others.len(), free);
        if count > MAX_FIXED_GROUPS as u64 && players > 2 {
            return None;
        }
        let mut groups = Vec::new();
        selections(&others, free, false, &mut Vec::new(), 0, &mut |chosen| {
            let mut group = must.clone();
            group.extend_from_slice(chosen);
            groups.push(group);
        });
        return Some(groups);
    }
    // Fewer bots than seats: every multiset of the field in which each bot plays at least once.
    let field: Vec<usize> = must.iter().chain(&others).copied().collect();
    let extra = players - field.len();
    let mut groups = Vec::new();
    selections(&field, extra, true, &mut Vec::new(), 0, &mut |chosen| {
        let mut group = field.clone();
        group.extend_from_slice(chosen);
        group.sort_unstable();
        groups.push(group);
    });
    Some(groups)
}

fn random_groups_per_round(n: usize, players: usize, schedule: Schedule) -> usize {
    match schedule {
        Schedule::Gauntlet { .. } => (n - 1).div_ceil(players - 1),
        _ => n.div_ceil(players),
    }
}

fn binomial(n: usize, k: usize) -> u64 {
    (0..k as u64).fold(1, |acc, i| acc * (n as u64 - i) / (i + 1))
}

/// Every size-`k` selection of `items` in index order: combinations, or multisets when `repeat`.
fn selections(
    items: &[usize],
    k: usize,
    repeat: bool,
    chosen: &mut Vec<usize>,
    from: usize,
    out: &mut dyn FnMut(&[usize]),
) {
    if chosen.len() == k {
        out(chosen);
        return;
    }
    for i in from..items.len() {
        chosen.push(items[i]);
        selections(
            items,
            k,
            repeat,
            chosen,
            if repeat { i } else { i + 1 },
            out,
        );
        chosen.pop();
    }
}

/// Seat order `order` of `group`: a rotation, or the `order`-th permutation (factorial numbering).
fn seat_order(group: &[usize], order: u64, orders: SeatOrders) -> Vec<usize> {
    let players = group.len();
    match orders {
        SeatOrders::Rotations => (0..players)
            .map(|seat| group[(seat + order as usize) % players])
            .collect(),
        SeatOrders::Permutations => {
            let mut rest: Vec<usize> = group.to_vec();
            let mut code = order;
            let mut seats = Vec::with_capacity(players);
            for remaining in (1..=players as u64).rev() {
                let factorial: u64 = (1..remaining).product();
                let pick = (code / factorial) as usize;
                code %= factorial;
                seats.push(rest.remove(pick));
            }
            seats
        }
    }
}

/// SplitMix64 as a stream (group draws only; see `arena_core::seed` for the mixing function).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        derive_seed(self.0, 0)
    }
}

/// Fisher–Yates with the stream above.
fn shuffle(items: &mut [usize], rng: &mut SplitMix) {
    for i in (1..items.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bots(n: usize) -> Vec<BotPlan> {
        (0..n)
            .map(|i| BotPlan {
                name: format!("b{i}"),
                spec: "builtin:random".into(),
                workdir: None,
                source: None,
            })
            .collect()
    }

    fn plan(n: usize, players: usize, schedule: Schedule, orders: SeatOrders, rounds: u64) -> Plan {
        Plan::new(PlanRequest {
            game: "g".into(),
            variant: None,
            players,
            bots: bots(n),
            schedule,
            seat_orders: orders,
            rounds: Some(rounds),
            games: None,
            seed: 9,
            settings: RunSettings {
                rules: arena_formats::plan::RunRules::default(),
                stderr_cap: 1024,
                replays: false,
                builtin_replays: false,
                game_options: Default::default(),
                kept_folders: false,
            },
            sprt: None,
        })
        .expect("valid plan")
    }

    #[test]
    fn two_player_round_robin_plays_every_pair_both_ways_on_one_seed() {
        let plan = plan(3, 2, Schedule::RoundRobin, SeatOrders::Rotations, 2);
        assert_eq!(plan.total_games(), 2 * 3 * 2);
        let first = plan.game(0);
        let swapped = plan.game(1);
        assert_eq!(first.seats, vec![0, 1]);
        assert_eq!(swapped.seats, vec![1, 0]);
        assert_eq!(first.seed, swapped.seed);
        assert_eq!(first.pair, swapped.pair);
        assert_ne!(plan.game(2).seed, first.seed);
    }

    #[test]
    fn small_four_player_fields_use_every_multiset_and_rotation() {
        let plan = plan(2, 4, Schedule::RoundRobin, SeatOrders::Rotations, 1);
        assert_eq!(
            plan.groups,
            vec![vec![0, 0, 0, 1], vec![0, 0, 1, 1], vec![0, 1, 1, 1]]
        );
        let seats: Vec<Vec<usize>> = (0..4).map(|i| plan.game(i).seats).collect();
        assert_eq!(
            seats,
            vec![
                vec![0, 0, 0, 1],
                vec![0, 0, 1, 0],
                vec![0, 1, 0, 0],
                vec![1, 0, 0, 0]
            ]
        );
        let all = plan_with_permutations();
        assert_eq!(all.orders(), 24);
    }

    fn plan_with_permutations() -> Plan {
        plan(5, 4, Schedule::RoundRobin, SeatOrders::Permutations, 1)
    }

    #[test]
    fn permutations_cover_every_order_once() {
        let plan = plan_with_permutations();
        let mut seen: Vec<Vec<usize>> = (0..24).map(|i| plan.game(i).seats).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 24);
    }

    #[test]
    fn large_fields_are_drawn_each_round_and_cover_everybody() {
        let plan = plan(10, 4, Schedule::RoundRobin, SeatOrders::Rotations, 3);
        assert!(plan.groups.is_empty());
        assert_eq!(plan.groups_per_round, 3);
        for round in 0..3u64 {
            let mut seen = vec![0; 10];
            for group in 0..3u64 {
                let game = plan.game((round * 3 + group) * 4);
                let mut distinct = game.seats.clone();
                distinct.sort();
                distinct.dedup();
                assert_eq!(distinct.len(), 4, "no bot twice in a group");
                for bot in game.seats {
                    seen[bot] += 1;
                }
            }
            assert!(
                seen.iter().all(|&count| count >= 1),
                "round {round}: {seen:?}"
            );
        }
        assert_ne!(
            plan.game(0).seats,
            plan.game(12).seats,
            "rounds are drawn anew"
        );
    }

    #[test]
    fn gauntlet_groups_always_contain_the_bot() {
        for players in [2, 4] {
            let plan = plan(
                9,
                players,
                Schedule::Gauntlet { bot: 3 },
                SeatOrders::Rotations,
                2,
            );
            for index in 0..plan.total_games() {
                assert!(plan.game(index).seats.contains(&3));
            }
        }
    }

    #[test]
    fn games_request_rounds_up_to_whole_rounds() {
        let plan = Plan::new(PlanRequest {
            game: "g".into(),
            variant: None,
            players: 2,
            bots: bots(2),
            schedule: Schedule::Koth,
            seat_orders: SeatOrders::Rotations,
            rounds: None,
            games: Some(7),
            seed: 1,
            settings: RunSettings {
                rules: arena_formats::plan::RunRules::default(),
                stderr_cap: 1,
                replays: false,
                builtin_replays: false,
                game_options: Default::default(),
                kept_folders: false,
            },
            sprt: None,
        })
        .expect("plan");
        assert_eq!(plan.total_games(), 8);
    }

    #[test]
    fn extending_a_plan_keeps_every_scheduled_game() {
        let cases = [
            (2, 2, Schedule::RoundRobin, SeatOrders::Rotations),
            (5, 2, Schedule::Koth, SeatOrders::Rotations),
            (4, 4, Schedule::RoundRobin, SeatOrders::Permutations),
            (40, 4, Schedule::RoundRobin, SeatOrders::Rotations),
            (40, 4, Schedule::Gauntlet { bot: 7 }, SeatOrders::Rotations),
        ];
        for (n, players, schedule, orders) in cases {
            let short = plan(n, players, schedule, orders, 3);
            // The games of a plan made that long from the start, and of the short one extended.
            let long = plan(n, players, schedule, orders, 7);
            let extended = short.extended(7).expect("extends");
            assert_eq!(extended, long);
            for index in 0..short.total_games() {
                assert_eq!(extended.game(index), short.game(index));
            }
            assert_eq!(short.extended(3).expect("same length"), short);
            assert!(matches!(
                short.extended(2),
                Err(PlanError::Shrink { rounds: 3, .. })
            ));
        }
    }
}

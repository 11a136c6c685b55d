//! The in-process bosses against a reference built the slow, obvious way: the whole possible-actions
//! list collected in the referee's order (`for_each_possible`), each group shuffled with
//! `Collections.shuffle` from the game's `Random`, WAIT in front; the `random` boss as
//! `random.choice` over that list without WAIT, its generator seeded afresh with '🌱' every game.

use arena_core::{Answer, Bot, Game};
use arena_spring2021::bots::{BOSS_SEED, Planner, RandomBot};
use arena_spring2021::catalog::catalog;
use arena_spring2021::jrand::JavaRandom;
use arena_spring2021::pyrand::PyRandom;
use arena_spring2021::{Action, Cmd, League, Obs, Spring2021};

const LEAGUES: [League; 3] = [League::Wood2, League::Wood1, League::Bronze];

fn reference_listing(obs: &Obs) -> Vec<Cmd> {
    let mut groups: [Vec<Cmd>; 3] = Default::default();
    obs.for_each_possible(|group, cmd| groups[group].push(cmd));
    let mut rng = JavaRandom::from_state(obs.rng_groups[0]);
    let mut out = vec![Cmd::Wait];
    for group in groups.iter_mut() {
        rng.shuffle(group);
        out.extend_from_slice(group);
    }
    out
}

struct ReferenceRandom {
    rng: PyRandom,
}

impl ReferenceRandom {
    fn new() -> Self {
        ReferenceRandom {
            rng: PyRandom::from_str_seed(BOSS_SEED),
        }
    }

    fn act(&mut self, obs: &Obs) -> Cmd {
        let moves: Vec<Cmd> = reference_listing(obs)
            .into_iter()
            .filter(|cmd| *cmd != Cmd::Wait)
            .collect();
        self.rng.choice(&moves).copied().unwrap_or(Cmd::Wait)
    }
}

/// Plays `games` games per league of the `random` boss (seat 0) against `random` or `planner`,
/// the boss reused through `reset` from game to game as the benchmark does, and checks every listing
/// and every answer of seat 0 against the reference. Returns the number of turns checked.
fn check_against_reference(opponent_is_random: bool, games: u64) -> u64 {
    let mut boss = RandomBot::new();
    let mut other_random = RandomBot::new();
    let mut planner = Planner::default();
    let mut obs = Obs::default();
    let mut listed = Vec::new();
    let mut turns = 0;
    for league in LEAGUES {
        for seed in 0..games {
            let mut game = Spring2021::new(&league, seed);
            assert!(boss.reset(seed));
            assert!(other_random.reset(seed));
            let mut reference = ReferenceRandom::new();
            while let Some(player) = game.to_act() {
                game.observe(player, &mut obs);
                obs.listed_actions(&mut listed);
                assert_eq!(listed, reference_listing(&obs), "{league:?} seed {seed}");
                let action = if player == 0 {
                    let got = boss.act(&obs);
                    let want = reference.act(&obs);
                    assert_eq!(got.cmd, want, "{league:?} seed {seed}, turn {turns}");
                    turns += 1;
                    got
                } else if opponent_is_random {
                    other_random.act(&obs)
                } else {
                    planner.act(&obs)
                };
                game.apply(player, Answer::Action(action));
            }
        }
    }
    turns
}

#[test]
fn random_boss_matches_the_reference_against_itself() {
    assert!(check_against_reference(true, 150) > 10_000);
}

#[test]
fn random_boss_matches_the_reference_against_the_planner() {
    assert!(check_against_reference(false, 150) > 10_000);
}

/// The wood bosses read the same listing; made afresh or reused, they answer alike.
#[test]
fn wood_bosses_answer_alike_when_reused() {
    let bots = catalog();
    for name in ["wood2", "wood1", "random"] {
        let entry = bots.iter().find(|b| b.name == name).expect("a boss");
        let mut reused = (entry.make)(0);
        let mut obs = Obs::default();
        for league in LEAGUES {
            for seed in 0..20 {
                let mut game = Spring2021::new(&league, seed);
                let mut fresh = (entry.make)(seed);
                assert!(reused.reset(seed) || name != "random");
                while let Some(player) = game.to_act() {
                    game.observe(player, &mut obs);
                    let a = fresh.act(&obs);
                    let b: Action = reused.act(&obs);
                    assert_eq!(a, b, "{name} {league:?} seed {seed}");
                    game.apply(player, Answer::Action(a));
                }
            }
        }
    }
}

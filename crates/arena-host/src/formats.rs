//! The other formats, pure: the 2014 qualifier (random groups each round, 4-player Elo, a final
//! of the top N in every seat order) and Coup's King of the Hill (rounds of every ordered pair,
//! rerun when the field changes). Their standings are computed from the results in completion
//! order, so a result counts exactly as often as it is stored: once.

use std::collections::{HashMap, HashSet};

use arena_stats::{EloConfig, elo_2014_changes};
use rand_core::RngCore;

fn below(rng: &mut impl RngCore, n: usize) -> usize {
    let n = n as u64;
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return (x % n) as usize;
        }
    }
}

fn shuffle<T>(items: &mut [T], rng: &mut impl RngCore) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i + 1);
        items.swap(i, j);
    }
}

/// One qualifier round: every player in a group of `seats`, drawn at random (as the 2014
/// qualifiers drew them). When the field does not divide, the last group is completed with
/// players drawn from the other groups (they play twice this round). `None` when the field is
/// smaller than a group.
pub fn qualifier_round(
    players: &[i64],
    seats: usize,
    rng: &mut impl RngCore,
) -> Option<Vec<Vec<i64>>> {
    if players.len() < seats || seats == 0 {
        return None;
    }
    let mut order = players.to_vec();
    shuffle(&mut order, rng);
    let mut groups: Vec<Vec<i64>> = order.chunks(seats).map(<[i64]>::to_vec).collect();
    if let Some(last) = groups.last_mut()
        && last.len() < seats
    {
        let mut others: Vec<i64> = order
            .iter()
            .copied()
            .filter(|p| !last.contains(p))
            .collect();
        while last.len() < seats {
            let pick = others.swap_remove(below(rng, others.len()));
            last.push(pick);
        }
        shuffle(last, rng);
    }
    Some(groups)
}

/// Every ordered choice of `seats` players among `finalists`: every group in every seat order.
pub fn final_games(finalists: &[i64], seats: usize) -> Vec<Vec<i64>> {
    fn extend(finalists: &[i64], seats: usize, current: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
        if current.len() == seats {
            out.push(current.clone());
            return;
        }
        for &player in finalists {
            if !current.contains(&player) {
                current.push(player);
                extend(finalists, seats, current, out);
                current.pop();
            }
        }
    }
    let mut out = Vec::new();
    if seats > 0 && finalists.len() >= seats {
        extend(finalists, seats, &mut Vec::new(), &mut out);
    }
    out
}

/// The KotH games the field still needs: every ordered pair of `active` players in every round
/// below `rounds`, less the games already scheduled (`existing`: seats and round).
pub fn koth_missing(
    active: &[i64],
    existing: &[(Vec<i64>, i64)],
    rounds: u32,
) -> Vec<(Vec<i64>, i64)> {
    let have: HashSet<(i64, i64, i64)> = existing
        .iter()
        .filter(|(seats, _)| seats.len() == 2)
        .map(|(seats, round)| (seats[0], seats[1], *round))
        .collect();
    let mut missing = Vec::new();
    for round in 0..i64::from(rounds) {
        for &a in active {
            for &b in active {
                if a != b && !have.contains(&(a, b, round)) {
                    missing.push((vec![a, b], round));
                }
            }
        }
    }
    missing
}

/// A standing: a rating or points, and games counted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Standing {
    /// Elo (qualifier) or points (final, KotH: 1 per sole win, ½ per shared first place).
    pub value: f64,
    pub games: i64,
}

/// The 2014 contests' 4-player Elo over games in completion order: (seats, winner seat).
pub fn elo_standings(games: &[(Vec<i64>, Option<usize>)]) -> HashMap<i64, Standing> {
    let config = EloConfig::default();
    let mut table: HashMap<i64, Standing> = HashMap::new();
    for (seats, winner) in games {
        let before: Vec<f64> = seats
            .iter()
            .map(|s| table.get(s).map_or(config.initial, |st| st.value))
            .collect();
        let changes = elo_2014_changes(&before, *winner, &config);
        for (seat, (rating, change)) in seats.iter().zip(before.iter().zip(changes)) {
            let entry = table.entry(*seat).or_default();
            entry.value = rating + change;
            entry.games += 1;
        }
    }
    table
}

/// Points over games (seats, ranks): 1 for a sole first place, ½ each for a shared one; only
/// games whose players are all in `field` count (KotH: a replaced submission's games drop out).
pub fn point_standings(
    games: &[(Vec<i64>, Vec<u32>)],
    field: Option<&HashSet<i64>>,
) -> HashMap<i64, Standing> {
    let mut table: HashMap<i64, Standing> = HashMap::new();
    for (seats, ranks) in games {
        if let Some(field) = field
            && !seats.iter().all(|s| field.contains(s))
        {
            continue;
        }
        let firsts = ranks.iter().filter(|&&r| r == 1).count().max(1) as f64;
        for (seat, rank) in seats.iter().zip(ranks) {
            let entry = table.entry(*seat).or_default();
            entry.games += 1;
            if *rank == 1 {
                entry.value += 1.0 / firsts;
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_puts_everyone_in_a_group_of_four() {
        let players: Vec<i64> = (1..=10).collect();
        let mut rng = rand_pcg::Pcg64::new(1, 3);
        let groups = qualifier_round(&players, 4, &mut rng).expect("groups");
        assert_eq!(groups.len(), 3);
        for group in &groups {
            assert_eq!(group.len(), 4);
            let distinct: HashSet<_> = group.iter().collect();
            assert_eq!(distinct.len(), 4, "no one twice in a group: {group:?}");
        }
        let seen: HashSet<i64> = groups.iter().flatten().copied().collect();
        assert_eq!(seen.len(), 10, "everyone plays");
        assert!(qualifier_round(&players[..3], 4, &mut rng).is_none());
    }

    #[test]
    fn the_final_is_every_seat_order_and_koth_every_ordered_pair() {
        let games = final_games(&[1, 2, 3, 4], 4);
        assert_eq!(games.len(), 24);
        assert_eq!(games.iter().collect::<HashSet<_>>().len(), 24);
        assert_eq!(final_games(&[1, 2, 3], 2).len(), 6);
        let missing = koth_missing(&[1, 2, 3], &[(vec![1, 2], 0)], 2);
        assert_eq!(missing.len(), 11);
        assert!(!missing.contains(&(vec![1, 2], 0)));
        assert!(missing.contains(&(vec![2, 1], 0)) && missing.contains(&(vec![1, 2], 1)));
    }

    #[test]
    fn standings_count_draws_as_halves_and_drop_games_outside_the_field() {
        let games = vec![
            (vec![1, 2], vec![1, 2]),
            (vec![2, 1], vec![1, 1]),
            (vec![1, 3], vec![2, 1]),
        ];
        let all = point_standings(&games, None);
        assert_eq!(
            all[&1],
            Standing {
                value: 1.5,
                games: 3
            }
        );
        assert_eq!(all[&2].value, 0.5);
        let field: HashSet<i64> = [1, 2].into();
        let some = point_standings(&games, Some(&field));
        assert_eq!(
            some[&1],
            Standing {
                value: 1.5,
                games: 2
            }
        );
        assert!(!some.contains_key(&3));
        let elo = elo_standings(&[(vec![1, 2, 3, 4], Some(0))]);
        assert!((elo[&1].value - (1500.0 + 3.0 * 16.0)).abs() < 1e-9);
        assert!((elo[&2].value - (1500.0 - 16.0)).abs() < 1e-9);
    }
}

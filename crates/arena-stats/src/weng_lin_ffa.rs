//! Weng-Lin (Bradley-Terry full pair) for free-for-all games of single players, without allocation.
//!
//! Hand-written for speed, not for a different result: `skillratings::weng_lin_multi_team` takes
//! teams as slices and returns a `Vec` of `Vec`s, four allocations and frees per 4-player game,
//! which with its twelve `exp` calls was a tenth of a million-game statistics pass. Here every
//! pair's `exp` values are computed once (the crate computes `exp(μ_i/c)` and `exp(μ_q/c)` again
//! for the pair seen from `q`; `c` and the sum `e_i + e_q` are the same bits either way) and the
//! result is a fixed array. The operations are the crate's, in its order (Weng & Lin 2011,
//! Algorithm 1, with γ = σ_i / c), so ratings are the crate's bit for bit (tested below).

use std::cmp::Ordering;

use skillratings::weng_lin::{WengLinConfig, WengLinRating};

use crate::trueskill_ffa::MAX_SEATS;

/// New ratings after a game of `ratings.len()` single players ranked `ranks` (1 = first, ties
/// share a rank); `None` for games of fewer than 2 or more than [`MAX_SEATS`] players.
pub(crate) fn rate(
    ratings: &[WengLinRating],
    ranks: &[u32],
    config: &WengLinConfig,
) -> Option<[WengLinRating; MAX_SEATS]> {
    let seats = ratings.len();
    if !(2..=MAX_SEATS).contains(&seats) || ranks.len() != seats {
        return None;
    }
    let mut variance = [0.0f64; MAX_SEATS];
    for (slot, rating) in variance.iter_mut().zip(ratings) {
        *slot = rating.uncertainty.powi(2);
    }
    let beta_sq = config.beta.powi(2);
    let mut omega = [0.0f64; MAX_SEATS];
    let mut large_delta = [0.0f64; MAX_SEATS];
    // The crate sums each seat's terms over q in seat order; pairs are visited so that every seat
    // still receives its terms in that order (i's sum gets q = 0, 1, ... as q's pair comes up).
    let mut p_of = [[0.0f64; MAX_SEATS]; MAX_SEATS];
    let mut c_of = [[0.0f64; MAX_SEATS]; MAX_SEATS];
    for i in 0..seats {
        for q in (i + 1)..seats {
            let c = 2.0f64.mul_add(beta_sq, variance[i] + variance[q]).sqrt();
            let e_i = (ratings[i].rating / c).exp();
            let e_q = (ratings[q].rating / c).exp();
            p_of[i][q] = e_i / (e_i + e_q);
            p_of[q][i] = e_q / (e_q + e_i);
            c_of[i][q] = c;
            c_of[q][i] = c;
        }
    }
    for i in 0..seats {
        for q in 0..seats {
            if q == i {
                continue;
            }
            let (c, p) = (c_of[i][q], p_of[i][q]);
            let score = match ranks[q].cmp(&ranks[i]) {
                Ordering::Greater => 1.0,
                Ordering::Equal => 0.5,
                Ordering::Less => 0.0,
            };
            omega[i] += (variance[i] / c) * (score - p);
            let gamma = variance[i].sqrt() / c;
            large_delta[i] += gamma * variance[i] / c.powi(2) * p * (1.0 - p);
        }
    }
    let mut updated = [WengLinRating::new(); MAX_SEATS];
    for i in 0..seats {
        // The player's share of the team's variance: 1 for a team of one, but computed as the
        // crate does, so that a zero or infinite variance gives the crate's result too.
        #[allow(clippy::eq_op)]
        let share = variance[i] / variance[i];
        let new_variance_factor = share
            .mul_add(-large_delta[i], 1.0)
            .max(config.uncertainty_tolerance);
        updated[i] = WengLinRating {
            rating: share.mul_add(omega[i], ratings[i].rating),
            uncertainty: (variance[i] * new_variance_factor).sqrt(),
        };
    }
    Some(updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::MultiTeamOutcome;
    use skillratings::weng_lin::weng_lin_multi_team;

    #[test]
    fn agrees_with_the_crate_bit_for_bit_on_many_games() {
        let config = WengLinConfig::new();
        // A small deterministic generator (splitmix64) for ratings and ranks.
        let mut state = 11u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for game in 0..5000 {
            let seats = 2 + (game % 7);
            let ratings: Vec<WengLinRating> = (0..seats)
                .map(|_| WengLinRating {
                    rating: (next() % 6000) as f64 / 100.0 - 5.0,
                    uncertainty: 0.01 + (next() % 900) as f64 / 100.0,
                })
                .collect();
            // Small rank range so that draws of two, three or more players happen.
            let ranks: Vec<u32> = (0..seats).map(|_| 1 + (next() % 3) as u32).collect();
            let teams: Vec<[WengLinRating; 1]> = ratings.iter().map(|r| [*r]).collect();
            let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(&ranks)
                .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(rank as usize)))
                .collect();
            let expected = weng_lin_multi_team(&input, &config);
            let ours = rate(&ratings, &ranks, &config).expect("small game");
            for seat in 0..seats {
                assert_eq!(
                    (
                        expected[seat][0].rating.to_bits(),
                        expected[seat][0].uncertainty.to_bits()
                    ),
                    (
                        ours[seat].rating.to_bits(),
                        ours[seat].uncertainty.to_bits()
                    ),
                    "game {game} seat {seat}: {:?} vs {:?}",
                    expected[seat][0],
                    ours[seat]
                );
            }
        }
    }

    #[test]
    fn games_it_does_not_handle_go_to_the_crate() {
        let config = WengLinConfig::new();
        let one = [WengLinRating::new()];
        assert!(rate(&one, &[1], &config).is_none());
        let many = [WengLinRating::new(); MAX_SEATS + 1];
        assert!(rate(&many, &[1; MAX_SEATS + 1], &config).is_none());
    }
}

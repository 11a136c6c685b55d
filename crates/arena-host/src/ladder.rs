//! The ladder's rules, pure: Weng-Lin ratings (skillratings, as arena-stats uses), the promotion
//! rule, and matchmaking (placement games against random opponents, then opponents near in
//! rating). The randomness is a PCG seeded by the caller, so a schedule can be replayed.

use std::collections::HashMap;

use rand_core::RngCore;
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use crate::config::LadderOptions;
use crate::records::{NewGame, Submission};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
}

impl Default for Rating {
    fn default() -> Self {
        let fresh = WengLinRating::new();
        Rating {
            mu: fresh.rating,
            sigma: fresh.uncertainty,
        }
    }
}

/// The ratings after one game (ranks 1-based, ties share a rank), every player a team of one.
pub fn rate(before: &[Rating], ranks: &[u32]) -> Vec<Rating> {
    let teams: Vec<[WengLinRating; 1]> = before
        .iter()
        .map(|r| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(ranks)
        .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(rank as usize)))
        .collect();
    weng_lin_multi_team(&input, &WengLinConfig::new())
        .into_iter()
        .map(|team| Rating {
            mu: team[0].rating,
            sigma: team[0].uncertainty,
        })
        .collect()
}

/// The promotion rule: at least `promotion_games` games in the league and a rating above the
/// boss's (as CodinGame promotes a player ranked above its league's boss).
pub fn promoted(games: i64, mu: f64, boss_mu: f64, promotion_games: i64) -> bool {
    games >= promotion_games && mu > boss_mu
}

/// A uniform draw below `n` (n > 0) without modulo bias.
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

/// The next game of the ladder, or `None` when nobody needs one.
///
/// The player who has played and has pending the fewest games (of those under `max_games`; ties to
/// the oldest) is matched: during its placement against players drawn uniformly in its league,
/// after it against players drawn among the `window` nearest in rating. Seats are shuffled.
pub fn next_game(
    players: &[Submission],
    pending: &HashMap<i64, i64>,
    options: &LadderOptions,
    seats: usize,
    variants: &[Option<String>],
    rng: &mut impl RngCore,
) -> Option<NewGame> {
    let load = |s: &Submission| s.games + pending.get(&s.id).copied().unwrap_or(0);
    let mut candidates: Vec<&Submission> = players
        .iter()
        .filter(|s| options.max_games.is_none_or(|max| load(s) < i64::from(max)))
        .filter(|s| players.iter().filter(|o| o.league == s.league).count() >= seats)
        .collect();
    candidates.sort_by_key(|s| (load(s), s.id));
    let me = *candidates.first()?;
    let mut others: Vec<&Submission> = players
        .iter()
        .filter(|o| o.league == me.league && o.id != me.id)
        .collect();
    if me.games >= i64::from(options.placement_games) {
        others.sort_by(|a, b| {
            let da = (a.mu - me.mu).abs();
            let db = (b.mu - me.mu).abs();
            da.total_cmp(&db).then(a.id.cmp(&b.id))
        });
        others.truncate((options.window as usize).max(seats - 1));
    }
    let mut chosen = vec![me.id];
    while chosen.len() < seats {
        let pick = others.swap_remove(below(rng, others.len()));
        chosen.push(pick.id);
    }
    // Fisher-Yates: seat order matters in most games.
    for i in (1..chosen.len()).rev() {
        let j = below(rng, i + 1);
        chosen.swap(i, j);
    }
    Some(NewGame {
        kind: if me.games < i64::from(options.placement_games) {
            "placement".into()
        } else {
            "ladder".into()
        },
        league: me.league,
        variant: variants.get(me.league as usize).cloned().flatten(),
        seats: chosen,
        round: 0,
    })
}

/// Up to `count` next games of the ladder, each drawn as [`next_game`] draws it with the
/// generator `rng_for(n)` (n: games drawn before it here), the games drawn before it counted in
/// `pending`; fewer when nobody needs one.
pub fn next_games<R: RngCore>(
    players: &[Submission],
    pending: &mut HashMap<i64, i64>,
    options: &LadderOptions,
    seats: usize,
    variants: &[Option<String>],
    count: usize,
    mut rng_for: impl FnMut(usize) -> R,
) -> Vec<NewGame> {
    let mut games = Vec::with_capacity(count);
    while games.len() < count {
        let mut rng = rng_for(games.len());
        let Some(game) = next_game(players, pending, options, seats, variants, &mut rng) else {
            break;
        };
        for seat in &game.seats {
            *pending.entry(*seat).or_default() += 1;
        }
        games.push(game);
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winner_gains_and_loser_loses() {
        let after = rate(&[Rating::default(), Rating::default()], &[1, 2]);
        assert!(after[0].mu > 25.0 && after[1].mu < 25.0);
        assert!(after[0].sigma < 25.0 / 3.0);
        let tie = rate(&[Rating::default(), Rating::default()], &[1, 1]);
        assert!((tie[0].mu - tie[1].mu).abs() < 1e-12);
    }

    #[test]
    fn promotion_needs_both_games_and_a_rating_above_the_boss() {
        assert!(!promoted(9, 30.0, 25.0, 10));
        assert!(!promoted(10, 25.0, 25.0, 10));
        assert!(promoted(10, 25.000001, 25.0, 10));
    }

    fn player(id: i64, league: i64, mu: f64, games: i64) -> Submission {
        Submission {
            id,
            user_id: id,
            user: format!("u{id}"),
            kind: "builtin".into(),
            source_name: String::new(),
            source_sha256: String::new(),
            state: "ready".into(),
            build_log: String::new(),
            active: true,
            league,
            mu,
            sigma: 1.0,
            games,
            created_at: 0,
        }
    }

    #[test]
    fn matches_the_least_played_with_near_ratings_in_its_league() {
        let players: Vec<Submission> = (0..10)
            .map(|i| player(i, if i < 8 { 0 } else { 1 }, i as f64, 20 + i))
            .collect();
        let options = LadderOptions {
            window: 2,
            placement_games: 5,
            ..LadderOptions::default()
        };
        let mut rng = rand_pcg::Pcg64::new(7, 9);
        for _ in 0..50 {
            let game = next_game(
                &players,
                &HashMap::new(),
                &options,
                2,
                &[None, None],
                &mut rng,
            )
            .expect("a game");
            assert!(game.seats.contains(&0), "player 0 has played least");
            let other = game.seats.iter().find(|&&s| s != 0).copied().unwrap_or(-1);
            assert!(
                other == 1 || other == 2,
                "a neighbour in rating, got {other}"
            );
            assert_eq!(game.kind, "ladder");
        }
        // Pending games count as played: player 0 with 5 pending is no longer the least loaded.
        let pending = HashMap::from([(0, 5)]);
        let game =
            next_game(&players, &pending, &options, 2, &[None, None], &mut rng).expect("a game");
        assert!(game.seats.contains(&1));
        // max_games stops the schedule.
        let capped = LadderOptions {
            max_games: Some(20),
            ..options
        };
        assert!(
            next_game(
                &players,
                &HashMap::new(),
                &capped,
                2,
                &[None, None],
                &mut rng
            )
            .is_none()
        );
    }
}

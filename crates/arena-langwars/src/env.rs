//! The action table and features of Lang Wars for learning environments ([`EnvSpec`]).
//!
//! An answer names 5 targets on odd turns and 2 on even ones; the rules count only how many actions
//! each target gets, so the table lists each multiset once: first the 5-target ones, then the
//! 2-target ones, each sorted (`0 0 1 3 3`). The mask marks the half that fits the turn.

use std::sync::OnceLock;

use arena_game::EnvSpec;
use arena_game::env::multisets;

use crate::engine::{Edition, LangWars, MAX_TARGETS, Move, Observation, PLAYERS, slots_in_turn};

/// The table of a game with `targets` targets: the 5-slot multisets, then the 2-slot ones; and
/// where the 2-slot half starts.
fn table(targets: usize) -> (&'static [Vec<u8>], usize) {
    type Table = (Vec<Vec<u8>>, usize);
    static TABLES: [OnceLock<Table>; MAX_TARGETS + 1] =
        [const { OnceLock::new() }; MAX_TARGETS + 1];
    let targets = targets.min(MAX_TARGETS);
    let (all, even_start) = TABLES[targets].get_or_init(|| {
        let mut all = multisets(targets as u8, 5);
        let even_start = all.len();
        all.extend(multisets(targets as u8, 2));
        (all, even_start)
    });
    (all, *even_start)
}

/// Features per target: its value, the visible believers of the 4 columns (this player first), this
/// player's real believers, and last turn's action count (odd turns; 0 on even ones).
const PER_TARGET: usize = 7;
/// Then: the turn, the number of turns, whether the turn is odd, the slots to fill.
const SCALARS: usize = 4;

impl EnvSpec for LangWars {
    fn action_count(edition: &Edition) -> usize {
        table(edition.targets()).0.len()
    }

    fn feature_count(edition: &Edition) -> usize {
        edition.targets() * PER_TARGET + SCALARS
    }

    fn action_label(edition: &Edition, index: usize) -> String {
        table(edition.targets())
            .0
            .get(index)
            .map(|targets| {
                targets
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    }

    fn legal_mask(obs: &Observation, mask: &mut [u8]) {
        let (all, start) = table(obs.targets);
        let range = if slots_in_turn(obs.turn) == 5 {
            0..start
        } else {
            start..all.len()
        };
        if let Some(part) = mask.get_mut(range) {
            part.fill(1);
        }
    }

    fn action_at(obs: &Observation, index: usize) -> Option<Move> {
        table(obs.targets)
            .0
            .get(index)
            .map(|targets| Move::new(targets))
    }

    /// The turn's remaining live players: moves are played at the end of the turn.
    fn round(&self, first: usize) -> Vec<usize> {
        let players = self.to_answer_this_turn();
        if players.first() == Some(&first) {
            players
        } else {
            vec![first]
        }
    }

    fn features(obs: &Observation, out: &mut [f32]) {
        let targets = obs.targets;
        for (target, row) in out.chunks_exact_mut(PER_TARGET).take(targets).enumerate() {
            row[0] = f32::from(obs.values[target]);
            for column in 0..PLAYERS {
                row[1 + column] = f32::from(obs.visible(target, column));
            }
            row[5] = f32::from(obs.real(target));
            row[6] = f32::from(obs.count(target).unwrap_or(0));
        }
        if let Some(tail) = out.get_mut(targets * PER_TARGET..targets * PER_TARGET + SCALARS) {
            tail[0] = obs.turn as f32;
            tail[1] = obs.turns as f32;
            tail[2] = f32::from(u8::from(obs.is_odd_turn()));
            tail[3] = obs.slots() as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_list_each_multiset_once() {
        assert_eq!(LangWars::action_count(&Edition::Lw1), 792 + 36);
        assert_eq!(LangWars::action_count(&Edition::Lw2), 252 + 21);
        assert_eq!(table(6).1, 252);
        assert_eq!(LangWars::action_label(&Edition::Lw2, 252), "0 0");
    }
}

//! The action table and features of Spring 2021 for learning environments ([`EnvSpec`]).
//!
//! The table: `WAIT`, then `COMPLETE c` for the 37 cells, `GROW c` for the 37 cells, and
//! `SEED s t` for every pair of cells (`75 + 37 s + t`). The mask marks what the referee lists as
//! possible this turn (the same moves, in a fixed order instead of the referee's shuffled one).

use arena_game::EnvSpec;

use crate::board::{CELLS, bits};
use crate::game::{Action, Cmd, League, Obs, Spring2021};

const COMPLETE_AT: usize = 1;
const GROW_AT: usize = COMPLETE_AT + CELLS;
const SEED_AT: usize = GROW_AT + CELLS;
const ACTIONS: usize = SEED_AT + CELLS * CELLS;

/// Features per cell: richness, mine, the opponent's, size 0, 1, 2, 3 (one-hot), dormant.
const PER_CELL: usize = 8;
/// Then: day, nutrients, my sun, the opponent's sun, my score, the opponent's, whether the opponent
/// is waiting.
const SCALARS: usize = 7;

/// The entry of a command in the table (`None`: a cell index beyond the board).
fn index_of(cmd: Cmd) -> Option<usize> {
    let cell = |c: u32| (c as usize) < CELLS;
    match cmd {
        Cmd::Wait => Some(0),
        Cmd::Complete(c) => cell(c).then(|| COMPLETE_AT + c as usize),
        Cmd::Grow(c) => cell(c).then(|| GROW_AT + c as usize),
        Cmd::Seed(s, t) => (cell(s) && cell(t)).then(|| SEED_AT + CELLS * s as usize + t as usize),
    }
}

fn cmd_at(index: usize) -> Option<Cmd> {
    Some(match index {
        0 => Cmd::Wait,
        i if i < GROW_AT => Cmd::Complete((i - COMPLETE_AT) as u32),
        i if i < SEED_AT => Cmd::Grow((i - GROW_AT) as u32),
        i if i < ACTIONS => {
            let pair = i - SEED_AT;
            Cmd::Seed((pair / CELLS) as u32, (pair % CELLS) as u32)
        }
        _ => return None,
    })
}

impl EnvSpec for Spring2021 {
    fn action_count(_league: &League) -> usize {
        ACTIONS
    }

    fn feature_count(_league: &League) -> usize {
        CELLS * PER_CELL + SCALARS
    }

    fn action_label(_league: &League, index: usize) -> String {
        cmd_at(index).map(|cmd| cmd.to_string()).unwrap_or_default()
    }

    fn legal_mask(obs: &Obs, mask: &mut [u8]) {
        if let Some(wait) = mask.first_mut() {
            *wait = 1;
        }
        obs.for_each_possible(|_, cmd| {
            if let Some(slot) = index_of(cmd).and_then(|i| mask.get_mut(i)) {
                *slot = 1;
            }
        });
    }

    fn action_at(_obs: &Obs, index: usize) -> Option<Action> {
        cmd_at(index).map(Action::new)
    }

    /// The frame's remaining asks: the answers are played together when all are in.
    fn round(&self, first: usize) -> Vec<usize> {
        let players = self.to_answer_this_frame();
        if players.first() == Some(&first) {
            players
        } else {
            vec![first]
        }
    }

    fn features(obs: &Obs, out: &mut [f32]) {
        let (cells, scalars) = out.split_at_mut((CELLS * PER_CELL).min(out.len()));
        for (cell, row) in cells.chunks_exact_mut(PER_CELL).enumerate() {
            row.fill(0.0);
            row[0] = f32::from(obs.richness(cell));
        }
        for cell in bits(obs.trees()) {
            let row = &mut cells[cell * PER_CELL..(cell + 1) * PER_CELL];
            row[1] = (obs.mine >> cell & 1) as f32;
            row[2] = (obs.theirs >> cell & 1) as f32;
            if let Some(size) = obs.size_of(cell) {
                row[3 + size] = 1.0;
            }
            row[7] = (obs.dormant >> cell & 1) as f32;
        }
        let values = [
            obs.day as f32,
            obs.nutrients as f32,
            obs.sun[0] as f32,
            obs.sun[1] as f32,
            obs.score[0] as f32,
            obs.score[1] as f32,
            f32::from(u8::from(obs.opp_waiting)),
        ];
        for (slot, value) in scalars.iter_mut().zip(values) {
            *slot = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_round_trips() {
        for index in 0..ACTIONS {
            let cmd = cmd_at(index).expect("in the table");
            assert_eq!(index_of(cmd), Some(index));
        }
        assert_eq!(
            Spring2021::action_label(&League::Bronze, SEED_AT + CELLS + 2),
            "SEED 1 2"
        );
    }

    /// At every ask of games between the official random bosses, the mask marks exactly the moves
    /// the referee lists.
    #[test]
    fn the_mask_is_the_listed_moves() {
        use arena_game::{Answer, Bot, Game};
        for (league, seed) in [(League::Wood2, 1), (League::Wood1, 2), (League::Bronze, 3)] {
            let mut game = Spring2021::new(&league, seed);
            let mut bots = [crate::bots::RandomBot::new(), crate::bots::RandomBot::new()];
            let mut obs = Obs::default();
            let mut listed = Vec::new();
            let mut mask = vec![0u8; ACTIONS];
            while let Some(player) = game.to_act() {
                game.observe(player, &mut obs);
                obs.listed_actions(&mut listed);
                mask.fill(0);
                Spring2021::legal_mask(&obs, &mut mask);
                let marked: Vec<usize> = (0..ACTIONS).filter(|&i| mask[i] == 1).collect();
                let mut expected: Vec<usize> = listed
                    .iter()
                    .map(|&cmd| index_of(cmd).expect("on the board"))
                    .collect();
                expected.sort_unstable();
                assert_eq!(marked, expected, "{league:?} seed {seed}");
                let action = bots[player].act(&obs);
                game.apply(player, Answer::Action(action));
            }
        }
    }
}

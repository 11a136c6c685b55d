//! What a learning environment needs of a game beyond its rules: a fixed table of actions (so that
//! a policy can answer with an index and be given a mask of the legal ones) and a numeric view of an
//! observation. Each game implements it beside its rules, from the same observation its bots and
//! its protocol read, so that the Python environments (`python/`) hold no rule of their own.
//!
//! Both functions work on the observation as the game fills it and as a bot reads it back from the
//! protocol text (`StreamProtocol::read_input`, `CallProtocol::observe_call`): a policy trained on
//! the environment sees the same features and mask when it plays as a process.

use crate::game::Game;

/// A game's action table and features (see the module documentation).
pub trait EnvSpec: Game {
    /// Entries of the action table: every action that can be legal in a game of `config`.
    fn action_count(config: &Self::Config) -> usize;
    /// Length of the feature vector of an observation.
    fn feature_count(config: &Self::Config) -> usize;
    /// One short label per table entry (the answer's text where there is one), for people.
    fn action_label(config: &Self::Config, index: usize) -> String;
    /// Sets `mask[i]` to 1 for every legal entry of the table; `mask` has `action_count` entries,
    /// all 0 on entry.
    fn legal_mask(obs: &Self::Obs, mask: &mut [u8]);
    /// The action that entry `index` stands for when `obs` is asked, or `None` beyond the table. An
    /// entry that is not legal now is still an action: the rules judge it as they would a bot's.
    fn action_at(obs: &Self::Obs, index: usize) -> Option<Self::Action>;
    /// The features of `obs` (`feature_count` values) written to `out`.
    fn features(obs: &Self::Obs, out: &mut [f32]);
    /// The players the rules ask from now on, in order, whose inputs nothing any of them answers
    /// can change, as long as no answer is a fault (a Lang Wars turn, a Spring 2021 frame): what a
    /// parallel environment asks at once. `first` is the player `to_act` returned, and the list
    /// starts with it. Each of them may be observed before the others answer and the rules send
    /// the same input and draw the same numbers. The default: `first` alone.
    fn round(&self, first: usize) -> Vec<usize> {
        vec![first]
    }
}

/// Every multiset of `size` elements of `0..items`, as sorted index lists, in lexicographic order:
/// the action tables of games whose answer is an unordered choice of targets.
pub fn multisets(items: u8, size: usize) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    let mut current = Vec::with_capacity(size);
    fn extend(items: u8, size: usize, from: u8, current: &mut Vec<u8>, all: &mut Vec<Vec<u8>>) {
        if current.len() == size {
            all.push(current.clone());
            return;
        }
        for item in from..items {
            current.push(item);
            extend(items, size, item, current, all);
            current.pop();
        }
    }
    extend(items, size, 0, &mut current, &mut all);
    all
}

#[cfg(test)]
mod tests {
    use super::multisets;

    #[test]
    fn multisets_are_counted_by_binomials() {
        // C(n + k - 1, k)
        assert_eq!(multisets(8, 5).len(), 792);
        assert_eq!(multisets(6, 5).len(), 252);
        assert_eq!(multisets(6, 2).len(), 21);
        assert_eq!(
            multisets(3, 2),
            vec![
                vec![0, 0],
                vec![0, 1],
                vec![0, 2],
                vec![1, 1],
                vec![1, 2],
                vec![2, 2]
            ]
        );
    }
}

//! The action table and features of Coup for learning environments ([`EnvSpec`]).
//!
//! The table: every move a call can append ([`MOVES`]: the end of a line, income, the six actions,
//! the four blocks, the two challenge answers, the five reveals, the five surrenders alone and
//! with the end of the line), then the end of the line after an Exchange with the cards kept: each
//! single card, then each pair (sorted). The mask marks the legal moves of the call, and on the
//! call that completes an Exchange, the selections of the offered cards of the hand's size.

use arena_game::EnvSpec;

use crate::rules::{Card, Coup, CoupAction, CoupConfig, CoupObs, Hand, Move, check_keep};

/// Every move the rules can list, in table order.
pub const MOVES: [Move; 29] = [
    Move::END,
    Move::INCOME,
    Move::char(b'F'),
    Move::char(b'E'),
    Move::char(b'T'),
    Move::char(b'A'),
    Move::char(b'C'),
    Move::char(b'S'),
    Move::char(b'd'),
    Move::char(b'a'),
    Move::char(b'c'),
    Move::char(b's'),
    Move::char(b'p'),
    Move::char(b'q'),
    Move::char(b'~'),
    Move::char(b'^'),
    Move::char(b'*'),
    Move::char(b'!'),
    Move::char(b'$'),
    Move::char(b'_'),
    Move::char(b'\''),
    Move::char(b'<'),
    Move::char(b'='),
    Move::char(b'0'),
    Move::with_newline(b'_'),
    Move::with_newline(b'\''),
    Move::with_newline(b'<'),
    Move::with_newline(b'='),
    Move::with_newline(b'0'),
];

/// The cards kept after an Exchange, by table entry after [`MOVES`]: 5 singles, then 15 pairs.
fn kept(index: usize) -> Option<Hand> {
    let mut hand = Hand::new();
    if index < 5 {
        hand.push(Card::ALL[index]);
        return Some(hand);
    }
    let mut at = 5;
    for first in 0..5 {
        for second in first..5 {
            if at == index {
                hand.push(Card::ALL[first]);
                hand.push(Card::ALL[second]);
                return Some(hand);
            }
            at += 1;
        }
    }
    None
}

const KEPT: usize = 20;
const ACTIONS: usize = MOVES.len() + KEPT;
/// Characters whose last appearance in the current line is a feature (what is pending).
const LINE_SYMBOLS: &[u8] = b"IFETACSdacspq~^*!$_'<=0";
/// My coins, the opponent's, my hand (5 counts), the drawn cards (5), cards to keep, surrendered
/// cards in the history (5), the history's length in characters, the current line's first and last
/// character (one-hot over [`LINE_SYMBOLS`] each).
const FEATURES: usize = 2 + 5 + 5 + 1 + 5 + 1 + 2 * LINE_SYMBOLS.len();

impl EnvSpec for Coup {
    fn action_count(_config: &CoupConfig) -> usize {
        ACTIONS
    }

    fn feature_count(_config: &CoupConfig) -> usize {
        FEATURES
    }

    fn action_label(_config: &CoupConfig, index: usize) -> String {
        if let Some(mv) = MOVES.get(index) {
            return format!("{:?}", mv.as_str());
        }
        kept(index - MOVES.len())
            .map(|hand| format!("\"\\n\" keep {}", hand.reveal_string()))
            .unwrap_or_default()
    }

    fn legal_mask(obs: &CoupObs, mask: &mut [u8]) {
        let exchange = obs.keep > 0;
        for (slot, mv) in mask.iter_mut().zip(MOVES) {
            // The end of an Exchange names its cards: only the entries with cards are legal then.
            *slot = u8::from(obs.legal.contains(mv) && !(exchange && mv == Move::END));
        }
        if exchange && obs.legal.contains(Move::END) {
            for (index, slot) in mask.iter_mut().enumerate().skip(MOVES.len()) {
                let fits = kept(index - MOVES.len()).is_some_and(|hand| {
                    check_keep(obs.cards.as_slice(), obs.keep, hand.as_slice()).is_ok()
                });
                *slot = u8::from(fits);
            }
        }
    }

    fn action_at(_obs: &CoupObs, index: usize) -> Option<CoupAction> {
        if let Some(&mv) = MOVES.get(index) {
            return Some(CoupAction::play(mv));
        }
        let keep = kept(index.checked_sub(MOVES.len())?)?;
        Some(CoupAction {
            keep,
            ..CoupAction::play(Move::END)
        })
    }

    fn features(obs: &CoupObs, out: &mut [f32]) {
        out.fill(0.0);
        let mut put = |at: usize, value: f32| {
            if let Some(slot) = out.get_mut(at) {
                *slot = value;
            }
        };
        put(0, obs.my_coins as f32);
        put(1, obs.opp_coins as f32);
        let count =
            |cards: &[Card], card: Card| cards.iter().filter(|&&c| c == card).count() as f32;
        let drawn: &[Card] = if obs.keep > 0 {
            &obs.cards.as_slice()[..2.min(obs.cards.len())]
        } else {
            &[]
        };
        for (k, card) in Card::ALL.into_iter().enumerate() {
            put(2 + k, count(obs.hand(), card));
            put(7 + k, count(drawn, card));
        }
        // One pass over the history for the five surrender counts.
        let mut lost = [0u32; 5];
        for b in obs.history.bytes() {
            if let Some(card) = Card::from_surrender(b) {
                lost[card as usize] += 1;
            }
        }
        for (k, count) in lost.into_iter().enumerate() {
            put(13 + k, count as f32);
        }
        put(12, obs.keep as f32);
        put(18, obs.history.len() as f32);
        let line = obs.line().as_bytes();
        let symbol = |b: Option<&u8>| b.and_then(|b| LINE_SYMBOLS.iter().position(|s| s == b));
        if let Some(k) = symbol(line.first()) {
            put(19 + k, 1.0);
        }
        if let Some(k) = symbol(line.last()) {
            put(19 + LINE_SYMBOLS.len() + k, 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_move_is_in_the_table() {
        for mv in MOVES {
            assert_eq!(Move::parse(mv.as_str().as_bytes()), Some(mv));
        }
        assert_eq!(kept(19).map(|h| h.reveal_string()), Some("$$".to_string()));
        assert_eq!(kept(20), None);
    }

    /// At every call of games between random bots, the marked moves are the arbiter's legal
    /// moves, and every marked entry is an action the rules accept.
    #[test]
    fn the_mask_is_the_legal_moves() {
        use arena_game::{Answer, Bot, Game};
        for seed in 0..50 {
            let config = CoupConfig::default();
            let mut game = Coup::new(&config, seed);
            let mut bots = [
                crate::bots::RandomBot::new(seed),
                crate::bots::RandomBot::new(seed + 1),
            ];
            let mut obs = CoupObs::default();
            let mut mask = vec![0u8; ACTIONS];
            while let Some(player) = game.to_act() {
                game.observe(player, &mut obs);
                mask.fill(0);
                Coup::legal_mask(&obs, &mut mask);
                let marked: Vec<Move> = (0..ACTIONS)
                    .filter(|&i| mask[i] == 1)
                    .filter_map(|i| Coup::action_at(&obs, i))
                    .map(|action| action.wrote)
                    .collect();
                for mv in obs.legal.as_slice() {
                    assert!(marked.contains(mv), "seed {seed}: {mv:?} legal, not marked");
                }
                for index in (0..ACTIONS).filter(|&i| mask[i] == 1) {
                    let action = Coup::action_at(&obs, index).expect("in the table");
                    assert!(
                        Coup::check_action(&obs, &action).is_ok(),
                        "seed {seed}: entry {index}"
                    );
                }
                let action = bots[player].act(&obs);
                game.apply(player, Answer::Action(action));
            }
        }
    }
}

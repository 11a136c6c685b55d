//! `oracle`: determinized Monte Carlo over the hidden cards.
//!
//! On every call with a choice it draws `samples` guesses at what it cannot see (the opponent's hand,
//! weighted towards the characters the opponent has claimed since its last Income, and the deck's
//! order), and for each guess tries every candidate (each legal move; each distinct keep when the call
//! completes an Exchange) by playing the game out with `calculator` on both sides. The candidate that
//! wins most play-outs is written; ties go to what calculator itself would write.
//!
//! Like every Coup bot it decides from the call alone (the history, coins and cards), so it plays the
//! same in process and as a program called once per move. The work is a fixed number of play-outs and
//! the randomness comes from `bot_rng`, seeded from the bot's seed and the history: the same call gets
//! the same answer.

use arena_game::game::{Answer, Bot, Game};
use arena_game::seed::{BotRng, below, bot_rng, derive_seed};
use rand_core::RngCore;

use crate::bots::{Calculator, read_history};
use crate::rules::{Card, Coup, CoupAction, CoupObs, Hand, Move};

/// Guesses at the hidden cards per call in the built-in bot.
pub const SAMPLES: usize = 200;

/// The determinized Monte Carlo bot (module documentation).
pub struct OracleBot {
    seed: u64,
    samples: usize,
}

impl OracleBot {
    pub fn new(seed: u64, samples: usize) -> Self {
        OracleBot {
            seed,
            samples: samples.max(1),
        }
    }
}

/// Every distinct answer this call can give.
fn candidates(obs: &CoupObs) -> Vec<CoupAction> {
    let mut out = Vec::new();
    for &wrote in obs.legal.as_slice() {
        if wrote == Move::END && obs.keep > 0 {
            let cards = obs.cards.as_slice();
            let mut keeps: Vec<Hand> = Vec::new();
            let mut add = |picked: &[Card]| {
                let mut sorted = picked.to_vec();
                sorted.sort();
                let mut hand = Hand::new();
                for card in sorted {
                    hand.push(card);
                }
                if !keeps.contains(&hand) {
                    keeps.push(hand);
                }
            };
            if obs.keep == 1 {
                for &card in cards {
                    add(&[card]);
                }
            } else {
                for i in 0..cards.len() {
                    for j in i + 1..cards.len() {
                        add(&[cards[i], cards[j]]);
                    }
                }
            }
            for keep in keeps {
                let mut action = CoupAction::play(wrote);
                action.keep = keep;
                out.push(action);
            }
        } else {
            out.push(CoupAction::play(wrote));
        }
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        hash = (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn same_answer(a: &CoupAction, b: &CoupAction) -> bool {
    let sorted = |hand: &Hand| {
        let mut cards = hand.as_slice().to_vec();
        cards.sort();
        cards
    };
    a.wrote == b.wrote && sorted(&a.keep) == sorted(&b.keep)
}

/// Plays `game` to its end with calculator on both sides; 1 for a win of `me`, ½ for no winner.
fn play_out(mut game: Coup, me: usize, seed: u64) -> f64 {
    let mut players = [Calculator::new(seed), Calculator::new(seed ^ 1)];
    let mut obs = CoupObs::default();
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        let action = players[player].act(&obs);
        game.apply(player, Answer::Action(action));
    }
    match game.outcome().winner {
        Some(winner) if winner == me => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

impl OracleBot {
    /// A guess at the opponent's hand and the deck, consistent with everything this call shows.
    pub fn determinize(&self, obs: &CoupObs, rng: &mut BotRng) -> Option<Coup> {
        let reading = read_history(&obs.history);
        let me = obs.player.min(1);
        let opp = 1 - me;
        // Three of each character, minus every card this bot can see.
        let mut left = [3u8; 5];
        for &card in obs.cards.as_slice() {
            left[card as usize] = left[card as usize].saturating_sub(1);
        }
        for dead in &reading.dead {
            for (count, &n) in left.iter_mut().zip(dead) {
                *count = count.saturating_sub(n);
            }
        }
        let mut pool: Vec<Card> = Card::ALL
            .iter()
            .flat_map(|&card| std::iter::repeat_n(card, left[card as usize] as usize))
            .collect();
        let opp_dead: u32 = reading.dead[opp].iter().map(|&n| n as u32).sum();
        let opp_cards = 2usize.saturating_sub(opp_dead as usize).min(pool.len());
        let claimed = reading.claimed[opp];
        // Rejection sampling: a hand missing a claimed character is kept less often (calculator claims
        // mostly what it holds, but keeps up a plan's claims after losing the card).
        for attempt in 0..16 {
            for i in (1..pool.len()).rev() {
                let j = below(rng, i as u32 + 1) as usize;
                pool.swap(i, j);
            }
            let hand = &pool[..opp_cards];
            let mut weight = 1.0;
            for card in Card::ALL {
                if claimed[card as usize] && !hand.contains(&card) {
                    weight *= 0.25;
                }
            }
            if attempt == 15 || unit(rng) < weight {
                break;
            }
        }
        let mut hands = [Hand::new(); 2];
        for &card in &pool[..opp_cards] {
            hands[opp].push(card);
        }
        for &card in obs.hand() {
            hands[me].push(card);
        }
        let mut deck: Vec<Card> = pool[opp_cards..].to_vec();
        if obs.keep > 0 {
            // The two cards drawn for this Exchange go back on top, to be drawn again in order.
            let drawn = obs.cards.as_slice();
            if drawn.len() < 2 {
                return None;
            }
            deck.push(drawn[1]);
            deck.push(drawn[0]);
        }
        let mut coins = [0; 2];
        coins[me] = obs.my_coins;
        coins[opp] = obs.opp_coins;
        let mut game = Coup::from_position(
            &obs.history,
            reading.calls,
            coins,
            hands,
            &deck,
            rng.next_u64(),
        );
        // The guess must reproduce this very call; anything else (junk in the history, a position
        // the model does not follow) means the simulation cannot be trusted.
        if game.to_act() != Some(me) {
            return None;
        }
        let mut check = CoupObs::default();
        game.observe(me, &mut check);
        (check.legal.as_slice() == obs.legal.as_slice()
            && check.keep == obs.keep
            && check.cards.as_slice() == obs.cards.as_slice())
        .then_some(game)
    }
}

fn unit(rng: &mut BotRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

impl Bot<Coup> for OracleBot {
    fn act(&mut self, obs: &CoupObs) -> CoupAction {
        let call_seed = derive_seed(self.seed, fnv1a(obs.history.as_bytes()));
        let default = Calculator::new(call_seed).act(obs);
        let options = candidates(obs);
        if options.len() <= 1 {
            return options.into_iter().next().unwrap_or(default);
        }
        let mut rng = bot_rng(call_seed);
        let mut wins = vec![0.0f64; options.len()];
        let me = obs.player.min(1);
        for _ in 0..self.samples {
            let Some(game) = self.determinize(obs, &mut rng) else {
                return default;
            };
            let play_seed = rng.next_u64();
            for (option, win) in options.iter().zip(wins.iter_mut()) {
                let mut branch = game.clone();
                branch.apply(me, Answer::Action(*option));
                *win += play_out(branch, me, play_seed);
            }
        }
        let default_index = options.iter().position(|o| same_answer(o, &default));
        let mut best = default_index.unwrap_or(0);
        for (index, &win) in wins.iter().enumerate() {
            if win > wins[best] {
                best = index;
            }
        }
        options[best]
    }
}

//! `oracle` and `king`: determinized Monte Carlo over the hidden cards.
//!
//! On every call with a choice the bot draws `samples` guesses at what it cannot see (the opponent's
//! hand and the deck's order), and for each guess tries every candidate (each legal move; each
//! distinct keep when the call completes an Exchange) by playing the game out, `calculator` playing
//! for the bot. The candidate that wins most play-outs is written; ties go to what calculator itself
//! would write.
//!
//! The two differ in how they model the opponent ([`Model`]):
//! - `oracle` weights the guesses towards the characters the opponent claimed since its last Income
//!   and has calculator play the opponent;
//! - `king` counts cards from the whole history (the claims not since shown, given up or
//!   exchanged; the blocks the opponent did not make when a Steal, Foreign Aid or Assassination let
//!   it), believes claims as far as this game's caught bluffs and shown cards say, and weighs what
//!   kind of player the opponent is ([`Opponent`]: calculator-like, honest, or a doubter) by its
//!   challenges and passes so far. Each guess draws a kind by those weights and plays that kind out;
//!   the calculator-like one makes a random choice at a share of its decisions, so the search does
//!   not lean on one exact opponent.
//!
//! Like every Coup bot it decides from the call alone (the history, coins and cards), so it plays the
//! same in process and as a program called once per move. The work is a fixed number of play-outs and
//! the randomness comes from `bot_rng`, seeded from the bot's seed and the history: the same call gets
//! the same answer.

use arena_game::game::{Answer, Bot, Game};
use arena_game::seed::{BotRng, below, bot_rng, derive_seed};
use rand_core::RngCore;

use crate::bots::{Reading, Simple, Style, read_history};
use crate::calculator::Calculator;
use crate::rules::{Card, Coup, CoupAction, CoupObs, Hand, Move};

/// Guesses at the hidden cards per call in the built-in bot.
pub const SAMPLES: usize = 200;

/// How the searching bot models what it cannot see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// `oracle`: the opponent holds what it claimed since its last Income (calculator's own notion),
    /// and plays like calculator.
    Oracle,
    /// `king`: the opponent holds what it claimed and has not shown, given up or exchanged since,
    /// believed as far as its caught bluffs and shown cards in this game say; and it plays like
    /// calculator with a share of surprises (a random legal choice at some of its decisions), so
    /// the search does not lean on one exact opponent.
    King,
}

/// The determinized Monte Carlo bot (module documentation).
pub struct OracleBot {
    seed: u64,
    samples: usize,
    model: Model,
}

impl OracleBot {
    pub fn new(seed: u64, samples: usize) -> Self {
        Self::with_model(seed, samples, Model::Oracle)
    }

    pub fn with_model(seed: u64, samples: usize, model: Model) -> Self {
        OracleBot {
            seed,
            samples: samples.max(1),
            model,
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

/// What `king` takes the opponent for in one guess (the rollouts' opponent and how far its claims are
/// believed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Opponent {
    /// Plays like calculator, with a share of random choices (the f64).
    Calculator(f64),
    /// Claims only what it holds, blocks truthfully, challenges only what is provably false
    /// (the `lawyer` rules): passive, and never bluffing.
    Honest,
    /// Challenges every claim (the `challenger` rules).
    Doubter,
}

impl Opponent {
    const KINDS: usize = 3;

    /// How likely this kind challenges a claim it could challenge, and how likely a claim of its
    /// that gets challenged is a bluff (the likelihoods `king` weighs the kinds by).
    fn rates(kind: usize) -> (f64, f64) {
        match kind {
            0 => (0.35, 0.3),
            1 => (0.03, 0.01),
            _ => (0.95, 0.5),
        }
    }

    /// Prior odds of each kind before any evidence.
    fn prior(kind: usize) -> f64 {
        [0.6, 0.25, 0.15][kind]
    }

    /// The weights of the kinds given the opponent's challenges, passes and challenged claims so
    /// far (a product of per-event likelihoods; the challenges it lost count as evidence against
    /// an opponent that only challenges sure things).
    fn posterior(reading: &Reading, opp: usize) -> [f64; Self::KINDS] {
        let me = 1 - opp;
        let mut weights = [0.0; Self::KINDS];
        for (kind, weight) in weights.iter_mut().enumerate() {
            let (challenge, bluff) = Self::rates(kind);
            let mut w = Self::prior(kind).ln();
            w += reading.challenges[opp] as f64 * challenge.ln();
            w += reading.declined[opp] as f64 * (1.0 - challenge).ln();
            w += reading.caught[opp] as f64 * bluff.ln();
            w += reading.shown[opp] as f64 * (1.0 - bluff).ln();
            if kind == 1 {
                // An honest lawyer challenges only provably false claims: never a true one.
                w += reading.shown[me] as f64 * 0.01f64.ln();
            }
            *weight = w;
        }
        let top = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for w in &mut weights {
            *w = (*w - top).exp();
        }
        weights
    }
}

/// A rollout player.
enum Rollout {
    /// Calculator, making a uniformly random choice instead at a share `noise` of its turn starts
    /// and answers (never at a card to give up, where a random pick only loses).
    Calculator {
        calculator: Calculator,
        rng: BotRng,
        noise: f64,
    },
    Simple(Simple),
}

impl Rollout {
    fn new(seed: u64, opponent: Opponent) -> Self {
        match opponent {
            Opponent::Calculator(noise) => Rollout::Calculator {
                calculator: Calculator::new(seed),
                rng: bot_rng(seed ^ 0x9e37_79b9_7f4a_7c15),
                noise,
            },
            Opponent::Honest => Rollout::Simple(Simple::new(Style::Lawyer)),
            Opponent::Doubter => Rollout::Simple(Simple::new(Style::Challenger)),
        }
    }

    fn act(&mut self, obs: &CoupObs) -> CoupAction {
        match self {
            Rollout::Simple(bot) => bot.act(obs),
            Rollout::Calculator {
                calculator,
                rng,
                noise,
            } => {
                let moves = obs.legal.as_slice();
                let open = obs.keep == 0
                    && moves.len() > 1
                    && moves
                        .iter()
                        .any(|m| matches!(m.first(), b'I' | b'p' | b'q' | b'\n'));
                if *noise > 0.0 && open && unit(rng) < *noise {
                    let pick = below(rng, moves.len() as u32) as usize % moves.len();
                    return CoupAction::play(moves[pick]);
                }
                calculator.act(obs)
            }
        }
    }
}

/// Plays `game` to its end, calculator for `me` and `opponent` for the other; 1 for a win of `me`,
/// ½ for no winner.
fn play_out(mut game: Coup, me: usize, seed: u64, opponent: Opponent) -> f64 {
    let seeds = [seed, seed ^ 1];
    let mut players = seeds.map(|seed| Rollout::new(seed, Opponent::Calculator(0.0)));
    players[1 - me] = Rollout::new(seeds[1 - me], opponent);
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
        self.guess(obs, &reading, Opponent::Calculator(0.0), rng)
    }

    /// [`determinize`](Self::determinize) for an opponent taken for `opponent`.
    fn guess(
        &self,
        obs: &CoupObs,
        reading: &Reading,
        opponent: Opponent,
        rng: &mut BotRng,
    ) -> Option<Coup> {
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
        let (claimed, bluff_weight, attempts) = match self.model {
            // Calculator claims mostly what it holds, but keeps up a plan's claims after losing
            // the card.
            Model::Oracle => (reading.claimed[opp], 0.25, 16),
            // The odds of a bluff from this game's evidence: a prior of one caught bluff in three
            // challenged claims, plus what the challenges so far showed.
            Model::King if opponent == Opponent::Honest => (reading.live_claims[opp], 0.02, 32),
            Model::King => {
                let caught = reading.caught[opp] as f64;
                let shown = reading.shown[opp] as f64;
                (
                    reading.live_claims[opp],
                    (1.0 + caught) / (3.0 + caught + shown),
                    32,
                )
            }
        };
        let (denied, denied_weight) = match (self.model, opponent) {
            (Model::Oracle, _) | (_, Opponent::Doubter) => ([false; 5], 1.0),
            _ => (reading.denied[opp], 0.15),
        };
        // Rejection sampling: a hand missing a claimed character is kept less often.
        for attempt in 0..attempts {
            for i in (1..pool.len()).rev() {
                let j = below(rng, i as u32 + 1) as usize;
                pool.swap(i, j);
            }
            let hand = &pool[..opp_cards];
            let mut weight = 1.0;
            for card in Card::ALL {
                if claimed[card as usize] && !hand.contains(&card) {
                    weight *= bluff_weight;
                }
                // A character it let pass unblocked is unlikely in hand (not for a doubter, which
                // never blocks).
                if denied[card as usize] && hand.contains(&card) {
                    weight *= denied_weight;
                }
            }
            if attempt + 1 == attempts || unit(rng) < weight {
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
        let reading = read_history(&obs.history);
        let kinds = Opponent::posterior(&reading, 1 - me);
        let total: f64 = kinds.iter().sum();
        for _ in 0..self.samples {
            let opponent = match self.model {
                Model::Oracle => Opponent::Calculator(0.0),
                Model::King => {
                    // A kind by its weight; the calculator-like one makes a random choice at a
                    // tenth or a quarter of its decisions (more hurt against calculator itself,
                    // none did worse against oracle: docs/benchmarks.md).
                    let mut at = unit(&mut rng) * total;
                    let kind = kinds
                        .iter()
                        .position(|&w| {
                            at -= w;
                            at < 0.0
                        })
                        .unwrap_or(0);
                    match kind {
                        0 => Opponent::Calculator(
                            [0.1, 0.1, 0.25, 0.25][below(&mut rng, 4) as usize & 3],
                        ),
                        1 => Opponent::Honest,
                        _ => Opponent::Doubter,
                    }
                }
            };
            let Some(game) = self.guess(obs, &reading, opponent, &mut rng) else {
                return default;
            };
            let play_seed = rng.next_u64();
            for (option, win) in options.iter().zip(wins.iter_mut()) {
                let mut branch = game.clone();
                branch.apply(me, Answer::Action(*option));
                *win += play_out(branch, me, play_seed, opponent);
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

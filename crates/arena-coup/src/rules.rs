//! The rules of Coup KotH as a state machine over the history line (reference §2.4–2.8).
//!
//! The state is the history text itself plus what the arbiter keeps beside it (coins, hands, deck).
//! Every call appends one legal move; effects are applied at the call where the arbiter applies
//! them (reference §2.7), so coins shown mid-turn exclude costs not yet charged, as in the original.
//! The arbiter's defects are fixed as DESIGN.md says: the game owns a fresh deck, hands and coins, the
//! appended text must end with one legal move (exactly one with `strict_moves`; junk before it is kept
//! and warned about, as the original kept it), and any fault forfeits the game.

use std::fmt;
use std::time::Duration;

use arena_game::game::{Answer, Fault, FaultKind, Game, Outcome};
use arena_game::score::Score;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The arbiter's call limit: 200 calls without a winner end the game with no winner.
pub const MAX_CALLS: u32 = 200;
/// Longest deck a config may set (the standard deck has 15 cards).
pub const MAX_DECK: usize = 32;
/// Fewest cards a config deck may hold: 4 are dealt and an Exchange draws 2 more, so with 6 the deck
/// can never run dry (every reveal or Exchange puts back what it takes).
pub const MIN_DECK: usize = 6;

/// A character card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum Card {
    #[default]
    Ambassador = 0,
    Assassin = 1,
    Captain = 2,
    Contessa = 3,
    Duke = 4,
}

impl Card {
    pub const ALL: [Card; 5] = [
        Card::Ambassador,
        Card::Assassin,
        Card::Captain,
        Card::Contessa,
        Card::Duke,
    ];

    /// The symbol written when the card is shown to win a challenge (also used in argv and on stdout).
    pub fn reveal(self) -> u8 {
        b"~^*!$"[self as usize]
    }

    /// The symbol written when the card is lost for good (also the arbiter's internal hand notation).
    pub fn surrender(self) -> u8 {
        b"_'<=0"[self as usize]
    }

    pub fn from_reveal(symbol: u8) -> Option<Card> {
        b"~^*!$"
            .iter()
            .position(|&s| s == symbol)
            .map(|i| Card::ALL[i])
    }

    pub fn from_surrender(symbol: u8) -> Option<Card> {
        b"_'<=0"
            .iter()
            .position(|&s| s == symbol)
            .map(|i| Card::ALL[i])
    }

    /// The card a claim needs (actions `E T A S`, blocks `d a c s`).
    pub fn needed_for(claim: u8) -> Option<Card> {
        Some(match claim {
            b'E' | b'a' => Card::Ambassador,
            b'A' => Card::Assassin,
            b'S' | b'c' => Card::Captain,
            b's' => Card::Contessa,
            b'T' | b'd' => Card::Duke,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        ["Ambassador", "Assassin", "Captain", "Contessa", "Duke"][self as usize]
    }
}

fn is_surrender(symbol: u8) -> bool {
    matches!(symbol, b'_' | b'\'' | b'<' | b'=' | b'0')
}

fn is_reveal(symbol: u8) -> bool {
    matches!(symbol, b'~' | b'^' | b'*' | b'!' | b'$')
}

fn is_block(symbol: u8) -> bool {
    matches!(symbol, b'a' | b'c' | b'd' | b's')
}

/// Up to `N` cards in order (hands, the Exchange view, kept cards).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cards<const N: usize> {
    cards: [Card; N],
    len: u8,
}

impl<const N: usize> Default for Cards<N> {
    fn default() -> Self {
        Cards {
            cards: [Card::Ambassador; N],
            len: 0,
        }
    }
}

impl<const N: usize> Cards<N> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_slice(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    /// Adds a card at the end; `false` when full.
    pub fn push(&mut self, card: Card) -> bool {
        if self.len() == N {
            return false;
        }
        self.cards[self.len()] = card;
        self.len += 1;
        true
    }

    pub fn contains(&self, card: Card) -> bool {
        self.as_slice().contains(&card)
    }

    /// Removes the first copy of `card`, keeping the order of the rest (Python's `list.remove`).
    pub fn remove(&mut self, card: Card) -> bool {
        let Some(at) = self.as_slice().iter().position(|&c| c == card) else {
            return false;
        };
        let len = self.len();
        self.cards.copy_within(at + 1..len, at);
        self.len -= 1;
        true
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The cards in reveal symbols, as in argv and on stdout.
    pub fn reveal_string(&self) -> String {
        self.as_slice().iter().map(|c| c.reveal() as char).collect()
    }

    pub fn write_reveal(&self, out: &mut String) {
        for card in self.as_slice() {
            out.push(card.reveal() as char);
        }
    }

    /// Parses reveal symbols (`~^*!$`); `None` on another symbol or too many cards.
    pub fn parse_reveal(text: &str) -> Option<Self> {
        let mut cards = Self::new();
        for &b in text.as_bytes() {
            if !cards.push(Card::from_reveal(b)?) {
                return None;
            }
        }
        Some(cards)
    }
}

impl<const N: usize> fmt::Debug for Cards<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.reveal_string())
    }
}

impl<const N: usize> Serialize for Cards<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.reveal_string())
    }
}

impl<'de, const N: usize> Deserialize<'de> for Cards<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Cards::parse_reveal(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("bad cards `{text}`")))
    }
}

/// A hand (at most 2 cards).
pub type Hand = Cards<2>;

/// One legal move: the text a bot appends, 1 or 2 characters (`I\n` and a surrender plus `\n` are the
/// two-character ones).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    first: u8,
    newline: bool,
}

impl Move {
    pub const INCOME: Move = Move {
        first: b'I',
        newline: true,
    };
    pub const END: Move = Move {
        first: b'\n',
        newline: false,
    };

    /// A one-character move.
    pub const fn char(symbol: u8) -> Move {
        Move {
            first: symbol,
            newline: false,
        }
    }

    /// A character followed by the end of the line.
    pub const fn with_newline(symbol: u8) -> Move {
        Move {
            first: symbol,
            newline: true,
        }
    }

    /// The first character written.
    pub fn first(self) -> u8 {
        self.first
    }

    pub fn ends_line(self) -> bool {
        self.newline || self.first == b'\n'
    }

    pub fn len(self) -> usize {
        1 + self.newline as usize
    }

    pub fn is_empty(self) -> bool {
        false
    }

    pub fn as_str(&self) -> &'static str {
        // Every move is ASCII: look it up in a static table so callers get a `&str` without allocating.
        static SINGLE: [&str; 128] = {
            let mut table = [""; 128];
            let mut i = 0;
            while i < 128 {
                table[i] = match i as u8 {
                    b'\n' => "\n",
                    b'I' => "I",
                    b'F' => "F",
                    b'E' => "E",
                    b'T' => "T",
                    b'A' => "A",
                    b'C' => "C",
                    b'S' => "S",
                    b'd' => "d",
                    b'a' => "a",
                    b'c' => "c",
                    b's' => "s",
                    b'p' => "p",
                    b'q' => "q",
                    b'~' => "~",
                    b'^' => "^",
                    b'*' => "*",
                    b'!' => "!",
                    b'$' => "$",
                    b'_' => "_",
                    b'\'' => "'",
                    b'<' => "<",
                    b'=' => "=",
                    b'0' => "0",
                    _ => "?",
                };
                i += 1;
            }
            table
        };
        if self.newline {
            match self.first {
                b'I' => "I\n",
                b'_' => "_\n",
                b'\'' => "'\n",
                b'<' => "<\n",
                b'=' => "=\n",
                b'0' => "0\n",
                _ => "?\n",
            }
        } else {
            SINGLE[(self.first & 0x7f) as usize]
        }
    }

    /// Parses the exact text of a move the rules can produce; `None` for anything else.
    pub fn parse(text: &[u8]) -> Option<Move> {
        let candidate = match text {
            [b'I', b'\n'] => Move::INCOME,
            [symbol, b'\n'] if is_surrender(*symbol) => Move::with_newline(*symbol),
            [symbol] => Move::char(*symbol),
            _ => return None,
        };
        (candidate.as_str().as_bytes() == text).then_some(candidate)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Move::parse(text.as_bytes())
            .ok_or_else(|| serde::de::Error::custom(format!("not a move: {text:?}")))
    }
}

/// The legal moves of one call, in the arbiter's order (at most 7: a turn start with every action).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Legal {
    moves: [Move; 8],
    len: u8,
}

impl Default for Move {
    fn default() -> Self {
        Move::END
    }
}

impl Legal {
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    /// Adds a move at the end; `false` when full.
    pub fn push(&mut self, mv: Move) -> bool {
        if self.len() == self.moves.len() {
            return false;
        }
        self.moves[self.len as usize] = mv;
        self.len += 1;
        true
    }

    pub fn from_moves(moves: &[Move]) -> Self {
        let mut legal = Legal::default();
        for &mv in moves {
            legal.push(mv);
        }
        legal
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

impl fmt::Debug for Legal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// A player's answer: the move appended to the history and, when the call completes an Exchange, the
/// cards kept (what the bot printed on stdout, in reveal symbols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoupAction {
    pub wrote: Move,
    #[serde(default, skip_serializing_if = "Cards::is_empty")]
    pub keep: Hand,
    /// One character written before the move, which the original arbiter accepted (its move check
    /// only asks whether the line *ends with* a legal move, B4) and kept in the history. Never a
    /// newline; refused when the game demands exact moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub junk: Option<char>,
}

impl CoupAction {
    pub fn play(wrote: Move) -> Self {
        CoupAction {
            wrote,
            keep: Hand::new(),
            junk: None,
        }
    }
}

/// What a player is told on a call: exactly the arbiter's argv, typed.
#[derive(Clone, Debug, Default)]
pub struct CoupObs {
    /// The seat being asked (0 moved first).
    pub player: usize,
    /// The history file's content.
    pub history: String,
    pub opp_coins: i32,
    pub my_coins: i32,
    /// Argument 4: after an Exchange the two drawn cards first, then the hand.
    pub cards: Cards<4>,
    /// How many cards to print on stdout: the hand size when this call completes an Exchange, else 0.
    pub keep: usize,
    pub legal: Legal,
    /// The game demands exactly one legal move per call (`--strict-moves`); otherwise a character of
    /// junk before the move is accepted, as the original arbiter accepted it.
    pub strict_moves: bool,
}

impl CoupObs {
    /// The arguments after the history path: opponent coins, own coins, cards, then one per legal move.
    pub fn args(&self) -> Vec<String> {
        let mut args = Vec::with_capacity(3 + self.legal.len());
        args.push(self.opp_coins.to_string());
        args.push(self.my_coins.to_string());
        args.push(self.cards.reveal_string());
        args.extend(self.legal.as_slice().iter().map(|m| m.as_str().to_string()));
        args
    }

    /// The current (unfinished) line of the history.
    pub fn line(&self) -> &str {
        match self.history.rfind('\n') {
            Some(at) => &self.history[at + 1..],
            None => &self.history,
        }
    }

    /// The hand (argument 4 without the drawn cards).
    pub fn hand(&self) -> &[Card] {
        let drawn = if self.keep > 0 { 2 } else { 0 };
        &self.cards.as_slice()[drawn.min(self.cards.len())..]
    }
}

/// Rule parameters and the reproducibility hooks, as the game's options set them
/// (`config_of` in the entry module).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoupConfig {
    /// The deck before the deal, in surrender symbols (`_ ' < = 0`), dealt and drawn from its END
    /// (`COUP_DECK`). `None`: the standard 15 cards shuffled from the game seed.
    pub deck: Option<String>,
    /// Turn every shuffle after a reveal or an Exchange off (`COUP_NO_SHUFFLE=1`): cards returned to the
    /// deck go on its end, so a game is fixed by the deck and the answers.
    pub no_shuffle: bool,
    /// Calls without a winner before the game ends with no winner.
    pub max_calls: u32,
    /// Per-call limit in milliseconds (the original had none).
    pub time_limit_ms: u64,
    /// Demand exactly one legal move per call. Off by default: like the original arbiter, a call may
    /// write one character before a legal move (the junk stays in the history, with a rule warning).
    pub strict_moves: bool,
}

impl Default for CoupConfig {
    fn default() -> Self {
        CoupConfig {
            deck: None,
            no_shuffle: false,
            max_calls: MAX_CALLS,
            time_limit_ms: 10_000,
            strict_moves: false,
        }
    }
}

impl CoupConfig {
    /// Checks the deck; every front end calls this before building a game.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(deck) = &self.deck {
            parse_deck(deck)?;
        }
        if self.max_calls == 0 {
            return Err("max_calls must be at least 1".into());
        }
        Ok(())
    }
}

/// A deck as a stack: index 0 is the bottom, cards are dealt from the end.
#[derive(Clone, Copy)]
struct Deck {
    cards: [Card; MAX_DECK],
    len: u8,
}

impl Deck {
    fn standard() -> Self {
        let mut deck = Deck {
            cards: [Card::Ambassador; MAX_DECK],
            len: 15,
        };
        for i in 0..15 {
            // The arbiter builds `['_', "'", '<', '=', '0'] * 3`.
            deck.cards[i] = Card::ALL[i % 5];
        }
        deck
    }

    /// The top card. A valid deck has at least MIN_DECK cards and every draw is matched by a return,
    /// except when junk before a turn's end stops an Exchange from returning its cards (as in the
    /// original): then the deck can run dry.
    fn pop(&mut self) -> Option<Card> {
        self.len = self.len.checked_sub(1)?;
        Some(self.cards[self.len as usize])
    }

    fn push(&mut self, card: Card) {
        if (self.len as usize) < MAX_DECK {
            self.cards[self.len as usize] = card;
            self.len += 1;
        }
    }

    /// Fisher–Yates from the game's generator.
    fn shuffle(&mut self, rng: &mut Pcg64Mcg) {
        for i in (1..self.len as usize).rev() {
            let j = ((rng.next_u32() as u64 * (i as u64 + 1)) >> 32) as usize;
            self.cards.swap(i, j);
        }
    }
}

fn parse_deck(text: &str) -> Result<Deck, String> {
    let bytes = text.as_bytes();
    if !(MIN_DECK..=MAX_DECK).contains(&bytes.len()) {
        return Err(format!(
            "a deck needs {MIN_DECK} to {MAX_DECK} cards, got {}",
            bytes.len()
        ));
    }
    let mut deck = Deck {
        cards: [Card::Ambassador; MAX_DECK],
        len: bytes.len() as u8,
    };
    for (slot, &b) in deck.cards.iter_mut().zip(bytes) {
        *slot = Card::from_surrender(b).ok_or_else(|| {
            format!(
                "bad card {:?} in the deck (use surrender symbols _ ' < = 0)",
                b as char
            )
        })?;
    }
    Ok(deck)
}

/// What a call did, for viewers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Income,
    /// An action claimed or declared (`F C E T A S`).
    Action {
        action: char,
    },
    Block {
        card: Card,
    },
    Pass,
    Challenge,
    Reveal {
        card: Card,
        /// Whether a new card replaced it (`false`: an Ambassador defending an Exchange stays in hand).
        replaced: bool,
    },
    Surrender {
        card: Card,
    },
    EndTurn {
        /// The cards kept when the turn completed an Exchange.
        #[serde(skip_serializing_if = "Option::is_none")]
        kept: Option<String>,
    },
    Forfeit {
        reason: String,
    },
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Card::ALL
            .into_iter()
            .find(|c| c.name() == text)
            .ok_or_else(|| serde::de::Error::custom(format!("not a card: {text}")))
    }
}

/// The state after one call.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Frame {
    pub call: u32,
    pub player: usize,
    /// What was appended (empty for a forfeit).
    pub wrote: String,
    pub event: Event,
    pub coins: [i32; 2],
    /// Each player's hand, in reveal symbols.
    pub cards: [String; 2],
}

/// One game of Coup.
#[derive(Clone)]
pub struct Coup {
    history: String,
    /// Where the current line starts in `history`.
    line_start: usize,
    coins: [i32; 2],
    hands: [Hand; 2],
    deck: Deck,
    rng: Pcg64Mcg,
    shuffle: bool,
    calls: u32,
    max_calls: u32,
    time_limit: Duration,
    strict_moves: bool,
    over: bool,
    winner: Option<usize>,
    /// The next call, prepared by `to_act` (legal moves, the cards drawn for an Exchange).
    prepared: bool,
    legal: Legal,
    drawn: Option<[Card; 2]>,
    faults: Vec<(usize, Fault)>,
    /// Accepted deviations from the exact protocol (junk before a move), per player.
    warnings: Vec<(usize, String)>,
    frames: Option<Vec<Frame>>,
}

impl fmt::Debug for Coup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Coup")
            .field("history", &self.history)
            .field("coins", &self.coins)
            .field("hands", &self.hands)
            .field("calls", &self.calls)
            .field("winner", &self.winner)
            .finish_non_exhaustive()
    }
}

impl Coup {
    /// A position for a bot's own simulations: `history` as written so far (`calls` calls in all),
    /// the coins, both hands and a deck (bottom first; a bot's guess at the hidden cards), shuffles from
    /// `seed`, the default rules otherwise.
    pub fn from_position(
        history: &str,
        calls: u32,
        coins: [i32; 2],
        hands: [Hand; 2],
        deck: &[Card],
        seed: u64,
    ) -> Coup {
        let mut stack = Deck {
            cards: [Card::Ambassador; MAX_DECK],
            len: 0,
        };
        for &card in deck.iter().take(MAX_DECK) {
            stack.push(card);
        }
        let config = CoupConfig::default();
        Coup {
            history: history.to_string(),
            line_start: history.rfind('\n').map_or(0, |at| at + 1),
            coins,
            hands,
            deck: stack,
            rng: Pcg64Mcg::seed_from_u64(seed),
            shuffle: true,
            calls,
            max_calls: config.max_calls,
            time_limit: Duration::from_millis(config.time_limit_ms),
            strict_moves: false,
            over: false,
            winner: None,
            prepared: false,
            legal: Legal::default(),
            drawn: None,
            faults: Vec::new(),
            warnings: Vec::new(),
            frames: None,
        }
    }

    /// The history file's content so far.
    pub fn history(&self) -> &str {
        &self.history
    }

    pub fn coins(&self) -> [i32; 2] {
        self.coins
    }

    pub fn hand(&self, player: usize) -> &Hand {
        &self.hands[player]
    }

    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// The cards left in the deck, bottom first (tests and viewers).
    pub fn deck(&self) -> Vec<Card> {
        self.deck.cards[..self.deck.len as usize].to_vec()
    }

    fn line(&self) -> &[u8] {
        &self.history.as_bytes()[self.line_start..]
    }

    /// Whether the call about to be made completes an Exchange: the line starts with `E`, has even
    /// length (the turn owner's call) and ends in a pass or a surrender (reference §2.6).
    fn completes_exchange(&self) -> bool {
        let line = self.line();
        line.first() == Some(&b'E')
            && line.len() & 1 == 0
            && line.last().is_some_and(|&c| c == b'p' || is_surrender(c))
    }

    fn hand_moves(legal: &mut Legal, hand: &Hand, newline: bool) {
        for card in hand.as_slice() {
            legal.push(if newline {
                Move::with_newline(card.surrender())
            } else {
                Move::char(card.surrender())
            });
        }
    }

    /// The legal moves of `player` now, in the arbiter's order (reference §2.4).
    fn compute_legal(&self, player: usize, legal: &mut Legal) {
        legal.clear();
        let hand = &self.hands[player];
        if self.history.is_empty() {
            // The arbiter's fixed first list; with fresh coins every game it offers what the general
            // rule would (only the order differs), so it is kept for byte-exact argv.
            legal.push(Move::INCOME);
            for &c in b"FEST" {
                legal.push(Move::char(c));
            }
            return;
        }
        let line = self.line();
        let Some(&last) = line.last() else {
            if self.coins[player] >= 10 {
                legal.push(Move::char(b'C'));
                return;
            }
            legal.push(Move::INCOME);
            legal.push(Move::char(b'F'));
            legal.push(Move::char(b'E'));
            legal.push(Move::char(b'T'));
            if self.coins[player] >= 3 {
                legal.push(Move::char(b'A'));
            }
            if self.coins[player] >= 7 {
                legal.push(Move::char(b'C'));
            }
            if self.coins[1 - player] > 0 {
                legal.push(Move::char(b'S'));
            }
            return;
        };
        match last {
            b'F' => {
                legal.push(Move::char(b'd'));
                legal.push(Move::char(b'p'));
            }
            b'C' => Self::hand_moves(legal, hand, false),
            b'E' | b'T' => {
                legal.push(Move::char(b'p'));
                legal.push(Move::char(b'q'));
            }
            b'A' => {
                legal.push(Move::char(b's'));
                legal.push(Move::char(b'q'));
                Self::hand_moves(legal, hand, false);
            }
            b'S' => {
                for &c in b"acpq" {
                    legal.push(Move::char(c));
                }
            }
            b'a' | b'c' | b'd' | b's' => {
                legal.push(Move::char(b'q'));
                legal.push(Move::END);
            }
            b'p' | b'_' | b'\'' | b'<' | b'=' | b'0' => {
                legal.push(Move::END);
            }
            b'q' => {
                let challenged = line[line.len() - 2];
                // Forced honesty (B10): holding the card means revealing it is the only move.
                if let Some(card) = Card::needed_for(challenged)
                    && hand.contains(card)
                {
                    legal.push(Move::char(card.reveal()));
                    return;
                }
                // A block is challenged on the owner's turn, so its loser (the responder) does not
                // end the line; a challenged action's loser is the turn owner, who does.
                Self::hand_moves(legal, hand, !is_block(challenged));
            }
            c if is_reveal(c) => {
                // The challenger lost. Two back is the challenged claim: a block means the turn owner
                // challenged and now ends the line with its loss.
                let newline = line.len() >= 3 && is_block(line[line.len() - 3]);
                Self::hand_moves(legal, hand, newline);
            }
            // Unreachable with strict moves: the arbiter gave such a game to the player about to move.
            _ => {}
        }
    }

    fn prepare(&mut self) {
        if self.prepared {
            return;
        }
        let player = self.to_move();
        let mut legal = Legal::default();
        self.compute_legal(player, &mut legal);
        self.legal = legal;
        self.drawn = if self.completes_exchange() {
            match (self.deck.pop(), self.deck.pop()) {
                (Some(first), Some(second)) => Some([first, second]),
                _ => {
                    self.run_dry(player);
                    None
                }
            }
        } else {
            None
        };
        self.prepared = true;
    }

    /// The deck cannot give a card (only after junk lost an Exchange's cards): the original arbiter
    /// crashed here; arena ends the game with no winner and says why.
    fn run_dry(&mut self, player: usize) {
        self.over = true;
        self.winner = None;
        self.warnings.push((
            player,
            format!(
                "call {}: the deck ran dry (cards lost to junk before a turn's end; the original \
                 arbiter crashed here): no winner",
                self.calls
            ),
        ));
    }

    /// Calls alternate strictly between the players, whatever happens on the line.
    fn to_move(&self) -> usize {
        (self.calls % 2) as usize
    }

    fn forfeit(&mut self, player: usize, fault: Fault, noticed_by_rules: bool) {
        if noticed_by_rules {
            self.faults.push((player, fault.clone()));
        }
        self.over = true;
        self.winner = Some(1 - player);
        if let Some(frames) = &mut self.frames {
            frames.push(Frame {
                call: self.calls,
                player,
                wrote: String::new(),
                event: Event::Forfeit {
                    reason: fault.to_string(),
                },
                coins: self.coins,
                cards: [self.hands[0].reveal_string(), self.hands[1].reveal_string()],
            });
        }
    }

    /// Checks an answer against the prepared call: exactly one legal move, and a legal keep when the
    /// call completes an Exchange. Shared by the rules, the process agent and the conformance checker.
    pub fn check_action(obs: &CoupObs, action: &CoupAction) -> Result<(), Fault> {
        if !obs.legal.contains(action.wrote) {
            return Err(Fault::new(
                FaultKind::Illegal,
                format!(
                    "illegal move: wrote {:?}, legal {:?}",
                    action.wrote.as_str(),
                    obs.legal
                ),
            ));
        }
        if let Some(junk) = action.junk {
            check_junk(junk, obs.strict_moves, action.wrote)?;
        }
        if obs.keep > 0 {
            check_keep(obs.cards.as_slice(), obs.keep, action.keep.as_slice())?;
        }
        Ok(())
    }

    fn play_move(&mut self, player: usize, action: CoupAction) {
        let mv = action.wrote;
        let opponent = 1 - player;
        if let Some(junk) = action.junk {
            // Kept where the original kept it: the line's positions (head, the character before the
            // move) then read as the arbiter read them.
            self.history.push(junk);
            self.warnings.push((
                player,
                format!(
                    "call {}: wrote {:?} before the move {:?} (accepted, as the original arbiter did)",
                    self.calls,
                    junk,
                    mv.as_str()
                ),
            ));
        }
        self.history.push_str(mv.as_str());
        let mut event = Event::Pass;
        let mut lost_both = false;
        let first = mv.first();
        if mv == Move::INCOME {
            self.coins[player] += 1;
            event = Event::Income;
        } else if mv.len() == 2 {
            // A card plus newline: the turn owner lost a challenge on its own turn.
            let card = Card::from_surrender(first).unwrap_or_default();
            self.hands[player].remove(card);
            // `Asq!x\n`: the assassin challenged a genuine Contessa and still pays.
            let line = self.line();
            let contessa_shown = line.len() >= 3 && line[line.len() - 3] == b'!';
            if contessa_shown {
                self.coins[player] -= 3;
            }
            event = Event::Surrender { card };
        } else if is_surrender(first) {
            let card = Card::from_surrender(first).unwrap_or_default();
            self.hands[player].remove(card);
            let line = self.line();
            let (head, second, len) = (line[0], line.get(1).copied(), line.len());
            match head {
                b'C' => self.coins[opponent] -= 7,
                b'A' => self.coins[opponent] -= 3,
                _ => {}
            }
            // `Aq^y` and `Asqy`: the target's second card went to the Assassination itself.
            lost_both = head == b'A' && matches!(second, Some(b'q' | b's')) && len == 4;
            event = Event::Surrender { card };
        } else if is_reveal(first) {
            let card = Card::from_reveal(first).unwrap_or_default();
            // The Ambassador defending an Exchange stays: the exchange comes next anyway (B9).
            let replaced = first != b'~' || self.line()[0] == b'S';
            if replaced {
                // The replacement is drawn before the revealed card goes back (B9).
                match self.deck.pop() {
                    Some(new) => {
                        self.hands[player].remove(card);
                        self.hands[player].push(new);
                        self.deck.push(card);
                        if self.shuffle {
                            self.deck.shuffle(&mut self.rng);
                        }
                    }
                    None => self.run_dry(player),
                }
            }
            event = Event::Reveal { card, replaced };
        } else if first == b'\n' {
            event = Event::EndTurn { kept: None };
            self.end_turn(player, action, &mut event);
        } else if first == b'q' {
            event = Event::Challenge;
        } else if first == b'p' {
            event = Event::Pass;
        } else if is_block(first) {
            event = Event::Block {
                card: Card::needed_for(first).unwrap_or_default(),
            };
        } else {
            event = if first.is_ascii_uppercase() {
                Event::Action {
                    action: first as char,
                }
            } else {
                event
            };
        }
        if mv.ends_line() {
            self.line_start = self.history.len();
        }
        self.calls += 1;
        if lost_both || self.hands[player].is_empty() {
            self.over = true;
            self.winner = Some(opponent);
        } else if self.calls >= self.max_calls {
            self.over = true;
        }
        if let Some(frames) = &mut self.frames {
            frames.push(Frame {
                call: self.calls - 1,
                player,
                wrote: action.junk.map(String::from).unwrap_or_default() + mv.as_str(),
                event,
                coins: self.coins,
                cards: [self.hands[0].reveal_string(), self.hands[1].reveal_string()],
            });
        }
    }

    /// The turn owner's final `\n`: what the line earned (reference §2.7).
    fn end_turn(&mut self, player: usize, action: CoupAction, event: &mut Event) {
        let line = self.line();
        // `line` already holds the `\n`; the character before it decides.
        let (head, before) = (line[0], line[line.len() - 2]);
        let opponent = 1 - player;
        if before == b'p' || is_surrender(before) {
            match head {
                b'F' => self.coins[player] += 2,
                b'T' => self.coins[player] += 3,
                b'S' => {
                    let stolen = if self.coins[opponent] == 1 { 1 } else { 2 };
                    self.coins[player] += stolen;
                    self.coins[opponent] -= stolen;
                }
                b'E' => {
                    if let Some(drawn) = self.drawn {
                        let mut offered = Cards::<4>::new();
                        offered.push(drawn[0]);
                        offered.push(drawn[1]);
                        for &card in self.hands[player].as_slice() {
                            offered.push(card);
                        }
                        // The answer was checked against the offer, so every kept card is in it.
                        for &card in action.keep.as_slice() {
                            offered.remove(card);
                        }
                        self.hands[player] = action.keep;
                        for &card in offered.as_slice() {
                            self.deck.push(card);
                        }
                        if self.shuffle {
                            self.deck.shuffle(&mut self.rng);
                        }
                        *event = Event::EndTurn {
                            kept: Some(action.keep.reveal_string()),
                        };
                    }
                }
                _ => {}
            }
        } else if before == b's' {
            // `As\n`: the Contessa block stands, the assassin pays anyway.
            self.coins[player] -= 3;
        }
    }
}

/// Whether one character written before `wrote` is acceptable: only without `--strict-moves`, only
/// before a one-character move (the arbiter's file check allows two characters in all), never a
/// newline (it would split the line, which the arbiter's parsing cannot follow) and only ASCII (the
/// history is text).
pub fn check_junk(junk: char, strict: bool, wrote: Move) -> Result<(), Fault> {
    let why = if strict {
        Some("exact moves are required (--strict-moves)")
    } else if wrote.len() != 1 {
        Some("only one character in all may come before a one-character move")
    } else if junk == '\n' || !junk.is_ascii() {
        Some("a newline or non-ASCII character before the move")
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(Fault::new(
            FaultKind::Illegal,
            format!(
                "illegal move: wrote {:?} before {:?}: {why}",
                junk,
                wrote.as_str()
            ),
        )),
    }
}

/// Whether `keep` is an ordered selection of `count` cards from `offered` (the arbiter compares the
/// printed text with every permutation of that size).
pub fn check_keep(offered: &[Card], count: usize, keep: &[Card]) -> Result<(), Fault> {
    let mut left = Cards::<4>::new();
    for &card in offered {
        left.push(card);
    }
    let fits = keep.len() == count && keep.iter().all(|&card| left.remove(card));
    if fits {
        Ok(())
    } else {
        let shown: String = keep.iter().map(|c| c.reveal() as char).collect();
        let offered: String = offered.iter().map(|c| c.reveal() as char).collect();
        Err(Fault::new(
            FaultKind::Illegal,
            format!("illegal exchange: kept {shown:?} of {offered:?} (must keep {count})"),
        ))
    }
}

impl Game for Coup {
    const ID: &'static str = "coup";
    type Config = CoupConfig;
    type Obs = CoupObs;
    type Action = CoupAction;
    type Frame = Frame;

    /// An invalid config deck falls back to the standard deck; front ends call
    /// [`CoupConfig::validate`] first.
    fn new(config: &CoupConfig, seed: u64) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(arena_game::seed::derive_seed(seed, 0));
        let deck = match config.deck.as_deref().map(parse_deck) {
            Some(Ok(deck)) => deck,
            _ => {
                let mut deck = Deck::standard();
                // The standard deck is always shuffled before the deal, as the arbiter does.
                deck.shuffle(&mut rng);
                deck
            }
        };
        let mut game = Coup {
            history: String::with_capacity(512),
            line_start: 0,
            coins: [1, 1],
            hands: [Hand::new(); 2],
            deck,
            rng,
            shuffle: !config.no_shuffle,
            calls: 0,
            max_calls: config.max_calls.max(1),
            time_limit: Duration::from_millis(config.time_limit_ms),
            strict_moves: config.strict_moves,
            over: false,
            winner: None,
            prepared: false,
            legal: Legal::default(),
            drawn: None,
            faults: Vec::new(),
            warnings: Vec::new(),
            frames: None,
        };
        for player in 0..2 {
            // A valid config deck holds at least MIN_DECK cards: the deal never runs dry.
            let first = game.deck.pop().unwrap_or_default();
            let second = game.deck.pop().unwrap_or_default();
            game.hands[player].push(first);
            game.hands[player].push(second);
        }
        game
    }

    fn num_players(&self) -> usize {
        2
    }

    fn to_act(&mut self) -> Option<usize> {
        if self.over {
            return None;
        }
        self.prepare();
        if self.over {
            // The deck ran dry preparing this call.
            return None;
        }
        Some(self.to_move())
    }

    fn observe(&mut self, player: usize, obs: &mut CoupObs) {
        self.prepare();
        obs.player = player;
        obs.history.clear();
        obs.history.push_str(&self.history);
        obs.opp_coins = self.coins[1 - player];
        obs.my_coins = self.coins[player];
        obs.cards.clear();
        if let Some(drawn) = self.drawn {
            obs.cards.push(drawn[0]);
            obs.cards.push(drawn[1]);
            obs.keep = self.hands[player].len();
        } else {
            obs.keep = 0;
        }
        for &card in self.hands[player].as_slice() {
            obs.cards.push(card);
        }
        obs.legal = self.legal;
        obs.strict_moves = self.strict_moves;
    }

    fn apply(&mut self, player: usize, answer: Answer<CoupAction>) {
        if self.over {
            return;
        }
        self.prepare();
        if self.over {
            return;
        }
        let expected = self.to_move();
        let action = match answer {
            Answer::Fault(fault) => {
                self.forfeit(player, fault, false);
                return;
            }
            Answer::Action(action) => action,
        };
        if player != expected {
            let fault = Fault::new(
                FaultKind::Illegal,
                format!(
                    "answered out of turn (call {} is player {expected}'s)",
                    self.calls
                ),
            );
            self.forfeit(player, fault, true);
            return;
        }
        if !self.legal.contains(action.wrote) {
            let fault = Fault::new(
                FaultKind::Illegal,
                format!(
                    "illegal move: wrote {:?}, legal {:?}",
                    action.wrote.as_str(),
                    self.legal
                ),
            );
            self.forfeit(player, fault, true);
            return;
        }
        if let Some(junk) = action.junk
            && let Err(fault) = check_junk(junk, self.strict_moves, action.wrote)
        {
            self.forfeit(player, fault, true);
            return;
        }
        if let Some(drawn) = self.drawn {
            let mut offered = Cards::<4>::new();
            offered.push(drawn[0]);
            offered.push(drawn[1]);
            for &card in self.hands[player].as_slice() {
                offered.push(card);
            }
            if let Err(fault) = check_keep(
                offered.as_slice(),
                self.hands[player].len(),
                action.keep.as_slice(),
            ) {
                self.forfeit(player, fault, true);
                return;
            }
        }
        self.play_move(player, action);
        self.prepared = false;
        self.drawn = None;
    }

    fn outcome(&self) -> Outcome {
        let scores = (0..2)
            .map(|p| Score::int((self.winner == Some(p)) as i64))
            .collect::<Vec<_>>();
        let ranks = arena_game::game::ranks_of(&scores);
        Outcome {
            scores,
            winner: self.winner,
            ranks,
        }
    }

    fn time_limit(&self, _player: usize) -> Duration {
        self.time_limit
    }

    fn record_frames(&mut self) {
        self.frames.get_or_insert_with(Vec::new);
    }

    fn take_frames(&mut self) -> Vec<Frame> {
        self.frames.take().unwrap_or_default()
    }

    fn rule_faults(&self) -> Vec<(usize, Fault)> {
        self.faults.clone()
    }

    fn rule_warnings(&self) -> Vec<(usize, String)> {
        self.warnings.clone()
    }
}

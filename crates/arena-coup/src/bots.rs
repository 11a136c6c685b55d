//! Built-in rule bots and the history reader every Coup bot here shares. Only `random` and
//! `challenger` follow published behaviour (the question's two example bots; Brilliand's Calculator
//! has its own module, `calculator`); the rest are simple stand-ins inspired by leaderboard names,
//! not the real answers (which were never retrieved).
//!
//! Every bot decides from the observation alone (history text, coins, cards, legal moves), so it plays
//! the same in process and as an external program called once per move.
//!
//! The list of built-in bots, in the order `arena list` shows them, is in the `catalog` module, which
//! also names calculator and the searching bots (whose modules import this one for the history
//! reader). Written without a link: this module refers to none of them.

use arena_game::game::Bot;
use arena_game::seed::{BotRng, below, bot_rng};

use crate::rules::{Card, Coup, CoupAction, CoupObs, Hand, Move};

/// Facts a bot reads off the history text.
#[derive(Default, Debug)]
pub struct Reading {
    /// The seat of the player about to write (calls alternate strictly).
    pub me: usize,
    /// Surrendered (dead) cards per seat.
    pub dead: [[u8; 5]; 2],
    /// Whether `me` owns the current turn.
    pub my_turn: bool,
    /// Characters each seat has claimed since its last Income (an Income is "backing down").
    pub claimed: [[bool; 5]; 2],
    /// Calls made so far.
    pub calls: u32,
    /// Characters each seat claimed that may still be in its hand: set by a claim, cleared when
    /// that card is shown (it is replaced), given up, or the claim is caught as a bluff, and all
    /// cleared by the seat's Exchange (a new hand). What a card-counting bot weighs its guesses by.
    pub live_claims: [[bool; 5]; 2],
    /// Challenged claims per seat that proved true (the card shown)...
    pub shown: [u32; 2],
    /// ...and that proved bluffs (a card given up instead).
    pub caught: [u32; 2],
    /// Characters each seat showed it likely lacks: it let a Steal go without a Captain or
    /// Ambassador block, a Foreign Aid without a Duke block, an Assassination without a Contessa
    /// block (most bots block truthfully when they can). Cleared when the seat gets a new card (an
    /// Exchange, a card shown and replaced) or claims the character.
    pub denied: [[bool; 5]; 2],
    /// Challenges each seat made...
    pub challenges: [u32; 2],
    /// ...and the claims of the other it let go when it could have challenged them (a pass on Tax,
    /// Exchange or Steal; a block accepted).
    pub declined: [u32; 2],
    /// Lines in the history, the unfinished one included.
    pub lines: usize,
    /// Lines holding any give-up symbol, junk included (how calculator counts the cards lost).
    pub lines_with_give_up_symbol: u32,
    /// What calculator, playing each seat, remembers from its earlier calls of this game
    /// ([`CalcFlags`]).
    pub calc: [CalcFlags; 2],
}

/// Calculator's memory between calls (the published bot keeps it in a file in its folder): what the
/// opponent has been doing since it last backed down with an Income, and the characters it committed
/// itself to. Read back from the history, where the published bot wrote it down as it went; its own
/// commitments are approximated by the claims it made (the history does not show which plan a claim
/// served).
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalcFlags {
    pub opp_tax: bool,
    pub opp_steal: bool,
    pub opp_assassinate: bool,
    pub opp_aid: bool,
    pub duke: bool,
    pub captain: bool,
    pub assassin: bool,
    /// Whether `duke` comes from the game's opening Tax, which commits it whatever it holds; a later
    /// Tax commits it only as a bluff, so giving up a Duke shows that one was honest.
    pub opened_with_tax: bool,
}

impl CalcFlags {
    /// The opponent opened a line with `action`, and this seat was asked to answer it.
    pub fn saw(&mut self, action: u8) {
        match action {
            b'T' => self.opp_tax = true,
            b'S' => self.opp_steal = true,
            b'A' => self.opp_assassinate = true,
            b'F' => self.opp_aid = true,
            _ => {}
        }
    }

    /// This seat challenged what the line so far (`line`) shows: it stops fearing that claim.
    pub fn challenged(&mut self, line: &[u8]) {
        match line {
            b"T" | b"Fd" => self.opp_tax = false,
            b"S" | b"Sc" => self.opp_steal = false,
            b"A" => self.opp_assassinate = false,
            _ => {}
        }
    }

    /// Forgets a commitment to `card` (shown, so replaced; or caught bluffing it).
    fn drop(&mut self, card: Card) {
        match card {
            Card::Duke => (self.duke, self.opened_with_tax) = (false, false),
            Card::Captain => self.captain = false,
            Card::Assassin => self.assassin = false,
            _ => {}
        }
    }
}

/// Replays the history: who wrote what. Within a line the owner writes the even positions and the
/// responder the odd ones, except that a final `\n` at an odd position belongs to the owner's
/// two-character write (`I\n`, a card plus `\n`).
pub fn read_history(history: &str) -> Reading {
    let mut reading = Reading::default();
    let mut calls = 0usize;
    let bytes = history.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |e| start + e + 1);
        let line = &bytes[start..end];
        let owner = calls % 2;
        reading.lines += 1;
        if line.iter().any(|&b| Card::from_surrender(b).is_some()) {
            reading.lines_with_give_up_symbol += 1;
        }
        for (i, &c) in line.iter().enumerate() {
            let writer = if i % 2 == 0 { owner } else { 1 - owner };
            if c == b'\n' && i % 2 == 1 {
                continue;
            }
            calls += 1;
            if Card::from_surrender(c).is_some() {
                // A card is given up only to a Coup or an Assassination (the line's second
                // character) or right after a challenge or a shown card. Anywhere else the symbol is
                // junk the original arbiter accepted before a move (Calculator wrote `<\n` where only
                // `\n` was legal): the call is counted, nothing was lost.
                let after = line[i.saturating_sub(1)];
                let gives_up = (i == 1 && matches!(line[0], b'A' | b'C'))
                    || (i >= 2 && (after == b'q' || Card::from_reveal(after).is_some()));
                if !gives_up {
                    continue;
                }
            }
            if let Some(card) = Card::from_surrender(c) {
                reading.dead[writer][card as usize] += 1;
            }
            calc_flags(&mut reading.calc, line, i, owner, writer, calls == 1);
            if i == 0 && c == b'I' {
                // Backing down: an Income forgets the aggression shown so far.
                reading.claimed[writer] = [false; 5];
            }
            if let Some(card) = Card::needed_for(c) {
                reading.claimed[writer][card as usize] = true;
                reading.live_claims[writer][card as usize] = true;
            }
            if c == b'q' {
                reading.challenges[writer] += 1;
            }
            if let Some(card) = Card::needed_for(c) {
                reading.denied[writer][card as usize] = false;
            }
            if i == 1 {
                let lacks: &[Card] = match (line[0], c) {
                    (b'S', b'p' | b'q') => &[Card::Captain, Card::Ambassador],
                    (b'F', b'p') => &[Card::Duke],
                    (b'A', b'q') => &[Card::Contessa],
                    (b'A', _) if Card::from_surrender(c).is_some() => &[Card::Contessa],
                    _ => &[],
                };
                for &card in lacks {
                    reading.denied[writer][card as usize] = true;
                }
            }
            let after = i.checked_sub(1).map(|j| line[j]);
            let lets_go = match c {
                b'p' => matches!(after, Some(b'T' | b'E' | b'S')),
                b'\n' => matches!(after, Some(b'a' | b'c' | b'd' | b's')),
                _ => false,
            };
            if lets_go {
                reading.declined[writer] += 1;
            }
            // A challenge (`q`) two characters back was answered now: the claim before it stood or
            // fell. The claim's writer is the one answering.
            let challenged = (i >= 2 && line[i - 1] == b'q')
                .then(|| Card::needed_for(line[i - 2]))
                .flatten();
            if let Some(card) = Card::from_reveal(c) {
                if challenged.is_some() {
                    reading.shown[writer] += 1;
                }
                reading.live_claims[writer][card as usize] = false;
                reading.denied[writer] = [false; 5];
            } else if let Some(card) = Card::from_surrender(c) {
                if let Some(claim) = challenged {
                    reading.caught[writer] += 1;
                    reading.live_claims[writer][claim as usize] = false;
                }
                reading.live_claims[writer][card as usize] = false;
            }
        }
        // An Exchange the owner was not caught bluffing leaves it a new hand.
        let exchanged = line.first() == Some(&b'E')
            && line
                .get(2)
                .is_none_or(|&c| Card::from_surrender(c).is_none());
        if exchanged && line.last() == Some(&b'\n') {
            reading.live_claims[owner] = [false; 5];
            reading.denied[owner] = [false; 5];
        }
        if line == b"I\n" {
            // The other seat's next call starts its turn after an Income: backing down.
            let flags = &mut reading.calc[1 - owner];
            (flags.opp_tax, flags.opp_steal, flags.opp_aid) = (false, false, false);
        }
        start = end;
    }
    reading.me = calls % 2;
    reading.calls = calls as u32;
    let line_done = bytes.last().is_none_or(|&b| b == b'\n');
    // The owner of the current line: whoever makes the first call after the last newline.
    let mut owner_calls = calls;
    if !line_done {
        let line_start = history.rfind('\n').map_or(0, |i| i + 1);
        owner_calls -= bytes.len() - line_start;
    }
    reading.my_turn = owner_calls % 2 == reading.me;
    reading
}

/// Calculator's flags after `writer` wrote `line[i]` (the game's first call when `first_call`).
fn calc_flags(
    calc: &mut [CalcFlags; 2],
    line: &[u8],
    i: usize,
    owner: usize,
    writer: usize,
    first_call: bool,
) {
    let c = line[i];
    let flags = &mut calc[writer];
    if i == 1 {
        // Asked to answer the opponent's action: calculator notes it before deciding.
        flags.saw(line[0]);
    }
    if c == b'q' {
        flags.challenged(&line[..i]);
    }
    if i == 0 {
        match c {
            b'T' => {
                flags.duke = true;
                flags.opened_with_tax |= first_call;
            }
            b'S' => flags.captain = true,
            b'A' => flags.assassin = true,
            // Its opening Income means it holds an Assassin and plans to use it.
            b'I' if first_call => flags.assassin = true,
            _ => {}
        }
    }
    if let Some(card) = Card::from_reveal(c) {
        flags.drop(card);
    }
    if c == Card::Duke.surrender() && !flags.opened_with_tax {
        flags.duke = false;
    }
    // Its own claim was challenged and it gave up a card: it stops claiming that character.
    if i == 2
        && writer == owner
        && line[1] == b'q'
        && Card::from_surrender(c).is_some()
        && let Some(card) = Card::needed_for(line[0])
    {
        flags.drop(card);
    }
}

fn find(obs: &CoupObs, first: u8) -> Option<Move> {
    obs.legal
        .as_slice()
        .iter()
        .copied()
        .find(|m| m.first() == first)
}

fn only_move(obs: &CoupObs) -> Option<Move> {
    (obs.legal.len() == 1).then(|| obs.legal.as_slice()[0])
}

/// The surrender move for the held card that ranks lowest in `preference` (most preferred first).
fn lose_least_wanted(obs: &CoupObs, preference: &[Card; 5]) -> Option<Move> {
    preference.iter().rev().find_map(|card| {
        obs.legal
            .as_slice()
            .iter()
            .copied()
            .find(|m| m.first() == card.surrender())
    })
}

/// Keeps the cards that rank highest in `preference`.
fn keep_best(obs: &CoupObs, preference: &[Card; 5]) -> Hand {
    let mut left = obs.cards;
    let mut keep = Hand::new();
    for card in preference {
        while keep.len() < obs.keep && left.remove(*card) {
            keep.push(*card);
        }
    }
    keep
}

fn finish(obs: &CoupObs, wrote: Move, preference: &[Card; 5]) -> CoupAction {
    let mut action = CoupAction::play(wrote);
    if obs.keep > 0 && wrote == Move::END {
        action.keep = keep_best(obs, preference);
    }
    action
}

/// Uniform over the legal moves; on an Exchange a uniformly random selection of the offered cards.
pub struct RandomBot {
    rng: BotRng,
}

impl RandomBot {
    pub fn new(seed: u64) -> Self {
        RandomBot { rng: bot_rng(seed) }
    }
}

impl Bot<Coup> for RandomBot {
    fn act(&mut self, obs: &CoupObs) -> CoupAction {
        let moves = obs.legal.as_slice();
        let wrote = moves[below(&mut self.rng, moves.len().max(1) as u32) as usize % moves.len()];
        let mut action = CoupAction::play(wrote);
        if obs.keep > 0 && wrote == Move::END {
            let mut left = obs.cards;
            for _ in 0..obs.keep {
                let pick = left.as_slice()[below(&mut self.rng, left.len() as u32) as usize];
                left.remove(pick);
                action.keep.push(pick);
            }
        }
        action
    }
}

/// Which one rule a [`Simple`] bot follows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Challenger,
    Taxman,
    Bandit,
    Lawyer,
    Assassin,
    Income,
}

/// The one-rule bots.
pub struct Simple(Style);

const DEFAULT_ORDER: [Card; 5] = [
    Card::Contessa,
    Card::Captain,
    Card::Ambassador,
    Card::Duke,
    Card::Assassin,
];

impl Simple {
    pub fn new(style: Style) -> Self {
        Simple(style)
    }

    fn order(&self) -> [Card; 5] {
        match self.0 {
            Style::Taxman => [
                Card::Duke,
                Card::Contessa,
                Card::Captain,
                Card::Ambassador,
                Card::Assassin,
            ],
            Style::Bandit => [
                Card::Captain,
                Card::Ambassador,
                Card::Duke,
                Card::Contessa,
                Card::Assassin,
            ],
            Style::Assassin => [
                Card::Assassin,
                Card::Contessa,
                Card::Duke,
                Card::Captain,
                Card::Ambassador,
            ],
            _ => DEFAULT_ORDER,
        }
    }

    /// Whether the claim just made needs a card all of whose copies are visible to this bot.
    fn provably_false(obs: &CoupObs, claim: u8) -> bool {
        let Some(card) = Card::needed_for(claim) else {
            return false;
        };
        let reading = read_history(&obs.history);
        let seen = obs.hand().iter().filter(|&&c| c == card).count() as u8
            + reading.dead[0][card as usize]
            + reading.dead[1][card as usize];
        seen >= 3
    }

    fn turn(&self, obs: &CoupObs) -> Move {
        let holds = |card| obs.hand().contains(&card);
        let pick = |c| find(obs, c);
        let coup = pick(b'C');
        let choice = match self.0 {
            Style::Challenger | Style::Income => coup.or(Some(Move::INCOME)),
            Style::Taxman => coup.or(pick(b'T')),
            Style::Bandit => coup.or(pick(b'S')).or(Some(Move::INCOME)),
            Style::Assassin => pick(b'A').or(coup).or(Some(Move::INCOME)),
            Style::Lawyer => coup
                .or(pick(b'A').filter(|_| holds(Card::Assassin)))
                .or(pick(b'T').filter(|_| holds(Card::Duke)))
                .or(pick(b'S').filter(|_| holds(Card::Captain)))
                .or(Some(Move::char(b'F'))),
        };
        choice
            .filter(|m| obs.legal.contains(*m))
            .unwrap_or(obs.legal.as_slice()[0])
    }

    fn respond(&self, obs: &CoupObs, last: u8) -> Move {
        let holds = |card| obs.hand().contains(&card);
        let pick = |c| find(obs, c);
        let order = self.order();
        let challenge = match self.0 {
            Style::Challenger => pick(b'q'),
            Style::Lawyer if Self::provably_false(obs, last) => pick(b'q'),
            _ => None,
        };
        if let Some(q) = challenge {
            return q;
        }
        let block = match (self.0, last) {
            (Style::Taxman, b'F') => pick(b'd'),
            (Style::Bandit, b'S') => pick(b'c'),
            (Style::Lawyer, b'F') if holds(Card::Duke) => pick(b'd'),
            (Style::Lawyer, b'S') if holds(Card::Captain) => pick(b'c'),
            (Style::Lawyer, b'S') if holds(Card::Ambassador) => pick(b'a'),
            (Style::Lawyer, b'A') if holds(Card::Contessa) => pick(b's'),
            _ => None,
        };
        block
            .or(pick(b'p'))
            .or(pick(b'\n'))
            .or_else(|| lose_least_wanted(obs, &order))
            .unwrap_or(obs.legal.as_slice()[0])
    }
}

impl Bot<Coup> for Simple {
    fn act(&mut self, obs: &CoupObs) -> CoupAction {
        let order = self.order();
        if let Some(only) = only_move(obs) {
            return finish(obs, only, &order);
        }
        let line = obs.line().as_bytes();
        let wrote = match line.last() {
            None => self.turn(obs),
            Some(&last) => self.respond(obs, last),
        };
        finish(obs, wrote, &order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_from_history() {
        for (history, me, my_turn) in [
            ("", 0, true),
            ("E", 1, false),
            ("Ep", 0, true),
            ("Ep\n", 1, true),
            ("I\n", 1, true),
            ("I\nTq'\n", 0, true),
            ("I\nFdq$<\n", 0, true),
            ("Fp\n", 1, true),
            ("Fp\nA", 0, false),
        ] {
            let reading = read_history(history);
            assert_eq!((reading.me, reading.my_turn), (me, my_turn), "{history:?}");
        }
    }

    #[test]
    fn junk_before_a_newline_is_no_lost_card() {
        // `<` before the owner's `\n` after a pass: the original arbiter accepted it; it is one call
        // (with the newline) and no Captain was given up.
        let reading = read_history("Tp<\nFdq_<\n");
        assert_eq!(reading.dead, [[1, 0, 0, 0, 0], [0; 5]]);
        assert_eq!(reading.calls, 8);
        assert_eq!((reading.me, reading.my_turn), (0, true));
        let real = read_history("Tq'\nC=\nAsq!_\n");
        assert_eq!(real.dead, [[1, 1, 0, 1, 0], [0; 5]]);
    }
}

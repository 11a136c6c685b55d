//! `calculator`: Brilliand's Calculator, the KotH's winner, as it plays.
//!
//! Written from its behaviour (reference §4.1, and the per-call agreement with the published bot that
//! docs/benchmarks.md reports), not from its code. On its turn it estimates, for a list of plans, the
//! turns it needs to win and compares them with the opponent's; it plays the least aggressive plan
//! that wins first, and challenges when none does. Its answers follow fixed priorities: show a card
//! when that wins a challenge, block truthfully, challenge every block of its own action, a few rules
//! for the game's first line and for being Assassinated, and otherwise pass unless it is losing.
//!
//! The published bot keeps a few flags in a file between calls; this one reads them back from the
//! history ([`CalcFlags`]), so it decides from the call alone like every Coup bot here. Its quirks are
//! kept where they change play: it counts the opponent's cards by the lines that hold any give-up
//! symbol, counts the cards drawn by an Exchange as its own, and writes a card and a newline after a
//! lost challenge even where only the newline is legal (the original arbiter accepted the extra
//! character, so it is written as junk before the newline).

use arena_game::game::Bot;
use arena_game::seed::{BotRng, below, bot_rng};

use crate::bots::{CalcFlags, read_history};
use crate::rules::{Card, CoupAction, CoupObs, Hand, Move};

pub struct Calculator {
    rng: BotRng,
}

impl Calculator {
    pub fn new(seed: u64) -> Self {
        Calculator { rng: bot_rng(seed) }
    }
}

/// The plans, least aggressive first (the order they are tried in on a turn).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    Duke,
    Income,
    DukeAssassin,
    Assassin,
    Captain,
    ForeignAid,
    ForeignAidAssassin,
    CaptainAssassin,
}

/// Everything calculator works out before deciding.
struct Situation<'a> {
    obs: &'a CoupObs,
    flags: CalcFlags,
    /// The argv cards (after an Exchange the drawn cards too).
    cards: &'a [Card],
    /// The last line of the history (the current one, or the last finished one at a turn's start).
    line: &'a [u8],
    /// Lines in the history, the unfinished one included.
    lines: usize,
    my_coins: i32,
    opp_coins: i32,
    my_cards: i32,
    opp_cards: i32,
    /// The opponent steals and it holds no card to block a Steal: it loses 2 coins a turn.
    robbed: bool,
}

/// Turns at `b` a turn to cover `a` as the bot computes them: `max(0, a) / b`, floored (the callers
/// add `b - 1` to `a` where they round up).
fn steps(a: i32, b: i32) -> i32 {
    a.max(0) / b
}

/// Turns to win: each plan's, and the opponent's two estimates.
struct Race {
    income: i32,
    aid: i32,
    duke: i32,
    assassin: i32,
    captain: i32,
    aid_assassin: i32,
    duke_assassin: i32,
    captain_assassin: i32,
    opponent: i32,
    /// The opponent's, while this bot steals 2 from it every turn.
    opponent_robbed: i32,
}

const NEVER: i32 = 1000;

impl Situation<'_> {
    fn holds(&self, card: Card) -> bool {
        self.cards.contains(&card)
    }

    fn race(&self) -> Race {
        let (mine, theirs, n) = (self.my_coins, self.opp_coins, self.opp_cards);
        let m = self.my_cards;
        let f = &self.flags;
        let robbed = self.robbed;
        let killed_cheaply = f.opp_assassinate && !self.holds(Card::Contessa);
        // Being stolen from also costs the coins the opponent takes on each kill's way.
        let drain = if robbed { 2 * (n - m) } else { 0 };
        let unless_robbed = |turns: i32| if robbed { NEVER } else { turns };
        let speed = if robbed {
            2
        } else if f.opp_tax {
            3
        } else if f.opp_aid && !self.holds(Card::Duke) {
            2
        } else {
            1
        };
        let cost = if killed_cheaply { 3 } else { 7 };
        let opponent = steps(cost * m - theirs + speed - 1, speed) + m;
        let opponent_robbed = if speed > 2 {
            let left = if theirs > 2 { theirs - 2 } else { 0 };
            steps(cost * m + 2 * (m - n) - left + speed - 3, speed - 2) + m
        } else {
            NEVER
        };
        let duke_rate = if robbed { 1 } else { 3 };
        Race {
            income: unless_robbed((7 * n - mine).max(0) + n),
            aid: unless_robbed(steps(7 * n - mine + 1, 2) + n),
            duke: steps(7 * n + drain - mine + 2, duke_rate) + n,
            assassin: if !robbed {
                (3 * n - mine).max(0) + n
            } else if mine >= 5 * n - 2 {
                n
            } else {
                NEVER
            },
            captain: steps(7 * n - mine + 1, 2) + n,
            aid_assassin: unless_robbed(steps(3 * n - mine + 1, 2) + n),
            duke_assassin: steps(3 * n + drain - mine + 2, duke_rate) + n,
            captain_assassin: steps(3 * n - mine + 1, 2) + n,
            opponent,
            opponent_robbed,
        }
    }

    /// The cards in the order it values them for `plan` (most valued first); the plans are checked
    /// with "wins strictly first" here, as the bot does.
    fn values(&self, race: &Race) -> [Card; 5] {
        use Card::*;
        let f = &self.flags;
        let held = |card| self.holds(card);
        if race.duke < race.opponent && held(Duke) {
            [Duke, Contessa, Captain, Ambassador, Assassin]
        } else if race.duke_assassin < race.opponent && (held(Duke) || f.duke) && held(Assassin) {
            [Assassin, Duke, Contessa, Captain, Ambassador]
        } else if race.assassin < race.opponent && held(Assassin) {
            [Assassin, Contessa, Captain, Ambassador, Duke]
        } else if race.captain < race.opponent_robbed && held(Captain) {
            [Captain, Contessa, Duke, Assassin, Ambassador]
        } else if race.aid < race.opponent && held(Assassin) && !f.opp_tax {
            [Contessa, Captain, Ambassador, Duke, Assassin]
        } else if race.aid_assassin < race.opponent && held(Assassin) && !f.opp_tax {
            [Assassin, Contessa, Captain, Ambassador, Duke]
        } else if race.captain_assassin < race.opponent_robbed && held(Captain) && held(Assassin) {
            [Assassin, Captain, Contessa, Duke, Ambassador]
        } else {
            [Contessa, Captain, Ambassador, Duke, Assassin]
        }
    }

    /// The give-up symbol of the held card it values least.
    fn least_valued(&self, race: &Race) -> Option<u8> {
        let values = self.values(race);
        values
            .iter()
            .rev()
            .find(|&&card| self.holds(card))
            .map(|card| card.surrender())
    }

    /// The plan that wins first (`<=`, least aggressive first), if any.
    fn plan(&self, race: &Race) -> Option<Plan> {
        let f = &self.flags;
        let duke = self.holds(Card::Duke) || f.duke;
        let assassin = self.holds(Card::Assassin);
        let captain = self.holds(Card::Captain);
        let r = race;
        [
            (Plan::Duke, r.duke <= r.opponent && duke),
            (Plan::Income, r.income <= r.opponent),
            (
                Plan::DukeAssassin,
                r.duke_assassin <= r.opponent && duke && assassin && self.my_cards > 1,
            ),
            (Plan::Assassin, r.assassin <= r.opponent && assassin),
            (Plan::Captain, r.captain <= r.opponent_robbed && captain),
            (Plan::ForeignAid, r.aid <= r.opponent && !f.opp_tax),
            (
                Plan::ForeignAidAssassin,
                r.aid_assassin <= r.opponent && assassin && !f.opp_tax,
            ),
            (
                Plan::CaptainAssassin,
                r.captain_assassin <= r.opponent_robbed && captain && assassin,
            ),
        ]
        .into_iter()
        .find(|&(_, wins)| wins)
        .map(|(plan, _)| plan)
    }
}

/// What it decided: a move as text (a symbol, maybe with a newline).
type Write = &'static str;

fn legal(obs: &CoupObs, text: &str) -> bool {
    obs.legal.as_slice().iter().any(|m| m.as_str() == text)
}

impl Calculator {
    fn decide(s: &Situation, race: &Race) -> Write {
        let obs = s.obs;
        let can = |text: &str| legal(obs, text);
        let line = s.line;
        let last = line.last().copied();
        let lose = |newline: bool| -> Write {
            let symbol = s.least_valued(race).unwrap_or(b'=');
            symbol_text(symbol, newline)
        };
        if obs.history.is_empty() {
            // Its opening move.
            return if s.holds(Card::Duke) && can("T") {
                "T"
            } else if s.holds(Card::Captain) && can("S") {
                "S"
            } else if s.holds(Card::Assassin) && can("I\n") {
                "I\n"
            } else if s.holds(Card::Ambassador) && can("E") {
                "E"
            } else if can("T") {
                "T"
            } else {
                obs.legal.as_slice()[0].as_str()
            };
        }
        // A card that wins the challenge just made.
        if let Some(show) = obs
            .legal
            .as_slice()
            .iter()
            .find(|m| Card::from_reveal(m.first()).is_some())
        {
            return show.as_str();
        }
        // Truthful blocks.
        for (card, block) in [
            (Card::Duke, "d"),
            (Card::Ambassador, "a"),
            (Card::Captain, "c"),
            (Card::Contessa, "s"),
        ] {
            if s.holds(card) && can(block) {
                return block;
            }
        }
        if can("q") {
            // A block of its own action is always challenged; so are Steals and Exchanges when it
            // is playing Captain.
            if last.is_some_and(|c| b"dacs".contains(&c))
                || (s.flags.captain && last.is_some_and(|c| b"SE".contains(&c)))
            {
                return "q";
            }
            if s.lines == 1 {
                let pair = |card: Card| s.cards.len() == 2 && s.cards.iter().all(|&c| c == card);
                match line {
                    b"T" => {
                        let doubt =
                            pair(Card::Duke) || pair(Card::Assassin) || pair(Card::Contessa);
                        return if doubt { "q" } else { "p" };
                    }
                    b"S" => {
                        let shielded = s.holds(Card::Duke) && s.holds(Card::Assassin);
                        return if shielded { "p" } else { "q" };
                    }
                    b"E" => return "p",
                    _ => return obs.legal.as_slice()[0].as_str(),
                }
            }
        }
        match line {
            // The first Assassination is let through while it has two cards.
            b"A" if obs.cards.len() > 1 => return lose(false),
            b"A" => return "q",
            b"C" => return lose(false),
            _ => {}
        }
        match (line.len(), line.get(1), line.get(2)) {
            // Its action was challenged and it cannot show the card.
            (2, Some(b'q'), _) => return lose(true),
            // It challenged an action and the card was shown.
            (3, Some(b'q'), _) => return lose(false),
            // Its block was challenged and it cannot show the card.
            (3, _, Some(b'q')) => return lose(false),
            // It challenged a block and the card was shown.
            (4, _, Some(b'q')) => return lose(true),
            _ => {}
        }
        Self::play_plan(s, race)
    }

    /// A turn's move, or an answer none of the rules above decided: the winning plan's move; without
    /// a winning plan a challenge if one is possible, else something useful.
    fn play_plan(s: &Situation, race: &Race) -> Write {
        let obs = s.obs;
        let can = |text: &str| legal(obs, text);
        let first = |options: &[Write]| options.iter().copied().find(|o| can(o));
        let default = if can("p") {
            "p"
        } else {
            obs.legal.as_slice()[0].as_str()
        };
        let coup_or = |options: &[Write]| first(&[&["C"], options].concat()).unwrap_or(default);
        match s.plan(race) {
            Some(Plan::Duke) => coup_or(&["T"]),
            Some(Plan::Income) => coup_or(&["I\n"]),
            Some(Plan::DukeAssassin) => {
                let drain = if s.robbed { 2 * (s.opp_cards - 1) } else { 0 };
                if 3 * s.opp_cards <= s.my_coins - drain && can("A") {
                    "A"
                } else {
                    first(&["T"]).unwrap_or(default)
                }
            }
            Some(Plan::Assassin) => first(&["A", "I\n"]).unwrap_or(default),
            Some(Plan::Captain) => coup_or(&["S", "I\n"]),
            Some(Plan::ForeignAid) => coup_or(&["F"]),
            Some(Plan::ForeignAidAssassin) => first(&["A", "F"]).unwrap_or(default),
            Some(Plan::CaptainAssassin) => first(&["A", "S"]).unwrap_or(default),
            None if can("q") => "q",
            None => {
                let f = &s.flags;
                if can("C") && !f.assassin {
                    "C"
                } else if can("S") && f.captain {
                    "S"
                } else if can("A") && f.assassin {
                    "A"
                } else if can("E")
                    && s.holds(Card::Ambassador)
                    && race.duke_assassin < race.opponent
                {
                    "E"
                } else if can("F") && !f.opp_tax {
                    "F"
                } else if can("T") {
                    "T"
                } else {
                    default
                }
            }
        }
    }

    /// The cards it keeps after an Exchange: the distinct cards it values most; when too few of them
    /// are distinct, a random choice.
    fn keep(&mut self, s: &Situation, race: &Race) -> Hand {
        let values = s.values(race);
        let mut keep = Hand::new();
        let distinct: Vec<Card> = values.into_iter().filter(|&c| s.holds(c)).collect();
        if distinct.len() >= s.obs.keep {
            for &card in distinct.iter().take(s.obs.keep) {
                keep.push(card);
            }
        } else {
            let mut left = s.obs.cards;
            for _ in 0..s.obs.keep {
                let pick = left.as_slice()[below(&mut self.rng, left.len() as u32) as usize];
                left.remove(pick);
                keep.push(pick);
            }
        }
        keep
    }
}

fn symbol_text(symbol: u8, newline: bool) -> Write {
    const PLAIN: [&str; 5] = ["_", "'", "<", "=", "0"];
    const ENDED: [&str; 5] = ["_\n", "'\n", "<\n", "=\n", "0\n"];
    let at = b"_'<=0".iter().position(|&s| s == symbol).unwrap_or(3);
    if newline { ENDED[at] } else { PLAIN[at] }
}

impl Bot<crate::rules::Coup> for Calculator {
    fn act(&mut self, obs: &CoupObs) -> CoupAction {
        let reading = read_history(&obs.history);
        let history = obs.history.as_bytes();
        let line_start = match obs.history.strip_suffix('\n') {
            // At a turn's start it looks at the last finished line.
            Some(done) => done.rfind('\n').map_or(0, |at| at + 1),
            None => obs.history.rfind('\n').map_or(0, |at| at + 1),
        };
        let line = &history[line_start..];
        let cards = obs.cards.as_slice();
        let mut flags = reading.calc[reading.me];
        let mut my_coins = obs.my_coins;
        let mut opp_coins = obs.opp_coins;
        let mut my_cards = cards.len() as i32;
        // The action it is answering, as it sees it: what it will cost or bring.
        match line {
            b"T" => opp_coins += 3,
            b"S" => {
                let taken = my_coins.min(2);
                opp_coins += taken;
                my_coins -= taken;
            }
            b"A" => {
                opp_coins -= 3;
                my_cards -= 1;
            }
            _ => {}
        }
        if let [action] = line {
            flags.saw(*action);
        }
        let s = Situation {
            obs,
            flags,
            cards,
            line,
            lines: reading.lines,
            my_coins,
            opp_coins,
            my_cards,
            opp_cards: 4 - cards.len() as i32 - reading.lines_with_give_up_symbol as i32,
            robbed: flags.opp_steal
                && !cards.contains(&Card::Captain)
                && !cards.contains(&Card::Ambassador),
        };
        let race = s.race();
        let text = Self::decide(&s, &race);
        let mut action = match Move::parse(text.as_bytes()).filter(|m| obs.legal.contains(*m)) {
            Some(wrote) => CoupAction::play(wrote),
            None => {
                let bytes = text.as_bytes();
                if bytes.len() == 2 && bytes[1] == b'\n' && obs.legal.contains(Move::END) {
                    // A card and a newline where only the newline is legal: the card is junk
                    // before it, as the original arbiter took it.
                    let mut action = CoupAction::play(Move::END);
                    action.junk = Some(bytes[0] as char);
                    if obs.strict_moves {
                        action.junk = None;
                    }
                    action
                } else {
                    // A symbol without the newline the move needs (or no legal reading at all):
                    // the nearest legal move rather than a forfeit.
                    let ended = obs
                        .legal
                        .as_slice()
                        .iter()
                        .copied()
                        .find(|m| m.first() == bytes[0]);
                    CoupAction::play(ended.unwrap_or(obs.legal.as_slice()[0]))
                }
            }
        };
        if obs.keep > 0 && action.wrote == Move::END {
            action.keep = self.keep(&s, &race);
        }
        action
    }
}

//! Table-driven rules tests: every complete line of reference §2.8 with its coin and card effects, plus
//! the forced Coup, Steal from 1 and 0 coins, one-card Exchange, illegal Exchange, both double-loss
//! shapes, a line ending on the last card, and the 200-call draw.
//!
//! Hands and the deck are written in reveal symbols (`~` Ambassador, `^` Assassin, `*` Captain,
//! `!` Contessa, `$` Duke). Shuffles are off, so the replacement for a revealed card and the cards drawn
//! for an Exchange come from the top of `REST` (its end): first `*`, then `$`.

use arena_core::game::{Answer, Game};
use arena_coup::rules::{Cards, Coup, CoupAction, CoupConfig, CoupObs, Move};

const REST: &str = "!!!!!!!!!$*";

fn surrender_of(reveal: char) -> char {
    match reveal {
        '~' => '_',
        '^' => '\'',
        '*' => '<',
        '!' => '=',
        '$' => '0',
        other => panic!("not a card {other}"),
    }
}

/// A deck dealing `p0` to the first player and `p1` to the second (dealt from the end).
fn deck(p0: &str, p1: &str) -> String {
    let p0: Vec<char> = p0.chars().collect();
    let p1: Vec<char> = p1.chars().collect();
    let order = REST.chars().chain([p1[1], p1[0], p0[1], p0[0]]);
    order.map(surrender_of).collect()
}

fn new_game(p0: &str, p1: &str) -> Coup {
    let config = CoupConfig {
        deck: Some(deck(p0, p1)),
        no_shuffle: true,
        ..CoupConfig::default()
    };
    config.validate().unwrap();
    Coup::new(&config, 7)
}

/// Plays `moves` (text, kept cards), checking each is legal; returns the last observation.
fn play(game: &mut Coup, moves: &[(&str, &str)]) -> CoupObs {
    let mut obs = CoupObs::default();
    for &(wrote, keep) in moves {
        let player = game
            .to_act()
            .unwrap_or_else(|| panic!("game over before {wrote:?}: {game:?}"));
        game.observe(player, &mut obs);
        let mv = Move::parse(wrote.as_bytes()).unwrap();
        assert!(
            obs.legal.contains(mv),
            "{wrote:?} not legal in {:?} (legal {:?})",
            game.history(),
            obs.legal
        );
        let keep: arena_coup::Hand = Cards::parse_reveal(keep).unwrap();
        game.apply(
            player,
            Answer::Action(CoupAction {
                wrote: mv,
                keep,
                junk: None,
            }),
        );
    }
    obs
}

fn moves(text: &'static [&'static str]) -> Vec<(&'static str, &'static str)> {
    text.iter().map(|m| (*m, "")).collect()
}

/// Prefixes that give the first player coins; it is its turn afterwards.
const NONE: &[&str] = &[];
const TO_3: &[&str] = &["I\n", "I\n", "I\n", "I\n"]; // coins 3 / 3
const TO_7: &[&str] = &["T", "p", "\n", "I\n", "T", "p", "\n", "I\n"]; // coins 7 / 3

struct Case {
    line: &'static str,
    p0: &'static str,
    p1: &'static str,
    prefix: &'static [&'static str],
    moves: &'static [(&'static str, &'static str)],
    coins: [i32; 2],
    hands: [&'static str; 2],
    winner: Option<usize>,
}

const CASES: &[Case] = &[
    Case {
        line: "I\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("I\n", "")],
        coins: [2, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Fp\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("F", ""), ("p", ""), ("\n", "")],
        coins: [3, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Fd\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("F", ""), ("d", ""), ("\n", "")],
        coins: [1, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Fdq$x\\n",
        p0: "!^",
        p1: "$!",
        prefix: NONE,
        moves: &[("F", ""), ("d", ""), ("q", ""), ("$", ""), ("=\n", "")],
        coins: [1, 1],
        hands: ["^", "!*"],
        winner: None,
    },
    Case {
        line: "Fdqy\\n",
        p0: "!!",
        p1: "!^",
        prefix: NONE,
        moves: &[("F", ""), ("d", ""), ("q", ""), ("'", ""), ("\n", "")],
        coins: [3, 1],
        hands: ["!!", "!"],
        winner: None,
    },
    Case {
        line: "Cy\\n",
        p0: "!!",
        p1: "!^",
        prefix: TO_7,
        moves: &[("C", ""), ("=", ""), ("\n", "")],
        coins: [0, 3],
        hands: ["!!", "^"],
        winner: None,
    },
    Case {
        line: "Ep\\n",
        p0: "!^",
        p1: "!!",
        prefix: NONE,
        moves: &[("E", ""), ("p", ""), ("\n", "$!")],
        coins: [1, 1],
        hands: ["$!", "!!"],
        winner: None,
    },
    Case {
        line: "Eq~y\\n",
        p0: "~!",
        p1: "^$",
        prefix: NONE,
        moves: &[("E", ""), ("q", ""), ("~", ""), ("0", ""), ("\n", "~*")],
        coins: [1, 1],
        hands: ["~*", "^"],
        winner: None,
    },
    Case {
        line: "Eqx\\n",
        p0: "!^",
        p1: "!!",
        prefix: NONE,
        moves: &[("E", ""), ("q", ""), ("=\n", "")],
        coins: [1, 1],
        hands: ["^", "!!"],
        winner: None,
    },
    Case {
        line: "Tp\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("T", ""), ("p", ""), ("\n", "")],
        coins: [4, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Tq$y\\n",
        p0: "$!",
        p1: "^^",
        prefix: NONE,
        moves: &[("T", ""), ("q", ""), ("$", ""), ("'", ""), ("\n", "")],
        coins: [4, 1],
        hands: ["!*", "^"],
        winner: None,
    },
    Case {
        line: "Tqx\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("T", ""), ("q", ""), ("=\n", "")],
        coins: [1, 1],
        hands: ["!", "!!"],
        winner: None,
    },
    Case {
        line: "Ay\\n",
        p0: "!!",
        p1: "!^",
        prefix: TO_3,
        moves: &[("A", ""), ("'", ""), ("\n", "")],
        coins: [0, 3],
        hands: ["!!", "!"],
        winner: None,
    },
    Case {
        line: "As\\n",
        p0: "!!",
        p1: "!^",
        prefix: TO_3,
        moves: &[("A", ""), ("s", ""), ("\n", "")],
        coins: [0, 3],
        hands: ["!!", "!^"],
        winner: None,
    },
    Case {
        line: "Asq!x\\n",
        p0: "^$",
        p1: "!~",
        prefix: TO_3,
        moves: &[("A", ""), ("s", ""), ("q", ""), ("!", ""), ("0\n", "")],
        coins: [0, 3],
        hands: ["^", "~*"],
        winner: None,
    },
    Case {
        line: "Asqy (double loss)",
        p0: "!!",
        p1: "~*",
        prefix: TO_3,
        moves: &[("A", ""), ("s", ""), ("q", ""), ("_", "")],
        coins: [0, 3],
        hands: ["!!", "*"],
        winner: Some(0),
    },
    Case {
        line: "Aq^y (double loss)",
        p0: "^!",
        p1: "~*",
        prefix: TO_3,
        moves: &[("A", ""), ("q", ""), ("^", ""), ("<", "")],
        coins: [0, 3],
        hands: ["!*", "~"],
        winner: Some(0),
    },
    Case {
        line: "Aqx\\n",
        p0: "!!",
        p1: "!!",
        prefix: TO_3,
        moves: &[("A", ""), ("q", ""), ("=\n", "")],
        coins: [3, 3],
        hands: ["!", "!!"],
        winner: None,
    },
    Case {
        line: "Sp\\n from 1 coin",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("S", ""), ("p", ""), ("\n", "")],
        coins: [2, 0],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Sp\\n from 3 coins",
        p0: "!!",
        p1: "!!",
        prefix: TO_3,
        moves: &[("S", ""), ("p", ""), ("\n", "")],
        coins: [5, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Sa\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("S", ""), ("a", ""), ("\n", "")],
        coins: [1, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Sc\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("S", ""), ("c", ""), ("\n", "")],
        coins: [1, 1],
        hands: ["!!", "!!"],
        winner: None,
    },
    Case {
        line: "Saq~x\\n",
        p0: "!!",
        p1: "~!",
        prefix: NONE,
        moves: &[("S", ""), ("a", ""), ("q", ""), ("~", ""), ("=\n", "")],
        coins: [1, 1],
        hands: ["!", "!*"],
        winner: None,
    },
    Case {
        line: "Scq*x\\n",
        p0: "!$",
        p1: "*!",
        prefix: NONE,
        moves: &[("S", ""), ("c", ""), ("q", ""), ("*", ""), ("0\n", "")],
        coins: [1, 1],
        hands: ["!", "!*"],
        winner: None,
    },
    Case {
        line: "Saqy\\n",
        p0: "!!",
        p1: "*!",
        prefix: NONE,
        moves: &[("S", ""), ("a", ""), ("q", ""), ("=", ""), ("\n", "")],
        coins: [2, 0],
        hands: ["!!", "*"],
        winner: None,
    },
    Case {
        line: "Scqy\\n",
        p0: "!!",
        p1: "~!",
        prefix: NONE,
        moves: &[("S", ""), ("c", ""), ("q", ""), ("_", ""), ("\n", "")],
        coins: [2, 0],
        hands: ["!!", "!"],
        winner: None,
    },
    Case {
        line: "Sq*y\\n",
        p0: "*!",
        p1: "!!",
        prefix: NONE,
        moves: &[("S", ""), ("q", ""), ("*", ""), ("=", ""), ("\n", "")],
        coins: [2, 0],
        hands: ["!*", "!"],
        winner: None,
    },
    Case {
        line: "Sqx\\n",
        p0: "!!",
        p1: "!!",
        prefix: NONE,
        moves: &[("S", ""), ("q", ""), ("=\n", "")],
        coins: [1, 1],
        hands: ["!", "!!"],
        winner: None,
    },
];

#[test]
fn every_line_shape() {
    for case in CASES {
        let mut game = new_game(case.p0, case.p1);
        play(&mut game, &moves(case.prefix));
        let before = game.history().len();
        play(&mut game, case.moves);
        let line: String = case.moves.iter().map(|m| m.0).collect();
        assert_eq!(&game.history()[before..], line, "{}", case.line);
        assert_eq!(game.coins(), case.coins, "{}: coins", case.line);
        let hands = [game.hand(0).reveal_string(), game.hand(1).reveal_string()];
        assert_eq!(
            hands,
            case.hands.map(str::to_string),
            "{}: hands",
            case.line
        );
        let over = game.to_act().is_none();
        assert_eq!(over, case.winner.is_some(), "{}: over", case.line);
        assert_eq!(game.outcome().winner, case.winner, "{}: winner", case.line);
    }
}

#[test]
fn revealed_cards_go_back_on_the_deck() {
    // Tq$y\n: the Duke is replaced by the top card (`*`) and then goes on top itself.
    let mut game = new_game("$!", "^^");
    play(&mut game, &moves(&["T", "q", "$", "'", "\n"]));
    let top: String = game
        .deck()
        .iter()
        .rev()
        .take(2)
        .map(|c| c.reveal() as char)
        .collect();
    assert_eq!(top, "$$");
    // Ep\n: the two unchosen cards go back in the order offered (drawn first, then the hand).
    let mut game = new_game("!^", "!!");
    play(&mut game, &[("E", ""), ("p", ""), ("\n", "!$")]);
    let top: String = game
        .deck()
        .iter()
        .rev()
        .take(2)
        .map(|c| c.reveal() as char)
        .collect();
    assert_eq!(top, "^*");
    assert_eq!(game.hand(0).reveal_string(), "!$");
}

#[test]
fn legal_lists_in_the_arbiters_order() {
    let mut game = new_game("!!", "!!");
    let obs = play(&mut game, &[]);
    let _ = obs;
    let mut obs = CoupObs::default();
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    assert_eq!(obs.args(), ["1", "1", "!!", "I\n", "F", "E", "S", "T"]);
    play(&mut game, &moves(TO_3));
    game.observe(0, &mut obs);
    assert_eq!(obs.args(), ["3", "3", "!!", "I\n", "F", "E", "T", "A", "S"]);
    play(&mut game, &moves(&["A"]));
    game.observe(1, &mut obs);
    assert_eq!(obs.args(), ["3", "3", "!!", "s", "q", "=", "="]);
}

#[test]
fn forced_coup_at_ten() {
    let mut game = new_game("!!", "!!");
    play(
        &mut game,
        &moves(&[
            "T", "p", "\n", "I\n", "T", "p", "\n", "I\n", "T", "p", "\n", "I\n",
        ]),
    );
    assert_eq!(game.coins(), [10, 4]);
    let mut obs = CoupObs::default();
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    assert_eq!(obs.args()[3..], ["C"]);
}

#[test]
fn steal_not_offered_against_zero_coins() {
    let mut game = new_game("!!", "!!");
    play(
        &mut game,
        &[
            ("S", ""),
            ("p", ""),
            ("\n", ""),
            ("E", ""),
            ("p", ""),
            ("\n", "!!"),
        ],
    );
    assert_eq!(game.coins(), [2, 0]);
    let mut obs = CoupObs::default();
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    assert_eq!(obs.args()[3..], ["I\n", "F", "E", "T"]);
}

#[test]
fn one_card_exchange() {
    let mut game = new_game("!~", "!!");
    // The first player loses its Contessa to a challenged Tax, then exchanges with one card.
    play(&mut game, &moves(&["T", "q", "=\n", "I\n", "E", "p"]));
    let mut obs = CoupObs::default();
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    assert_eq!(obs.args(), ["2", "1", "*$~", "\n"]);
    assert_eq!(obs.keep, 1);
    play(&mut game, &[("\n", "$")]);
    assert_eq!(game.hand(0).reveal_string(), "$");
    let top: String = game
        .deck()
        .iter()
        .rev()
        .take(2)
        .map(|c| c.reveal() as char)
        .collect();
    assert_eq!(top, "~*");
}

#[test]
fn illegal_exchange_forfeits() {
    for keep in ["!!", "$", "^^", ""] {
        let mut game = new_game("!^", "!!");
        play(&mut game, &moves(&["E", "p"]));
        let player = game.to_act().unwrap();
        let mut obs = CoupObs::default();
        game.observe(player, &mut obs);
        let keep: Cards<4> = Cards::parse_reveal(keep).unwrap_or_default();
        let mut action = CoupAction::play(Move::END);
        for &card in keep.as_slice().iter().take(2) {
            action.keep.push(card);
        }
        game.apply(player, Answer::Action(action));
        assert_eq!(game.to_act(), None);
        assert_eq!(game.outcome().winner, Some(1));
        let faults = game.rule_faults();
        assert!(
            faults[0].1.detail.starts_with("illegal exchange"),
            "{faults:?}"
        );
    }
    // The process decoder says the same about printed text, including surrender symbols.
    let mut game = new_game("!^", "!!");
    play(&mut game, &moves(&["E", "p"]));
    let mut obs = CoupObs::default();
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    for printed in ["0!", "!!", "$", " $!^", "x"] {
        let fault = arena_coup::decode_answer(&obs, b"\n", printed.as_bytes()).unwrap_err();
        assert!(
            fault.detail.starts_with("illegal exchange"),
            "{printed:?}: {fault}"
        );
    }
    assert!(arena_coup::decode_answer(&obs, b"\n", b"  !$\n").is_ok());
}

#[test]
fn last_card_ends_the_line_early() {
    // The second player loses one card to a wrong challenge, then its last one to a Coup: `C=`.
    let mut game = new_game("$!", "!!");
    play(
        &mut game,
        &moves(&["T", "q", "$", "=", "\n", "I\n", "T", "p", "\n", "I\n"]),
    );
    assert_eq!(game.coins(), [7, 3]);
    play(&mut game, &moves(&["C", "="]));
    assert!(game.history().ends_with("\nC="));
    assert_eq!(game.to_act(), None);
    assert_eq!(game.outcome().winner, Some(0));
}

#[test]
fn two_hundred_calls_without_a_winner() {
    let mut game = new_game("!!", "!!");
    let mut obs = CoupObs::default();
    let mut calls = 0;
    while let Some(player) = game.to_act() {
        game.observe(player, &mut obs);
        let line = obs.line().to_string();
        let mut action = CoupAction::play(if line.is_empty() {
            Move::char(b'E')
        } else if obs.legal.contains(Move::char(b'p')) {
            Move::char(b'p')
        } else {
            Move::END
        });
        if obs.keep > 0 {
            for &card in obs.hand() {
                action.keep.push(card);
            }
        }
        game.apply(player, Answer::Action(action));
        calls += 1;
    }
    assert_eq!(calls, 200);
    let outcome = game.outcome();
    assert_eq!(outcome.winner, None);
    assert!(outcome.scores.iter().all(|s| s.numer() == 0));
}

#[test]
fn double_loss_needs_the_assassination_line() {
    // A card lost on line 4 of anything else is a single loss: `Fdq'` after a wrong block leaves one card.
    let mut game = new_game("!!", "!^");
    play(&mut game, &moves(&["F", "d", "q", "'"]));
    assert!(game.to_act().is_some());
    assert_eq!(game.hand(1).reveal_string(), "!");
}

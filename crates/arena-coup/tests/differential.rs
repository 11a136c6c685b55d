//! Differential test: `hashbot.py` under the reference arbiter (Python 2.7, shuffles off, a fixed
//! deck) and under arena's call agent (same deck, shuffles off) must leave identical history files and
//! the same result, for many decks and salts. The arbiter is not part of arena (it is the Code Golf
//! KotH's, see `common::reference`): these tests are ignored unless asked for, and then fail loudly
//! when it or Python 2.7 is missing:
//! `ARENA_COUP_REFERENCE=DIR cargo test -p arena-coup --test differential -- --ignored`.
//! Without it, `tests/conformance.rs` replays the games recorded from it.

mod common;

use std::path::Path;
use std::process::Command;

use arena_core::call::{CallAgent, CallSpec};
use arena_core::runner::{MatchOptions, Seat, run_match};
use arena_coup::Coup;
use arena_coup::rules::CoupConfig;
use rand_core::{RngCore, SeedableRng};

/// (history text, winner) of game `game` in the arbiter's round 0.
fn arbiter_games(
    python2: &Path,
    bot: &[String],
    deck: &str,
    salts: [&str; 2],
    work: &Path,
) -> Vec<(String, Option<usize>)> {
    let arbiter = common::reference().join("arbiter.py");
    let command = |salt: &str| format!("{} --salt={salt}", bot.join(" "));
    let output = Command::new(python2)
        .arg(&arbiter)
        .arg(format!("A={}", command(salts[0])))
        .arg(format!("B={}", command(salts[1])))
        .current_dir(work)
        .env("ROUNDS", "1")
        .env("COUP_NO_SHUFFLE", "1")
        .env("COUP_DECK", deck)
        .output()
        .expect("the arbiter runs");
    assert!(
        output.status.success(),
        "arbiter failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut games = Vec::new();
    for (index, part) in log.split("--- Game ").skip(1).enumerate() {
        let (first, second) = if index == 0 { ("A", "B") } else { ("B", "A") };
        let history = std::fs::read_to_string(work.join(format!("{first}_{second}_0_{index}.txt")))
            .expect("history file");
        let winner = part.lines().rfind(|l| l.contains(" wins")).map(|l| {
            if l.starts_with(&format!("{first} ")) {
                0
            } else {
                1
            }
        });
        games.push((history, winner));
        // After a draw the arbiter skips its reset (B1): later games are not comparable.
        if winner.is_none() {
            break;
        }
    }
    games
}

fn arena_game(
    bot: &[String],
    deck: &str,
    salts: [&str; 2],
    names: [&str; 2],
    work: &Path,
    runtime: &tokio::runtime::Runtime,
) -> (String, Option<usize>, usize) {
    let history = work.join(format!("{}_{}_0_x.txt", names[0], names[1]));
    let seats = salts
        .iter()
        .zip(names)
        .map(|(salt, name)| {
            let mut argv = bot.to_vec();
            argv.push(format!("--salt={salt}"));
            let dir = work.join(format!("arena-{name}"));
            std::fs::create_dir_all(&dir).unwrap();
            Seat {
                name: name.to_string(),
                spec: argv.join(" "),
                bot_seed: None,
                agent: Box::new(CallAgent::new(CallSpec {
                    argv,
                    workdir: Some(dir),
                    history: history.clone(),
                    stderr_cap: 4096,
                    sandbox: None,
                })) as _,
            }
        })
        .collect::<Vec<Seat<Coup>>>();
    let config = CoupConfig {
        deck: Some(deck.to_string()),
        no_shuffle: true,
        ..CoupConfig::default()
    };
    let options = MatchOptions {
        pause_idle: false,
        time_scale: 1.0,
        record_frames: false,
        cpu: None,
        time_policy: None,
        probe: false,
        sandbox: None,
        clock: arena_core::ClockKind::Wall,
    };
    let record = runtime.block_on(run_match::<Coup>(&config, 0, seats, &options));
    for player in &record.players {
        assert!(
            player.faults.is_empty(),
            "hashbot forfeited under arena: {:?}",
            player.faults
        );
    }
    // The file as the last call left it (the referee rewrites it only before a call).
    let text = std::fs::read_to_string(&history).expect("arena history file");
    let warnings = record.players.iter().map(|p| p.warnings.len()).sum();
    (text, record.outcome.winner, warnings)
}

#[test]
#[ignore = "needs the reference arbiter: ARENA_COUP_REFERENCE=DIR, run with --ignored"]
fn hashbot_plays_identically_under_arbiter_and_arena() {
    let python2 = common::python2();
    let python3 = common::python3();
    let hashbot = common::reference().join("bots/hashbot.py");
    // -S skips site initialisation: a third of a second less per call, same behaviour.
    let bot = vec![
        python3.to_string_lossy().into_owned(),
        "-S".into(),
        hashbot.to_string_lossy().into_owned(),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(20_260_422);
    let games = std::env::var("COUP_DIFF_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut compared = 0;
    for game in 0..games {
        let mut deck: Vec<u8> = b"_'<=0_'<=0_'<=0".to_vec();
        for i in (1..deck.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            deck.swap(i, j);
        }
        let deck = String::from_utf8(deck).unwrap();
        let salts = [
            format!("s{}", rng.next_u32() % 1_000_000),
            format!("t{}", rng.next_u32() % 1_000_000),
        ];
        let salts = [salts[0].as_str(), salts[1].as_str()];
        let work = common::temp_dir(&format!("diff{game}"));
        let reference = arbiter_games(&python2, &bot, &deck, salts, &work);
        for (index, (history, winner)) in reference.iter().enumerate() {
            let (order, names) = if index == 0 {
                (salts, ["A", "B"])
            } else {
                ([salts[1], salts[0]], ["B", "A"])
            };
            let (ours, our_winner, _) = arena_game(&bot, &deck, order, names, &work, &runtime);
            assert_eq!(
                &ours, history,
                "deck {deck} salts {salts:?} game {index}: history differs"
            );
            assert_eq!(
                &our_winner, winner,
                "deck {deck} salts {salts:?} game {index}: winner differs"
            );
            compared += 1;
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    assert!(compared >= games, "compared {compared} games");
    eprintln!(
        "differential: {games} decks x salts, {compared} games identical under both referees"
    );
}

/// A wrapper around hashbot that writes one character of junk before some of its `\n` moves, as
/// Calculator writes `<\n` (the original accepted it and parsed the line with the junk in it).
const JUNKBOT: &str = r#"
import hashlib, runpy, sys
args = [a for a in sys.argv[1:]]
hashbot = args.pop(0)
history_path = [a for a in args if not a.startswith("--salt=")][0]
with open(history_path, "rb") as f:
    old = f.read()
sys.argv = [hashbot] + args
try:
    runpy.run_path(hashbot, run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
with open(history_path, "rb") as f:
    new = f.read()
rest = "\0".join(a for a in args if a != history_path)
digest = hashlib.sha256(old + b"junk" + rest.encode()).digest()
if new[len(old):] == b"\n" and digest[0] % 3 == 0:
    junk = b"<_px"[digest[1] % 4 : digest[1] % 4 + 1]
    with open(history_path, "wb") as f:
        f.write(old + junk + b"\n")
"#;

#[test]
#[ignore = "needs the reference arbiter: ARENA_COUP_REFERENCE=DIR, run with --ignored"]
fn junk_before_newlines_plays_identically_under_arbiter_and_arena() {
    let python2 = common::python2();
    let python3 = common::python3();
    let hashbot = common::reference().join("bots/hashbot.py");
    let scripts = common::temp_dir("junkbot");
    let junkbot = scripts.join("junkbot.py");
    std::fs::write(&junkbot, JUNKBOT).unwrap();
    let bot = vec![
        python3.to_string_lossy().into_owned(),
        "-S".into(),
        junkbot.to_string_lossy().into_owned(),
        hashbot.to_string_lossy().into_owned(),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(20_261_122);
    let mut compared = 0;
    let mut with_junk = 0;
    for game in 0..6 {
        let mut deck: Vec<u8> = b"_'<=0_'<=0_'<=0".to_vec();
        for i in (1..deck.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            deck.swap(i, j);
        }
        let deck = String::from_utf8(deck).unwrap();
        let salts = [
            format!("s{}", rng.next_u32() % 1_000_000),
            format!("t{}", rng.next_u32() % 1_000_000),
        ];
        let salts = [salts[0].as_str(), salts[1].as_str()];
        let work = common::temp_dir(&format!("junkdiff{game}"));
        let reference = arbiter_games(&python2, &bot, &deck, salts, &work);
        for (index, (history, winner)) in reference.iter().enumerate() {
            let (order, names) = if index == 0 {
                (salts, ["A", "B"])
            } else {
                ([salts[1], salts[0]], ["B", "A"])
            };
            let (ours, our_winner, warnings) =
                arena_game(&bot, &deck, order, names, &work, &runtime);
            assert_eq!(
                &ours, history,
                "deck {deck} salts {salts:?} game {index}: history differs"
            );
            assert_eq!(
                &our_winner, winner,
                "deck {deck} salts {salts:?} game {index}: winner differs"
            );
            with_junk += warnings;
            compared += 1;
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    let _ = std::fs::remove_dir_all(&scripts);
    assert!(compared >= 6, "compared {compared} games");
    assert!(with_junk >= 6, "only {with_junk} junk characters written");
    eprintln!(
        "differential with junk: {compared} games identical, {with_junk} junk characters accepted"
    );
}

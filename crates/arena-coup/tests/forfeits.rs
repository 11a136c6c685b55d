//! Every forfeit kind, with tiny real bots that misbehave (shell scripts written to a temp dir), and no
//! process left behind after any call.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use arena_core::call::{CallSpec, call_bot};
use arena_core::game::{Answer, Game};
use arena_core::registry::PlayerSpec;
use arena_coup::ForfeitKind;
use arena_coup::rules::{Coup, CoupAction, CoupConfig, CoupObs, Move};

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Live (non-zombie) processes in group `pgid`, from /proc.
fn live_in_group(pgid: i32) -> usize {
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...; comm may hold spaces, so split after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            count += 1;
        }
    }
    count
}

/// The observation of the call after `moves` from a fixed deal.
fn obs_after(moves: &[(&str, &str)]) -> CoupObs {
    let config = CoupConfig {
        deck: Some("!!!!!!!!!0<'=_=".replace('!', "=")),
        no_shuffle: true,
        ..CoupConfig::default()
    };
    let mut game = Coup::new(&config, 1);
    let mut obs = CoupObs::default();
    for &(wrote, keep) in moves {
        let player = game.to_act().unwrap();
        game.observe(player, &mut obs);
        let mut action = CoupAction::play(Move::parse(wrote.as_bytes()).unwrap());
        for c in keep.bytes() {
            action.keep.push(arena_coup::Card::from_reveal(c).unwrap());
        }
        game.apply(player, Answer::Action(action));
    }
    let player = game.to_act().unwrap();
    game.observe(player, &mut obs);
    obs
}

fn run(
    dir: &Path,
    bot: &Path,
    obs: &CoupObs,
    limit_ms: u64,
) -> (Result<CoupAction, ForfeitKind>, i32) {
    let spec = CallSpec {
        argv: vec![bot.to_string_lossy().into_owned()],
        workdir: Some(dir.to_path_buf()),
        history: dir.join("A_B_0_0.txt"),
        stderr_cap: 1024,
        sandbox: None,
    };
    let report = call_bot::<Coup>(&spec, obs, Duration::from_millis(limit_ms), 1024);
    let pgid = report.pgid.unwrap_or(-1);
    if pgid > 0 {
        // SIGKILL went to the whole group when the call ended; delivery is asynchronous, so give the
        // kernel a moment before calling anything a leftover.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while live_in_group(pgid) > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            live_in_group(pgid),
            0,
            "{}: processes left in group {pgid}",
            bot.display()
        );
    }
    let answer = match report.answer {
        Answer::Action(action) => Ok(action),
        Answer::Fault(fault) => Err(ForfeitKind::of(&fault)),
    };
    (answer, pgid)
}

#[test]
fn every_forfeit_kind() {
    let dir = common::temp_dir("forfeits");
    let first = obs_after(&[]);
    let second = obs_after(&[("I\n", "")]);
    let exchange = obs_after(&[("E", ""), ("p", "")]);
    assert_eq!(exchange.keep, 2);
    let strict_first = CoupObs {
        strict_moves: true,
        ..first.clone()
    };
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a CoupObs,
        u64,
        Result<Move, ForfeitKind>,
    );
    let cases: Vec<Case> = vec![
        (
            "good",
            r#"printf 'I\n' >> "$1""#,
            &first,
            5000,
            Ok(Move::INCOME),
        ),
        (
            "exit3",
            r#"printf 'I\n' >> "$1"; exit 3"#,
            &first,
            5000,
            Err(ForfeitKind::NonZeroExit),
        ),
        (
            "killed",
            r#"printf 'I\n' >> "$1"; kill -9 $$"#,
            &first,
            5000,
            Err(ForfeitKind::NonZeroExit),
        ),
        (
            "rewrite",
            r#"printf 'T' > "$1""#,
            &second,
            5000,
            Err(ForfeitKind::ModifiedHistory),
        ),
        (
            // The original accepted one character before a one-character move (B4), so does arena
            // by default; `--strict-moves` refuses it.
            "junk",
            r#"printf 'xF' >> "$1""#,
            &first,
            5000,
            Ok(Move::char(b'F')),
        ),
        (
            "junk_strict",
            r#"printf 'xF' >> "$1""#,
            &strict_first,
            5000,
            Err(ForfeitKind::IllegalMove),
        ),
        (
            "two_junk",
            r#"printf 'xyF' >> "$1""#,
            &first,
            5000,
            Err(ForfeitKind::ModifiedHistory),
        ),
        (
            "junk_before_income",
            r#"printf 'xI\n' >> "$1""#,
            &first,
            5000,
            Err(ForfeitKind::ModifiedHistory),
        ),
        (
            "empty",
            "exit 0",
            &first,
            5000,
            Err(ForfeitKind::IllegalMove),
        ),
        (
            "wrong",
            r#"printf 'q' >> "$1""#,
            &first,
            5000,
            Err(ForfeitKind::IllegalMove),
        ),
        (
            "income_no_newline",
            r#"printf 'I' >> "$1""#,
            &first,
            5000,
            Err(ForfeitKind::IllegalMove),
        ),
        (
            "badkeep",
            r#"printf '\n' >> "$1"; echo 00"#,
            &exchange,
            5000,
            Err(ForfeitKind::IllegalExchange),
        ),
        (
            "nokeep",
            r#"printf '\n' >> "$1""#,
            &exchange,
            5000,
            Err(ForfeitKind::IllegalExchange),
        ),
        (
            "slow",
            r#"printf 'I\n' >> "$1"; sleep 5"#,
            &first,
            300,
            Err(ForfeitKind::Timeout),
        ),
        (
            "slow_children",
            r#"sleep 30 & sleep 30 & printf 'I\n' >> "$1"; wait"#,
            &first,
            300,
            Err(ForfeitKind::Timeout),
        ),
        (
            "leaves_child",
            r#"sleep 30 & printf 'I\n' >> "$1""#,
            &first,
            5000,
            Ok(Move::INCOME),
        ),
    ];
    for (name, body, obs, limit, expected) in cases {
        let bot = script(&dir, name, body);
        let started = std::time::Instant::now();
        let (answer, _pgid) = run(&dir, &bot, obs, limit);
        assert_eq!(answer.map(|a| a.wrote), expected, "{name}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{name} took {:?}",
            started.elapsed()
        );
    }
    // The good exchange for comparison: the kept cards come from stdout.
    let bot = script(
        &dir,
        "goodkeep",
        r#"printf '\n' >> "$1"; echo " $4" | cut -c1-3"#,
    );
    let (answer, _) = run(&dir, &bot, &exchange, 5000);
    let kept = answer.expect("legal exchange").keep.reveal_string();
    assert_eq!(kept, exchange.cards.reveal_string()[..2]);
    // A command that does not exist.
    let (answer, _) = run(&dir, &dir.join("no-such-bot"), &first, 5000);
    assert_eq!(answer.map(|a| a.wrote), Err(ForfeitKind::SpawnFailed));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Through the registry entry (the runner and the call agent), on both kinds of tokio runtime: the
/// faults reach the result, the opponent wins, and the configured time limit applies.
#[test]
fn play_reports_forfeits_on_both_runtimes() {
    use arena_core::registry::{GameRequest, SeatRequest};
    use arena_core::runner::MatchOptions;
    let dir = common::temp_dir("play");
    let slow = script(&dir, "slow", r#"sleep 3; printf 'I\n' >> "$1""#);
    let wrong = script(&dir, "wrong", r#"printf 'q' >> "$1""#);
    // The limit as users set it: the game's option `--call-limit-ms`.
    let mut options = arena_core::options::GameOptions::default();
    options.set(
        "call_limit_ms",
        arena_core::options::OptionValue::Number(200),
    );
    let entry = arena_core::registry::with_options(
        arena_core::call::call_entry(arena_coup::definition()),
        options,
    )
    .expect("a known option");
    let request = |bot: &Path| GameRequest {
        variant: None,
        seed: 9,
        seats: vec![
            SeatRequest {
                name: "Bad".into(),
                spec: PlayerSpec::Command(vec![bot.to_string_lossy().into_owned()]),
                workdir: Some(dir.clone()),
            },
            SeatRequest {
                name: "Income".into(),
                spec: PlayerSpec::Builtin("income".into()),
                workdir: None,
            },
        ],
        options: MatchOptions::default(),
        stderr_cap: 1024,
        prepared: Default::default(),
    };
    let runtimes = [
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ];
    for runtime in &runtimes {
        for (bot, kind) in [
            (&slow, ForfeitKind::Timeout),
            (&wrong, ForfeitKind::IllegalMove),
        ] {
            let started = std::time::Instant::now();
            let result = runtime.block_on(entry.play(request(bot))).unwrap();
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{kind}: {:?}",
                started.elapsed()
            );
            assert_eq!(result.outcome.winner, Some(1), "{kind}");
            assert_eq!(result.faults[0].len(), 1, "{kind}");
            assert_eq!(ForfeitKind::of(&result.faults[0][0]), kind);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Calculator's habit: `<\n` where only `\n` is legal, after a successful challenge of a block
/// (`Scq'`: a Steal, a Captain block without a Captain, challenged, a card given up). The original
/// accepted it; arena does by default (the `<` stays in the history, with a warning) and forfeits it
/// with `--strict-moves`.
#[test]
fn calculator_style_junk_before_the_newline() {
    let dir = common::temp_dir("calculator-junk");
    let moves = [("S", ""), ("c", ""), ("q", ""), ("'", "")];
    let obs = obs_after(&moves);
    assert_eq!(obs.line(), "Scq'");
    assert_eq!(obs.legal.as_slice(), [Move::END]);
    let bot = script(&dir, "calculator_like", r#"printf '<\n' >> "$1""#);

    let (answer, _) = run(&dir, &bot, &obs, 5000);
    let action = answer.expect("accepted by default");
    assert_eq!((action.wrote, action.junk), (Move::END, Some('<')));

    let strict = CoupObs {
        strict_moves: true,
        ..obs.clone()
    };
    let (answer, _) = run(&dir, &bot, &strict, 5000);
    assert_eq!(answer.map(|a| a.wrote), Err(ForfeitKind::IllegalMove));

    // The rules keep the junk where the original did, apply the Steal, and warn.
    for strict_moves in [false, true] {
        let config = CoupConfig {
            deck: Some("=========0<'=_=".into()),
            no_shuffle: true,
            strict_moves,
            ..CoupConfig::default()
        };
        let mut game = Coup::new(&config, 1);
        let mut seen = CoupObs::default();
        for &(wrote, _) in &moves {
            let player = game.to_act().unwrap();
            game.observe(player, &mut seen);
            game.apply(
                player,
                Answer::Action(CoupAction::play(Move::parse(wrote.as_bytes()).unwrap())),
            );
        }
        let player = game.to_act().unwrap();
        game.observe(player, &mut seen);
        game.apply(player, Answer::Action(action));
        if strict_moves {
            assert_eq!(game.outcome().winner, Some(1 - player), "forfeited");
            assert_eq!(game.rule_faults().len(), 1);
        } else {
            assert_eq!(game.history(), "Scq'<\n");
            assert_eq!(game.coins(), [2, 0], "the Steal went through");
            assert_eq!(game.rule_faults(), vec![]);
            let warnings = game.rule_warnings();
            assert_eq!(warnings.len(), 1);
            assert_eq!(warnings[0].0, player);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

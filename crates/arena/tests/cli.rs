//! The `arena` command as a user runs it.

use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A conformance transcript kept in the Lang Wars crate's test data.
fn transcript(file: &str) -> String {
    format!(
        "{}/../arena-langwars/tests/data/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn list_names_every_game_and_bot() {
    let output = arena(&["list"]);
    assert!(output.status.success());
    // The contest games' sections, word for word (their bots' descriptions say what each one
    // follows of the originals). Games added later (the template game) are checked by
    // tests/every_game.rs, so that adding one changes nothing here.
    const CONTESTS: [&str; 5] = ["langwars", "langwars2", "negotiate", "spring2021", "coup"];
    let mut kept = String::new();
    let mut keep = false;
    for line in stdout(&output).lines() {
        if !line.starts_with(' ') {
            keep = CONTESTS
                .iter()
                .any(|id| line.starts_with(&format!("{id} (")));
        }
        if keep {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    insta::assert_snapshot!(kept);
}

#[test]
fn play_prints_exact_scores_and_writes_the_replay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let replay = dir.path().join("game.json");
    let output = arena(&[
        "play",
        "langwars2",
        "--bot",
        "greedy",
        "--bot",
        "builtin:random",
        "--bot",
        "focus",
        "--bot",
        "spread",
        "--seed",
        "4",
        "--replay",
        replay.to_str().expect("utf-8"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = stdout(&output).replace(replay.to_str().expect("utf-8"), "REPLAY");
    insta::assert_snapshot!(table);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay written"))
            .expect("JSON");
    assert_eq!(record["game"], "langwars2");
    assert_eq!(record["seed"], "4", "seeds are written as text");
    assert_eq!(record["frames"].as_array().expect("frames").len(), 9);
}

#[test]
fn conformance_reports_counts_and_fails_on_a_difference() {
    let output = arena(&["conformance", "negotiate", &transcript("langwars-nc.jsonl")]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output).trim_end(),
        "conformance: 30/30 games conform"
    );

    // The N&C transcripts checked as Lang Wars 2 differ in every game.
    let output = arena(&["conformance", "langwars2", &transcript("langwars-nc.jsonl")]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.ends_with("conformance: 0/30 games conform\n"),
        "{text}"
    );
    assert_eq!(
        text.lines().count(),
        31,
        "one difference per game, then the summary"
    );
}

#[test]
fn builtin_bots_run_as_processes_with_the_same_results() {
    let command = format!("{ARENA} bot langwars2 greedy");
    let as_process = arena(&[
        "play",
        "langwars2",
        "--bot",
        &command,
        "--bot",
        "random",
        "--bot",
        "focus",
        "--bot",
        "spread",
        "--seed",
        "9",
        "--replay",
        "/dev/null",
    ]);
    let in_process = arena(&[
        "play",
        "langwars2",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--bot",
        "focus",
        "--bot",
        "spread",
        "--seed",
        "9",
        "--replay",
        "/dev/null",
    ]);
    assert!(as_process.status.success());
    let scores = |output: &Output| -> Vec<String> {
        stdout(output)
            .lines()
            .skip(2)
            .take(4)
            .map(|line| {
                line.split_whitespace()
                    .nth(2)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(scores(&as_process), scores(&in_process));
}

#[test]
fn mistakes_get_errors_that_say_what_to_do() {
    let output = arena(&["play", "langwars9", "--bot", "random"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("unknown game `langwars9`") && error.contains("langwars2"),
        "{error}"
    );

    let output = arena(&["play", "langwars2", "--bot", "random"]);
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("4-player game: give --bot 4 times"),
        "{error}"
    );

    let output = arena(&[
        "play",
        "spring2021",
        "--bot",
        "random",
        "--bot",
        "random",
        "--deck",
        "__",
    ]);
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("--deck is not an option of spring2021 (it has none)"),
        "{error}"
    );

    // The game checks its options' values: a deck of unknown cards.
    let output = arena(&[
        "play",
        "coup",
        "--bot",
        "random",
        "--bot",
        "income",
        "--deck",
        "xyzxyzxyz",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("bad coup option --deck") && error.contains("surrender symbols"),
        "{error}"
    );
}

/// The games' own options are offered by every command that plays games, from the registry: their
/// help says which game has them and which variable sets them.
#[test]
fn game_options_come_from_the_games_and_their_variables() {
    for command in ["play", "tournament", "koth"] {
        let help = stdout(&arena(&[command, "--help"]));
        assert!(help.contains("Game options:"), "{command}: {help}");
        assert!(
            help.contains("--call-limit-ms <N>") && help.contains("coup: per-call time limit"),
            "{command}: {help}"
        );
        assert!(
            help.contains("[read from COUP_DECK when not given]"),
            "{help}"
        );
    }
    // COUP_DECK sets the deck as the reference arbiter's variable does; a bad one is refused with
    // the variable's name.
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["play", "coup", "--bot", "random", "--bot", "income"])
        .env("COUP_DECK", "nonsense!")
        .output()
        .expect("arena runs");
    assert_eq!(bad.status.code(), Some(2));
    let error = String::from_utf8_lossy(&bad.stderr);
    assert!(
        error.contains("bad coup option --deck") && error.contains("set by the variable COUP_DECK"),
        "{error}"
    );
}

#[test]
fn export_writes_a_self_contained_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let replay = dir.path().join("coup.json");
    let page = dir.path().join("coup.html");
    let output = arena(&[
        "play",
        "coup",
        "--bot",
        "calculator",
        "--bot",
        "challenger",
        "--seed",
        "3",
        "--replay",
        replay.to_str().expect("utf-8"),
    ]);
    assert!(output.status.success());
    let output = arena(&[
        "export",
        replay.to_str().expect("utf-8"),
        "-o",
        page.to_str().expect("utf-8"),
    ]);
    assert!(output.status.success());
    let html = std::fs::read_to_string(page).expect("page written");
    assert!(html.starts_with("<!doctype html>") && html.contains("calculator"));
    assert!(!html.contains("src=\"http"), "no external scripts");
}

/// A Coup bot that writes one character of junk before its first one-character legal move (as
/// Calculator writes `<` before a `\n`): accepted by default, with a rule warning in the result table,
/// and forfeited with `--strict-moves`.
#[test]
fn coup_junk_is_accepted_by_default_and_forfeited_with_strict_moves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bot = dir.path().join("junk.sh");
    std::fs::write(
        &bot,
        r#"history=$1
shift 4
for move in "$@"; do
    if [ ${#move} -eq 1 ] && [ "$move" != "$(printf '\n')" ]; then
        printf 'x%s' "$move" >> "$history"
        exit 0
    fi
done
printf '%s' "$1" >> "$history"
"#,
    )
    .expect("bot written");
    let replay = dir.path().join("game.json");
    let play = |strict: bool| {
        let mut args = vec![
            "play".to_string(),
            "coup".into(),
            "--seed".into(),
            "7".into(),
            "--bot".into(),
            format!("Junk=sh {}", bot.display()),
            "--bot".into(),
            "income".into(),
            "--replay".into(),
            replay.display().to_string(),
        ];
        if strict {
            args.push("--strict-moves".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = arena(&args);
        assert!(output.status.success(), "{output:?}");
        stdout(&output)
    };
    let lenient = play(false);
    let junk_row = lenient.lines().find(|l| l.contains("Junk")).expect("a row");
    assert!(junk_row.contains("rule warning"), "{lenient}");
    assert!(!junk_row.contains("illegal move"), "{lenient}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("json");
    assert!(record["players"][0]["warnings"][0].as_str().is_some());

    let strict = play(true);
    let junk_row = strict.lines().find(|l| l.contains("Junk")).expect("a row");
    assert!(junk_row.contains("illegal move"), "{strict}");
    assert!(strict.contains("winner: seat 1"), "{strict}");
}

#[test]
fn every_option_says_what_it_does() {
    for command in [
        "play",
        "tournament",
        "koth",
        "conformance",
        "bench",
        "serve",
        "view",
        "export",
        "replay",
        "bot",
    ] {
        let output = arena(&[command, "-h"]);
        assert!(output.status.success());
        for line in stdout(&output).lines() {
            let trimmed = line.trim_start();
            let is_entry = line.starts_with("  ")
                && (trimmed.starts_with('-')
                    || trimmed.starts_with('<')
                    || trimmed.starts_with('['));
            if !is_entry {
                continue;
            }
            // "--flag <VALUE>   description [default: ...]": an entry with nothing after its name
            // but clap's own brackets has no help.
            let description: String = trimmed
                .split("  ")
                .filter(|part| !part.is_empty())
                .skip(1)
                .collect::<Vec<_>>()
                .join(" ");
            let without_brackets: String = description
                .split('[')
                .map(|part| part.split_once(']').map_or(part, |(_, rest)| rest))
                .collect();
            let described = !without_brackets.trim().is_empty();
            assert!(described, "`arena {command}`: no help for `{trimmed}`");
        }
    }
}

#[test]
fn numeric_options_are_checked_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let out_text = out.to_str().expect("utf-8");
    for (flag, value, says) in [
        ("--time-scale", "inf", "finite number above 0"),
        ("--time-scale", "0", "finite number above 0"),
        ("--time-scale", "NaN", "finite number above 0"),
        ("--jobs", "0", "at least 1"),
    ] {
        let output = arena(&["tournament", "langwars2", flag, value, "--out", out_text]);
        assert!(!output.status.success(), "{flag} {value} accepted");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains(says), "{flag} {value}: {error}");
        assert!(!out.exists(), "{flag} {value} left {out_text} behind");
    }
    // A refused SPRT leaves nothing behind either, so the same command can be run again fixed.
    let output = arena(&[
        "tournament",
        "langwars2",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--sprt",
        "5",
        "0",
        "--out",
        out_text,
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--sprt"));
    assert!(!out.exists());
}

#[test]
fn an_os_error_is_said_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing.json");
    let missing = missing.to_str().expect("utf-8");
    for args in [
        vec!["view", missing],
        vec!["export", missing, "-o", missing],
        vec!["tournament", "--resume", missing],
        vec!["serve", "--dir", missing, "--port", "0"],
    ] {
        let output = arena(&args);
        assert!(!output.status.success(), "{args:?}");
        let error = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            error.matches("No such file or directory").count(),
            1,
            "{args:?}: {error}"
        );
        assert!(error.contains("missing.json"), "{args:?}: {error}");
    }
}

#[test]
fn the_leaderboard_of_thirty_bots_fits_a_hundred_columns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let kinds = ["greedy", "random", "focus", "spread"];
    let bots: Vec<String> = (0..30)
        .map(|i| format!("contestant_number_{i:02}={}", kinds[i % 4]))
        .collect();
    let mut args = vec!["tournament", "langwars2", "--seeds", "2", "--seed", "5"];
    for bot in &bots {
        args.extend(["--bot", bot.as_str()]);
    }
    args.extend(["--out", out.to_str().expect("utf-8")]);
    let output = arena(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = stdout(&output);
    for line in text.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    // Every bot has its row in both tables; the terminal's pairwise columns are the leaders.
    assert!(text.contains("columns: the top"), "{text}");
    let rows = text
        .lines()
        .filter(|line| {
            let mut words = line.split_whitespace();
            words.next().is_some_and(|w| w.parse::<u32>().is_ok())
                && words
                    .next()
                    .is_some_and(|w| w.starts_with("contestant_numb"))
        })
        .count();
    assert_eq!(rows, 60, "{text}");
    // The report keeps the full pairwise table.
    let report = std::fs::read_to_string(out.join("report.html")).expect("report");
    for i in 0..30 {
        let name = format!("<th>contestant_number_{i:02}</th>");
        assert_eq!(
            report.matches(&name).count(),
            2,
            "{name}: a column and a row"
        );
    }
}

#[test]
fn labels_default_to_the_folder_file_or_program_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let starter = format!(
        "{}/../arena-langwars/starters/bot.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::create_dir_all(dir.path().join("myfolder")).expect("folder");
    std::fs::copy(&starter, dir.path().join("myfolder/bot.py")).expect("copy");
    std::fs::copy(&starter, dir.path().join("solo.py")).expect("copy");
    std::fs::create_dir_all(dir.path().join("classes")).expect("folder");
    std::fs::copy(&starter, dir.path().join("classes/Lw")).expect("copy");
    let replay = dir.path().join("game.json");
    let output = Command::new(ARENA)
        .current_dir(dir.path())
        .args([
            "play",
            "langwars2",
            "--bot",
            "myfolder",
            "--bot",
            "solo.py",
            "--bot",
            // Not run as Java: the label is what is checked (its program must exist).
            "python3 -B classes/Lw",
            "--bot",
            "random",
            "--seed",
            "1",
            "--sandbox",
            "none",
            "--replay",
            replay.to_str().expect("utf-8"),
        ])
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("JSON");
    let names: Vec<&str> = record["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["myfolder", "solo", "Lw", "random"]);
}

#[test]
fn serving_a_network_warns_that_anyone_there_sees_every_game() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(ARENA)
        .args([
            "serve",
            "--dir",
            dir.path().to_str().expect("utf-8"),
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("arena serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut warning = String::new();
    std::io::BufReader::new(stderr)
        .read_line(&mut warning)
        .expect("a line");
    let stdout = child.stdout.take().expect("stdout");
    let mut url = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut url)
        .expect("a line");
    child.kill().expect("stop the server");
    let _ = child.wait();
    assert!(
        warning.starts_with("warning: --bind 0.0.0.0")
            && warning.contains("no authentication")
            && warning.contains("--allow-host"),
        "{warning}"
    );
    assert!(url.starts_with("arena serve: http://0.0.0.0:"), "{url}");
}

#[test]
fn protocol_prints_each_games_rules_page_from_the_binary() {
    for (game, page) in [
        ("langwars", "langwars"),
        ("langwars2", "langwars"),
        ("negotiate", "langwars"),
        ("spring2021", "spring2021"),
        ("coup", "coup"),
    ] {
        let output = arena(&["protocol", game]);
        assert!(output.status.success(), "{game}");
        let text = stdout(&output);
        let file = format!(
            "{}/../../docs/protocol-{page}.md",
            env!("CARGO_MANIFEST_DIR")
        );
        assert_eq!(
            text,
            std::fs::read_to_string(&file).expect("the page"),
            "{game}: the page of {file}"
        );
        assert!(text.contains(game), "{game}: the page names the game");
    }
    let output = arena(&["protocol", "chess"]);
    assert!(!output.status.success());
}

/// The repository stands alone: no document, test or example points outside it (the project's
/// design notes and reference programs live elsewhere and users do not have them).
#[test]
fn no_document_or_source_points_outside_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stack = vec![
        root.join("README.md"),
        root.join("docs"),
        root.join("crates"),
    ];
    stack.extend([
        root.join("examples"),
        root.join(".ci"),
        root.join("scripts"),
    ]);
    // Spelt in pieces so that this file does not find itself.
    let needle = ["..", "shared"].join("/");
    let mut found = Vec::new();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            for entry in std::fs::read_dir(&path).expect("a folder").flatten() {
                stack.push(entry.path());
            }
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if line.contains(&needle) {
                found.push(format!("{}:{}: {line}", path.display(), number + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths outside the repository:\n{}",
        found.join("\n")
    );
}

/// `arena list | head -1`: a reader that stops early ends arena quietly (no panic, no message),
/// with status 0 or the shell's 141.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    for args in [
        &["list"][..],
        &["languages"],
        &["protocol", "coup"],
        &[
            "play",
            "langwars2",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
            "--seed",
            "1",
        ],
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(ARENA)
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("arena runs");
        // The reader goes away before reading anything.
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr)
            .expect("stderr");
        let status = child.wait().expect("arena ends");
        assert!(
            matches!(status.code(), Some(0 | 141)),
            "{args:?}: {status:?} {stderr}"
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{args:?}: {stderr}"
        );
    }
}

/// Arena keeps SIGPIPE ignored for its bots' pipes: a bot that closes its stdin, or exits, after
/// READY is that seat's fault, and arena finishes the game.
#[test]
fn a_bot_that_closes_its_stdin_or_exits_does_not_end_arena() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("closer"),
        "import os, sys, time\nprint('READY', flush=True)\nos.close(0)\ntime.sleep(1)\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("quitter"), "print('READY', flush=True)\n").expect("write");
    let replay = dir.path().join("game.json");
    let output = Command::new(ARENA)
        .current_dir(dir.path())
        .args([
            "play",
            "langwars2",
            "--bot",
            "python3 closer",
            "--bot",
            "python3 quitter",
            "--bot",
            "random",
            "--bot",
            "random",
            "--seed",
            "1",
            "--sandbox",
            "none",
            "--replay",
            replay.to_str().expect("utf-8"),
        ])
        .output()
        .expect("arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{:?} {stderr}", output.status);
    let table = stdout(&output);
    assert!(table.contains("winner: seat"), "{table}");
    assert!(replay.exists());
    let faulted = table
        .lines()
        .filter(|line| line.starts_with("fault: seat 0") || line.starts_with("fault: seat 1"))
        .count();
    assert_eq!(faulted, 2, "{table}");
}

/// Negative numbers reach the option's own parser, which says what it takes (not clap's tip to
/// write `-- -1`).
#[test]
fn negative_numbers_get_what_the_option_takes() {
    for (args, says) in [
        (
            &["tournament", "langwars2", "--jobs", "-1"][..],
            "--jobs takes a whole number of games at once, 1 or more",
        ),
        (
            &["tournament", "langwars2", "--time-scale", "-1"],
            "finite number above 0",
        ),
        (
            &["play", "langwars2", "--bot", "random", "--time-scale", "-1"],
            "finite number above 0",
        ),
        (
            &["play", "langwars2", "--bot", "random", "--grace", "-5"],
            "whole number of milliseconds, 0 or more",
        ),
        (
            &["tournament", "langwars2", "--bank", "-5"],
            "whole number of milliseconds, 0 or more",
        ),
        (
            &["tournament", "langwars2", "--live", "-1"],
            "number of seconds, 0 or more",
        ),
    ] {
        let output = arena(args);
        assert!(!output.status.success(), "{args:?} accepted");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains(says), "{args:?}: {error}");
        assert!(!error.contains("-- -"), "{args:?}: {error}");
    }
}

/// A `--bot` that names a missing file says so (with a built-in bot when one is close); a file of
/// a language arena does not know is an error before any game, listing the languages it knows.
#[test]
fn missing_files_and_unknown_languages_are_said_before_any_game() {
    let dir = tempfile::tempdir().expect("temp dir");
    let play = |bot: &str| {
        Command::new(ARENA)
            .current_dir(dir.path())
            .args([
                "play",
                "langwars2",
                "--bot",
                bot,
                "--bot",
                "random",
                "--bot",
                "random",
                "--bot",
                "random",
                "--sandbox",
                "none",
                "--seed",
                "1",
            ])
            .output()
            .expect("arena runs")
    };
    for (bot, says, not) in [
        ("nosuch.py", "no such file: nosuch.py", "closest built-in"),
        (
            "./sub/nosuch",
            "no such file: ./sub/nosuch",
            "closest built-in",
        ),
        (
            "randon.py",
            "no such file: randon.py; or the built-in bot random",
            "\n\n",
        ),
    ] {
        let output = play(bot);
        assert_eq!(output.status.code(), Some(2), "{bot}");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains(says), "{bot}: {error}");
        assert!(!error.contains(not), "{bot}: {error}");
    }
    for file in ["bot.d", "bot.dart", "bot.swift", "bot.vb"] {
        std::fs::write(dir.path().join(file), "// a bot\n").expect("write");
        let output = play(file);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(stdout(&output).is_empty(), "{file}: a game was played");
        let error = String::from_utf8_lossy(&output.stderr);
        let extension = file.split_once('.').expect("extension").1;
        assert!(
            error.contains(&format!(
                "{file}: arena does not know the language of .{extension} files"
            )),
            "{file}: {error}"
        );
        for known in [
            "python3 (.py .py3)",
            "cpp (.cpp",
            "java (.java)",
            "arena languages",
        ] {
            assert!(error.contains(known), "{file}: {error}");
        }
    }
}

/// A tournament says when `--games` was rounded up to whole rounds, and a wrong league is refused
/// before the output folder is made.
#[test]
fn tournaments_say_what_they_round_and_refuse_before_making_anything() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bots = [
        "--bot", "random", "--bot", "greedy", "--bot", "spread", "--bot", "focus",
    ];
    let out = dir.path().join("rounded");
    let mut args = vec!["tournament", "langwars2", "--games", "2", "--jobs", "1"];
    args.extend(bots);
    args.extend(["--out", out.to_str().expect("utf-8 path")]);
    let output = arena(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("--games 2: 4 games, whole rounds") && said.contains("4 games (1 round)"),
        "{said}"
    );

    let wrong = dir.path().join("wrong-league");
    let mut args = vec!["tournament", "langwars2", "--league", "platinum"];
    args.extend(bots);
    args.extend(["--out", wrong.to_str().expect("utf-8 path")]);
    let output = arena(&args);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("has no leagues (got `platinum`)"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !wrong.exists(),
        "nothing is made for a run that cannot start"
    );
}

/// `arena play --replay`: a file, a folder (the default name in it; one ending in `/` is made), or
/// `none` (nothing written, and the game not recorded).
#[test]
fn play_writes_the_replay_where_asked_or_not_at_all() {
    let dir = tempfile::tempdir().expect("temp dir");
    let play = |replay: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args([
                "play",
                "coup",
                "--bot",
                "calculator",
                "--bot",
                "lawyer",
                "--seed",
                "4",
                "--replay",
                replay,
            ])
            .current_dir(dir.path())
            .output()
            .expect("arena runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let said = play("none");
    assert!(
        said.contains("replay: not written (--replay none)"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("folder").count(),
        0,
        "nothing written"
    );
    play("games/");
    assert!(dir.path().join("games/coup-4.replay.json").is_file());
    play("games");
    assert!(dir.path().join("games/coup-4.replay.json").is_file());
    play("mine.json");
    assert!(dir.path().join("mine.json").is_file());
}

/// `--show-lost` lists lost games of different seeds (the seat orders of one seed are one deal).
#[test]
fn show_lost_lists_one_game_per_seed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t");
    let output = arena(&[
        "tournament",
        "langwars2",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--bot",
        "spread",
        "--bot",
        "focus",
        "--games",
        "40",
        "--jobs",
        "1",
        "--show-lost",
        "random",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    assert!(output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    let seeds: Vec<&str> = said
        .lines()
        .filter(|line| line.starts_with("random lost game"))
        .filter_map(|line| line.split("(seed ").nth(1))
        .collect();
    assert_eq!(seeds.len(), 3, "{said}");
    let distinct: std::collections::HashSet<&&str> = seeds.iter().collect();
    assert_eq!(distinct.len(), seeds.len(), "one game per seed: {said}");
}

/// A contest server others can reach does not start with the examples' tokens (anyone who read
/// them knows them) nor with short ones, and says how to make good ones; `arena token` makes one.
#[test]
fn a_reachable_contest_server_refuses_example_and_short_tokens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/contest/spring2021-ladder.toml");
    let contest = dir.path().join("contest.toml");
    std::fs::copy(&example, &contest).expect("the example");
    let contest = contest.to_string_lossy().into_owned();
    let refused = arena(&["host", &contest, "--listen", "0.0.0.0:0"]);
    assert!(!refused.status.success(), "it must not serve");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("the token of organiser is an example's") && said.contains("arena token"),
        "{said}"
    );
    assert!(
        !dir.path().join("contest.db").exists(),
        "refused before anything is made"
    );
    let token = arena(&["token"]);
    assert!(token.status.success());
    let token = stdout(&token);
    let token = token.trim();
    assert_eq!(token.len(), 64);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    assert_ne!(
        stdout(&arena(&["token"])).trim(),
        token,
        "a new one each time"
    );
}

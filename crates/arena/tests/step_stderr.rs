//! A process bot's stderr is kept per answer: each step of the replay carries what the bot wrote
//! for it (also what it wrote just after its answer line), and a fault shows the faulting answer's
//! stderr.

use std::process::Command;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// A Lang Wars 2 bot that writes `turn N` to stderr before its N-th answer and `after N` after it;
/// with `crash K` it writes `turn K` and `dying at K` at its K-th turn and exits without answering.
const BOT: &str = r#"import sys
crash = int(sys.argv[2]) if len(sys.argv) > 2 else 0
def numbers():
    return [int(w) for w in sys.stdin.readline().split()]
print("READY", flush=True)
turns, players, targets = numbers()
numbers()
for n in range(1, turns + 1):
    header = sys.stdin.readline().split()
    if not header:
        break
    turn = int(header[0])
    for _ in range(targets + 1 + turn % 2):
        sys.stdin.readline()
    sys.stderr.write("turn %d\n" % n)
    sys.stderr.flush()
    if n == crash:
        sys.stderr.write("dying at %d\n" % n)
        sys.stderr.flush()
        sys.exit(1)
    print(" ".join(["1"] * (5 if turn % 2 == 1 else 2)), flush=True)
    sys.stderr.write("after %d\n" % n)
    sys.stderr.flush()
"#;

/// Plays one langwars2 game of the bot (with `args`) against three built-in bots; the replay and
/// what arena printed.
fn play(args: &str) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("bot.py");
    std::fs::write(&script, BOT).expect("the bot");
    let replay = dir.path().join("game.json");
    let output = Command::new(ARENA)
        .args(["play", "langwars2", "--bot"])
        .arg(format!("python3 {} {args}", script.display()))
        .args(["--bot", "greedy", "--bot", "random", "--bot", "focus"])
        .args(["--seed", "4", "--sandbox", "none", "--time-scale", "20"])
        .arg("--replay")
        .arg(&replay)
        .output()
        .expect("arena runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{printed}");
    let record =
        serde_json::from_str(&std::fs::read_to_string(&replay).expect("replay")).expect("JSON");
    (record, printed)
}

/// The steps of seat 0, in order.
fn own_steps(record: &serde_json::Value) -> Vec<&serde_json::Value> {
    record["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["player"] == 0)
        .collect()
}

#[test]
fn each_answer_carries_the_stderr_written_for_it() {
    let (record, _) = play("");
    let steps = own_steps(&record);
    assert!(steps.len() > 3, "{record}");
    let last = steps.len();
    for (index, step) in steps.iter().enumerate() {
        let n = index + 1;
        let stderr = step["stderr"].as_str().unwrap_or_default();
        // `after N`, written after the answer line, is with its answer when it is there by the
        // bot's next ask (arena does not wait for it), else it opens the next answer's text.
        let before = if n > 1 && !stderr.starts_with("turn") {
            format!("after {}\n", n - 1)
        } else {
            String::new()
        };
        assert!(
            stderr == format!("{before}turn {n}\nafter {n}\n")
                || stderr == format!("{before}turn {n}\n"),
            "step {n}: {step}"
        );
    }
    // What came after the last answer is the player's own text; nothing is kept twice.
    let all: String = steps
        .iter()
        .map(|s| s["stderr"].as_str().unwrap_or_default())
        .chain(record["players"][0]["stderr"].as_str())
        .collect();
    let expected: String = (1..=last)
        .map(|n| format!("turn {n}\nafter {n}\n"))
        .collect();
    assert_eq!(all, expected);
    // The whole of a seat's stderr, as arena reads it and as its documentation tells users to
    // read it with jq.
    assert_eq!(arena_core::record::seat_stderr(&record, 0), expected);
    if let Ok(jq) = Command::new("jq")
        .arg("-r")
        .arg(r#"([.steps[] | select(.player == 0) | .stderr // ""] | add // "") + (.players[0].stderr // "")"#)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write as _;
        let mut jq = jq;
        jq.stdin
            .take()
            .expect("stdin")
            .write_all(record.to_string().as_bytes())
            .expect("jq reads");
        let out = jq.wait_with_output().expect("jq ends");
        assert!(out.status.success());
        // jq -r ends its output with a newline of its own.
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{expected}\n"));
    }
    // Built-in bots write nothing: their steps have no stderr field.
    assert!(
        record["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .filter(|s| s["player"] != 0)
            .all(|s| s.get("stderr").is_none())
    );
}

#[test]
fn a_fault_shows_the_stderr_of_its_answer() {
    let (record, printed) = play("crash 3");
    let steps = own_steps(&record);
    assert_eq!(steps.len(), 3, "{record}");
    assert!(
        steps[1]["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("turn 2\n")),
        "{record}"
    );
    assert!(printed.contains("at its answer 3"), "{printed}");
    assert!(
        printed.contains("its stderr at that answer (last lines):"),
        "{printed}"
    );
    let shown = &printed[printed.find("its stderr at that answer").expect("shown")..];
    assert!(
        shown.contains("turn 3") && shown.contains("dying at 3"),
        "{printed}"
    );
    assert!(
        !shown.contains("turn 2"),
        "only the faulting answer's: {printed}"
    );
}

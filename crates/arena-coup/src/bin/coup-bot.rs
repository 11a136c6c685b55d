//! `coup-bot NAME HISTORY OPP_COINS MY_COINS CARDS LEGAL...`: a built-in bot as an external program on
//! the arbiter's protocol (what `arena bot coup NAME ...` does), so the rules crate's tests can call
//! the built-in bots as processes without the CLI.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, history, rest @ ..] = args.as_slice() else {
        eprintln!("usage: coup-bot NAME HISTORY OPP_COINS MY_COINS CARDS LEGAL...");
        std::process::exit(2);
    };
    if let Err(e) = answer(name, history, rest) {
        eprintln!("coup-bot {name}: {e}");
        std::process::exit(1);
    }
}

fn answer(name: &str, history: &str, args: &[String]) -> Result<(), String> {
    let text = std::fs::read_to_string(history)
        .map_err(|e| format!("cannot read the history file {history}: {e}"))?;
    let (append, print) =
        arena_game::call_answer(&arena_coup::catalog::catalog(), name, text, args)?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(print.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| format!("cannot print the kept cards: {e}"))?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(history)
        .map_err(|e| format!("cannot open the history file {history}: {e}"))?;
    file.write_all(append.as_bytes())
        .map_err(|e| format!("cannot append to the history file: {e}"))
}

//! `coup-bot NAME HISTORY OPP_COINS MY_COINS CARDS LEGAL...`: a built-in bot as an external program on
//! the arbiter's protocol (the same as `arena bot coup NAME ...`), so the process path can be tested
//! with the built-in bots without the CLI.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, rest)) = args.split_first() else {
        eprintln!("usage: coup-bot NAME HISTORY OPP_COINS MY_COINS CARDS LEGAL...");
        std::process::exit(2);
    };
    let bots = arena_coup::bots::all();
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = arena_coup::entry::bot_main(&bots, name, rest, &mut stdout) {
        eprintln!("coup-bot {name}: {e}");
        std::process::exit(1);
    }
}

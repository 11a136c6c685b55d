//! The `arena` command: thin glue over the game registry (the arena-games crate; `games.rs` here
//! looks games up), `cli.rs` for the command line, `dispatch.rs` for what each command runs.

mod bench;
mod bots;
mod cli;
mod contest;
mod dispatch;
mod games;
mod options;
mod output;
mod play;
mod report;
mod runtime;
mod tournament;
mod tournament_file;
mod viewer;

use std::process::ExitCode;

use clap::FromArgMatches;

fn main() -> ExitCode {
    // A resident sandbox's helper is this same program (see arena_core::sandbox::Resident).
    arena_core::sandbox::run_helper_if_asked();
    // SIGPIPE stays ignored (Rust's default): arena writes to bots' pipes, and a bot that exits
    // must be an error of that bot, not the end of arena. A closed stdout is handled below.
    let matches = cli::command().get_matches();
    let args = match cli::Cli::from_arg_matches(&matches) {
        Ok(args) => args,
        Err(error) => error.exit(),
    };
    match dispatch::run(args, &matches) {
        Ok(code) => code,
        // `arena list | head -1`: the reader has what it wanted; nothing to say.
        Err(error) if error.downcast_ref::<output::StdoutClosed>().is_some() => ExitCode::from(141),
        Err(error) => {
            eprintln!("arena: {}", error_text(&error));
            ExitCode::from(2)
        }
    }
}

/// The error with its causes, each said once: many errors already quote their source in their
/// own message (`/x.json: No such file or directory`), and `{:#}` would repeat it.
fn error_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

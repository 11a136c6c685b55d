//! The `arena` command: thin glue over the game crates (see `games.rs` for the registry).

mod bots;
mod cli;
mod games;
mod report;
mod tournament;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("arena: {error:#}");
            ExitCode::from(2)
        }
    }
}

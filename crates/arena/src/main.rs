//! The `arena` command: thin glue over the game crates (see `games.rs` for the registry).

mod bots;
mod cli;
mod games;
mod host;
mod report;
mod tournament;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // A resident sandbox's helper is this same program (see arena_core::sandbox::Resident).
    arena_core::sandbox::run_helper_if_asked();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("arena: {error:#}");
            ExitCode::from(2)
        }
    }
}

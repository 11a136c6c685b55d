//! The registered games (arena-games, the one place where games are registered) as the commands
//! use them: a game by its id (with Coup's options, or a tournament plan's), and the commands that describe or
//! check the games (`arena list`, `arena conformance`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use arena_core::registry::GameEntry;

use crate::options::{CoupOptions, coup_config_from_env};
use crate::output::print_out;

/// Every registered game (the registry is the arena-games crate).
pub use arena_games::all;

/// What the replay viewer draws: every registered game with its drawing script.
pub fn viewer_games() -> arena_viewer::ViewerGames {
    arena_viewer::ViewerGames::new(all().iter().map(|game| (game.id(), game.viewer_script())))
}

/// The game `id`, with Coup's options applied (an error for other games, where they mean nothing).
pub fn find_game_with(id: &str, coup: &CoupOptions) -> Result<Box<dyn GameEntry>> {
    if id != "coup" {
        if coup.given() {
            bail!(
                "--deck, --no-shuffle, --call-limit-ms and --strict-moves are Coup options; {id} has none"
            );
        }
        return find_game(id);
    }
    coup_game(coup_config_from_env()?, coup)
}

/// The game a tournament's plan was made for, with the game options kept in it (and not the
/// environment's): resume and rebuilt replays play exactly its games.
pub fn find_game_of_plan(plan: &arena_tournament::Plan) -> Result<Box<dyn GameEntry>> {
    let options: CoupOptions = match &plan.settings.game_options {
        Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
            anyhow!("the tournament's game options cannot be read ({e}): is it from another arena?")
        })?,
        None => CoupOptions::default(),
    };
    if plan.game != "coup" {
        return find_game_with(&plan.game, &options);
    }
    coup_game(arena_coup::CoupConfig::default(), &options)
}

fn coup_game(mut config: arena_coup::CoupConfig, coup: &CoupOptions) -> Result<Box<dyn GameEntry>> {
    if let Some(deck) = &coup.deck {
        config.deck = Some(deck.clone());
    }
    config.no_shuffle |= coup.no_shuffle;
    config.strict_moves |= coup.strict_moves;
    if let Some(limit) = coup.call_limit_ms {
        config.time_limit_ms = limit;
    }
    config
        .validate()
        .map_err(|e| anyhow!("bad Coup options: {e}"))?;
    Ok(arena_games::coup(config))
}

pub fn find_game(id: &str) -> Result<Box<dyn GameEntry>> {
    let mut all = all();
    match all.iter().position(|game| game.id() == id) {
        Some(index) => Ok(all.swap_remove(index)),
        None => {
            let known: Vec<&str> = all.iter().map(|g| g.id()).collect();
            bail!("unknown game `{id}`; the games are: {}", known.join(", "))
        }
    }
}

pub fn list() -> Result<ExitCode> {
    use std::fmt::Write as _;
    let mut out = String::new();
    for game in all() {
        writeln!(
            out,
            "{} ({} players): {}",
            game.id(),
            game.players(),
            game.about()
        )?;
        if let Some((default, others)) = game.variants().split_first() {
            writeln!(out, "  leagues: {default} (default) {}", others.join(" "))?;
        }
        for (name, about) in game.bots() {
            // A built-in that searches is held to the time limits as a process is.
            let timed = if game.builtin_thinks(name) {
                "(timed) "
            } else {
                ""
            };
            writeln!(out, "  builtin:{name:<12} {timed}{about}")?;
        }
    }
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

pub fn conformance(game: &str, files: &[PathBuf]) -> Result<ExitCode> {
    let game = find_game(game)?;
    let (mut total, mut conform) = (0usize, 0usize);
    for file in files {
        let cases = game.conformance(file).map_err(|e| anyhow!(e))?;
        for case in cases {
            total += 1;
            match case.difference {
                None => conform += 1,
                Some(difference) => println!("{}: {}: {difference}", file.display(), case.label),
            }
        }
    }
    println!("conformance: {conform}/{total} games conform");
    Ok(if conform == total && total > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

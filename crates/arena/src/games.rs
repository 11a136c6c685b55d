//! The registered games (arena-games, the one place where games are registered) as the commands
//! use them: a game by its id (with its options, or a tournament plan's), and the commands that describe or
//! check the games (`arena list`, `arena conformance`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use arena_core::error::GameError;
use arena_core::options::GameOptions;
use arena_core::registry::{GameEntry, with_options};

use crate::output::print_out;

/// Every registered game (the registry is the arena-games crate).
pub use arena_games::all;

/// What the replay viewer draws: every registered game with its drawing script.
pub fn viewer_games() -> arena_viewer::ViewerGames {
    arena_viewer::ViewerGames::new(all().iter().map(|game| (game.id(), game.viewer_script())))
}

/// The game `id` playing with the options `given` (by the command line or a tournament file), and
/// with those that the game reads from environment variables when they are not given (Coup's
/// `COUP_DECK`, as the reference arbiter). An option the game does not have is refused.
pub fn find_game_with(id: &str, given: &GameOptions) -> Result<Box<dyn GameEntry>> {
    let game = find_game(id)?;
    let mut options = GameOptions::default();
    // (option, variable) of the options the environment set, to name the variable when the
    // game refuses its value.
    let mut from_env = Vec::new();
    for option in game.options() {
        let Some(env) = option.env else { continue };
        if given.get(option.name).is_some() {
            continue;
        }
        if let Ok(text) = std::env::var(env)
            && let Some(value) = option
                .from_env(&text)
                .map_err(|e| anyhow!("{env}: {e} (it sets --{} of {id})", option.flag()))?
        {
            options.set(option.name, value);
            from_env.push((option.flag(), env));
        }
    }
    for (name, value) in given.iter() {
        options.set(name, value.clone());
    }
    with_options(game, options).map_err(|error| {
        let variable = match &error {
            GameError::OptionValue { option, .. } => from_env
                .iter()
                .find(|(flag, _)| flag == option)
                .map(|(_, env)| *env),
            _ => None,
        };
        match variable {
            Some(env) => anyhow!("{error} (set by the variable {env})"),
            None => error.into(),
        }
    })
}

/// The game a tournament's plan was made for, with the game options kept in it (and not the
/// environment's): resume and rebuilt replays play exactly its games.
pub fn find_game_of_plan(plan: &arena_tournament::Plan) -> Result<Box<dyn GameEntry>> {
    let game = find_game(&plan.game)?;
    with_options(game, plan.settings.game_options.clone())
        .with_context(|| format!("the game options of this tournament ({})", plan.game))
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
        if !game.options().is_empty() {
            let options: Vec<String> = game
                .options()
                .iter()
                .map(|option| match option.kind {
                    arena_core::options::OptionKind::Flag => format!("--{}", option.flag()),
                    arena_core::options::OptionKind::Number => format!("--{} N", option.flag()),
                    arena_core::options::OptionKind::Text => format!("--{} TEXT", option.flag()),
                })
                .collect();
            writeln!(out, "  options: {}", options.join(", "))?;
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
        let cases = game.conformance(file)?;
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

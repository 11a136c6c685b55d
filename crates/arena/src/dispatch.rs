//! Runs the command the command line names: one arm per subcommand, each handing its arguments to
//! the module that does it.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use arena_core::options::GameOptions;
use arena_core::registry::BenchLength;

use crate::cli::{Cli, Command};
use crate::viewer::ServeNetwork;

/// Runs the command; `matches` tells which options were given on the command line (a tournament
/// file's values give way to them).
pub fn run(cli: Cli, matches: &clap::ArgMatches) -> Result<ExitCode> {
    match cli.command {
        Command::List => crate::games::list(),
        Command::Protocol { game } => {
            let entry = crate::games::find_game(&game)?;
            crate::output::print_out(entry.rules())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Languages => crate::bots::languages(),
        Command::New { game, lang, dir } => crate::bots::new_bot(&game, &lang, dir),
        Command::Play(mut args) => {
            args.game_options = game_options_of(matches, "play");
            crate::play::play(*args)
        }
        Command::Conformance { game, files } => crate::games::conformance(&game, &files),
        Command::Bench {
            game,
            seconds,
            games,
            league,
            replays,
        } => {
            let length = games.map_or(BenchLength::Seconds(seconds), BenchLength::Games);
            if replays {
                crate::bench::bench_replays(&game, length, league.as_deref())
            } else {
                crate::bench::bench(&game, length, league.as_deref())
            }
        }
        Command::Bot { game, name, args } => crate::bots::bot(&game, &name, &args),
        Command::Tournament(mut args) => {
            args.game_options = game_options_of(matches, "tournament");
            if let Some(matches) = matches.subcommand_matches("tournament") {
                crate::tournament_file::apply(&mut args, matches)?;
            }
            crate::tournament::tournament(*args)
        }
        Command::Serve {
            dirs,
            port,
            bind,
            allow_hosts,
            request_timeout,
            idle_timeout,
        } => crate::viewer::serve(
            dirs,
            port,
            ServeNetwork {
                bind,
                allow_hosts,
                request_timeout: Duration::from_secs(request_timeout.max(1)),
                idle_timeout: Duration::from_secs(idle_timeout.max(1)),
            },
        ),
        Command::View { file, port } => crate::viewer::view(file, port),
        Command::Export { file, output } => crate::viewer::export(&file, &output),
        Command::Replay {
            dir,
            index,
            output,
            view,
        } => crate::viewer::replay(&dir, index, output, view),
        Command::Koth(mut args) => {
            args.game_options = game_options_of(matches, "koth");
            if let Some(matches) = matches.subcommand_matches("koth")
                && let Some(name) = crate::cli::KOTH_HIDDEN.iter().find(|&&name| {
                    matches.value_source(name) == Some(clap::parser::ValueSource::CommandLine)
                })
            {
                anyhow::bail!(
                    "arena koth plays Coup's King of the Hill schedule and takes no --{name}: use \
                     `arena tournament` for other schedules and the SPRT"
                );
            }
            args.schedule = crate::tournament::ScheduleArg::Koth;
            // Each entrant's one folder for the whole KotH, as the original kept `NAME/`.
            args.kept_folders = true;
            // The original ran 10 rounds.
            if args.games.is_none() && args.seeds.is_none() && args.resume.is_none() {
                args.seeds = Some(10);
            }
            crate::tournament::tournament(*args)
        }
        Command::Host(args) => crate::contest::host(*args),
        Command::Token => crate::contest::token(),
        Command::Submit(args) => crate::contest::submit(args),
        Command::Worker(args) => crate::contest::worker(*args),
    }
}

/// The game options the command line of `subcommand` gave.
fn game_options_of(matches: &clap::ArgMatches, subcommand: &str) -> GameOptions {
    matches
        .subcommand_matches(subcommand)
        .map(crate::options::game_options_given)
        .unwrap_or_default()
}

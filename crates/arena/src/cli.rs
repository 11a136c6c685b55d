//! The command line's definition: [`Cli`], its [`Command`]s and [`command`]. Each command's own
//! options are beside its code (`play.rs`, `tournament.rs`, `host.rs`), the groups they share in
//! `options.rs`; `dispatch.rs` runs them.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "arena",
    version,
    about = "Referee AI-programming contests exactly as the originals did"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the games, their leagues and built-in bots.
    List,
    /// List the languages of single-file bots, their toolchains' versions (or the Debian package that
    /// provides a missing one) and the 2014 interpreter names.
    Languages,
    /// Print GAME's rules and protocol: what a bot reads and writes, its limits, and where arena
    /// departs from the original documents (the same page as docs/protocol-*.md).
    Protocol {
        /// The game (see `arena list`).
        game: String,
    },
    /// Write a starter bot for GAME in LANG (python3, cpp, java, javascript; typescript for
    /// spring2021) into DIR (default GAME-LANG).
    New {
        /// The game (see `arena list`).
        game: String,
        /// The language of the starter.
        #[arg(long)]
        lang: String,
        /// Where to write it.
        dir: Option<PathBuf>,
    },
    /// Play one game and print the result table; the replay is written as JSON.
    Play(Box<crate::play::PlayArgs>),
    /// Check the referee against recorded official transcripts (exit status 1 if any game differs).
    Conformance {
        /// The game whose referee is checked.
        game: String,
        /// Transcript files (JSON lines, as in crates/arena-*/tests/data/*.jsonl).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// In-process games of built-in random bots on one core; the last line is `GAME: X games/s`.
    Bench {
        /// The game to measure.
        game: String,
        /// How long to play.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Play exactly N games instead (seeds 0 to N-1, no warm-up): the same work every run, to
        /// count its instructions or CPU time.
        #[arg(long, value_name = "N", conflicts_with = "seconds")]
        games: Option<u64>,
        /// League or variant, for games that have them.
        #[arg(long)]
        league: Option<String>,
        /// Also measure what a replay costs per game: recording, encoding, compressing.
        #[arg(long)]
        replays: bool,
    },
    /// Many games on all cores: seat rotation, paired seeds, a crash-safe journal, statistics, a report.
    Tournament(Box<crate::tournament::TournamentArgs>),
    /// Coup's King of the Hill as the original ran it: R rounds (10 by default) of every ordered pair,
    /// 1 point per win; a tournament with `--schedule koth` (journal, --resume, report, --jobs).
    Koth(Box<crate::tournament::TournamentArgs>),
    /// A local web server: tournaments, leaderboards, and every game in the replay viewer.
    Serve {
        /// Directories to serve (tournament directories, or directories holding them); default: `.`.
        #[arg(long = "dir")]
        dirs: Vec<PathBuf>,
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Listen on ADDR instead of 127.0.0.1, to serve a network (0.0.0.0: every address of
        /// this machine). There is no authentication: anyone who reaches it sees every game,
        /// stderr included.
        #[arg(long, value_name = "ADDR")]
        bind: Option<std::net::IpAddr>,
        /// A host name the server answers to besides 127.0.0.1, localhost, [::1] and the bound
        /// address (requests naming another host are refused: DNS rebinding); repeatable.
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_hosts: Vec<String>,
        /// Seconds a request may take before it is answered 408.
        #[arg(long, value_name = "S", default_value_t = arena_viewer::REQUEST_TIMEOUT.as_secs())]
        request_timeout: u64,
        /// Seconds a connection may stay silent (before or between requests) before it is closed.
        #[arg(long, value_name = "S", default_value_t = arena_viewer::IDLE_TIMEOUT.as_secs())]
        idle_timeout: u64,
    },
    /// Open one replay file (JSON or .json.gz) in the viewer.
    View {
        /// The replay (.json or .json.gz).
        file: PathBuf,
        /// Port on 127.0.0.1 (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// One game of a tournament as a replay file: its stored replay, or for a game between
    /// built-in bots (not stored by default), the game played again from its seed and checked
    /// against the journal.
    Replay {
        /// The tournament directory.
        dir: PathBuf,
        /// The game's index (the `#` column, `index` in results.jsonl).
        index: u64,
        /// Where to write the replay JSON (default: DIRNAME-INDEX.replay.json here).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Open it in the viewer too.
        #[arg(long)]
        view: bool,
    },
    /// Write one self-contained HTML file that replays the game from disk, with no server.
    Export {
        /// The replay (.json or .json.gz).
        file: PathBuf,
        /// The HTML file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Host a contest on this machine: submissions, a live ladder with leagues and bosses, web
    /// pages and a JSON API (see docs/contest.md).
    Host(Box<crate::contest::HostArgs>),
    /// Print a new secret token for a person of a contest file (`token = "..."`).
    Token,
    /// Upload a bot to a contest server (`arena host`): a source file, a .zip or a folder.
    Submit(crate::contest::SubmitArgs),
    /// Play a contest's games on this machine, claimed from its PostgreSQL database (any number
    /// of workers on any number of machines; see docs/contest.md).
    Worker(Box<crate::contest::WorkerArgs>),
    /// Run a built-in bot as an external program speaking the game's real protocol.
    Bot {
        /// The game whose protocol the bot speaks.
        game: String,
        /// The built-in bot (see `arena list`).
        name: String,
        /// Passed to the bot (Lang Wars, Spring 2021: an optional seed; Coup: the arbiter's arguments).
        #[arg(allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The tournament options `arena koth` does not take: its schedule is Coup's KotH.
pub const KOTH_HIDDEN: [&str; 7] = [
    "schedule",
    "gauntlet",
    "sprt",
    "alpha",
    "beta",
    "permutations",
    "file",
];

/// The command line's definition: [`Cli`] with every option's value free to start with `-`
/// when it is a number (`--jobs -1`), so that its own parser says what the option accepts
/// (rather than clap's tip to write `-- -1`).
pub fn command() -> clap::Command {
    fn numbers_allowed(command: clap::Command) -> clap::Command {
        let names: Vec<String> = command
            .get_subcommands()
            .map(|sub| sub.get_name().to_string())
            .collect();
        let mut command = command.mut_args(|arg| {
            if arg.get_action().takes_values() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        });
        for name in names {
            command = command.mut_subcommand(name, numbers_allowed);
        }
        command
    }
    let command = <Cli as clap::CommandFactory>::command()
        .mut_subcommand("play", crate::options::with_game_options)
        .mut_subcommand("tournament", crate::options::with_game_options)
        .mut_subcommand("koth", |koth| {
            // A KotH is a tournament of its own schedule: the options that choose another are
            // not shown (and refused, see `dispatch`).
            KOTH_HIDDEN
                .iter()
                .fold(crate::options::with_game_options(koth), |koth, &name| {
                    koth.mut_arg(name, |arg| arg.hide(true))
                })
        });
    numbers_allowed(command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every subcommand and every option or argument, all the way down, says what it does.
    #[test]
    fn every_command_and_option_has_help() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_hide_set() || id == "help" || id == "version" {
                    continue;
                }
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                if help.trim().is_empty() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                let name = format!("{path} {}", sub.get_name());
                let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
                if about.trim().is_empty() {
                    missing.push(name.clone());
                }
                walk(sub, &name, missing);
            }
        }
        // The command as users get it: with every game's own options added from the registry.
        let command = command();
        Cli::command().debug_assert();
        command.clone().debug_assert();
        let mut missing = Vec::new();
        walk(&command, "arena", &mut missing);
        assert!(missing.is_empty(), "no help: {missing:?}");
        // The walk sees the options of flattened groups too, and the games' own.
        let tournament = command.find_subcommand("tournament").expect("tournament");
        for id in ["clock", "bots_dir", "file", "kind", "deck"] {
            assert!(
                tournament.get_arguments().any(|a| a.get_id() == id),
                "{id} not walked"
            );
        }
    }
}

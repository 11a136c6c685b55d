//! The plan: everything that defines a tournament, written to `DIR/tournament.json` before the
//! first game and read back by `--resume`, `arena replay` and `arena serve`. Its `format` versions
//! the whole folder ([`crate::version::FOLDER_FORMAT`]).
//!
//! These are the plan's data; what is scheduled from them (`Plan::new`, `Plan::game`) is
//! arena-tournament's `schedule` module.

use std::path::PathBuf;

use arena_game::{ClockKind, GameOptions, TimePolicy};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Everything that defines a tournament. The schema refuses fields arena does not write; reading
/// stays lenient (older plans).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Plan {
    /// The tournament folder's format: this plan's, the journal's (`results.jsonl`) and the
    /// folder's layout. Readers refuse a newer one.
    #[schemars(range(min = 1))]
    pub format: u32,
    /// The arena that wrote the plan (absent in plans of arena 0.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<String>,
    /// The game's id, as `arena list` names it.
    #[schemars(regex(pattern = "^[a-z][a-z0-9]*$"))]
    pub game: String,
    /// League or variant (spring2021), when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Seats per game.
    #[schemars(range(min = 2))]
    pub players: usize,
    #[schemars(length(min = 2))]
    pub bots: Vec<BotPlan>,
    pub schedule: Schedule,
    pub seat_orders: SeatOrders,
    /// Rounds: seeds per group.
    #[schemars(range(min = 1))]
    pub rounds: u64,
    #[serde(with = "arena_game::seed::as_text")]
    #[schemars(with = "arena_game::seed::SeedText")]
    pub seed: u64,
    pub settings: RunSettings,
    /// Fixed groups (bot indices), or empty when groups are drawn at random every round.
    pub groups: Vec<Vec<usize>>,
    pub groups_per_round: usize,
    /// A sequential test of the first bot against the second that stops the tournament when it
    /// decides (kept in the plan so that a resumed run applies the same test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSettings>,
}

impl Plan {
    /// Games per seed group: the seat orders each group is played in.
    pub fn orders(&self) -> u64 {
        self.seat_orders.count(self.players)
    }

    pub fn total_games(&self) -> u64 {
        self.rounds * self.groups_per_round as u64 * self.orders()
    }
}

/// Which groups play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(deny_unknown_fields)]
pub enum Schedule {
    /// Every pair (2-player games) or groups covering the field (4-player games).
    RoundRobin,
    /// One bot against the field: every group contains it.
    Gauntlet { bot: usize },
    /// Coup's King of the Hill: rounds of every ordered pair (2-player games only).
    Koth,
}

impl std::fmt::Display for Schedule {
    /// The name `--schedule` takes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Schedule::RoundRobin => "round-robin",
            Schedule::Gauntlet { .. } => "gauntlet",
            Schedule::Koth => "koth",
        })
    }
}

/// The seat orders each group is played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SeatOrders {
    /// The group rotated through the seats (2 orders for 2 players, 4 for 4).
    Rotations,
    /// Every permutation of the seats (24 for 4 players).
    Permutations,
}

impl SeatOrders {
    /// How many orders a group of `players` is played in.
    pub fn count(self, players: usize) -> u64 {
        match self {
            SeatOrders::Rotations => players as u64,
            SeatOrders::Permutations => (1..=players as u64).product(),
        }
    }
}

/// One bot of the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BotPlan {
    pub name: String,
    /// `builtin:NAME` or the command line.
    pub spec: String,
    /// The folder the bot runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workdir: Option<PathBuf>,
    /// A submission (source file or folder) the bot is built from; `spec` and `workdir` are then
    /// filled in from its build before the games are played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
}

impl BotPlan {
    pub fn builtin(&self) -> Option<&str> {
        self.spec.strip_prefix("builtin:")
    }
}

/// How games are run (recorded so that a resumed run uses the same settings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RunSettings {
    /// How the games treat and judge their bots: what every game of the run is played with.
    #[serde(flatten)]
    pub rules: RunRules,
    /// Bytes of a bot's stderr kept per game.
    pub stderr_cap: usize,
    /// Keep a compressed replay of every game that has a process bot.
    pub replays: bool,
    /// Store the replays of games between built-in bots too (otherwise they are rebuilt from the
    /// seed when watched).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub builtin_replays: bool,
    /// The game's own options (Coup's deck and move check) the run played with, as the command
    /// line, a tournament file or the environment set them, so that a resumed run and a rebuilt
    /// replay play the same games. Not written when none was set.
    #[serde(default, skip_serializing_if = "GameOptions::is_empty")]
    pub game_options: GameOptions,
    /// Each process bot plays every game in its one working folder, kept from game to game
    /// ([`crate::layout::kept_folder`]) as Coup's original KotH kept `NAME/`, where entrants may
    /// keep state between games; a bot then never plays two games at once. Otherwise every game
    /// gets a fresh copy of the bot's folder.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kept_folders: bool,
}

/// How a run treats and judges its bots, whatever plays its games (`arena play`, a tournament and
/// its rebuilt replays, a contest, the start-up probe): arena-core makes every game's
/// `MatchOptions` from it. Kept in a tournament's plan, so that a resumed run plays the same way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunRules {
    /// Freeze idle process bots (SIGSTOP) while another one thinks.
    pub pause_idle: bool,
    /// Multiplies every time limit.
    #[schemars(range(min = 0.0))]
    pub time_scale: f64,
    /// How answer times are judged; `None`: the game's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_policy: Option<TimePolicy>,
    /// The clock answers are judged on (absent: wall).
    #[serde(default, skip_serializing_if = "ClockKind::is_wall")]
    pub clock: ClockKind,
}

impl Default for RunRules {
    fn default() -> Self {
        RunRules {
            pause_idle: true,
            time_scale: 1.0,
            time_policy: None,
            clock: ClockKind::Wall,
        }
    }
}

/// A sequential test's settings as the plan keeps them (arena-stats' `SprtConfig` is the test's
/// own value; the plan's file shape is this one).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SprtSettings {
    /// H0: the first bot is this much stronger (Elo).
    pub elo0: f64,
    /// H1: the first bot is this much stronger (Elo).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    pub beta: f64,
}

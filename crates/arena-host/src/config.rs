//! The contest file (`CONTEST.toml`): the game, its leagues and format, time options, workers,
//! the people and their tokens, upload limits. Unknown keys are errors, so a misspelt option is
//! never silently ignored.

use arena_core::options::GameOptions;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::HostError;

/// A contest as its organiser wrote it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Contest {
    /// Shown on the pages.
    pub name: String,
    /// The game id (`arena list`).
    pub game: String,
    pub format: Format,
    /// The seed every game seed and every matchmaking draw derives from (recorded with the games).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Games the host runs at once; default: one per core; 0: none (`arena worker` processes on
    /// this or other machines play them).
    #[serde(default)]
    pub workers: Option<usize>,
    /// Multiplies every time limit of the game (slow machines).
    #[serde(default = "one")]
    pub time_scale: f64,
    /// `strict`, `strikes`, `grace` or `bank`; default: the game's own.
    #[serde(default)]
    pub time_policy: Option<String>,
    /// Milliseconds of grace per answer (`grace`) or of time bank per game (`bank`).
    #[serde(default)]
    pub time_policy_ms: Option<u64>,
    /// The clock answers are judged on: `wall` (default) or `cpu`, as `--clock` (absent from
    /// the copy kept in the database when it is the default, so older workers still read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    /// The game's own options (`[options]`, as `arena list` names them: `deck`, `no-shuffle`), for
    /// every game of the contest; kept in the database's copy, so workers play with them too.
    #[serde(default, skip_serializing_if = "GameOptions::is_empty")]
    pub options: GameOptions,
    /// Whether anyone may register a name and receive a token (otherwise only the listed people).
    #[serde(default)]
    pub open_registration: bool,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub ladder: LadderOptions,
    #[serde(default)]
    pub qualifier: QualifierOptions,
    #[serde(default)]
    pub koth: KothOptions,
    /// Leagues, lowest first. A game without leagues has one implicit league.
    #[serde(default)]
    pub leagues: Vec<League>,
    #[serde(default)]
    pub contestants: Vec<Person>,
    #[serde(default)]
    pub organisers: Vec<Person>,
    /// Bots the organiser enters without an upload (`builtin:NAME`): house bots, sparring partners.
    #[serde(default)]
    pub bots: Vec<HouseBot>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// CodinGame's: continuous matchmaking, leagues with bosses.
    Ladder,
    /// The 2014 contests': random 4-player groups, 4-player Elo, a final in every seat order.
    Qualifier,
    /// Coup's King of the Hill: rounds of every ordered pair, rerun on a new submission.
    Koth,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Ladder => "ladder",
            Format::Qualifier => "qualifier",
            Format::Koth => "koth",
        }
    }
}

/// One league: its rules (the game's variant) and its boss.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct League {
    pub name: String,
    /// The game's variant played in this league (`wood2`, ...); default: the league's name when the
    /// game has such a variant, else the game's default.
    #[serde(default)]
    pub variant: Option<String>,
    /// `builtin:NAME`, or `NAME` of a house bot or of a contestant (their latest submission).
    /// A submission is promoted to the next league when it is rated above the boss (see
    /// [`LadderOptions::promotion_games`]). The top league needs none.
    #[serde(default)]
    pub boss: Option<String>,
}

/// A contestant or an organiser.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Person {
    pub name: String,
    /// The secret they sign in with (at least 16 characters). Only its SHA-256 is stored.
    pub token: String,
}

/// A bot entered by the organiser.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HouseBot {
    pub name: String,
    /// `builtin:NAME`, or `builtin:NAME@P`: NAME with a handicap of P % (each move replaced by the
    /// game's random bot's with that probability), for sparring partners of graded strength.
    pub bot: String,
    /// The league it plays in (default: the lowest).
    #[serde(default)]
    pub league: Option<String>,
}

/// What contestants may do: uploads, registrations, sign-ins.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Bytes of one upload (a source file or a zip).
    pub upload_bytes: u64,
    /// Uploads per contestant per hour.
    pub uploads_per_hour: u32,
    /// Entries (files and folders) in a zip.
    pub archive_entries: u32,
    /// Bytes of a zip's files once unpacked, all together.
    pub archive_bytes: u64,
    /// Largest ratio of unpacked to packed size of any entry (zip bombs compress by 1000×).
    pub archive_ratio: u32,
    /// Open registration: accounts made per hour from one address.
    pub registrations_per_address_per_hour: u32,
    /// Open registration: accounts made per hour from anywhere.
    pub registrations_per_hour: u32,
    /// Hours a sign-in on the pages lasts (the token itself does not expire; it is rotated).
    pub session_hours: u32,
    /// The request header that carries the client's address when the server is behind a proxy
    /// (`X-Forwarded-For`: its first address; `X-Real-IP`). Without it, the connection's address:
    /// behind a proxy every registration would then seem to come from the proxy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address_header: Option<String>,
    /// Scrimmage games one contestant may ask for in an hour (all requests together).
    pub scrimmage_games_per_hour: u32,
    /// Scrimmage games in one request.
    pub scrimmage_games_per_request: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            upload_bytes: 1 << 20,
            uploads_per_hour: 30,
            archive_entries: 1000,
            archive_bytes: 32 << 20,
            archive_ratio: 100,
            registrations_per_address_per_hour: 3,
            registrations_per_hour: 60,
            session_hours: 24 * 7,
            address_header: None,
            scrimmage_games_per_hour: 60,
            scrimmage_games_per_request: 20,
        }
    }
}

/// Matchmaking of the ladder.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LadderOptions {
    /// Games a new submission plays against random opponents of its league before it is matched
    /// by rating.
    pub placement_games: u32,
    /// After placement, opponents are drawn among this many submissions nearest in rating.
    pub window: u32,
    /// A submission is promoted once it has played this many games in its league and its rating
    /// (Weng-Lin μ) is above the boss's.
    pub promotion_games: u32,
    /// Games per submission and league after which it stops being scheduled (none: forever).
    pub max_games: Option<u32>,
    /// Games kept queued per live job (running games not counted), so that workers never wait
    /// for the scheduler.
    pub queue_per_worker: u32,
}

impl Default for LadderOptions {
    fn default() -> Self {
        LadderOptions {
            placement_games: 10,
            window: 6,
            promotion_games: 10,
            max_games: None,
            queue_per_worker: 2,
        }
    }
}

/// The 2014 qualifier: the organiser runs rounds (each puts every submission in a random group)
/// and then the final.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct QualifierOptions {
    /// Rounds the organiser's "run the qualifier" schedules (the page can ask for another number).
    pub rounds: u32,
    /// Finalists: the top N by Elo.
    pub final_top: u32,
    /// Seeds of the final; each is played by every group of finalists in every seat order.
    pub final_seeds: u32,
}

impl Default for QualifierOptions {
    fn default() -> Self {
        QualifierOptions {
            rounds: 10,
            final_top: 4,
            final_seeds: 1,
        }
    }
}

/// Coup's King of the Hill: every ordered pair of the current submissions, this many rounds;
/// a new submission's games are scheduled when it arrives.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct KothOptions {
    pub rounds: u32,
}

impl Default for KothOptions {
    fn default() -> Self {
        KothOptions { rounds: 10 }
    }
}

fn default_seed() -> u64 {
    1
}

fn one() -> f64 {
    1.0
}

/// What the contest needs to know of its game (given by the front end, which has the registry).
#[derive(Clone, Debug)]
pub struct GameFacts {
    pub id: String,
    pub players: usize,
    pub variants: Vec<String>,
    pub builtin_bots: Vec<String>,
}

impl Contest {
    /// Reads and checks a contest file.
    pub fn load(path: &Path) -> Result<Contest, HostError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            HostError::Config(format!(
                "cannot read the contest file {}: {e}",
                path.display()
            ))
        })?;
        Contest::parse(&text).map_err(|e| match e {
            HostError::Config(message) => {
                HostError::Config(format!("{}: {message}", path.display()))
            }
            other => other,
        })
    }

    /// How the contest's games treat and judge bots: its `time_scale`, `time_policy` (with
    /// `time_policy_ms`) and `clock`, checked by the parser `--time-scale`, `--time-policy` and
    /// `--clock` use; idle bots are always paused.
    pub fn run_rules(&self) -> Result<arena_core::runner::RunRules, HostError> {
        // `time_policy_ms` is the bank of `bank` and the grace of any other policy (which refuses
        // it unless it is `grace`).
        let (grace_ms, bank_ms) = match self.time_policy.as_deref() {
            Some("bank") => (None, self.time_policy_ms),
            _ => (self.time_policy_ms, None),
        };
        arena_core::runner::rules_from(&arena_core::runner::TimeSettings {
            pause_idle: true,
            time_scale: self.time_scale,
            time_policy: self.time_policy.as_deref(),
            grace_ms,
            bank_ms,
            clock: self.clock.as_deref(),
        })
        .map_err(|e| HostError::Config(format!("the time settings: {e}")))
    }

    pub fn parse(text: &str) -> Result<Contest, HostError> {
        toml::from_str(text).map_err(|e| HostError::Config(e.to_string()))
    }

    /// Checks the contest against its game; fills defaults that depend on it (the leagues).
    pub fn check(&mut self, game: &GameFacts) -> Result<(), HostError> {
        let bad = |message: String| Err(HostError::Config(message));
        if game.id != self.game {
            return bad(format!("the contest is for {}, not {}", self.game, game.id));
        }
        self.run_rules()?;
        if self.leagues.is_empty() {
            self.leagues.push(League {
                name: game
                    .variants
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "main".into()),
                variant: None,
                boss: None,
            });
        }
        for league in &mut self.leagues {
            if league.variant.is_none() && game.variants.contains(&league.name) {
                league.variant = Some(league.name.clone());
            }
            if let Some(variant) = &league.variant
                && !game.variants.contains(variant)
            {
                return bad(format!(
                    "league {}: {} has no variant `{variant}` (its variants: {})",
                    league.name,
                    game.id,
                    if game.variants.is_empty() {
                        "none".to_string()
                    } else {
                        game.variants.join(", ")
                    }
                ));
            }
        }
        let league_count = self.leagues.len();
        for (index, league) in self.leagues.iter().enumerate() {
            if let Some(boss) = &league.boss {
                if index + 1 == league_count {
                    return bad(format!(
                        "league {} is the top league: its boss would promote to nothing (remove it)",
                        league.name
                    ));
                }
                let known_person = self.contestants.iter().any(|p| &p.name == boss)
                    || self.bots.iter().any(|b| &b.name == boss);
                if let Some(name) = boss.strip_prefix("builtin:") {
                    if !known_builtin(game, name) {
                        return bad(format!(
                            "league {}: {} has no built-in bot `{name}` (built-in bots: {})",
                            league.name,
                            game.id,
                            game.builtin_bots.join(", ")
                        ));
                    }
                } else if !known_person {
                    return bad(format!(
                        "league {}: the boss `{boss}` is neither `builtin:NAME` nor a contestant or \
                         house bot of this file",
                        league.name
                    ));
                }
            } else if index + 1 < league_count && self.format == Format::Ladder {
                return bad(format!(
                    "league {} needs a boss: nobody could be promoted past it",
                    league.name
                ));
            }
        }
        let mut names: Vec<&str> = Vec::new();
        for person in self.contestants.iter().chain(&self.organisers) {
            if person.token.chars().count() < 16 {
                return bad(format!(
                    "the token of {} is shorter than 16 characters: tokens are passwords",
                    person.name
                ));
            }
            check_name(&person.name).map_err(|e| HostError::Config(e.to_string()))?;
            if let Some(other) = names.iter().find(|n| same_name(n, &person.name)) {
                return bad(format!(
                    "{} is listed twice (as {other}: names differing only in case or by \
                     look-alike letters are one name)",
                    person.name
                ));
            }
            names.push(&person.name);
        }
        for bot in &self.bots {
            check_name(&bot.name).map_err(|e| HostError::Config(e.to_string()))?;
            if let Some(other) = names.iter().find(|n| same_name(n, &bot.name)) {
                return bad(format!(
                    "{} is listed twice (as {other}: names differing only in case or by \
                     look-alike letters are one name)",
                    bot.name
                ));
            }
            names.push(&bot.name);
            let Some(builtin) = bot.bot.strip_prefix("builtin:") else {
                return bad(format!("house bot {}: give `builtin:NAME`", bot.name));
            };
            if !known_builtin(game, builtin) {
                return bad(format!(
                    "house bot {}: {} has no built-in bot `{builtin}` (built-in bots: {})",
                    bot.name,
                    game.id,
                    game.builtin_bots.join(", ")
                ));
            }
            if let Some(league) = &bot.league
                && !self.leagues.iter().any(|l| &l.name == league)
            {
                return bad(format!("house bot {}: no league `{league}`", bot.name));
            }
        }
        if self.format != Format::Ladder
            && (self.leagues.len() > 1 || self.leagues[0].boss.is_some())
        {
            return bad(format!(
                "leagues and bosses are for the ladder; a {} has one league (its variant may be set)",
                self.format.name()
            ));
        }
        if self.format == Format::Koth && game.players != 2 {
            return bad(format!(
                "koth plays ordered pairs: {} is a {}-player game (use qualifier or ladder)",
                game.id, game.players
            ));
        }
        if self.format == Format::Qualifier && (self.qualifier.final_top as usize) < game.players {
            return bad(format!(
                "qualifier.final_top must be at least {} (the players of a {} game)",
                game.players, game.id
            ));
        }
        Ok(())
    }

    /// Why the contest's tokens are not fit for a server others can reach, one line per person:
    /// a token from arena's examples (published, so anyone knows it) or shorter than
    /// [`SAFE_TOKEN_CHARS`]. `arena host` refuses to listen beyond the loopback with any.
    pub fn weak_tokens(&self) -> Vec<String> {
        self.contestants
            .iter()
            .chain(&self.organisers)
            .filter_map(|person| {
                if EXAMPLE_TOKENS.contains(&person.token.as_str())
                    || person.token.starts_with("change-me")
                {
                    Some(format!(
                        "the token of {} is an example's, published with arena",
                        person.name
                    ))
                } else if person.token.chars().count() < SAFE_TOKEN_CHARS {
                    Some(format!(
                        "the token of {} is shorter than {SAFE_TOKEN_CHARS} characters",
                        person.name
                    ))
                } else {
                    None
                }
            })
            .collect()
    }

    /// Index of the league called `name`.
    pub fn league_index(&self, name: &str) -> Option<usize> {
        self.leagues.iter().position(|l| l.name == name)
    }
}

/// Tokens of the contest files in `examples/`: anyone who read them knows them.
const EXAMPLE_TOKENS: &[&str] = &[
    "change-me-organiser-0000",
    "change-me-alice-00000000",
    "change-me-bob-0000000000",
];

/// The shortest token a server reachable by others accepts: 32 characters, 128 bits as hex
/// (`arena token` makes 64).
pub const SAFE_TOKEN_CHARS: usize = 32;

/// Whether two names are one (the same ignoring case and look-alike letters).
fn same_name(a: &str, b: &str) -> bool {
    crate::store::name_key(a) == crate::store::name_key(b)
}

/// A built-in bot of the game, possibly with a handicap (`planner@30`).
fn known_builtin(game: &GameFacts, name: &str) -> bool {
    match arena_core::registry::split_handicap(name) {
        Ok((base, handicap)) => {
            game.builtin_bots.iter().any(|b| b == base)
                && (handicap.is_none() || game.builtin_bots.iter().any(|b| b == "random"))
        }
        Err(_) => false,
    }
}

/// A name of a person or bot that pages and file names could not carry.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "the name {0:?} is not allowed: 1 to 40 letters, digits, `_`, `-` or `.`, not starting with `.`"
)]
pub struct BadName(pub String);

/// Names of people and bots: shown on pages and used in file names, so kept plain.
pub fn check_name(name: &str) -> Result<(), BadName> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(BadName(name.to_string()))
    }
}

//! What goes wrong when a game is set up or its transcripts are checked.

/// Why a game cannot be set up as asked (a league or an option it does not have, a value it
/// refuses) or its transcripts cannot be checked. The messages say what to give instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("unknown league `{got}` (leagues: {})", accepted.join(", "))]
    UnknownLeague {
        got: String,
        accepted: Vec<&'static str>,
    },
    #[error("{game} has no leagues (got `{got}`){}", hint.map(|h| format!("; {h}")).unwrap_or_default())]
    NoLeagues {
        game: &'static str,
        got: String,
        /// Where the user may find what they meant (Lang Wars' editions are games of their own).
        hint: Option<&'static str>,
    },
    #[error("--{option} is not an option of {game} ({})", known_options(known))]
    UnknownOption {
        game: &'static str,
        option: String,
        known: Vec<String>,
    },
    #[error("bad {game} option --{option}: {reason}")]
    OptionValue {
        game: &'static str,
        option: String,
        reason: String,
    },
    /// A transcript file that is not what the official referee recorded (its line and why).
    #[error("{0}")]
    Transcripts(String),
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("{game} is arena's own game: there are no official transcripts to check")]
    NoOfficialReferee { game: &'static str },
}

fn known_options(known: &[String]) -> String {
    if known.is_empty() {
        "it has none".to_string()
    } else {
        let flags: Vec<String> = known.iter().map(|k| format!("--{k}")).collect();
        format!("its options: {}", flags.join(", "))
    }
}

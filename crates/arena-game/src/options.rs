//! A game's own options (Coup's `--deck`, `--no-shuffle`, ...): declared by the game
//! (`GameDef::options`), offered by every command that plays it,
//! checked here against their declaration, kept in a tournament's plan as a JSON object, and turned
//! into the rules' configuration by the game itself
//! (`GameDef::config`).
//!
//! The front ends know no option of any game: they read these declarations.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::GameError;

/// What values an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// On when given (`--no-shuffle`).
    Flag,
    /// A whole number, 0 or more (`--call-limit-ms 500`).
    Number,
    /// A text (`--deck "_'<=0..."`).
    Text,
}

impl OptionKind {
    /// What a user must give, for messages.
    pub fn expects(self) -> &'static str {
        match self {
            OptionKind::Flag => "no value (it is a flag)",
            OptionKind::Number => "a whole number, 0 or more",
            OptionKind::Text => "a text",
        }
    }
}

/// One option of a game, as the game declares it.
#[derive(Clone, Copy, Debug)]
pub struct GameOption {
    /// Its key in a plan and in a tournament file (`call_limit_ms`); on the command line it is
    /// written with dashes (`--call-limit-ms`).
    pub name: &'static str,
    pub kind: OptionKind,
    /// One line for `--help`, without the game's name (the front end adds it).
    pub help: &'static str,
    /// An environment variable that sets the option when the command line does not (the original
    /// arbiter's `COUP_DECK`): a text is its non-empty value, a flag is on when it is exactly `1`.
    pub env: Option<&'static str>,
}

impl GameOption {
    /// How the command line spells it (`--call-limit-ms` for `call_limit_ms`), without the dashes.
    pub fn flag(&self) -> String {
        flag_of(self.name)
    }

    /// The value an environment variable's text gives this option (`None`: it leaves it unset).
    pub fn from_env(&self, text: &str) -> Result<Option<OptionValue>, String> {
        match self.kind {
            OptionKind::Flag => Ok((text == "1").then_some(OptionValue::Flag)),
            OptionKind::Text => Ok((!text.is_empty()).then(|| OptionValue::Text(text.to_string()))),
            OptionKind::Number => text
                .parse()
                .map(|n| Some(OptionValue::Number(n)))
                .map_err(|_| format!("`{text}` is not {}", self.kind.expects())),
        }
    }
}

/// How the command line spells the option `name` (`call-limit-ms` for `call_limit_ms`).
pub fn flag_of(name: &str) -> String {
    name.replace('_', "-")
}

/// The value of one option that was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// A flag that is on (kept as `true`; a flag that is off is not kept).
    Flag,
    Number(u64),
    Text(String),
}

impl Serialize for OptionValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            OptionValue::Flag => serializer.serialize_bool(true),
            OptionValue::Number(n) => serializer.serialize_u64(*n),
            OptionValue::Text(text) => serializer.serialize_str(text),
        }
    }
}

impl OptionValue {
    fn kind(&self) -> OptionKind {
        match self {
            OptionValue::Flag => OptionKind::Flag,
            OptionValue::Number(_) => OptionKind::Number,
            OptionValue::Text(_) => OptionKind::Text,
        }
    }
}

impl std::fmt::Display for OptionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionValue::Flag => f.write_str("on"),
            OptionValue::Number(n) => write!(f, "{n}"),
            OptionValue::Text(text) => f.write_str(text),
        }
    }
}

/// The options set for a run, by name; only those set are kept (an empty set is every default).
///
/// Serialised as a JSON object (`{"deck": "...", "no_shuffle": true}`). Reading drops `null` and
/// `false`, which is how arena 0.2 wrote an option that was not given, so its plans still open.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct GameOptions(BTreeMap<String, OptionValue>);

impl<'de> Deserialize<'de> for GameOptions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = BTreeMap::<String, serde_json::Value>::deserialize(deserializer)?;
        let mut options = BTreeMap::new();
        for (name, value) in raw {
            let value = match value {
                serde_json::Value::Null | serde_json::Value::Bool(false) => continue,
                serde_json::Value::Bool(true) => OptionValue::Flag,
                serde_json::Value::String(text) => OptionValue::Text(text),
                serde_json::Value::Number(n) => match n.as_u64() {
                    Some(n) => OptionValue::Number(n),
                    None => {
                        return Err(serde::de::Error::custom(format!(
                            "option `{name}`: {n} is not a whole number, 0 or more"
                        )));
                    }
                },
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "option `{name}`: {other} is not a flag, a number or a text"
                    )));
                }
            };
            // Files name options as the command line does, with dashes (`no-shuffle`), or as
            // plans keep them (`no_shuffle`).
            options.insert(name.replace('-', "_"), value);
        }
        Ok(GameOptions(options))
    }
}

impl schemars::JsonSchema for GameOptions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "game_options".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "A game's own options that a run set, by name (see `arena list`): a flag \
                            that is on is true, a number is a whole number 0 or more, else a text.",
            "propertyNames": { "pattern": "^[a-z][a-z0-9_]*$" },
            "additionalProperties": {
                "anyOf": [
                    { "type": "boolean" },
                    { "type": "integer", "minimum": 0 },
                    { "type": "string" }
                ]
            }
        })
    }
}

impl GameOptions {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets `name` (checked against the game's declarations by [`GameOptions::check`]).
    pub fn set(&mut self, name: &str, value: OptionValue) {
        self.0.insert(name.to_string(), value);
    }

    /// The options set, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OptionValue)> {
        self.0.iter().map(|(name, value)| (name.as_str(), value))
    }

    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.0.get(name)
    }

    /// Whether the flag `name` is on.
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.0.get(name), Some(OptionValue::Flag))
    }

    pub fn number(&self, name: &str) -> Option<u64> {
        match self.0.get(name) {
            Some(OptionValue::Number(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn text(&self, name: &str) -> Option<&str> {
        match self.0.get(name) {
            Some(OptionValue::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// Every option set is one `game` declares, with a value of its kind.
    pub fn check(&self, game: &'static str, declared: &[GameOption]) -> Result<(), GameError> {
        for (name, value) in &self.0 {
            let Some(option) = declared.iter().find(|o| o.name == name) else {
                return Err(GameError::UnknownOption {
                    game,
                    option: flag_of(name),
                    known: declared.iter().map(GameOption::flag).collect(),
                });
            };
            if value.kind() != option.kind {
                return Err(GameError::OptionValue {
                    game,
                    option: option.flag(),
                    reason: format!("takes {}, not `{value}`", option.kind.expects()),
                });
            }
        }
        Ok(())
    }

    /// The command-line words that give these options (`--deck X --no-shuffle`), to reproduce a run.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for (name, value) in &self.0 {
            args.push(format!("--{}", flag_of(name)));
            match value {
                OptionValue::Flag => {}
                OptionValue::Number(n) => args.push(n.to_string()),
                OptionValue::Text(text) => args.push(text.clone()),
            }
        }
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECLARED: &[GameOption] = &[
        GameOption {
            name: "deck",
            kind: OptionKind::Text,
            help: "the deck",
            env: Some("COUP_DECK"),
        },
        GameOption {
            name: "no_shuffle",
            kind: OptionKind::Flag,
            help: "no shuffles",
            env: Some("COUP_NO_SHUFFLE"),
        },
        GameOption {
            name: "call_limit_ms",
            kind: OptionKind::Number,
            help: "a limit",
            env: None,
        },
    ];

    #[test]
    fn a_plan_of_arena_0_2_reads_as_the_options_it_gave() {
        let old = r#"{"deck":null,"no_shuffle":false,"call_limit_ms":500,"strict_moves":true}"#;
        let options: GameOptions = serde_json::from_str(old).unwrap();
        assert_eq!(options.number("call_limit_ms"), Some(500));
        assert!(options.flag("strict_moves"));
        assert!(!options.flag("no_shuffle"));
        assert_eq!(options.text("deck"), None);
        assert_eq!(
            serde_json::to_string(&options).unwrap(),
            r#"{"call_limit_ms":500,"strict_moves":true}"#
        );
    }

    #[test]
    fn names_with_dashes_read_as_the_options_names() {
        let options: GameOptions =
            serde_json::from_str(r#"{"no-shuffle": true, "call-limit-ms": 5}"#).unwrap();
        assert!(options.flag("no_shuffle"));
        assert_eq!(options.number("call_limit_ms"), Some(5));
    }

    #[test]
    fn values_are_written_back_as_they_were_read() {
        let mut options = GameOptions::default();
        options.set("deck", OptionValue::Text("_'<=0".into()));
        options.set("no_shuffle", OptionValue::Flag);
        options.set("call_limit_ms", OptionValue::Number(7));
        let text = serde_json::to_string(&options).unwrap();
        let back: GameOptions = serde_json::from_str(&text).unwrap();
        assert_eq!(back, options);
        assert_eq!(
            options.to_args(),
            ["--call-limit-ms", "7", "--deck", "_'<=0", "--no-shuffle"]
        );
    }

    #[test]
    fn an_option_the_game_does_not_declare_or_of_another_kind_is_refused() {
        let mut options = GameOptions::default();
        options.set("decks", OptionValue::Text("x".into()));
        let error = options.check("coup", DECLARED).unwrap_err().to_string();
        assert!(
            error.contains("--decks") && error.contains("--deck, --no-shuffle"),
            "{error}"
        );
        let mut options = GameOptions::default();
        options.set("call_limit_ms", OptionValue::Text("soon".into()));
        let error = options.check("coup", DECLARED).unwrap_err().to_string();
        assert!(
            error.contains("whole number") && error.contains("soon"),
            "{error}"
        );
        let bad: Result<GameOptions, _> = serde_json::from_str(r#"{"call_limit_ms":-1}"#);
        assert!(bad.is_err());
    }

    #[test]
    fn the_environment_sets_a_flag_only_with_1_and_a_text_only_when_not_empty() {
        assert_eq!(DECLARED[1].from_env("1"), Ok(Some(OptionValue::Flag)));
        assert_eq!(DECLARED[1].from_env("yes"), Ok(None));
        assert_eq!(DECLARED[0].from_env(""), Ok(None));
        assert!(DECLARED[2].from_env("x").is_err());
    }
}

//! The JSON Schemas of arena's files, generated from their types. They are committed in
//! `docs/schema/` for people and tools; `tests/schemas.rs` checks that the committed files are
//! these (`ARENA_SCHEMAS=update` rewrites them), and arena's own tests validate real outputs
//! against the committed files.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use crate::{Entry, Plan, Replay, Summary};

/// Where the schemas say they live (`$id`); a relative reference between them resolves there.
pub const BASE: &str = "https://arena.local/schema/";

/// The game-specific parts of a replay (each game's config, actions and frames), which the
/// envelope leaves as free JSON: kept by hand until games register their own schema fragment.
const REPLAY_GAMES: &str = include_str!("replay_games.json");

/// One schema file of `docs/schema/`.
pub struct SchemaFile {
    /// The file name, as `docs/schema/` holds it.
    pub name: &'static str,
    pub schema: Value,
}

/// Every schema arena publishes, as generated now.
pub fn all() -> Vec<SchemaFile> {
    vec![
        SchemaFile {
            name: "plan.schema.json",
            schema: generate::<Plan>(
                "plan.schema.json",
                "arena tournament.json",
                "Everything that defines a tournament, written to DIR/tournament.json before its first game: the bots, the schedule, the seed and how games are run. Its format versions the whole folder (the plan, results.jsonl and the layout); a reader refuses a newer one.",
            ),
        },
        SchemaFile {
            name: "results-line.schema.json",
            schema: generate::<Entry>(
                "results-line.schema.json",
                "arena results.jsonl line",
                "One finished game of a tournament, one JSON object per line of DIR/results.jsonl, appended as games finish (not in index order). The contest server keeps the same line per game.",
            ),
        },
        SchemaFile {
            name: "replay.schema.json",
            schema: with_games(generate::<Replay>(
                "replay.schema.json",
                "arena replay",
                "The record of one game: what arena play --replay writes and DIR/replays/N.json.gz holds (gzip). Enough to play the game again (config, seed, every action) and to show it (inputs, raw outputs, times, faults, stderr, per-frame state). The shape of config, actions and frames depends on the game.",
            )),
        },
        SchemaFile {
            name: "summary.schema.json",
            schema: generate::<Summary>(
                "summary.schema.json",
                "arena summary.json",
                "The statistics of a tournament, written to DIR/summary.json after every run. Bots are referred to by their index in stats.bots (the order of tournament.json).",
            ),
        },
    ]
}

/// The schema of `T` as arena writes it (fields skipped when empty are optional, the others
/// required), with its `$id`, title and description.
fn generate<T: JsonSchema>(name: &str, title: &str, description: &str) -> Value {
    let generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let schema: Schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    no_null_when_optional(&mut value);
    if let Value::Object(map) = &mut value {
        map.insert("$id".into(), Value::String(format!("{BASE}{name}")));
        map.insert("title".into(), Value::String(title.into()));
        map.insert("description".into(), Value::String(description.into()));
    }
    value
}

/// The replay schema with each game's parts: its `allOf` (one `if game … then` per game) and the
/// definitions they refer to.
fn with_games(mut replay: Value) -> Value {
    let games: Map<String, Value> = match serde_json::from_str(REPLAY_GAMES) {
        Ok(Value::Object(games)) => games,
        // A fixed file compiled in: the schema test fails on it before any release does.
        _ => panic!("replay_games.json is not a JSON object"),
    };
    let Value::Object(map) = &mut replay else {
        return replay;
    };
    for (key, value) in games {
        match (key.as_str(), value) {
            ("$defs", Value::Object(defs)) => {
                let target = map
                    .entry("$defs")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(target) = target {
                    target.extend(defs);
                }
            }
            (_, value) => {
                map.insert(key, value);
            }
        }
    }
    replay
}

/// An `Option` field that is left out when `None` is never written as `null`: where a property is
/// optional, its schema takes no `null` (the generator allows one for every `Option`).
fn no_null_when_optional(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|name| name.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        drop_null(property);
                    }
                }
            }
            for value in map.values_mut() {
                no_null_when_optional(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(no_null_when_optional),
        _ => {}
    }
}

/// `{"type": ["X", "null"]}` → `{"type": "X"}`; `{"anyOf": [S, {"type": "null"}]}` → `S`.
fn drop_null(property: &mut Value) {
    let Value::Object(map) = property else {
        return;
    };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(options)) = map.get("anyOf")
        && options.len() == 2
        && let Some(other) = options.iter().find(|s| !is_null(s))
        && options.iter().any(is_null)
    {
        let other = other.clone();
        map.remove("anyOf");
        if let Value::Object(other) = other {
            map.extend(other);
        }
    }
}

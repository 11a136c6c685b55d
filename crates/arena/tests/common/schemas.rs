//! The JSON Schemas of `docs/schema/`, built once for a test (they refer to each other by relative
//! URI, resolved here and never fetched).

use std::path::PathBuf;

use serde_json::Value;

const BASE: &str = "https://arena.local/schema/";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema")
}

fn load(name: &str) -> Value {
    let path = schema_dir().join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("schema file")).expect("JSON")
}

pub struct Schemas {
    pub line: jsonschema::Validator,
    pub summary: jsonschema::Validator,
    pub replay: jsonschema::Validator,
    pub plan: jsonschema::Validator,
}

pub fn schemas() -> Schemas {
    let names = [
        "results-line.schema.json",
        "summary.schema.json",
        "replay.schema.json",
        "plan.schema.json",
    ];
    let documents: Vec<Value> = names.iter().map(|n| load(n)).collect();
    for (name, document) in names.iter().zip(&documents) {
        assert!(
            jsonschema::meta::is_valid(document),
            "{name} is not a valid schema"
        );
        assert_eq!(
            document["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        assert_eq!(document["$id"], format!("{BASE}{name}"), "{name}");
    }
    // The schemas refer to each other by relative URI: resolved here, never fetched.
    let registry = jsonschema::Registry::new()
        .add(format!("{BASE}{}", names[0]), documents[0].clone())
        .expect("resource")
        .prepare()
        .expect("registry");
    let build = |document: &Value| {
        jsonschema::options()
            .with_registry(&registry)
            .build(document)
            .expect("schema builds")
    };
    Schemas {
        line: build(&documents[0]),
        summary: build(&documents[1]),
        replay: build(&documents[2]),
        plan: build(&documents[3]),
    }
}

pub fn check(validator: &jsonschema::Validator, value: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(5)
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

//! The committed schemas in `docs/schema/` are the ones generated from the format types. After a
//! change that is meant to alter a format, rewrite them with `ARENA_SCHEMAS=update cargo test -p
//! arena-formats --test schemas` and say why in the commit (and bump the format's version if a
//! field changes meaning).

use std::path::PathBuf;

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema")
}

#[test]
fn committed_schemas_are_the_generated_ones() {
    let update = std::env::var("ARENA_SCHEMAS").as_deref() == Ok("update");
    let mut stale = Vec::new();
    for file in arena_formats::schema::all() {
        let path = schema_dir().join(file.name);
        if update {
            let mut text = serde_json::to_string_pretty(&file.schema).expect("schema encodes");
            text.push('\n');
            std::fs::write(&path, text).expect("schema written");
            continue;
        }
        let committed: serde_json::Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(serde_json::Value::Null);
        if committed != file.schema {
            stale.push(file.name);
        }
    }
    assert!(
        stale.is_empty(),
        "docs/schema/ differs from the schemas generated from the format types: {stale:?}; \
         if the change is meant, run ARENA_SCHEMAS=update cargo test -p arena-formats --test schemas"
    );
}

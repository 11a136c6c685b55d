//! The one check of a file format's version. Every file arena writes for others to read (a replay,
//! a tournament folder's plan and journal) carries a format number; a reader accepts the formats it
//! knows and refuses a newer one with a message that says what wrote it and what to do, instead of
//! misreading it. A file without a number is from before numbers were written (format 1).

/// A file whose format this arena does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "this {what} has format {found}{writer}, newer than this arena reads (arena {ours} reads {what} formats up to {newest}): open it with a newer arena"
)]
pub struct NewerFormat {
    pub what: &'static str,
    pub found: u64,
    pub newest: u32,
    /// ", written by arena X.Y.Z" when the file names its writer.
    pub writer: String,
    pub ours: &'static str,
}

/// The version of arena that writes files now (recorded where a format has room for it).
pub const ARENA_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Checks the format number `found` (`None`: a file from before numbers, format 1) of a `what`
/// against the newest this arena reads. `writer` is the arena version the file names, if any.
pub fn check_format(
    what: &'static str,
    found: Option<u64>,
    newest: u32,
    writer: Option<&str>,
) -> Result<(), NewerFormat> {
    let found = found.unwrap_or(1);
    if found <= u64::from(newest) {
        return Ok(());
    }
    Err(NewerFormat {
        what,
        found,
        newest,
        writer: writer.map_or_else(String::new, |w| format!(", written by arena {w}")),
        ours: ARENA_VERSION,
    })
}

/// [`check_format`] on a parsed JSON document's `format` (and `arena`) fields.
pub fn check_json_format(
    what: &'static str,
    document: &serde_json::Value,
    newest: u32,
) -> Result<(), NewerFormat> {
    check_format(
        what,
        document.get("format").and_then(serde_json::Value::as_u64),
        newest,
        document.get("arena").and_then(serde_json::Value::as_str),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unnumbered_formats_are_read_and_newer_ones_refused() {
        assert_eq!(check_format("replay", None, 1, None), Ok(()));
        assert_eq!(check_format("replay", Some(1), 1, None), Ok(()));
        let error = check_format("replay", Some(2), 1, Some("0.9.0")).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("format 2, written by arena 0.9.0"), "{text}");
        assert!(text.contains("reads replay formats up to 1"), "{text}");
        assert!(text.contains("newer arena"), "{text}");
    }
}

//! Output shown on arena's terminal: bytes from a bot, escaped.

use std::io::{self, Write};

/// `text` with control characters (except newline and tab) escaped, so that bytes from a bot shown on
/// arena's terminal cannot move the cursor, change colours or rewrite what is shown.
pub fn escape_control(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Writes `bytes` to `out` so that terminals show them literally (see [`escape_control`]).
pub fn write_escaped(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let text = String::from_utf8_lossy(bytes);
    out.write_all(escape_control(&text).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_not_copied() {
        assert!(matches!(
            escape_control("fine\ttext\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            escape_control("\u{1b}[2Jgone\r\u{7}"),
            "\\u{1b}[2Jgone\\r\\u{7}"
        );
    }
}

//! The layout of the text reports: their width, bot names cut to fit, long lines wrapped.

/// The terminal's width the text reports keep to (the full tables are in report.html).
pub const TEXT_WIDTH: usize = 100;
/// Longest bot name shown in the text tables; longer ones are cut with `…`.
pub(crate) const NAME_MAX: usize = 16;

/// `text` cut to `max` characters, the cut marked with `…`.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// `text` as lines of at most [`TEXT_WIDTH`] characters, broken at spaces, continuation lines
/// indented.
pub(crate) fn wrapped(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > TEXT_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = format!("  {word}");
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

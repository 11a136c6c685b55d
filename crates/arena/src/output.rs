//! Standard output as arena writes it: a reader that stops reading (`arena list | head -1`) ends
//! arena quietly.

use std::io::Write;

use anyhow::Result;

/// Standard output was closed by its reader (`arena list | head -1`): arena stops quietly.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Writes `text` to standard output; a closed pipe is [`StdoutClosed`] (see `main`).
pub fn print_out(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|error| {
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                anyhow::Error::new(StdoutClosed)
            } else {
                anyhow::Error::new(error).context("cannot write to standard output")
            }
        })
}

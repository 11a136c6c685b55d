//! The async runtimes the commands run on, and Ctrl-C.

use anyhow::{Context, Result, bail};

/// A runtime for process games: one thread keeps timing steady and overhead low.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The web server's runtime: requests are answered on every core, so a large replay being sent
/// (or rebuilt) does not hold up the pages behind it.
pub fn server_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Runs `work` until it finishes or the user interrupts; dropping it ends every bot process.
pub async fn interruptible<T>(work: impl std::future::Future<Output = T>) -> Result<T> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot watch SIGTERM")?;
    tokio::select! {
        result = work => Ok(result),
        _ = tokio::signal::ctrl_c() => bail!("interrupted; every bot process was ended"),
        _ = terminate.recv() => bail!("terminated; every bot process was ended"),
    }
}

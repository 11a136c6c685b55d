//! arena-viewer: the replay viewer of every arena game and the local web server around it.
//!
//! - [`export_html`]: one replay record → one self-contained HTML page (data, script and style inlined)
//!   that replays the game from disk with no server (`arena export`).
//! - [`Server`]: an axum server bound to 127.0.0.1 that lists the tournaments found in the directories it
//!   was given (and one level below them), shows each tournament's games and leaderboard, and opens any
//!   game in the viewer (`arena serve`); given replay files, it serves those too (`arena view`).
//!
//! The library prints nothing: [`Server::bind`] reports the address so the caller prints the URL, and
//! [`Server::run`] serves until the task is dropped or the process ends.
//!
//! Safety boundary: every file the server reads is either one of the replay files it was given or a
//! path under one of its directories that, after resolving symlinks, is still under that directory.
//! Everything else is answered with a 4xx page (see `store::resolve_under`).

mod export;
mod pages;
mod server;
mod store;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use export::{GAMES, export_html};
pub use server::router;

/// Why the viewer could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    #[error("not a replay record: {0}")]
    NotAReplay(String),
    #[error("the viewer does not know the game `{0}` (it knows {known})", known = GAMES.join(", "))]
    UnknownGame(String),
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        port: u16,
        #[source]
        source: std::io::Error,
    },
    #[error("the server stopped: {0}")]
    Serve(#[source] std::io::Error),
}

/// What to serve.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Tournament output directories, or directories whose subdirectories are tournaments; replay files
    /// lying directly in them are listed too.
    pub dirs: Vec<PathBuf>,
    /// Single replay files (`.json` or `.json.gz`) to serve as well (`arena view FILE`).
    pub files: Vec<PathBuf>,
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Plays again the games whose replay was not stored (games between built-in bots), so that
    /// they can be watched too; `None`: only stored replays are shown.
    pub rebuild: Option<Rebuilder>,
}

/// The replay JSON of a game played again, or why it cannot be.
pub type RebuiltReplay =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Vec<u8>, String>> + Send>>;

/// Rebuilds game `index` of the tournament in a directory (`arena_tournament::rebuild`); given by
/// the `arena` command, which knows the games. It checks the game itself (all seats built in,
/// played, same result as the journal) and says why when it cannot.
#[derive(Clone)]
pub struct Rebuilder(pub Arc<dyn Fn(PathBuf, u64) -> RebuiltReplay + Send + Sync>);

impl std::fmt::Debug for Rebuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rebuilder")
    }
}

impl ServeOptions {
    /// Serve one replay file (`arena view FILE`); open [`Server::file_url`]`(0)`.
    pub fn view(file: impl Into<PathBuf>, port: u16) -> Self {
        ServeOptions {
            dirs: Vec::new(),
            files: vec![file.into()],
            port,
            rebuild: None,
        }
    }
}

/// A bound server, not serving yet: the caller learns the address before it starts.
pub struct Server {
    listener: tokio::net::TcpListener,
    app: axum::Router,
    addr: SocketAddr,
    files: usize,
}

impl Server {
    /// Checks the directories and files and binds 127.0.0.1:`port` (loopback only: the server has no
    /// authentication, and replays may hold bots' stderr).
    pub async fn bind(options: ServeOptions) -> Result<Server, ViewerError> {
        let app = router(&options)?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.port))
            .await
            .map_err(|source| ViewerError::Bind {
                port: options.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ViewerError::Bind {
            port: options.port,
            source,
        })?;
        Ok(Server {
            listener,
            app,
            addr,
            files: options.files.len(),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The front page: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The viewer page of the `index`-th file of [`ServeOptions::files`].
    pub fn file_url(&self, index: usize) -> Option<String> {
        (index < self.files).then(|| format!("http://{}/f/{index}", self.addr))
    }

    /// Serves until the future is dropped (or an I/O error ends the accept loop).
    pub async fn run(self) -> Result<(), ViewerError> {
        axum::serve(self.listener, self.app)
            .await
            .map_err(ViewerError::Serve)
    }
}

/// Binds, tells `on_bound` where the server listens (the CLI prints the URL), then serves.
pub async fn serve(
    options: ServeOptions,
    on_bound: impl FnOnce(&Server),
) -> Result<(), ViewerError> {
    let server = Server::bind(options).await?;
    on_bound(&server);
    server.run().await
}

/// A replay file's JSON text: plain `.json`, or gzip-compressed `.json.gz` (tournaments store those).
pub fn read_replay(path: &Path) -> Result<String, ViewerError> {
    store::read_text(path)
}

/// The self-contained viewer page of a replay file (`arena export FILE -o game.html`).
pub fn export_file(path: &Path) -> Result<String, ViewerError> {
    export_html(&read_replay(path)?)
}

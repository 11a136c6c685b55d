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
/// Percent-encoding of a URL path (its slashes kept), for servers that link to pages.
pub use store::url_path;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use export::{Back, ViewerGames, export_html, published_viewer_page, viewer_html};
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
    #[error(transparent)]
    NewerFormat(#[from] arena_formats::version::NewerFormat),
    #[error("the viewer does not know the game `{game}` (it knows {known})")]
    UnknownGame { game: String, known: String },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
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
    /// The address to listen on; `None`: 127.0.0.1 (this computer only). Another address serves
    /// the network it is on, with no authentication: the caller warns about it.
    pub bind: Option<std::net::IpAddr>,
    /// Host names the server answers to besides the loopback names and the bound address (see
    /// [`HostCheck`]): the machine's name on a LAN, say.
    pub allowed_hosts: Vec<String>,
    /// Longest time a request may take (default [`REQUEST_TIMEOUT`]); then 408.
    pub request_timeout: Option<Duration>,
    /// Longest a connection may stay silent, before its first request or between requests
    /// (default [`IDLE_TIMEOUT`]); then it is closed.
    pub idle_timeout: Option<Duration>,
    /// The games the viewer draws (from the game registry).
    pub games: ViewerGames,
}

/// Default longest time of a request: a rebuilt Spring 2021 replay takes well under a second.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// Default longest silence of a connection.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest life of a connection, however busy: browsers open another one.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(600);

/// Which `Host` headers the server answers: a browser page on another domain that resolves to
/// this machine (DNS rebinding) names its own domain there, and is refused.
#[derive(Clone, Debug)]
pub struct HostCheck {
    bound: std::net::IpAddr,
    names: Vec<String>,
}

impl HostCheck {
    pub fn new(bound: std::net::IpAddr, names: &[String]) -> Self {
        HostCheck {
            bound,
            names: names.iter().map(|n| n.to_ascii_lowercase()).collect(),
        }
    }

    /// Loopback names always; the bound address itself (any address of this machine when bound
    /// to all of them: an address, unlike a domain, cannot be rebound); and the names given.
    pub fn allows(&self, host: &str) -> bool {
        let name = if let Some(rest) = host.strip_prefix('[') {
            rest.split_once(']').map_or(rest, |(name, _)| name)
        } else if host.matches(':').count() == 1 {
            host.rsplit_once(':').map_or(host, |(name, _)| name)
        } else {
            host
        }
        .to_ascii_lowercase();
        if matches!(name.as_str(), "127.0.0.1" | "localhost" | "::1") {
            return true;
        }
        if self.names.contains(&name) {
            return true;
        }
        match name.parse::<std::net::IpAddr>() {
            Ok(address) if !self.bound.is_loopback() => {
                self.bound.is_unspecified() || address == self.bound
            }
            _ => false,
        }
    }

    /// What the server answers, for the refusal's message.
    pub fn describe(&self) -> String {
        let mut names = vec!["127.0.0.1".to_string(), "localhost".into(), "[::1]".into()];
        if !self.bound.is_loopback() {
            names.push(if self.bound.is_unspecified() {
                "this machine's addresses".into()
            } else {
                self.bound.to_string()
            });
        }
        names.extend(self.names.iter().cloned());
        names.join(", ")
    }
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
    pub fn view(file: impl Into<PathBuf>, port: u16, games: ViewerGames) -> Self {
        ServeOptions {
            dirs: Vec::new(),
            files: vec![file.into()],
            port,
            games,
            ..ServeOptions::default()
        }
    }
}

/// A bound server, not serving yet: the caller learns the address before it starts.
pub struct Server {
    listener: tokio::net::TcpListener,
    app: axum::Router,
    addr: SocketAddr,
    files: usize,
    idle_timeout: Duration,
}

impl Server {
    /// Checks the directories and files and binds `port` on 127.0.0.1 (loopback only: the server
    /// has no authentication, and replays may hold bots' stderr), or on the address asked for.
    pub async fn bind(options: ServeOptions) -> Result<Server, ViewerError> {
        let app = router(&options)?;
        let ip = options
            .bind
            .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
        let wanted = SocketAddr::new(ip, options.port);
        let listener = tokio::net::TcpListener::bind(wanted)
            .await
            .map_err(|source| ViewerError::Bind {
                addr: wanted.to_string(),
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ViewerError::Bind {
            addr: wanted.to_string(),
            source,
        })?;
        Ok(Server {
            listener,
            app,
            addr,
            files: options.files.len(),
            idle_timeout: options.idle_timeout.unwrap_or(IDLE_TIMEOUT),
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

    /// Serves until the future is dropped (or an I/O error ends the accept loop). Each connection
    /// is served on its own task; one that stays silent for the idle timeout (before a request's
    /// headers are complete, the first or a later one) is closed.
    pub async fn run(self) -> Result<(), ViewerError> {
        use hyper_util::rt::{TokioIo, TokioTimer};
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(self.idle_timeout)
            .keep_alive(true);
        loop {
            let (stream, _) = match self.listener.accept().await {
                Ok(accepted) => accepted,
                // Out of descriptors and the like: the next accept may work.
                Err(error) if is_transient(&error) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(error) => return Err(ViewerError::Serve(error)),
            };
            let service = hyper_util::service::TowerToHyperService::new(self.app.clone());
            let connection = http.serve_connection(TokioIo::new(stream), service);
            let idle = self.idle_timeout;

            tokio::spawn(async move {
                // A client that stops reading a response would hold its connection forever.
                let _ = tokio::time::timeout(CONNECTION_LIFETIME.max(idle), connection).await;
            });
        }
    }
}

fn is_transient(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::Interrupted
    ) || matches!(error.raw_os_error(), Some(23 | 24)) // ENFILE, EMFILE: out of descriptors
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
pub fn export_file(path: &Path, games: &ViewerGames) -> Result<String, ViewerError> {
    export_html(&read_replay(path)?, games)
}

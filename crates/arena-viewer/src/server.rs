//! Routes. Every handler answers a page: HTML for people (4xx pages included), JSON under `/raw`.
//!
//! - `/`: roots, their tournaments and replay files; the files given;
//! - `/t/ROOT` and `/t/ROOT/SUB`: a tournament (leaderboard, head to head, games; `?bot=`, `?page=`),
//!   with its `report.html` and its replays below it (`/t/ROOT/SUB/replays/N.json.gz`);
//! - `/g/ROOT/PATH`: the viewer of a replay under a root; `/raw/ROOT/PATH`: its JSON;
//! - `/f/N`, `/f/N/raw`: the same for the N-th file given.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::export::{Back, viewer_html};
use crate::pages::{self, GameFilter};
use crate::store::{self, REPORT_FILE, Refusal, is_replay_name, resolve_under};
use crate::{HostCheck, Rebuilder, ServeOptions, ViewerError, ViewerGames};

struct Served {
    /// Canonical directories.
    roots: Vec<PathBuf>,
    /// Canonical replay files.
    files: Vec<PathBuf>,
    rebuild: Option<Rebuilder>,
    games: ViewerGames,
}

type Shared = Arc<Served>;
type Param<T> = Result<axum::extract::Path<T>, PathRejection>;

/// The application, for tests (`tower::ServiceExt::oneshot`) and for [`crate::Server`]. Checks that
/// every directory and file exists and resolves them once: later requests compare against these.
pub fn router(options: &ServeOptions) -> Result<Router, ViewerError> {
    let canonical = |path: &PathBuf| {
        std::fs::canonicalize(path).map_err(|source| ViewerError::Io {
            path: path.clone(),
            source,
        })
    };
    let mut roots = Vec::new();
    for dir in &options.dirs {
        let root = canonical(dir)?;
        if !root.is_dir() {
            return Err(ViewerError::NotADirectory(dir.clone()));
        }
        roots.push(root);
    }
    let files = options
        .files
        .iter()
        .map(canonical)
        .collect::<Result<Vec<_>, _>>()?;
    let state = Arc::new(Served {
        roots,
        files,
        rebuild: options.rebuild.clone(),
        games: options.games.clone(),
    });
    Ok(Router::new()
        .route("/", get(index))
        .route("/t/{root}", get(tournament_root))
        .route("/t/{root}/{*rest}", get(tournament_inside))
        .route("/g/{root}/{*path}", get(game_under_root))
        .route("/raw/{root}/{*path}", get(raw_under_root))
        .route("/api/t/{root}", get(games_of_root))
        .route("/api/t/{root}/{sub}", get(games_of_sub))
        .route("/api/summary/{root}", get(summary_of_root))
        .route("/api/summary/{root}/{sub}", get(summary_of_sub))
        .route("/f/{index}", get(game_file))
        .route("/f/{index}/raw", get(raw_file))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            options.request_timeout.unwrap_or(crate::REQUEST_TIMEOUT),
            time_limit,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(HostCheck::new(
                options
                    .bind
                    .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)),
                &options.allowed_hosts,
            )),
            allowed_host_only,
        ))
        .with_state(state))
}

/// Refuses requests whose `Host` the server does not answer to (see [`HostCheck`]): a web page
/// could point its own domain at this machine (DNS rebinding) and read replays, stderr included,
/// through the visitor's browser. Such a request names the page's domain.
async fn allowed_host_only(
    State(check): State<Arc<HostCheck>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    // Browsers always send a Host; a request without one (HTTP/1.0 tools) cannot come from a page.
    let Some(host) = request.headers().get(header::HOST) else {
        return next.run(request).await;
    };
    let host = host.to_str().unwrap_or_default().to_string();
    if check.allows(&host) {
        next.run(request).await
    } else {
        Problem::new(
            StatusCode::FORBIDDEN,
            format!(
                "the Host `{host}` is not one this server answers to ({}); to serve it under \
                 another name, give that name with --allow-host",
                check.describe()
            ),
        )
        .into_response()
    }
}

/// Answers 408 for a request that takes longer than the limit (a rebuild that hangs, say).
async fn time_limit(
    State(limit): State<std::time::Duration>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => Problem::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request took longer than {} s and was stopped",
                limit.as_secs_f64()
            ),
        )
        .into_response(),
    }
}

/// A refused request, rendered as an HTML page with its status.
struct Problem {
    status: StatusCode,
    detail: String,
}

impl Problem {
    fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        Problem {
            status,
            detail: detail.into(),
        }
    }
}

impl From<Refusal> for Problem {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::BadPath(detail) => Problem::new(StatusCode::BAD_REQUEST, detail),
            Refusal::Outside(detail) => Problem::new(StatusCode::FORBIDDEN, detail),
            Refusal::Missing(detail) => Problem::new(StatusCode::NOT_FOUND, detail),
        }
    }
}

impl From<ViewerError> for Problem {
    fn from(error: ViewerError) -> Self {
        let status = match &error {
            ViewerError::UnknownGame { .. }
            | ViewerError::NotAReplay(_)
            | ViewerError::NewerFormat(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ViewerError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                StatusCode::NOT_FOUND
            }
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Problem::new(status, error.to_string())
    }
}

impl From<QueryRejection> for Problem {
    fn from(rejection: QueryRejection) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, rejection.body_text())
    }
}

impl From<PathRejection> for Problem {
    fn from(rejection: PathRejection) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, rejection.body_text())
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let reason = self.status.canonical_reason().unwrap_or("Error");
        let page = pages::error_page(self.status.as_u16(), reason, &self.detail);
        (self.status, Html(page)).into_response()
    }
}

async fn not_found() -> Problem {
    Problem::new(StatusCode::NOT_FOUND, "no such page")
}

async fn index(State(served): State<Shared>) -> Html<String> {
    let listings: Vec<_> = served
        .roots
        .iter()
        .enumerate()
        .map(|(i, root)| (root.as_path(), store::list_root(i, root)))
        .collect();
    let files: Vec<&Path> = served.files.iter().map(PathBuf::as_path).collect();
    Html(pages::index(&listings, &files))
}

fn root_index(text: &str) -> Result<usize, Problem> {
    text.parse().map_err(|_| {
        Problem::new(
            StatusCode::NOT_FOUND,
            format!("no served directory `{text}`"),
        )
    })
}

async fn tournament_root(
    State(served): State<Shared>,
    params: Param<String>,
    query: Result<Query<GameFilter>, QueryRejection>,
) -> Result<Html<String>, Problem> {
    let axum::extract::Path(root) = params?;
    let Query(filter) = query?;
    filter
        .check()
        .map_err(|why| Problem::new(StatusCode::BAD_REQUEST, why.to_string()))?;
    let dir = store::tournament(&served.roots, root_index(&root)?, None)?;
    let loaded = store::load_tournament(&dir.path);
    Ok(Html(pages::tournament_page(
        &dir,
        &loaded,
        &filter,
        served.rebuild.is_some(),
    )))
}

/// `/t/ROOT/REST`: a tournament one level below the root (`SUB`), its report (`[SUB/]report.html`) or
/// one of its replays (`[SUB/]replays/N.json.gz`), so that the report's relative links open the viewer.
async fn tournament_inside(
    State(served): State<Shared>,
    params: Param<(String, String)>,
    query: Result<Query<GameFilter>, QueryRejection>,
) -> Result<Response, Problem> {
    let axum::extract::Path((root, rest)) = params?;
    let Query(filter) = query?;
    filter
        .check()
        .map_err(|why| Problem::new(StatusCode::BAD_REQUEST, why.to_string()))?;
    let index = root_index(&root)?;
    let (first, inside) = match rest.split_once('/') {
        Some((first, inside)) => (first, Some(inside)),
        None => (rest.as_str(), None),
    };
    let (dir, inside) = match store::tournament(&served.roots, index, Some(first)) {
        Ok(dir) => (dir, inside),
        // Not a tournament below the root: one of the root's own files, if the root is a tournament.
        Err(refusal) => match store::tournament(&served.roots, index, None) {
            Ok(dir) if !matches!(refusal, Refusal::BadPath(_)) => (dir, Some(rest.as_str())),
            _ => return Err(refusal.into()),
        },
    };
    match inside {
        None | Some("") => {
            let loaded = store::load_tournament(&dir.path);
            Ok(Html(pages::tournament_page(
                &dir,
                &loaded,
                &filter,
                served.rebuild.is_some(),
            ))
            .into_response())
        }
        Some(REPORT_FILE) => {
            let report = resolve_under(&dir.path, REPORT_FILE)?;
            let text = std::fs::read_to_string(&report).map_err(|source| ViewerError::Io {
                path: report.clone(),
                source,
            })?;
            Ok(Html(text).into_response())
        }
        // The report's links to the published viewer page (`viewer.html?game=N`) open the game.
        Some("viewer.html") => {
            let game = filter
                .game
                .filter(|g| !g.is_empty() && g.len() <= 12 && g.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    Problem::new(StatusCode::BAD_REQUEST, "viewer.html needs ?game=NUMBER")
                })?;
            let relative = dir.root_relative(&format!("replays/{game}.json.gz"));
            let text = replay_under_root(&served, &root, &relative).await?;
            viewer(&served, &text, &back_link(&served, index, &relative))
        }
        Some(path) => {
            let relative = dir.root_relative(path);
            let text = replay_under_root(&served, &root, &relative).await?;
            viewer(&served, &text, &back_link(&served, index, &relative))
        }
    }
}

/// The text of a replay under a root: its file, checked (a replay name, inside the root after
/// resolving symlinks, a file), or for a tournament's game between built-in bots whose replay was
/// not stored (`[SUB/]replays/N.json.gz` with no such file), the game played again.
async fn replay_under_root(served: &Served, root: &str, path: &str) -> Result<String, Problem> {
    let index = root_index(root)?;
    let base = served.roots.get(index).ok_or_else(|| {
        Problem::new(
            StatusCode::NOT_FOUND,
            format!("no served directory {index}"),
        )
    })?;
    let name = path.rsplit('/').next().unwrap_or(path);
    if !is_replay_name(name) {
        return Err(Problem::new(
            StatusCode::BAD_REQUEST,
            format!("`{path}` is not a replay file (.json or .json.gz)"),
        ));
    }
    let file = match resolve_under(base, path) {
        Ok(file) => file,
        Err(Refusal::Missing(why)) => {
            return match rebuilt_game(served, base, path).await {
                Some(rebuilt) => rebuilt,
                None => Err(Refusal::Missing(why).into()),
            };
        }
        Err(refusal) => return Err(refusal.into()),
    };
    if !file.is_file() {
        return Err(Problem::new(
            StatusCode::NOT_FOUND,
            format!("`{path}` is not a file"),
        ));
    }
    Ok(store::read_text(&file)?)
}

/// `[SUB/]replays/N.json.gz` of a tournament under `base`, played again; `None` when the path is
/// not such a replay or the server has no rebuilder.
async fn rebuilt_game(served: &Served, base: &Path, path: &str) -> Option<Result<String, Problem>> {
    let rebuild = served.rebuild.as_ref()?;
    let (tournament, name) = match path.rsplit_once("/replays/") {
        Some((sub, name)) => (Some(sub), name),
        None => (None, path.strip_prefix("replays/")?),
    };
    let game: u64 = name.strip_suffix(".json.gz")?.parse().ok()?;
    let dir = match tournament {
        Some(sub) => resolve_under(base, sub).ok()?,
        None => base.to_path_buf(),
    };
    if !store::is_tournament(&dir) {
        return None;
    }
    Some(match (rebuild.0)(dir, game).await {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the rebuilt replay is not UTF-8",
            )
        }),
        Err(why) => Err(Problem::new(StatusCode::NOT_FOUND, why)),
    })
}

/// Where a replay under a root was opened from: its tournament if it is in one, else the front page.
fn back_link(served: &Served, root: usize, path: &str) -> Back {
    if let Some((sub, _)) = path.split_once('/')
        && let Ok(dir) = store::tournament(&served.roots, root, Some(sub))
    {
        return Back {
            href: dir.href(),
            label: sub.to_string(),
            command: game_command(&dir, path),
        };
    }
    if let Some(base) = served.roots.get(root)
        && store::is_tournament(base)
        && let Ok(dir) = store::tournament(&served.roots, root, None)
    {
        return Back {
            href: format!("/t/{root}"),
            label: "tournament".into(),
            command: game_command(&dir, path),
        };
    }
    Back {
        href: "/".into(),
        label: "all tournaments".into(),
        command: None,
    }
}

/// The `arena play` command of the game whose replay is `path` (`[SUB/]replays/N.json.gz` under
/// the root) in tournament `dir`.
fn game_command(dir: &store::TournamentDir, path: &str) -> Option<String> {
    let name = path.rsplit_once("replays/").map(|(_, name)| name)?;
    let index: u64 = name
        .strip_suffix(".json.gz")
        .or_else(|| name.strip_suffix(".json"))?
        .parse()
        .ok()?;
    let tournament = store::load_tournament(&dir.path);
    let result = tournament.results.iter().find(|r| r.index == index)?;
    pages::Commands::of(&dir.path).command(result)
}

fn viewer(served: &Served, text: &str, back: &Back) -> Result<Response, Problem> {
    let page = viewer_html(text, Some(back), &served.games)?;
    Ok(Html(page).into_response())
}

fn raw(text: String) -> Result<Response, Problem> {
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

/// `/api/t/ROOT[/SUB]?bot=&result=&fault=&seed=`: the games that pass the filters, as JSON.
async fn games_json(
    served: &Served,
    root: &str,
    sub: Option<&str>,
    filter: &GameFilter,
) -> Result<Response, Problem> {
    filter
        .check()
        .map_err(|why| Problem::new(StatusCode::BAD_REQUEST, why.to_string()))?;
    let dir = store::tournament(&served.roots, root_index(root)?, sub)?;
    let loaded = store::load_tournament(&dir.path);
    let value = pages::games_json(&dir, &loaded, filter, served.rebuild.is_some());
    raw(value.to_string())
}

/// `/api/summary/ROOT[/SUB]`: the run's summary, the figures and strings its pages show.
async fn summary_json(served: &Served, root: &str, sub: Option<&str>) -> Result<Response, Problem> {
    let dir = store::tournament(&served.roots, root_index(root)?, sub)?;
    let value = pages::summary_json(&dir)
        .map_err(|why| Problem::new(StatusCode::UNPROCESSABLE_ENTITY, why.to_string()))?;
    raw(value.to_string())
}

async fn summary_of_root(
    State(served): State<Shared>,
    params: Param<String>,
) -> Result<Response, Problem> {
    let axum::extract::Path(root) = params?;
    summary_json(&served, &root, None).await
}

async fn summary_of_sub(
    State(served): State<Shared>,
    params: Param<(String, String)>,
) -> Result<Response, Problem> {
    let axum::extract::Path((root, sub)) = params?;
    summary_json(&served, &root, Some(&sub)).await
}

async fn games_of_root(
    State(served): State<Shared>,
    params: Param<String>,
    query: Result<Query<GameFilter>, QueryRejection>,
) -> Result<Response, Problem> {
    let axum::extract::Path(root) = params?;
    let Query(filter) = query?;
    games_json(&served, &root, None, &filter).await
}

async fn games_of_sub(
    State(served): State<Shared>,
    params: Param<(String, String)>,
    query: Result<Query<GameFilter>, QueryRejection>,
) -> Result<Response, Problem> {
    let axum::extract::Path((root, sub)) = params?;
    let Query(filter) = query?;
    games_json(&served, &root, Some(&sub), &filter).await
}

async fn game_under_root(
    State(served): State<Shared>,
    params: Param<(String, String)>,
) -> Result<Response, Problem> {
    let axum::extract::Path((root, path)) = params?;
    let text = replay_under_root(&served, &root, &path).await?;
    viewer(
        &served,
        &text,
        &back_link(&served, root_index(&root)?, &path),
    )
}

async fn raw_under_root(
    State(served): State<Shared>,
    params: Param<(String, String)>,
) -> Result<Response, Problem> {
    let axum::extract::Path((root, path)) = params?;
    raw(replay_under_root(&served, &root, &path).await?)
}

fn given_file(served: &Served, index: &str) -> Result<PathBuf, Problem> {
    index
        .parse::<usize>()
        .ok()
        .and_then(|i| served.files.get(i))
        .cloned()
        .ok_or_else(|| {
            Problem::new(
                StatusCode::NOT_FOUND,
                format!("no replay file number `{index}`"),
            )
        })
}

async fn game_file(
    State(served): State<Shared>,
    params: Param<String>,
) -> Result<Response, Problem> {
    let axum::extract::Path(index) = params?;
    let file = given_file(&served, &index)?;
    let back = Back {
        href: "/".into(),
        label: "home".into(),
        command: None,
    };
    viewer(&served, &store::read_text(&file)?, &back)
}

async fn raw_file(
    State(served): State<Shared>,
    params: Param<String>,
) -> Result<Response, Problem> {
    let axum::extract::Path(index) = params?;
    raw(store::read_text(&given_file(&served, &index)?)?)
}

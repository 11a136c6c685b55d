//! The JSON API and the web pages of a hosted contest.
//!
//! Authentication: `Authorization: Bearer TOKEN` on every request of the API; the pages' viewer
//! links (plain GETs opened in a new tab) may carry the token as the `arena_token` cookie the
//! page sets, which is never accepted for a write (a cross-site form cannot set the header).
//!
//! Visibility: a contestant sees its own submissions (source, build log) and, in replays, only its
//! own bots' stderr; an organiser sees everything. Someone else's submission answers 404, as a
//! missing one does, so ids reveal nothing.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::HostError;
use crate::auth::{self, AuthError};
use crate::host::{Host, sha256_hex};
use crate::leaderboard;
use crate::records::Submission;
use crate::scrimmage::ScrimmageError;
use crate::store::{GameFilter, GameListing, Outcome, Role, User};

type Shared = Arc<Host>;

/// An answer that is not a success: a status and a message for people.
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(json!({ "error": self.1 }))).into_response()
    }
}

impl From<HostError> for ApiError {
    fn from(error: HostError) -> Self {
        let status = match &error {
            HostError::Refused(_) | HostError::Config(_) => StatusCode::BAD_REQUEST,
            HostError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            HostError::Conflict(_) => StatusCode::CONFLICT,
            HostError::Database(_) | HostError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
            HostError::DiskFull(_) => StatusCode::INSUFFICIENT_STORAGE,
            HostError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        };
        ApiError(status, error.to_string())
    }
}

type ApiResult<T> = Result<T, ApiError>;

impl From<ScrimmageError> for ApiError {
    fn from(error: ScrimmageError) -> Self {
        match error {
            ScrimmageError::UnknownOpponent(_) => {
                ApiError(StatusCode::NOT_FOUND, error.to_string())
            }
            other => HostError::from(other).into(),
        }
    }
}

fn not_found() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such thing (or not yours)".into())
}

fn organisers_only() -> ApiError {
    ApiError(
        StatusCode::FORBIDDEN,
        "only the contest's organisers may do that".into(),
    )
}

/// The routes.
pub fn router(host: Shared) -> Router {
    // The upload route takes bodies up to the contest's limit (the body is the file; beyond it:
    // 413 before anything is stored); every other route keeps axum's small default.
    let upload_limit = usize::try_from(host.contest.limits.upload_bytes).unwrap_or(usize::MAX);
    Router::new()
        .route("/api/contest", get(contest))
        .route("/api/register", post(register))
        .route("/api/me", get(me))
        .route("/api/token/rotate", post(rotate_token))
        .route("/api/users", get(accounts))
        .route("/api/users/{name}/{action}", post(account_action))
        .route(
            "/api/submissions",
            get(list_submissions)
                .post(upload)
                .layer(DefaultBodyLimit::max(upload_limit)),
        )
        .route("/api/submissions/{id}", get(one_submission))
        .route("/api/submissions/{id}/source", get(source))
        .route("/api/submissions/{id}/stop", post(stop))
        .route("/api/submissions/{id}/resume", post(resume))
        .route("/api/submissions/{id}/rerun", post(rerun))
        .route("/api/submissions/{id}/ratings", get(ratings))
        .route("/api/scrimmages", get(list_scrimmages).post(ask_scrimmage))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/freeze", post(freeze))
        .route("/api/qualifier", post(run_qualifier))
        .route("/api/final", post(run_final))
        .route("/api/games", get(games))
        .route("/api/games/{id}/replay", get(replay))
        .route("/api/export", post(export_folder))
        .route("/export/{number}/{*file}", get(export_file))
        .route("/api/export/results.jsonl", get(export_results))
        .route("/api/export/leaderboard.csv", get(export_csv))
        .route("/api/workers", get(workers))
        .merge(crate::site::routes())
        .fallback(crate::site::fallback)
        .layer(axum::middleware::from_fn(crate::site::security_headers))
        .with_state(host)
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        let status = match error {
            AuthError::Host(e) => return ApiError::from(e),
            AuthError::Missing | AuthError::Unknown => StatusCode::UNAUTHORIZED,
            AuthError::Disabled | AuthError::BadCsrf => StatusCode::FORBIDDEN,
        };
        ApiError(status, error.to_string())
    }
}

/// The user a request is made by: its bearer token, or the pages' session for reading only.
async fn user(host: &Host, method: &Method, headers: &HeaderMap) -> ApiResult<User> {
    Ok(auth::api_user(host, headers, method == Method::GET).await?)
}

fn is_organiser(user: &User) -> bool {
    user.role == Role::Organiser
}

/// A submission the user may see, or 404.
async fn visible_submission(host: &Host, user: &User, id: i64) -> ApiResult<Submission> {
    match host.store.submission(id).await? {
        Some(s) if auth::may_read(user, &s) => Ok(s),
        _ => Err(not_found()),
    }
}

fn submission_json(s: &Submission, with_log: bool) -> Value {
    let mut value = json!({
        "id": s.id,
        "user": s.user,
        "kind": s.kind,
        "file": s.source_name,
        "sha256": s.source_sha256,
        "state": s.state,
        "active": s.active,
        "league": s.league,
        "mu": s.mu,
        "sigma": s.sigma,
        "games": s.games,
        "created_at": s.created_at,
    });
    if with_log {
        value["build_log"] = Value::String(s.build_log.clone());
    }
    value
}

async fn contest(State(host): State<Shared>) -> axum::Json<Value> {
    let c = &host.contest;
    axum::Json(json!({
        "name": c.name,
        "game": c.game,
        "format": c.format.name(),
        "leagues": c.leagues.iter().map(|l| json!({"name": l.name, "variant": l.variant, "boss": l.boss})).collect::<Vec<_>>(),
        "open_registration": c.open_registration,
        "upload_bytes": c.limits.upload_bytes,
        "uploads_per_hour": c.limits.uploads_per_hour,
        "scrimmage_games_per_hour": c.limits.scrimmage_games_per_hour,
        "scrimmage_games_per_request": c.limits.scrimmage_games_per_request,
    }))
}

#[derive(Deserialize)]
struct Registration {
    name: String,
}

async fn register(
    State(host): State<Shared>,
    headers: HeaderMap,
    peer: auth::Peer,
    axum::Json(body): axum::Json<Registration>,
) -> ApiResult<axum::Json<Value>> {
    let address = auth::client_address(&host, &headers, peer.0);
    let token = auth::register(&host, &body.name, &address)
        .await
        .map_err(|e| match e {
            HostError::Refused(m) if !host.contest.open_registration => {
                ApiError(StatusCode::FORBIDDEN, m)
            }
            other => other.into(),
        })?;
    Ok(axum::Json(json!({ "name": body.name, "token": token })))
}

/// The caller's new token: the old one stops working at once, and so do its sessions.
async fn rotate_token(
    State(host): State<Shared>,
    headers: HeaderMap,
) -> ApiResult<axum::Json<Value>> {
    // A write: the bearer token only.
    let user = auth::api_user(&host, &headers, false).await?;
    let token = auth::fresh_secret()?;
    host.store
        .rotate_token(user.id, &sha256_hex(token.as_bytes()), None)
        .await?;
    Ok(axum::Json(json!({ "name": user.name, "token": token })))
}

/// The accounts (organisers only).
async fn accounts(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    Ok(axum::Json(json!({ "users": host.store.accounts().await? })))
}

/// What an organiser does to an account: `disable`, `enable`, `revoke` (its token stops
/// working) or `token` (a new token for it, returned: to hand over).
async fn account_action(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path((name, action)): Path<(String, String)>,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    Ok(axum::Json(
        auth::account_action(&host, &name, &action).await?,
    ))
}

async fn me(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<axum::Json<Value>> {
    let user = user(&host, &method, &headers).await?;
    Ok(axum::Json(
        json!({ "name": user.name, "role": user.role.as_str() }),
    ))
}

#[derive(Deserialize)]
struct UploadQuery {
    /// The file's name: its extension says the language (`bot.py`), `.zip` a folder.
    name: String,
}

async fn upload(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Query(query): Query<UploadQuery>,
    body: Bytes,
) -> ApiResult<(StatusCode, axum::Json<Value>)> {
    let user = user(&host, &method, &headers).await?;
    if user.role != Role::Contestant {
        return Err(ApiError(
            StatusCode::FORBIDDEN,
            "organisers enter bots in the contest file ([[bots]]), not by upload".into(),
        ));
    }
    let id = host.submit(user.id, &query.name, body.to_vec()).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(json!({ "id": id, "state": "building" })),
    ))
}

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    all: bool,
}

async fn list_submissions(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Query(query): Query<ListQuery>,
) -> ApiResult<axum::Json<Value>> {
    let user = user(&host, &method, &headers).await?;
    let of = if query.all && is_organiser(&user) {
        None
    } else {
        Some(user.id)
    };
    let list = host.store.submissions(of).await?;
    Ok(axum::Json(Value::Array(
        list.iter().map(|s| submission_json(s, true)).collect(),
    )))
}

async fn one_submission(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Value>> {
    let user = user(&host, &method, &headers).await?;
    let s = visible_submission(&host, &user, id).await?;
    Ok(axum::Json(submission_json(&s, true)))
}

async fn source(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<Response> {
    let user = user(&host, &method, &headers).await?;
    let s = visible_submission(&host, &user, id).await?;
    let bytes = host.store.source(s.id).await?.unwrap_or_default();
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}\"", s.source_name),
            ),
        ],
        bytes,
    )
        .into_response())
}

async fn organiser(host: &Host, method: &Method, headers: &HeaderMap) -> ApiResult<User> {
    let user = user(host, method, headers).await?;
    if !is_organiser(&user) {
        return Err(organisers_only());
    }
    Ok(user)
}

async fn stop(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    let changed = host.store.set_stopped(id, true).await?;
    host.changed.notify_waiters();
    Ok(axum::Json(json!({ "id": id, "stopped": changed })))
}

async fn resume(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    let changed = host.store.set_stopped(id, false).await?;
    host.changed.notify_waiters();
    Ok(axum::Json(json!({ "id": id, "resumed": changed })))
}

async fn rerun(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    if !host.store.reset_rating(id).await? {
        return Err(not_found());
    }
    host.changed.notify_waiters();
    Ok(axum::Json(json!({ "id": id, "rerun": true })))
}

#[derive(Deserialize)]
struct Rounds {
    rounds: Option<u32>,
}

/// Qualifier: the organiser runs rounds of random groups.
async fn run_qualifier(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Rounds>,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    let rounds = body.rounds.unwrap_or(host.contest.qualifier.rounds);
    let games = host.run_qualifier(rounds).await?;
    Ok(axum::Json(json!({ "rounds": rounds, "games": games })))
}

/// Qualifier: the organiser runs the final.
async fn run_final(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    let games = host.run_final().await?;
    Ok(axum::Json(json!({ "games": games })))
}

async fn leaderboard(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<axum::Json<leaderboard::Board>> {
    let user = user(&host, &method, &headers).await?;
    Ok(axum::Json(leaderboard::for_user(&host, &user).await?))
}

#[derive(Deserialize)]
struct Freeze {
    frozen: bool,
}

async fn freeze(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Freeze>,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    leaderboard::set_frozen(&host, body.frozen).await?;
    Ok(axum::Json(json!({ "frozen": body.frozen })))
}

/// `GET /api/games` (and `/api/scrimmages`): filters of [`GameFilter`], players by name.
#[derive(Deserialize)]
struct GamesQuery {
    submission: Option<i64>,
    /// A player's name: games where any of its submissions plays.
    user: Option<String>,
    /// A player's name: games where it plays too.
    opponent: Option<String>,
    /// `win`, `loss` or `draw`, of the submission (else the user).
    result: Option<String>,
    /// `true`: the subject faulted; `false`: it did not (finished games).
    fault: Option<bool>,
    kind: Option<String>,
    state: Option<String>,
    /// The last id of the previous page.
    before: Option<i64>,
    #[serde(default = "default_limit")]
    limit: i64,
}

fn default_limit() -> i64 {
    100
}

/// A user's id by name, or 404 saying which name is unknown.
async fn user_id_named(host: &Host, name: &str) -> ApiResult<i64> {
    host.store
        .user_by_name(name)
        .await?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no player named {name:?}")))
}

impl GamesQuery {
    async fn filter(&self, host: &Host) -> ApiResult<GameFilter> {
        let result = match &self.result {
            None => None,
            Some(text) => Some(Outcome::parse(text).ok_or_else(|| {
                ApiError(
                    StatusCode::BAD_REQUEST,
                    format!("result={text}: give win, loss or draw"),
                )
            })?),
        };
        let user = match &self.user {
            Some(name) => Some(user_id_named(host, name).await?),
            None => None,
        };
        let opponent = match &self.opponent {
            Some(name) => Some(user_id_named(host, name).await?),
            None => None,
        };
        Ok(GameFilter {
            submission: self.submission,
            user,
            opponent,
            result,
            fault: self.fault,
            kind: self.kind.clone(),
            state: self.state.clone(),
            before: self.before,
            limit: self.limit.clamp(1, 1000),
        })
    }
}

/// Listed games as JSON: each game's fields, `players` (per seat: submission, user, rank,
/// faulted, fault) and, as before, `seats` (the submissions' ids).
fn listing_json(games: Vec<GameListing>) -> Value {
    Value::Array(
        games
            .into_iter()
            .map(|game| {
                let seats: Vec<i64> = game.players.iter().map(|p| p.submission).collect();
                let mut value = serde_json::to_value(game).unwrap_or(Value::Null);
                value["seats"] = json!(seats);
                value
            })
            .collect(),
    )
}

/// Games, newest first, filtered (see [`GamesQuery`]), `limit` at most (1..=1000); the next page
/// with `before` = the last id.
async fn games(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Query(query): Query<GamesQuery>,
) -> ApiResult<axum::Json<Value>> {
    user(&host, &method, &headers).await?;
    let filter = query.filter(&host).await?;
    Ok(axum::Json(listing_json(
        host.store.game_listing(&filter).await?,
    )))
}

#[derive(Deserialize)]
struct ScrimmageRequest {
    opponent: String,
    games: u32,
}

/// Asks for scrimmage games: 202 `{"games": [ids]}`.
async fn ask_scrimmage(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    axum::Json(body): axum::Json<ScrimmageRequest>,
) -> ApiResult<(StatusCode, axum::Json<Value>)> {
    let user = user(&host, &method, &headers).await?;
    let ids = host
        .request_scrimmage(&user, &body.opponent, body.games)
        .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(json!({ "games": ids }))))
}

/// The user's scrimmages (asked for by it or against it), newest first, as `GET /api/games`
/// lists them; its filters apply (but `kind` and `user`).
async fn list_scrimmages(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Query(query): Query<GamesQuery>,
) -> ApiResult<axum::Json<Value>> {
    let user = user(&host, &method, &headers).await?;
    let mut filter = query.filter(&host).await?;
    filter.user = Some(user.id);
    filter.kind = Some("scrimmage".into());
    Ok(axum::Json(listing_json(
        host.store.game_listing(&filter).await?,
    )))
}

/// A submission's rating after each of its rated games, oldest first (same visibility as the
/// submission).
async fn ratings(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Value>> {
    let user = user(&host, &method, &headers).await?;
    let s = visible_submission(&host, &user, id).await?;
    let points = host.store.rating_history(s.id).await?;
    Ok(axum::Json(json!({ "submission": s.id, "points": points })))
}

async fn replay(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Value>> {
    let user = user(&host, &method, &headers).await?;
    Ok(axum::Json(
        host.visible_replay(&user, id)
            .await?
            .ok_or_else(not_found)?,
    ))
}

/// Writes the results as an `arena tournament` folder (report, summary, CSV, journal, replays)
/// under the data folder's `exports/N`, served at `/export/N/`.
async fn export_folder(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    let exports = host.data_dir().join("exports");
    let mut number = 1u64;
    while exports.join(number.to_string()).exists() {
        number += 1;
    }
    let dir = exports.join(number.to_string());
    let games = host
        .export(&dir, arena_tournament::summary::DEFAULT_BOOTSTRAP)
        .await?;
    Ok(axum::Json(json!({
        "games": games,
        "dir": dir.display().to_string(),
        "report": format!("/export/{number}/report.html"),
    })))
}

/// A file of an export (organisers only): the known names and `replays/N.json.gz|js`, nothing else.
async fn export_file(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
    Path((number, file)): Path<(u64, String)>,
) -> ApiResult<Response> {
    organiser(&host, &method, &headers).await?;
    let known = arena_formats::layout::FILES;
    // A replay (`replays/NNNNNN.json.gz`) or a bundle of them (`replays/bundle-NNNNNN.js`).
    let replay = file
        .strip_prefix("replays/")
        .and_then(|f| {
            f.strip_suffix(".json.gz")
                .or_else(|| f.strip_prefix("bundle-")?.strip_suffix(".js"))
        })
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !known.contains(&file.as_str()) && !replay {
        return Err(not_found());
    }
    let path = host
        .data_dir()
        .join("exports")
        .join(number.to_string())
        .join(&file);
    let bytes = tokio::fs::read(&path).await.map_err(|_| not_found())?;
    let kind = match file.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("json") => "application/json",
        Some("csv") => "text/csv",
        Some("js") => "text/javascript",
        Some("gz") => "application/gzip",
        _ => "application/x-ndjson",
    };
    Ok(([(header::CONTENT_TYPE, kind)], bytes).into_response())
}

/// Every result of the contest (scrimmages left out) as `arena tournament`'s journal
/// (`results.jsonl`), in completion order.
async fn export_results(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<Response> {
    organiser(&host, &method, &headers).await?;
    let mut text = String::new();
    for (_, _, entry) in host.store.contest_results().await? {
        text.push_str(&entry);
        text.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], text).into_response())
}

/// The workers of every machine: health (state, last heartbeat, alive), capabilities, the games
/// each holds now and has done.
async fn workers(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<axum::Json<Value>> {
    organiser(&host, &method, &headers).await?;
    let workers = host.store.workers().await?;
    Ok(axum::Json(json!({ "workers": workers })))
}

async fn export_csv(
    State(host): State<Shared>,
    method: Method,
    headers: HeaderMap,
) -> ApiResult<Response> {
    organiser(&host, &method, &headers).await?;
    let board = leaderboard::live(&host).await?;
    Ok((
        [(header::CONTENT_TYPE, "text/csv")],
        leaderboard::csv(&board),
    )
        .into_response())
}

//! The contest's web pages: server-rendered HTML (maud: markup checked when compiled, every
//! value escaped), one stylesheet and one small script served from here, no framework.
//!
//! - Every page but signing in and registering needs a session ([`crate::auth`]); a page asked
//!   for without one sends the reader to `/signin` and back.
//! - Writes are HTML forms posted with the session's CSRF token; the cookie alone changes nothing.
//! - Live: `/events` (server-sent events) says when the contest changed (a game finished or was
//!   queued, a submission built); the script then fetches the page again and replaces only the
//!   parts marked `data-live`, keeping what the reader opened (`<details>`) and typed.
//! - Headers: every response, pages and API alike, carries the security headers of
//!   [`security_headers`]; pages allow scripts only from this server (the viewer: only its own
//!   inline scripts, by nonce).

mod chart;
mod data;
mod forms;
mod organiser;
mod pages;

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::{DOCTYPE, Markup, html};
use serde_json::json;

use crate::HostError;
use crate::auth::{self, AuthError};
use crate::host::Host;
use crate::store::{Role, Session, User};

type Shared = Arc<Host>;

/// The pages' routes (merged with the API's in `api::router`).
pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/", get(pages::home))
        .route("/signin", get(forms::signin_page).post(forms::signin))
        .route("/signout", post(forms::signout))
        .route("/register", get(forms::register_page).post(forms::register))
        .route("/players/{name}", get(pages::player))
        .route("/submissions/{id}", get(pages::submission))
        .route("/submissions/{id}/source", get(pages::source))
        .route("/games", get(pages::games))
        .route("/games/{id}", get(pages::viewer))
        .route(
            "/upload",
            post(forms::upload).layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route(
            "/scrimmages",
            get(forms::scrimmages_page).post(forms::scrimmage),
        )
        .route("/account", get(forms::account_page))
        .route("/account/rotate", post(forms::rotate))
        .route("/account/sessions", post(forms::end_sessions))
        .route("/organiser", get(organiser::dashboard))
        .route("/organiser/users/{name}", post(organiser::user_action))
        .route(
            "/organiser/submissions/{id}",
            post(organiser::submission_action),
        )
        .route("/organiser/freeze", post(organiser::freeze))
        .route("/events", get(pages::events))
        .route("/static/site.css", get(style))
        .route("/static/site.js", get(script))
        .route("/favicon.ico", get(icon))
}

/// Paths nothing answers: a page for people, JSON for the API.
pub async fn fallback(uri: Uri) -> Response {
    if uri.path().starts_with("/api/") {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({ "error": "no such thing (or not yours)" })),
        )
            .into_response();
    }
    PageError::NotFound.into_response()
}

async fn style() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        include_str!("site.css"),
    )
}

/// The pages' icon (browsers ask for `/favicon.ico` whatever the page says).
async fn icon() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "max-age=86400"),
        ],
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
         <rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#15253f\"/>\
         <path d=\"M4 12 8 3l4 9M5.5 9h5\" stroke=\"#e8eefb\" stroke-width=\"1.6\" fill=\"none\"/></svg>",
    )
}

async fn script() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        include_str!("site.js"),
    )
}

/// The content security policy of the pages: nothing but this server's own files, no inline
/// script, no framing, forms only to this server.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
     base-uri 'none'";

/// Headers every response carries. A handler that sets its own `Content-Security-Policy` (the
/// viewer, with its nonce) keeps it.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    let mut set = |name: header::HeaderName, value: &'static str| {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    };
    set(header::CONTENT_SECURITY_POLICY, PAGE_POLICY);
    set(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(header::X_FRAME_OPTIONS, "DENY");
    set(header::REFERRER_POLICY, "same-origin");
    set(
        header::HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    );
    set(
        header::HeaderName::from_static("permissions-policy"),
        "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    );
    // Pages hold a contestant's own things (source, stderr): no shared cache keeps them.
    set(header::CACHE_CONTROL, "no-store");
    response
}

/// What a page answers when it cannot show what was asked: a page, with the status.
#[derive(Debug)]
pub enum PageError {
    NotFound,
    /// Not signed in (or the session ended): to the sign-in page, then back to `next`.
    SignIn {
        next: String,
    },
    Forbidden(String),
    BadRequest(String),
    TooMany(String),
    /// The database's disk is full, or it cannot serve now: nothing was stored; later may work.
    Unavailable(StatusCode, String),
    Server(String),
}

impl From<HostError> for PageError {
    fn from(error: HostError) -> Self {
        match error {
            HostError::Refused(m) | HostError::Config(m) | HostError::Conflict(m) => {
                PageError::BadRequest(m)
            }
            HostError::TooMany(m) => PageError::TooMany(m),
            HostError::DiskFull(m) => PageError::Unavailable(StatusCode::INSUFFICIENT_STORAGE, m),
            HostError::Unavailable(m) => PageError::Unavailable(StatusCode::SERVICE_UNAVAILABLE, m),
            other => PageError::Server(other.to_string()),
        }
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, title, message) = match self {
            PageError::SignIn { next } => {
                return Redirect::to(&format!("/signin?next={}", arena_viewer::url_path(&next)))
                    .into_response();
            }
            PageError::NotFound => (
                StatusCode::NOT_FOUND,
                "Not found",
                "There is no such page, or it is not yours to see.".to_string(),
            ),
            PageError::Forbidden(m) => (StatusCode::FORBIDDEN, "Not allowed", m),
            PageError::BadRequest(m) => (StatusCode::BAD_REQUEST, "That did not work", m),
            PageError::TooMany(m) => (StatusCode::TOO_MANY_REQUESTS, "Too many", m),
            PageError::Unavailable(status, m) => (status, "The server cannot store that now", m),
            PageError::Server(m) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong on the server",
                m,
            ),
        };
        let body = layout(
            title,
            None,
            html! {
                section.error {
                    h1 { (title) }
                    p { (message) }
                    p { a href="/" { "Back to the leaderboard" } }
                }
            },
        );
        (status, body).into_response()
    }
}

pub type PageResult<T> = Result<T, PageError>;

/// The signed-in reader of a page.
pub struct Reader {
    pub session: Session,
    /// The session cookie's hash (what the store knows it by).
    pub hash: String,
}

impl Reader {
    pub fn user(&self) -> &User {
        &self.session.user
    }
    pub fn is_organiser(&self) -> bool {
        self.session.user.role == Role::Organiser
    }
}

/// The reader of `uri`, or the way to the sign-in page.
pub async fn reader(host: &Host, headers: &HeaderMap, uri: &Uri) -> PageResult<Reader> {
    match auth::session(host, headers).await {
        Ok((session, hash)) => Ok(Reader { session, hash }),
        Err(AuthError::Missing | AuthError::Unknown) => Err(PageError::SignIn {
            next: uri
                .path_and_query()
                .map(|p| p.as_str().to_string())
                .unwrap_or_else(|| "/".into()),
        }),
        Err(AuthError::Disabled) => Err(PageError::Forbidden(AuthError::Disabled.to_string())),
        Err(e) => Err(PageError::Server(e.to_string())),
    }
}

/// A form's post: the reader, whose session's CSRF token the form must carry, from a page of
/// this server (a browser always says where a form came from: a foreign `Origin` is refused).
pub async fn poster(host: &Host, headers: &HeaderMap, uri: &Uri, csrf: &str) -> PageResult<Reader> {
    same_origin(headers)?;
    let reader = reader(host, headers, uri).await?;
    if !constant_time_eq(csrf.as_bytes(), reader.session.csrf.as_bytes()) {
        return Err(PageError::Forbidden(AuthError::BadCsrf.to_string()));
    }
    Ok(reader)
}

/// Refuses a post whose `Origin` is another site's (signing in has no session to hold a CSRF
/// token yet: this and the `SameSite=Strict` cookie stand in for it).
pub fn same_origin(headers: &HeaderMap) -> PageResult<()> {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return Ok(());
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or(origin);
    if origin == "null" || origin_host != host {
        return Err(PageError::Forbidden(
            "a form of another site cannot act here".into(),
        ));
    }
    Ok(())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A page: the contest's name, the menu for `reader`, `body`.
pub fn layout(title: &str, reader: Option<&Reader>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · arena" }
                link rel="stylesheet" href="/static/site.css";
                link rel="icon" href="/favicon.ico" type="image/svg+xml";
                script src="/static/site.js" defer {}
            }
            body {
                header.top {
                    a.brand href="/" { "arena" }
                    @if let Some(reader) = reader {
                        nav {
                            a href="/" { "Leaderboard" }
                            a href="/games" { "Games" }
                            a href={ "/players/" (reader.user().name) } { "My bots" }
                            @if reader.user().role == Role::Contestant {
                                a href="/scrimmages" { "Scrimmages" }
                            }
                            @if reader.is_organiser() {
                                a href="/organiser" { "Organiser" }
                            }
                            a href="/account" { (reader.user().name) }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// A form's hidden CSRF field.
pub fn csrf_field(reader: &Reader) -> Markup {
    html! { input type="hidden" name="csrf" value=(reader.session.csrf); }
}

/// A time as people read it (UTC).
pub fn when(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Civil date from days since 1970 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_dates() {
        assert_eq!(when(0), "1970-01-01 00:00 UTC");
        assert_eq!(when(1_795_824_000 + 3_661), "2026-11-28 01:01 UTC");
        assert_eq!(when(951_782_400), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn queries_are_encoded() {
        // The viewer's encoder, which keeps a path's slashes, serves the pages' links.
        assert_eq!(arena_viewer::url_path("/games?a=b&c"), "/games%3Fa%3Db%26c");
    }
}
